"""Every output of a crane from one evaluation in one kernel call (``mbs_crane_outputs``), written straight into the
caller's output table through an index map prepared once per list of output names. The Python outputs of the
models (``KnuckleBoomModel.crane_outputs``) are the specification; tests/test_kernel_outputs.py compares."""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

from .system import NativeEffortLaw, NativeSystem, _address, library
from .wrenches import NativeAuxiliarySpeeds, NativeBaseLoads, NativeReactions

__all__ = ["NativeCraneOutputs", "NativeCutOutputs", "OutputPlan", "OutputWriters", "kernel_writer"]


class _CraneOutputs(ctypes.Structure):
    """``mbs_crane_outputs_model`` of crane_outputs.h."""
    _fields_ = ([(name, ctypes.c_void_p) for name in ("reactions", "law", "loads")]
                + [(name, ctypes.c_int) for name in ("n_x", "n_angles", "tip_body", "n_act", "n_entries", "n_rows")]
                + [(name, ctypes.c_void_p) for name in ("x_at", "angle_body")] + [("tip", ctypes.c_double * 3)]
                + [(name, ctypes.c_void_p) for name in ("act_entry", "act_coord", "act_sign", "row_body",
                                                       "row_in_frame0")])


class OutputPlan:
    """The outputs ``names`` as indices into the kernel's values (:class:`NativeCraneOutputs`), with the values
    buffer whose tail holds the outputs the kernel does not compute (``slot``: name -> index there), filled once
    (constants) or by the caller before each call (a payload's outputs)."""

    def __init__(self, names: tuple, index: np.ndarray, values: np.ndarray, slot: dict) -> None:
        self.names, self.index, self.values, self.slot = names, index, values, slot
        self.index_pointer, self.values_pointer = index.ctypes.data, values.ctypes.data


class _KernelOutputs:
    """What the kernel's output functions share: the names of the values they compute (``value_names``, in their
    order; None for a value no output shows), the index maps of lists of output names, and the caller's table."""

    def __init__(self, value_names: Sequence, size: int) -> None:
        if size != len(value_names):
            raise ValueError(f"the kernel computes {size} values, {len(value_names)} are named")
        self.size = size
        self._position = {name: i for i, name in enumerate(value_names) if name is not None}
        self._out, self._out_ptr = None, 0

    def plan(self, names: Sequence[str], constants: dict | None = None) -> OutputPlan:
        """The index map of ``names``: each a value of the kernel's or one of ``constants`` (name: number); a
        name that is neither raises KeyError naming it."""
        constants = constants or {}
        extra = [name for name in dict.fromkeys(names) if name not in self._position]
        unknown = [name for name in extra if name not in constants]
        if unknown:
            raise KeyError(f"no output named {', '.join(map(repr, unknown))}")
        slot = {name: self.size + i for i, name in enumerate(extra)}
        position = {**self._position, **slot}
        values = np.zeros(self.size + len(extra))
        values[self.size:] = [float(constants[name]) for name in extra]
        return OutputPlan(tuple(names), np.array([position[name] for name in names] or [0], dtype=np.intc), values,
                          slot)

    def _table(self, out: np.ndarray, plan: OutputPlan) -> int:
        """The address of the caller's table ``out``, checked when it is new: the kernel writes len(names) doubles."""
        if out is not self._out:
            if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous
                    and out.flags.writeable and out.size == len(plan.names)):
                raise ValueError(f"out must be a writable contiguous float64 array of {len(plan.names)} values")
            self._out, self._out_ptr = out, _address(out) if out.size else 0
        elif out.size != len(plan.names):
            raise ValueError(f"out has {out.size} values for {len(plan.names)} outputs")
        return self._out_ptr


