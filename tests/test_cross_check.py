"""Issue 20, item 5: cross-check folders that reproduce themselves (crane_models/simulation/cross_check.py).

Each FMU's folder, FMI 2.0 and 3.0, is simulated by fmpy's command line in a process that cannot import
``crane_models`` (an import hook refuses it; the FMU runs its own bundled copy of the package): with the FMU's
default start values, ``_in.csv`` and the step and times of ``_ref.opt``, as a cross-check importer does. Every
output must stay within 1e-3 of its range of ``_ref.csv`` (simulation/cross_check.py: AGREEMENT, the bound of the
FMU-vs-standalone tests). The folders here cover the first :data:`TEST_STOP` seconds of each reference scenario
(same signals, same code; the full runs, ~4 minutes of references and replays, are what
``.ci/cross-build`` checks and tests/test_artifacts.py with CRANE_COSIM_ARTIFACTS=1). The 1 MB limit is checked at
full length with the widest numbers the files can hold, without the physics.
"""
from __future__ import annotations

import dataclasses
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from crane_models.simulation import cross_check
from crane_models.simulation.cross_check import (AGREEMENT, FILE_LIMIT, check_folder, copy_reference_results,
                                          cross_check_folder, read_csv, read_options, write_reference_results)
from crane_models.models.registry import SPECS
from fmu_helpers import build_fmi3_fmus, build_fmus

# 2 s of every scenario: the vessel crane's release transient (0.1 s) and the start of its hoisting (1 s), the sea
# motion under the knuckle boom crane, the start of the flexible crane's programmed motion; the flexible crane's
# reference (4 elements, ~0.4 times real time) keeps it from being longer in the default suite.
TEST_STOP = 2.0

# The simulating process: fmpy's command line behind an import hook that refuses the project's package.
FMPY_ALONE = """
import runpy, sys

class NoProjectPackage:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "crane_models":
            raise ImportError(f"{name}: a cross-check folder must run with fmpy alone")
        return None

sys.meta_path.insert(0, NoProjectPackage())
sys.argv = ["fmpy"] + sys.argv[1:]
runpy.run_module("fmpy.cli", run_name="__main__")
"""
LAUNCHER = [sys.executable, "-I", "-c", FMPY_ALONE]

_FOLDERS: dict = {}


def folders(tmp_path_factory, name: str) -> dict:
    """{2: folder, 3: folder} of ``name`` over TEST_STOP, written once per test process."""
    if name not in _FOLDERS:
        out = tmp_path_factory.mktemp(f"cross_check_{name}")
        fmu2 = build_fmus(tmp_path_factory) / f"{name}.fmu"
        fmu3 = build_fmi3_fmus(tmp_path_factory) / f"{name}.fmu"
        folder2 = write_reference_results(name, fmu2, cross_check_folder(out, name, 2), stop_time=TEST_STOP)
        _FOLDERS[name] = {2: folder2, 3: copy_reference_results(folder2, fmu3, cross_check_folder(out, name, 3))}
    return _FOLDERS[name]


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", list(SPECS))
def test_folder_reproduces_its_reference_with_fmpy_alone(tmp_path_factory, name, version):
    folder = folders(tmp_path_factory, name)[version]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{name}{suffix}" for suffix in (".fmu", "_in.csv", "_ref.csv", "_ref.opt"))
    options = read_options(folder)
    assert options["StopTime"] == TEST_STOP and options["StepSize"] == SPECS[name]().step_size
    reference = read_csv(folder / f"{name}_ref.csv")
    real = [v.name for v in SPECS[name]().outputs if v.kind == "real"]  # those that move, in the FMU's order
    assert list(reference)[0] == "time" and list(reference)[1:] == [n for n in real if n in reference]
    assert len(reference) > 3
    # The rules want every input of the FMU in _in.csv (fmpy's cross-check warns about a missing one).
    assert list(read_csv(folder / f"{name}_in.csv")) == ["time"] + [v.name for v in SPECS[name]().inputs]
    assert reference["time"][0] == 0.0 and reference["time"][-1] == TEST_STOP
    assert check_folder(folder, launcher=LAUNCHER) == []


