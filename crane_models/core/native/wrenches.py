"""Reaction wrenches (``mbs_reactions``), constraint forces by auxiliary generalized speeds (``mbs_aux_speeds``)
and the load of a crane on a moving base with its interface inertia (``mbs_interface_wrench``,
``mbs_interface_inertia``) in the kernel."""
from __future__ import annotations

import ctypes

import numpy as np

from .system import NativeSystem, _address, library

__all__ = ["NativeReactions", "NativeAuxiliarySpeeds", "NativeInterfaceInertia", "NativeBaseLoads"]


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
        self._wrench_fn = library().mbs_interface_wrench

    def magnitudes(self, record: np.ndarray, udot: np.ndarray, external: np.ndarray) -> np.ndarray:
        n, nb, nj = self._native.n, self._native.nb, self._nj
        buf, base = _motion_and_wrenches(self._native, udot, external, nj)
        ob, S, Ai = self._ptrs
        self._fn(self._native._model_ptr, _address(record), base, base + 8 * n, self._cut, len(self._outboard),
                 ob, nj, S, Ai, base + 8 * (n + 6 * nb), self._work_ptr)
        return buf[n + 6 * nb:]

    def interface_wrench(self, record: np.ndarray, udot: np.ndarray, external: np.ndarray, base: int,
                         axial_torque: float) -> np.ndarray:
        """``[f; n]`` (6) the crane exerts on body ``base`` at the cut origin, in ``base``'s frame: minus the
        constraint wrench ``S ρ`` of (50) and minus ``axial_torque`` about the cut frame's z axis
        (``mbs_interface_wrench``; :meth:`moving_base.KnuckleBoomOnMovingBaseModel.interface_wrench` is the
        specification)."""
        n, nb, nj = self._native.n, self._native.nb, self._nj
        buf, addr = _motion_and_wrenches(self._native, udot, external, 6)
        ob, S, Ai = self._ptrs
        self._wrench_fn(self._native._model_ptr, _address(record), addr, addr + 8 * n, self._cut,
                        len(self._outboard), ob, nj, S, Ai, int(base), float(axial_torque),
                        addr + 8 * (n + 6 * nb), self._work_ptr)
        return buf[n + 6 * nb:]


class NativeInterfaceInertia:
    """``A`` of ``W = W₀ − A a`` in the kernel (``mbs_interface_inertia``;
    :func:`core.moving_base.interface_inertia.interface_inertia` is the specification) for a system of ``n``
    coordinates with the six ``prescribed`` base coordinates ``[roll, pitch, yaw, x0, y0, z0]`` and the ``free``
    ones (index sequences)."""

    def __init__(self, n: int, prescribed, free) -> None:
        prescribed, free = list(prescribed), list(free)
        if len(prescribed) != 6 or sorted(set(prescribed + free)) != sorted(prescribed + free) \
                or not all(0 <= i < n for i in prescribed + free):
            raise ValueError(f"prescribed must be six and free further distinct coordinates of 0 … {n - 1}, got "
                             f"{prescribed} and {free}")
        self._n, self._nf = n, len(free)
        self._index = np.array(prescribed + free, dtype=np.intc)
        ip = self._index.ctypes.data
        self._ptrs = (ip, ip + ctypes.sizeof(ctypes.c_int) * 6)
        self._work = np.empty(self._nf * self._nf + 12 * self._nf + 1)
        self._work_ptr = self._work.ctypes.data
        self._fn = library().mbs_interface_inertia

    def __call__(self, M: np.ndarray, euler_inverse: np.ndarray, rotation: np.ndarray) -> np.ndarray:
        """``A`` (6×6, rows ``[f; n]``, columns ``[a_P; ω̇]``, base frame) from the mass matrix ``M`` of (43),
        ``E⁻¹`` of (53) and ``R^0_1``."""
        buf = np.empty(36 + 9 + 9 + self._n * self._n)
        buf[36:45] = euler_inverse.reshape(-1)
        buf[45:54] = rotation.reshape(-1)
        buf[54:] = M.reshape(-1)
        addr = _address(buf)
        pres, free = self._ptrs
        if self._fn(self._n, addr + 8 * 54, pres, free, self._nf, addr + 8 * 36, addr + 8 * 45, addr, self._work_ptr):
            raise np.linalg.LinAlgError("the crane's block M_ff of the mass matrix is not positive definite")
        return buf[:36].reshape(6, 6)


