"""FMUs of the crane on a moving vessel (Cibicik & Egeland): ``VesselCrane`` (vessel and crane in one model) and
the split pair for ship co-simulation, ``CraneOnMovingBase`` and ``Vessel`` (:mod:`.split`). These variable
names are a public contract: co-simulation configurations refer to them."""
from __future__ import annotations

import numpy as np

from ...fmi.spec import (SOLVER_PARAMETERS, FmuSpec, FmuVariable, integrator_parameter, parameters_from_dataclasses,
                         real_variables, solver_options, split_values)
from .crane import (INPUTS as VC_INPUTS, OUTPUTS as VC_OUTPUTS, VesselCraneController, VesselCraneInitialState,
                    VesselCraneModel, VesselCraneParameters)
from ...core.moving_base.interface import MEAN_WRENCH, PREDICTED_WRENCH
from .split import (CRANE_INPUTS, CRANE_OUTPUTS, VESSEL_INPUTS, VESSEL_OUTPUTS, CraneInitialState,
                    CraneOnMovingBaseModel, CraneOnMovingBaseParameters, VesselInitialState, VesselModel,
                    VesselParameters, initial_state)
from ...core.moving_base.interface_inertia import INERTIA_OUTPUTS
from ...core.moving_base.ship import MOUNTING_OUTPUTS
from ..on_ship import MEAN_WRENCH_PARAMETER, mounting_parameters, on_ship

__all__ = ["vessel_crane_spec", "crane_on_moving_base_spec", "vessel_spec", "VESSEL_SOLVER_PARAMETERS", "FMUS",
           "mounting_parameters", "on_ship"]


# The vessel crane FMUs (VesselCrane, CraneOnMovingBase, Vessel) step with Dormand-Prince 5(4) at rtol 1e-5 and
# atol 3e-6 (rad, rad/s): the PD loop (63) answers every set-point jump at a communication point with a fast
# transient (eigenvalue about -140 1/s) and the vessel's undamped roll and pitch must be followed in phase.
# Measured (demo scenario, 10 ms step, largest deviation from the 1e-10 reference as a fraction of range,
# evaluations per step): DP5 atol 3e-6: 5.8e-5, 7.9 -- 17 times inside the 0.1 % bound; DP5 atol 1e-6: 2.2e-5,
# 9.8; RK23 atol 1e-6: 3.2e-4, 11.8; RK23 atol 3e-6: 1.2e-3, outside the bound. At 1 ms RK23 is cheaper (3
# evaluations per step against 6), so integrator = 0 with atol 1e-6 suits masters that step at 1-2 ms.
VESSEL_SOLVER_OPTIONS = ("max_step", "rtol", "atol")
VESSEL_SOLVER_PARAMETERS = [integrator_parameter(2)] + SOLVER_PARAMETERS + [
    FmuVariable("atol", "", "absolute tolerance of the internal integrator (on angles [rad] and rates [rad/s])",
                3e-6, low=1e-12, high=1e-2)]


def vessel_crane_spec() -> FmuSpec:
    init = VesselCraneInitialState()
    params = parameters_from_dataclasses(VesselCraneParameters(), VesselCraneController(), init)
    params += VESSEL_SOLVER_PARAMETERS
    # Set-points start at the initial crane pose, so unconnected set-point inputs hold the crane.
    inputs = real_variables(VC_INPUTS, {"q4_ref": init.q4_0, "q5_ref": init.q5_0, "q6_ref": init.q6_0})
    outputs = real_variables(VC_OUTPUTS, {})

    def build(values: dict):
        model = VesselCraneModel(split_values(values, VesselCraneParameters),
                                 split_values(values, VesselCraneController))
        x0 = split_values(values, VesselCraneInitialState).state()
        return model, x0, solver_options(values, VESSEL_SOLVER_OPTIONS)

    return FmuSpec("VesselCrane", "Crane on a moving vessel in one model, with the vessel-crane constraint "
                   "forces by auxiliary generalized speeds (Cibicik & Egeland)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)


def crane_on_moving_base_spec() -> FmuSpec:
    init = CraneInitialState()
    params = parameters_from_dataclasses(CraneOnMovingBaseParameters(), VesselCraneController(), init)
    params += list(VESSEL_SOLVER_PARAMETERS) + mounting_parameters()
    params.append(MEAN_WRENCH_PARAMETER)
    # Set-points start at the initial crane pose (unconnected, they hold the crane); the base starts at rest.
    inputs = real_variables(CRANE_INPUTS, {"q4_ref": init.q4_0, "q5_ref": init.q5_0, "q6_ref": init.q6_0})
    outputs = real_variables(tuple(CRANE_OUTPUTS) + tuple(MEAN_WRENCH) + tuple(MOUNTING_OUTPUTS)
                             + tuple(PREDICTED_WRENCH), {})  # new last: the other variables keep their numbers

    def build(values: dict):
        mean = bool(values["mean_wrench_outputs"])
        model = CraneOnMovingBaseModel(split_values(values, CraneOnMovingBaseParameters),
                                       split_values(values, VesselCraneController), bool(values["inertia_outputs"]),
                                       mean)
        x0 = initial_state(split_values(values, CraneInitialState), "456")
        return (on_ship(model, values), np.concatenate((x0, np.zeros(model.state_size - 6))),
                solver_options(values, VESSEL_SOLVER_OPTIONS))

    return FmuSpec("CraneOnMovingBase", "Three-link crane on a moving base (vessel motion in, interface wrench "
                   "on the vessel out; Cibicik & Egeland, section III)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)


def vessel_spec() -> FmuSpec:
    params = parameters_from_dataclasses(VesselParameters(), VesselInitialState()) + list(VESSEL_SOLVER_PARAMETERS)
    # The crane's interface inertia A (0: none): with it the wrench inputs are the crane's W0 and the vessel
    # takes W = W0 - A a into its own solve (core.moving_base.interface_inertia).
    inertia = [(name, unit, f"crane's interface inertia as input: {text.split(': ', 1)[1]}")
               for name, unit, text in INERTIA_OUTPUTS]
    inputs = real_variables(tuple(VESSEL_INPUTS) + tuple(inertia), {})
    outputs = real_variables(VESSEL_OUTPUTS, {})

    def build(values: dict):
        model = VesselModel(split_values(values, VesselParameters))
        return model, initial_state(split_values(values, VesselInitialState), "123"), solver_options(values, VESSEL_SOLVER_OPTIONS)

    return FmuSpec("Vessel", "Vessel on cubic roll, pitch and yaw springs under an external wrench at the crane "
                   "base (Cibicik & Egeland, section III)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)


FMUS = {"VesselCrane": vessel_crane_spec, "CraneOnMovingBase": crane_on_moving_base_spec, "Vessel": vessel_spec}
