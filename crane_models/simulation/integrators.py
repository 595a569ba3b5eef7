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

__all__ = ["EmbeddedRK23", "DormandPrince54", "RosenbrockW", "StepFailure", "make_stepper", "STEPPERS",
           "INTEGRATOR_CODES", "stepper_for_code", "StepBudgetExceeded"]


class StepFailure(RuntimeError):
    """The integrator could not advance (step size underflow or a non-finite state)."""


class StepBudgetExceeded(StepFailure):
    """The integrator used up its budget of internal steps (``step_budget``) before reaching the end."""


def _spend_step(stepper, t: float) -> None:
    """Count one trial step against ``stepper.step_budget`` (None: unbounded). Why a budget: a step size
    that cannot advance ``t`` (``t + h == t``), a huge communication step or a model driven far outside its
    design would otherwise keep ``doStep`` busy for hours; with it, the call ends with a message."""
    if stepper.step_budget is not None:
        if stepper.step_budget <= 0:
            raise StepBudgetExceeded(f"the budget of internal steps ran out at t = {t:.9g} s")
        stepper.step_budget -= 1


def _rounding(t: float) -> float:
    """Times closer than this are the same communication point: a master that accumulates its steps
    (``0.09 + 0.01 = 0.09999999999999999``) is off by a few ulp per step, ~1e-13 after 1e3 steps."""
    return 1e-12 * max(1.0, abs(t))


def _error_part(controlled: Optional[int], *arrays: np.ndarray) -> tuple:
    """The leading ``controlled`` states of each array (all when None): the ones the error control watches.
    Trailing quadrature states that feed nothing back (a model's step integrals) are carried at the steps the
    others need; watching them would only shorten the steps to resolve an integrand's fast transients."""
    return arrays if controlled is None else tuple(a[:controlled] for a in arrays)


def _rms(e: np.ndarray) -> float:
    return math.sqrt(float(e @ e) / e.size)  # RMS norm, as scipy's solvers


# Bogacki & Shampine (1989) coefficients.
_C2, _C3 = 0.5, 0.75
_A32 = 0.75
_B1, _B2, _B3 = 2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0
_E1, _E2, _E3, _E4 = 5.0 / 72.0, -1.0 / 12.0, -1.0 / 9.0, 1.0 / 8.0  # b - b_hat


def _new_stats() -> dict:
    return {"evaluations": 0, "accepted": 0, "rejected": 0, "jacobians": 0, "jacobian_evaluations": 0}


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
    _ORDER = 3

    def get_state(self):
        """What a replay needs to take the same steps: the step size."""
        return self.h

    def set_state(self, state) -> None:
        self.h = float(state)

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
            last = t + h >= t_end - tol_end
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


# ROS34PW2: Rang & Angermann, "New Rosenbrock W-methods of order 3 for partial differential algebraic
# equations of index 1", BIT Numer. Math. 45 (2005) 761-787, the method ROS34PW2 (4 stages, order 3 for
# any matrix in place of the Jacobian, embedded solution of order 2, L-stable, stiffly accurate:
# b_i = alpha_4i + gamma_4i). In the form of Hairer & Wanner, Solving ODEs II, IV.7 (7.4):
#   (I - h gamma T) k_i = h f(t + alpha_i h, y + sum_j alpha_ij k_j) + h T sum_j gamma_ij k_j,
#   y_1 = y + sum_i b_i k_i,  error estimate sum_i (b_i - bhat_i) k_i.
# (The h^2 gamma_i f_t term is left out: for a W-method that is the choice T_t = 0 in the augmented
# autonomous system (y, t), which keeps order 3.)
_RW_GAMMA = 4.3586652150845900e-01
_RW_ALPHA = ((),
             (8.7173304301691801e-01,),
             (8.4457060015369423e-01, -1.1299064236484185e-01),
             (0.0, 0.0, 1.0))
_RW_G = ((),
         (-8.7173304301691801e-01,),
         (-9.0338057013044082e-01, 5.4180672388095326e-02),
         (2.4212380706095346e-01, -1.2232505839045147e+00, 5.4526025533510214e-01))
_RW_B = (2.4212380706095346e-01, -1.2232505839045147e+00, 1.5452602553351020e+00, 4.3586652150845900e-01)
_RW_BHAT = (3.7810903145819369e-01, -9.6042292212423178e-02, 5.0e-01, 2.1793326075422950e-01)
_RW_C = tuple(sum(row) for row in _RW_ALPHA)  # stage times alpha_i
_RW_E = tuple(b - bh for b, bh in zip(_RW_B, _RW_BHAT))
_SQRT_EPS = math.sqrt(np.finfo(float).eps)


