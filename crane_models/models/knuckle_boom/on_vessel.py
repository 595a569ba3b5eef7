"""The monolithic reference of :mod:`.moving_base`: the knuckle boom crane and a vessel in one body tree (as
``VesselCrane`` is for ``CraneOnMovingBase``).

The vessel is Body 1 of the moving-base paper (Cibicik & Egeland, §III): it turns about the origin of Frame 0
with ``R^0_1 = R_z(q6) R_y(q5) R_x(q4)`` (53) on the cubic springs ``T_si = −k_i q_i³`` of §III-D, its COG
``d1`` below the rotation centre (:func:`core.moving_base.base_chain.vessel_bodies`); the king stands at ``[0, 0, l1]`` in Frame 1.
Coordinates ``q1 … q3`` are the crane's (as the fixed crane), ``q4 … q6`` roll, pitch, yaw.

Its equations are solved here in numpy with the full mass matrix -- no prescribed coordinates, no kernel law --
so that it is an independent check of the split model: fed with this vessel's motion, the crane on a moving
base must reproduce the crane's motion and the constraint wrench of the king joint.
"""
from __future__ import annotations

import numpy as np

from ...core.constraint_forces import AuxiliarySpeeds
from ...core.effort_laws import cubic_springs
from ...core.kane import Kinematics, skew_stack
from ...core.moving_base.base_chain import vessel_bodies
from ...core.parameters import validate
from ...core.springs import cross
from .crane import INPUTS, KnuckleBoomController, KnuckleBoomCrane, KnuckleBoomParameters, crane_effort_law
from .moving_base import KING_CUT

__all__ = ["KnuckleBoomOnVesselModel"]


class KnuckleBoomOnVesselModel:
    """Vessel and knuckle boom crane in one tree; state ``x = [q1 … q6, u1 … u6]``, the crane's six inputs.
    ``vessel``: the vessel's parameters (``l1, d1, m1, k1, k2, k3``), e.g. ``vessel_crane.vessels.knuckle_boom_vessel()``
    -- given by the caller, so that this crane's package needs nothing of the vessel crane's."""

    input_names = [name for name, _, _ in INPUTS]
    state_size = 12

    def __init__(self, vessel, params: KnuckleBoomParameters | None = None,
                 controller: KnuckleBoomController | None = None):
        self.vessel = v = vessel
        validate(v)
        self.crane = KnuckleBoomCrane(params, tuple(vessel_bodies(v, first=3)), 6, mount=(0.0, 0.0, v.l1))
        self.system = self.crane.system
        self.controller = controller if controller is not None else KnuckleBoomController()
        self._law = crane_effort_law(self.crane, self.controller, True)
        self._springs = cubic_springs([v.k1, v.k2, v.k3])
        self.interface = AuxiliarySpeeds(self.system, KING_CUT)
        self._vessel, self._king = self.system.index["vessel"], self.system.index["king"]
        self._base = np.array([0.0, 0.0, v.l1])  # crane base point in Frame 1

    def evaluate(self, x: np.ndarray, inputs: np.ndarray) -> tuple:
        """``(kin, u̇, efforts)``: (43) with gravity, the crane's controller law and the vessel springs."""
        kin = self.system.kinematics(x[:6], x[6:])
        gravity = self.system.gravity_forces(kin, self.crane.params.g)
        efforts = np.concatenate((self._law.efforts(x[:3], x[6:9], inputs, gravity[:3]),
                                  self._springs.efforts(x[3:6], x[9:12], np.zeros(0))))
        udot, _, _ = self.system.accelerations(kin, gravity + efforts)
        return kin, udot, efforts

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        kin, udot, efforts = self.evaluate(x, inputs)
        return np.concatenate((x[6:], udot)), (kin, udot, efforts)

    def base_motion(self, kin: Kinematics, udot: np.ndarray) -> dict:
        """The motion inputs of the crane on a moving base: angles, ``ω`` and ``ω̇`` (Frame 1) and the
        acceleration of the crane base point, which turns about the fixed rotation centre:
        ``a = ω̇ × r + ω × (ω × r)``, ``r = [0, 0, l1]`` (Frame 1)."""
        b = self._vessel
        omega = kin.twist[b, :3]
        alpha = self.system.body_accelerations(kin, udot)[b, :3]
        wx = skew_stack(omega[None])[0]
        acc = cross(alpha, self._base) + wx @ (wx @ self._base)
        return {"angles": kin.q[3:6].copy(), "angular_velocity": omega, "angular_acceleration": alpha,
                "base_acceleration": acc}

    def motion_inputs(self, kin: Kinematics, udot: np.ndarray) -> np.ndarray:
        """:meth:`base_motion` in the order of the moving-base model's motion inputs (base velocity 0)."""
        m = self.base_motion(kin, udot)
        return np.concatenate((m["angles"], m["angular_velocity"], m["angular_acceleration"],
                               m["base_acceleration"], np.zeros(3)))

    def interface_wrench(self, kin: Kinematics, udot: np.ndarray, efforts: np.ndarray) -> tuple:
        """``(force, moment)`` of the crane on the vessel at the crane base, Frame 1: the constraint wrench of
        the king joint (50), (67) and the slewing torque, negated."""
        stop, _ = self.crane.end_stop_forces(kin.q[:3], kin.u[:3])
        actuators = efforts[:3]
        applied = self.system.gravity_wrenches(kin, self.crane.params.g) + self.crane.actuator_wrenches(actuators)
        w = self.interface.wrench(self.interface.magnitudes(kin, udot, applied))
        w[2] += actuators[0]
        r = kin.rotation[self._vessel].T @ kin.rotation[self._king]
        return -(r @ w[3:]), -(r @ w[:3])

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        kin, udot, efforts = aux
        out = {f"q{i + 1}": x[i] for i in range(3)}
        out.update({f"u{i + 1}": x[6 + i] for i in range(3)})
        out.update({name: x[3 + i] for i, name in enumerate(("roll", "pitch", "yaw"))})
        force, moment = self.interface_wrench(kin, udot, efforts)
        out.update({f"interface_force_{a}": force[i] for i, a in enumerate("xyz")})
        out.update({f"interface_moment_{a}": moment[i] for i, a in enumerate("xyz")})
        for name, vec in self.base_motion(kin, udot).items():
            if name != "angles":
                out.update({f"{name}_{a}": vec[i] for i, a in enumerate("xyz")})
        return {k: float(v) for k, v in out.items()}

    def check_state(self, x: np.ndarray) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f"state became non-finite: {x}")
        if abs(x[4]) > 1.4:
            raise ValueError(f"vessel pitch = {x[4]:.4g} rad is beyond ±1.4 rad, near the Euler-angle singularity of eq. (53)")
