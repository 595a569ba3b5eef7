"""Running built FMUs with fmpy and comparing them with the standalone solver."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from ..models.registry import SPECS
from ..integration.scenario import Scenario, communication_grid
from ..integration.reference import simulate_reference
from .interrupts import between_steps
from .unpacked import unpacked_fmu

__all__ = ["run_fmu", "run_fmu_manual", "co_simulate", "run_standalone", "run_model_reference",
           "max_relative_deviation",
           "communication_grid", "output_units", "output_names", "fmi_version", "FmuRunError", "FMI_STATUS"]

FMI_STATUS = ("OK", "Warning", "Discard", "Error", "Fatal", "Pending")


class FmuRunError(RuntimeError):
    """An FMI call answered with a status worse than Warning; the message names the call, the time and
    repeats what the FMU logged (e.g. the parameter, its value and its allowed range)."""

    def __init__(self, what: str, messages: list):
        logged = "".join(f"\n  FMU [{FMI_STATUS[s] if 0 <= s < 6 else s}] {m}" for s, _, m in messages if s > 0)
        super().__init__(what + (logged or "\n  (the FMU logged no message)"))
        self.what = what
        self.messages = messages


def _getter(fmu, types: dict, vr: dict, names: list) -> Callable[[], list]:
    """One FMI get call per variable type, values in the order of ``names``."""
    calls = {"Real": fmu.getReal, "Integer": fmu.getInteger, "Boolean": fmu.getBoolean}
    groups = []
    for kind, call in calls.items():
        idx = [i for i, n in enumerate(names) if types[n] == kind]
        if idx:
            groups.append((call, idx, [vr[names[i]] for i in idx]))

    def get() -> list:
        row = [0.0] * len(names)
        for call, idx, refs in groups:
            for i, value in zip(idx, call(refs)):
                row[i] = float(value)
        return row

    return get


def co_simulate(fmu_path: Path, times: np.ndarray, start_values: dict, input_names: list,
                inputs_at: Callable[[float], np.ndarray], outputs: list | None = None,
                logger: Callable[[int, str, str], None] | None = None,
                on_step: Callable[[float], None] | None = None) -> dict:
    """A plain FMI 2.0 master loop with ``fmpy.fmi2.FMU2Slave``: start values and the inputs at ``times[0]``
    set in initialization mode, then for every communication interval ``[t0, t1]``: set the inputs at
    ``t0``, ``doStep(t0, t1 - t0)``, get the outputs. Returns ``{"time": times, output: array}``.

    Every FMI call is checked: a status worse than Warning raises :class:`FmuRunError` with the FMU's own
    log messages. ``logger(status, category, message)`` sees every message as it arrives; ``on_step(t1)``
    is called after each step (progress bars)."""
    from fmpy.fmi1 import FMICallException

    from ..fmi.instance import FmuInstance

    messages: list = []

    def log(status: int, category: str, message: str) -> None:
        messages.append((status, category, message))
        if logger:
            logger(status, category, message)

    fmu = FmuInstance(fmu_path, "crane-cosim", logger=log, unzip=str(unpacked_fmu(fmu_path)))
    names = outputs or output_names(fmu_path)
    get = _getter(fmu.fmu, fmu.types, fmu.vr, names)
    t0 = float(times[0])
    with between_steps() as interrupted:  # Ctrl-C ends the run between steps, not inside the FMU's doStep
        try:
            try:
                fmu.initialize({**start_values, **dict(zip(input_names, inputs_at(t0)))}, start_time=t0)
            except FMICallException as exc:
                raise FmuRunError(f"initialization of {Path(fmu_path).name} failed ({exc})", messages) from None
            rows = [get()]
            for t0, t1 in zip(times[:-1], times[1:]):
                fmu.set(dict(zip(input_names, inputs_at(t0))))
                fmu.t = float(t0)  # the master's grid, not an accumulated sum
                try:
                    fmu.step(float(t1 - t0))
                except FMICallException as exc:
                    raise FmuRunError(f"doStep from t = {t0:.10g} s by {t1 - t0:.6g} s failed ({exc})", messages) from None
                rows.append(get())
                if interrupted():
                    raise KeyboardInterrupt
                if on_step:
                    on_step(float(t1))
            fmu.fmu.terminate()
        finally:
            fmu.fmu.freeInstance()
    data = np.array(rows, dtype=float)
    result = {"time": np.asarray(times, dtype=float)}
    result.update({n: data[:, i] for i, n in enumerate(names)})
    return result


def output_names(fmu_path: Path) -> list:
    """The FMU's Real, Integer and Boolean outputs in the order of its model description."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu_path))
    return [v.name for v in md.modelVariables if v.causality == "output" and v.type in ("Real", "Integer", "Boolean")]


def fmi_version(fmu_path: Path) -> str:
    from fmpy import read_model_description

    return read_model_description(str(fmu_path)).fmiVersion


