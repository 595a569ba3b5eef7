"""The motion and load interface of a crane on a moving base, as ``(name, unit, description)`` rows: the base's
motion the crane takes (attitude (53), angular velocity and acceleration, the base point's acceleration), its
velocity (the other half of the OSP mechanical port) and the wrench the crane puts on the vessel -- the same names
on the vessel's side and on every moving-base crane's, so that any vessel couples to any crane."""
from __future__ import annotations

__all__ = ["MOTION", "WRENCH", "BASE_VELOCITY"]

_F1 = "Frame 1 (vessel)"
MOTION = (
    [("roll", "rad", "vessel roll q1, R^0_1 = R_z(yaw) R_y(pitch) R_x(roll), eq. (53)"),
     ("pitch", "rad", "vessel pitch q2, eq. (53)"),
     ("yaw", "rad", "vessel yaw q3, eq. (53)")]
    + [(f"angular_velocity_{a}", "rad/s", f"vessel angular velocity omega^1_01, {a} in {_F1}") for a in "xyz"]
    + [(f"angular_acceleration_{a}", "rad/s2", f"vessel angular acceleration, {a} in {_F1}") for a in "xyz"]
    + [(f"base_acceleration_{a}", "m/s2", f"acceleration of the crane base point (origin of Frame 2), "
        f"{a} in {_F1}") for a in "xyz"]
)
_ON_VESSEL = "{} the crane exerts on the vessel at the crane base (origin of Frame 2), {} in Frame 1"
WRENCH = ([(f"interface_force_{a}", "N", _ON_VESSEL.format("force", a)) for a in "xyz"]
          + [(f"interface_moment_{a}", "N.m", _ON_VESSEL.format("moment", a)) for a in "xyz"])

BASE_VELOCITY = [(f"base_velocity_{a}", "m/s", f"velocity of the crane base point, {a} in {_F1}") for a in "xyz"]
