"""Bristle friction models of a revolute joint: Dahl and LuGre (Jarzębowska, Urbaś & Augustynek 2019,
eqs. (13)-(15); Dahl 1968, Canudas-de-Wit et al. 1995).

The bristle deflection ``z`` [rad] of a joint obeys (14)

* Dahl:  ``ż = q̇ (1 − σ0 z sgn(q̇) / μ_s)^γ``
* LuGre: ``ż = q̇ (1 − σ0 z sgn(q̇) / g(q̇))``,  ``g(q̇) = μ_k + (μ_s − μ_k) exp(−(q̇/q̇_S)²)``

and gives the friction coefficient (15): ``μ = σ0 z`` (Dahl) or ``μ = σ0 z + σ1 ż + σ2 q̇`` (LuGre).
The friction torque of a pin of diameter ``d`` loaded by the normal force ``f_n`` is ``μ f_n d/2`` (13);
as a generalized force it acts against ``μ``: ``t_f = −μ f_n d/2``.

Units as in Table 1: ``σ0`` [1/rad], ``σ1`` [s/rad], ``σ2`` [s/rad], ``q̇_S`` [rad/s]; ``z`` in rad, so
``μ`` is dimensionless. ``q̇ sgn(q̇) = |q̇|`` is written as ``|q̇|``, which keeps ``ż`` continuous.

Steady states (``ż = 0`` at constant ``q̇``): Dahl gives ``μ = μ_s sgn(q̇)`` (Coulomb), LuGre
``μ = g(q̇) sgn(q̇) + σ2 q̇`` (Stribeck) -- :func:`steady_state_coefficient`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["FRICTION_MODELS", "BristleParameters", "stribeck", "bristle_rate", "bristle_rate_derivatives",
           "friction_coefficient",
           "steady_state_coefficient", "pin_friction_torque", "dissipation_rate"]

# Selectable friction models (an integer FMU parameter).
FRICTION_MODELS = {0: "none", 1: "dahl", 2: "lugre"}


@dataclass(frozen=True)
class BristleParameters:
    """Table 1 for a set of joints, as arrays (one entry per joint)."""

    mu_s: np.ndarray  # μ_s, static coefficient of friction
    mu_k: np.ndarray  # μ_k, kinetic coefficient of friction
    sigma0: np.ndarray  # σ0, bristle stiffness [1/rad]
    sigma1: np.ndarray  # σ1, bristle damping [s/rad]
    sigma2: np.ndarray  # σ2, viscous friction [s/rad]
    gamma: np.ndarray  # γ, shape of the Dahl material curve
    v_s: np.ndarray  # q̇_S, Stribeck velocity [rad/s]


def stribeck(v: np.ndarray, p: BristleParameters) -> np.ndarray:
    """``g(q̇) = μ_k + (μ_s − μ_k) exp(−(q̇/q̇_S)²)`` of the LuGre model (14).

    >>> p = BristleParameters(*[np.array([x]) for x in (0.2, 0.1, 5.0, 0.022, 0.0, 1.0, 0.0175)])
    >>> float(stribeck(np.array([0.0]), p)[0]), round(float(stribeck(np.array([1.0]), p)[0]), 12)
    (0.2, 0.1)
    """
    return p.mu_k + (p.mu_s - p.mu_k) * np.exp(-(v / p.v_s) ** 2)


def _signed_power(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.abs(x) ** gamma


def bristle_rate(model: str, v: np.ndarray, z: np.ndarray, p: BristleParameters) -> np.ndarray:
    """``ż`` of eq. (14) for ``model`` in {"dahl", "lugre"}; ``v = q̇`` [rad/s], ``z`` [rad].

    For a non-integer ``γ`` the Dahl bracket is raised as ``sgn(x)|x|^γ`` (the bracket turns negative
    only if ``z`` overshoots ``μ_s/σ0``, and then it must pull ``z`` back).

    >>> p = BristleParameters(*[np.array([x]) for x in (0.2, 0.1, 5.0, 0.022, 0.0, 1.0, 0.0175)])
    >>> float(bristle_rate("dahl", np.array([1.0]), np.array([0.04]), p)[0])  # σ0 z = μ_s: saturated
    0.0
    """
    if model == "dahl":
        return v * _signed_power(1.0 - p.sigma0 * z * np.sign(v) / p.mu_s, p.gamma)
    if model == "lugre":
        return v - p.sigma0 * np.abs(v) * z / stribeck(v, p)
    raise ValueError(f"unknown friction model {model!r}")


def bristle_rate_derivatives(model: str, v: np.ndarray, z: np.ndarray, p: BristleParameters) -> tuple:
    """``(∂ż/∂q̇, ∂ż/∂z)`` of :func:`bristle_rate` (the stiff stepper's Jacobian rows of the bristle states).
    ``sgn q̇`` is piecewise constant, so at ``q̇ = 0`` these are the derivatives with ``sgn 0 = 0``.

    >>> p = BristleParameters(*[np.array([x]) for x in (0.2, 0.1, 5.0, 0.022, 0.0, 1.0, 0.0175)])
    >>> [float(d[0]) for d in bristle_rate_derivatives("lugre", np.array([1.0]), np.array([0.0]), p)]  # g = μ_k
    [1.0, -50.0]
    """
    if model == "dahl":
        x = 1.0 - p.sigma0 * z * np.sign(v) / p.mu_s
        return _signed_power(x, p.gamma), -p.gamma * p.sigma0 * np.abs(v) * np.abs(x) ** (p.gamma - 1.0) / p.mu_s
    if model == "lugre":
        g = stribeck(v, p)
        dg = (p.mu_s - p.mu_k) * np.exp(-(v / p.v_s) ** 2) * (-2.0 * v / p.v_s ** 2)
        return 1.0 - p.sigma0 * z * (np.sign(v) * g - np.abs(v) * dg) / g ** 2, -p.sigma0 * np.abs(v) / g
    raise ValueError(f"unknown friction model {model!r}")


def friction_coefficient(model: str, v: np.ndarray, z: np.ndarray, zdot: np.ndarray,
                         p: BristleParameters) -> np.ndarray:
    """``μ`` of eq. (15): ``σ0 z`` (Dahl) or ``σ0 z + σ1 ż + σ2 q̇`` (LuGre)."""
    if model == "dahl":
        return p.sigma0 * z
    if model == "lugre":
        return p.sigma0 * z + p.sigma1 * zdot + p.sigma2 * v
    raise ValueError(f"unknown friction model {model!r}")


def steady_state_coefficient(model: str, v: np.ndarray, p: BristleParameters) -> np.ndarray:
    """``μ`` once ``ż = 0`` at constant ``q̇ ≠ 0``: Coulomb ``μ_s sgn(q̇)`` (Dahl), Stribeck
    ``g(q̇) sgn(q̇) + σ2 q̇`` (LuGre)."""
    if model == "dahl":
        return p.mu_s * np.sign(v)
    if model == "lugre":
        return stribeck(v, p) * np.sign(v) + p.sigma2 * v
    raise ValueError(f"unknown friction model {model!r}")


def pin_friction_torque(mu: np.ndarray, f_normal: np.ndarray, diameter: np.ndarray) -> np.ndarray:
    """Generalized friction torque of a pin joint, eq. (13) with the sign that opposes ``μ``:
    ``t_f = −μ f_n d/2``.

    >>> float(pin_friction_torque(np.array([0.1]), np.array([1000.0]), np.array([0.05]))[0])
    -2.5
    """
    return -mu * f_normal * 0.5 * diameter


def dissipation_rate(model: str, v: np.ndarray, z: np.ndarray, f_normal: np.ndarray, diameter: np.ndarray,
                     p: BristleParameters) -> np.ndarray:
    """Power dissipated in the joints: the friction power ``−t_f q̇`` minus the rate of the energy stored
    in the bristles, ``N σ0 z ż`` with ``N = f_n d/2`` (at the current normal load).

    Dahl: ``N σ0² |q̇| z² / μ_s ≥ 0``. LuGre: ``N [g s² |q̇| + σ1 q̇² (1 − s) + σ2 q̇²]`` with
    ``s = σ0 z sgn(q̇)/g``, which is ≥ 0 whenever ``σ1 |q̇| < 4 g(q̇)`` (the quadratic ``s² − k s + k``,
    ``k = σ1|q̇|/g``, has no real root for ``k < 4``).
    """
    zdot = bristle_rate(model, v, z, p)
    mu = friction_coefficient(model, v, z, zdot, p)
    load = f_normal * 0.5 * diameter
    return load * (mu * v - p.sigma0 * z * zdot)


def check_parameters(p: BristleParameters) -> None:
    """Raise ``ValueError`` for values that make (14) meaningless."""
    for name in ("mu_s", "mu_k", "sigma0", "v_s", "gamma"):
        arr = getattr(p, name)
        if np.any(arr <= 0.0):
            raise ValueError(f"friction parameter {name} must be > 0, got {arr}")
    if np.any(p.mu_k > p.mu_s):
        raise ValueError("the kinetic friction coefficient mu_k must not exceed the static one mu_s")
    if np.any(p.sigma1 < 0.0) or np.any(p.sigma2 < 0.0):
        raise ValueError("sigma1 and sigma2 must be >= 0")
    if not math.isfinite(float(np.sum(p.sigma0))):
        raise ValueError("sigma0 must be finite")
