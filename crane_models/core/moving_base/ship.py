"""Ship conventions for the moving-base crane FMUs (``CraneOnMovingBase``, ``KnuckleBoomCraneOnMovingBase``): where
the crane sits on the hull, in which axes the ship gives its motion and takes the load.

The crane models work in their own base frame B (z up, origin at the crane base point, the king's slewing axis
along z_B; gravity ``−g`` along the world's vertical) and take the motion of that point. A ship simulator instead
knows its hull frame S at its own reference point O (often the COG or the motion reference unit). With
:class:`ShipMounting` the FMUs accept the ship's motion at O in S and return the load in S:

* **Axis convention** (``z_down``): ``false`` (default, today's) -- world and hull z up, x forward, y to port;
  ``true`` -- NED-style, as ship simulators use (SNAME): world x north, y east, z down; hull x forward, y to
  starboard, z down. The two are related by the half turn about x, ``F = diag(1, −1, −1)``: vectors (forces,
  moments, positions, velocities, accelerations, angular velocities -- F is a proper rotation) map as ``F v``;
  the attitude ``R = R_z(yaw) R_y(pitch) R_x(roll)`` (53) maps as ``F R F``, i.e. the same roll and opposite
  pitch and yaw. The FMU converts at its boundary; inside, everything is z up.
* **Gravity** is the world's: ``−g`` along the upward vertical (``+g`` along NED z). It is *not* part of the
  acceleration inputs -- ``base_acceleration`` is the kinematic acceleration of O (what a ship's equations of
  motion give), not an accelerometer's specific force. At rest on a level ship the load is the crane's weight
  along the down axis: ``(0, 0, −m g)`` z-up, ``(0, 0, +m g)`` z-down.
* **Mounting** (parameters, in the chosen convention): ``mount_x, mount_y, mount_z`` -- the crane base point P
  (the point of attack of the load) from O in S; ``mount_heading`` -- the crane base's heading on the hull,
  about the hull's z axis from x_S (sign by the right-hand rule about that axis). Then ``ω_B = H^T ω``,
  ``a_P = a_O + ω̇ × r + ω × (ω × r)``, ``v_P = v_O + ω × r``, ``R^0_B = R^0_S H`` with ``H = R_z(heading)``.
* **Load**: ``interface_force_*`` and ``interface_moment_*`` act on the ship at P, in S axes; P itself is the
  output ``point_of_attack_*`` (in S, from O). ``tip_*`` is the crane tip from O in S.

Inputs, in S at O: ``roll, pitch, yaw`` (attitude of S), ``angular_velocity_*`` ``ω`` and
``angular_acceleration_*`` ``ω̇`` (S axes), ``base_acceleration_*`` and ``base_velocity_*`` of O (S axes). With the
defaults (z up, P = O, heading 0) the FMUs are exactly today's: the conversion is skipped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..parameters import param
from ..screws import rot_x, rot_y, rot_z
from .interface_inertia import inertia_matrix, inertia_values

__all__ = ["MountPoint", "ShipMounting", "ShipMountedModel", "FLIP", "euler_angles", "MOUNTING_OUTPUTS"]

FLIP = np.diag([1.0, -1.0, -1.0])  # z-up <-> z-down (NED): the half turn about x

MOUNTING_OUTPUTS = [(f"point_of_attack_{a}", "m", f"crane base point, where the load acts on the ship, {a} in the "
                     "ship frame from its reference point") for a in "xyz"]


@dataclass
class MountPoint:
    """Where the crane stands on the hull (in the ship's axis convention)."""

    mount_x: float = param(0.0, "m", "crane base point from the ship's reference point, x in the ship frame")
    mount_y: float = param(0.0, "m", "crane base point from the ship's reference point, y in the ship frame")
    mount_z: float = param(0.0, "m", "crane base point from the ship's reference point, z in the ship frame")
    mount_heading: float = param(0.0, "rad", "heading of the crane base on the hull, about the ship's z axis "
                                 "from its x axis", -math.pi, math.pi)


@dataclass
class ShipMounting(MountPoint):
    """The mount point and the axis convention of the ship's inputs and outputs."""

    z_down: bool = False  # NED-style axes (an FMI boolean parameter, declared in the specs)

    @property
    def is_identity(self) -> bool:
        return (not self.z_down and self.mount_heading == 0.0
                and self.mount_x == self.mount_y == self.mount_z == 0.0)

    def internal_mount(self) -> tuple:
        """``(r, H)``: the mount point and heading rotation in the z-up frame used inside."""
        r = np.array([self.mount_x, self.mount_y, self.mount_z])
        heading = self.mount_heading
        if self.z_down:
            r, heading = FLIP @ r, -heading  # F R_z(a) F = R_z(-a)
        return r, rot_z(heading)


def euler_angles(R: np.ndarray) -> np.ndarray:
    """``[roll, pitch, yaw]`` of ``R = R_z(yaw) R_y(pitch) R_x(roll)`` (53), pitch in (−π/2, π/2)."""
    return np.array([math.atan2(R[2, 1], R[2, 2]), -math.asin(max(-1.0, min(1.0, R[2, 0]))),
                     math.atan2(R[1, 0], R[0, 0])])


# Hooks of the wrapped model that produce outputs or take inputs in its own frame: not passed through (the
# co-simulation then takes this model's outputs() and evaluates anew for new inputs).
_OWN_OUTPUTS = frozenset(("write_outputs", "output_writer", "update_inputs", "kernel_step_parts"))


class ShipMountedModel:
    """A moving-base crane model seen through :class:`ShipMounting`: its motion inputs (indices ``motion_at`` …
    ``motion_at + 15``: angles, ω, ω̇, acceleration, velocity) taken in the ship's frame at its reference point,
    its wrench and tip outputs given in the ship's frame, plus the point of attack. Everything else is the
    wrapped model's. A model with ``position_at`` takes there the position of O in the sea frame (``base_position_*``,
    issue 37), turned here into the base point's, z up."""

    def __init__(self, model, mounting: ShipMounting, motion_at: int = 6):
        self.model, self.mounting, self._at = model, mounting, motion_at
        self.input_names, self.state_size = model.input_names, model.state_size
        self._r, self._H = mounting.internal_mount()
        self._flip = FLIP if mounting.z_down else np.eye(3)
        self._out_rotation = self._flip @ self._H  # base frame B -> ship frame S in the ship's convention
        self._point = self._flip @ self._r
        self._cached = (None, None)
        if hasattr(model, "impose_inputs"):
            self.impose_inputs = lambda x, inputs: model.impose_inputs(x, self.base_inputs(inputs))
        if hasattr(model, "compiled"):
            self.compiled = lambda t, inputs: model.compiled(t, self.base_inputs(inputs))

    def __getattr__(self, name: str):
        if name in _OWN_OUTPUTS:  # the wrapped model's would skip the ship frame: outputs() is this model's
            raise AttributeError(name)
        return getattr(self.model, name)

    def base_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """The wrapped model's inputs: the motion of the crane base point in its own z-up frame."""
        key = inputs.tobytes()
        if self._cached[0] == key:
            return self._cached[1]
        out = np.array(inputs, dtype=float)
        at = self._at
        angles, w, dw, a, v = (out[at:at + 3].copy(), out[at + 3:at + 6], out[at + 6:at + 9], out[at + 9:at + 12],
                               out[at + 12:at + 15])
        if self.mounting.z_down:
            angles[1:] = -angles[1:]
            w, dw, a, v = (FLIP @ w, FLIP @ dw, FLIP @ a, FLIP @ v)
        r, H = self._r, self._H
        wr = np.cross(w, r)
        acc = a + np.cross(dw, r) + np.cross(w, wr)
        R = rot_z(angles[2]) @ rot_y(angles[1]) @ rot_x(angles[0])
        Ht = H.T
        out[at:at + 3] = euler_angles(R @ H)
        out[at + 3:at + 6], out[at + 6:at + 9] = Ht @ w, Ht @ dw
        out[at + 9:at + 12], out[at + 12:at + 15] = Ht @ acc, Ht @ (v + wr)
        position_at = getattr(self.model, "position_at", None)
        if position_at is not None:  # base_position_* of O in the sea frame -> of the base point P, z up
            p = out[position_at:position_at + 3]
            out[position_at:position_at + 3] = (FLIP @ p if self.mounting.z_down else p) + R @ r
        self._cached = (key, out)
        return out

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        return self.model.derivative(t, x, self.base_inputs(inputs))

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        out = self.model.outputs(t, x, self.base_inputs(inputs), aux)
        S = self._out_rotation
        for name in ("interface_force", "interface_moment", "tip", "interface_force_mean", "interface_moment_mean",
                     "interface_force_predicted", "interface_moment_predicted"):
            if f"{name}_x" not in out:
                continue
            v = S @ np.array([out[f"{name}_{a}"] for a in "xyz"])
            if name == "tip":
                v = v + self._point
            out.update({f"{name}_{a}": float(v[i]) for i, a in enumerate("xyz")})
        out.update({f"point_of_attack_{a}": float(self._point[i]) for i, a in enumerate("xyz")})
        if "interface_force0_x" in out:  # the interface inertia, turned into the ship's axes (same point P)
            Q = np.zeros((6, 6))
            Q[:3, :3] = Q[3:, 3:] = S
            A = Q @ inertia_matrix(out) @ Q.T
            w0 = Q @ np.array([out[f"interface_{k}0_{a}"] for k in ("force", "moment") for a in "xyz"])
            out.update(inertia_values(A, w0[:3], w0[3:]))
        return out

    def check_state(self, x: np.ndarray) -> None:
        self.model.check_state(x)
