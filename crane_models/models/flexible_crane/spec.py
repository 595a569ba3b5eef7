"""FMU ``FlexibleCrane``: its variables and model factory."""
from __future__ import annotations

import numpy as np

from ...fmi.spec import MAX_STEP_LOW, FmuSpec, FmuVariable, parameters_from_dataclasses, split_values
from .crane import INPUTS, OUTPUTS, FlexibleCrane
from .model import FlexibleCraneModel
from .statics import stable_step
from .parameters import (FlexibleCraneInitialState, FlexibleCraneParameters, FrictionTable,
                         ProgrammedMotionParameters, SupportParameters)
from ...core.friction import FRICTION_MODELS
from ...core.parameters import ParameterError
from ...integration.integrators import (AUTOMATIC_INTEGRATOR, INTEGRATOR_CODES, INTEGRATOR_DESCRIPTION,
                                       stepper_for_code)
from ...integration.stiffness import model_jacobian, stiffness_estimate

__all__ = ["flexible_crane_spec", "build_model", "PARAMETER_CLASSES", "FMUS"]

AUTOMATIC = AUTOMATIC_INTEGRATOR  # the integrator code of the automatic choice (3)
# DOP853's longest step [s]. Its error estimate assumes a smooth solution; the friction law has kinks (|q̇| in (14),
# at every velocity reversal of a joint, and the column starts from rest), where a long eighth-order step's true
# error is far above the estimate. With the rigid link its steps reach 3 ms and the paper's 10 s leave the 0.1 %
# band (1.2e-3 of range in friction_torque_1 against DOP853 at rtol 1e-10 on a 1 ms grid; rtol 1e-8 does not help:
# 1.9e-3); capped at 3, 2, 1 ms: 9.9e-4, 5.6e-4, 4.4e-5 at 50, 64, 121 evaluations per 10 ms (DP5: 7.0e-4 at 71).
# With elements the accuracy on the element modes holds the step far below it (0.2 ms with 4 elements).
DOP853_FRICTION_STEP = 2e-3

PARAMETER_CLASSES = (FlexibleCraneParameters, SupportParameters, FrictionTable, ProgrammedMotionParameters,
                     FlexibleCraneInitialState)

