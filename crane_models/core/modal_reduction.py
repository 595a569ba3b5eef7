"""Modal reduction of a linear elastic structure ``M q̈ + K q = f`` (numpy only: it runs inside the FMUs).

Craig–Bampton (Craig & Bampton, *Coupling of substructures for dynamic analyses*, AIAA J. 6(7), 1968) with an
interface given as linear combinations of the coordinates, ``q_b = B q`` (the tip deflections and rotations of a
link whose coordinates are the relative rotations of its elements):

* constraint modes ``Ψ = K⁻¹ Bᵀ (B K⁻¹ Bᵀ)⁻¹``: the static shapes for unit interface displacements, i.e. the
  static responses to interface loads ``Bᵀ F`` -- so a load on the interface is carried exactly in statics;
* fixed-interface modes: the lowest eigenmodes of ``(K, M)`` restricted to ``B q = 0`` (the interface held).

The two sets are ``K``-orthogonal (``Ψᵀ K Φ = 0``), so the reduced stiffness is block diagonal.
"""
from __future__ import annotations

import numpy as np

__all__ = ["generalized_eigh", "constraint_modes", "fixed_interface_modes", "craig_bampton", "modal_damping",
           "unit_max"]


def generalized_eigh(K: np.ndarray, M: np.ndarray) -> tuple:
    """Eigenvalues ``ω²`` (ascending) and ``M``-normalized eigenvectors of ``K φ = ω² M φ`` (``M`` positive
    definite), by the Cholesky factor of ``M``.

    >>> w2, V = generalized_eigh(np.diag([2.0, 8.0]), np.diag([2.0, 2.0]))
    >>> w2.round(12).tolist(), (V.T @ np.diag([2.0, 2.0]) @ V).round(12).tolist()
    ([1.0, 4.0], [[1.0, 0.0], [0.0, 1.0]])
    """
    L = np.linalg.cholesky(M)
    Li = np.linalg.inv(L)
    A = Li @ K @ Li.T
    w2, Y = np.linalg.eigh(0.5 * (A + A.T))
    return w2, Li.T @ Y


def constraint_modes(K: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``Ψ = K⁻¹ Bᵀ (B K⁻¹ Bᵀ)⁻¹`` (n, m): ``B Ψ = I``, each column the least-strain shape with one unit interface
    displacement.

    >>> Psi = constraint_modes(np.diag([1.0, 1.0]), np.array([[1.0, 1.0]]))
    >>> Psi.ravel().tolist()
    [0.5, 0.5]
    """
    KiBt = np.linalg.solve(K, B.T)
    return KiBt @ np.linalg.inv(B @ KiBt)


def fixed_interface_modes(M: np.ndarray, K: np.ndarray, B: np.ndarray, k: int) -> tuple:
    """The ``k`` lowest modes of ``(K, M)`` on ``B q = 0``: ``(ω² (k), Φ (n, k))``, ``Φ`` ``M``-normalized."""
    _, s, Vt = np.linalg.svd(B)
    N = Vt[int(np.sum(s > 1e-12 * s[0])):].T  # a basis of B's null space
    w2, Y = generalized_eigh(N.T @ K @ N, N.T @ M @ N)
    return w2[:k], N @ Y[:, :k]


def unit_max(V: np.ndarray) -> np.ndarray:
    """The columns of ``V`` scaled to a largest entry of +1 (coordinates of the size of the structure's own)."""
    i = np.argmax(np.abs(V), axis=0)
    return V / V[i, np.arange(V.shape[1])]


def craig_bampton(M: np.ndarray, K: np.ndarray, B: np.ndarray, k: int) -> np.ndarray:
    """The Craig–Bampton basis ``[Ψ, Φ_1..k]`` (n, m + k), columns scaled by :func:`unit_max`."""
    return unit_max(np.hstack((constraint_modes(K, B), fixed_interface_modes(M, K, B, k)[1])))


def modal_damping(M: np.ndarray, K: np.ndarray, zeta: float) -> np.ndarray:
    """The damping matrix that gives every mode of ``(K, M)`` the damping ratio ``zeta``:
    ``D = M V diag(2 ζ ω) Vᵀ M`` with ``V`` ``M``-normalized (then ``Vᵀ D V = diag(2 ζ ω)``).

    >>> modal_damping(np.eye(1), 4.0 * np.eye(1), 0.5).tolist()
    [[2.0]]
    """
    w2, V = generalized_eigh(K, M)
    MV = M @ V
    return MV @ np.diag(2.0 * zeta * np.sqrt(np.maximum(w2, 0.0))) @ MV.T
