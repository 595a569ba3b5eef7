"""``KnuckleBoomCraneOnMovingBase`` in the compiled kernel: the base's motion of the motion inputs
(``mbs_moving_base_inputs``), the right-hand side of the whole tree on the base moving with the inputs' accelerations,
with the load on the base integrated over each step for the step-mean wrench (``core/native/moving_base.c``), stepped
there by the explicit pairs, every output in one kernel call (``mbs_moving_outputs``: the crane's, the interface
inertia A and W0, the step-mean wrench and its prediction) and the whole communication step
(``mbs_cosim_moving_step``: the base imposed and the step integrals moved and restarted in C).
:class:`.moving_base.KnuckleBoomOnMovingBaseModel`'s numpy methods are the specification
(tests/test_moving_base_kernel.py compares); the model uses this when the kernel is loaded."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ...core.moving_base.interface import STEP_INTEGRALS, STEP_WRENCH_NAMES
from ...core.moving_base.interface_inertia import INERTIA_ZEROS
from ...core.native import NativeKinematics
from ...core.native.cosim_moving import NativeMovingCosimStep
from ...core.native.moving_base import NativeMovingBase, NativeMovingOutputs
from ...core.native.outputs import NativeCraneOutputs, kernel_writer

__all__ = ["MovingBaseKernel"]


class MovingBaseKernel:
    """The kernel's parts of one :class:`.moving_base.KnuckleBoomOnMovingBaseModel` (built on first use, again when the
    system's kernel changes): the right-hand side and its stepping (:class:`NativeMovingBase`), the outputs
    (:class:`NativeMovingOutputs` over the crane's :class:`NativeCraneOutputs`) and the communication step."""

    def __init__(self, model, value_order: list, motion_at: int) -> None:
        self._model, self._motion_at = model, motion_at
        # The values mbs_moving_outputs computes: the crane's, A's upper triangle and W0, the step-mean wrench and its
        # prediction
        self._value_order = list(value_order) + list(INERTIA_ZEROS) + list(STEP_WRENCH_NAMES)
        self._crane_values = len(value_order)
        self._built = None  # (NativeSystem, NativeMovingBase, NativeMovingOutputs)
        self._cached = (None, None)  # (inputs' bytes, base inputs)

    def parts(self) -> tuple | None:
        """``(NativeSystem, NativeMovingBase, NativeMovingOutputs)``, None without the kernel."""
        model = self._model
        native, solver = model.system.native, model.crane.reaction_solver.native
        if native is None or solver is None or model._native_loads is None:
            return None
        if self._built is None or self._built[0] is not native:
            law = model._dynamics._law_record(native)
            # (67)-(68) in the order of the base loads' entries: T1 on the king; -F2, -F3 on the barrels, +F2, +F3 on
            # the pistons
            actuators = list(zip(model._actuator_entries, (0, 1, 2, 1, 2), (1.0, -1.0, -1.0, 1.0, 1.0)))
            crane = NativeCraneOutputs(
                native, solver, law, self._value_order[:self._crane_values], (0, 1, 2, 9, 10, 11), model._angle_bodies,
                model._tip_body, (0.0, 0.0, model._tip_length), 3, actuators,
                [(b, False) for b in model._reactions_at], model._native_loads)
            outputs = NativeMovingOutputs(native, crane, self._value_order, range(3, 9), range(3), model._base,
                                          model.inertia_outputs)
            integration = NativeMovingBase(native, law, (3, 4, 5), (6, 7, 8), self.aux,
                                           crane if model.mean_wrench_outputs else None)
            self._built = (native, integration, outputs)
        return self._built

    def base_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """``[the law's inputs | angles | Euler rates]`` of the model's inputs (``mbs_moving_base_inputs``, as a step
        in C; cached: the same inputs through a whole step)."""
        key = inputs.tobytes()
        if self._cached[0] == key:
            return self._cached[1]
        at = self._motion_at
        out = self.parts()[1].base_inputs(inputs[:at], inputs[at:at + 12])
        self._cached = (key, out)
        return out

    def aux(self, record: np.ndarray, tail: np.ndarray | None = None) -> NativeKinematics:
        """The model's ``aux`` (its kinematics) of a kernel evaluation's record."""
        native = self._built[0]
        return NativeKinematics(record, native._derivative_layout, native.invert)

    def derivative(self, x: np.ndarray, inputs: np.ndarray) -> tuple | None:
        """``(ẋ, aux)`` by one kernel evaluation, None without the kernel."""
        parts = self.parts()
        if parts is None:
            return None
        xdot, record = parts[1].derivative(x, self.base_inputs(inputs))
        return xdot, self.aux(record)

    def compiled(self, inputs: np.ndarray) -> tuple | None:
        """``(NativeMovingBase, base inputs)``, None without the kernel."""
        parts = self.parts()
        return None if parts is None else (parts[1], self.base_inputs(inputs))

    def kernel_step_parts(self, names: tuple, constants: dict, bounds: list) -> tuple | None:
        """``(outputs, index map of names, bounds, maker of the record)`` of ``mbs_cosim_moving_step``
        (fmi/kernel_steps.py); None without the kernel or with a joint map the kernel does not evaluate (a fresh
        evaluation in C could not make it)."""
        parts = self.parts()
        if parts is None or parts[0].python_maps:
            return None
        outputs = parts[2]
        make = functools.partial(NativeMovingCosimStep, motion_at=self._motion_at, base_inputs=self.base_inputs)
        return outputs, outputs.plan(names, constants), bounds, make

    def output_writer(self, names: tuple, constants: dict, reference: Callable) -> Callable:
        """``write(x, inputs, aux, out)`` of the outputs ``names``: by ``mbs_moving_outputs`` when ``aux`` is a kernel
        evaluation with the projections (the record of a derivative), else from ``reference(x, inputs, aux)`` (the
        model's outputs dict) with ``constants``."""
        parts = self.parts()
        usable = lambda aux: aux.record is not None and "P" in aux._layout  # noqa: E731
        from_dict = kernel_writer(None, names, constants, reference, usable)
        if parts is None:
            return from_dict
        outputs, at = parts[2], self._motion_at
        plan = outputs.plan(names, constants)
        accel = np.zeros(6)
        n = 2 * self._model.system.n
        mean = self._model.mean_wrench_outputs

        def write(x, inputs, aux, out) -> None:
            if not usable(aux):
                return from_dict(x, inputs, aux, out)
            accel[:3], accel[3:] = inputs[at + 9:at + 12], inputs[at + 6:at + 9]  # [a_P; ω̇] of W = W0 - A a
            outputs.write(plan, x, aux.record, accel, out, x[n:n + STEP_INTEGRALS] if mean else None)

        return write
