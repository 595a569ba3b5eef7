"""The command line as a user meets it (issue 13): ``--version``, ``build``, ``demo``, ``run``, ``info`` -- exit
codes and messages for every bad argument, a demo whose step does not divide the scenario, CSV headers with
units and their metadata sidecar, ``info --json`` against the FMU's own modelDescription.xml."""
from __future__ import annotations

import csv
import hashlib
import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from crane_models.app.cli import main
from engine_runs import needs_ecospy
from fmu_helpers import build_knuckle_boom_fmu

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory) -> Path:
    """KnuckleBoomCrane.fmu built once per test process (the only FMU these tests run)."""
    return build_knuckle_boom_fmu(tmp_path_factory)


def cli(capsys, *args) -> tuple:
    """``crane-cosim ARGS`` in process: ``(exit code, stdout, stderr)``."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse: --version, usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def read_rows(path: Path) -> tuple:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], [[float(c) for c in r] for r in rows[1:]]


def project_version() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    return next(line.split('"')[1] for line in text.splitlines() if line.startswith("version"))


# -- version ---------------------------------------------------------------------------------------------------

def test_version_of_the_installed_script_is_the_project_version():
    """Through the console script that ``pip install`` made (its bin folder is this Python's)."""
    script = Path(sys.executable).with_name("crane-cosim")
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"crane-cosim {project_version()}"


# -- demo: bad arguments -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("step, says", [
    ("0", "must be a positive number"),
    ("-0.01", "must be a positive number"),
    ("nan", "must be a positive number"),
    ("30", "longer than the run"),     # every demo scenario lasts 10 or 20 s
    ("1e-9", "below the smallest communication step"),
])
def test_demo_refuses_unusable_steps_before_building_anything(capsys, tmp_path, step, says):
    code, out, err = cli(capsys, "demo", "--step", step, "--out", tmp_path / "out")
    assert code == 2
    assert "--step" in err and says in err and "allowed" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before building FMUs or creating folders


def test_demo_refuses_a_step_that_is_not_a_number(capsys, tmp_path):
    code, _, err = cli(capsys, "demo", "--step", "fast", "--out", tmp_path / "out")
    assert code == 2 and "--step" in err and "invalid float value" in err


def test_demo_refuses_an_unknown_scenario(capsys, tmp_path):
    code, _, err = cli(capsys, "demo", "--scenario", "no_such_scenario", "--out", tmp_path / "out")
    assert code == 2 and "--scenario" in err and "knuckle_boom_hoisting" in err


@pytest.mark.parametrize("command", [["demo", "--scenario", "knuckle_boom_hoisting"], ["build"]])
def test_unwritable_out_folder_is_a_clear_error(capsys, tmp_path, command):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code, _, err = cli(capsys, *command, "--out", blocker / "sub")
    assert code == 2
    assert f"--out {blocker / 'sub'}: cannot create the folder" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("fmi, folder", [(2, "crane-cosim-out/fmus"), (3, "crane-cosim-out/fmus-fmi3")])
def test_build_defaults_to_one_folder_per_fmi_version(capsys, tmp_path, monkeypatch, fmi, folder):
    """FMI 2 and FMI 3 FMUs share file names: each version gets its own default folder."""
    import crane_models.models.build as build

    seen = []
    monkeypatch.setattr(build, "build_all", lambda out, version, platforms=None: seen.append(
        (Path(out), version, platforms)) or [])
    monkeypatch.chdir(tmp_path)
    code, _, _ = cli(capsys, "build", "--fmi", fmi)
    assert code == 0 and seen == [(Path(folder), fmi, None)]


def test_build_platforms_are_checked_before_building_and_passed_on(capsys, tmp_path, monkeypatch):
    import crane_models.models.build as build

    seen = []
    monkeypatch.setattr(build, "build_all", lambda out, version, platforms=None: seen.append(platforms) or [])
    code, _, err = cli(capsys, "build", "--out", tmp_path, "--platforms", "x86_64-linux,amiga")
    assert code == 2 and "--platforms" in err and "amiga" in err and "x86_64-windows" in err and seen == []
    code, _, _ = cli(capsys, "build", "--out", tmp_path, "--platforms", "x86_64-linux, win64")
    assert code == 0 and seen == [["x86_64-linux", "win64"]]
    code, _, _ = cli(capsys, "build", "--out", tmp_path, "--platforms", "all")
    assert code == 0 and seen[-1] == "all"


