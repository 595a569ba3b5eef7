"""Master loops for KnuckleBoomCrane.fmu under libcosimpy (libcosim, OSP) and ecospy (Ecos), shared by the
engine tests, the clean-exit tests and ``benchmarks/bench_engines.py``.

Both loops feed the scenario's inputs exactly as ``crane_models.simulation.runs.run_fmu`` (fmpy) does: the inputs
for the step from ``t`` are set before that step, the start values and the inputs at ``t = 0`` before
initialization. Each returns ``{"time": ..., output: array}`` at every communication point after ``t = 0``
and the wall time of the stepping loop.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from crane_models.app.native import ecospy_problem
from crane_models.simulation.runs import communication_grid


def _variables(fmu_path: Path):
    from fmpy import read_model_description

    md = read_model_description(str(fmu_path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    outs = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    return vr, outs


def typed_value(fmu_path: Path, name: str, value):
    """A start value as the Python type of its FMI variable (Integer -> int, Boolean -> bool, else float)."""
    from fmpy import read_model_description

    kind = {v.name: v.type for v in read_model_description(str(fmu_path)).modelVariables}[name]
    return {"Integer": int, "Boolean": bool}.get(kind, float)(value)


def _result(times, rows, outs) -> dict:
    data = np.array(rows, dtype=float)
    result = {"time": np.asarray(times[1:])}
    result.update({n: data[:, i] for i, n in enumerate(outs)})
    return result


def run_libcosim(fmu_path: Path, scenario, step: float, outputs: list | None = None) -> tuple:
    """libcosim's in-process execution: override manipulator for the inputs, last-value observer for the
    outputs (libcosim steps the FMU on a worker thread)."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.ERROR)
    vr, outs = _variables(fmu_path)
    outs = outputs or outs
    execution = CosimExecution.from_step_size(step_size=int(round(step * 1e9)))  # nanoseconds
    index = execution.add_local_slave(CosimLocalSlave(fmu_path=str(fmu_path), instance_name="crane"))
    manipulator = CosimManipulator.create_override()
    observer = CosimObserver.create_last_value()
    assert execution.add_manipulator(manipulator) and execution.add_observer(observer)
    for name, value in scenario.start_values.items():
        value = typed_value(fmu_path, name, value)
        setter = {int: execution.integer_initial_value, bool: execution.boolean_initial_value}.get(
            type(value), execution.real_initial_value)
        assert setter(index, vr[name], value), name
    in_vrs = [vr[n] for n in scenario.input_names]
    for ref, value in zip(in_vrs, scenario.inputs_at(0.0)):
        assert execution.real_initial_value(index, ref, float(value))
    out_vrs = [vr[n] for n in outs]
    times = communication_grid(scenario.stop_time, step)
    rows = []
    t0 = time.perf_counter()
    for t in times[:-1]:
        assert manipulator.slave_real_values(index, in_vrs, [float(x) for x in scenario.inputs_at(t)])
        assert execution.step(1), f"libcosim step from t = {t} s failed: {execution.status()}"
        rows.append(observer.last_real_values(index, out_vrs))
    wall = time.perf_counter() - t0
    assert execution.stop()
    return _result(times, rows, outs), wall


def run_ecos(fmu_path: Path, scenario, step: float, outputs: list | None = None) -> tuple:
    """Ecos in process: start values and inputs at t = 0 as a parameter set, then ``set_real`` before
    every ``step``."""
    from ecospy import EcosLib, EcosSimulation, EcosSimulationStructure

    EcosLib.set_log_level("warn")
    _, outs = _variables(fmu_path)
    outs = outputs or outs
    structure = EcosSimulationStructure()
    structure.add_model("crane", str(fmu_path))
    initial = {f"crane::{n}": typed_value(fmu_path, n, v) for n, v in scenario.start_values.items()}
    initial.update({f"crane::{n}": float(v) for n, v in zip(scenario.input_names, scenario.inputs_at(0.0))})
    structure.add_parameter_set("initial", initial)
    sim = EcosSimulation(structure=structure, step_size=step)
    try:
        assert sim.init(parameter_set="initial"), EcosLib.get_last_error()
        ins = [f"crane::{n}" for n in scenario.input_names]
        got = [f"crane::{n}" for n in outs]
        times = communication_grid(scenario.stop_time, step)
        rows = []
        t0 = time.perf_counter()
        for t in times[:-1]:
            for name, value in zip(ins, scenario.inputs_at(t)):
                sim.set_real(name, float(value))
            sim.step()
            rows.append([sim.get_real(n) for n in got])
        wall = time.perf_counter() - t0
        assert abs(sim.get_time() - times[-1]) < 1e-9 * max(1.0, times[-1])
        sim.terminate()
    finally:
        sim.free()
        structure.free()
    return _result(times, rows, outs), wall


# Every test that needs ecospy (in process or its ecos host) carries these marks: `-m ecospy` selects them, and they
# skip with the reason in one line (ecospy not installed, no binaries for this platform, or the system library
# libtbb12 missing), found by the same check `crane-cosim ecos` makes. `pytest.param(..., marks=ECOSPY_MARKS)`
# for a parameter that needs ecospy.
ECOSPY_PROBLEM = ecospy_problem()
ECOSPY_MARKS = [pytest.mark.ecospy, pytest.mark.skipif(ECOSPY_PROBLEM is not None, reason=ECOSPY_PROBLEM or "")]


def needs_ecospy(test):
    """Decorator: ``test`` needs ecospy (:data:`ECOSPY_MARKS`)."""
    for mark in ECOSPY_MARKS:
        test = mark(test)
    return test


def libcosim_missing() -> bool:
    """libcosimpy is an extra with wheels for Linux x86-64 and Windows x64 only (pyproject.toml): elsewhere the
    libcosim tests skip."""
    try:
        import libcosimpy.CosimExecution  # noqa: F401 -- loads libcosim's C library
        return False
    except (ImportError, OSError):
        return True


NO_LIBCOSIM = ('libcosimpy is not installed or does not load (pip install "crane-cosim[libcosim]"; wheels for '
               "Linux x86-64 and Windows x64, CPython >= 3.11, only)")
