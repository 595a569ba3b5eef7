"""Demo scenarios: input signals and start values for each FMU, shared by demo, tests and benchmarks."""
from __future__ import annotations

import numpy as np

from .knuckle_boom import INPUTS
from .scenario import Scenario, smoothstep
from .vessel_crane import INPUTS as VC_INPUTS, VesselCraneInitialState

__all__ = ["Scenario", "smoothstep", "knuckle_boom_hoisting", "vessel_crane_hoisting", "SCENARIOS"]


def _kb_signals(t: float) -> list:
    """A hoisting sequence: luff the inner boom up, slew, stretch the outer boom, lower a little."""
    q1 = smoothstep(t, 2.0, 10.0, 0.0, 1.0)
    q2 = smoothstep(t, 1.0, 9.0, 0.6, 1.4) + smoothstep(t, 14.0, 19.0, 0.0, -0.4)
    q3 = smoothstep(t, 6.0, 14.0, 0.6, 1.5)
    return [0.0, 0.0, 0.0, q1, q2, q3]


def _wrench_figure(stem: str, joint: str, kind: str, frame: str, fig: int) -> tuple:
    unit = "N" if kind == "force" else "N·m"
    return (stem, f"Fig. {fig}: reaction {kind}s in {joint.replace('joint', 'Joint ')} ({frame})",
            [(f"{joint}_{kind}_{a}", f"{'f' if kind == 'force' else 'n'}_{a}") for a in "xyz"], f"{kind} [{unit}]")


def knuckle_boom_hoisting() -> Scenario:
    return Scenario(
        name="knuckle_boom_hoisting",
        fmu="KnuckleBoomCrane",
        stop_time=20.0,
        input_names=[n for n, _, _ in INPUTS],
        signals=_kb_signals,
        start_values={"q1_0": 0.0, "q2_0": 0.6, "q3_0": 0.6},
        figures=[
            ("fig07_coordinates", "Fig. 7: generalized coordinates", [("q1", "q1 [rad]"), ("q2", "q2 [m]"), ("q3", "q3 [m]")], "q [rad] or [m]"),
            ("fig08_speeds", "Fig. 8: generalized speeds", [("u1", "u1 [rad/s]"), ("u2", "u2 [m/s]"), ("u3", "u3 [m/s]")], "u [rad/s] or [m/s]"),
            _wrench_figure("fig09_joint1_forces", "joint1", "force", "Frame 0", 9),
            _wrench_figure("fig10_joint1_moments", "joint1", "moment", "Frame 0", 10),
            _wrench_figure("fig11_joint2_forces", "joint2", "force", "Frame 2", 11),
            _wrench_figure("fig12_joint2_moments", "joint2", "moment", "Frame 2", 12),
            _wrench_figure("fig13_joint3_forces", "joint3", "force", "Frame 3", 13),
            _wrench_figure("fig14_joint3_moments", "joint3", "moment", "Frame 3", 14),
            ("fig15_efforts", "Fig. 15: actuator efforts (controller + input)",
             [("applied_king_torque", "T1 [N·m]"), ("applied_cylinder2_force", "F2 [N]"),
              ("applied_cylinder3_force", "F3 [N]")], "effort [N] or [N·m]"),
        ],
    )


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


SCENARIOS = {"knuckle_boom_hoisting": knuckle_boom_hoisting, "vessel_crane_hoisting": vessel_crane_hoisting}


def _flexible_crane_scenarios() -> dict:
    from .flexible_crane_scenarios import flexible_crane_paper

    # Both over the paper's 10 s (the 4-element FMU runs faster than real time since the kernel steps it).
    return {"flexible_crane_rigid_lugre": lambda: flexible_crane_paper(n_rfe=1),
            "flexible_crane_flexible4_lugre": lambda: flexible_crane_paper(n_rfe=4)}


SCENARIOS.update(_flexible_crane_scenarios())
