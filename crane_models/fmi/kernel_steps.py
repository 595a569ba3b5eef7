"""Communication steps without Python (issue 23): a :class:`CoSimulation` whose step needs nothing but the kernel is
stepped by the FMI runtime itself, in C and without the interpreter lock, through ``mbs_cosim_step``
(core/native/cosim_step.c) over the runtime's value table. Python hands the point reached over to the kernel's record
after every call that ran Python and takes it back before the next one (:class:`KernelSteps`); a step the kernel
declines (a failure to report, an input or output not finite, a cancel) is taken by Python from the same point, as if
the kernel had never tried. See docs/fmi-runtime.md, "Steps without Python".

Which steps qualify -- everything :meth:`CoSimulation.step` does is then one kernel call sequence: a model with a
kernel right-hand side of a tree (no task), the kernel's outputs (``kernel_step_parts``) and an exact input update
(or, ``kernel_fresh_inputs``, a derivative that is the kernel's evaluation, made afresh for new inputs);
an input-prescribed state (a moving base) and step integrals only where the model's kernel step runs those hooks
itself (``kernel_step_hooks``: ``mbs_cosim_moving_step`` imposes the base and restarts the integrals, then the
stepper's error control may leave the integrals out); no switching times; state events only where the
kernel's stepper checks them itself (``advance_to_event``: a step in which an indicator changes sign is declined and
Python locates the event); an explicit stepper; no host poll between internal steps (FMI 3.0's intermediate
update).

A model whose outputs are functions of time alone (no state, no inputs: the WaveVessel) takes another path,
:class:`TimeSteps`: its kernel record computes the outputs at the step's end and publishes them."""
from __future__ import annotations

import ctypes
import functools
import math
from typing import Optional, Sequence

import numpy as np

from ..core.native.cosim_step import NativeCosimStep
from ..core.native.stepping import NativeIntegration
from ..integration.cosimulation import CoSimulation

__all__ = ["KernelSteps", "TimeSteps", "RuntimeSlot", "Handover", "python_entry"]


class RuntimeSlot(ctypes.Structure):
    """Where the runtime looks for a step it may take without Python (core.h ``CoreNativeStep``): the C function
    ``int step(void *record, double t, double h, double *reals, int64_t *ints)`` and its record; ``step`` NULL: none."""
    _fields_ = [("step", ctypes.c_void_p), ("record", ctypes.c_void_p)]


def _qualifies(sim: CoSimulation) -> bool:
    """Whether every step of ``sim`` is one kernel call sequence (the module's docstring)."""
    model, stepper, hooks = sim.model, sim.stepper, sim.step_hooks()
    in_kernel = getattr(model, "kernel_step_hooks", ())  # the hooks the model's kernel step runs itself
    pythons = [name for name in ("impose", "restart", "switch_times") if hooks[name] and name not in in_kernel]
    return (not pythons and _input_update(sim) is not None and hasattr(stepper, "tableau")
            and (stepper.controlled is None or hooks["restart"])
            and hasattr(model, "kernel_step_parts") and hasattr(model, "compiled"))


def _input_update(sim: CoSimulation) -> bool | None:
    """How new inputs enter the evaluation at the point: False by the model's exact update (``mbs_update_inputs``),
    True afresh -- a model without one whose derivative is the kernel's own evaluation (``kernel_fresh_inputs``:
    ``mbs_derivative`` at the point, as ``CoSimulation.set_inputs`` then drops the evaluation) --, None: neither."""
    if sim.step_hooks()["update"]:
        return False
    return True if getattr(sim.model, "kernel_fresh_inputs", False) else None


class KernelSteps:
    """The kernel's steps of one :class:`CoSimulation` over a value table (``input_slots``: the slot of each input;
    ``real_slots`` / ``int_slots``: ``(slot, position in output_names)``; ``time_slot``: None or the time's)."""

    def __init__(self, sim: CoSimulation, native: NativeCosimStep) -> None:
        self.sim, self.native = sim, native

    @classmethod
    def of(cls, sim: CoSimulation, output_names: tuple, input_slots: Sequence[int], real_slots: Sequence[tuple],
           int_slots: Sequence[tuple], time_slot: Optional[int]) -> Optional["KernelSteps"]:
        """The kernel's steps of ``sim``, or None when its steps do not qualify (or there is no kernel)."""
        if not _qualifies(sim):
            return None
        compiled = sim.model.compiled(sim.t, sim.inputs)
        integration = compiled[0] if compiled is not None else None
        if not isinstance(integration, NativeIntegration) or integration._task is not None \
                or not integration.can_advance(sim.stepper):
            return None
        if sim.step_hooks()["events"] != hasattr(integration, "advance_to_event"):  # events: the kernel checks them
            return None
        parts = sim.model.kernel_step_parts(output_names)
        if parts is None:
            return None
        # (outputs, plan, bounds), and for a record of its own (a payload's) what makes it
        outputs, plan, bounds, *record = parts
        make = record[0] if record else NativeCosimStep
        native = make(integration, outputs, plan, sim.inputs.size, input_slots, real_slots, int_slots, time_slot,
                      bounds)
        native.fresh_inputs = _input_update(sim)
        return cls(sim, native)

    def hand_over(self) -> bool:
        """The simulation's point into the kernel's record: True when the next step may be taken there (a kernel
        evaluation at the point, finite, and no host poll), else False (the next step is Python's)."""
        sim = self.sim
        t, x, k, aux, inputs = sim.point()
        if k is None or aux is None or sim.stepper.cancel_poll is not None:
            return False
        with np.errstate(over="ignore", invalid="ignore"):  # k·k of an overflowed input: inf, a Python step
            if not math.isfinite(k @ k):
                return False
        record = self.native.point_record(t, x, inputs, aux)
        if record is None:
            return False
        self.native.load(sim.stepper, sim.max_internal_steps, t, x, k, record, inputs)
        return True

    def take_back(self) -> None:
        """The point the kernel's steps reached into the simulation, as its own steps would have left it (nothing
        when the kernel took none)."""
        if not self.native.steps:
            return
        sim = self.sim
        t, x, xdot, record, inputs, h, (evaluations, accepted, rejected) = self.native.point()
        sim.take_point(t, x, xdot, self.native.integration.aux_at(record, x), inputs)
        stepper = sim.stepper
        stepper.h = h
        stats = stepper.stats
        stats["evaluations"] += evaluations
        stats["accepted"] += accepted
        stats["rejected"] += rejected


