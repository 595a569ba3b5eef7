"""A crane on a base moving with the accelerations the inputs hold over each step, in the kernel (``moving_base.c``):
the base's motion of the motion inputs (``mbs_moving_base_inputs``), the whole tree's right-hand side with the base's
accelerations prescribed and, for a step-mean wrench, the load on the base integrated as quadrature states
(``mbs_moving_derivative``), its stepping (``mbs_moving_integrate``) and the outputs with the interface inertia and
that mean (``mbs_moving_outputs``). ``models/knuckle_boom/moving_base.py`` is the specification."""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

from ..moving_base.interface import STEP_INTEGRALS
from .outputs import NativeCraneOutputs, OutputPlan, _KernelOutputs
from .stepping import NativeModelIntegration
from .system import NativeEffortLaw, NativeSystem, _address, library

__all__ = ["NativeMovingBase", "NativeMovingOutputs"]


class _MovingBase(ctypes.Structure):
    """``mbs_moving_base`` of moving_base.h."""
    _fields_ = [("n_law", ctypes.c_int)] + [(name, ctypes.c_void_p) for name in ("angles", "translation", "load")]


class NativeMovingBase(NativeModelIntegration):
    """The whole tree ``y = [q; u]`` under ``law`` -- the crane's inputs, then the prescribed accelerations of the base
    coordinates ``angles`` (roll, pitch, yaw) and ``translation`` -- and, with ``load`` (the crane's outputs on a moving
    base), its load on the base and the time integrated too, ``y = [q; u; ∫W dt (6); t]``, then those of the step before
    (``STEP_INTEGRALS``). Stepped as
    :class:`NativeIntegration` (same tableau and step-size control, the stepper's ``controlled`` leading states under
    it). ``make_aux(record, tail)``: the model's ``aux`` from the record of an evaluation."""

    implicit_steps = False  # the kernel's Jacobian is a tree's (mbs_tree_jacobian), not the load's quadrature

    def __init__(self, native: NativeSystem, law: NativeEffortLaw, angles: Sequence[int], translation: Sequence[int],
                 make_aux: Callable, load: NativeCraneOutputs | None = None) -> None:
        if not law.prescribed:
            raise ValueError("the base's accelerations come from the law: it must prescribe them")
        super().__init__(native, law, make_aux=make_aux)
        self._index = [np.ascontiguousarray(a, dtype=np.intc) for a in (angles, translation)]
        if any(a.shape != (3,) for a in self._index):
            raise ValueError("the base has three angles and three translations")
        self._load = load
        self._struct = _MovingBase(law.n_inputs, *(a.ctypes.data for a in self._index),
                                   load._ptr if load is not None else None)
        self.pointer = ctypes.addressof(self._struct)
        lib = library()
        self.size = lib.mbs_moving_size(native._model_ptr, self.pointer)
        self.n_inputs = law.n_inputs + 6  # the law's, then the base's angles and Euler rates
        self._inputs_store = np.zeros(self.n_inputs + 1)
        self._inputs = self._inputs_store[:self.n_inputs]
        self._fn = lib.mbs_moving_integrate
        self._derivative_fn = lib.mbs_moving_derivative
        self._base_inputs_fn = lib.mbs_moving_base_inputs

    def base_inputs(self, crane_inputs: np.ndarray, motion: np.ndarray) -> np.ndarray:
        """``[the law's inputs | angles (3) | Euler rates (3)]`` for the crane's own inputs and the base's
        ``motion = [roll, pitch, yaw, ω, ω̇, a_P]`` (``mbs_moving_base_inputs``; core/moving_base/euler.py is its
        specification)."""
        if np.size(crane_inputs) != self._law.n_inputs - 6 or np.size(motion) != 12:
            raise ValueError(f"{self._law.n_inputs - 6} crane inputs and 12 motion inputs, got {np.size(crane_inputs)} "
                             f"and {np.size(motion)}")
        crane, motion = np.array(crane_inputs, dtype=float), np.array(motion, dtype=float)
        out = np.empty(self.n_inputs)
        self._base_inputs_fn(self.pointer, _address(crane), _address(motion), _address(out))
        return out


class _MovingOutputs(ctypes.Structure):
    """``mbs_moving_outputs_model`` of moving_base.h."""
    _fields_ = ([("crane", ctypes.c_void_p)] + [(name, ctypes.c_int) for name in ("inertia", "nf", "base_body")]
                + [(name, ctypes.c_void_p) for name in ("prescribed", "free_")])


class NativeMovingOutputs(_KernelOutputs):
    """The outputs of a crane on a moving base (``mbs_moving_outputs``): ``crane``'s (:class:`NativeCraneOutputs` with
    its base loads), with ``inertia`` the interface inertia A of the ``prescribed`` base coordinates
    ``[roll, pitch, yaw, x0, y0, z0]`` against the ``free`` ones at body ``base_body`` and W0, then the step-mean
    load and its prediction. ``value_names``: the crane's, A's upper triangle and W0 (21 + 6), the mean (6) and the
    prediction (6), in moving_base.h's order."""

    COSIM_KIND = -1  # not read: mbs_cosim_moving_step writes these outputs by mbs_moving_outputs itself

    def __init__(self, native: NativeSystem, crane: NativeCraneOutputs, value_names: Sequence, prescribed: Sequence[int],
                 free: Sequence[int], base_body: int, inertia: bool) -> None:
        lib = library()
        self._index = [np.ascontiguousarray(a, dtype=np.intc) for a in (prescribed, free)]
        if self._index[0].shape != (6,):
            raise ValueError(f"six prescribed base coordinates, got {len(prescribed)}")
        self.crane = crane
        nf = len(self._index[1])
        self._struct = _MovingOutputs(crane._ptr, int(bool(inertia)), nf, int(base_body),
                                      *(a.ctypes.data for a in self._index))
        self._ptr = ctypes.addressof(self._struct)
        super().__init__(value_names, lib.mbs_moving_values_size(native._model_ptr, self._ptr))
        n = native.n
        self._work = np.empty(crane._work.size + n * n + 12 * n + 1)
        self._accel, self._integral = np.zeros(6), np.zeros(STEP_INTEGRALS)
        self._fn = lib.mbs_moving_outputs
        self._head = (native._model_ptr, self._ptr)
        self._work_ptr = self._work.ctypes.data

    def write(self, plan: OutputPlan, x: np.ndarray, record: np.ndarray, accel: np.ndarray, out: np.ndarray,
              integral: np.ndarray | None = None) -> None:
        """The outputs of ``plan`` at the state ``x`` with the evaluation ``record`` there, the base acceleration
        ``accel = [a_P; ω̇]`` (base frame) into ``out``; ``integral``: the step states (the load's integral and the
        elapsed time over the last step and over the step before, ``STEP_INTEGRALS``) for its mean and prediction, or
        None."""
        self._accel[:] = accel
        if integral is not None:
            self._integral[:] = integral
        if self._fn(*self._head, _address(x), _address(record), None, None, _address(self._accel),
                    None if integral is None else _address(self._integral), plan.values_pointer, plan.index_pointer,
                    len(plan.names), self._table(out, plan), self._work_ptr):
            raise np.linalg.LinAlgError("the crane's block M_ff of the mass matrix is not positive definite")
