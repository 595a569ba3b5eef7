"""A demo scenario: which FMU, for how long, with which input signals and start values, and its figures.

The model folders' ``scenarios.py`` declare theirs with it (the registry is ``models.collect("scenarios",
"SCENARIOS")``); on the integration floor, below the models, so that they import it downward.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Scenario", "smoothstep", "communication_grid", "check_step", "MIN_STEP", "MAX_POINTS"]

# Below 10 us a communication step is no longer a co-simulation step (the FMUs' own integrators take
# larger steps), and a demo run would hold millions of rows; 2e6 points of ~50 outputs are ~0.8 GB.
MIN_STEP = 1e-5  # [s]
MAX_POINTS = 2_000_000


def check_step(step: float, duration: float, name: str = "step") -> None:
    """Refuse a communication step a run cannot use, with a message naming ``name`` and the allowed range:
    not a finite positive number, below :data:`MIN_STEP`, longer than the run (``duration`` [s]), or so
    small that the grid would exceed :data:`MAX_POINTS` points."""
    if not (isinstance(step, (int, float)) and math.isfinite(step)) or step <= 0.0:
        raise ValueError(f"{name} = {step!r} s: the communication step must be a positive number of seconds "
                         f"(allowed: {MIN_STEP:g} s to {duration:g} s)")
    if step < MIN_STEP:
        raise ValueError(f"{name} = {step:g} s is below the smallest communication step {MIN_STEP:g} s "
                         f"(allowed: {MIN_STEP:g} s to {duration:g} s)")
    if step > duration * (1.0 + 1e-12):
        raise ValueError(f"{name} = {step:g} s is longer than the run ({duration:g} s; allowed: {MIN_STEP:g} s "
                         f"to {duration:g} s)")
    if duration / step > MAX_POINTS:
        raise ValueError(f"{name} = {step:g} s gives {duration / step:.3g} communication points over "
                         f"{duration:g} s, more than {MAX_POINTS:.0e} (use {name} >= {duration / MAX_POINTS:.3g} s)")


def communication_grid(stop_time: float, step: float, start_time: float = 0.0) -> np.ndarray:
    """Communication points ``start, start + h, start + 2h, ...`` ending exactly at ``stop_time``: when ``h``
    does not divide the run, the last step is shortened. Points are ``start + k h`` (no accumulated sum),
    and a point within 1e-9 (relative) of the stop time is the stop time -- the grid fmpy's
    ``simulate_fmu`` walks with ``output_interval = h``, so its results and ours share their rows."""
    duration = stop_time - start_time
    n_full = int(math.floor(duration / step * (1.0 + 1e-12)))
    times = start_time + np.arange(n_full + 1) * step
    if math.isclose(times[-1], stop_time, rel_tol=1e-9, abs_tol=1e-12):
        times[-1] = stop_time
    else:
        times = np.append(times, stop_time)
    return times


def smoothstep(t: float, t0: float, t1: float, a: float, b: float) -> float:
    """Quintic transition from ``a`` at ``t0`` to ``b`` at ``t1`` with zero speed and acceleration at both ends."""
    if t <= t0:
        return a
    if t >= t1:
        return b
    s = (t - t0) / (t1 - t0)
    return a + (b - a) * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


@dataclass
class Scenario:
    name: str
    fmu: str
    stop_time: float
    input_names: list
    signals: Callable[[float], list]  # t -> input values in the order of input_names
    start_values: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)  # (file stem, title naming the paper figure, [(output, label)])
    paper: str = ""  # the paper the figures reproduce, for their titles

    def inputs_at(self, t: float) -> np.ndarray:
        return np.asarray(self.signals(t), dtype=float)

    def input_table(self, times: np.ndarray) -> np.ndarray:
        """Structured array for ``fmpy.simulate_fmu(input=...)``: one row per communication point."""
        dtype = [("time", np.float64)] + [(n, np.float64) for n in self.input_names]
        rows = [(t, *self.signals(t)) for t in times]
        return np.array(rows, dtype=dtype)
