"""Which stepper pays for a model: the explicit pair or the stiff one, from the spectrum of ``∂f/∂y`` at the start.

The explicit pair -- DOP853 (:class:`integrators.DormandPrince853`), which took fewer evaluations than
Dormand-Prince 5(4) in every FlexibleCrane case measured below -- has its step bounded by stability, ``h |λ| ≤
5.96`` for every eigenvalue ``λ`` of the Jacobian (the smallest radius of its stability region over the left
half-plane, on the imaginary axis; 6.4 on the negative real one), whether or not the mode is still there, and by
accuracy on the modes it follows. The L-stable Rosenbrock-W stepper (:class:`rosenbrock.RosenbrockW`) has no
stability bound: it may step over a mode that has *decayed*, and must follow, like any stepper, the modes that
have not. A mode with the decay rate ``σ = −Re λ`` is followed over the run unless its amplitude falls below the
tolerance within ``FOLLOW_TIME``: ``σ < ln(1/rtol) / FOLLOW_TIME``.

The undamped modes of the paper's crane (supports and link elements, ``σ ≈ 0``) are all followed, up to the
highest: the stiff stepper cannot take longer steps than the explicit one there, and its third order needs
many more of them than the eighth-order pair. With element damping (``sde_damping``) the high element modes are
overdamped, ``max |λ|`` grows as ``c k / I`` far above the fastest followed mode, and the explicit pair spends
its steps on stability alone.

Cost model, evaluations per simulated second, with ``ρ = max |λ|`` and ``ω_f`` the largest ``|λ|`` followed,
fitted to the FlexibleCrane (10 ms, in-process; paper's crane 1, 4, 8, 16 elements at rtol 1e-7 and some at 1e-6
and 1e-5 for the explicit pair, damped elements ``sde_damping`` 1e-4 s with 4, 8, 16 elements at 1e-7 and 1e-5
for both):

* explicit: 12 evaluations per step, ``max(ρ / 6.4, 0.156 ω_f rtol^(-1/8))`` steps (0.156: the geometric mean
  of the undamped runs' 0.108-0.21);
* stiff: 4.7 evaluations per step (3 stages, the end point, the Jacobian's share and rejections),
  ``0.35 ω_f rtol^(-1/3)`` steps.

The explicit estimate is within a factor 1.5 of the measured steps of the undamped runs and 2.4 of the damped
ones (damped 4 and 8 elements take 1.5-2.4 times the estimate: their element modes, overdamped or not, are
forced all along and resolved for accuracy, at ``h |λ|`` 2.7-3.7); the stiff one within 2.2. The verdict was
right in each case but one. Measured evaluations per 10 ms explicit (DOP853) / stiff, damped elements, rtol
1e-7: 217 / 1476 (4 elements), 502 / 1891 (8), 3850 / 1955 (16); rtol 1e-5: 132 / 322, 378 / 328 (the one:
the estimate picks the explicit pair, 15 % dearer), 3804 / 417. The undamped crane (``ρ = ω_f``) gets the
explicit pair at every size and tolerance."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .rosenbrock import forward_difference_jacobian

__all__ = ["StiffnessEstimate", "stiffness_estimate", "model_jacobian", "FOLLOW_TIME"]

FOLLOW_TIME = 1.0  # [s]: a mode still above the tolerance after this long is followed over the run
# h max|λ| at DOP853's stability boundary on the negative real axis, where the fastest damped modes lie (6.36-6.45
# towards the other eigenvalues of the damped crane; 5.96 on the imaginary axis): tests/test_dop853.py
EXPLICIT_STABLE_H_RHO = 6.4
EXPLICIT_EVALUATIONS = 12.0  # new evaluations per DOP853 step (FSAL)
EXPLICIT_STEPS_PER_RAD = 0.156  # steps per radian of the fastest followed mode, times rtol^(-1/8) (fitted)
ROS_EVALUATIONS = 4.7  # evaluations per ROS34PW2 step, the Jacobian's share and rejections included (fitted)
ROS_STEPS_PER_RAD = 0.35  # steps per radian of the fastest followed mode, times rtol^(-1/3) (fitted)


@dataclass(frozen=True)
class StiffnessEstimate:
    """What :func:`stiffness_estimate` found: ``spectral_radius`` ``max |λ|`` and ``followed_radius``, the
    largest ``|λ|`` of a mode that must be followed [1/s]; the estimated evaluations per simulated second of
    the explicit pair and of the stiff stepper; the verdict ``stiff``."""

    spectral_radius: float
    followed_radius: float
    explicit_evaluations: float
    stiff_evaluations: float

    @property
    def stiff(self) -> bool:
        return self.stiff_evaluations < self.explicit_evaluations

    @property
    def stepper(self) -> str:
        """The stepper that pays: ``"rosenbrock"`` when stiff, else the explicit ``"dop853"``."""
        return "rosenbrock" if self.stiff else "dop853"


def followed_decay_rate(rtol: float) -> float:
    """The decay rate [1/s] below which a mode is still above ``rtol`` of its amplitude after ``FOLLOW_TIME``."""
    return math.log(1.0 / rtol) / FOLLOW_TIME


def stiffness_estimate(jacobian: np.ndarray, rtol: float) -> StiffnessEstimate:
    """The estimate from the eigenvalues of ``jacobian`` (``∂f/∂y`` at the start) for the tolerance ``rtol``.

    >>> J = np.array([[0.0, 1.0], [-1e6, -2e5]])   # overdamped: λ ≈ -5 (followed) and -2e5
    >>> e = stiffness_estimate(J, 1e-7)
    >>> round(e.followed_radius), round(e.spectral_radius), e.stiff
    (5, 199995, True)
    >>> stiffness_estimate(np.array([[0.0, 1.0], [-2.5e7, 0.0]]), 1e-7).stiff   # undamped at 5e3 rad/s
    False
    """
    lam = np.linalg.eigvals(np.asarray(jacobian, dtype=float))
    radius = float(np.max(np.abs(lam))) if lam.size else 0.0
    followed = lam[-lam.real < followed_decay_rate(rtol)]
    omega = float(np.max(np.abs(followed))) if followed.size else 0.0
    explicit = EXPLICIT_EVALUATIONS * max(radius / EXPLICIT_STABLE_H_RHO,
                                          EXPLICIT_STEPS_PER_RAD * omega * rtol ** -0.125)
    stiff = ROS_EVALUATIONS * ROS_STEPS_PER_RAD * omega * rtol ** (-1.0 / 3.0)
    return StiffnessEstimate(radius, omega, explicit, stiff)


def model_jacobian(model, t: float, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """``∂ẋ/∂x`` of a co-simulation model at ``(t, x)``: its own ``jacobian(t, x, inputs)`` (the kernel's) when it
    has one that answers, else forward differences of ``model.derivative``."""
    own = getattr(model, "jacobian", None)
    J = own(t, x, inputs) if own is not None else None
    if J is not None:
        return J
    x = np.asarray(x, dtype=float)
    return forward_difference_jacobian(lambda tt, y: model.derivative(tt, y, inputs), t, x,
                                       model.derivative(t, x, inputs)[0])
