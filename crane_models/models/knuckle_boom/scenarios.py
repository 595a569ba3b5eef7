"""Demo scenarios of the KnuckleBoomCrane FMUs: a hoisting sequence, with the paper's Figs. 7-15 as plots, on a fixed
base and on a vessel in a moderate sea."""
from __future__ import annotations

from ...integration.scenario import Scenario, smoothstep
from ...core.moving_base.sea_motion import sea_motion
from .crane import INPUTS
from .moving_base import INPUTS as MB_INPUTS
from .payload import PAYLOAD_INPUTS

__all__ = ["knuckle_boom_hoisting", "knuckle_boom_at_sea", "knuckle_boom_lift", "knuckle_boom_lift_at_sea",
           "sea_motion", "SCENARIOS"]


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


def knuckle_boom_at_sea(stop_time: float = 20.0) -> Scenario:
    """The hoisting sequence on a vessel in a moderate sea (:func:`sea_motion`), for KnuckleBoomCraneOnMovingBase."""
    def signals(t: float) -> list:
        return _kb_signals(t) + sea_motion(t)

    figures = knuckle_boom_hoisting().figures[:2] + [
        ("interface_force", "Force of the crane on the vessel (base frame)",
         [(f"interface_force_{a}", f"f_{a}") for a in "xyz"], "force [N]"),
        ("interface_moment", "Moment of the crane on the vessel at the crane base (base frame)",
         [(f"interface_moment_{a}", f"n_{a}") for a in "xyz"], "moment [N·m]")]
    return Scenario(name="knuckle_boom_at_sea", fmu="KnuckleBoomCraneOnMovingBase", stop_time=stop_time,
                    input_names=[n for n, _, _ in MB_INPUTS], signals=signals,
                    start_values={"q1_0": 0.0, "q2_0": 0.6, "q3_0": 0.6}, figures=figures)


def _lift_signals(t: float) -> list:
    """A lift with the payload (issue 14): from the deck, luff up while hauling in at full winch speed (the wire
    goes taut and lifts the load off; the abrupt stop at 5 s lets the wire go slack for moments), slew 1 rad (the load swings), stretch the
    outer boom, then pay out to lower the load. The winch command is a step: the winch has no ramp of its own."""
    crane = _kb_signals(t)
    winch = -0.5 if 1.0 <= t < 5.0 else (0.5 if 14.0 <= t < 18.0 else 0.0)
    return crane + [winch]


def knuckle_boom_lift() -> Scenario:
    """:func:`_lift_signals` on KnuckleBoomCrane with the payload on (1 t on 10 m of wire, the defaults)."""
    return Scenario(
        name="knuckle_boom_lift", fmu="KnuckleBoomCrane", stop_time=20.0,
        input_names=[n for n, _, _ in INPUTS] + [n for n, _, _ in PAYLOAD_INPUTS], signals=_lift_signals,
        # Dormand-Prince at rtol 1e-6: the snaps and slack phases of the abrupt winch steps need it (measured on
        # this scenario at 10 ms: hook load within 9.5e-5 of its range of the reference; RK23 at the FMU's default
        # rtol 1e-4 is 2.9 % off at the snaps, at 1e-6 6.5e-4), for about the wall time of RK23 at 1e-4.
        # The deck 0.6 m above the hanging point: the load starts resting on it, the wire slack, and lifts off.
        start_values={"q1_0": 0.0, "q2_0": 0.6, "q3_0": 0.6, "payload_enabled": True, "integrator": 2, "rtol": 1e-6,
                      "deck_enabled": True, "deck_height": -7.0},
        figures=[
            ("hook_load", "Hook load (wire tension)", [("hook_load", "T")], "force [N]"),
            ("wire", "Wire length and payload height", [("wire_length", "L"), ("payload_z", "z_load")], "[m]"),
            ("swing", "Swing angles of the wire", [("swing_radial", "radial"), ("swing_tangential", "tangential")]),
            ("deck", "Deck contact force on the payload", [("deck_contact_force", "N")], "force [N]"),
            _wrench_figure("joint1_forces", "joint1", "force", "Frame 0", 9),
            _wrench_figure("joint1_moments", "joint1", "moment", "Frame 0", 10),
        ],
        paper=PAPER + ", payload beyond the paper (issue 14)",
    )


def knuckle_boom_lift_at_sea() -> Scenario:
    """The lift of :func:`knuckle_boom_lift` on a vessel in the moderate sea of :func:`sea_motion`
    (KnuckleBoomCraneOnMovingBase): the hook load reaches the vessel through the interface wrench."""
    lift = knuckle_boom_lift()

    def signals(t: float) -> list:
        crane_and_winch = _lift_signals(t)
        return crane_and_winch[:-1] + sea_motion(t) + crane_and_winch[-1:]

    figures = lift.figures[:4] + knuckle_boom_at_sea().figures[2:]
    return Scenario(name="knuckle_boom_lift_at_sea", fmu="KnuckleBoomCraneOnMovingBase", stop_time=20.0,
                    input_names=[n for n, _, _ in MB_INPUTS] + [n for n, _, _ in PAYLOAD_INPUTS], signals=signals,
                    start_values=dict(lift.start_values), figures=figures, paper=lift.paper)


SCENARIOS = {"knuckle_boom_hoisting": knuckle_boom_hoisting, "knuckle_boom_at_sea": knuckle_boom_at_sea,
             "knuckle_boom_lift": knuckle_boom_lift, "knuckle_boom_lift_at_sea": knuckle_boom_lift_at_sea}

# The scenario of each FMU's cross-check folder (simulation/cross_check.py). Cross-check tools set no start values, so
# these start from the FMUs' default start values: the hoisting sequence does (its start pose is the default),
# the lifts do not (payload, deck, integrator).
CROSS_CHECK = {"KnuckleBoomCrane": knuckle_boom_hoisting, "KnuckleBoomCraneOnMovingBase": knuckle_boom_at_sea}
