"""FMUs ``KnuckleBoomCrane`` and ``KnuckleBoomCraneOnMovingBase``: their variables and model factory. These variable names are a public contract:
co-simulation configurations refer to them."""
from __future__ import annotations

import dataclasses

import numpy as np

from ...fmi.spec import (SOLVER_PARAMETERS, FmuSpec, FmuVariable, integrator_parameter, parameters_from_dataclasses,
                         solver_options, split_values)
from .crane import (INPUTS, INTEGER_OUTPUTS, OUTPUTS, KnuckleBoomController, KnuckleBoomInitialState,
                    KnuckleBoomModel, KnuckleBoomParameters)
from ...core.moving_base.ship import MOUNTING_OUTPUTS
from ...core.moving_base.interface import MEAN_WRENCH, PREDICTED_WRENCH
from ..on_ship import MEAN_WRENCH_PARAMETER, mounting_parameters, on_ship
from .payload import (PAYLOAD_BOOLEAN_OUTPUTS, PAYLOAD_INPUTS, PAYLOAD_OUTPUTS, CraneWithoutPayload,
                      KnuckleBoomPayloadModel, PayloadParameters)
from .payload_moving_base import KnuckleBoomOnMovingBasePayloadModel
from .hydro import (HydroLoad, HydroParameters, KnuckleBoomOnMovingBaseSplashPayloadModel,
                    KnuckleBoomSplashPayloadModel)
from .ahc import AhcParameters, HeaveCompensation
from .splash_names import POSITION_INPUTS, SPLASH_OUTPUTS
from ..at_sea import components_from, sea_parameters
from .moving_base import INPUTS as MB_INPUTS, OUTPUTS as MB_OUTPUTS, KnuckleBoomOnMovingBaseModel

__all__ = ["knuckle_boom_spec", "knuckle_boom_on_moving_base_spec", "FMUS"]


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
    # would spend 6 for no accuracy the validation can see (measured: docs/performance.md).
    params += [integrator_parameter(0), SOLVER_PARAMETERS[0], dataclasses.replace(SOLVER_PARAMETERS[1], start=1e-4)]
    payload = payload_parameters()
    # Set-points start at the initial pose, so an unconnected set-point input holds the crane still.
    start = {"q1_ref": init.q1_0, "q2_ref": init.q2_0, "q3_ref": init.q3_0}
    inputs = [FmuVariable(n, u, d, start.get(n, 0.0), display_unit="deg" if u == "rad" else None,
                          expected_range=SET_POINT_RANGES.get(n, ())) for n, u, d in INPUTS]
    outputs = [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None) for n, u, d in OUTPUTS]
    outputs += [FmuVariable(n, u, d, 0, "integer") for n, u, d in INTEGER_OUTPUTS]
    inputs += [FmuVariable(n, u, d, 0.0) for n, u, d in PAYLOAD_INPUTS]
    outputs += [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None) for n, u, d in PAYLOAD_OUTPUTS]
    outputs += [FmuVariable(n, u, d, False, "boolean") for n, u, d in PAYLOAD_BOOLEAN_OUTPUTS]
    outputs += [FmuVariable(n, u, d, 0.0) for n, u, d in SPLASH_OUTPUTS]  # last: the others keep their places

    def build(values: dict):
        model = KnuckleBoomModel(split_values(values, KnuckleBoomParameters), split_values(values, KnuckleBoomController),
                                 bool(values["controller_enabled"]))
        x0 = split_values(values, KnuckleBoomInitialState).state()
        _check_stroke(model.crane, x0)
        if not values["payload_enabled"]:
            _check_splash_needs_payload(values)
            return CraneWithoutPayload(model), x0, solver_options(values)
        if values["hydro_enabled"] or values["ahc_enabled"]:
            hydro, ahc = splash_parts(values, model)
            with_payload = KnuckleBoomSplashPayloadModel(model, split_values(values, PayloadParameters),
                                                         bool(values["deck_enabled"]), hydro,
                                                         float(values["water_level"]), ahc)
        else:
            with_payload = KnuckleBoomPayloadModel(model, split_values(values, PayloadParameters),
                                                   bool(values["deck_enabled"]))
        return with_payload, with_payload.initial_state(x0), solver_options(values)

    return FmuSpec("KnuckleBoomCrane", "Knuckle boom crane with two hydraulic cylinders and joint reaction "
                   "forces (Cibicik & Egeland 2018), optionally a payload on a hoisting wire with a winch",
                   params + payload + splash_parameters(), inputs, outputs, build, stop_time=20.0, step_size=0.01)


def splash_parameters() -> list:
    """The payload in the water (issue 37): ``hydro_enabled`` (default off: the payload exactly as without it), the
    payload's shape and the water, the sea (:mod:`models.at_sea`)."""
    return ([FmuVariable("hydro_enabled", "", "the water's forces on the payload (buoyancy, added mass, slamming, "
                         "drag, wave forces; needs payload_enabled) on (true) or none (false)", False, "boolean")]
            + parameters_from_dataclasses(HydroParameters()) + sea_parameters()
            + [FmuVariable("ahc_enabled", "", "active heave compensation of the winch (needs payload_enabled): a motion "
                           "reference unit at the crane tip drives the winch to cancel the tip's vertical motion in "
                           "the sea frame", False, "boolean")] + parameters_from_dataclasses(AhcParameters()))


def splash_parts(values: dict, model) -> tuple:
    """``(HydroLoad or None, HeaveCompensation or None)`` of ``hydro_enabled`` and ``ahc_enabled``."""
    hydro = None
    if values["hydro_enabled"]:
        hydro = HydroLoad.of(split_values(values, HydroParameters), components_from(values), model.crane.params.g)
    ahc = None
    if values["ahc_enabled"]:
        ahc = HeaveCompensation(split_values(values, AhcParameters), float(values["winch_speed_max"]))
    return hydro, ahc


