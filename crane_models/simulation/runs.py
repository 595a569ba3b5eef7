"""Running built FMUs with fmpy and comparing them with the standalone solver."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..fmi.registry import SPECS
from .scenario import Scenario
from .cosimulation import simulate_reference

__all__ = ["run_fmu", "run_fmu_manual", "run_standalone", "max_relative_deviation", "communication_grid",
           "output_units"]


def communication_grid(stop_time: float, step: float) -> np.ndarray:
    n = int(round(stop_time / step))
    return np.arange(n + 1) * step


def run_fmu(fmu_path: Path, scenario: Scenario, step: float, warm_up: bool = False) -> tuple:
    """``fmpy.simulate_fmu`` with the scenario's inputs given at every communication point.
    Returns ``(result, wall_seconds)``. ``warm_up``: first an untimed run of one communication step, so
    that the wall time is the co-simulation's and not the one-time import of the FMU's Python package by
    the first instantiation in a process (~0.09 s; ~0.015 s per instantiation after it)."""
    import fmpy

    times = communication_grid(scenario.stop_time, step)
    if warm_up:
        fmpy.simulate_fmu(str(fmu_path), stop_time=step, output_interval=step,
                          start_values=dict(scenario.start_values), input=scenario.input_table(times[:2]),
                          validate=False)
    t0 = time.perf_counter()
    result = fmpy.simulate_fmu(str(fmu_path), stop_time=scenario.stop_time, output_interval=step,
                               start_values=dict(scenario.start_values), input=scenario.input_table(times),
                               validate=False)
    return result, time.perf_counter() - t0


def run_fmu_manual(fmu_path: Path, scenario: Scenario, step: float, outputs: list | None = None) -> dict:
    """A hand-written FMI 2.0 master loop with ``fmpy.fmi2.FMU2Slave`` (set inputs, doStep, get outputs)."""
    from ..fmi.instance import FmuInstance

    fmu = FmuInstance(fmu_path, "manual")
    out_names = outputs or fmu.outputs
    try:
        fmu.initialize({**scenario.start_values, **dict(zip(scenario.input_names, scenario.inputs_at(0.0)))})
        times = communication_grid(scenario.stop_time, step)
        rows = [fmu.get(out_names)]
        for t in times[:-1]:
            fmu.set(dict(zip(scenario.input_names, scenario.inputs_at(t))))
            fmu.t = t  # the master's grid, not an accumulated sum
            fmu.step(step)
            rows.append(fmu.get(out_names))
        fmu.fmu.terminate()
    finally:
        fmu.fmu.freeInstance()
    data = np.array(rows)
    result = {"time": times}
    result.update({n: data[:, i] for i, n in enumerate(out_names)})
    return result


def run_standalone(scenario: Scenario, step: float, rtol: float = 1e-10, atol: float = 1e-10) -> dict:
    """The reference: ``solve_ivp`` (DOP853) on the same model, inputs held over each communication step."""
    spec = SPECS[scenario.fmu]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(scenario.start_values)
    model, x0, _ = spec.build(values)
    return simulate_reference(model, x0, communication_grid(scenario.stop_time, step), scenario.inputs_at,
                              rtol=rtol, atol=atol)


# Smallest range an output is judged against: below it a signal is "constant" (e.g. the zero moment n_x
# of a passive joint) and a deviation counts only against this resolution of the quantity.
RESOLUTION = {"N": 1.0, "N.m": 1.0, "m": 1e-6, "rad": 1e-6, "m/s": 1e-6, "rad/s": 1e-6, "": 1.0}


def max_relative_deviation(result, reference: dict, names: list, units: dict | None = None) -> dict:
    """``max |fmu − ref| / range(ref)`` per output; the range is at least ``RESOLUTION[unit]``."""
    out = {}
    units = units or {}
    for n in names:
        ref = np.asarray(reference[n], dtype=float)
        got = np.asarray(result[n], dtype=float)
        span = max(float(ref.max() - ref.min()), RESOLUTION.get(units.get(n, ""), 1e-9))
        out[n] = float(np.max(np.abs(got - ref)) / span)
    return out


def output_units(fmu_name: str) -> dict:
    return {v.name: v.unit for v in SPECS[fmu_name]().outputs}