def test_fmpy_alone_cannot_import_the_project(tmp_path):
    """The launcher's hook works: the project's package does not import in that process."""
    import subprocess

    probe = tmp_path / "probe.py"
    probe.write_text("import crane_models\n")
    done = subprocess.run([sys.executable, "-I", "-c", FMPY_ALONE.replace('runpy.run_module("fmpy.cli", '
                                                                         'run_name="__main__")',
                                                                         f"runpy.run_path({str(probe)!r})")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "must run with fmpy alone" in done.stderr


def test_a_reference_off_by_more_than_the_bound_is_reported(tmp_path_factory, tmp_path):
    """The comparison can fail: one output of _ref.csv moved by 2e-3 of its range."""
    folder = shutil.copytree(folders(tmp_path_factory, "KnuckleBoomCrane")[2], tmp_path / "KnuckleBoomCrane")
    path = folder / "KnuckleBoomCrane_ref.csv"
    reference = read_csv(path)
    reference["joint1_force_z"] = reference["joint1_force_z"] + 2 * AGREEMENT * np.ptp(reference["joint1_force_z"])
    cross_check.write_csv(path, reference)
    problems = check_folder(folder, launcher=LAUNCHER)
    assert len(problems) == 1 and "joint1_force_z deviates" in problems[0], problems


def test_a_scenario_needing_start_values_is_refused(monkeypatch, tmp_path):
    """Cross-check tools set no start values: a reference scenario that needs one cannot make a folder."""
    from crane_models.models.vessel_crane.scenarios import vessel_crane_hoisting

    monkeypatch.setattr(cross_check, "reference_scenario", lambda fmu: vessel_crane_hoisting(equilibrium=True))
    with pytest.raises(ValueError, match="q1_0"):
        write_reference_results("VesselCrane", tmp_path / "none.fmu", tmp_path / "VesselCrane")


def test_every_reference_scenario_starts_from_the_fmus_defaults():
    for name in SPECS:
        scenario = cross_check.reference_scenario(name)
        assert scenario.fmu == name and cross_check.non_default_start_values(scenario) == {}, name


# The widest number DIGITS significant digits give: sign, digits, point and a three-digit exponent.
WIDEST = -1.23456789012e+300


def test_widest_number_is_the_field_width():
    assert len(cross_check.number(WIDEST)) == cross_check.FIELD_WIDTH


@pytest.mark.parametrize("name", list(SPECS))
def test_full_length_files_stay_within_1_MB(monkeypatch, tmp_path, name):
    """The real scenario at full length, real inputs, every output at the widest number: both CSVs <= 1 MB, the
    reference at the communication step and every k-th point of it in _ref.csv."""
    from crane_models.simulation import runs

    calls = []

    def widest(scenario, step, **_):
        calls.append((scenario.stop_time, step))
        times = runs.communication_grid(scenario.stop_time, step)
        # every output moving (alternating between two widest numbers), so that every one is written
        widest_moving = np.where(np.arange(len(times)) % 2 == 0, WIDEST, WIDEST / 10)
        return {"time": times, **{v.name: widest_moving for v in SPECS[name]().outputs}}

    monkeypatch.setattr(runs, "run_standalone", widest)
    monkeypatch.setattr(runs, "run_model_reference", widest)
    (tmp_path / "x.fmu").write_bytes(b"")
    folder = write_reference_results(name, tmp_path / "x.fmu", tmp_path / name)
    spec, scenario = SPECS[name](), cross_check.reference_scenario(name)
    assert calls == [(scenario.stop_time, spec.step_size)]
    for path in folder.glob("*.csv"):
        assert path.stat().st_size <= FILE_LIMIT, (path.name, path.stat().st_size)
    options, reference = read_options(folder), read_csv(folder / f"{name}_ref.csv")
    assert len(reference) == 1 + len([v for v in spec.outputs if v.kind == "real"])
    interval = options["OutputIntervalLength"]
    stride = round(interval / spec.step_size)
    assert math.isclose(stride * spec.step_size, interval) and stride in cross_check.INTERVAL_MULTIPLES
    assert np.allclose(np.diff(reference["time"][:-1]), interval) and reference["time"][-1] == scenario.stop_time
    if stride > 1:  # the next finer stride would not have fitted
        finer = cross_check.INTERVAL_MULTIPLES[cross_check.INTERVAL_MULTIPLES.index(stride) - 1]
        rows = math.ceil(round(scenario.stop_time / spec.step_size) / finer) + 1
        assert rows * len(reference) * (cross_check.FIELD_WIDTH + 1) > FILE_LIMIT


def test_the_flexible_crane_reference_is_its_own_dop853_and_agrees_with_solve_ivp(monkeypatch, tmp_path):
    """The FlexibleCrane's _ref.csv comes from the model's DOP853 at rtol 1e-10 (the kernel's stepper: seconds; the
    release job waited ~9 minutes on solve_ivp's Python loop for the 10 s), and agrees with solve_ivp's DOP853 at the
    same tolerance to far inside the cross-check's 1e-3 of range (0.3 s here)."""
    from crane_models.simulation import runs

    solve_ivp_reference = runs.run_standalone

    def refused(scenario, *args, **kwargs):
        raise AssertionError(f"{scenario.fmu}: its reference went through solve_ivp")

    monkeypatch.setattr(runs, "run_standalone", refused)
    (tmp_path / "x.fmu").write_bytes(b"")
    folder = write_reference_results("FlexibleCrane", tmp_path / "x.fmu", tmp_path / "FlexibleCrane", stop_time=0.3)
    assert read_options(folder)["RelTol"] == cross_check.REFERENCE_RTOL
    got = read_csv(folder / "FlexibleCrane_ref.csv")
    scenario = dataclasses.replace(cross_check.reference_scenario("FlexibleCrane"), stop_time=0.3)
    want = solve_ivp_reference(scenario, SPECS["FlexibleCrane"]().step_size, rtol=cross_check.REFERENCE_RTOL,
                               atol=cross_check.REFERENCE_RTOL)
    at = np.searchsorted(want["time"], got["time"])
    assert np.allclose(want["time"][at], got["time"])
    for name in got:
        if name != "time":
            span = max(float(np.ptp(want[name])), 1e-9)
            assert np.max(np.abs(got[name] - np.asarray(want[name])[at])) / span < 1e-5, name


def test_input_rows_dropped_only_where_interpolation_gives_them_exactly():
    times = np.arange(8) * 0.5
    table = np.array([[0.0, 1], [0, 1], [0, 1], [0.2, 1], [0.4, 1], [0.4, 1], [0.4, 1], [0.4, 1]])
    kept = cross_check.changing_rows(table)
    assert kept.tolist() == [0, 2, 3, 4, 7]
    for i in range(table.shape[1]):
        assert np.array_equal(np.interp(times, times[kept], table[kept, i]), table[:, i])
