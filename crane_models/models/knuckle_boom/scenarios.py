"""Demo scenario of the KnuckleBoomCrane FMU: a hoisting sequence, with the paper's Figs. 7-15 as plots."""
from __future__ import annotations

from ...simulation.scenario import Scenario, smoothstep
from .crane import INPUTS

__all__ = ["knuckle_boom_hoisting", "SCENARIOS"]


def _kb_signals(t: float) -> list:
    """A hoisting sequence: luff the inner boom up, slew, stretch the outer boom, lower a little."""
    q1 = smoothstep(t, 2.0, 10.0, 0.0, 1.0)
    q2 = smoothstep(t, 1.0, 9.0, 0.6, 1.4) + smoothstep(t, 14.0, 19.0, 0.0, -0.4)
    q3 = smoothstep(t, 6.0, 14.0, 0.6, 1.5)
    return [0.0, 0.0, 0.0, q1, q2, q3]


PAPER = "Cibicik & Egeland 2018 (knuckle boom crane)"


def _wrench_figure(stem: str, joint: str, kind: str, frame: str, fig: int) -> tuple:
    """(file stem, title naming the paper figure, [(output, label)]); units come from the FMU's outputs."""
    return (stem, f"Fig. {fig}: reaction {kind}s in {joint.replace('joint', 'Joint ')} ({frame})",
            [(f"{joint}_{kind}_{a}", f"{'f' if kind == 'force' else 'n'}_{a}") for a in "xyz"])


def knuckle_boom_hoisting() -> Scenario:
    return Scenario(
        name="knuckle_boom_hoisting",
        fmu="KnuckleBoomCrane",
        stop_time=20.0,
        input_names=[n for n, _, _ in INPUTS],
        signals=_kb_signals,
        start_values={"q1_0": 0.0, "q2_0": 0.6, "q3_0": 0.6},
        figures=[
            ("fig07_coordinates", "Fig. 7: generalized coordinates (king slew angle, piston extensions)",
             [("q1", "q1"), ("q2", "q2"), ("q3", "q3")]),
            ("fig08_speeds", "Fig. 8: generalized speeds", [("u1", "u1"), ("u2", "u2"), ("u3", "u3")]),
            _wrench_figure("fig09_joint1_forces", "joint1", "force", "Frame 0", 9),
            _wrench_figure("fig10_joint1_moments", "joint1", "moment", "Frame 0", 10),
            _wrench_figure("fig11_joint2_forces", "joint2", "force", "Frame 2", 11),
            _wrench_figure("fig12_joint2_moments", "joint2", "moment", "Frame 2", 12),
            _wrench_figure("fig13_joint3_forces", "joint3", "force", "Frame 3", 13),
            _wrench_figure("fig14_joint3_moments", "joint3", "moment", "Frame 3", 14),
            ("fig15_efforts", "Fig. 15: actuator efforts (controller + input)",
             [("applied_king_torque", "T1"), ("applied_cylinder2_force", "F2"), ("applied_cylinder3_force", "F3")]),
        ],
        paper=PAPER,
    )


SCENARIOS = {"knuckle_boom_hoisting": knuckle_boom_hoisting}
