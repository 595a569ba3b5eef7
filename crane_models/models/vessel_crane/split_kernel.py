"""``CraneOnMovingBase`` in the compiled kernel (issue 23, item 3): the crane's right-hand side on the base held over
each step (``core/native/held_base.c``: the base's angles and Euler rates held at the inputs' values, its
accelerations prescribed, ``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p``), stepped there by the explicit pairs, and every
output in one kernel call (``mbs_held_outputs``). :class:`split.CraneOnMovingBaseModel`'s numpy methods are the
specification (tests/test_split_crane_kernel.py compares to 1e-12); the model uses this when the kernel is loaded.

With the step-mean wrench (``mean_wrench_outputs``) the kernel's right-hand side also integrates the interface
wrench and the time (seven quadrature states, outside the step-size control: the stepper's ``controlled``) and keeps
those of the step before (seven more, derivative 0), the outputs take the mean and its prediction from them, and the
communication step in C moves and restarts them at each step's start."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ...core.effort_laws import CoordinateEffortLaw, pd_control, prescribed_accelerations, stacked
from ...core.moving_base.interface import STEP_INTEGRALS, STEP_WRENCH_NAMES
from ...core.moving_base.interface_inertia import INERTIA_ZEROS
from ...core.native import NativeKinematics
from ...core.native.cosim_held import NativeHeldCosimStep
from ...core.native.held_base import NativeHeldBase, NativeHeldOutputs
from ...core.native.outputs import NativeCutOutputs, kernel_writer

__all__ = ["HeldBaseKernel", "held_base_law", "KERNEL_VALUE_ORDER"]

# The split crane's tree (split.py): 0-2 roll, pitch, yaw; 3-5 the crane; 6-8 the base point along x0, y0, z0.
FREE, PRESCRIBED = (3, 4, 5), (0, 1, 2, 6, 7, 8)
_SLEWING = 3  # the coordinate whose torque acts about the king's z axis, the cut's (interface_moment_z)

# The values mbs_held_outputs computes, in its order (held_base.h): q_f, u_f, the load on the base, the tip, the
# efforts, A's upper triangle row by row, W0, the step-mean load and its prediction -- each an output of the FMU.
KERNEL_VALUE_ORDER = tuple(
    [f"q{i}" for i in (4, 5, 6)] + [f"u{i}" for i in (4, 5, 6)]
    + [f"interface_force_{a}" for a in "xyz"] + [f"interface_moment_{a}" for a in "xyz"]
    + [f"tip_{a}" for a in "xyz"] + [f"applied_joint{i}_torque" for i in (4, 5, 6)] + list(INERTIA_ZEROS)
    + list(STEP_WRENCH_NAMES))


def held_base_law(controller) -> CoordinateEffortLaw:
    """The effort law of the whole tree: roll, pitch, yaw and the base translation prescribed (their accelerations
    are inputs), the PD controller (63) with the torque inputs in the crane's joints. Its inputs: the Euler-angle
    accelerations (3), ``q_ref`` (3), ``τ_in`` (3), the base point's acceleration in Frame 0 (3)."""
    return stacked(prescribed_accelerations(3), pd_control(controller.kp, controller.kd), prescribed_accelerations(3))


