"""The interface inertia of a crane on a moving base: the load it puts on the vessel is affine in the base
acceleration, ``W = W₀ − A a`` (Cibicik & Egeland, moving base, eq. (43) partitioned), with

* ``a = [a_P; ω̇]``: acceleration of the crane base point P and angular acceleration, base frame;
* ``W = [f; n]``: force and moment on the vessel at P, base frame (the FMUs' ``interface_force/moment``);
* ``A = J⁻ᵀ (M_pp − M_pf M_ff⁻¹ M_fp) J⁻¹`` -- the Schur complement of the crane's free coordinates in the mass
  matrix of (43), taken to the base twist by the base chain's velocity map ``t_P = J u_p``
  (``J = blockdiag(E, R^1_0)`` for Euler rates (53) and Frame 0 translation rates). It is the crane's inertia
  seen at the base: symmetric and positive semi-definite; ``W₀`` is the load at zero base acceleration.

Why ``W₀ − A a`` and not ``+``: A is an inertia (positive), and the vessel feels the crane's inertia as a
reaction. A vessel model that takes A into its own equations solves ``(M_v + Jᵀ A J) u̇ = τ + Jᵀ W₀ − …``: the
crane's added mass moves to the left-hand side and the loop between the two models needs no iteration.

Why exact: the controller's efforts depend on ``q``, ``u`` only, so ``u̇_f`` and with it the constraint wrench
(50) are affine in the prescribed ``u̇_p``; the base chain's ``J̇ u_p`` terms belong to ``W₀``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["INERTIA_ZEROS", "interface_inertia", "INERTIA_NAMES", "INERTIA_OUTPUTS", "WRENCH0_OUTPUTS", "inertia_values",
           "inertia_matrix"]

_AXES = "xyz"
# Row/column order of A: force/linear acceleration x, y, z, then moment/angular acceleration x, y, z.
_LABELS = [f"f{a}" for a in _AXES] + [f"n{a}" for a in _AXES]
INERTIA_NAMES = [(i, j, f"interface_inertia_{_LABELS[i]}{_LABELS[j]}") for i in range(6) for j in range(i, 6)]


def _unit(i: int, j: int) -> str:
    return {0: "kg", 1: "kg.m", 2: "kg.m2"}[(i >= 3) + (j >= 3)]


INERTIA_OUTPUTS = [(name, _unit(i, j), f"interface inertia A[{i + 1},{j + 1}] (symmetric, positive semi-definite): "
                    "load on the vessel W = W0 - A a, a = [base_acceleration; angular_acceleration] at the point of "
                    "attack") for i, j, name in INERTIA_NAMES]
WRENCH0_OUTPUTS = ([(f"interface_force0_{a}", "N", f"W0: force on the vessel at zero base acceleration, {a}")
                    for a in _AXES]
                   + [(f"interface_moment0_{a}", "N.m", f"W0: moment on the vessel at the point of attack at zero base "
                       f"acceleration, {a}") for a in _AXES])


def interface_inertia(M: np.ndarray, prescribed, free, euler_inverse: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """``A`` (6×6, order ``[f; n]`` × ``[a_P; ω̇]``, base frame) from the mass matrix ``M`` of (43), the
    prescribed base coordinates ``[roll, pitch, yaw, x0, y0, z0]`` and the three free ones (index arrays, or
    slices when contiguous: no copies), ``E⁻¹`` of (53) and ``R^0_1``."""
    if isinstance(prescribed, slice):
        Mpp, Mpf, Mff = M[prescribed, prescribed], M[prescribed, free], M[free, free]
    else:
        Mpp, Mpf, Mff = M[np.ix_(prescribed, prescribed)], M[np.ix_(prescribed, free)], M[np.ix_(free, free)]
    schur = Mpp - Mpf @ (inverse3(Mff) @ Mpf.T)  # u̇_p-coordinates: τ_p = S u̇_p + …
    # [a_P; ω̇] -> u̇_p = [E⁻¹ ω̇; R a_P]: the Euler rows take ω̇, the translation rows a_P
    s_j = np.concatenate((schur[:, 3:] @ rotation, schur[:, :3] @ euler_inverse), axis=1)  # S J⁻¹
    A = np.concatenate((rotation.T @ s_j[3:], euler_inverse.T @ s_j[:3]))  # J⁻ᵀ S J⁻¹, rows [f; n]
    return 0.5 * (A + A.T)  # symmetric to rounding already; exactly so for the outputs


def inverse3(m: np.ndarray) -> np.ndarray:
    """Inverse of a 3×3 matrix by cofactors (a general solve costs ten times more at this size)."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    co = [[e * i - f * h, c * h - b * i, b * f - c * e],
          [f * g - d * i, a * i - c * g, c * d - a * f],
          [d * h - e * g, b * g - a * h, a * e - b * d]]
    det = a * co[0][0] + b * co[1][0] + c * co[2][0]
    return np.array(co) / det


_UPPER = np.triu_indices(6)
_UPPER_NAMES = [name for _, _, name in INERTIA_NAMES]  # INERTIA_NAMES runs through the upper triangle row by row
_W0_NAMES = [f"interface_{k}0_{a}" for k in ("force", "moment") for a in _AXES]
INERTIA_ZEROS = dict.fromkeys(_UPPER_NAMES + _W0_NAMES, 0.0)  # the outputs when they are not computed


def inertia_values(A: np.ndarray, w0_force: np.ndarray, w0_moment: np.ndarray) -> dict:
    """The FMU outputs of A (upper triangle) and W₀."""
    out = dict(zip(_UPPER_NAMES, A[_UPPER].tolist()))
    out.update(zip(_W0_NAMES, np.concatenate((w0_force, w0_moment)).tolist()))
    return out


def inertia_matrix(values: dict) -> np.ndarray:
    """``A`` back from the outputs (a master or a vessel model reading them)."""
    A = np.zeros((6, 6))
    for i, j, name in INERTIA_NAMES:
        A[i, j] = A[j, i] = values[name]
    return A
