"""Programmed (task) constraints on a point of a multibody system (Jarzębowska, Urbaś & Augustynek 2019,
eqs. (17)-(22)), enforced as an index-reduced DAE with Lagrange multipliers and Baumgarte stabilisation.

The paper eliminates the constraint reactions with the GPME (16)-(20) and coordinate partitioning (11).
Here the equivalent Lagrange form is used, because it also yields the efforts that realise the motion:

    M u̇ = τ − C u + Φ_qᵀ λ,        Φ̈ + β Φ̇ + α Φ = 0                                     (18.3)-(18.4)

For constraints on the position ``p`` of a point, ``Φ_q = (∂Φ/∂p) J_p`` and ``Φ_qᵀ λ`` is the
generalized force of the point force ``F = (∂Φ/∂p)ᵀ λ``: the programmed-constraint force. Both forms give
the same motion for ideal constraints (the GPME are the projection of the same equations onto the
independent velocities (19)).

Baumgarte form (Baumgarte 1972; Greenwood, *Advanced Dynamics*, eq. (6.291)): ``α`` multiplies ``Φ``,
``β`` multiplies ``Φ̇``. With the paper's ``α = 110 s⁻²``, ``β = 20 s⁻¹`` the violation decays as a
near-critically damped oscillator (``ω = √α = 10.5 rad/s``, ``ζ = β/(2√α) = 0.95``), envelope
``e^{−10 t}``, which matches the paper's "constraints satisfied after 1.25 s". The other common reading,
``Φ̈ + 2αΦ̇ + β²Φ``, has a slow root of −1.8 s⁻¹ and could not converge in 1.25 s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["quintic_rise", "EllipseHeightConstraint", "constrained_accelerations"]


def quintic_rise(t: float, z_start: float, z_inc: float, t_c: float) -> tuple:
    """``z_E,a(t)`` of eq. (22) and its first two derivatives: ``z_s + z_inc (10 s³ − 15 s⁴ + 6 s⁵)``,
    ``s = t/t_c``, for ``0 ≤ t < t_c``; ``z_s + z_inc`` afterwards (and ``z_s`` before 0).

    >>> quintic_rise(0.5, 1.0, 0.2, 1.0)
    (1.1, 0.375, 0.0)
    """
    if t <= 0.0:
        return z_start, 0.0, 0.0
    if t >= t_c:
        return z_start + z_inc, 0.0, 0.0
    s = t / t_c
    z = z_start + z_inc * s ** 3 * (10.0 - 15.0 * s + 6.0 * s * s)
    zd = z_inc / t_c * 30.0 * s * s * (1.0 - s) ** 2
    zdd = z_inc / t_c ** 2 * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s)
    return z, zd, zdd


@dataclass(frozen=True)
class EllipseHeightConstraint:
    """Φ1 = (x/a)² + (y/b)² − 1 (17.1) and Φ2 = z − z_a(t) (17.2) on a point ``p = (x, y, z)`` in Frame 0,
    with ``z_a`` the quintic rise (22) from ``z_start`` by ``z_inc`` in ``t_c``."""

    a: float
    b: float
    z_start: float
    z_inc: float
    t_c: float

    def residual(self, t: float, p: np.ndarray) -> np.ndarray:
        """``[Φ1, Φ2]`` (17)."""
        return np.array([(p[0] / self.a) ** 2 + (p[1] / self.b) ** 2 - 1.0,
                         p[2] - quintic_rise(t, self.z_start, self.z_inc, self.t_c)[0]])

    def gradient(self, p: np.ndarray) -> np.ndarray:
        """``∂Φ/∂p`` (2, 3): rows ``[2x/a², 2y/b², 0]`` and ``[0, 0, 1]`` (the ``u`` and ``c_3`` of (18))."""
        return np.array([[2.0 * p[0] / self.a ** 2, 2.0 * p[1] / self.b ** 2, 0.0], [0.0, 0.0, 1.0]])

    def rates(self, t: float, p: np.ndarray, v: np.ndarray) -> tuple:
        """``Φ̇`` (18.1)-(18.2) and the part of ``Φ̈`` that does not contain the point acceleration
        (the ``v`` of (18.3) and ``−z̈_a`` of (18.4)): ``Φ̈ = (∂Φ/∂p) a + h``."""
        _, zd, zdd = quintic_rise(t, self.z_start, self.z_inc, self.t_c)
        g = self.gradient(p)
        phid = g @ v - np.array([0.0, zd])
        h = np.array([2.0 * (v[0] ** 2 / self.a ** 2 + v[1] ** 2 / self.b ** 2), -zdd])
        return phid, h

    def acceleration_target(self, t: float, p: np.ndarray, v: np.ndarray, alpha: float, beta: float) -> np.ndarray:
        """``(∂Φ/∂p) a`` required by ``Φ̈ + β Φ̇ + α Φ = 0``."""
        phid, h = self.rates(t, p, v)
        return -h - beta * phid - alpha * self.residual(t, p)


def constrained_accelerations(M: np.ndarray, rhs: np.ndarray, Phi_q: np.ndarray, target: np.ndarray,
                              extra: np.ndarray | None = None) -> tuple:
    """Solve ``M u̇ = rhs + Eᵀ... + Φ_qᵀ λ``, ``Φ_q u̇ = target`` by the Schur complement.

    ``extra`` (n, k) are further generalized-force directions whose magnitudes are not known yet (the
    friction torques): the solution is returned as affine maps of those magnitudes ``e``:
    ``u̇ = a0 + A e``, ``λ = l0 + L e``. Returns ``(a0, A, l0, L)``.
    """
    n = M.shape[0]
    k = 0 if extra is None else extra.shape[1]
    m = Phi_q.shape[0]
    cols = [rhs[:, None], Phi_q.T]
    if k:
        cols.append(extra)
    X = np.linalg.solve(M, np.concatenate(cols, axis=1))
    x0, x_phi, x_e = X[:, 0], X[:, 1:1 + m], X[:, 1 + m:]
    S = Phi_q @ x_phi
    # λ = l0 + L e in one solve with the Schur complement S = Φ_q M⁻¹ Φ_qᵀ.
    Y = np.linalg.solve(S, np.concatenate(((target - Phi_q @ x0)[:, None], -(Phi_q @ x_e)), axis=1))
    l0, L = Y[:, 0], Y[:, 1:]
    return x0 + x_phi @ l0, x_e + x_phi @ L, l0, L
