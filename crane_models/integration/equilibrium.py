"""Static equilibrium of a model at rest: the positions ``q`` at which, with every speed zero, every acceleration
vanishes -- ``u̇(q, u = 0) = 0`` for a state ``x = [q; u]``, solved by scipy's hybrid Powell method.

A coupled system started there starts without a transient of its own: a co-simulation engine's initial value
propagation then has nothing to settle (the vessel's accelerations are zero whatever the crane's wrench was in the
last round), and a split pair and its monolithic model leave the same point with the same zero speeds."""
from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["static_equilibrium"]


def static_equilibrium(derivative: Callable[[float, np.ndarray, np.ndarray], tuple], q_guess: np.ndarray,
                       inputs: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """``q`` with ``u̇(q, 0) = 0`` near ``q_guess`` (``derivative(t, x, inputs) -> (ẋ, aux)``, ``x = [q; u]``, as every
    model here); raises ``ValueError`` when the solver does not reach ``tol`` on the accelerations (rad/s², m/s²)."""
    from scipy.optimize import root  # here, not at import: see integration.reference

    n = len(q_guess)
    speeds = np.zeros(n)
    inputs = np.asarray(inputs, dtype=float)

    def accelerations(q: np.ndarray) -> np.ndarray:
        return derivative(0.0, np.concatenate((q, speeds)), inputs)[0][n:2 * n]

    solution = root(accelerations, np.asarray(q_guess, dtype=float), method="hybr", options={"xtol": 1e-14})
    residual = float(np.max(np.abs(accelerations(solution.x))))
    if not residual <= tol:
        raise ValueError(f"no static equilibrium found near q = {list(q_guess)}: largest acceleration {residual:.3g} "
                         f"after {solution.nfev} evaluations ({solution.message})")
    return solution.x