SETTINGS = [
    # At most 64 elements: each adds 3 coordinates (n = 198 at 64) and the cost grows ~4x per doubling
    # (docs/performance.md, "FlexibleCrane"); the paper uses 4.
    FmuVariable("n_rfe", "", "number of rigid finite elements of link (c,2), eq. (7) (1 = rigid link; paper: 4)",
                4, "integer", low=1, high=64),
    # The link's options (models/flexible_crane/reduction.py, docs/models.md "FlexibleCrane"): 0 = the paper's RFE link.
    FmuVariable("link_modes", "", "modes kept per bending plane of a modally reduced link (c,2) (Craig-Bampton: "
                "2 constraint modes and this many fixed-interface modes per plane, the torsion by 2); 0: the full RFE "
                "link of the paper; at most n_rfe - 3", 0, "integer", low=0, high=61),
    # 0: the paper's undamped link. 0.02 is the value of the real-time runs (welded steel booms: 1-2 %).
    FmuVariable("link_damping_ratio", "", "modal damping ratio of link (c,2): this ratio on every mode of the link "
                "as a cantilever (clamped root, free end), of the reduced link (link_modes > 0) or of the full one "
                "(link_modes 0: the same damping, to compare them); beside sde_damping; 0: undamped (paper)",
                0.0, low=0.0, high=0.99),
    FmuVariable("friction_model", "", "joint friction: 0 none, 1 Dahl, 2 LuGre (eqs. (13)-(15))", 2, "integer",
                low=0, high=2),
    FmuVariable("constraints_enabled", "", "programmed constraints (17), (22) on E on (true) or off", True, "boolean"),
    FmuVariable("paper_torque_enabled", "", "apply the driving torque pulse of eq. (21) (added to the input)",
                True, "boolean"),
    FmuVariable("start_static", "", "start from the static equilibrium at the joint angles (23) instead of the "
                "undeformed state of the paper", False, "boolean"),
    # The paper starts from the undeformed link and supports, and its pulse (21) and the programmed constraints'
    # pull (E starts 0.33 m off its ellipse) act as steps at t = 0: the column alone takes the pulse (1.4e3 rad/s²)
    # and every element mode rings. Here the base and the link start in equilibrium with those loads (a drive and a
    # servo build up over longer than the link's and the supports' periods, 2-30 ms); the programmed constraints,
    # not friction, hold the arm (bristles unloaded, as (23): at rest LuGre/Dahl give no torque, which the static
    # friction cone allows); z_E,s of (22) stays the static analysis with the joints held, as with the default.
    FmuVariable("start_in_equilibrium", "", "start with the base and link (c,2) at rest in equilibrium with the "
                "loads of t = 0 (gravity, the pulse (21), the programmed constraints; their accelerations zero) at "
                "the joint angles and rates (23) instead of undeformed (the paper)", False, "boolean"),
    # Automatic by default (integration/stiffness.py): the paper's undamped crane gets DOP853 -- accuracy, not
    # stability, limits the step (the undamped element and support modes carry a large part of the joint forces
    # and must be followed in phase), and the eighth-order pair needs 1.6-1.8 times fewer evaluations for it than
    # Dormand-Prince 5(4) with elements (1.1 with the rigid link, its step capped at 2 ms: DOP853_FRICTION_STEP),
    # while the Rosenbrock-W stepper would need more at equal accuracy; with damped elements
    # (sde_damping) the high element modes decay and from 16 elements the explicit pair is held by their
    # stability limit alone: then the kernel's Rosenbrock-W stepper (docs/performance.md, "FlexibleCrane").
    FmuVariable("integrator", "", INTEGRATOR_DESCRIPTION + f", {AUTOMATIC} automatic: 1 when the spectrum of the "
                "Jacobian at the start has modes that decay far faster than the fastest one that must be followed "
                "(damped elements), else 4", AUTOMATIC, "integer", low=min(INTEGRATOR_CODES),
                high=max(*INTEGRATOR_CODES, AUTOMATIC)),
    # Fixed-step stepping (integration/rosenbrock.py FixedStepRosenbrockW): the same work every communication step.
    FmuVariable("fixed_step", "s", "0: the integrator above with error control; > 0: ROS34PW2 at this fixed internal "
                "step instead (no error control, rtol/atol unused, the same cost every communication step; L-stable: "
                "a mode of frequency w keeps |R(i w h)| of its amplitude per step, 0.9985 at w h = 0.5, 0.28 at 10)",
                0.0, low=0.0, high=1.0),
    FmuVariable("max_step", "s", "largest internal step inside doStep; with an explicit stepper the model lowers "
                "it to 1.5/omega_max of its stiffest mode (RK23, DP5) or 5.2/omega_max (DOP853) for stability, and "
                "DOP853's to 2 ms (the friction's kinks)", 0.01,
                low=MAX_STEP_LOW, high=1.0),
    # 1e-7: the undamped support and element modes (the paper omits damping) must be followed in phase
    # for the joint normal forces to stay within 0.1 % of the reference over the paper's 10 s; stick-slip
    # makes the run sensitive. Measured with DP5, rigid link, full 10 s: 5.8e-4 of range at 1e-7, 3.5e-3 at
    # 1e-6 (RK23 at 1e-6: 3.5e-2).
    FmuVariable("rtol", "", "relative tolerance of the internal integrator", 1e-7,
                low=1e-12, high=1e-2),
    # 1e-9 for the same reason: the rigid link's normal_force_1 leaves the 0.1 % band at 1e-8 (2.8e-3 of range
    # over 10 s). With elements 1e-8 is enough (8e-5 of range, 19 % fewer evaluations): a user's trade-off.
    FmuVariable("atol", "", "absolute tolerance of the internal integrator (on coordinates [m, rad], rates "
                "[m/s, rad/s] and bristle deflections [rad])", 1e-9, low=1e-15, high=1e-2),
]


