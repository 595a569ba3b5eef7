"""A tree on a base held over each step in the kernel (``held_base.c``): the right-hand side of the free coordinates
with the base's q and u held at the inputs' values and its accelerations prescribed (``mbs_held_derivative``), its
stepping (``mbs_held_integrate``) and the outputs of a crane on such a base (``mbs_held_outputs``).
``models/vessel_crane/split.py`` (``CraneOnMovingBaseModel``) is the specification."""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

from ..moving_base.interface import STEP_INTEGRALS
from .outputs import NativeCutOutputs, OutputPlan, _KernelOutputs
from .stepping import NativeModelIntegration
from .system import NativeEffortLaw, NativeSystem, _address, library

__all__ = ["NativeHeldBase", "NativeHeldOutputs"]


class _HeldBase(ctypes.Structure):
    """``mbs_held_base`` of held_base.h."""
    _fields_ = [("nf", ctypes.c_int), ("n_law", ctypes.c_int)] + [
        (name, ctypes.c_void_p) for name in ("free_", "angles", "load")]


class NativeHeldBase(NativeModelIntegration):
    """The free coordinates ``free`` of a tree, ``y = [q_f; u_f]``, with the other coordinates held: the kernel inputs
    (:meth:`base_inputs`) are ``[the law's inputs | q (n) | u (n)]``, q and u the whole tree's at the step's start
    (the free entries ignored), and ``law`` prescribes the held coordinates' accelerations (held_base.h: a law of
    ``held_base_law``'s form, roll, pitch, yaw at the coordinates ``angles``). With ``load`` (the crane's outputs) the
    state also integrates the load on the base and the time, ``y = [q_f; u_f; ∫W dt (6); t]``, and keeps those of the
    step before after them (a step-mean wrench's quadrature, ``STEP_INTEGRALS``). Stepped as
    :class:`NativeIntegration` (same tableau and step-size control, the stepper's ``controlled`` leading states under
    it). ``make_aux(record, tail)``: the model's ``aux`` from the record of an evaluation (``tail`` is empty)."""

    implicit_steps = False  # the kernel's Jacobian is a whole tree's (mbs_tree_jacobian), not the free part's

    def __init__(self, native: NativeSystem, law: NativeEffortLaw, free: Sequence[int], angles: Sequence[int],
                 make_aux: Callable, load: "NativeHeldOutputs | None" = None) -> None:
        if not law.prescribed:
            raise ValueError("the held coordinates' accelerations come from the law: it must prescribe them")
        super().__init__(native, law, make_aux=make_aux)
        self._free, self._angles = (np.ascontiguousarray(a, dtype=np.intc) for a in (free, angles))
        if self._angles.shape != (3,):
            raise ValueError(f"roll, pitch and yaw are three coordinates, got {len(angles)}")
        self._load = load
        self._struct = _HeldBase(len(self._free), law.n_inputs, self._free.ctypes.data, self._angles.ctypes.data,
                                 load._ptr if load is not None else None)
        self.pointer = ctypes.addressof(self._struct)
        self.size = library().mbs_held_size(self.pointer)
        self.n_inputs = law.n_inputs + 2 * native.n
        self._inputs_store = np.zeros(self.n_inputs + 1)
        self._inputs = self._inputs_store[:self.n_inputs]
        lib = library()
        self._fn = lib.mbs_held_integrate
        self._derivative_fn = lib.mbs_held_derivative
        self._base_inputs_fn = lib.mbs_held_base_inputs

    def base_inputs(self, crane_inputs: np.ndarray, motion: np.ndarray) -> np.ndarray:
        """The kernel inputs for the crane's own inputs and the base's ``motion = [roll, pitch, yaw, ω, ω̇, a_P]``
        (``mbs_held_base_inputs``; core/moving_base/euler.py is its specification)."""
        if np.size(crane_inputs) != self._law.n_inputs - 6 or np.size(motion) != 12:
            raise ValueError(f"{self._law.n_inputs - 6} crane inputs and 12 motion inputs, got {np.size(crane_inputs)} "
                             f"and {np.size(motion)}")
        crane, motion = np.array(crane_inputs, dtype=float), np.array(motion, dtype=float)
        out = np.empty(self.n_inputs)
        self._base_inputs_fn(self._native._model_ptr, self.pointer, _address(crane), _address(motion), _address(out))
        return out


class _HeldOutputs(ctypes.Structure):
    """``mbs_held_outputs_model`` of held_base.h."""
    _fields_ = ([("cut", ctypes.c_void_p)] + [(name, ctypes.c_int) for name in ("nf", "axial", "inertia")]
                + [(name, ctypes.c_void_p) for name in ("free_", "prescribed")])


class NativeHeldOutputs(_KernelOutputs):
    """The kernel's record of what a crane on a held base outputs (``mbs_held_outputs_model``) and the call that
    writes them: the constraint wrench of ``cut`` (whose ``frame`` is the base body) with the effort of coordinate
    ``axial`` about the cut's z axis, turned into the base frame and negated; the tip of ``cut`` from the base
    origin, base frame; the efforts of the ``free`` coordinates; with ``inertia`` the interface inertia A of the
    ``prescribed`` base coordinates ``[roll, pitch, yaw, x0, y0, z0]`` and W0. ``value_names`` as
    :class:`outputs.NativeCraneOutputs`', in held_base.h's order."""

    COSIM_KIND = -1  # not read: mbs_cosim_held_step writes these outputs by mbs_held_outputs itself

    def __init__(self, native: NativeSystem, cut: NativeCutOutputs, value_names: Sequence, free: Sequence[int],
                 prescribed: Sequence[int], axial: int, inertia: bool) -> None:
        lib = library()
        self._index = [np.ascontiguousarray(a, dtype=np.intc) for a in (free, prescribed)]
        if self._index[1].shape != (6,):
            raise ValueError(f"six prescribed base coordinates, got {len(prescribed)}")
        self._keep = [cut]
        self._struct = _HeldOutputs(cut._ptr, len(self._index[0]), int(axial), int(bool(inertia)),
                                    *(a.ctypes.data for a in self._index))
        self._ptr = ctypes.addressof(self._struct)
        super().__init__(value_names, lib.mbs_held_values_size(self._ptr))
        nf = len(self._index[0])
        self._work = np.empty(3 * native.n + 15 + 12 * native.nb + 6 + nf * nf + 12 * nf + 1)
        self._accel, self._integral = np.zeros(6), np.zeros(STEP_INTEGRALS)
        self._integral_ptr = self._integral.ctypes.data
        self._fn = lib.mbs_held_outputs
        self._head = (native._model_ptr, self._ptr)
        self._work_ptr = self._work.ctypes.data

    def write(self, plan: OutputPlan, record: np.ndarray, accel: np.ndarray, out: np.ndarray,
              integral: np.ndarray | None = None) -> None:
        """The outputs of ``plan`` from the evaluation ``record`` with the base acceleration ``accel = [a_P; ω̇]``
        (base frame) into ``out``; ``integral``: the step states (the load's integral and the elapsed time over the
        last step and over the step before, ``STEP_INTEGRALS``) for its mean and prediction, or None."""
        self._accel[:] = accel
        if integral is not None:
            self._integral[:] = integral
        if self._fn(*self._head, _address(record), _address(self._accel),
                    None if integral is None else self._integral_ptr, plan.values_pointer, plan.index_pointer,
                    len(plan.names), self._table(out, plan), self._work_ptr):
            raise np.linalg.LinAlgError("the crane's block M_ff of the mass matrix is not positive definite")