def run_fmu(fmu_path: Path, scenario: Scenario, step: float, warm_up: bool = False,
            on_step: Callable[[float], None] | None = None) -> tuple:
    """The scenario under fmpy on :func:`communication_grid` (the last step shortened when ``step`` does not
    divide the stop time), inputs given at every communication point. FMI 2.0: :func:`co_simulate`; FMI 3.0:
    ``fmpy.simulate_fmu``. Returns ``(result, wall_seconds)``, the result a structured array as fmpy's. ``warm_up``: first an untimed run of one
    communication step, so that the wall time is the co-simulation's and not the one-time import of the
    FMU's Python package by the first instantiation in a process (~0.09 s; ~0.015 s per instantiation after it)."""
    times = communication_grid(scenario.stop_time, step)
    if fmi_version(fmu_path).startswith("3"):
        return _run_fmu_fmi3(fmu_path, scenario, times, step, warm_up)
    if warm_up:
        co_simulate(fmu_path, times[:2], dict(scenario.start_values), scenario.input_names, scenario.inputs_at)
    t0 = time.perf_counter()
    result = co_simulate(fmu_path, times, dict(scenario.start_values), scenario.input_names, scenario.inputs_at,
                         on_step=on_step)
    return as_record_array(result), time.perf_counter() - t0


def as_record_array(result: dict) -> np.ndarray:
    """``{name: column}`` as the structured array ``fmpy.simulate_fmu`` returns (``result[name]``,
    ``result.dtype.names``), so that callers see one result type for FMI 2.0 and 3.0."""
    names = list(result)
    table = np.empty(len(result[names[0]]), dtype=[(n, np.float64) for n in names])
    for n in names:
        table[n] = result[n]
    return table


def _run_fmu_fmi3(fmu_path: Path, scenario: Scenario, times: np.ndarray, step: float, warm_up: bool) -> tuple:
    import fmpy

    unpacked = str(unpacked_fmu(fmu_path))  # fmpy would unpack it into a new folder per run

    def simulate(grid: np.ndarray):
        return fmpy.simulate_fmu(unpacked, stop_time=float(grid[-1]), output_interval=step,
                                 start_values=dict(scenario.start_values), input=scenario.input_table(grid),
                                 validate=False)

    if warm_up:
        simulate(times[:2])
    t0 = time.perf_counter()
    result = simulate(times)
    return result, time.perf_counter() - t0


def run_fmu_manual(fmu_path: Path, scenario: Scenario, step: float, outputs: list | None = None) -> dict:
    """The scenario through the plain master loop :func:`co_simulate` (set inputs, doStep, get outputs)."""
    return co_simulate(fmu_path, communication_grid(scenario.stop_time, step), dict(scenario.start_values),
                       scenario.input_names, scenario.inputs_at, outputs)


def run_standalone(scenario: Scenario, step: float, rtol: float = 1e-10, atol: float = 1e-10,
                   on_step: Callable[[float], None] | None = None, method: str = "DOP853") -> dict:
    """The reference: ``solve_ivp`` (DOP853; or ``method``, an implicit one with the model's kernel Jacobian,
    see :func:`simulate_reference`) on the same model, inputs held over each communication step. DOP853 stays the
    default for the stiff (damped) FlexibleCrane too: at rtol 1e-10 the modes it must follow set its steps, and
    Radau with the kernel's Jacobian took 6 times its wall time (16 damped elements, 0.3 s; both agreed to 1.4e-8
    of range)."""
    spec = SPECS[scenario.fmu]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(scenario.start_values)
    model, x0, _ = spec.build(values)
    return simulate_reference(model, x0, communication_grid(scenario.stop_time, step), scenario.inputs_at,
                              rtol=rtol, atol=atol, method=method, on_step=on_step)


def run_model_reference(scenario: Scenario, step: float, rtol: float = 1e-10, atol: float = 1e-10) -> dict:
    """A reference by the model's own DOP853 (integrator code 4: the compiled kernel's stepper where it is built)
    at ``rtol`` / ``atol``, inputs held over each communication step -- the FMU's stepping with the tolerances
    tightened, without the FMU -- for a model whose spec has the ``integrator``, ``rtol`` and ``atol`` parameters.
    The same DOP853 pair as :func:`run_standalone`'s ``solve_ivp`` without its Python loop (the FlexibleCrane's 10 s
    of the cross-check: 12 s instead of 33 s on an idle machine). ``{name: array}`` on the grid, as
    :func:`run_standalone`."""
    from ..integration.cosimulation import CoSimulation

    spec = SPECS[scenario.fmu]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(scenario.start_values)
    values.update(integrator=4, rtol=rtol, atol=atol)
    model, x0, options = spec.build(values)
    times = communication_grid(scenario.stop_time, step)
    sim = CoSimulation(model, x0, t0=float(times[0]), inputs=np.asarray(scenario.inputs_at(times[0]), dtype=float),
                       **options)
    rows = [sim.outputs()]
    for t0, t1 in zip(times[:-1], times[1:]):
        sim.set_inputs(np.asarray(scenario.inputs_at(t0), dtype=float))
        sim.t = float(t0)
        sim.step(float(t1 - t0))
        rows.append(sim.outputs())
    return {"time": times, **{name: np.array([r[name] for r in rows]) for name in rows[0]}}


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
