"""Demo scenarios of the FlexibleCrane FMU (Figs. 6-8 of Jarzębowska, Urbaś & Augustynek 2019).

The paper's run: torque pulse (21), programmed motion (17), (22), LuGre friction. The demo runs the
rigid-link crane for the paper's 10 s and the flexible link (4 elements) for its first second (its
element-scale modes at ~4.8e3 rad/s make the explicit stepper slow, see ``benchmarks/
bench_flexible_crane.py``); ``examples/flexible_crane_figures.py`` runs every case of Figs. 6-8.
"""
from __future__ import annotations

from .crane import INPUTS
from ...simulation.scenario import Scenario

__all__ = ["flexible_crane_paper", "FIGURES", "SCENARIOS"]

FIGURES = [
    ("fig_joint_coordinates", "Figs. 6-7: joint coordinates", [("q_c1", "psi(c,1) [rad]"), ("q_c2", "psi(c,2,0) [rad]"),
                                                              ("q_c3", "psi(c,3) [rad]")], "angle [rad]"),
    ("fig_end_effector", "Figs. 6-7: end effector", [("tip_x", "x_E [m]"), ("tip_y", "y_E [m]"), ("tip_z", "z_E [m]")],
     "position [m]"),
    ("fig_base", "Fig. 8: base motion", [("z_b", "z(b) [m]"), ("theta_b", "theta(b) [rad]"), ("phi_b", "phi(b) [rad]")],
     "z [m], angles [rad]"),
    ("fig_friction", "joint friction torques (13)", [(f"friction_torque_{i}", f"t_f{i} [N·m]") for i in (1, 2, 3)],
     "torque [N·m]"),
]


def flexible_crane_paper(n_rfe: int = 1, stop_time: float = 10.0, friction_model: int = 2, **start) -> Scenario:
    """The paper's programmed motion with ``n_rfe`` elements (1 = rigid link) and a friction model
    (0 none, 1 Dahl, 2 LuGre); extra start values (e.g. ``s_z``) are passed through."""
    kind = "rigid" if n_rfe == 1 else f"flexible{n_rfe}"
    name = f"flexible_crane_{kind}_{['none', 'dahl', 'lugre'][friction_model]}"
    return Scenario(name=name, fmu="FlexibleCrane", stop_time=stop_time, input_names=[n for n, _, _ in INPUTS],
                    signals=lambda t: [0.0], start_values={"n_rfe": n_rfe, "friction_model": friction_model, **start},
                    figures=FIGURES)


# Both over the paper's 10 s (the 4-element FMU runs faster than real time since the kernel steps it).
SCENARIOS = {"flexible_crane_rigid_lugre": lambda: flexible_crane_paper(n_rfe=1),
             "flexible_crane_flexible4_lugre": lambda: flexible_crane_paper(n_rfe=4)}
