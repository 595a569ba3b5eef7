"""The WaveVessel's model: no state and no inputs -- its outputs are functions of time alone, the motion of
:mod:`.motion` -- behind the co-simulation's model protocol (integration/cosimulation.py), with the hook of the
runtime's steps without Python for such models (``kernel_time_step``, fmi/kernel_steps.py ``TimeSteps``)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core.moving_base.harmonic import VALUE_NAMES, HarmonicBody
from ...core.moving_base.interface import BASE_VELOCITY, MOTION
from .motion import ELEVATION

__all__ = ["WaveVesselModel", "OUTPUTS"]

_AXES = "x forward, y to port, z up (z_down: y to starboard, z down)"
OUTPUTS = (tuple(MOTION) + tuple(BASE_VELOCITY)
           + (("heave", "m", "vertical displacement of the reference point O from its mean position, up (z_down: "
               "down)"),
              ("wave_elevation", "m", "elevation of the sea surface above the still water level at O's mean "
               "position (up in both axis conventions)"))
           + tuple((f"base_position_{a}", "m", f"position of the reference point O in the sea frame ({_AXES}), {a}")
                   for a in "xyz"))
# output name -> its value among the body's (core/moving_base/harmonic.py VALUE_NAMES, then the elevation)
_VALUE_OF = {**{name: i for i, name in enumerate(VALUE_NAMES)}, "heave": VALUE_NAMES.index("displacement_z"),
             "wave_elevation": ELEVATION}
assert {name for name, _, _ in OUTPUTS} <= set(_VALUE_OF)
_EMPTY = np.zeros(0)


class WaveVesselModel:
    """The vessel whose motion ``body`` (a :class:`HarmonicBody`) prescribes; it does not feel the crane."""

    input_names: tuple = ()
    state_size = 0

    def __init__(self, body: HarmonicBody) -> None:
        self.body = body
        self._plans: dict = {}

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray) -> tuple:
        return _EMPTY, _EMPTY  # nothing evolves: the outputs are the motion at t

    def check_state(self, x: np.ndarray) -> None:
        if x.size:
            raise ValueError(f"the wave vessel has no state, got {x.size} values")

    def _plan(self, names) -> np.ndarray:
        key = tuple(names)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = np.array([_VALUE_OF[n] for n in key], dtype=np.intp)
        return plan

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        values = self.body.values(t)
        return {name: float(values[_VALUE_OF[name]]) for name, _, _ in OUTPUTS}

    def write_outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux, names, out: np.ndarray) -> None:
        out[:] = self.body.values(t)[self._plan(names)]

    def kernel_time_step(self, names, real_slots, int_slots, time_slot: Optional[int]):
        """The kernel's step over the runtime's table (``mbs_harmonic_step``) publishing the outputs ``names``:
        ``real_slots`` / ``int_slots`` are ``(slot, position in names)``; None without the kernel."""
        native = self.body.native
        if native is None:
            return None
        plan = self._plan(names)
        native.attach([(slot, int(plan[p])) for slot, p in real_slots],
                      [(slot, int(plan[p])) for slot, p in int_slots], time_slot)
        return native
