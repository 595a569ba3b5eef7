"""The kernel's communication step of a crane on a moving base (``mbs_cosim_moving_step``, cosim_moving.c):
:class:`NativeCosimStep`'s record with the moving base's part -- its right-hand side and outputs
(``NativeMovingBase``, ``NativeMovingOutputs``), where the motion inputs are, and the base inputs in force. The model
says what it needs (``kernel_step_parts``); this binding only fills the record."""
from __future__ import annotations

import ctypes
from typing import Callable

import numpy as np

from .cosim_step import Cosim, NativeCosimStep
from .moving_base import NativeMovingBase, NativeMovingOutputs

__all__ = ["NativeMovingCosimStep"]


class _CosimMoving(ctypes.Structure):
    """``mbs_cosim_moving`` of cosim_moving.h, field by field."""
    _fields_ = ([("c", Cosim)] + [(name, ctypes.c_void_p) for name in ("mb", "outputs")] + [("motion_at", ctypes.c_int)]
                + [(name, ctypes.c_void_p) for name in ("base_inputs", "base_inputs_next")])


class NativeMovingCosimStep(NativeCosimStep):
    """The record of ``mbs_cosim_moving_step`` for one instance of a crane on a moving base: the arguments of
    :class:`NativeCosimStep` (``integration`` a :class:`NativeMovingBase`, ``outputs`` its :class:`NativeMovingOutputs`),
    ``motion_at`` (the first motion input) and ``base_inputs(inputs)`` (the model's: the right-hand side's inputs and
    the base's angles and rates for the model's inputs, which the step starts with)."""

    ENTRY_POINT = "mbs_cosim_moving_step"

    def __init__(self, integration: NativeMovingBase, outputs: NativeMovingOutputs, *args, motion_at: int,
                 base_inputs: Callable) -> None:
        self._base_inputs_of = base_inputs
        self._in_force, self._next = np.zeros(integration.n_inputs), np.zeros(integration.n_inputs)
        self._part = dict(mb=integration.pointer, outputs=outputs._ptr, motion_at=int(motion_at),
                          base_inputs=self._in_force.ctypes.data, base_inputs_next=self._next.ctypes.data)
        super().__init__(integration, outputs, *args)

    def _new_record(self) -> tuple:
        whole = _CosimMoving(**self._part)
        return whole, whole.c

    def load(self, stepper, budget: int | None, t: float, x: np.ndarray, xdot: np.ndarray, rec: np.ndarray,
             inputs: np.ndarray) -> None:
        super().load(stepper, budget, t, x, xdot, rec, inputs)
        self._in_force[:] = self._base_inputs_of(inputs)
