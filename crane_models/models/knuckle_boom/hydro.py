"""The payload in the water (issue 37): :mod:`core.hydro`'s forces on the knuckle boom crane's payload, fixed base
(:class:`KnuckleBoomHydroPayloadModel`) and moving base (:class:`KnuckleBoomOnMovingBaseHydroPayloadModel`), in the
sea of the sea-state parameters (:mod:`models.at_sea`: the same components and seed as the vessel's).

The payload is a box, vertical cylinder or sphere (``payload_shape``) whose **centre** is the point mass of
:mod:`core.payload` (``payload_x|y|z``, where the wire is attached): its bottom is ``payload_size_z / 2`` below it
(a sphere's: half its diameter). Where the payload is in the sea frame (z up from the still water level):

* fixed base: Frame 0 shifted down by ``water_level`` (``z_sea = z − water_level``; x and y as Frame 0's);
* moving base: Frame 0 is an inertial frame that the model puts at the crane base point P, at rest, at every
  communication point (:meth:`KnuckleBoomOnMovingBaseModel.impose_inputs`); its axes are the sea frame's (yaw is
  the vessel's heading from the mean heading). The payload is at ``P + p`` and moves at ``V_P + v``, with P from the
  new inputs ``base_position_*`` (the vessel's reference point O, turned to P by the mounting) and ``V_P`` the base
  point's velocity from ``base_velocity_*``, both held over the step: the frame's own drift ``V_P τ`` inside a step
  (1 cm at 1 m/s over 10 ms) is not added to the position, which the next communication point corrects.

The same classes carry the winch's active heave compensation (:mod:`.ahc`, ``ahc_enabled``): its states follow
the payload model's. Its motion reference unit gives the crane tip's vertical velocity in the sea frame **as the
vessel carries it** (the vessel's motion at the tip through the crane's geometry, as heave compensators compute it
from an MRU on the hull): the booms' own deflection under the hook load is not fed back -- with it in the loop the
20 t lift of :mod:`analysis.splash_lift` on the stiffened crane rang and went slack for 44 s. On the fixed base the
tip is carried by nothing: the AHC then holds the winch at the operator's speed.

With hydrodynamics or heave compensation on, the steps run in Python (``compiled`` and ``kernel_step_parts`` are None: the kernel's
payload knows no water); the crane's own derivative is still the kernel's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.hydro import PayloadBody, body_of, default_cd, hydro_forces, load_acceleration, water_at_payload
from ...core.native.outputs import OutputWriters, kernel_writer
from ...core.parameters import param, validate
from ...core.screws import rot_x, rot_y, rot_z
from ...core.payload import winch_rate
from .ahc import AHC_STATES, HeaveCompensation
from .payload import KnuckleBoomPayloadModel
from ...core.moving_base.euler import euler_rate_matrix
from .payload_moving_base import KnuckleBoomOnMovingBasePayloadModel, _L, _LOAD, _LOAD_V, _N
from .splash_names import HYDRO_OUTPUTS

__all__ = ["HydroParameters", "HydroLoad", "KnuckleBoomSplashPayloadModel", "KnuckleBoomOnMovingBaseSplashPayloadModel"]

_POS = dict(low=0.0, low_open=True)


@dataclass
class HydroParameters:
    """The payload's shape and the water (with ``hydro_enabled``). Defaults: a 2 m cube in sea water."""

    payload_shape: int = param(0, "", "payload shape in the water: 0 box (edges payload_size_x|y|z), 1 vertical "
                               "cylinder (diameter payload_size_x, height payload_size_z), 2 sphere (diameter "
                               "payload_size_x)", 0, 2, kind="integer")
    payload_size_x: float = param(2.0, "m", "payload size x: box edge, cylinder or sphere diameter", **_POS)
    payload_size_y: float = param(2.0, "m", "payload size y: box edge (unused for a cylinder or sphere)", **_POS)
    payload_size_z: float = param(2.0, "m", "payload size z: box or cylinder height (unused for a sphere)", **_POS)
    payload_cd: float = param(-1.0, "", "drag coefficient C_D of the payload, vertical and horizontal; negative: the "
                              "shape's steady-flow value (box 1.05, cylinder 1.0, sphere 0.5; DNV-RP-N103 asks "
                              "C_D >= 2.5 for complex subsea modules in waves)", -1.0, 100.0)
    water_level: float = param(0.0, "m", "height of the still water surface in the frame in which payload_z is "
                               "given (fixed base: Frame 0; moving base: unused, the sea frame comes from "
                               "base_position_*)", -1.0e4, 1.0e4)
    water_density: float = param(1025.0, "kg/m3", "density rho of the water", 1.0, 2000.0)

    def body(self) -> PayloadBody:
        return body_of(int(self.payload_shape), (self.payload_size_x, self.payload_size_y, self.payload_size_z),
                       float(self.water_density))

    def cd(self) -> float:
        return default_cd(int(self.payload_shape)) if self.payload_cd < 0.0 else float(self.payload_cd)


