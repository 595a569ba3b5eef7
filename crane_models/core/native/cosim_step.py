"""The kernel's communication step (``mbs_cosim_step``, cosim_step.c): the record of one model instance that lets a
caller step it from C -- inputs read from a value table, the step, the outputs written back -- and the hand-over of
the point reached between that record and Python. What may be stepped so is decided above
(``integration.kernel_steps``); this binding only fills the record."""
from __future__ import annotations

import ctypes
from typing import Sequence

import numpy as np

from .outputs import NativeCraneOutputs, NativeCutOutputs, OutputPlan
from .stepping import NativeIntegration
from .system import library

__all__ = ["NativeCosimStep", "COSIM_REASONS", "Cosim"]

_P, _I, _D, _L = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_long

# mbs_cosim_step's return values (cosim_step.h): why a step was declined
COSIM_REASONS = {1: "the step's times", 2: "an input not finite", 3: "the inputs' update", 4: "the stepper",
                 5: "the state's check", 6: "an output not finite", 7: "a state event",
                 8: "an input across its expected range"}


class Cosim(ctypes.Structure):
    """``mbs_cosim`` of cosim_step.h, field by field."""
    _fields_ = ([(name, _P) for name in ("m", "law", "tab", "st", "y", "k", "recs")]
                + [(name, _I) for name in ("size", "rec_size", "rec_stride")]
                + [(name, _P) for name in ("final", "model_work", "work", "len")] + [("max_steps", _L)]
                + [(name, _I) for name in ("outputs_kind", "n_out")]
                + [(name, _P) for name in ("outputs", "values", "out", "out_work", "index")]
                + [(name, _I) for name in ("n_in", "n_real", "n_int", "time_vr")]
                + [(name, _P) for name in ("input_vr", "real_vr", "real_from", "int_vr", "int_from")]
                + [("n_bounds", _I)] + [(name, _P) for name in ("bound_at", "lo", "hi")]
                + [(name, _D) for name in ("t", "h")]
                + [(name, _P) for name in ("x", "xdot", "rec", "inputs", "rec_next", "inputs_next", "update_work")]
                + [(name, _L) for name in ("steps", "evaluations", "accepted", "rejected")]
                + [("fresh_inputs", _I)]
                + [("n_ranges", _I)] + [(name, _P) for name in ("range_at", "range_lo", "range_hi")])