# -- demo: a run whose step does not divide the scenario ---------------------------------------------------------

def test_demo_with_a_step_that_does_not_divide_the_stop_time(capsys, tmp_path, fmu_dir):
    step = 0.7  # 20 s = 28 * 0.7 s + 0.4 s: the last step is shortened
    code, out, err = cli(capsys, "demo", "--scenario", "knuckle_boom_hoisting", "--step", step, "--fmus", fmu_dir,
                         "--out", tmp_path)
    assert code == 0, err
    sc_dir = tmp_path / "knuckle_boom_hoisting"
    header, rows = read_rows(sc_dir / "fmu_result.csv")
    times = [r[0] for r in rows]
    assert len(times) == 30 and times[-1] == 20.0
    assert math.isclose(times[-2], 28 * step, rel_tol=1e-12)
    ref_header, ref_rows = read_rows(sc_dir / "standalone_result.csv")
    assert ref_header == header and [r[0] for r in ref_rows] == times
    summary = json.loads((tmp_path / "summary.json").read_text())
    (row,) = summary["scenarios"]
    # The FMU and the independent DOP853 solution agree on the shortened grid: the FMU's 0.1 % validation bound.
    assert row["scenario"] == "knuckle_boom_hoisting" and row["step"] == step
    assert row["max_deviation"] < 1e-3
    assert row["fmu_sha256"] == hashlib.sha256((fmu_dir / "KnuckleBoomCrane.fmu").read_bytes()).hexdigest()
    assert all(Path(f).exists() for f in row["files"]) and any(f.endswith(".png") for f in row["files"])
    assert "knuckle_boom_hoisting" in out and "% of range" in out


def test_demo_results_carry_units_and_metadata(capsys, tmp_path, fmu_dir):
    code, out, err = cli(capsys, "demo", "--scenario", "knuckle_boom_hoisting", "--step", "0.5", "--fmus", fmu_dir,
                         "--out", tmp_path, "--no-reference", "--quiet")
    assert code == 0, err
    # --quiet: no progress, no build messages, only the final table (and where the results are)
    assert out.splitlines()[0].startswith("scenario ") and "knuckle_boom_hoisting" in out.splitlines()[2], out
    assert "under fmpy" not in out and "building" not in out
    sc_dir = tmp_path / "knuckle_boom_hoisting"
    assert not (sc_dir / "standalone_result.csv").exists()  # --no-reference
    header, _ = read_rows(sc_dir / "fmu_result.csv")
    units = xml_units(fmu_dir / "KnuckleBoomCrane.fmu")
    assert header[0] == "time [s]"
    for cell in header[1:]:
        name, unit = cell[:-1].split(" [")
        assert unit == (units[name] or "-"), cell
    assert "joint1_force_z [N]" in header and "q1 [rad]" in header
    meta = json.loads((sc_dir / "fmu_result.csv.json").read_text())
    assert meta["scenario"] == "knuckle_boom_hoisting" and meta["step"] == 0.5
    assert meta["crane_cosim_version"] == project_version()
    assert meta["fmu"]["sha256"] == hashlib.sha256((fmu_dir / "KnuckleBoomCrane.fmu").read_bytes()).hexdigest()


