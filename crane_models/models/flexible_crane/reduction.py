"""The modally reduced link (c,2) of the FlexibleCrane: its RFE deformation coordinates ``q̃`` (the rotations ``ψ, θ,
φ`` of the spring-damping elements (8), n_rfe − 1 of each) replaced by ``q̃ = Φ η`` with a Craig–Bampton basis
(:mod:`core.modal_reduction`) of the link's own linearisation about its undeformed shape:

* the link alone, clamped at its root (element 0 held, ``ψ^(c,2,0)`` fixed), links (c,3) and E removed: ``M̃`` the
  block of the element coordinates of the crane's mass matrix (Kane's, eq. (6)) for that tree at ``q̃ = 0``, ``K̃``
  the diagonal of the element stiffnesses ``s`` of (8);
* the interface: the joint at the link's end (to link (c,3)), whose small motion is linear in ``q̃``: in the luffing
  plane its deflection ``Σ ψ_r (x_end − x_r)`` and rotation ``Σ ψ_r``, out of it ``Σ θ_r (x_end − x_r)`` and
  ``Σ θ_r``, and the twist ``Σ φ_r`` (``x_r`` the position of element joint r along the link);
* per bending plane 2 constraint modes (the static shapes of a tip force and a tip moment: a tip load is carried
  exactly in statics) and the ``k`` lowest fixed-interface modes (root and end held); torsion by its constraint
  mode (a uniform twist rate: the static twist under an end torque) and its lowest fixed-interface mode
  (``TORSION_MODES``; the issue asks for modes per bending plane only: with the constraint mode alone the bare
  link's first torsion frequency is 10 % high with 16 elements, with one mode more it is within 0.1 %).

The reduced state coordinates are ``q_r = [base (6), ψ^(c,1), ψ^(c,2,0), η, ψ^(c,3)]`` and ``q = P q_r``. Damping:
``link_damping_ratio`` ζ on every mode of the reduced link as a cantilever (clamped root, free end, modal
damping ``D = M_r V diag(2ζω) Vᵀ M_r``), on top of the projected element damping ``sde_damping``.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ...core.kane import MultibodySystem
from ...core.parameters import ParameterError
from ...core.modal_reduction import craig_bampton, generalized_eigh, modal_damping

TORSION_MODES = 1  # fixed-interface torsion modes kept beside the torsion constraint mode

__all__ = ["TORSION_MODES", "LinkReduction", "check_link_options", "link_matrices", "interface_map", "first_link_frequency"]


def check_link_options(n_rfe: int, link_modes, link_damping_ratio) -> None:
    """One-line errors for the link's options: ``link_modes`` an integer in [0, n_rfe − 3] (Craig–Bampton keeps
    2 constraint modes and k fixed-interface modes of the n_rfe − 1 element rotations per plane), ``link_damping_ratio``
    in [0, 1)."""
    high = max(n_rfe - 3, 0)
    if int(link_modes) != link_modes or not 0 <= int(link_modes) <= high:
        raise ParameterError(f"link_modes = {link_modes!r} must be an integer in [0, {high}] (0: the full link; "
                             f"at most n_rfe - 3 modes per plane with n_rfe = {n_rfe})")
    if not 0.0 <= float(link_damping_ratio) < 1.0:
        raise ParameterError(f"link_damping_ratio = {link_damping_ratio!r} must be in [0, 1)")


def link_matrices(bodies: list, n_rfe: int) -> tuple:
    """``(M̃, x)``: the mass matrix of the element coordinates of link (c,2) alone, clamped at its root, at the
    undeformed shape (3 (n_rfe − 1) square, order ``ψ_1, θ_1, φ_1, ψ_2, ...``), and the positions ``x_r`` of the
    element joints along the link followed by its end."""
    link = [b for b in bodies if b.name.startswith("link2_")]
    first = link[0].coordinate
    link = [dataclasses.replace(b, coordinate=None if b.coordinate is None else b.coordinate - first,
                                **({"parent": None, "offset": (0.0, 0.0, 0.0)} if i == 0 else {}))
            for i, b in enumerate(link)]
    n = 1 + 3 * (n_rfe - 1)
    system = MultibodySystem(link, n, native=False)
    M = system.mass_matrix(system.kinematics(np.zeros(n), np.zeros(n)))[1:, 1:]
    x = np.cumsum([0.0] + [b.offset[0] for b in link if b.name.endswith("_psi")])
    lengths_end = x[-1] + (link[-1].com[0] * 2.0)
    return M, np.append(x[1:], lengths_end)


def interface_map(x: np.ndarray, plane: int) -> np.ndarray:
    """``B`` of one set of coordinates (0: ψ, in-plane bending; 1: θ, out of plane; 2: φ, torsion): the end's
    deflection and rotation (bending) or twist (torsion), linear in the n_rfe − 1 element rotations."""
    arm = x[-1] - x[:-1]
    return np.vstack((arm, np.ones_like(arm))) if plane < 2 else np.ones((1, arm.size))


def first_link_frequency(M: np.ndarray, k_rfe: np.ndarray) -> float:
    """The lowest natural frequency [rad/s] of the full RFE link as a cantilever (the reference of the damping)."""
    return float(np.sqrt(generalized_eigh(np.diag(k_rfe), M)[0][0]))


class LinkReduction:
    """``P`` (n, n_r) with ``q = P q_r``, the reduced damping ``D`` (n_r, n) as a force ``−D u`` on the reduced
    speeds (None when ζ = 0), the friction joints' state coordinates, and the link's basis ``Φ`` (3 (n_rfe − 1),
    n_η) with its reduced matrices. ``modes`` None: ``Φ = I``, the full link with the modal damping ζ on all its
    modes (the same damping as a reduced link's, for comparing the two)."""

    def __init__(self, bodies: list, n: int, n_rfe: int, k_rfe: np.ndarray, modes: int | None, zeta: float,
                 joint_coords: np.ndarray, static_correction: bool = True):
        M, x = link_matrices(bodies, n_rfe)
        K = np.diag(k_rfe)
        blocks = [np.eye(3 * (n_rfe - 1))] if modes is None else []  # None: the full link (its modal damping)
        for plane in range(3 if modes is not None else 0):
            idx = np.arange(plane, 3 * (n_rfe - 1), 3)
            B = interface_map(x, plane)
            Mp, Kp = M[np.ix_(idx, idx)], K[np.ix_(idx, idx)]
            basis = craig_bampton(Mp, Kp, B, modes if plane < 2 else TORSION_MODES)
            if not static_correction:  # the fixed-interface modes alone (the tests' mutation: no static correction)
                basis = basis[:, B.shape[0]:]
            block = np.zeros((3 * (n_rfe - 1), basis.shape[1]))
            block[idx] = basis
            blocks.append(block)
        self.Phi = Phi = np.hstack(blocks)
        self.M_link, self.K_link = M, K
        self.M_r, self.K_r = Phi.T @ M @ Phi, Phi.T @ K @ Phi
        n_eta = Phi.shape[1]
        self.n = n_r = n - 3 * (n_rfe - 1) + n_eta
        first = 8  # the element coordinates follow the base (6), the column and the link root
        P = np.zeros((n, n_r))
        P[:first, :first] = np.eye(first)
        P[first:first + Phi.shape[0], first:first + n_eta] = Phi
        P[first + Phi.shape[0]:, first + n_eta:] = np.eye(n - first - Phi.shape[0])
        self.P = P
        self.eta = np.arange(first, first + n_eta)
        self.state_joint_coords = np.array([np.flatnonzero(P[j])[0] for j in joint_coords])
        self.D = None
        if zeta > 0.0:
            Dr = modal_damping(self.M_r, self.K_r, zeta)
            D = np.zeros((n_r, n))
            D[np.ix_(self.eta, np.arange(first, first + Phi.shape[0]))] = Dr @ np.linalg.pinv(Phi)
            self.D = D

    def full(self, q_r: np.ndarray) -> np.ndarray:
        """``q = P q_r`` (coordinates or speeds)."""
        return self.P @ q_r