def forward_difference_jacobian(f: Callable, t: float, y: np.ndarray, f0: np.ndarray) -> np.ndarray:
    """``∂f/∂y`` at ``(t, y)`` by forward differences, one evaluation of ``f`` per column; the increment
    is ``√ε · max(|y_j|, 1)``."""
    n = y.size
    J = np.empty((n, n))
    yh = y.copy()
    for j in range(n):
        d = _SQRT_EPS * max(abs(y[j]), 1.0)
        yh[j] = y[j] + d
        d = yh[j] - y[j]  # the increment actually representable
        J[:, j] = (f(t, yh)[0] - f0) / d
        yh[j] = y[j]
    return J


@dataclass
class RosenbrockW:
    """Adaptive linearly implicit stepper ROS34PW2 (Rang & Angermann 2005) for stiff models.

    Each step solves four linear systems with the one matrix ``W = I − h γ J`` (``W⁻¹`` is formed once
    per step size and Jacobian and reused while both stay) and evaluates the model four times (three
    stages and the end point, whose derivative is the next step's first stage and the outputs' source,
    as the RK23's FSAL stage). It is a *W-method*: order 3 holds for any matrix ``J``, so the Jacobian
    is only refreshed

    * when a step is rejected and ``J`` was not computed at that step's start (a stale ``J`` may have
      let a stiff mode grow),
    * after ``jacobian_max_age`` accepted steps,
    * on the first call.

    ``jacobian(t, y, f0) -> J`` may be supplied by the model; default: forward differences of ``f``
    (:func:`forward_difference_jacobian`, ``len(y)`` evaluations). L-stability lets the step grow past
    ``1/ω`` of fast modes whose amplitude is below the tolerance (they are damped, not resolved), so
    there is no ``max_step`` from stability; ``max_step`` only bounds the step.
    """

    rtol: float = 1e-6
    atol: float = 1e-8
    max_step: float = math.inf
    min_step: float = 1e-10
    h: float = 0.0
    jacobian_max_age: int = 200
    jacobian: Optional[Callable] = None
    stats: dict = field(default_factory=_new_stats, repr=False, compare=False)
    step_budget: Optional[int] = field(default=None, repr=False, compare=False)  # trial steps left (None: no limit)
    controlled: Optional[int] = field(default=None, repr=False, compare=False)  # see _error_part
    J: Optional[np.ndarray] = field(default=None, repr=False)
    J_age: int = 0  # accepted steps since J was computed (0: computed at the current point)
    _winv: Optional[np.ndarray] = field(default=None, repr=False)
    _winv_h: float = 0.0

    def get_state(self):
        """What a replay needs to take the same steps: step size, Jacobian, its age and ``W⁻¹``."""
        return (self.h, self.J, self.J_age, self._winv, self._winv_h)

    def set_state(self, state) -> None:
        self.h, self.J, self.J_age, self._winv, self._winv_h = state

    def _refresh_jacobian(self, f: Callable, t: float, y: np.ndarray, f0: np.ndarray) -> None:
        st = self.stats
        if self.jacobian is not None:
            J = np.asarray(self.jacobian(t, y, f0), dtype=float)
        else:
            J = forward_difference_jacobian(f, t, y, f0)
            st["evaluations"] += y.size
            st["jacobian_evaluations"] += y.size
        st["jacobians"] += 1
        self.J, self.J_age = J, 0
        self._winv = None

    def _w_inverse(self, h: float) -> np.ndarray:
        # Within rounding of the step it was formed for, W⁻¹ is kept: a W-method tolerates the matrix
        # h' γ J for h, so this costs nothing in order.
        if self._winv is None or abs(h - self._winv_h) > 1e-9 * h:
            n = self.J.shape[0]
            self._winv = np.linalg.inv(np.eye(n) - (h * _RW_GAMMA) * self.J)
            self._winv_h = h
        return self._winv

    def _step(self, f: Callable, t: float, y: np.ndarray, h: float, k1: np.ndarray):
        """One trial step: ``(y_new, error estimate vector)``."""
        Winv, J = self._w_inverse(h), self.J
        k = [Winv @ (h * k1)]
        for i in (1, 2, 3):
            yi = y.copy()
            for a, kj in zip(_RW_ALPHA[i], k):
                if a != 0.0:
                    yi += a * kj
            g = _RW_G[i][0] * k[0]
            for c, kj in zip(_RW_G[i][1:], k[1:]):
                g = g + c * kj
            fi, _ = f(t + _RW_C[i] * h, yi)
            self.stats["evaluations"] += 1
            k.append(Winv @ (h * (fi + J @ g)))
        y_new = y + (_RW_B[0] * k[0] + _RW_B[1] * k[1] + _RW_B[2] * k[2] + _RW_B[3] * k[3])
        e = _RW_E[0] * k[0] + _RW_E[1] * k[1] + _RW_E[2] * k[2] + _RW_E[3] * k[3]
        return y_new, e

    def advance(self, f: Callable, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux1=None):
        """Integrate ``y' = f(t, y)`` from ``t`` to exactly ``t_end`` (same contract as
        :meth:`EmbeddedRK23.advance`).

        The remaining interval is cut into equal steps no longer than the controller's step, so with a
        constant communication step the step size (and ``W⁻¹``) repeats from one call to the next."""
        st = self.stats
        aux = aux1
        h = self.h if self.h > 0.0 else min(self.max_step, t_end - t, 1e-3)
        rejections = 0  # consecutive
        tol_end = _rounding(t_end)
        while t_end - t > tol_end:
            _spend_step(self, t)
            if self.J is None:
                self._refresh_jacobian(f, t, y, k1)
            h = min(h, self.max_step)
            remaining = t_end - t
            if rejections == 0:
                n_steps = max(1, math.ceil(remaining / h - 1e-9))
                h_try = remaining / n_steps
                last = n_steps == 1
            else:
                # After a rejection plain steps, as the explicit steppers take: a step can then end just
                # short of a switch of the model within rounding of t_end (the end of a torque pulse at a
                # communication point reached as 0.1 + 1e-17), which the loop's end test then skips; equal
                # steps would all end on the switch and fail down to min_step.
                last = h >= remaining - tol_end
                h_try = remaining if last else h
            try:
                y_new, e = self._step(f, t, y, h_try, k1)
                y_c, y_new_c, e_c = _error_part(self.controlled, y, y_new, e)
                err = _rms(e_c / (self.atol + self.rtol * np.maximum(np.abs(y_c), np.abs(y_new_c))))
                if err <= 1.0:
                    t_new = t_end if last else t + h_try
                    k_new, aux_new = f(t_new, y_new)
                    st["evaluations"] += 1
                    if not np.all(np.isfinite(k_new)):
                        err = math.inf
            except (ValueError, ArithmeticError):  # left the model's domain, or W singular: shorter step
                err = math.inf
            if err <= 1.0:
                st["accepted"] += 1
                t, y, k1, aux = t_new, y_new, k_new, aux_new
                rejections = 0
                self.J_age += 1
                factor = 5.0 if err == 0.0 else min(5.0, 0.9 * err ** (-1.0 / 3.0))
                # Hysteresis: a small increase is not worth a new W⁻¹.
                h = h_try if 1.0 <= factor <= 1.2 else h_try * factor
                if self.J_age >= self.jacobian_max_age:
                    self.J = None
            else:
                st["rejected"] += 1
                factor = 0.2 if not math.isfinite(err) else max(0.2, 0.9 * err ** (-1.0 / 3.0))
                h = h_try * factor
                if h < self.min_step:
                    raise StepFailure(f"step size fell below {self.min_step:g} s at t = {t:.9g} s")
                rejections += 1
                if self.J_age > 0 and (rejections >= 2 or not math.isfinite(err)):
                    self._refresh_jacobian(f, t, y, k1)
        self.h = h
        return y, k1, aux


STEPPERS = {"rk23": EmbeddedRK23, "dopri5": DormandPrince54, "rosenbrock": RosenbrockW}


# Values of the FMUs' Integer parameter ``integrator`` (its description lists them).
INTEGRATOR_CODES = {0: "rk23", 1: "rosenbrock", 2: "dopri5"}
INTEGRATOR_DESCRIPTION = ("internal stepper: 0 explicit Bogacki-Shampine 3(2) (RK23), 1 linearly implicit "
                          "Rosenbrock-W ROS34PW2 (L-stable, for damped stiff modes), 2 explicit Dormand-Prince 5(4)")


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
    """A stepper by name (``"rk23"``, ``"dopri5"``, ``"rosenbrock"``) with its options (``rtol``, ``atol``, ``max_step``, ...)."""
    try:
        cls = STEPPERS[name]
    except KeyError:
        raise ValueError(f"unknown stepper {name!r}; choose one of {sorted(STEPPERS)}") from None
    return cls(**options)
