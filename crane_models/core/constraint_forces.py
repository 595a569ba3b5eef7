"""Constraint forces by the method of auxiliary generalized speeds (Cibicik & Egeland, *Determination of
constraint forces for an offshore crane on a moving base*, §II-C and §III-C).

To bring the constraint wrench of one joint to evidence, the outboard body of that joint is imagined to
lose contact with its parent and to move with auxiliary speeds ``u_c`` along chosen unit twists ``s_i``
(rotations or translations the joint forbids), eqs. (40)-(41). The auxiliary twist is added at the origin
of the joint frame (66)-(67) and carried rigidly to every body outboard of the cut (68)-(70); the parent
side does not move. Its partial derivatives are the auxiliary projection matrices ``P̃_k = ∂t_c/∂u_c``
(42). Projecting the Newton-Euler equations (17) of the outboard bodies onto them gives (47)-(50):

    A ρ = Σ_k P̃_kᵀ Π (W_in,k − W_e,k),      A = Σ_k P̃_kᵀ Σ_p Ū_{p,m_k} N_pk      (45), (50)

with ``W_in = [m(v̇ + ω×v); M ω̇ + ω×Mω]`` the kinetic wrench (so that ``Σ P̃ᵀ Π W_in = M_f u̇ + C_f u``
of (48)-(49)), ``W_e`` the applied wrenches and ``N`` the selection of the constraint wrench on the cut
body: a unit rotation ``s_i`` pairs with a unit moment about the same axis, a unit translation with a unit
force along it, i.e. the flipped wrench ``[n; f]`` of (32) with the same components as ``s_i``.

``ρ`` is the wrench the parent exerts **on the cut body**, at the origin of its frame, in its coordinates
(the paper's (72); the parent feels ``−ρ``, (71)). Wrenches elsewhere in this package are ``[f; n]``;
``Π`` (:func:`screws.interchange`) flips them to the ``[n; f]`` order of the paper.

This is an independent route to the same numbers as :class:`reactions.ReactionSolver` (eq. (56) of the
knuckle boom paper, a sum of transported wrenches): the tests compare the two.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .kane import Kinematics, MultibodySystem, _cross, skew_stack
from .native import NativeAuxiliarySpeeds

__all__ = ["AXES", "ConstraintCut", "AuxiliarySpeeds", "joint_effort_wrenches"]

# Unit twists [ω; v] of the six elementary motions of a joint frame: rotation about / translation along x, y, z.
AXES = {name: row for name, row in zip(("rx", "ry", "rz", "tx", "ty", "tz"), np.eye(6))}


@dataclass(frozen=True)
class ConstraintCut:
    """The joint of body ``body`` cut open along the unit twists ``directions`` ([ω; v], joint frame).

    ``directions`` are names from :data:`AXES` or explicit 6-vectors; the cut of §III-C is
    ``ConstraintCut("king", ("rx", "ry", "tx", "ty", "tz"))`` -- eq. (67).
    """

    body: str
    directions: tuple

    def matrix(self) -> np.ndarray:
        """The auxiliary twist directions as columns, shape (6, j) -- ``t̃_c = S u_c`` of (67)."""
        cols = [AXES[d] if isinstance(d, str) else np.asarray(d, dtype=float) for d in self.directions]
        return np.array(cols, dtype=float).T


class AuxiliarySpeeds:
    """Auxiliary projection matrices (42) and constraint-force magnitudes (50) for one cut."""

    def __init__(self, system: MultibodySystem, cut: ConstraintCut):
        self.system = system
        self.cut = cut
        self.body = system.index[cut.body]
        self.S = cut.matrix()
        if np.linalg.matrix_rank(self.S) != self.S.shape[1]:
            raise ValueError("constraint directions must be linearly independent")
        # Bodies that move with the auxiliary speeds: the cut body and everything outboard of it.
        self.outboard = np.flatnonzero(system.path[:, self.body])
        self._S_w, self._S_v = self.S[:3], self.S[3:]
        # A of (45) involves only the cut body's own P̃ = [S_ω; S_v − c × S_ω] (its COG c in its own frame):
        # constant, so it is inverted once (for the cut of (67) it is the identity).
        zero = np.zeros(system.n)
        kin0 = system.kinematics(zero, zero)
        A = self.coefficient_matrix(kin0, self.partial_velocities(kin0))
        if np.linalg.cond(A) > 1e12:
            raise ValueError("the constraint directions give a singular coefficient matrix A of eq. (45)")
        self._A_inv = np.linalg.inv(A)
        self.native = None
        if system.native is not None and self.S.shape[1] <= 6:
            self.native = NativeAuxiliarySpeeds(system.native, self.body, self.outboard, self.S, self._A_inv)

    def partial_velocities(self, kin: Kinematics) -> np.ndarray:
        """``P̃_k = ∂t_{c0k/m_k}^k/∂u_c`` for the outboard bodies, shape (len(outboard), 6, j), eq. (42).

        The auxiliary twist ``S u_c`` at the origin of the cut frame (66)-(67) is rotated to Frame 0,
        referenced to the COG of each outboard body and rotated into its coordinates -- the chain of
        ``U`` and ``V`` transformations of (68)-(70) written as one screw transformation per body.
        """
        k, ob = self.body, self.outboard
        R = kin.rotation[k]
        omega, v_o = R @ self._S_w, R @ self._S_v  # [ω; v] in Frame 0, at o_k
        p = kin.origin[k] - kin.cog[ob]  # from each COG to the cut origin
        vel = v_o + skew_stack(p) @ omega  # v_m = v_o + p_{m,o} × ω, eq. (20)
        rt = kin.rotation[ob].transpose(0, 2, 1)
        out = np.empty((len(ob), 6, self.S.shape[1]))
        out[:, :3] = rt @ omega
        out[:, 3:] = rt @ vel
        return out

    def coefficient_matrix(self, kin: Kinematics, partials: np.ndarray) -> np.ndarray:
        """``A = Σ_k P̃_kᵀ Σ_p Ū_{p,m_k} N_pk`` of eq. (45).

        The constraint wrench acts on the cut body at its frame origin ``p`` (``N = S`` there) and on the
        parent, whose auxiliary partial velocity is zero (71), so only the cut body contributes.
        ``Ū_{p,m}`` (46) moves the flipped wrench ``[n; f]`` from ``p`` to the COG.
        """
        u_bar = np.eye(6)
        u_bar[:3, 3:] = skew_stack(-self.system.com[self.body][None])[0]  # p̂_{m_k,p}: COG → frame origin
        return partials[0].T @ u_bar @ self.S

    def magnitudes(self, kin: Kinematics, udot: np.ndarray, external: np.ndarray) -> np.ndarray:
        """``ρ_c`` of eq. (50) from the motion ``(q, u, u̇)`` and the applied wrenches ``[f; n]`` at each COG."""
        if self.native is not None and kin.record is not None:
            return self.native.magnitudes(self.system.native.projections_record(kin), udot, external)
        partials = self.partial_velocities(kin)
        ob = self.outboard
        net = self.system.inertial_wrenches(kin, udot)[ob] - external[ob]  # W_in − W_e, [f; n]
        # Π flips [f; n] to [n; f]: rhs = Σ_k P̃_kᵀ Π (W_in − W_e)_k
        rhs = np.einsum("kai,ka->i", partials[:, :3], net[:, 3:]) + np.einsum("kai,ka->i", partials[:, 3:], net[:, :3])
        return self._A_inv @ rhs

    def wrench(self, rho: np.ndarray) -> np.ndarray:
        """The constraint wrench on the cut body as flipped ``[n; f]`` at its origin, its coordinates."""
        return self.S @ rho


def joint_effort_wrenches(system: MultibodySystem, kin: Kinematics, efforts: Sequence[float]) -> np.ndarray:
    """Wrenches ``[f; n]`` at each COG (body coordinates) of joint efforts acting between body and parent.

    ``efforts[k]`` is a torque about the axis of a revolute joint or a force along a prismatic one; it
    acts on body ``k`` and, reversed, on its parent (on the ground for a root body). Applying efforts as
    such action-reaction pairs -- rather than only as generalized forces -- is what keeps internal
    efforts out of the constraint forces of a cut (their sum over the outboard bodies vanishes).
    """
    e = np.asarray(efforts, dtype=float)
    a_w = (kin.rotation @ system.axis[:, :, None])[:, :, 0]
    torque = (system.revolute * e)[:, None] * a_w
    # children_sum[p, k] = 1 when p is the parent of k: it sums the reactions per parent.
    world = np.zeros((system.nb, 6))
    world[:, 3:] = torque - system.children_sum @ torque
    if system.prismatic.any():  # a force along a joint also has a moment about both COGs
        f_w = (system.prismatic * e)[:, None] * a_w
        cog_of_parent = kin.cog[np.maximum(system.parent, 0)]
        world[:, :3] = f_w - system.children_sum @ f_w
        world[:, 3:] += _cross(kin.origin - kin.cog, f_w) - system.children_sum @ _cross(kin.origin - cog_of_parent, f_w)
    rt = kin.rotation.transpose(0, 2, 1)
    return np.concatenate(((rt @ world[:, :3, None])[:, :, 0], (rt @ world[:, 3:, None])[:, :, 0]), axis=1)
