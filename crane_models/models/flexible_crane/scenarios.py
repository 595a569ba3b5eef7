"""Demo scenarios of the FlexibleCrane FMU (Figs. 6-8 of Jarzębowska, Urbaś & Augustynek 2019).

The paper's run: torque pulse (21), programmed motion (17), (22), LuGre friction. The demo runs the
rigid-link crane and the flexible link (4 elements) for the paper's 10 s (the element modes at ~4.8e3
rad/s make the 4-element run the slow one, see ``benchmarks/bench_flexible_crane.py``), and a finely
divided, damped link (16 elements) for 1 s with the kernel's stiff stepper;
``examples/flexible_crane_figures.py`` runs every case of Figs. 6-8.
"""
from __future__ import annotations

from .crane import INPUTS
from ...integration.scenario import Scenario

__all__ = ["flexible_crane_paper", "FIGURES", "SCENARIOS"]

PAPER = "Jarzębowska, Urbaś & Augustynek 2019"

# (file stem, title naming the paper's figure, [(output, label[, role])]): one axis per unit when drawn; the
# programmed z_E is the "target" drawn wide and pale under z_E, which follows it (within 0.6 mm rigid, 5.4 mm
# with 4 elements in the demo runs) and would hide under it.
FIGURES = [
    ("fig_joint_coordinates", "Figs. 6-7: joint coordinates",
     [("q_c1", "ψ(c,1)"), ("q_c2", "ψ(c,2,0)"), ("q_c3", "ψ(c,3)")]),
    ("fig_end_effector", "Figs. 6-7: end-effector position (Frame 0)",
     [("tip_x", "x_E"), ("tip_y", "y_E"), ("tip_z", "z_E"), ("z_E_programmed", "z_E programmed (22)", "target")]),
    ("fig_base", "Fig. 8: base motion on the flexible supports (one support stiffness)",
     [("z_b", "z(b)"), ("theta_b", "θ(b)"), ("phi_b", "φ(b)")]),
    ("fig_friction", "Joint friction torques, eqs. (13)-(15) (not drawn in the paper)",
     [(f"friction_torque_{i}", f"τ_f{i}") for i in (1, 2, 3)]),
]


def flexible_crane_paper(n_rfe: int = 1, stop_time: float = 10.0, friction_model: int = 2, **start) -> Scenario:
    """The paper's programmed motion with ``n_rfe`` elements (1 = rigid link) and a friction model
    (0 none, 1 Dahl, 2 LuGre); extra start values (e.g. ``s_z``, ``sde_damping``) are passed through."""
    kind = "rigid" if n_rfe == 1 else f"flexible{n_rfe}"
    damped = "_damped" if start.get("sde_damping") else ""
    name = f"flexible_crane_{kind}{damped}_{['none', 'dahl', 'lugre'][friction_model]}"
    return Scenario(name=name, fmu="FlexibleCrane", stop_time=stop_time, input_names=[n for n, _, _ in INPUTS],
                    signals=lambda t: [0.0], start_values={"n_rfe": n_rfe, "friction_model": friction_model, **start},
                    figures=FIGURES, paper=PAPER)


# Element damping of the damped scenario: stiffness-proportional, c = 1e-4 s x s of (8), i.e. a damping ratio of
# 2.6 % at the first link mode (520 rad/s) and 6 % at the second (1.2e3 rad/s) -- welded steel booms with their
# pins and hoses: 1-5 % -- with the element modes above 2e4 rad/s overdamped (the paper omits damping).
DAMPED_ELEMENTS = 1e-4  # [s]

# The first two over the paper's 10 s (the 4-element FMU runs faster than real time since the kernel steps it);
# the damped 16-element link over its first second, stepped by the kernel's ROS34PW2 (the automatic choice: the
# overdamped element modes hold an explicit pair at 1.6e-5 s): its tight reference alone takes about a minute.
SCENARIOS = {"flexible_crane_rigid_lugre": lambda: flexible_crane_paper(n_rfe=1),
             "flexible_crane_flexible4_lugre": lambda: flexible_crane_paper(n_rfe=4),
             "flexible_crane_flexible16_damped_lugre": lambda: flexible_crane_paper(n_rfe=16, stop_time=1.0,
                                                                                    sde_damping=DAMPED_ELEMENTS)}

# The scenario of the FMU's cross-check folder (simulation/cross_check.py). Cross-check tools set no start values, so it
# is the paper's case that the FMU's defaults are: the flexible link of 4 elements with LuGre friction.
CROSS_CHECK = {"FlexibleCrane": lambda: flexible_crane_paper(n_rfe=4)}
