"""Integrators for FMU ``doStep``: an explicit embedded Runge-Kutta pair and a linearly implicit
Rosenbrock-W method for stiff models.

Why hand-written steppers inside the FMU: a co-simulation step restarts the integration (inputs jump
at communication points), and scipy's ``solve_ivp``/``OdeSolver`` set-up costs more than the whole
step budget of a 1 ms communication step (see ``benchmarks/``); and scipy must not be imported by an
FMU at all (its compiled extensions crash native hosts at exit), so everything here is numpy only.

* :class:`EmbeddedRK23` -- the Bogacki-Shampine 3(2) pair (the pair behind scipy's ``RK23``) with
  standard step-size control; its last stage is the derivative at the end of the step, which the FMU
  reuses for its outputs.
* :class:`DormandPrince54` -- the Dormand-Prince 5(4) pair (scipy's ``RK45``), same control, for
  models whose accuracy rather than stability limits the step.
* :class:`DormandPrince853` -- DOP853 (Hairer's pair of order 8, error estimators of orders 5 and 3), 12
  evaluations per step: for undamped fast modes followed at tight tolerances (the flexible crane's link
  elements), where its order pays for the stages and its stability interval on the imaginary axis is six
  times Dormand-Prince 5(4)'s.
* :class:`RosenbrockW` -- ROS34PW2 of Rang & Angermann (2005), an L-stable W-method of order 3 with an
  embedded order-2 solution: for models with fast, undamped or stiff modes whose explicit stability
  limit is far below the step that accuracy asks for.

All have the same interface, ``advance(f, t, y, t_end, k1, aux1) -> (y, k_end, aux_end)``, keep what
they learned (step size, Jacobian) from one call to the next, and expose it as a picklable snapshot
(``get_state``/``set_state``) so that a saved FMU state replays bit-identically.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from . import dop853_coefficients as _d8
from .rosenbrock import FixedStepRosenbrockW, RosenbrockW, forward_difference_jacobian  # noqa: F401 (re-exported)
from .state_checks import number_problem
from .step_control import (StepBudgetExceeded, StepCancelled, StepFailure, _error_part, _new_stats, _rms,  # noqa: F401
                           _reaches, _rounding, _spend_step)

__all__ = ["EmbeddedRK23", "DormandPrince54", "DormandPrince853", "RosenbrockW", "StepFailure", "make_stepper",
           "STEPPERS", "INTEGRATOR_CODES", "AUTOMATIC_INTEGRATOR", "stepper_for_code", "StepBudgetExceeded",
           "StepCancelled"]


# Bogacki & Shampine (1989) coefficients.
_C2, _C3 = 0.5, 0.75
_A32 = 0.75
_B1, _B2, _B3 = 2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0
_E1, _E2, _E3, _E4 = 5.0 / 72.0, -1.0 / 12.0, -1.0 / 9.0, 1.0 / 8.0  # b - b_hat


@dataclass
class _ExplicitPair:
    """Adaptive embedded explicit Runge-Kutta pair with FSAL; keeps its step size from one call of
    :meth:`advance` to the next. Subclasses give the tableau through :meth:`_trial` and ``_ORDER``
    (the order of the error estimate's leading term, for the step-size controller).

    ``stats`` counts model evaluations and accepted/rejected steps (diagnostics only, not part of the
    saved state)."""

    rtol: float = 1e-6
    atol: float = 1e-8
    max_step: float = 0.01
    min_step: float = 1e-10
    h: float = 0.0  # last accepted step size (0: choose one)
    stats: dict = field(default_factory=_new_stats, repr=False, compare=False)
    step_budget: Optional[int] = field(default=None, repr=False, compare=False)  # trial steps left (None: no limit)
    controlled: Optional[int] = field(default=None, repr=False, compare=False)  # see _error_part
    cancel_flag: Optional[object] = field(default=None, repr=False, compare=False)  # see _spend_step
    cancel_poll: Optional[tuple] = field(default=None, repr=False, compare=False)  # see _spend_step
    _ORDER = 3

    def get_state(self):
        """What a replay needs to take the same steps: the step size."""
        return self.h

    def set_state(self, state) -> None:
        self.h = float(state)

    def state_problem(self, state, size: int) -> Optional[str]:
        """None when ``state`` (from :meth:`get_state`) can be restored: a finite step size >= 0."""
        return number_problem("the stepper's step size h", state, 0.0)

    def _trial(self, f: Callable, t: float, y: np.ndarray, h: float, k1: np.ndarray) -> tuple:
        """One step: ``(y_new, f(t + h, y_new), its aux, scaled RMS error estimate)``."""
        raise NotImplementedError

    def _scaled_rms(self, y: np.ndarray, y_new: np.ndarray, e: np.ndarray) -> float:
        y, y_new, e = _error_part(self.controlled, y, y_new, e)
        return _rms(e / (self.atol + self.rtol * np.maximum(np.abs(y), np.abs(y_new))))

    def advance(self, f: Callable, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux1=None):
        """Integrate ``y' = f(t, y)`` from ``t`` to exactly ``t_end``.

        ``f`` returns ``(y', aux)``; ``k1 = f(t, y)[0]`` is passed in. Returns ``(y, k_end, aux_end)``
        at ``t_end``: the derivative and auxiliary data of the last accepted stage.
        """
        h = self.h if self.h > 0.0 else min(self.max_step, t_end - t)
        aux = aux1
        st = self.stats
        tol_end = _rounding(t_end)
        grow = -1.0 / self._ORDER
        while t_end - t > tol_end:
            _spend_step(self, t)
            h = min(h, self.max_step)
            last = _reaches(t, h, t_end)
            h_try = t_end - t if last else h
            try:
                y_new, k_new, aux_new, err = self._trial(f, t, y, h_try, k1)
            except (ValueError, ArithmeticError):  # a trial stage left the model's domain: shorter step
                err = math.inf
            if err <= 1.0:
                st["accepted"] += 1
                t = t_end if last else t + h_try
                y, k1, aux = y_new, k_new, aux_new
                factor = 5.0 if err == 0.0 else min(5.0, 0.9 * err ** grow)
                if not last:
                    h = h_try * factor
                else:
                    # Keep the step that the controller would have taken, not the shortened last one.
                    h = max(h, h_try * factor) if h_try >= h else h
            else:
                st["rejected"] += 1
                factor = 0.2 if not math.isfinite(err) else max(0.2, 0.9 * err ** grow)
                h = h_try * factor
                if h < self.min_step:
                    raise StepFailure(f"step size fell below {self.min_step:g} s at t = {t:.9g} s")
        self.h = h
        return y, k1, aux


@dataclass
class EmbeddedRK23(_ExplicitPair):
    """Bogacki-Shampine 3(2), 3 new evaluations per step: cheapest where one step spans a communication
    step (smooth, well-damped models at 1-10 ms)."""

    _ORDER = 3

    @staticmethod
    def tableau() -> tuple:
        """``(stages, order, a, c, e)`` of :meth:`_trial` in the FSAL form of ``core.native.NativeIntegration``."""
        a = np.zeros((4, 4))
        a[1, 0], a[2, 1], a[3, :3] = _C2, _A32, (_B1, _B2, _B3)
        return 4, 3, a, np.array([0.0, _C2, _C3, 1.0]), np.array([_E1, _E2, _E3, _E4])

    def _trial(self, f: Callable, t: float, y: np.ndarray, h: float, k1: np.ndarray) -> tuple:
        k2, _ = f(t + _C2 * h, y + (_C2 * h) * k1)
        k3, _ = f(t + _C3 * h, y + (_A32 * h) * k2)
        y_new = y + h * (_B1 * k1 + _B2 * k2 + _B3 * k3)
        self.stats["evaluations"] += 2
        k4, aux4 = f(t + h, y_new)
        self.stats["evaluations"] += 1
        return y_new, k4, aux4, self._scaled_rms(y, y_new, h * (_E1 * k1 + _E2 * k2 + _E3 * k3 + _E4 * k4))


# Dormand & Prince, "A family of embedded Runge-Kutta formulae", J. Comput. Appl. Math. 6 (1980) 19-26:
# RK5(4)7M (the pair of scipy's RK45), FSAL, local extrapolation (the 5th-order solution is kept).
_DP_C = (0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0)
_DP_A = [np.array(row) for row in (
    (), (1.0 / 5.0,), (3.0 / 40.0, 9.0 / 40.0), (44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0),
    (19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0),
    (9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0),
    (35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0))]
_DP_E = np.array([71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0,
                  -1.0 / 40.0])  # b − b̂


@dataclass
class DormandPrince54(_ExplicitPair):
    """Dormand-Prince 5(4), 6 new evaluations per step: for models whose accuracy, not stability, limits
    the step -- where RK23 needs several steps per communication step (fast transients after each
    set-point jump, lightly damped oscillations followed in phase), one fifth-order step usually does."""

    _ORDER = 5

    @staticmethod
    def tableau() -> tuple:
        """``(stages, order, a, c, e)`` of :meth:`_trial` in the FSAL form of ``core.native.NativeIntegration``."""
        a = np.zeros((7, 7))
        for s, row in enumerate(_DP_A):
            a[s, :len(row)] = row
        return 7, 5, a, np.array(_DP_C), _DP_E.copy()

    def _trial(self, f: Callable, t: float, y: np.ndarray, h: float, k1: np.ndarray) -> tuple:
        K = np.empty((7, y.size))
        K[0] = k1
        for s in range(1, 7):
            y_s = y + h * (_DP_A[s] @ K[:s])
            K[s], aux = f(t + _DP_C[s] * h, y_s)
        self.stats["evaluations"] += 6
        return y_s, K[6], aux, self._scaled_rms(y, y_s, h * (_DP_E @ K))  # the 7th stage is at y_new


_D8_A = [np.array(row) for row in _d8.A]
_D8_E5, _D8_E3 = np.array(_d8.E5), np.array(_d8.E3)


def combined_error(e5: float, e3: float) -> float:
    """DOP853's error of a step from the scaled RMS norms of its fifth- and third-order estimates:
    ``e5² / √(e5² + 0.01 e3²)`` (dop853_coefficients says why); 0 when both are."""
    denominator = math.sqrt(e5 * e5 + 0.01 * e3 * e3)
    return e5 * e5 / denominator if denominator > 0.0 else 0.0


@dataclass
class DormandPrince853(_ExplicitPair):
    """DOP853, 12 new evaluations per step (the thirteenth stage is the derivative at the new solution, FSAL):
    for models whose step is held by accuracy on fast undamped modes at a tight tolerance -- the flexible
    crane's link elements at rtol 1e-7, where it takes 1.6-1.8 times fewer evaluations than Dormand-Prince
    5(4) (docs/performance.md, "The flexible crane's steppers") -- and whose stability then needs ``h |λ| ≤ 5.9``
    on the imaginary axis (about 1.0 for Dormand-Prince 5(4)) and 6.4 on the negative real one (3.3)."""

    _ORDER = 8  # the combined estimate is of order 8 in h (dop853_coefficients)

    @staticmethod
    def tableau() -> tuple:
        """``(stages, order, a, c, e, e_low)`` of :meth:`_trial` in the FSAL form of
        ``core.native.NativeIntegration``."""
        a = np.zeros((13, 13))
        for s, row in enumerate(_D8_A):
            a[s, :len(row)] = row
        return 13, 8, a, np.array(_d8.C), _D8_E5.copy(), _D8_E3.copy()

    def _trial(self, f: Callable, t: float, y: np.ndarray, h: float, k1: np.ndarray) -> tuple:
        K = np.empty((13, y.size))
        K[0] = k1
        for s in range(1, 13):
            y_s = y + h * (_D8_A[s] @ K[:s])
            K[s], aux = f(t + _d8.C[s] * h, y_s)
        self.stats["evaluations"] += 12
        e5 = self._scaled_rms(y, y_s, h * (_D8_E5 @ K))
        e3 = self._scaled_rms(y, y_s, h * (_D8_E3 @ K))
        return y_s, K[12], aux, combined_error(e5, e3)  # the 13th stage is at y_new


STEPPERS = {"rk23": EmbeddedRK23, "dopri5": DormandPrince54, "dop853": DormandPrince853, "rosenbrock": RosenbrockW,
            "rosenbrock_fixed": FixedStepRosenbrockW}


# Values of the FMUs' Integer parameter ``integrator`` (its description lists them). 3 is the automatic choice of
# the models that have one (FlexibleCrane: integration/stiffness.py), kept from before DOP853 came so that a
# saved setup's 3 still means what it meant.
INTEGRATOR_CODES = {0: "rk23", 1: "rosenbrock", 2: "dopri5", 4: "dop853"}
AUTOMATIC_INTEGRATOR = 3
INTEGRATOR_DESCRIPTION = ("internal stepper: 0 explicit Bogacki-Shampine 3(2) (RK23), 1 linearly implicit "
                          "Rosenbrock-W ROS34PW2 (L-stable, for damped stiff modes), 2 explicit Dormand-Prince 5(4), "
                          "4 explicit DOP853 (order 8, for undamped fast modes at tight tolerances)")


def stepper_for_code(code) -> str:
    """The stepper name of an ``integrator`` parameter value; ValueError names the allowed values."""
    try:
        name = INTEGRATOR_CODES.get(int(code)) if float(code) == int(code) else None
    except (TypeError, ValueError, OverflowError):
        name = None
    if name is None:
        allowed = ", ".join(f"{k} ({v})" for k, v in INTEGRATOR_CODES.items())
        raise ValueError(f"integrator = {code!r} must be one of {allowed}")
    return name


def make_stepper(name: str, **options):
    """A stepper by name (a key of :data:`STEPPERS`) with its options (``rtol``, ``atol``, ``max_step``, ...)."""
    try:
        cls = STEPPERS[name]
    except KeyError:
        raise ValueError(f"unknown stepper {name!r}; choose one of {sorted(STEPPERS)}") from None
    return cls(**options)
