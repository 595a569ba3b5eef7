"""Reaction wrenches in joints and cylinder supports (Cibicik & Egeland 2018, §4).

Total wrench of each body ``W_t = W_e − W_in`` (49); a cylinder's barrel and piston wrenches are replaced
by an equivalent pair at its supports (53)-(55); the reaction in a joint is minus the sum of the total
wrenches of everything outboard of it, transported to the joint (56). Wrenches are ``[f; n]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .kane import Kinematics, MultibodySystem, skew_stack
from .native import NativeReactions

__all__ = [
    "CylinderUnit",
    "support_matrices",
    "equivalent_cylinder_wrenches",
    "ReactionSolver",
]


@dataclass(frozen=True)
class CylinderUnit:
    """A barrel/piston pair whose loop closes on body ``closure`` at the origin of the piston frame."""

    barrel: str
    piston: str
    closure: str


def support_matrices(lc: float, db: float, dp: float) -> tuple:
    """The auxiliary matrices ``S_bbk, S_pbk, S_bpk, S_ppk`` of eqs. (54)-(55), padded to 6×6.

    ``lc`` is the cylinder length ``l_ck = l_bk + q_k``, ``db`` the barrel COG distance from the barrel
    joint, ``dp`` the piston COG distance from the piston attachment point. Axial forces go to the
    support of the body they act on (§4.2.1), torsion to the barrel support, bending to both supports
    by the equilibrium (51)-(52).
    """
    sbb = np.zeros((6, 6))
    sbb[0, 0] = sbb[1, 1] = (lc - db) / lc
    sbb[0, 4] = -1.0 / lc
    sbb[1, 3] = 1.0 / lc
    sbb[2, 2] = 1.0
    sbb[5, 5] = 1.0
    spb = np.zeros((6, 6))
    spb[0, 0] = spb[1, 1] = dp / lc
    spb[0, 4] = -1.0 / lc
    spb[1, 3] = 1.0 / lc
    spb[5, 5] = 1.0
    sbp = np.zeros((6, 6))
    sbp[0, 0] = sbp[1, 1] = db / lc
    sbp[0, 4] = 1.0 / lc
    sbp[1, 3] = -1.0 / lc
    spp = np.zeros((6, 6))
    spp[0, 0] = spp[1, 1] = (lc - dp) / lc
    spp[0, 4] = 1.0 / lc
    spp[1, 3] = -1.0 / lc
    spp[2, 2] = 1.0
    return sbb, spb, sbp, spp


def equivalent_cylinder_wrenches(w_barrel: np.ndarray, w_piston: np.ndarray, lc: float, db: float, dp: float) -> tuple:
    """``W*_tbk, W*_tpk`` of eq. (53): the total wrenches of barrel and piston (at their COGs, cylinder
    coordinates) replaced by wrenches at the barrel joint and at the piston attachment point."""
    sbb, spb, sbp, spp = support_matrices(lc, db, dp)
    return sbb @ w_barrel + spb @ w_piston, sbp @ w_barrel + spp @ w_piston


class ReactionSolver:
    """Evaluates eq. (56) for every joint of a tree whose cylinder loops are listed in ``cylinders``.

    All contributions are moved to Frame 0 (referenced to its origin) once; the reaction of joint k is
    then the sum over the bodies outboard of k, referenced to the origin of Frame k (56).
    """

    def __init__(self, system: MultibodySystem, cylinders: Sequence[CylinderUnit] = ()):
        self.system = system
        idx = system.index
        self.cylinders = [(idx[c.barrel], idx[c.piston], idx[c.closure]) for c in cylinders]
        cyl_bodies = [i for c in self.cylinders for i in c[:2]]
        self.structural = [k for k in range(system.nb) if k not in cyl_bodies]
        outboard = system.path.T  # outboard[k, j]: body j lies in the subtree of body k
        # Contributions: structural bodies at their COG, then per cylinder barrel and piston supports.
        item_body, item_owner = list(self.structural), list(self.structural)
        self._support_maps = []
        for b, p, closure in self.cylinders:
            com_b, com_p = system.com[b], system.com[p]
            if not (np.allclose(com_b[:2], 0) and np.allclose(com_p[:2], 0)):
                raise ValueError("cylinder COGs must lie on the cylinder axis (z of the barrel frame)")
            db, dp = float(com_b[2]), float(-com_p[2])
            # (54)-(55) are affine in 1/l_c: S(l_c) = A0 + A1 / l_c.
            s1 = np.block([list(support_matrices(1.0, db, dp)[:2]), list(support_matrices(1.0, db, dp)[2:])])
            s2 = np.block([list(support_matrices(2.0, db, dp)[:2]), list(support_matrices(2.0, db, dp)[2:])])
            a1 = 2.0 * (s1 - s2)
            self._support_maps.append((s1 - a1, a1))
            item_body += [b, p]
            item_owner += [system.parent[b], closure]
        self._item_body = np.array(item_body, dtype=int)
        self._n_struct = len(self.structural)
        owner = np.array(item_owner, dtype=int)
        self._mask = np.where(owner >= 0, outboard[:, np.maximum(owner, 0)], 0.0)  # ground-supported: none
        self._cyl_rows = np.array(cyl_bodies, dtype=int)
        self.native = None
        if system.native is not None:
            self.native = NativeReactions(system.native, self._item_body, self.structural, self._mask,
                                          self.cylinders, self._support_maps)

    def solve(self, kin: Kinematics, external: np.ndarray, udot: np.ndarray) -> tuple:
        """``(W_t, supports, W_r)``: total wrenches (49), the support wrenches (53) of every cylinder as a
        (ncyl, 2, 6) array and the joint reactions (56) -- the three steps below in one call (in the
        compiled kernel when the kinematics came from it)."""
        if self.native is not None and kin.record is not None:
            return self.native.evaluate(self.system.native.projections_record(kin), udot, external)
        total = self.total_wrenches(kin, external, udot)
        supports = self.cylinder_support_wrenches(kin, total)
        joints = self.joint_reactions(kin, total, supports)
        return total, np.array(supports).reshape(len(self.cylinders), 2, 6), joints

    def total_wrenches(self, kin: Kinematics, external: np.ndarray, udot: np.ndarray) -> np.ndarray:
        """``W_t = W_e − W_in`` of eq. (49) for every body, ``[f; n]`` at the COG in body coordinates."""
        return external - self.system.inertial_wrenches(kin, udot)

    def cylinder_support_wrenches(self, kin: Kinematics, total: np.ndarray) -> list:
        """``[(W*_tb, W*_tp)]`` per cylinder (53), in the cylinder frame, at barrel joint / piston point."""
        out = []
        for (b, p, _), (a0, a1) in zip(self.cylinders, self._support_maps):
            lc = float(np.linalg.norm(kin.origin[p] - kin.origin[b]))
            w = np.concatenate((total[b], total[p]))
            ws = a0 @ w + (a1 @ w) / lc
            out.append((ws[:6], ws[6:]))
        return out

    def joint_reactions(self, kin: Kinematics, total: np.ndarray, supports: list) -> np.ndarray:
        """Reaction wrench ``W_r`` of every joint (56): the wrench that the inboard body exerts on body k,
        referenced to the origin of Frame k, in Frame k coordinates; shape (nb, 6). Rows of cylinder
        bodies are zero (their support wrenches come from :meth:`cylinder_support_wrenches`)."""
        items = np.concatenate([-total[self.structural]] + [-np.concatenate(ws)[None].reshape(2, 6) for ws in supports])
        R = kin.rotation[self._item_body]
        points = np.concatenate((kin.cog[self.structural], kin.origin[self._item_body[self._n_struct:]]))
        f = (R @ items[:, :3, None])[:, :, 0]
        n = (R @ items[:, 3:, None])[:, :, 0] + (skew_stack(points) @ f[:, :, None])[:, :, 0]
        F = self._mask @ f
        N = self._mask @ n - (skew_stack(kin.origin) @ F[:, :, None])[:, :, 0]
        Rt = kin.rotation.transpose(0, 2, 1)
        out = np.concatenate(((Rt @ F[:, :, None])[:, :, 0], (Rt @ N[:, :, None])[:, :, 0]), axis=1)
        out[self._cyl_rows] = 0.0
        return out