class _BaseLoads(ctypes.Structure):
    _fields_ = ([("reactions", ctypes.c_void_p)]
                + [(name, ctypes.c_int) for name in ("cut", "n_ob", "nj", "base", "n_act", "n_rows", "tip_body")]
                + [(name, ctypes.c_void_p) for name in ("outboard", "act_entry", "rows", "row_frame", "S", "Ainv")]
                + [("g", ctypes.c_double), ("tip", ctypes.c_double * 3)])


class NativeBaseLoads:
    """``mbs_base_loads``: the applied wrenches, the interface wrench (:meth:`NativeAuxiliarySpeeds.interface_wrench`),
    chosen joint reactions (:class:`NativeReactions`) and a tip point of a crane on a moving base from one evaluation,
    in one kernel call (``KnuckleBoomOnMovingBaseModel.loads_reference`` is the specification).

    ``actuator_entries``: flat indices into the ``(nb, 6)`` applied wrenches where the actuator values are added (the
    first value is also the torque about the cut frame's z axis); ``rows``, ``row_frames``: the bodies whose joint
    reactions are returned and the body into whose frame each is turned; ``tip_body``, ``tip``: the tip point."""

    def __init__(self, native: NativeSystem, reactions: NativeReactions, aux: NativeAuxiliarySpeeds, base: int,
                 actuator_entries, rows, row_frames, tip_body: int, tip, g: float) -> None:
        self._native = native
        self._keep = [reactions, aux] + [np.ascontiguousarray(a, dtype=np.intc)
                                         for a in (actuator_entries, rows, row_frames)]
        entries, row_arr, frame_arr = self._keep[2:]
        ob, S, Ai = aux._ptrs
        self._struct = _BaseLoads(reactions._model_ptr, aux._cut, len(aux._outboard), aux._nj, int(base), len(entries),
                                  len(row_arr), int(tip_body), ob, entries.ctypes.data, row_arr.ctypes.data,
                                  frame_arr.ctypes.data, S, Ai, float(g), (ctypes.c_double * 3)(*tip))
        self._ptr = ctypes.addressof(self._struct)
        nb, n_items, ncyl = native.nb, reactions._model.n_items, reactions.ncyl
        self._n_act, self._n_rows = len(entries), len(row_arr)
        self._work = np.empty(6 * n_items + 18 * nb + 12 * ncyl)
        self._work_ptr = self._work.ctypes.data
        self._out_size = 6 * nb + 6 + 6 * len(row_arr) + 3
        self._fn = library().mbs_base_loads

    def __call__(self, record: np.ndarray, udot: np.ndarray, actuator_values, extra: np.ndarray | None = None) -> tuple:
        """``(applied (nb, 6), wrench [f; n] (6), reactions (len(rows), 6), tip (3))`` -- views of one fresh buffer."""
        n, nb, na = self._native.n, self._native.nb, self._n_act
        extra_size = 0 if extra is None else 6 * nb
        buf = np.empty(n + na + extra_size + self._out_size)
        buf[:n] = udot
        buf[n:n + na] = actuator_values
        addr = _address(buf)
        extra_addr = None
        if extra is not None:
            buf[n + na:n + na + extra_size] = extra.reshape(-1)
            extra_addr = addr + 8 * (n + na)
        o = n + na + extra_size
        code = self._fn(self._native._model_ptr, self._ptr, _address(record), addr, addr + 8 * n, extra_addr,
                        addr + 8 * o, self._work_ptr)
        if code:
            raise ValueError(f"mbs_base_loads: at most 6 cut directions, got {self._struct.nj}")
        w = o + 6 * nb
        r = w + 6
        t = r + 6 * self._n_rows
        return buf[o:w].reshape(nb, 6), buf[w:r], buf[r:t].reshape(self._n_rows, 6), buf[t:]