def test_a_demo_of_one_scenario_updates_the_summary_and_leaves_no_file_of_another_run(capsys, tmp_path, fmu_dir):
    """summary.json keeps the rows of the scenarios not run (the full demo's), this run's row replacing its own; the
    scenario's folder holds this run's files only (no standalone_result.csv of an earlier step beside a new
    fmu_result.csv run --no-reference)."""
    other = {"scenario": "vessel_crane_hoisting", "step": 0.01, "max_deviation": 1e-6, "files": []}
    old = {"scenario": "knuckle_boom_hoisting", "step": 0.01, "max_deviation": 2e-6, "files": []}
    (tmp_path / "summary.json").write_text(json.dumps({"scenarios": [old, other]}))
    sc_dir = tmp_path / "knuckle_boom_hoisting"
    sc_dir.mkdir()
    for stale in ("standalone_result.csv", "standalone_result.csv.json", "fig_joint_angles.png"):
        (sc_dir / stale).write_text("of an earlier run at step 0.01")
    (sc_dir / "notes.txt").write_text("the user's")
    code, _, err = cli(capsys, "demo", "--scenario", "knuckle_boom_hoisting", "--step", "0.5", "--fmus", fmu_dir,
                       "--out", tmp_path, "--no-reference", "--quiet")
    assert code == 0, err
    rows = json.loads((tmp_path / "summary.json").read_text())["scenarios"]
    assert [r["scenario"] for r in rows] == ["knuckle_boom_hoisting", "vessel_crane_hoisting"]
    assert rows[0]["step"] == 0.5 and rows[0]["max_deviation"] is None and rows[1] == other
    assert not (sc_dir / "standalone_result.csv").exists() and not (sc_dir / "standalone_result.csv.json").exists()
    assert (sc_dir / "notes.txt").exists()
    assert sorted(p.name for p in sc_dir.iterdir() if p.suffix != ".txt") == sorted(
        [Path(f).name for f in rows[0]["files"]] + ["fmu_result.csv.json"])


# -- run ---------------------------------------------------------------------------------------------------------

def test_run_sets_parameters_and_the_crane_carries_its_weight(capsys, tmp_path, fmu_dir):
    """At its start pose, set-points equal to the pose, the controller only compensates gravity: Joint 1
    carries the weight of the seven bodies (36 t, Table 2) at the g given by --set, at every point."""
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "g=5", "--set", "m1=20000",
                       "--stop", "0.3", "--step", "0.1", "--outputs", "joint1_force_z,q2", "--out", out, "--quiet")
    assert code == 0, err
    header, rows = read_rows(out)
    assert header == ["time [s]", "joint1_force_z [N]", "q2 [m]"]
    weight = (46_000.0) * 5.0  # m1 raised from 10 t to 20 t: 36 t + 10 t
    for t, force, q2 in rows:
        assert math.isclose(force, weight, rel_tol=1e-9)  # sums of a few terms; integrator at rest: round-off
        assert math.isclose(q2, 0.6, abs_tol=1e-12)


def test_a_set_point_beyond_the_stroke_is_warned_about_once_and_the_run_goes_on(capsys, tmp_path, fmu_dir):
    """q2_ref = 50 m on a cylinder of stroke [q2_min, q2_max] = [0, 1.7] m: the FMU logs one Warning naming the
    input, its value and the range (from the parameters in force), and the run ends normally at the end stop."""
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "q2_ref=50", "--set",
                       "q2_max=1.5", "--stop", "0.5", "--outputs", "q2", "--out", out, "--quiet")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("FMU [Warning]")]
    assert len(warnings) == 1 and "q2_ref = 50 m" in warnings[0] and "[0, 1.5] m" in warnings[0], err
    assert read_rows(out)[1][-1][1] > 1.5  # the end stop holds it beyond the stroke's end, the run went on


def test_a_set_point_driven_across_the_stroke_by_an_input_file_is_warned_about_at_each_excursion(capsys, tmp_path,
                                                                                                 fmu_dir):
    """The same through --input, where the compiled kernel takes the steps by itself: it declines each step whose
    set-point crosses the range (in or out), Python takes it and warns once per excursion -- out, back in, out
    again: two warnings, the second at the second excursion's start."""
    signals = tmp_path / "signals.csv"
    signals.write_text("time [s],q2_ref [m]\n0,0.6\n0.1,0.6\n0.15,3\n0.2,0.6\n0.25,0.6\n0.3,3\n0.5,3\n")
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "q2_max=1.5", "--input", signals,
                       "--stop", "0.5", "--outputs", "q2", "--out", out, "--quiet")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("FMU [Warning]") and "q2_ref" in line]
    assert len(warnings) == 2, err
    times = [float(w.split(" at t = ")[1].split(" s")[0]) for w in warnings]
    assert 0.1 < times[0] < 0.15 and 0.25 < times[1] < 0.3, times  # where the signal leaves [0, 1.5] m


