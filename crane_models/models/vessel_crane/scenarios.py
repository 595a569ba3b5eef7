"""Demo scenario of the VesselCrane FMU: the hoisting sequence of Figs. 5-7 (Cibicik & Egeland, moving base)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...simulation.scenario import Scenario, smoothstep
from .crane import INPUTS as VC_INPUTS, VesselCraneInitialState

__all__ = ["vessel_crane_hoisting", "SCENARIOS"]


# The hoisting sequence of Figs. 5-6 (drawn, not tabulated, in the paper): (joint, start, end, from, to),
# times as fractions of the scenario length -- luff the inner boom up, unfold the outer boom, slew a
# quarter turn, reach out by lowering the inner boom. Angles in rad.
_VC_MOVES = (
    (5, 0.05, 0.25, 0.2, 0.8),
    (6, 0.15, 0.45, -1.4, -0.4),
    (4, 0.40, 0.70, 0.0, np.pi / 2),
    (5, 0.75, 0.95, 0.8, 0.4),
)


def _vc_signals(stop_time: float) -> Callable[[float], list]:
    init = VesselCraneInitialState()
    start = {4: init.q4_0, 5: init.q5_0, 6: init.q6_0}

    def signals(t: float) -> list:
        ref = dict(start)
        for joint, t0, t1, a, b in _VC_MOVES:
            ref[joint] += smoothstep(t, t0 * stop_time, t1 * stop_time, 0.0, b - a)
        return [ref[4], ref[5], ref[6], 0.0, 0.0, 0.0]

    return signals


def vessel_crane_hoisting(stop_time: float = 20.0) -> Scenario:
    """Figs. 5-7: the crane runs the hoisting sequence under the PD controller (63); the vessel starts at
    its origin and at rest and is excited by the crane alone. ``stop_time`` stretches the sequence."""
    frame = {"interface": "Frame 2", "interface_f1": "Frame 1"}
    figures = [
        ("fig06_crane_joints", "Fig. 6: crane joint variables", [(f"q{i}", f"q{i} [rad]") for i in (4, 5, 6)], "q [rad]"),
        ("fig06_vessel", "Fig. 6: vessel roll, pitch, yaw", [(f"q{i}", f"q{i} [rad]") for i in (1, 2, 3)], "q [rad]"),
    ]
    for prefix, name in frame.items():
        stem = "fig07_" + name.replace(" ", "").lower()
        figures += [
            (f"{stem}_forces", f"Fig. 7: constraint forces on the crane ({name})",
             [(f"{prefix}_force_{a}", f"f_{a}") for a in "xyz"], "force [N]"),
            (f"{stem}_moments", f"Fig. 7: constraint moments on the crane ({name})",
             [(f"{prefix}_moment_{a}", f"n_{a}") for a in "xy"], "moment [N·m]"),
        ]
    return Scenario(name="vessel_crane_hoisting", fmu="VesselCrane", stop_time=stop_time,
                    input_names=[n for n, _, _ in VC_INPUTS], signals=_vc_signals(stop_time), figures=figures)


SCENARIOS = {"vessel_crane_hoisting": vessel_crane_hoisting}
