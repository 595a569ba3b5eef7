"""Reaction wrenches (``mbs_reactions``) and constraint forces by auxiliary generalized speeds
(``mbs_aux_speeds``) in the kernel."""
from __future__ import annotations

import ctypes

import numpy as np

from .system import NativeSystem, _address, library

__all__ = ["NativeReactions", "NativeAuxiliarySpeeds"]


class _ReactionModel(ctypes.Structure):
    _fields_ = [("n_items", ctypes.c_int), ("n_struct", ctypes.c_int), ("ncyl", ctypes.c_int)] + [
        (name, ctypes.c_void_p) for name in ("item_body", "structural", "mask", "cyl", "a0", "a1")]



def _motion_and_wrenches(native: NativeSystem, udot: np.ndarray, external: np.ndarray, room: int) -> tuple:
    """One fresh buffer ``[u̇ | W_e (nb, 6) | room for the results]`` and its address, for the kernel
    functions that take accelerations and applied wrenches."""
    n, nb = native.n, native.nb
    buf = np.empty(n + 6 * nb + room)
    buf[:n] = udot
    buf[n:n + 6 * nb] = external.reshape(-1)
    return buf, _address(buf)


class NativeReactions:
    """Constant record of a :class:`reactions.ReactionSolver` and its evaluation with the kernel."""

    def __init__(self, native: NativeSystem, item_body, structural, mask, cylinders, support_maps) -> None:
        self._native = native
        self._fn = library().mbs_reactions
        ncyl = len(cylinders)
        a0 = np.array([m[0] for m in support_maps]) if ncyl else np.zeros((1, 12, 12))
        a1 = np.array([m[1] for m in support_maps]) if ncyl else np.zeros((1, 12, 12))
        cyl = np.array([c[:2] for c in cylinders]) if ncyl else np.zeros((1, 2))
        self._arrays = [np.ascontiguousarray(a, dtype=dt) for a, dt in (
            (item_body, np.intc), (structural if len(structural) else [0], np.intc), (mask, float),
            (cyl, np.intc), (a0, float), (a1, float))]
        self._model = _ReactionModel(len(item_body), len(structural), ncyl, *(a.ctypes.data for a in self._arrays))
        self._model_ptr = ctypes.addressof(self._model)
        self.ncyl = ncyl
        self._work = np.empty(6 * len(item_body) + 6 * native.nb)
        self._work_ptr = self._work.ctypes.data

    def evaluate(self, record: np.ndarray, udot: np.ndarray, external: np.ndarray) -> tuple:
        """``(total (nb, 6), supports (ncyl, 2, 6), joints (nb, 6))`` for a kinematics record."""
        n, nb = self._native.n, self._native.nb
        buf, base = _motion_and_wrenches(self._native, udot, external, 12 * nb + 12 * self.ncyl)
        o_tot = n + 6 * nb
        o_sup = o_tot + 6 * nb
        o_jnt = o_sup + 12 * self.ncyl
        self._fn(self._native._model_ptr, self._model_ptr, _address(record), base, base + 8 * n,
                 base + 8 * o_tot, base + 8 * o_sup, base + 8 * o_jnt, self._work_ptr)
        return (buf[o_tot:o_sup].reshape(nb, 6), buf[o_sup:o_jnt].reshape(self.ncyl, 2, 6),
                buf[o_jnt:].reshape(nb, 6))


class NativeAuxiliarySpeeds:
    """Constant record of a :class:`constraint_forces.AuxiliarySpeeds` cut and its evaluation of (50)."""

    def __init__(self, native: NativeSystem, cut: int, outboard, S: np.ndarray, A_inv: np.ndarray) -> None:
        self._native = native
        self._fn = library().mbs_aux_speeds
        self._cut, self._nj = int(cut), S.shape[1]
        self._outboard = np.ascontiguousarray(outboard, dtype=np.intc)
        self._S = np.ascontiguousarray(S, dtype=float)
        self._A_inv = np.ascontiguousarray(A_inv, dtype=float)
        self._ptrs = (self._outboard.ctypes.data, self._S.ctypes.data, self._A_inv.ctypes.data)
        self._work = np.empty(6 * native.nb)
        self._work_ptr = self._work.ctypes.data

    def magnitudes(self, record: np.ndarray, udot: np.ndarray, external: np.ndarray) -> np.ndarray:
        n, nb, nj = self._native.n, self._native.nb, self._nj
        buf, base = _motion_and_wrenches(self._native, udot, external, nj)
        ob, S, Ai = self._ptrs
        self._fn(self._native._model_ptr, _address(record), base, base + 8 * n, self._cut, len(self._outboard),
                 ob, nj, S, Ai, base + 8 * (n + 6 * nb), self._work_ptr)
        return buf[n + 6 * nb:]
