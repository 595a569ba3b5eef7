"""The FMUs this project builds, as data: name, variables (with units and ranges) and model factory.

These variable names are a public contract: co-simulation configurations refer to them.
"""
from __future__ import annotations

import dataclasses

from .fmi_adapter import FmuSpec, FmuVariable, parameters_from_dataclasses
from .integrators import INTEGRATOR_DESCRIPTION, stepper_for_code
from .flexible_crane_spec import flexible_crane_spec
from .knuckle_boom import (INPUTS, INTEGER_OUTPUTS, OUTPUTS, KnuckleBoomController, KnuckleBoomInitialState,
                           KnuckleBoomModel, KnuckleBoomParameters)
from .vessel_split_spec import crane_on_moving_base_spec, vessel_spec
from .vessel_crane import (INPUTS as VC_INPUTS, OUTPUTS as VC_OUTPUTS, VesselCraneController,
                           VesselCraneInitialState, VesselCraneModel, VesselCraneParameters)

__all__ = ["knuckle_boom_spec", "vessel_crane_spec", "flexible_crane_spec", "SPECS"]

SOLVER_PARAMETERS = [
    FmuVariable("max_step", "s", "largest internal integration step inside doStep", 0.01, low=0.0, high=1.0,
                low_open=True),
    # 1e-5: the FMU then agrees with the 1e-10 reference to ~1e-5 of each output's range, 100 times inside
    # the 0.1 % validation bound, with about one Runge-Kutta step per 10 ms communication step.
    FmuVariable("rtol", "", "relative tolerance of the internal integrator (Bogacki-Shampine 3(2))", 1e-5,
                low=1e-12, high=1e-2),
]


def integrator_parameter(default: int) -> FmuVariable:
    """The ``integrator`` parameter (codes of :data:`integrators.INTEGRATOR_CODES`)."""
    return FmuVariable("integrator", "", INTEGRATOR_DESCRIPTION, default, "integer")


def solver_options(values: dict, names=("max_step", "rtol")) -> dict:
    """CoSimulation options from the solver parameters of an FMU."""
    options = {name: float(values[name]) for name in names}
    options["stepper"] = stepper_for_code(values["integrator"])
    return options


def _split(values: dict, cls):
    names = [f.name for f in dataclasses.fields(cls)]
    return cls(**{n: float(values[n]) for n in names})


def knuckle_boom_spec() -> FmuSpec:
    init = KnuckleBoomInitialState()
    params = parameters_from_dataclasses(KnuckleBoomParameters(), KnuckleBoomController(), init)
    params.append(FmuVariable("controller_enabled", "", "PD controller with gravity compensation on (true) "
                              "or off (false: efforts are the inputs alone)", True, "boolean"))
    # rtol 1e-4, not the 1e-5 of the other FMUs: the internal step is capped by the communication step,
    # and at 10 ms the FMU agrees with the 1e-10 reference to 1.0e-5 of each output's range for any rtol
    # from 1e-3 to 1e-5 (measured, demo scenario; 9e-9 at 1 ms) -- 100 times inside the 0.1 % bound --
    # while 1e-5 splits a fifth of the 10 ms steps in two for no visible gain.
    # RK23: one step of 3 evaluations spans a communication step of this smooth, well-damped model; DP5
    # would spend 6 for no accuracy the validation can see (measured: README, Performance).
    params += [integrator_parameter(0), SOLVER_PARAMETERS[0], dataclasses.replace(SOLVER_PARAMETERS[1], start=1e-4)]
    # Set-points start at the initial pose, so an unconnected set-point input holds the crane still.
    start = {"q1_ref": init.q1_0, "q2_ref": init.q2_0, "q3_ref": init.q3_0}
    inputs = [FmuVariable(n, u, d, start.get(n, 0.0), display_unit="deg" if u == "rad" else None)
              for n, u, d in INPUTS]
    outputs = [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None) for n, u, d in OUTPUTS]
    outputs += [FmuVariable(n, u, d, 0, "integer") for n, u, d in INTEGER_OUTPUTS]

    def build(values: dict):
        model = KnuckleBoomModel(_split(values, KnuckleBoomParameters), _split(values, KnuckleBoomController),
                                 bool(values["controller_enabled"]))
        x0 = _split(values, KnuckleBoomInitialState).state()
        for k in (2, 3):
            lo, hi = model.crane.params.stroke(k)
            if not lo <= x0[k - 1] <= hi:
                raise ValueError(f"q{k}_0 = {x0[k - 1]!r} m is outside the stroke range [{lo:g}, {hi:g}] m")
        return model, x0, solver_options(values)

    return FmuSpec("KnuckleBoomCrane", "Knuckle boom crane with two hydraulic cylinders and joint reaction "
                   "forces (Cibicik & Egeland 2018)", params, inputs, outputs, build, stop_time=20.0, step_size=0.01)


def _real_variables(table, start: dict) -> list:
    """FMI variables from a ``(name, unit, description)`` table, angles displayed in degrees."""
    return [FmuVariable(n, u, d, start.get(n, 0.0), display_unit="deg" if u == "rad" else None)
            for n, u, d in table]


# The vessel crane FMUs (VesselCrane, CraneOnMovingBase, Vessel) step with Dormand-Prince 5(4) at rtol 1e-5 and
# atol 3e-6 (rad, rad/s): the PD loop (63) answers every set-point jump at a communication point with a fast
# transient (eigenvalue about -140 1/s) and the vessel's undamped roll and pitch must be followed in phase.
# Measured (demo scenario, 10 ms step, largest deviation from the 1e-10 reference as a fraction of range,
# evaluations per step): DP5 atol 3e-6: 5.8e-5, 7.9 -- 17 times inside the 0.1 % bound; DP5 atol 1e-6: 2.2e-5,
# 9.8; RK23 atol 1e-6: 3.2e-4, 11.8; RK23 atol 3e-6: 1.2e-3, outside the bound. At 1 ms RK23 is cheaper (3
# evaluations per step against 6), so integrator = 0 with atol 1e-6 suits masters that step at 1-2 ms.
VESSEL_SOLVER_PARAMETERS = [integrator_parameter(2)] + SOLVER_PARAMETERS + [
    FmuVariable("atol", "", "absolute tolerance of the internal integrator (on angles [rad] and rates [rad/s])",
                3e-6, low=1e-12, high=1e-2)]


def vessel_crane_spec() -> FmuSpec:
    init = VesselCraneInitialState()
    params = parameters_from_dataclasses(VesselCraneParameters(), VesselCraneController(), init)
    params += VESSEL_SOLVER_PARAMETERS
    # Set-points start at the initial crane pose, so unconnected set-point inputs hold the crane.
    inputs = _real_variables(VC_INPUTS, {"q4_ref": init.q4_0, "q5_ref": init.q5_0, "q6_ref": init.q6_0})
    outputs = _real_variables(VC_OUTPUTS, {})

    def build(values: dict):
        model = VesselCraneModel(_split(values, VesselCraneParameters), _split(values, VesselCraneController))
        x0 = _split(values, VesselCraneInitialState).state()
        return model, x0, solver_options(values, ("max_step", "rtol", "atol"))

    return FmuSpec("VesselCrane", "Crane on a moving vessel in one model, with the vessel-crane constraint "
                   "forces by auxiliary generalized speeds (Cibicik & Egeland)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)


SPECS = {"KnuckleBoomCrane": knuckle_boom_spec, "VesselCrane": vessel_crane_spec, "FlexibleCrane": flexible_crane_spec}
SPECS.update({"CraneOnMovingBase": crane_on_moving_base_spec, "Vessel": vessel_spec})