def build_model(values: dict) -> tuple:
    """``(model, x0, CoSimulation options)`` from FMU parameter values (defaults for missing ones)."""
    defaults = {v.name: v.start for v in flexible_crane_spec().parameters}
    values = {**defaults, **values}
    code = int(values["friction_model"])
    if code not in FRICTION_MODELS:
        raise ValueError(f"friction_model = {code} must be 0 (none), 1 (Dahl) or 2 (LuGre)")
    init = split_values(values, FlexibleCraneInitialState)
    crane = FlexibleCrane(split_values(values, FlexibleCraneParameters), split_values(values, SupportParameters),
                          split_values(values, FrictionTable), split_values(values, ProgrammedMotionParameters),
                          n_rfe=int(values["n_rfe"]), friction_model=FRICTION_MODELS[code],
                          constraints_enabled=bool(values["constraints_enabled"]),
                          paper_torque_enabled=bool(values["paper_torque_enabled"]), init=init,
                          link_modes=int(values["link_modes"]), link_damping_ratio=float(values["link_damping_ratio"]))
    model = FlexibleCraneModel(crane)
    x0 = initial_state(model, init, bool(values["start_static"]), bool(values["start_in_equilibrium"]))
    fixed = float(values["fixed_step"])
    if fixed > 0.0:
        return model, x0, {"max_step": fixed, "rtol": float(values["rtol"]), "atol": float(values["atol"]),
                           "stepper": "rosenbrock_fixed"}
    stepper = choose_stepper(model, x0, values["integrator"], float(values["rtol"]))
    max_step = float(values["max_step"])
    if stepper != "rosenbrock":  # an explicit stepper's stability limit (statics.stable_step); L-stable: none
        max_step = min(max_step, stable_step(crane, x0[:crane.n_state], stepper))
    if stepper == "dop853":
        max_step = min(max_step, DOP853_FRICTION_STEP)
    return model, x0, {"max_step": max_step, "rtol": float(values["rtol"]), "atol": float(values["atol"]),
                       "stepper": stepper}


def initial_state(model: FlexibleCraneModel, init: FlexibleCraneInitialState, static: bool,
                  equilibrium: bool) -> np.ndarray:
    """``x0`` of the start parameters; a one-line error for the two starts at once or an equilibrium not found."""
    if static and equilibrium:
        raise ParameterError("start_static and start_in_equilibrium are both true: choose one start (the joints "
                             "held, or the elastic coordinates in equilibrium with the loads of t = 0)")
    try:
        return model.initial_state(init, static=static, equilibrium=equilibrium)
    except RuntimeError as e:
        raise ParameterError(f"start_in_equilibrium = true: {e}") from None


def choose_stepper(model: FlexibleCraneModel, x0, code, rtol: float) -> str:
    """The stepper of the ``integrator`` parameter; for the automatic code the stiffness estimate of the
    Jacobian at ``x0`` (``integration.stiffness``) decides between ROS34PW2 and DOP853."""
    if code == AUTOMATIC:
        return stiffness_estimate(model_jacobian(model, 0.0, x0, np.zeros(1)), rtol).stepper
    return stepper_for_code(code)


def flexible_crane_spec() -> FmuSpec:
    params = parameters_from_dataclasses(*(cls() for cls in PARAMETER_CLASSES)) + SETTINGS
    inputs = [FmuVariable(n, u, d, 0.0) for n, u, d in INPUTS]
    outputs = [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None) for n, u, d in OUTPUTS]
    return FmuSpec("FlexibleCrane", "Crane on flexible supports with a flexible link (RFEM), Dahl/LuGre joint "
                   "friction and programmed motion of the end effector (Jarzebowska, Urbas & Augustynek 2019)",
                   params, inputs, outputs, build_model, stop_time=10.0, step_size=0.01)


FMUS = {"FlexibleCrane": flexible_crane_spec}
