"""Every command refuses bad input before it starts (issue 25): exit code 2, one line naming the option or file
and what is wrong, nothing written -- no result, no folder, no report -- and nothing left in $TMPDIR; and FMU
runs leave nothing in $TMPDIR after the process ends, also a process killed with SIGKILL (the next one
cleans up)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from crane_models.app.cli import main
from engine_runs import NO_LIBCOSIM, libcosim_missing
from fmu_helpers import build_knuckle_boom_fmu

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory) -> Path:
    """KnuckleBoomCrane.fmu built once per test process (the only FMU these tests run)."""
    return build_knuckle_boom_fmu(tmp_path_factory)


@pytest.fixture()
def fresh_tmp(tmp_path, monkeypatch) -> Path:
    """$TMPDIR of the command: a fresh, empty folder (tempfile reads the variable once, so reset it too)."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


@pytest.fixture()
def unwritable(tmp_path) -> Path:
    """A folder no file can be created in: a read-only folder, or /sys for root (root writes anywhere
    else)."""
    if os.geteuid() != 0:
        folder = tmp_path / "read_only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    if Path("/sys").is_dir():
        return Path("/sys")
    pytest.skip("no folder root cannot write to (/sys missing)")


def snapshot(folder: Path) -> set:
    return {p.relative_to(folder) for p in folder.rglob("*")}


def cli(capsys, *args) -> tuple:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, workdir: Path, fresh_tmp: Path, says: str, *args) -> None:
    """The command exits 2 with ``says`` on its last line, no traceback, and writes nothing anywhere."""
    before = snapshot(workdir)
    code, out, err = cli(capsys, *args)
    assert code == 2, err
    assert says in err.strip().splitlines()[-1], err
    assert "Traceback" not in err
    assert snapshot(workdir) == before
    assert not list(fresh_tmp.iterdir())


@pytest.fixture()
def no_run(monkeypatch):
    """A refusal must come before the FMU runs: running it fails the test."""
    import crane_models.simulation.runs as runs

    def ran(*_, **__):
        raise AssertionError("the FMU ran before the input was checked")

    monkeypatch.setattr(runs, "co_simulate", ran)


# -- run ---------------------------------------------------------------------------------------------------------

