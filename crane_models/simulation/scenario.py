"""A demo scenario: which FMU, for how long, with which input signals and start values, and its figures.

Kept apart from :mod:`scenarios` (the registry) so that model-specific scenario modules can import it
without a circular import.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Scenario", "smoothstep"]


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
    figures: list = field(default_factory=list)  # (file stem, title, [(output, label)], y label)

    def inputs_at(self, t: float) -> np.ndarray:
        return np.asarray(self.signals(t), dtype=float)

    def input_table(self, times: np.ndarray) -> np.ndarray:
        """Structured array for ``fmpy.simulate_fmu(input=...)``: one row per communication point."""
        dtype = [("time", np.float64)] + [(n, np.float64) for n in self.input_names]
        rows = [(t, *self.signals(t)) for t in times]
        return np.array(rows, dtype=dtype)