class TimeSteps:
    """The kernel's steps of a model without state or inputs whose outputs are functions of time alone (the
    WaveVessel): the model's ``kernel_time_step(output_names, real_slots, int_slots, time_slot)`` gives a record whose
    C function writes the outputs at the step's end into the table (``mbs_harmonic_step``); the model's own outputs
    come from the same C code, so either path gives the same bits. Handing over is the time reached; taking back, the
    time the kernel reached (no state, no evaluation to carry)."""

    def __init__(self, sim: CoSimulation, native) -> None:
        self.sim, self.native = sim, native

    @classmethod
    def of(cls, sim: CoSimulation, output_names: tuple, input_slots: Sequence[int], real_slots: Sequence[tuple],
           int_slots: Sequence[tuple], time_slot: Optional[int]) -> Optional["TimeSteps"]:
        make = getattr(sim.model, "kernel_time_step", None)
        if make is None or sim.x.size or len(input_slots) or any(sim.step_hooks().values()):
            return None
        native = make(output_names, real_slots, int_slots, time_slot)
        return None if native is None else cls(sim, native)

    def hand_over(self) -> bool:
        if self.sim.stepper.cancel_poll is not None:  # FMI 3.0 early return: Python's steps, as KernelSteps'
            return False
        self.native.load(self.sim.t)
        return True

    def take_back(self) -> None:
        if self.native.steps:
            sim = self.sim
            sim.take_point(self.native.t, sim.x, None, None, sim.inputs)
            self.native.load(sim.t)


class Handover:
    """The adapter's side of the runtime's slot (:class:`RuntimeSlot`, at ``slave._fmi_native_step_address``, which
    the project's runtime sets unless ``CRANE_COSIM_NATIVE_STEP=0``): the kernel's steps of the simulation in force,
    handed over after each call that ran Python and taken back before the next (:func:`python_entry`)."""

    def __init__(self, slave, warn) -> None:
        self._slave, self._warn = slave, warn
        self._slot: Optional[RuntimeSlot] = None
        self._sim: Optional[CoSimulation] = None
        self._steps: Optional[KernelSteps] = None
        self.ranges = None  # the adapter's InputRanges: its inputs' expected ranges, which the kernel's steps watch

    def _runtime_slot(self) -> Optional[RuntimeSlot]:
        if self._slot is None:
            address = getattr(self._slave, "_fmi_native_step_address", 0)
            if address:
                self._slot = RuntimeSlot.from_address(address)
        return self._slot

    def take_back(self) -> None:
        if self._steps is not None:
            self._steps.take_back()

    def hand_over(self, sim: Optional[CoSimulation], table, usable: bool) -> None:
        """The next step to the kernel when ``sim`` (the simulation in force, ``usable``: no error) qualifies and a
        value table serves the variables; else to Python."""
        slot = self._runtime_slot()
        if slot is None:
            return
        slot.step = None
        if sim is None or table is None or not usable:
            return
        try:
            if sim is not self._sim:
                self._sim, self._steps = sim, None
                slots = (table.output_names, *table.kernel_slots())
                self._steps = TimeSteps.of(sim, *slots) or KernelSteps.of(sim, *slots)
                if isinstance(self._steps, KernelSteps) and self.ranges is not None:
                    self._steps.native.expect_ranges(self.ranges.kernel_ranges())
            if self._steps is not None and self._steps.hand_over():
                slot.record, slot.step = self._steps.native.record, self._steps.native.function
        except Exception as exc:  # noqa: BLE001 -- a defect here costs speed, never a step: Python steps on
            self._steps = None
            self._warn(f"steps without Python are off for this simulation: {exc!r}")


def python_entry(method):
    """An adapter method the runtime calls, which runs Python: the point the kernel's steps reached is taken back into
    the simulation first, and the next step handed over again after it."""
    @functools.wraps(method)
    def call(adapter, *args, **kwargs):
        handover = adapter.kernel_steps
        handover.take_back()
        try:
            return method(adapter, *args, **kwargs)
        finally:
            handover.hand_over(adapter.sim, adapter._table, adapter.error is None)
    return call
