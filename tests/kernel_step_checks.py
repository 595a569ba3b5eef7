"""The check that a model's communication step in C equals ``CoSimulation.step`` to the last bit, in this process:
the kernel's steps (fmi/kernel_steps.py) over a value table against a twin simulation stepped by Python, as the
runtime takes them (handed over after a call that ran Python, then in C one after another). Shared by the tests of the
moving-base cranes' steps (tests/test_split_crane_kernel.py, tests/test_moving_base_kernel.py)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from crane_models.fmi.kernel_steps import KernelSteps
from crane_models.integration.cosimulation import CoSimulation

__all__ = ["ValueTable", "assert_kernel_steps_are_pythons"]


class ValueTable:
    """The runtime's value table of ``spec``: the inputs first, then the outputs (Real ones in the doubles), and the
    kernel's steps of ``sim`` over it (None when they do not qualify)."""

    def __init__(self, spec, sim: CoSimulation) -> None:
        self.spec, self.names, self.n_in = spec, tuple(v.name for v in spec.outputs), len(spec.inputs)
        size = self.n_in + len(self.names)
        self.reals, self.ints = np.zeros(size), np.zeros(size, np.int64)
        real = [(self.n_in + j, j) for j, v in enumerate(spec.outputs) if v.kind == "real"]
        other = [(self.n_in + j, j) for j, v in enumerate(spec.outputs) if v.kind != "real"]
        self.steps = KernelSteps.of(sim, self.names, list(range(self.n_in)), real, other, None)

    def outputs(self) -> np.ndarray:
        return np.array([self.reals[self.n_in + j] if v.kind == "real" else self.ints[self.n_in + j]
                         for j, v in enumerate(self.spec.outputs)], float)


def assert_kernel_steps_are_pythons(table: ValueTable, sim: CoSimulation, twin: CoSimulation,
                                    inputs_at: Callable[[int], np.ndarray], record_of: Callable, h: float) -> None:
    """50 steps of ``sim`` by the kernel over ``table`` and of ``twin`` by ``CoSimulation.step`` (both from the same
    start) equal in every output, and at each hand-back in point, derivative, inputs, the evaluation's record
    (``record_of(aux)``), step size and counters: with the inputs ``inputs_at(k)``, those of the step before every
    fourth step, a state saved at step 20 restored in both at step 35 with other inputs; then a step with an input not
    finite is declined (reason 2) before any work, the table's outputs left as they were."""
    steps, reals, ints, n_in = table.steps, table.reals, table.ints, table.n_in
    assert steps is not None
    out = np.zeros(len(table.names))
    sim.write_outputs(table.names, out)  # the evaluation at the start, as after initialization
    twin.write_outputs(table.names, out)
    saved, k, handed = None, 0, False
    for count in range(50):
        if count == 20:
            saved = twin.get_state()
        if count == 35:  # restored in both, as the adapter does (Python's call: the point is taken back first)
            steps.take_back()
            sim.set_state(saved)
            twin.set_state(saved)
            k, handed = 120, False
        if not handed:  # as the runtime: handed over after a call that ran Python, then steps in C one after another
            assert steps.hand_over()
            handed = True
        u = inputs_at(k - (k % 4 == 1))  # every fourth step the inputs of the step before
        reals[:n_in] = u
        assert steps.native.step(twin.t, h, reals, ints) == 0
        twin.set_inputs(u)
        twin.step(h)
        twin.write_outputs(table.names, out)
        np.testing.assert_array_equal(table.outputs(), out)
        if count % 7 == 6:  # a call that runs Python (a get of the state, say): the point taken back
            steps.take_back()
            handed = False
            assert sim.t == twin.t and sim.stepper.h == twin.stepper.h and sim.stepper.stats == twin.stepper.stats
            for ours, theirs in ((sim.x, twin.x), (sim._k, twin._k), (sim.inputs, twin.inputs),
                                 (record_of(sim._aux), record_of(twin._aux))):
                np.testing.assert_array_equal(ours, theirs)
        k += 1
    reals[n_in - 1] = np.nan  # declined (reason 2) before any work: the point and the table's outputs stay
    before = reals[n_in:].copy()
    assert steps.hand_over() and steps.native.step(sim.t, h, reals, ints) == 2 and steps.native.steps == 0
    assert np.array_equal(reals[n_in:], before)
