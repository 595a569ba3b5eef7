"""Sweeps on Dask: case files expand as written, distributed runs equal in-process runs bit for bit, failing
cases are recorded with the FMU's message, and an interrupted sweep resumes without recomputing."""
from __future__ import annotations

import math
import os
import socket

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crane_models.analysis.cases import load_case_file, parse_cases
from crane_models.analysis.signals import sea_state_motion

pytest.importorskip("distributed", reason="the sweep needs dask.distributed (pip install 'dask[distributed]')")

KB = {"fmu": "KnuckleBoomCrane", "duration": 0.5, "step": 0.01, "scenario": "knuckle_boom_hoisting"}


def test_grid_and_hypercube_expand_to_their_product():
    data = {**KB, "signals": {"q1_ref": {"kind": "sine", "amplitude": 0.1, "period": 2.0}},
            "parameters": {"kp1": [1e6, 2e6], "signals.q1_ref.amplitude": {"range": [0.1, 0.3], "num": 3}},
            "latin_hypercube": {"samples": 4, "seed": 7, "parameters": {"kd1": [1e6, 9e6]}}}
    cases = parse_cases(data).cases
    assert len(cases) == 2 * 3 * 4
    assert sorted({c.signals["q1_ref"]["amplitude"] for c in cases}) == pytest.approx([0.1, 0.2, 0.3], abs=1e-15)
    # a Latin hypercube puts exactly one of its 4 samples into each quarter of [1e6, 9e6]
    kd1 = sorted({c.start_values["kd1"] for c in cases})
    assert [int((k - 1e6) // 2e6) for k in kd1] == [0, 1, 2, 3]
    assert kd1 == sorted({c.start_values["kd1"] for c in parse_cases(data).cases})  # the seed fixes them
    # the scenario's start values, under the case's own
    assert cases[0].start_values["q2_0"] == 0.6 and cases[0].start_values["kp1"] == 1e6
    assert len({c.case_id for c in cases}) == len(cases)


def test_yaml_reads_exponents_without_a_dot_as_numbers(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text("fmu: KnuckleBoomCrane\nduration: 1\nstep: 0.01\nparameters: {kp1: [1e6, 2.0e6]}\n")
    assert [c.start_values["kp1"] for c in load_case_file(path).cases] == [1.0e6, 2.0e6]


@pytest.mark.parametrize("change, message", [
    ({"fmu": "Crane9"}, "fmu = 'Crane9' is not allowed"),
    ({"step": 0.0}, r"step = 0.0 is not allowed"),
    ({"parameters": {"kp9": [1.0]}}, "'kp9' is not a parameter of KnuckleBoomCrane"),
    ({"parameters": {"kp1": []}}, "parameters.kp1"),
    ({"signals": {"q1_ref": {"kind": "sine", "amplitude": 1.0, "period": -1.0}}}, r"signals.q1_ref.period = -1.0"),
    ({"sea_states": [{"amplitude": 0.05, "period": 8.0}]}, "no base-motion inputs"),
    ({"latin_hypercube": {"samples": 0, "parameters": {"kp1": [0, 1]}}}, "latin_hypercube.samples = 0"),
    ({"record": ["nonsense"]}, "'nonsense' is not an output"),
])
def test_bad_case_files_are_named(change, message):
    with pytest.raises(ValueError, match=message):
        parse_cases({**KB, **change})


def _rotation(roll: float, pitch: float) -> np.ndarray:
    """R^0_1 = R_y(pitch) R_x(roll) (yaw 0), written out independently of the model code."""
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    return ry @ rx


def test_sea_state_motion_is_the_derivative_of_the_prescribed_pose():
    """omega, alpha, base velocity and acceleration against central differences of R(t) and of the base
    point's position R(t) r + z(t) e_z (h = 1e-4 s: truncation ~h^2 |x'''| ~ 1e-8 of the values here)."""
    sea = {"amplitude": 0.08, "period": 6.0, "heading": 0.6, "heave": 1.5, "base_height": 4.0}
    h, t = 1e-4, 1.3

    def pose(s):
        m = sea_state_motion(sea, s)
        return _rotation(m["roll"], m["pitch"])

    def point(s):
        return pose(s) @ np.array([0.0, 0.0, 4.0]) + np.array([0.0, 0.0, 1.5 * math.sin(2 * math.pi * s / 6.0)])

    m = sea_state_motion(sea, t)
    r = pose(t)
    skew = r.T @ (pose(t + h) - pose(t - h)) / (2 * h)  # R' dR/dt = [omega]x in Frame 1
    omega = np.array([skew[2, 1], skew[0, 2], skew[1, 0]])
    np.testing.assert_allclose([m[f"angular_velocity_{a}"] for a in "xyz"], omega, atol=1e-8)
    v = r.T @ (point(t + h) - point(t - h)) / (2 * h)
    np.testing.assert_allclose([m[f"base_velocity_{a}"] for a in "xyz"], v, atol=1e-7)
    a = r.T @ (point(t + h) - 2 * point(t) + point(t - h)) / h ** 2  # second difference: error ~1e-5
    np.testing.assert_allclose([m[f"base_acceleration_{a_}"] for a_ in "xyz"], a, atol=1e-5)
    w_plus = sea_state_motion(sea, t + h)
    w_minus = sea_state_motion(sea, t - h)
    # alpha = d omega / dt, both in Frame 1 (the body frame's derivative of body components)
    for ax in "xyz":
        diff = (w_plus[f"angular_velocity_{ax}"] - w_minus[f"angular_velocity_{ax}"]) / (2 * h)
        assert m[f"angular_acceleration_{ax}"] == pytest.approx(diff, abs=1e-8)


@pytest.fixture(scope="module")
def kb_fmu(tmp_path_factory):
    from crane_models.models.build import build_fmu

    return build_fmu("KnuckleBoomCrane", tmp_path_factory.mktemp("fmus"))


def test_sweep_on_two_workers_equals_runs_in_process_and_resumes(kb_fmu, tmp_path, monkeypatch):
    import tempfile

    from crane_models.analysis.results import load_series, load_summary, series_path
    from crane_models.analysis.sweep import run_sweep
    from crane_models.simulation.runs import run_fmu

    # 5 set-point amplitudes x 4 slew gains = 20 cases of 0.5 s; kp1 = -1 is outside [0, inf): 5 fail
    data = {**KB, "fmu_file": str(kb_fmu),
            "signals": {"q1_ref": {"kind": "sine", "amplitude": 0.1, "period": 1.0}},
            "parameters": {"signals.q1_ref.amplitude": {"range": [0.05, 0.25], "num": 5},
                           "kp1": [-1.0, 1e6, 4e6, 8e6]}}
    case_set = parse_cases(data)
    workdir, tmpdir = tmp_path / "workdir", tmp_path / "tmpdir"  # the sweep's working folder and $TMPDIR
    workdir.mkdir()
    tmpdir.mkdir()
    monkeypatch.chdir(workdir)
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    outcome = run_sweep(case_set, tmp_path, workers=2, progress=False)
    assert not list(workdir.iterdir()) and not list(tmpdir.iterdir())  # no dask-scratch-space/ left anywhere
    assert len(outcome.ran) == 20 and outcome.skipped == 0 and outcome.failed == 5
    assert outcome.series_by_client == 0
    summary = load_summary(tmp_path).to_pylist()
    assert [r["index"] for r in summary] == list(range(20))
    for case, row in zip(case_set.cases, summary):
        if case.start_values["kp1"] < 0:
            assert row["status"] == "failed"
            assert "kp1 = -1.0 N.m/rad is outside the allowed range [0, inf)" in row["message"]
            assert "initialization failed" in row["log"]
            continue
        assert row["status"] == "ok", row["message"]
        series = load_series(tmp_path, case.case_id)
        # the worker that ran the case wrote its series (the file names its process), never this client
        assert row["series_by"] == "worker"
        assert series.schema.metadata[b"writer"].decode() == row["worker"] != f"{socket.gethostname()}:{os.getpid()}"
        alone, _ = run_fmu(kb_fmu, case.to_scenario(), case.step)
        for name in series.column_names:  # bit for bit: a worker must not change a result
            assert np.array_equal(series[name].to_numpy(), alone[name]), (case.index, name)
        assert row["max.joint1_force_z"] == alone["joint1_force_z"].max()
        assert row["param.kp1"] == case.start_values["kp1"]

    # A crash: the rows of 4 cases were never written (the client's last batch). Case 3's worker had
    # written its series, case 7's write was interrupted (only its temporary file is left), case 0 failed.
    lost = [case_set.cases[i].case_id for i in (0, 3, 7, 19)]
    before = load_summary(tmp_path)
    for part in (tmp_path / "summary").iterdir():
        part.unlink()
    pq.write_table(before.filter(pa.array([c not in lost for c in before["case_id"].to_pylist()])),
                   tmp_path / "summary" / "part-0.parquet")
    interrupted = series_path(tmp_path, lost[2])
    interrupted.rename(interrupted.with_name(".0.parquet.999.tmp"))
    kept = {p: p.stat().st_mtime_ns for p in (tmp_path / "series").glob("*/0.parquet")
            if p.parent.name[len("case_id="):] not in lost}
    again = run_sweep(case_set, tmp_path, workers=2, progress=False)
    assert sorted(again.ran) == sorted(lost) and again.skipped == 16
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # finished cases did not run again
    assert interrupted.is_file() and not list(interrupted.parent.glob(".*.tmp"))
    after = {r["case_id"]: r for r in load_summary(tmp_path).to_pylist()}
    assert len(after) == 20
    assert all(after[r["case_id"]]["worker"] == r["worker"] for r in before.to_pylist() if r["case_id"] not in lost)
    assert run_sweep(case_set, tmp_path, workers=2, progress=False).ran == []

    # The report draws the spectra and names the failed cases with the FMU's message.
    from crane_models.analysis.report import write_report

    page = write_report(tmp_path, outputs=["joint1_force_z"])
    text = page.read_text()
    assert text.count("kp1 = -1.0 N.m/rad is outside the allowed range") == 5
    drawn = sorted(p.name for p in page.parent.glob("*.png"))
    assert drawn == ["del_kp_joint1_force_z_kp1.png", "del_kp_joint1_force_z_signals_q1_ref_amplitude.png",
                     "matrix_joint1_force_z.png", "spectra_joint1_force_z.png"]
    assert all((page.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in drawn)


def test_a_results_folder_holds_one_fmu_file(kb_fmu, tmp_path):
    from crane_models.analysis.sweep import run_sweep

    case_set = parse_cases({**KB, "duration": 0.02, "fmu_file": str(kb_fmu)})
    (tmp_path / "sweep.json").write_text('{"fmu_sha256": "0123456789abcdef"}')
    with pytest.raises(ValueError, match="results of another FMU file"):
        run_sweep(case_set, tmp_path, workers=1, progress=False)


def test_command_line_names_bad_files(tmp_path, capsys):
    from crane_models.app.cli import main

    def exit_code(*args) -> int:
        with pytest.raises(SystemExit) as exc:
            main([str(a) for a in args])
        return exc.value.code

    assert exit_code("report", tmp_path) == 2 and "has no sweep.json" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("fmu: KnuckleBoomCrane\nduration: 1\nstep: 0.01\nparameters: {kp1: {range: [1, 2]}}\n")
    assert exit_code("sweep", bad, "--out", tmp_path / "out") == 2
    assert "bad.yaml: parameters.kp1 = " in capsys.readouterr().err and not (tmp_path / "out").exists()
    assert exit_code("sweep", bad, "--workers", "0") == 2


def test_a_case_is_finished_with_its_latest_row_and_its_series_file(tmp_path):
    """Resume reads the folder, not a log: an ok row counts only with its series file (an interrupted
    write leaves only a temporary file), a failed row counts unless failed cases are retried, and the
    latest row of a case wins."""
    from crane_models.analysis.results import ResultStore, load_summary, series_path, write_series

    store = ResultStore(tmp_path)
    series = {"time": np.array([0.0, 0.01]), "q1": np.array([0.1, 0.2])}
    store.append([{"case_id": "ok", "index": 0, "status": "ok"},
                  {"case_id": "cut", "index": 1, "status": "ok"},
                  {"case_id": "bad", "index": 2, "status": "failed"},
                  {"case_id": "again", "index": 3, "status": "failed"}], {})
    write_series(tmp_path, "ok", series, {"q1": "rad"}, "test:1")
    write_series(tmp_path, "cut", series, {"q1": "rad"}, "test:1")
    cut = series_path(tmp_path, "cut")
    cut.rename(cut.with_name(".0.parquet.4242.tmp"))  # the write of 'cut' stopped before its rename
    store.append([{"case_id": "again", "index": 3, "status": "ok"}], {})  # a retried case, now ok ...
    write_series(tmp_path, "again", series, {"q1": "rad"}, "test:1")  # ... with its series
    assert store.finished() == {"ok", "bad", "again"}
    assert store.finished(retry_failed=True) == {"ok", "again"}
    assert load_summary(tmp_path)["status"].to_pylist() == ["ok", "ok", "failed", "ok"]
    assert store.clear_temporaries(["cut"]) == 1 and not list(cut.parent.iterdir())
    assert load_summary(tmp_path, columns=["status"]).column_names == ["case_id", "status"]


def test_a_worker_writes_the_series_only_where_the_client_put_its_token(kb_fmu, tmp_path):
    """``results_reachable`` needs the sweep's token in the folder's sweep.json (same storage) and a
    writable folder; ``run_and_store`` then writes the series itself and returns the row without it,
    and otherwise returns the series for the client to write."""
    from crane_models.analysis.results import load_series, results_reachable
    from crane_models.analysis.sweep import Settings, run_and_store

    case_set = parse_cases({**KB, "duration": 0.05, "fmu_file": str(kb_fmu), "record": ["q1"]})
    case, settings = case_set.cases[0], Settings.of(case_set)
    reachable, why = results_reachable(str(tmp_path), "abc")  # no sweep.json: another machine's folder
    assert not reachable and "FileNotFoundError" in why
    (tmp_path / "sweep.json").write_text('{"token": "another token"}')
    assert not results_reachable(str(tmp_path), "abc")[0]
    (tmp_path / "sweep.json").write_text('{"token": "abc"}')
    assert results_reachable(str(tmp_path), "abc") == (True, "")
    assert not results_reachable(str(tmp_path), None)[0]  # series_on_workers=False: the client writes

    returned = run_and_store(case, str(kb_fmu), settings)
    assert returned["status"] == "ok" and returned["series_by"] == "client"
    assert list(returned["series"]) == ["time", "q1"] and len(returned["series"]["time"]) == 6  # 0.05 s / 0.01 s
    written = run_and_store(case, str(kb_fmu), settings, root=str(tmp_path))
    assert written["series"] is None and written["series_by"] == "worker"
    assert written["task_s"] >= written["wall_s"] > 0
    table = load_series(tmp_path, case.case_id)
    assert np.array_equal(table["q1"].to_numpy(), returned["series"]["q1"])
    assert table.schema.field("q1").metadata[b"unit"] == b"rad"


def test_dropping_monotone_interiors_leaves_the_fatigue_summary_unchanged():
    """The sweep counts cycles on the series without the points inside strictly monotone stretches; the
    reversals, hence the cycles, DELs and Kp, must be those of the whole series -- exactly (same cycles in
    the same order, so the same sums). Histories: random walks, few-valued series full of plateaus
    (``x_next == x`` branches of rainflow), sorted (monotone) ones, and the short ones (0-4 points)."""
    from crane_models.analysis.fatigue import fatigue_summary
    from crane_models.analysis.sweep import without_monotone_interiors

    rng = np.random.default_rng(15)
    histories = [np.arange(n, dtype=float) for n in range(6)] + [np.array([1.0, 1.0, 2.0, 2.0, 1.0])]
    for k in range(600):
        n = int(rng.integers(2, 40))
        y = rng.integers(-2, 3, size=n).astype(float) if k % 2 else np.cumsum(rng.normal(size=n))
        histories.append(np.sort(y) if k % 5 == 0 else y)
    fewer = 0
    for y in histories:
        short = without_monotone_interiors(y)
        fewer += short.size < y.size
        assert fatigue_summary(short, "N") == fatigue_summary(y, "N") or y.size < 2, y
    assert fewer > 300  # most histories lost points: the comparison is not between equal inputs
