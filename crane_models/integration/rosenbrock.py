"""The linearly implicit stepper of the FMUs for stiff models (:class:`RosenbrockW`, ROS34PW2); the explicit
pairs and the choice by name are in :mod:`.integrators`."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .step_control import StepFailure, _error_part, _new_stats, _reaches, _rms, _rounding, _spend_step
from .state_checks import array_problem, number_problem

__all__ = ["RosenbrockW", "FixedStepRosenbrockW", "forward_difference_jacobian", "amplification"]


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
    cancel_flag: Optional[object] = field(default=None, repr=False, compare=False)  # see _spend_step
    cancel_poll: Optional[tuple] = field(default=None, repr=False, compare=False)  # see _spend_step
    J: Optional[np.ndarray] = field(default=None, repr=False)
    J_age: int = 0  # accepted steps since J was computed (0: computed at the current point)
    _winv: Optional[np.ndarray] = field(default=None, repr=False)
    _winv_h: float = 0.0
    # The kernel's stepper (core.native.implicit) keeps the LU of the reduced W instead of W⁻¹ (None: none
    # valid), its pivots, and the step it was formed for; it writes J and the LU in place.
    _lu: Optional[np.ndarray] = field(default=None, repr=False)
    _lu_piv: Optional[np.ndarray] = field(default=None, repr=False)
    _lu_h: float = 0.0

    def get_state(self):
        """What a replay needs to take the same steps: step size, Jacobian, its age and ``W⁻¹`` (or the
        kernel's LU of W). Copies: the kernel overwrites J and the LU in place."""
        copy = (lambda a: None if a is None else a.copy())
        return (self.h, copy(self.J), self.J_age, self._winv, self._winv_h, copy(self._lu), copy(self._lu_piv),
                self._lu_h)

    def set_state(self, state) -> None:
        h, J, self.J_age, self._winv, self._winv_h, lu, piv, self._lu_h = state
        copy = (lambda a: None if a is None else np.array(a))
        self.h, self.J, self._lu, self._lu_piv = float(h), copy(J), copy(lu), copy(piv)

    def state_problem(self, state, size: int) -> Optional[str]:
        """None when ``state`` (from :meth:`get_state`) fits a system of ``size`` states: finite step sizes, J and
        W⁻¹ of ``size`` x ``size`` (or None), and the kernel's LU (square, at most ``size``) with its pivots
        (C ints within its rows) both present or both None."""
        if not (isinstance(state, tuple) and len(state) == 8):
            return "the Rosenbrock stepper's state must be a tuple of 8 items"
        h, J, age, winv, winv_h, lu, piv, lu_h = state
        square = (size, size)
        problem = (number_problem("the stepper's step size h", h, 0.0)
                   or number_problem("the stepper's Jacobian age", age, 0, 2 ** 31 - 1, integer=True)
                   or number_problem("the stepper's W step", winv_h) or number_problem("the stepper's LU step", lu_h)
                   or (J is not None and array_problem("the stepper's Jacobian", J, square))
                   or (winv is not None and array_problem("the stepper's W inverse", winv, square)))
        if problem or (lu is None and piv is None):
            return problem or None
        m = lu.shape[0] if isinstance(lu, np.ndarray) and lu.ndim == 2 and lu.shape[0] <= size else size
        problem = (array_problem("the stepper's LU", lu, (m, m))
                   or array_problem("the stepper's LU pivots", piv, (m,), np.intc))
        if problem is None and not ((piv >= 0) & (piv < m)).all():
            problem = f"the stepper's LU pivots must be row numbers in [0, {m})"
        return problem

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
                last = _reaches(t, h, t_end)
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


def amplification(z: complex) -> complex:
    """ROS34PW2's stability function ``R(z)`` (exact Jacobian, ``z = h λ``): ``y_1 = R(z) y_0`` for ``y' = λ y``,
    ``R(z) = 1 + z bᵀ (I − z (α + Γ))⁻¹ 1`` with ``Γ`` the ``g`` coefficients and ``γ`` on its diagonal. L-stable:
    ``R(∞) = 0``; on the imaginary axis ``|R(i y)| < 1`` is the numerical damping of an undamped mode per step.

    >>> [round(float(abs(amplification(z))), 4) for z in (0.5j, 1j, 10j, 1e9j)]
    [0.9985, 0.9824, 0.2791, 0.0]
    """
    s = len(_RW_B)
    B = np.zeros((s, s), dtype=complex)
    for i in range(s):
        B[i, :len(_RW_ALPHA[i])] += _RW_ALPHA[i]
        B[i, :len(_RW_G[i])] += _RW_G[i]
        B[i, i] += _RW_GAMMA
    return 1.0 + z * np.array(_RW_B) @ np.linalg.solve(np.eye(s) - z * B, np.ones(s))


@dataclass
class FixedStepRosenbrockW(RosenbrockW):
    """ROS34PW2 at a fixed internal step, for hosts that need the same cost every communication step.

    ``max_step`` is the step: each interval is cut into the fewest equal steps no longer than it, every step is
    accepted (no error control: ``rtol``, ``atol`` unused), and before each step ``ceil(size × h /
    jacobian_period)`` columns of ``J`` (at least one) are recomputed at the step's start by forward differences, in
    turn, so that the whole Jacobian is renewed at least every ``jacobian_period`` of simulated time at a constant
    cost per step (a W-method keeps its order 3 with any matrix; the whole ``J`` only on the first call). The stiff
    modes it steps over must stay in ``J``: the full 16-element link with 2 % modal damping (111 states, element
    modes up to 4.6e4 rad/s) at 2.5 ms ran the paper's scenario with 0.1 s (three columns a step) and diverged at
    0.8 s with 0.5 s (one column a step, all renewed in 0.28 s); the reduced link (49 states) ran with both. A step that is not
    finite raises StepFailure.

    Numerical damping (:func:`amplification`, exact ``J``): an undamped mode of frequency ω keeps
    ``|R(i ω h)|`` of its amplitude per step -- 1 − 2.6e-6 at ω h = 0.1, 0.9985 at 0.5 (a 16 Hz mode at 5 ms),
    0.982 at 1, 0.73 at 3, 0.28 at 10, 0.03 at 100 and → 0 for ω h → ∞ (L-stable): modes far above ``1/h`` are
    removed within a few steps, the slow motion keeps third order.
    """

    jacobian_period: float = 0.1  # [s] of simulated time over which every column of J is renewed (at least one a step)
    next_column: int = 0  # the first column of the next slice

    def get_state(self):
        return super().get_state() + (self.next_column,)

    def set_state(self, state) -> None:
        super().set_state(state[:8])
        self.next_column = int(state[8])

    def state_problem(self, state, size: int) -> Optional[str]:
        if not (isinstance(state, tuple) and len(state) == 9):
            return "the fixed-step Rosenbrock stepper's state must be a tuple of 9 items"
        return (super().state_problem(state[:8], size)
                or number_problem("the stepper's next Jacobian column", state[8], 0, max(size - 1, 0), integer=True))

    def columns(self, size: int, h: float) -> int:
        """Columns of J renewed before each step of length ``h``."""
        return min(size, max(1, math.ceil(size * h / self.jacobian_period - 1e-9)))

    def advance(self, f: Callable, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux1=None):
        st, aux = self.stats, aux1
        if t_end - t <= _rounding(t_end):
            return y, k1, aux
        steps = max(1, math.ceil((t_end - t) / self.max_step - 1e-9))
        h = (t_end - t) / steps
        for i in range(steps):
            _spend_step(self, t)
            if self.J is None:
                self._refresh_jacobian(f, t, y, k1)
                self.next_column = 0
            else:
                cols = self.columns(y.size, h)
                yh = y.copy()
                for c in range(self.next_column, self.next_column + cols):
                    j = c % y.size
                    d = _SQRT_EPS * max(abs(y[j]), 1.0)
                    yh[j] = y[j] + d
                    d = yh[j] - y[j]
                    self.J[:, j] = (f(t, yh)[0] - k1) / d
                    yh[j] = y[j]
                st["evaluations"] += cols
                st["jacobian_evaluations"] += cols
                self.next_column = (self.next_column + cols) % y.size
                self._winv = None
            t_new = t_end if i == steps - 1 else t + h
            y_new, _ = self._step(f, t, y, h, k1)
            k_new, aux = f(t_new, y_new)
            st["evaluations"] += 1
            if not (np.all(np.isfinite(y_new)) and np.all(np.isfinite(k_new))):
                st["rejected"] += 1
                raise StepFailure(f"the fixed step {h:g} s left the method's stability at t = {t:.9g} s")
            st["accepted"] += 1
            t, y, k1 = t_new, y_new, k_new
            self.J_age += 1
        self.h = h
        return y, k1, aux
