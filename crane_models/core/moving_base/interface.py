"""The motion and load interface of a crane on a moving base, as ``(name, unit, description)`` rows: the base's
motion the crane takes (attitude (53), angular velocity and acceleration, the base point's acceleration), its
velocity (the other half of the OSP mechanical port) and the wrench the crane puts on the vessel -- the same names
on the vessel's side and on every moving-base crane's, so that any vessel couples to any crane. Not in the papers: the
wrench averaged over the last communication step (``MEAN_WRENCH``, with ``mean_wrench_outputs``), its impulse over the
step divided by the step, which a fixed-step engine can hold over the next step without losing impulse, and that
mean extrapolated linearly from the last two steps' means (``PREDICTED_WRENCH``, ``2 W̄ₙ − W̄ₙ₋₁``): the mean
predicted over the coming step, which removes most of the held mean's lag of one step (docs/ship-cosimulation.md
measures both)."""
from __future__ import annotations

import numpy as np

__all__ = ["MOTION", "WRENCH", "MEAN_WRENCH", "PREDICTED_WRENCH", "BASE_VELOCITY", "STEP_INTEGRALS", "step_mean",
           "STEP_WRENCH_NAMES", "step_rates", "step_wrenches", "restarted"]

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

_PREDICTED = ("interface {} on the vessel averaged over the coming communication step as predicted from the last two "
              "steps: the line through their means, 2 x the last step's mean - the step before's for equal steps, {} "
              "(with mean_wrench_outputs; else 0)")
PREDICTED_WRENCH = ([(f"interface_force_predicted_{a}", "N", _PREDICTED.format("force", a)) for a in "xyz"]
                    + [(f"interface_moment_predicted_{a}", "N.m", _PREDICTED.format("moment", a)) for a in "xyz"])

# The states a step-mean wrench adds to a crane's: [∫W dt (6), Δt] over the last communication step (integrated, their
# derivative [W; 1]), then the same of the step before (their derivative 0, set at each step's start by restarted);
# both outside the step-size control.
STEP_INTEGRALS = 14
# The outputs of the step states, in the order of step_wrenches
STEP_WRENCH_NAMES = tuple(name for name, _, _ in MEAN_WRENCH + PREDICTED_WRENCH)


def step_rates(load: np.ndarray) -> np.ndarray:
    """The derivative of the step states (:data:`STEP_INTEGRALS`) under the load ``W`` now: ``[W; 1]``, then zeros
    (the step before's stay as they are)."""
    return np.concatenate((load, [1.0], np.zeros(7)))


def step_mean(integral: np.ndarray, load: np.ndarray) -> np.ndarray:
    """The step-mean load ``∫W dt / Δt`` of ``integral = [∫W dt (6), Δt]`` (a crane's quadrature states over the last
    communication step), the load ``W`` itself before any step (``Δt = 0``).

    >>> step_mean(np.array([1.0, 2, 3, 4, 5, 6, 0.5]), np.zeros(6))
    array([ 2.,  4.,  6.,  8., 10., 12.])
    """
    elapsed = integral[6]
    return integral[:6] / elapsed if elapsed > 0.0 else np.array(load, dtype=float)


def step_wrenches(integrals: np.ndarray, load: np.ndarray) -> np.ndarray:
    """``[W̄ₙ; Ŵ]`` (12) of a crane's step states ``integrals`` (:data:`STEP_INTEGRALS`: the last step's
    ``[∫W dt, Δt]``, then the step before's) and its load ``W`` now: the mean over the last step (:func:`step_mean`)
    and the mean predicted over the coming one -- the line through the two step means, each at its step's middle,
    averaged over a coming step as long as the last: ``Ŵ = W̄ₙ + (W̄ₙ − W̄ₙ₋₁) 2 hₙ / (hₙ + hₙ₋₁)``, ``2 W̄ₙ − W̄ₙ₋₁``
    for equal steps, right to ``O(h²)`` for a load smooth in time (an engine that varies its step, as libcosim's
    ECCO, gets the line through the means where they belong) --, ``W̄ₙ`` when there is no step before (or the last
    had no length), ``W`` before any step.

    >>> step_wrenches(np.array([1.0, 2, 3, 4, 5, 6, 0.5] + [1.0, 1, 1, 1, 1, 1, 1.0]), np.zeros(6))[6:]
    array([ 2.66666667,  6.        ,  9.33333333, 12.66666667, 16.        , 19.33333333])
    """
    mean = step_mean(integrals[:7], load)
    h, before = integrals[6], integrals[13]
    if not (h > 0.0 and before > 0.0):
        return np.concatenate((mean, mean))
    gain = 2.0 * h / (h + before)
    return np.concatenate((mean, mean + (mean - integrals[7:13] / before) * gain))


def restarted(x: np.ndarray, at: int) -> np.ndarray:
    """``x`` at the start of a communication step: the step states ``x[at:at + 14]`` (:data:`STEP_INTEGRALS`) with the
    last step's ``[∫W dt, Δt]`` moved to the step before's place and restarted at zero -- ``x`` itself when they are
    zero already (a model's ``restart_step_integrals``, called at the start of every communication step)."""
    if not x[at:at + 7].any():
        return x
    out = np.array(x, dtype=float)
    out[at + 7:at + 14] = x[at:at + 7]
    out[at:at + 7] = 0.0
    return out
