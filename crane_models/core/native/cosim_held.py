"""The kernel's communication step of a crane on a base held over each step (``mbs_cosim_held_step``, cosim_held.c):
:class:`NativeCosimStep`'s record with the held base's part -- its right-hand side and outputs (``NativeHeldBase``,
``NativeHeldOutputs``), where the motion inputs are, and the kernel inputs in force. The model says what it needs
(``kernel_step_parts``); this binding only fills the record."""
from __future__ import annotations

import ctypes
from typing import Callable

import numpy as np

from .cosim_step import Cosim, NativeCosimStep
from .held_base import NativeHeldBase, NativeHeldOutputs

__all__ = ["NativeHeldCosimStep"]


class _CosimHeld(ctypes.Structure):
    """``mbs_cosim_held`` of cosim_held.h, field by field."""
    _fields_ = ([("c", Cosim)] + [(name, ctypes.c_void_p) for name in ("hb", "outputs")] + [("motion_at", ctypes.c_int)]
                + [(name, ctypes.c_void_p) for name in ("kernel_inputs", "kernel_inputs_next")])


class NativeHeldCosimStep(NativeCosimStep):
    """The record of ``mbs_cosim_held_step`` for one instance of a crane on a held base: the arguments of
    :class:`NativeCosimStep` (``integration`` a :class:`NativeHeldBase`, ``outputs`` its :class:`NativeHeldOutputs`),
    ``motion_at`` (the first motion input: the crane's own inputs come before it) and ``kernel_inputs(inputs)`` (the
    model's: the right-hand side's inputs for the model's, which the step starts with)."""

    ENTRY_POINT = "mbs_cosim_held_step"

    def __init__(self, integration: NativeHeldBase, outputs: NativeHeldOutputs, *args, motion_at: int,
                 kernel_inputs: Callable) -> None:
        self._kernel_inputs_of = kernel_inputs
        self._in_force, self._next = np.zeros(integration.n_inputs), np.zeros(integration.n_inputs)
        self._part = dict(hb=integration.pointer, outputs=outputs._ptr, motion_at=int(motion_at),
                          kernel_inputs=self._in_force.ctypes.data, kernel_inputs_next=self._next.ctypes.data)
        super().__init__(integration, outputs, *args)

    def _new_record(self) -> tuple:
        whole = _CosimHeld(**self._part)
        return whole, whole.c

    def point_record(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> np.ndarray | None:
        """The record of the kernel's evaluation that ``aux = (kinematics, u̇, torques)`` holds, None for another."""
        return getattr(aux[0], "record", None)

    def load(self, stepper, budget: int | None, t: float, x: np.ndarray, xdot: np.ndarray, rec: np.ndarray,
             inputs: np.ndarray) -> None:
        super().load(stepper, budget, t, x, xdot, rec, inputs)
        self._in_force[:] = self._kernel_inputs_of(inputs)