class NativeCraneOutputs(_KernelOutputs):
    """The kernel's record of what a crane outputs (``mbs_crane_outputs_model``) and the call that writes them.

    ``value_names``: the name of each value the kernel computes, in its order (crane_outputs.h): the state entries
    ``x_at``, the joint angles of ``angle_bodies``, the tip (3), the load on the base (6, zero on a fixed base), the
    joint reactions of ``rows`` (``(body, in_frame0)``, six each; on a moving base those of ``loads``), the support
    forces of each cylinder's barrel and piston (3 each), the efforts of the ``n_act`` first coordinates without their
    end stops, the end-stop forces and whether one is active; a name may be None (a value no output shows).
    ``actuators``: ``(flat entry of the (nb, 6) applied wrenches, coordinate, sign)``, in the order of the entries of
    ``loads`` (:class:`wrenches.NativeBaseLoads`, a crane on a moving base) when it is given."""

    COSIM_KIND = 0  # MBS_COSIM_CRANE_OUTPUTS of cosim_step.h: how mbs_cosim_step writes these outputs

    def __init__(self, native: NativeSystem, reactions: NativeReactions, law: NativeEffortLaw,
                 value_names: Sequence, x_at: Sequence[int], angle_bodies: Sequence[int], tip_body: int, tip,
                 n_act: int, actuators: Sequence[tuple], rows: Sequence[tuple], loads: NativeBaseLoads | None = None
                 ) -> None:
        lib = library()
        if loads is not None and (list(loads._keep[2]) != [a[0] for a in actuators] or loads._n_rows != len(rows)):
            raise ValueError("the actuator entries and rows must be those of the base loads")
        self._native, self._keep = native, [reactions, law, loads]
        arrays = [np.ascontiguousarray(a, dtype=dt) for a, dt in (
            (list(x_at), np.intc), (list(angle_bodies) or [0], np.intc), ([a[0] for a in actuators], np.intc),
            ([a[1] for a in actuators], np.intc), ([a[2] for a in actuators], float), ([r[0] for r in rows], np.intc),
            ([int(bool(r[1])) for r in rows], np.intc))]
        self._keep += arrays
        p = [a.ctypes.data for a in arrays]
        self._struct = _CraneOutputs(reactions._model_ptr, law.pointer, loads._ptr if loads is not None else None,
                                     len(x_at), len(angle_bodies), int(tip_body), int(n_act), len(actuators), len(rows),
                                     p[0], p[1], (ctypes.c_double * 3)(*map(float, tip)), *p[2:])
        self._ptr = ctypes.addressof(self._struct)
        super().__init__(value_names, lib.mbs_crane_values_size(native._model_ptr, self._ptr))
        nb, ncyl, n_items = native.nb, reactions.ncyl, reactions._model.n_items
        self._work = np.empty(len(actuators) + 6 * n_items + 24 * nb + 24 * ncyl + 6 * len(rows) + 9)
        self._fn = lib.mbs_crane_outputs
        self._head = (native._model_ptr, self._ptr)
        self._work_ptr = self._work.ctypes.data

    def write(self, plan: OutputPlan, x: np.ndarray, record: np.ndarray, out: np.ndarray,
              udot: np.ndarray | None = None, extra: np.ndarray | None = None) -> None:
        """The outputs of ``plan`` at the state ``x`` with the evaluation ``record`` there (``udot``: its
        accelerations, None: the record's; ``extra``: further applied wrenches (nb, 6)) into ``out`` (float64, one
        per name)."""
        if self._fn(*self._head, _address(x), _address(record), None if udot is None else _address(udot),
                    None if extra is None else _address(extra), plan.values_pointer, plan.index_pointer,
                    len(plan.names), self._table(out, plan), self._work_ptr):
            raise ValueError("mbs_crane_outputs: the base loads refused their cut (at most 6 directions)")


class _CutOutputs(ctypes.Structure):
    """``mbs_cut_outputs_model`` of crane_outputs.h."""
    _fields_ = ([("law", ctypes.c_void_p)]
                + [(name, ctypes.c_int) for name in ("cut", "n_ob", "nj", "frame", "tip_body")]
                + [(name, ctypes.c_void_p) for name in ("outboard", "S", "Ainv", "joint_of")]
                + [("tip", ctypes.c_double * 3)])