def test_run_refuses_a_folder_as_out_before_running(capsys, tmp_path, fresh_tmp, fmu_dir, no_run):
    folder = tmp_path / "results"
    folder.mkdir()
    refused(capsys, tmp_path, fresh_tmp, f"--out {folder}: is a folder; give a file name",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.1", "--out", folder)


def test_run_refuses_an_unwritable_out_before_running(capsys, tmp_path, fresh_tmp, fmu_dir, no_run, unwritable):
    target = unwritable / "y.csv"
    refused(capsys, tmp_path, fresh_tmp, f"--out {target}: cannot write into {unwritable}",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.1", "--out", target)
    refused(capsys, tmp_path, fresh_tmp, f"cannot create the folder {unwritable / 'sub'}",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.1", "--out", unwritable / "sub" / "y.csv")


def test_run_refuses_an_out_below_a_file(capsys, tmp_path, fresh_tmp, fmu_dir, no_run):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    refused(capsys, tmp_path, fresh_tmp, f"--out {blocker / 'r.csv'}: {blocker} is not a folder",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.1", "--out", blocker / "r.csv")


def test_run_refuses_a_png_out_with_plot(capsys, tmp_path, fresh_tmp, fmu_dir, no_run):
    refused(capsys, tmp_path, fresh_tmp, "give the CSV a .csv name",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--out", tmp_path / "r.png", "--plot")


@pytest.mark.parametrize("table, says", [
    ("time,king_torque\n0,1\n\n0.5,nan\n1,2\n", "line 4, column 'king_torque': nan is not a finite number"),
    ("time,king_torque\n0,1\n0.5,inf\n", "line 3, column 'king_torque': inf is not a finite number"),
    ("time,king_torque\n0,1\n2,2\n1,3\n", "line 4: time 1 s is before 2 s on line 3; time must not decrease"),
    ("time,king_torque\nnan,1\n", "line 2, column 'time': nan is not a finite number"),
    ("time,king_torque,king_torque\n0,1,2\n", "line 1: column 'king_torque' appears more than once"),
])
def test_run_names_the_line_of_a_bad_input_row(capsys, tmp_path, fresh_tmp, fmu_dir, no_run, table, says):
    signals = tmp_path / "signals.csv"
    signals.write_text(table)
    refused(capsys, tmp_path, fresh_tmp, f"--input {signals}, {says}",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--input", signals, "--out", tmp_path / "r.csv")


def test_run_refuses_a_binary_input_file(capsys, tmp_path, fresh_tmp, fmu_dir, no_run):
    signals = tmp_path / "signals.csv"
    signals.write_bytes(b"\xff\xfe\x00\x01" * 10)
    refused(capsys, tmp_path, fresh_tmp, "not a UTF-8 text file",
            "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--input", signals, "--out", tmp_path / "r.csv")


# -- demo ----------------------------------------------------------------------------------------------------------

def test_demo_refuses_an_unwritable_out_before_building(capsys, tmp_path, fresh_tmp, unwritable):
    refused(capsys, tmp_path, fresh_tmp, f"--out {unwritable}",
            "demo", "--scenario", "knuckle_boom_hoisting", "--out", unwritable)


def test_demo_refuses_a_file_in_place_of_a_scenario_folder_before_running(capsys, tmp_path, fresh_tmp, fmu_dir,
                                                                          no_run):
    out = tmp_path / "out"
    out.mkdir()
    (out / "knuckle_boom_hoisting").write_text("a file where the scenario's folder goes")
    refused(capsys, tmp_path, fresh_tmp, f"{out / 'knuckle_boom_hoisting'} is not a folder",
            "demo", "--scenario", "knuckle_boom_hoisting", "--fmus", fmu_dir, "--out", out)


# -- sweep ---------------------------------------------------------------------------------------------------------

CASES = "fmu: KnuckleBoomCrane\nduration: 1.0\nstep: 0.01\n"


@pytest.mark.parametrize("text, says", [
    (CASES + "parameters: {kp1: [1.0e6, 2.0e6]\n", "line 5, column 1: YAML syntax error: expected ',' or '}'"),
    (CASES + "parameters: [kp1\n", "YAML syntax error"),
    ("fmu: KnuckleBoomCrane\nduration: 20.0\nstep: 1.0e-12\n", "step = 1e-12 s is below the smallest communication step"),
    ("fmu: KnuckleBoomCrane\nduration: 100.0\nstep: 2.0e-5\n", "more than 2e+06"),
    (CASES + "fmu_file: missing.fmu\n", "missing.fmu': no such file"),
])
def test_sweep_refuses_bad_case_files_before_starting(capsys, tmp_path, fresh_tmp, text, says):
    cases = tmp_path / "cases.yaml"
    cases.write_text(text)
    refused(capsys, tmp_path, fresh_tmp, says.replace("missing.fmu'", f"{tmp_path / 'missing.fmu'}'"),
            "sweep", cases, "--out", tmp_path / "out")


def test_a_case_file_of_too_many_cases_is_refused_before_it_expands(monkeypatch):
    """2e5 cases (a grid of 400 x 500): refused from the grid's sizes, before a single case is built."""
    import crane_models.analysis.cases as cases

    def built(*_, **__):
        raise AssertionError("cases were built before their count was checked")

    monkeypatch.setattr(cases, "Case", built)
    grid = {"kp1": {"range": [1.0, 2.0], "num": 400}, "kd1": {"range": [1.0, 2.0], "num": 500}}
    with pytest.raises(ValueError, match=r"expands to 2e\+05 cases, more than 1e\+05 .* split the study"):
        cases.parse_cases({"fmu": "KnuckleBoomCrane", "duration": 1.0, "step": 0.01, "parameters": grid})


def test_sweep_refuses_a_case_file_of_another_fmu(capsys, tmp_path, fresh_tmp, fmu_dir):
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"fmu: VesselCrane\nfmu_file: {fmu_dir / 'KnuckleBoomCrane.fmu'}\nduration: 1.0\nstep: 0.01\n")
    refused(capsys, tmp_path, fresh_tmp, "is an FMU of KnuckleBoomCrane, not of fmu = VesselCrane",
            "sweep", cases, "--out", tmp_path / "out")


def test_sweep_refuses_workers_with_a_scheduler_and_a_missing_file(capsys, tmp_path, fresh_tmp):
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES)
    refused(capsys, tmp_path, fresh_tmp, "give --workers or --scheduler, not both",
            "sweep", cases, "--workers", "1", "--scheduler", "tcp://localhost:1", "--out", tmp_path / "out")
    refused(capsys, tmp_path, fresh_tmp, "No such file or directory",
            "sweep", tmp_path / "none.yaml", "--out", tmp_path / "out")


def test_sweep_refuses_an_unwritable_out(capsys, tmp_path, fresh_tmp, unwritable):
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES)
    refused(capsys, tmp_path, fresh_tmp, f"--out {unwritable / 'out'}: cannot create the folder",
            "sweep", cases, "--out", unwritable / "out")


# -- report --------------------------------------------------------------------------------------------------------

def test_report_refuses_a_missing_folder_and_creates_nothing(capsys, tmp_path, fresh_tmp):
    refused(capsys, tmp_path, fresh_tmp, f"{tmp_path / 'nowhere'}: no such folder", "report", tmp_path / "nowhere")


def test_report_refuses_a_folder_that_is_no_sweep(capsys, tmp_path, fresh_tmp):
    (tmp_path / "results").mkdir()
    refused(capsys, tmp_path, fresh_tmp, "has no sweep.json", "report", tmp_path / "results")
    (tmp_path / "results" / "sweep.json").write_text("{not json")
    refused(capsys, tmp_path, fresh_tmp, "sweep.json: not a sweep description", "report", tmp_path / "results")


def test_report_refuses_unknown_outputs_before_drawing(capsys, tmp_path, fresh_tmp):
    import json

    results = tmp_path / "results"
    (results / "summary").mkdir(parents=True)
    (results / "summary" / "part-0.parquet").write_bytes(b"")
    (results / "sweep.json").write_text(json.dumps(
        {"name": "s", "fmu": "KnuckleBoomCrane", "fatigue_outputs": ["joint1_force_z"], "slopes": [3],
         "reference_cycles": 2e6, "varied": [], "units": {"joint1_force_z": "N"}, "cases": 1}))
    refused(capsys, tmp_path, fresh_tmp, "--outputs: 'joint9_force_z' has no fatigue results; fatigue outputs: "
            "joint1_force_z", "report", results, "--outputs", "joint9_force_z")


# -- nothing left in $TMPDIR by runs -----------------------------------------------------------------------------------

def crane_cosim(args: list, tmpdir: Path, **options) -> subprocess.CompletedProcess:
    """``crane-cosim ARGS`` in a process of its own whose $TMPDIR is ``tmpdir``."""
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.run([sys.executable, "-m", "crane_models.app.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=600, **options)


def test_runs_leave_nothing_in_tmpdir(tmp_path, fmu_dir):
    """A run, a failing run (the FMU refuses a parameter: exit 1) and a demo scenario (the FMU twice: warm-up
    and timed) each unpack the FMU once and remove it when the process ends."""
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    done = crane_cosim(["run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.2", "--out", tmp_path / "r.csv",
                        "--quiet"], tmpdir)
    assert done.returncode == 0, done.stderr
    assert not list(tmpdir.iterdir())
    done = crane_cosim(["run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "l1=-3", "--stop", "0.2",
                        "--out", tmp_path / "bad.csv", "--quiet"], tmpdir)
    assert done.returncode == 1 and "l1 = -3.0 m is outside the allowed range" in done.stderr
    assert not list(tmpdir.iterdir())
    done = crane_cosim(["demo", "--scenario", "knuckle_boom_hoisting", "--step", "0.5", "--fmus", fmu_dir,
                        "--out", tmp_path / "demo", "--no-reference", "--quiet"], tmpdir)
    assert done.returncode == 0, done.stderr
    assert not list(tmpdir.iterdir())


UNPACK = """
import sys, time
from crane_models.simulation.unpacked import unpacked_fmu
print(unpacked_fmu(sys.argv[1]), flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_killed_process_s_unpacked_fmus_are_removed_by_the_next(tmp_path, fmu_dir):
    """SIGKILL skips every exit handler: the folder stays until the next process that unpacks an FMU finds
    its lock free and removes it -- and leaves the folder of a process still running alone."""
    if sys.platform == "win32":
        pytest.skip("POSIX: a lock file tells a dead process from a live one")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    fmu = fmu_dir / "KnuckleBoomCrane.fmu"
    started = [subprocess.Popen([sys.executable, "-c", UNPACK, str(fmu), "60"], env=env, stdout=subprocess.PIPE,
                                text=True) for _ in range(2)]
    try:
        dead, alive = (Path(p.stdout.readline().strip()) for p in started)
        assert dead.is_dir() and alive.is_dir() and dead.parent != alive.parent
        started[0].send_signal(signal.SIGKILL)
        started[0].wait(timeout=30)
        assert dead.is_dir()  # nothing ran at its exit
        done = subprocess.run([sys.executable, "-c", UNPACK, str(fmu), "0"], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        assert not dead.parent.exists() and alive.is_dir()
    finally:
        for p in started:
            p.kill()
            p.wait(timeout=30)
    time.sleep(0.1)
    assert [p.name for p in tmpdir.iterdir()] == [alive.parent.name]  # killed too, until the next process


def test_run_refuses_a_missing_input_file_before_building_the_fmu(capsys, tmp_path, fresh_tmp, no_run, monkeypatch):
    """The input file is checked before the FMU is built: no build, no ``--fmus`` folder created."""
    import crane_models.models.build as build

    monkeypatch.setattr(build, "build_fmu", lambda *_, **__: pytest.fail("the FMU was built before --input was read"))
    missing = tmp_path / "nothere.csv"
    refused(capsys, tmp_path, fresh_tmp, f"--input {missing}: No such file or directory",
            "run", "VesselCrane", "--fmus", tmp_path / "fmus", "--input", missing, "--out", tmp_path / "r.csv")
    assert not (tmp_path / "fmus").exists()


# libcosimpy made unimportable in the command's own process, as after a plain `pip install .` without the extra
WITHOUT_LIBCOSIMPY = ("import sys; sys.modules['libcosimpy'] = None; from crane_models.app.cli import main; "
                      "sys.exit(main(sys.argv[1:]))")


@pytest.mark.parametrize("package", ["CraneOnVessel", "KnuckleBoomCrane"])  # a pair and a single-FMU package
def test_an_ssp_run_without_libcosimpy_names_the_extra(tmp_path, tmp_path_factory, package):
    from fmu_helpers import build_fmus

    ssp = build_fmus(tmp_path_factory) / f"{package}.ssp"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", WITHOUT_LIBCOSIMPY, "run", str(ssp), "--stop", "0.1",
                           "--out", str(tmp_path / "out" / "r.csv")], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("crane-cosim run: error: ") and 'pip install "crane-cosim[libcosim]"' in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_an_ssp_run_refuses_a_start_value_outside_its_declared_range_in_one_line(tmp_path):
    """``--set crane.mount_heading=90`` (rad; declared [-pi, pi]): a line naming the variable and the range, exit 2,
    before libcosim sees it -- libcosim ends the process with std::terminate when an FMU refuses its initialization."""
    from crane_models.models.build import build_all

    fmus = tmp_path / "fmus"
    build_all(fmus)
    # in a child process: without the check libcosim would end the process that runs it
    run = subprocess.run([sys.executable, "-c", "import sys; from crane_models.app.cli import main; sys.exit(main())",
                          "run", str(fmus / "KnuckleBoomOnVessel.ssp"), "--set", "crane.mount_heading=90", "--stop",
                          "0.1", "--out", str(tmp_path / "r.csv")], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    code, err = run.returncode, run.stderr
    assert code == 2 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]  # argparse's usage, then the one line of the error
    assert last.endswith("--set crane.mount_heading=90: outside the allowed range [-3.14159, 3.14159] rad"), err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_an_ssp_run_whose_fmu_refuses_its_initialization_reports_the_fmus_message(tmp_path):
    """Values within their ranges that the FMU still refuses together (q2_min above q2_max): the FMU's own message,
    exit 1, as an FMU run reports it -- libcosim would end the process (the check runs each component's
    initialization in fmpy first; in a child process here, as above)."""
    from crane_models.models.build import build_all

    fmus = tmp_path / "fmus"
    build_all(fmus)
    run = subprocess.run([sys.executable, "-c", "import sys; from crane_models.app.cli import main; sys.exit(main())",
                          "run", str(fmus / "KnuckleBoomOnVessel.ssp"), "--set", "crane.q2_min=1.0", "--set",
                          "crane.q2_max=0.5", "--stop", "0.1", "--out", str(tmp_path / "r.csv")],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert "q2_min = 1.0 m must be below q2_max = 0.5 m" in run.stderr, run.stderr
    assert not (tmp_path / "r.csv").exists()
