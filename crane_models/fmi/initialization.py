"""Outputs in Initialization Mode: they follow the start values and inputs set so far.

A co-simulation engine settles the values of coupled FMUs before the first step by reading outputs and setting the
inputs they feed while the FMUs are in Initialization Mode: libcosim's fixed-step algorithm runs as many such rounds
as it has simulators, then ``ExitInitializationMode`` and one more; the project's own masters do the same. When an
FMU answers those reads with its start values (zeros), a loop with direct feedthrough -- the vessel's acceleration
for the crane's wrench, the crane's wrench for the vessel's acceleration -- enters the first step with each side
still assuming the other at rest: the crane's first wrench then misses the vessel's initial acceleration entirely
(a start-up error that no step size removes). Here each read in Initialization Mode evaluates the model at its
start state for the current parameters and inputs, so the engine's rounds converge to the consistent start (for a
loop gain below one, which the crane's added-mass ratio to the vessel is).

A start value that does not validate leaves the outputs at their start values, silently here: the same check runs
at ``ExitInitializationMode``, which reports it with its message, as before.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

__all__ = ["InitialOutputs"]


class InitialOutputs:
    """The model at its start for the parameters in force during Initialization Mode, made once per set of
    parameter values (``make(params)``: a CoSimulation; ``params()``: the current values)."""

    def __init__(self, make: Callable[[dict], object], params: Callable[[], dict]):
        self._make, self._params = make, params
        self._key: Optional[tuple] = None
        self._sim = None

    def simulation(self, inputs: np.ndarray):
        """The start co-simulation for the current parameters with ``inputs`` set, or None when the parameters
        do not build a model (ExitInitializationMode reports why)."""
        params = self._params()
        key = tuple(sorted(params.items()))
        if key != self._key:
            self._key, self._sim = key, None
            try:
                self._sim = self._make(params)
            except Exception:  # noqa: BLE001 -- reported by ExitInitializationMode's own check and build
                return None
        if self._sim is not None:
            self._sim.set_inputs(inputs)
        return self._sim