class HeldBaseKernel:
    """The kernel's parts of one :class:`split.CraneOnMovingBaseModel` (built on first use, again when the system's
    kernel changes): the right-hand side and its stepping (:class:`NativeHeldBase`), the outputs
    (:class:`NativeHeldOutputs`)."""

    def __init__(self, model) -> None:
        self._model = model
        self.law = held_base_law(model.controller)
        self._built = None  # (NativeSystem, NativeHeldBase, NativeHeldOutputs)
        self._cached = (None, None)  # (inputs' bytes, kernel inputs)

    def parts(self) -> tuple | None:
        """``(NativeSystem, NativeHeldBase, NativeHeldOutputs)``, None without the kernel."""
        model = self._model
        native, cut = model.system.native, model.interface.native
        if native is None or cut is None:
            return None
        if self._built is None or self._built[0] is not native:
            law = native.effort_law(self.law, model.params.g)
            bodies = model.system.bodies
            joint_of = [next(k for k, b in enumerate(bodies) if b.coordinate == i) for i in range(native.n)]
            cut_outputs = NativeCutOutputs(native, cut, law, [None] * (3 * native.n + 15), joint_of, model._vessel,
                                           model._outer, (model.params.l4, 0.0, 0.0))
            outputs = NativeHeldOutputs(native, cut_outputs, KERNEL_VALUE_ORDER, FREE, PRESCRIBED, _SLEWING,
                                        model.inertia_outputs)
            integration = NativeHeldBase(native, law, FREE, PRESCRIBED[:3], self.aux,
                                         outputs if model.mean_wrench_outputs else None)
            self._built = (native, integration, outputs)
        return self._built

    def kernel_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """The right-hand side's inputs for the FMU's (cached: the same inputs through a whole step): the law's
        (:func:`held_base_law`: ``q̈ = E⁻¹ (ω̇ − Ė q̇)`` of (53), the crane's six inputs, ``R^0_1 a``), then the held
        ``q`` (roll, pitch, yaw; the base point at the origin) and ``u`` (the Euler rates ``E⁻¹ ω``; the base point
        at rest: Galilean invariance, split.py's docstring)."""
        key = inputs.tobytes()
        if self._cached[0] == key:
            return self._cached[1]
        out = self.parts()[1].base_inputs(inputs[:6], inputs[6:18])  # mbs_held_base_inputs, as a step in C
        self._cached = (key, out)
        return out

    def aux(self, record: np.ndarray, tail: np.ndarray | None = None) -> tuple:
        """The model's ``aux`` ``(kinematics, u̇, crane torques)`` of a kernel evaluation's record."""
        native = self._built[0]
        kin = NativeKinematics(record, native._derivative_layout, native.invert)
        return kin, kin.udot, kin.efforts[3:6]

    def derivative(self, x: np.ndarray, inputs: np.ndarray) -> tuple | None:
        """``(ẋ, aux)`` by one kernel evaluation, None without the kernel."""
        parts = self.parts()
        if parts is None:
            return None
        xdot, record = parts[1].derivative(x, self.kernel_inputs(inputs))
        return xdot, self.aux(record)

    def compiled(self, inputs: np.ndarray) -> tuple | None:
        """``(NativeHeldBase, kernel inputs)``, None without the kernel."""
        parts = self.parts()
        return None if parts is None else (parts[1], self.kernel_inputs(inputs))

    def kernel_step_parts(self, names: tuple, constants: dict) -> tuple | None:
        """``(outputs, index map of names, bounds, maker of the record)`` of ``mbs_cosim_held_step``
        (fmi/kernel_steps.py); None without the kernel."""
        parts = self.parts()
        if parts is None:
            return None
        outputs = parts[2]
        make = functools.partial(NativeHeldCosimStep, motion_at=6, kernel_inputs=self.kernel_inputs)
        return outputs, outputs.plan(names, constants), [], make

    def output_writer(self, names: tuple, constants: dict, reference: Callable) -> Callable:
        """``write(x, inputs, aux, out)`` of the outputs ``names``: by ``mbs_held_outputs`` when ``aux`` is a kernel
        evaluation, else from ``reference(x, inputs, aux)`` (the model's outputs dict) with ``constants``."""
        parts = self.parts()
        fixed = dict(constants)
        from_dict = kernel_writer(None, names, fixed, reference, None)  # the dict with the constants over it
        if parts is None:
            return from_dict
        outputs = parts[2]
        plan = outputs.plan(names, fixed)
        accel = np.zeros(6)

        mean = self._model.mean_wrench_outputs

        def write(x, inputs, aux, out) -> None:
            if getattr(aux[0], "record", None) is None:
                return from_dict(x, inputs, aux, out)
            accel[:3], accel[3:] = inputs[15:18], inputs[12:15]  # [a_P; ω̇] of W = W0 - A a
            outputs.write(plan, aux[0].record, accel, out, x[6:6 + STEP_INTEGRALS] if mean else None)

        return write