def test_run_applies_input_signals_from_csv(capsys, tmp_path, fmu_dir):
    """Controller off, no gravity: the applied king torque is the input alone. The CSV ramps it linearly
    (1000 N·m/s); the master holds the input of t over the step [t, t + h], so the output at t + h is the
    ramp at t."""
    signals = tmp_path / "signals.csv"
    signals.write_text("time [s],king_torque [N.m]\n0,0\n1,1000\n")
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "g=0", "--set",
                       "controller_enabled=false", "--input", signals, "--stop", "0.5", "--step", "0.1",
                       "--outputs", "applied_king_torque", "--out", out, "--quiet")
    assert code == 0, err
    _, rows = read_rows(out)
    for k, (t, torque) in enumerate(rows):
        held_from = rows[k - 1][0] if k else 0.0
        assert math.isclose(torque, 1000.0 * held_from, abs_tol=1e-9)


def test_run_reports_the_fmus_own_message_and_fails(capsys, tmp_path, fmu_dir):
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--set", "l1=-3", "--stop", "1",
                       "--out", out)
    assert code == 1
    assert "l1 = -3.0 m is outside the allowed range" in err  # the FMU's log message, shown
    assert "no result written" in err and not out.exists()


@pytest.mark.parametrize("args, says", [
    (["--set", "l_1=3"], "'l_1' is not one of the FMU's parameters and inputs; did you mean l1"),
    (["--set", "q1=3"], "'q1' is not one of the FMU's parameters and inputs"),  # an output
    (["--set", "l1=three"], "--set l1=three: not a real value"),
    (["--set", "l1"], "expected NAME=VALUE"),
    (["--set", "integrator=1.5"], "--set integrator=1.5: not an integer value"),
    (["--stop", "0"], "--stop 0 s must be later than --start 0 s"),
    (["--stop", "inf"], "--stop inf: must be a finite number of seconds"),
    (["--start", "nan"], "--start nan: must be a finite number of seconds"),
    (["--step", "0"], "--step = 0.0 s: the communication step must be a positive number"),
    (["--step", "2"], "--step = 2 s is longer than the run"),
    (["--stop", "100", "--step", "2e-5"], "more than 2e+06"),
    (["--outputs", "joint9_force_z"], "'joint9_force_z' is not one of the FMU's outputs"),
])
def test_run_bad_arguments(capsys, tmp_path, fmu_dir, args, says):
    defaults = ["--stop", "1"] if "--stop" not in args else []
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, *defaults, *args,
                       "--out", tmp_path / "r.csv")
    assert code == 2, err
    assert says in err
    assert "Traceback" not in err


@pytest.mark.parametrize("table, says", [
    ("time,wind_speed\n0,1\n", "'wind_speed' is not one of the FMU's inputs"),
    ("time [s],king_torque [kN.m]\n0,1\n", "column king_torque is in [kN.m], the FMU expects [N.m]"),
    ("t,king_torque\n0,1\n", "needs a 'time' column"),
    ("time,king_torque\n0,abc\n", "'abc' is not a number"),
    ("time,king_torque\n1,0\n0,1\n", "line 3: time 0 s is before 1 s on line 2; time must not decrease"),
])
def test_run_bad_input_files(capsys, tmp_path, fmu_dir, table, says):
    signals = tmp_path / "signals.csv"
    signals.write_text(table)
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--input", signals, "--stop", "1",
                       "--out", tmp_path / "r.csv")
    assert code == 2 and says in err, err


def test_run_unknown_fmu_names_the_known_ones(capsys, tmp_path):
    code, _, err = cli(capsys, "run", "KnuckleBoom", "--fmus", tmp_path)
    assert code == 2 and "did you mean KnuckleBoomCrane" in err
    code, _, err = cli(capsys, "run", tmp_path / "missing.fmu")
    assert code == 2 and "not found" in err


