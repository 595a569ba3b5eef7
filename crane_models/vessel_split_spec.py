"""FMUs ``CraneOnMovingBase`` and ``Vessel``: the vessel crane split for ship co-simulation
(:mod:`vessel_split`), registered in :data:`fmu_specs.SPECS`."""
from __future__ import annotations

from .fmi_adapter import FmuSpec, FmuVariable, parameters_from_dataclasses
from .vessel_crane import VesselCraneController
from .vessel_split import (CRANE_INPUTS, CRANE_OUTPUTS, VESSEL_INPUTS, VESSEL_OUTPUTS, CraneInitialState,
                           CraneOnMovingBaseModel, CraneOnMovingBaseParameters, VesselInitialState, VesselModel,
                           VesselParameters, initial_state)

__all__ = ["crane_on_moving_base_spec", "vessel_spec"]

def _solver_parameters() -> list:
    from .fmu_specs import VESSEL_SOLVER_PARAMETERS  # fmu_specs imports this module

    return list(VESSEL_SOLVER_PARAMETERS)


def _variables(table, start: dict) -> list:
    from .fmu_specs import _real_variables

    return _real_variables(table, start)


def _options(values: dict) -> dict:
    from .fmu_specs import solver_options

    return solver_options(values, ("max_step", "rtol", "atol"))


def crane_on_moving_base_spec() -> FmuSpec:
    from .fmu_specs import _split

    init = CraneInitialState()
    params = parameters_from_dataclasses(CraneOnMovingBaseParameters(), VesselCraneController(), init)
    params += _solver_parameters()
    # Set-points start at the initial crane pose (unconnected, they hold the crane); the base starts at rest.
    inputs = _variables(CRANE_INPUTS, {"q4_ref": init.q4_0, "q5_ref": init.q5_0, "q6_ref": init.q6_0})
    outputs = _variables(CRANE_OUTPUTS, {})

    def build(values: dict):
        model = CraneOnMovingBaseModel(_split(values, CraneOnMovingBaseParameters), _split(values, VesselCraneController))
        return model, initial_state(_split(values, CraneInitialState), "456"), _options(values)

    return FmuSpec("CraneOnMovingBase", "Three-link crane on a moving base (vessel motion in, interface wrench "
                   "on the vessel out; Cibicik & Egeland, section III)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)


def vessel_spec() -> FmuSpec:
    from .fmu_specs import _split

    params = parameters_from_dataclasses(VesselParameters(), VesselInitialState()) + _solver_parameters()
    inputs = _variables(VESSEL_INPUTS, {})
    outputs = _variables(VESSEL_OUTPUTS, {})

    def build(values: dict):
        model = VesselModel(_split(values, VesselParameters))
        return model, initial_state(_split(values, VesselInitialState), "123"), _options(values)

    return FmuSpec("Vessel", "Vessel on cubic roll, pitch and yaw springs under an external wrench at the crane "
                   "base (Cibicik & Egeland, section III)", params, inputs, outputs, build,
                   stop_time=20.0, step_size=0.01)
