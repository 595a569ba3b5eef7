"""The motion and load interface of a crane on a moving base, as ``(name, unit, description)`` rows: the base's
motion the crane takes (attitude (53), angular velocity and acceleration, the base point's acceleration), its
velocity (the other half of the OSP mechanical port) and the wrench the crane puts on the vessel -- the same names
on the vessel's side and on every moving-base crane's, so that any vessel couples to any crane. Not in the papers: the
wrench averaged over the last communication step (``MEAN_WRENCH``, with ``mean_wrench_outputs``), its impulse over the
step divided by the step, which a fixed-step engine can hold over the next step without losing impulse."""
from __future__ import annotations

import numpy as np

__all__ = ["MOTION", "WRENCH", "MEAN_WRENCH", "BASE_VELOCITY", "step_mean", "restarted"]

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

MEAN_WRENCH = ([(f"interface_force_mean_{a}", "N", f"interface force on the vessel averaged over the last "
                 f"communication step, {a} (with mean_wrench_outputs; else 0)") for a in "xyz"]
               + [(f"interface_moment_mean_{a}", "N.m", f"interface moment on the vessel averaged over the last "
                   f"communication step, {a} (with mean_wrench_outputs; else 0)") for a in "xyz"])


def step_mean(integral: np.ndarray, load: np.ndarray) -> np.ndarray:
    """The step-mean load ``∫W dt / Δt`` of ``integral = [∫W dt (6), Δt]`` (a crane's quadrature states over the last
    communication step), the load ``W`` itself before any step (``Δt = 0``).

    >>> step_mean(np.array([1.0, 2, 3, 4, 5, 6, 0.5]), np.zeros(6))
    array([ 2.,  4.,  6.,  8., 10., 12.])
    """
    elapsed = integral[6]
    return integral[:6] / elapsed if elapsed > 0.0 else np.array(load, dtype=float)


def restarted(x: np.ndarray, at: int) -> np.ndarray:
    """``x`` with its step integrals ``x[at:]`` (``∫W dt`` and the elapsed time) back at zero -- ``x`` itself when they
    are (a model's ``restart_step_integrals``, called at the start of every communication step)."""
    if not x[at:].any():
        return x
    out = np.array(x, dtype=float)
    out[at:] = 0.0
    return out