def test_run_plot_writes_a_png(capsys, tmp_path, fmu_dir):
    out = tmp_path / "r.csv"
    code, _, err = cli(capsys, "run", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.2", "--step", "0.1",
                       "--outputs", "q1,q2,joint1_force_z", "--out", out, "--plot", "--quiet")
    assert code == 0, err
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- info --------------------------------------------------------------------------------------------------------

def xml_variables(fmu_path: Path) -> list:
    """The ScalarVariables of modelDescription.xml, read with ElementTree (not with fmpy)."""
    with zipfile.ZipFile(fmu_path) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    out = []
    for sv in root.find("ModelVariables"):
        typed = sv[0]
        out.append({"name": sv.get("name"), "causality": sv.get("causality", "local"), "type": typed.tag,
                    "unit": typed.get("unit", ""), "start": typed.get("start"), "min": typed.get("min"),
                    "max": typed.get("max"), "description": sv.get("description", "")})
    return out


def xml_units(fmu_path: Path) -> dict:
    return {v["name"]: v["unit"] for v in xml_variables(fmu_path)}


def test_info_json_matches_the_model_description(capsys, fmu_dir):
    fmu = fmu_dir / "KnuckleBoomCrane.fmu"
    code, out, err = cli(capsys, "info", fmu, "--json")
    assert code == 0, err
    data = json.loads(out)
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    assert data["model"] == root.get("modelName") and data["guid"] == root.get("guid")
    assert data["fmi_version"] == root.get("fmiVersion")
    expected = xml_variables(fmu)
    assert [v["name"] for v in data["variables"]] == [v["name"] for v in expected]
    convert = {"Real": float, "Integer": int, "Boolean": lambda s: s == "true"}
    for got, want in zip(data["variables"], expected):
        for key in ("causality", "type", "unit", "description"):
            assert got[key] == want[key], (want["name"], key)
        for key in ("start", "min", "max"):
            value = None if want[key] is None else convert[want["type"]](want[key])
            assert got[key] == value and type(got[key]) is type(value), (want["name"], key)  # 2 == 2.0: type too


def test_info_table_lists_inputs_with_units(capsys, fmu_dir):
    code, out, _ = cli(capsys, "info", "KnuckleBoomCrane", "--fmus", fmu_dir, "--causality", "input")
    assert code == 0
    lines = {line.split()[0]: line.split() for line in out.splitlines()[3:]}
    assert set(lines) == {v["name"] for v in xml_variables(fmu_dir / "KnuckleBoomCrane.fmu")
                          if v["causality"] == "input"}
    assert lines["king_torque"][3] == "N.m" and lines["q2_ref"][3] == "m"


# -- ecos (native host) ------------------------------------------------------------------------------------------

