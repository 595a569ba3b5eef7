"""Integrators: a lean embedded Runge-Kutta stepper for FMU ``doStep`` and the scipy reference solver.

Why a hand-written stepper inside the FMU: a co-simulation step restarts the integration (inputs jump
at communication points), and scipy's ``solve_ivp``/``OdeSolver`` set-up costs more than the whole
step budget of a 1 ms communication step (see ``benchmarks/``). The stepper below is the
Bogacki-Shampine 3(2) pair (the pair behind scipy's ``RK23``) with standard step-size control; its last
stage is the derivative at the end of the step, which the FMU reuses for its outputs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["EmbeddedRK23", "StepFailure"]


class StepFailure(RuntimeError):
    """The integrator could not advance (step size underflow or a non-finite state)."""


# Bogacki & Shampine (1989) coefficients.
_C2, _C3 = 0.5, 0.75
_A32 = 0.75
_B1, _B2, _B3 = 2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0
_E1, _E2, _E3, _E4 = 5.0 / 72.0, -1.0 / 12.0, -1.0 / 9.0, 1.0 / 8.0  # b - b_hat


@dataclass
class EmbeddedRK23:
    """Adaptive RK23 with FSAL; keeps its step size from one call of :meth:`advance` to the next."""

    rtol: float = 1e-6
    atol: float = 1e-8
    max_step: float = 0.01
    min_step: float = 1e-10
    h: float = 0.0  # last accepted step size (0: choose one)

    def advance(self, f: Callable, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux1=None):
        """Integrate ``y' = f(t, y)`` from ``t`` to exactly ``t_end``.

        ``f`` returns ``(y', aux)``; ``k1 = f(t, y)[0]`` is passed in. Returns ``(y, k_end, aux_end)``
        at ``t_end``: the derivative and auxiliary data of the last accepted stage.
        """
        h = self.h if self.h > 0.0 else min(self.max_step, t_end - t)
        aux = aux1
        while t_end - t > 1e-12 * max(1.0, abs(t_end)):
            h = min(h, self.max_step)
            last = t + h >= t_end - 1e-12 * max(1.0, abs(t_end))
            if last:
                h_try = t_end - t
            else:
                h_try = h
            try:
                k2, _ = f(t + _C2 * h_try, y + (_C2 * h_try) * k1)
                k3, _ = f(t + _C3 * h_try, y + (_A32 * h_try) * k2)
                y_new = y + h_try * (_B1 * k1 + _B2 * k2 + _B3 * k3)
                k4, aux4 = f(t + h_try, y_new)
                scale = self.atol + self.rtol * np.maximum(np.abs(y), np.abs(y_new))
                e = (h_try * (_E1 * k1 + _E2 * k2 + _E3 * k3 + _E4 * k4)) / scale
                err = math.sqrt(float(e @ e) / e.size)  # RMS norm, as scipy's RK23
            except (ValueError, ArithmeticError):  # a trial stage left the model's domain: shorter step
                err = math.inf
            if err <= 1.0:
                t = t_end if last else t + h_try
                y, k1, aux = y_new, k4, aux4
                factor = 5.0 if err == 0.0 else min(5.0, 0.9 * err ** (-1.0 / 3.0))
                if not last:
                    h = h_try * factor
                else:
                    # Keep the step that the controller would have taken, not the shortened last one.
                    h = max(h, h_try * factor) if h_try >= h else h
            else:
                factor = 0.2 if not math.isfinite(err) else max(0.2, 0.9 * err ** (-1.0 / 3.0))
                h = h_try * factor
                if h < self.min_step:
                    raise StepFailure(f"step size fell below {self.min_step:g} s at t = {t:.9g} s")
        self.h = h
        return y, k1, aux