def _ints(values: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(list(values) or [0], dtype=np.intc)


class NativeCosimStep:
    """The record of ``mbs_cosim_step`` for one model instance.

    ``integration``: the model's kernel right-hand side (a tree without a task) and ``stepper`` its explicit
    stepper; ``outputs`` and ``plan``: the kernel's outputs and the index map of the outputs in the order the caller
    publishes them; ``n_inputs``: the model's inputs (the law takes the first ones). The caller's table:
    ``input_slots`` (a slot per input), ``real_slots`` / ``int_slots`` (``(slot, position in the plan)``),
    ``time_slot`` (None: no time variable); ``bounds``: ``(state index, low, high)``, the open intervals the
    model's ``check_state`` allows (the kernel's check may be stricter, never looser: a step it declines is taken by
    Python, which reports)."""

    ENTRY_POINT = "mbs_cosim_step"  # the kernel's step for this record (a subclass's record: its own)

    def __init__(self, integration: NativeIntegration, outputs: NativeCraneOutputs | NativeCutOutputs,
                 plan: OutputPlan, n_inputs: int, input_slots: Sequence[int], real_slots: Sequence[tuple],
                 int_slots: Sequence[tuple], time_slot: int | None, bounds: Sequence[tuple]) -> None:
        if len(input_slots) != n_inputs:
            raise ValueError(f"{len(input_slots)} input slots for {n_inputs} inputs")
        self.integration = integration
        native = integration._native
        # an evaluation's whole record: the tree's and the tail of the integration's right-hand side (a payload's)
        size, rec_size, n = integration.size, native.size + integration._tail, native.n
        self._x, self._xdot, self._rec = np.zeros(size), np.zeros(size), np.zeros(rec_size)
        self._inputs, self._inputs_next = np.zeros(max(n_inputs, 1)), np.zeros(max(n_inputs, 1))
        self._rec_next, self._update_work = np.zeros(rec_size), np.zeros(n * n + 2 * n)
        self._out = np.zeros(max(len(plan.names), 1))
        self._slots = [_ints(input_slots), _ints([s for s, _ in real_slots]), _ints([p for _, p in real_slots]),
                       _ints([s for s, _ in int_slots]), _ints([p for _, p in int_slots])]
        self._bounds = (_ints([b[0] for b in bounds]), np.array([float(b[1]) for b in bounds] or [0.0]),
                        np.array([float(b[2]) for b in bounds] or [0.0]))
        self._keep = (outputs, plan)
        whole, c = self._new_record()
        self._record = c
        c.size, c.rec_size = size, rec_size
        c.outputs_kind = outputs.COSIM_KIND
        c.outputs, c.out_work = outputs._ptr, outputs._work_ptr
        c.n_out, c.values, c.index, c.out = len(plan.names), plan.values_pointer, plan.index_pointer, self._out.ctypes.data
        c.n_in, c.n_real, c.n_int = n_inputs, len(real_slots), len(int_slots)
        c.time_vr = -1 if time_slot is None else int(time_slot)
        c.input_vr, c.real_vr, c.real_from, c.int_vr, c.int_from = (a.ctypes.data for a in self._slots)
        c.n_bounds = len(bounds)
        c.bound_at, c.lo, c.hi = (a.ctypes.data for a in self._bounds)
        c.x, c.xdot, c.rec, c.inputs, c.rec_next, c.inputs_next, c.update_work = (a.ctypes.data for a in (
            self._x, self._xdot, self._rec, self._inputs, self._rec_next, self._inputs_next, self._update_work))
        self.function = ctypes.cast(getattr(library(), self.ENTRY_POINT), ctypes.c_void_p).value
        self.record = ctypes.addressof(whole)
        self._stepping = None

    def expect_ranges(self, ranges: Sequence[tuple]) -> None:
        """``ranges``: ``(input index, low, high)`` of the inputs with an expected range (fmi/input_ranges.py): a step
        whose input crosses one of them is declined, so that Python takes it and warns."""
        self._ranges = (_ints([r[0] for r in ranges]), np.array([float(r[1]) for r in ranges] or [0.0]),
                        np.array([float(r[2]) for r in ranges] or [0.0]))
        c = self._record
        c.n_ranges = len(ranges)
        c.range_at, c.range_lo, c.range_hi = (a.ctypes.data for a in self._ranges)

    def _new_record(self) -> tuple:
        """``(the record the entry point takes, its mbs_cosim part)``."""
        c = Cosim()
        return c, c

    def point_record(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> np.ndarray | None:
        """The record of the evaluation at the point ``(t, x)`` with ``aux`` there, as :meth:`load` takes it; None
        when ``aux`` is not the kernel's."""
        return getattr(aux, "record", None)

    def load(self, stepper, budget: int | None, t: float, x: np.ndarray, xdot: np.ndarray, rec: np.ndarray,
             inputs: np.ndarray) -> None:
        """The point the next step starts from (``x`` at ``t``, its derivative, the record of that evaluation, the
        inputs in force), the ``stepper``'s settings and step size and the step ``budget``; the counters at zero."""
        c = self._record
        self._stepping = s = self.integration.explicit_stepping(stepper)
        c.m, c.law, c.tab, c.st, c.y, c.k, c.recs = s["m"], s["law"], s["tab"], s["st"], s["y"], s["k"], s["recs"]
        c.rec_stride, c.final, c.model_work, c.work, c.len = (s["rec_stride"], s["final"], s["model_work"], s["work"],
                                                             s["len"])
        if s["rec_size"] + self.integration._tail != c.rec_size or s["size"] != c.size:
            raise ValueError("the integration's records do not match the model's")
        c.max_steps = self.integration.max_steps(budget)
        self._x[:], self._xdot[:], self._rec[:] = x, xdot, rec[:c.rec_size]
        self._inputs[:c.n_in] = inputs
        c.t, c.h = float(t), float(stepper.h)
        c.steps = c.evaluations = c.accepted = c.rejected = 0

    @property
    def fresh_inputs(self) -> bool:
        """Whether new inputs are evaluated afresh (``mbs_derivative`` at the point: a model without an exact input
        update, whose ``CoSimulation.set_inputs`` drops its evaluation) rather than updated (``mbs_update_inputs``)."""
        return bool(self._record.fresh_inputs)

    @fresh_inputs.setter
    def fresh_inputs(self, fresh: bool) -> None:
        self._record.fresh_inputs = int(bool(fresh))

    @property
    def steps(self) -> int:
        """Steps taken in the kernel since :meth:`load`."""
        return self._record.steps

    def point(self) -> tuple:
        """``(t, x, xdot, record, inputs, h, (evaluations, accepted, rejected))`` reached by the kernel's steps
        since :meth:`load` (copies), the counters set back to zero."""
        c = self._record
        counts = (c.evaluations, c.accepted, c.rejected)
        c.steps = c.evaluations = c.accepted = c.rejected = 0
        return (c.t, self._x.copy(), self._xdot.copy(), self._rec.copy(), self._inputs[:c.n_in].copy(), c.h, counts)

    def step(self, t: float, h: float, reals: np.ndarray, ints: np.ndarray) -> int:
        """One step as the caller in C takes it, over ``reals`` and ``ints`` (float64 and int64 arrays, the table):
        0, or the reason of :data:`COSIM_REASONS` (for tests)."""
        return getattr(library(), self.ENTRY_POINT)(self.record, float(t), float(h), reals.ctypes.data,
                                                    ints.ctypes.data)