@needs_ecospy
def test_ecos_runs_the_fmu_in_the_native_host(capfd, tmp_path, fmu_dir):
    """`crane-cosim ecos` does what the README's native-host recipe says; at rest the crane's Joint 1
    carries its weight, 36 t * 9.81 m/s² (Table 2), in the native host too."""
    from crane_models.app.native import libpython

    if libpython() is None:
        pytest.skip("this Python has no shared libpython for a native host to load (build it with --enable-shared)")
    try:
        code = main(["ecos", "KnuckleBoomCrane", "--fmus", str(fmu_dir), "--stop", "0.2", "--step", "0.01",
                     "--out", str(tmp_path)])
    except SystemExit as exc:
        code = exc.code
    capfd.readouterr()
    assert code == 0
    with open(tmp_path / "KnuckleBoomCrane.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    column = [h.strip() for h in rows[0]].index("instance::joint1_force_z[REAL]")
    forces = [float(r[column]) for r in rows[1:]]
    assert len(forces) >= 20
    assert all(math.isclose(f, 36_000.0 * 9.81, rel_tol=1e-9) for f in forces)


def test_ecos_refuses_fewer_than_ten_steps(capsys, fmu_dir):
    code, _, err = cli(capsys, "ecos", "KnuckleBoomCrane", "--fmus", fmu_dir, "--stop", "0.2", "--step", "0.05")
    assert code == 2 and "ecos needs at least 10" in err


# -- the communication grid and progress ---------------------------------------------------------------------------

@pytest.mark.parametrize("stop, step, points", [
    (10.0, 0.03, 335),   # 333 full steps to 9.99 s, then 0.01 s: the step of the crash
    (20.0, 0.01, 2001),  # divides: no extra point
    (0.3, 0.1, 4),       # 0.3 / 0.1 = 2.9999999999999996 in floating point: still 3 steps
    (20.0, 0.7, 30),
    (1.0, 1.0, 2),
])
def test_communication_grid_ends_exactly_at_the_stop_time(stop, step, points):
    from crane_models.integration.scenario import communication_grid

    t = communication_grid(stop, step)
    assert len(t) == points and t[0] == 0.0 and t[-1] == stop
    steps = t[1:] - t[:-1]
    assert all(math.isclose(h, step, rel_tol=1e-9) for h in steps[:-1])
    assert 0.0 < steps[-1] <= step * (1 + 1e-9)


def test_long_runs_show_a_progress_bar(capsys, tmp_path, fmu_dir, monkeypatch):
    """The bar appears after DELAY seconds of wall time; with the delay at zero any run shows it."""
    import crane_models.app.progress as progress

    monkeypatch.setattr(progress, "DELAY", 0.0)
    code, _, err = cli(capsys, "demo", "--scenario", "knuckle_boom_hoisting", "--step", "0.5", "--fmus", fmu_dir,
                       "--out", tmp_path, "--no-reference")
    assert code == 0 and "knuckle_boom_hoisting FMU" in err and "s simulated" in err


def test_progress_bar_follows_simulated_time():
    import io

    from tqdm import tqdm

    from crane_models.app.progress import _Bar

    bar = tqdm(total=20.0, file=io.StringIO())
    tracker = _Bar(bar)
    for t in (0.5, 1.0, 1.0, 7.25, 20.0):  # absolute simulated times, a repeated one included
        tracker.update_to(t)
        assert bar.n == pytest.approx(t, abs=1e-12)
    bar.close()


def test_ship_pairs_are_skipped_with_a_reason_when_their_system_structures_are_missing(tmp_path, capsys):
    """The full demo adds the libcosim ship pairs; without their OSP system structures it says what is missing
    instead of failing (the pairs themselves run in tests/test_osp_files.py)."""
    from crane_models.app.demo import ship_rows

    assert ship_rows(tmp_path / "ship", tmp_path, 0.01, quiet=True) == []
    assert "OspSystemStructure.xml" in capsys.readouterr().out


def _hide_libcosimpy(monkeypatch, error=None):
    """libcosimpy as on a machine without it (``error`` None: not installed) or where its C library does not load
    (``error``: the OSError its import raises)."""
    import importlib.abc

    for name in [m for m in sys.modules if m == "libcosimpy" or m.startswith("libcosimpy.")]:
        monkeypatch.delitem(sys.modules, name)
    if error is None:
        monkeypatch.setitem(sys.modules, "libcosimpy", None)  # import libcosimpy -> ImportError
        return

    class Unloadable(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] == "libcosimpy":
                raise error
            return None

    monkeypatch.setattr(sys, "meta_path", [Unloadable()] + sys.meta_path)


@pytest.mark.parametrize("error, reason", [(None, 'pip install "crane-cosim[libcosim]"'),
                                           (OSError("libcosimc.so: cannot open"), "libcosimc.so: cannot open")])
def test_ship_pairs_say_which_engine_they_skip_and_why(tmp_path, capsys, monkeypatch, error, reason):
    """Issue 20: libcosimpy is an extra with wheels for two platforms; without it (or where it does not load)
    the demo skips the ship pairs with one line naming the engine and the reason, and carries on."""
    from crane_models.app.demo import ship_rows

    _hide_libcosimpy(monkeypatch, error)
    assert ship_rows(tmp_path / "ship", tmp_path, 0.01, quiet=True) == []
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and "engine: libcosim" in lines[0] and reason in lines[0], lines
