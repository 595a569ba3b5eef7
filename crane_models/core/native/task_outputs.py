"""Every output of a tree with a task -- point springs, a programmed constraint, joint friction: the flexible crane --
from one evaluation in one kernel call (``mbs_task_outputs``), written straight into the caller's output table through
an index map prepared once per list of output names. ``FlexibleCraneModel.outputs`` (models/flexible_crane/model.py)
is the specification; tests/test_flexible_outputs.py compares."""
from __future__ import annotations

import ctypes
from typing import Sequence

import numpy as np

from .outputs import OutputPlan, _KernelOutputs
from .stepping import NativeTask
from .system import NativeSystem, _address, library

__all__ = ["NativeTaskOutputs"]


class _TaskOutputs(ctypes.Structure):
    """``mbs_task_outputs_model`` of task_outputs.h."""
    _fields_ = ([("task", ctypes.c_void_p)]
                + [(name, ctypes.c_int) for name in ("n_x", "tip_body", "root_body", "last_body", "end_body",
                                                     "drive_coord")]
                + [("x_at", ctypes.c_void_p)])


class NativeTaskOutputs(_KernelOutputs):
    """The kernel's record of what a tree with a task outputs (``mbs_task_outputs_model``) and the call that writes
    them. ``value_names``: the name of each value the kernel computes, in its order (task_outputs.h): the state
    entries ``x_at``, the origin of ``tip_body`` (3), z_E,a(t) of (22), Φ (2), the constraint force (3), λ (2), the
    friction torques and the normal forces (one per friction joint each), the springs' resultant force and moment
    (3 each), the deflection of the chain ``root_body`` … ``last_body`` at the origin of ``end_body`` (y, z) and its
    twist, the effort of ``drive_coord``; a name may be None (a value no output shows)."""

    def __init__(self, native: NativeSystem, task: NativeTask, value_names: Sequence, x_at: Sequence[int],
                 tip_body: int, root_body: int, last_body: int, end_body: int, drive_coord: int) -> None:
        lib = library()
        self._x_at = np.ascontiguousarray(x_at, dtype=np.intc)
        self._keep = [native, task]
        self._struct = _TaskOutputs(task.pointer, len(self._x_at), int(tip_body), int(root_body), int(last_body),
                                    int(end_body), int(drive_coord), self._x_at.ctypes.data)
        self._ptr = ctypes.addressof(self._struct)
        super().__init__(value_names, lib.mbs_task_values_size(self._ptr))
        self._fn = lib.mbs_task_outputs
        self._model_ptr = native._model_ptr
        # The evaluation's result follows its record and the bristle deflections it started from (one buffer:
        # NativeSystem.task_derivative, NativeIntegration's records).
        self._result_offset = 8 * (native.size + task.n_joints)

    def write(self, plan: OutputPlan, t: float, x: np.ndarray, record: np.ndarray, out: np.ndarray) -> None:
        """The outputs of ``plan`` at time ``t`` and state ``x`` with the evaluation there, whose record is
        ``record`` (the kinematics' part of the buffer that holds its result after it), into ``out``."""
        rec = _address(record)
        self._fn(self._model_ptr, self._ptr, t, _address(x), rec, rec + self._result_offset, plan.values_pointer,
                 plan.index_pointer, len(plan.names), self._table(out, plan))