class NativeCutOutputs(_KernelOutputs):
    """The kernel's record of what a crane outputs at a constraint cut (``mbs_cut_outputs_model``: the wrench of
    ``aux`` (:class:`wrenches.NativeAuxiliarySpeeds`) with the efforts as action-reaction pairs between the bodies
    ``joint_of`` and their parents) and the call that writes them. ``value_names`` as :class:`NativeCraneOutputs`',
    in the order of crane_outputs.h: the state, the wrench ``[n; f]`` in the cut body's frame and in body ``frame``'s,
    the tip (3), the efforts."""

    COSIM_KIND = 1  # MBS_COSIM_CUT_OUTPUTS of cosim_step.h

    def __init__(self, native: NativeSystem, aux: NativeAuxiliarySpeeds, law: NativeEffortLaw, value_names: Sequence,
                 joint_of: Sequence[int], frame: int, tip_body: int, tip) -> None:
        lib = library()
        self._joint_of = np.ascontiguousarray(joint_of, dtype=np.intc)
        if self._joint_of.shape != (native.n,):
            raise ValueError(f"joint_of names {self._joint_of.size} bodies for {native.n} coordinates")
        self._keep = [aux, law]
        ob, S, Ai = aux._ptrs
        self._struct = _CutOutputs(law.pointer, aux._cut, len(aux._outboard), aux._nj, int(frame), int(tip_body), ob,
                                   S, Ai, self._joint_of.ctypes.data, (ctypes.c_double * 3)(*map(float, tip)))
        self._ptr = ctypes.addressof(self._struct)
        super().__init__(value_names, lib.mbs_cut_values_size(native._model_ptr))
        self._work = np.empty(12 * native.nb + 6)
        self._fn = lib.mbs_cut_outputs
        self._head = (native._model_ptr, self._ptr)
        self._work_ptr = self._work.ctypes.data

    def write(self, plan: OutputPlan, x: np.ndarray, record: np.ndarray, out: np.ndarray) -> None:
        """The outputs of ``plan`` at the state ``x`` with the evaluation ``record`` there into ``out``."""
        self._fn(*self._head, _address(x), _address(record), None, plan.values_pointer, plan.index_pointer,
                 len(plan.names), self._table(out, plan), self._work_ptr)


class OutputWriters:
    """A model's ``write_outputs`` (:meth:`integration.cosimulation.CoSimulation.write_outputs`): for each list of
    names the writer ``make(names)`` returns -- ``write(x, inputs, aux, out)``, or with ``timed``
    ``write(t, x, inputs, aux, out)`` (outputs that depend on the time, not only on the evaluation) -- made once and
    kept (a few lists: a host asks for one or two)."""

    KEPT = 8

    def __init__(self, make, timed: bool = False) -> None:
        self._make, self._writers, self._timed = make, {}, timed

    def __call__(self, t: float, x: np.ndarray, inputs: np.ndarray, aux, names: tuple, out: np.ndarray) -> None:
        key = names if isinstance(names, tuple) else tuple(names)
        writer = self._writers.get(key)
        if writer is None:
            if len(self._writers) >= self.KEPT:
                self._writers.clear()
            writer = self._writers[key] = self._make(key)
        if self._timed:
            writer(t, x, inputs, aux, out)
        else:
            writer(x, inputs, aux, out)


def kernel_writer(kernel: _KernelOutputs | None, names: tuple, constants: dict, outputs: Callable,
                  usable: Callable) -> Callable:
    """``write(x, inputs, aux, out)`` of the outputs ``names``: by ``kernel`` when there is one and ``usable(aux)``
    (an evaluation of the kernel's), else from the dict ``outputs(x, inputs, aux)`` (the specification) with
    ``constants`` (name: number) for the names it lacks."""
    fixed = dict(constants)

    def from_dict(x, inputs, aux, out) -> None:
        values = outputs(x, inputs, aux)
        values.update(fixed)
        out[:] = [values[name] for name in names]

    if kernel is None:
        return from_dict
    plan = kernel.plan(names, constants)

    def write(x, inputs, aux, out) -> None:
        if not usable(aux):
            return from_dict(x, inputs, aux, out)
        kernel.write(plan, x, aux.record, out)

    return write