class HydroLoad:
    """The water's force on one payload (``body``, ``cd``) in the sea of ``components`` (:mod:`core.sea`)."""

    def __init__(self, body: PayloadBody, cd: float, components, g: float):
        self.body, self.cd, self.components, self.g = body, float(cd), components, float(g)

    @classmethod
    def of(cls, parameters: HydroParameters, components, g: float) -> "HydroLoad":
        validate(parameters)
        return cls(parameters.body(), parameters.cd(), components, g)

    def forces(self, t: float, centre: np.ndarray, velocity: np.ndarray):
        """:class:`core.hydro.HydroForces` on the payload centred at ``centre`` moving at ``velocity`` (sea frame)."""
        bottom = float(centre[2]) - 0.5 * self.body.height
        water = water_at_payload(self.components, t, float(centre[0]), float(centre[1]), bottom, self.body.height)
        return hydro_forces(self.body, water, bottom, velocity, self.cd, self.g)

    def accelerate(self, acc: np.ndarray, mass: float, forces) -> np.ndarray:
        """The load's acceleration with the water: ``acc`` was ``F_other / m`` (wire, deck, gravity)."""
        return load_acceleration(mass * np.asarray(acc, dtype=float), mass, forces)

    def static_weight(self, mass: float, centre_z: float) -> float:
        """W0 = (m − ρ V(h0)) g: the weight in still water at the payload's level (h0 against the still water)."""
        h0 = min(max(-(centre_z - 0.5 * self.body.height), 0.0), self.body.height)
        return (mass - self.body.density * self.body.volume(h0)) * self.g

    def values(self, forces, acc_z: float, tension: float, mass: float, centre_z: float) -> dict:
        """The outputs of :data:`.splash_names.HYDRO_OUTPUTS`; the hydro force with the added-mass inertia
        ``−A33 ẍ_z``."""
        weight = self.static_weight(mass, centre_z)
        margin = 1.0 - (weight - tension) / (0.9 * weight) if weight > 0.0 else -1.0
        f = forces.explicit
        values = (forces.submergence, forces.buoyancy, f[0], f[1], f[2] - forces.added_mass * acc_z,
                  forces.elevation, margin)
        return {name: float(v) for (name, _, _), v in zip(HYDRO_OUTPUTS, values)}


class KnuckleBoomSplashPayloadModel(KnuckleBoomPayloadModel):
    """:class:`KnuckleBoomPayloadModel` with the water's force on the load (``hydro``, Frame 0's ``z = water_level``
    the still water surface) and/or the heave compensation (``ahc``, its states after the payload's). ``aux`` gains
    an entry: ``(HydroForces or None, ẍ_z)``."""

    update_inputs = None  # the water and the AHC are Python's: an evaluation afresh for new inputs

    def __init__(self, crane_model, payload=None, deck_enabled: bool = False, hydro: HydroLoad | None = None,
                 water_level: float = 0.0, ahc: HeaveCompensation | None = None):
        super().__init__(crane_model, payload, deck_enabled)
        self.hydro, self.water_level, self.ahc = hydro, float(water_level), ahc
        self._n = self.state_size
        self.state_size = self._n + (AHC_STATES if ahc is not None else 0)
        self.write_outputs = OutputWriters(self._splash_writer)

    def initial_state(self, crane_x0: np.ndarray) -> np.ndarray:
        x = super().initial_state(crane_x0)
        if self.ahc is None:
            return x
        tip = self._tip(self.crane.system.kinematics(x[:3], x[3:6]))[0]
        return np.concatenate((x, self.ahc.seeded(self.ahc.initial(), float(tip[2]), float(x[8]))))

    def _sea(self, p: np.ndarray) -> np.ndarray:
        return np.array([p[0], p[1], p[2] - self.water_level])

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        n = self._n
        xdot, (kin, udot, force, tension, tip, contact) = self.reference_derivative(t, x[:n], inputs)
        # Python floats, as a state read back from its bytes has them (CoSimulation.state_problem compares the types)
        aux = (kin, udot, force, float(tension), tip, float(contact))
        self._indicators = (np.array(x, dtype=float), self._indicators[1])  # of the whole state
        forces = None
        if self.hydro is not None:
            forces = self.hydro.forces(t, self._sea(x[6:9]), x[9:12])
            xdot[9:12] = self.hydro.accelerate(xdot[9:12], self.mass, forces)
        if self.ahc is not None:
            tip = self._tip(aux[0])[0]  # carried by nothing: the fixed base does not heave
            rates, speed = self.ahc.rates(x[n:], float(tip[2]), 0.0, float(x[8]), float(inputs[6]))
            xdot[12] = winch_rate(float(x[12]), speed, self.winch)
            xdot = np.concatenate((xdot, rates))
        return xdot, (*aux, (forces, float(xdot[11])))

    def compiled(self, t: float, inputs: np.ndarray):
        return None

    def kernel_step_parts(self, names: tuple):
        return None

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        out = super().outputs(t, x, inputs, aux[:6])
        forces, acc_z = aux[6]
        if forces is not None:
            out.update(self.hydro.values(forces, acc_z, aux[3], self.mass, float(x[8]) - self.water_level))
        if self.ahc is not None:
            out["ahc_heave_reduction"] = self.ahc.reduction(x[self._n:])
        return out

    def _splash_writer(self, names: tuple):
        return kernel_writer(None, names, {}, lambda x, inputs, aux: self.outputs(0.0, x, inputs, aux), None)