def _check_splash_needs_payload(values: dict) -> None:
    for name in ("hydro_enabled", "ahc_enabled"):
        if values.get(name):
            raise ValueError(f"{name} = true needs payload_enabled = true (the water acts on the payload)")


def payload_parameters() -> list:
    """``payload_enabled`` (default off: the crane exactly as without this option) and the payload's parameters."""
    return [FmuVariable("payload_enabled", "", "payload on a hoisting wire at the crane tip (true) or none (false)",
                        False, "boolean"),
            FmuVariable("deck_enabled", "", "a compliant deck under the payload (true; deck_height, deck_stiffness, "
                        "deck_damping) or none (false)", False, "boolean")] + parameters_from_dataclasses(PayloadParameters())


# The cylinders' set-points within their strokes (the parameters of parameters.KnuckleBoomParameters): beyond, the
# end stop holds the cylinder and the FMU warns (fmi/input_ranges.py).
SET_POINT_RANGES = {"q2_ref": ("q2_min", "q2_max"), "q3_ref": ("q3_min", "q3_max")}


def knuckle_boom_on_moving_base_spec() -> FmuSpec:
    """The same crane, parameters and solver settings on a base whose motion is an input (:mod:`.moving_base`)."""
    fixed = knuckle_boom_spec()
    inputs = [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None) for n, u, d in MB_INPUTS]
    inputs = [dataclasses.replace(v, start=s.start, expected_range=s.expected_range)
              if (s := _by_name(fixed.inputs, v.name)) else v for v in inputs]
    outputs = [FmuVariable(n, u, d, 0.0, display_unit="deg" if u == "rad" else None)
               for n, u, d in tuple(MB_OUTPUTS) + tuple(MOUNTING_OUTPUTS)]
    outputs += [FmuVariable(n, u, d, 0, "integer") for n, u, d in INTEGER_OUTPUTS]
    inputs += [FmuVariable(n, u, d, 0.0) for n, u, d in PAYLOAD_INPUTS]
    outputs += [FmuVariable(n, u, _in_base_frame(d), 0.0, display_unit="deg" if u == "rad" else None)
                for n, u, d in PAYLOAD_OUTPUTS]
    outputs += [FmuVariable(n, u, d, False, "boolean") for n, u, d in PAYLOAD_BOOLEAN_OUTPUTS]
    # last: the other variables keep their numbers
    outputs += [FmuVariable(n, u, d, 0.0) for n, u, d in tuple(MEAN_WRENCH) + tuple(PREDICTED_WRENCH)]
    inputs += [FmuVariable(n, u, d, 0.0) for n, u, d in POSITION_INPUTS]  # issue 37, last
    outputs += [FmuVariable(n, u, d, 0.0) for n, u, d in SPLASH_OUTPUTS]
    position_names = tuple(n for n, _, _ in POSITION_INPUTS)

    def build(values: dict):
        model = KnuckleBoomOnMovingBaseModel(split_values(values, KnuckleBoomParameters),
                                             split_values(values, KnuckleBoomController),
                                             bool(values["controller_enabled"]), bool(values["inertia_outputs"]),
                                             bool(values["mean_wrench_outputs"]))
        crane_x0 = split_values(values, KnuckleBoomInitialState).state()
        _check_stroke(model.crane, crane_x0)
        x0 = np.zeros(model.state_size)  # the step integrals of the step-mean wrench at zero
        x0[:3], x0[9:12] = crane_x0[:3], crane_x0[3:]
        if not values["payload_enabled"]:
            _check_splash_needs_payload(values)
            return on_ship(CraneWithoutPayload(model, position_names), values), x0, solver_options(values)
        if values["hydro_enabled"] or values["ahc_enabled"]:
            with_payload = KnuckleBoomOnMovingBaseSplashPayloadModel(
                model, split_values(values, PayloadParameters), bool(values["deck_enabled"]),
                *splash_parts(values, model))
        else:
            with_payload = KnuckleBoomOnMovingBasePayloadModel(model, split_values(values, PayloadParameters),
                                                               bool(values["deck_enabled"]))
        return on_ship(with_payload, values), with_payload.initial_state(x0), solver_options(values)

    return FmuSpec("KnuckleBoomCraneOnMovingBase", "Knuckle boom crane (Cibicik & Egeland 2018) on a moving base: "
                   "base motion in, the wrench on the vessel out by auxiliary generalized speeds (Cibicik & "
                   "Egeland, moving base)", _moved_last(fixed.parameters + mounting_parameters() + [MEAN_WRENCH_PARAMETER],
                                                     {v.name for v in splash_parameters()}), inputs,
                   outputs, build, stop_time=20.0, step_size=0.01)


def _moved_last(variables: list, names: set) -> list:
    """``variables`` with those named in ``names`` moved to the end (in their order): the parameters added last."""
    return [v for v in variables if v.name not in names] + [v for v in variables if v.name in names]


def _in_base_frame(description: str) -> str:
    """Payload position and velocity: relative to the crane base point, in the base frame, on the moving base."""
    return description.replace("in Frame 0", "relative to the crane base point, base frame")


def _by_name(variables: list, name: str):
    return next((v for v in variables if v.name == name), None)


def _check_stroke(crane, x0) -> None:
    for k in (2, 3):
        lo, hi = crane.params.stroke(k)
        if not lo <= x0[k - 1] <= hi:
            raise ValueError(f"q{k}_0 = {x0[k - 1]!r} m is outside the stroke range [{lo:g}, {hi:g}] m")


FMUS = {"KnuckleBoomCrane": knuckle_boom_spec, "KnuckleBoomCraneOnMovingBase": knuckle_boom_on_moving_base_spec}