class KnuckleBoomOnMovingBaseSplashPayloadModel(KnuckleBoomOnMovingBasePayloadModel):
    """:class:`KnuckleBoomOnMovingBasePayloadModel` with the water's force on the load and/or the heave compensation
    (module docstring); its inputs end with ``base_position_x|y|z`` (the crane base point P in the sea frame, after
    the mounting)."""

    def __init__(self, crane_model, payload=None, deck_enabled: bool = False, hydro: HydroLoad | None = None,
                 ahc: HeaveCompensation | None = None):
        super().__init__(crane_model, payload, deck_enabled)
        self.hydro, self.ahc = hydro, ahc
        self._seed, self._t_start = False, None
        self._n = self.state_size  # the AHC's states after the payload's and the step integrals
        self.state_size = self._n + (AHC_STATES if ahc is not None else 0)
        self._velocity_at = len(crane_model.input_names) - 3  # base_velocity_* (base frame), the crane's last inputs

    def initial_state(self, crane_x0: np.ndarray, inputs: np.ndarray | None = None) -> np.ndarray:
        x = super().initial_state(crane_x0, inputs)
        if self.ahc is None:
            return x
        # the heave monitors' means: at the positions of the inputs in force when the run starts (impose_inputs),
        # seeded again at each input change until the integration has left the start time
        self._seed, self._t_start = True, None
        return np.concatenate((x, self.ahc.initial()))

    def impose_inputs(self, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        out = super().impose_inputs(x, inputs)
        if self.ahc is not None and self._seed:
            origin, _ = self.frame_in_sea(inputs)
            kin = self.crane.system.kinematics(out[:9], out[9:18])
            tip = self._tip(kin)[0]
            out = np.array(out, dtype=float)
            out[self._n:] = self.ahc.seeded(out[self._n:], float(origin[2] + tip[2]),
                                            float(origin[2] + out[_LOAD][2]))
        return out

    def frame_in_sea(self, inputs: np.ndarray) -> tuple:
        """``(P, V_P)``: Frame 0's origin (the base point at the communication point) and its velocity in the sea
        frame, from the inputs (``base_velocity_*`` is in the base frame: turned by the base's attitude)."""
        angles = self.base.base_motion(inputs[:self._winch_at])[0]
        a0, a1, a2 = (float(a) for a in angles)
        R = rot_z(a2) @ rot_y(a1) @ rot_x(a0)
        at = self._velocity_at
        return inputs[self.position_at:self.position_at + 3], R @ inputs[at:at + 3]

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        if self.ahc is not None and self._seed:
            self._t_start = t if self._t_start is None else self._t_start
            self._seed = t == self._t_start
        xdot, aux = super().derivative(t, x, inputs)
        origin, velocity = self.frame_in_sea(inputs)
        forces = None
        if self.hydro is not None:
            forces = self.hydro.forces(t, origin + x[_LOAD], velocity + x[_LOAD_V])
            xdot[_LOAD_V] = self.hydro.accelerate(xdot[_LOAD_V], self.mass, forces)
        if self.ahc is not None:
            tip = self._tip(aux[0])[0]
            rates, speed = self.ahc.rates(x[self._n:], float(origin[2] + tip[2]),
                                          float(velocity[2] + self._carried_velocity(aux[0], x, tip)[2]),
                                          float(origin[2] + x[_LOAD][2]), float(inputs[self._winch_at]))
            xdot[_L] = winch_rate(float(x[_L]), speed, self.winch)
            xdot = np.concatenate((xdot, rates))
        return xdot, (*aux, (forces, float(xdot[_LOAD_V][2])))

    def _carried_velocity(self, kin, x: np.ndarray, point: np.ndarray) -> np.ndarray:
        """The velocity (Frame 0) that ``point`` would have if it were fixed to the vessel: the base point's plus
        ω × r, from the base's rates (the kernel leaves the Jacobians of the massless base bodies zero)."""
        b = self.base._base
        omega = kin.rotation[b] @ (euler_rate_matrix(float(x[3]), float(x[4])) @ x[_N + 3:_N + 6])
        return x[_N + 6:_N + 9] + np.cross(omega, point - kin.origin[b])

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        out = super().outputs(t, x, inputs, aux[:6])
        forces, acc_z = aux[6]
        if forces is not None:
            origin, _ = self.frame_in_sea(inputs)
            out.update(self.hydro.values(forces, acc_z, aux[3], self.mass, float(origin[2] + x[_LOAD][2])))
        if self.ahc is not None:
            out["ahc_heave_reduction"] = self.ahc.reduction(x[self._n:])
        return out
