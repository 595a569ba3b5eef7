"""The step-mean wrench predicted over the coming step (``interface_*_predicted_*``, with ``mean_wrench_outputs``):
``Ŵ = W̄ₙ + (W̄ₙ − W̄ₙ₋₁) 2 hₙ / (hₙ + hₙ₋₁)`` (``2 W̄ₙ − W̄ₙ₋₁`` for equal steps), the linear extrapolation of the last
two step means (core/moving_base/interface.py
``step_wrenches``), on both moving-base cranes, the knuckle boom crane with its payload too, on the kernel path and on
the numpy path (the kernel switched off).

* **The formula, point by point**: over a run with moving set-points and base motion and steps of three lengths, the
  predicted output read after each step is the line through the mean output read there and the one read after the
  step before, for the two steps' lengths (1e-12 of each component's scale -- both sides do the same operations on the same doubles, so it holds to the
  bit on the numpy and kernel paths; the ship mounting's rotation of the outputs adds a rounding); before any step it
  is the point wrench (as the mean is), after the first step the mean (nothing to extrapolate from), without
  ``mean_wrench_outputs`` 0. The prediction moves away from the mean (checked: not a comparison of equal columns).
* **A state saved in the middle and restored** (through the saved-state format's bytes, checked by
  ``CoSimulation.state_problem`` as the FMU checks a state it gets) reproduces the predicted outputs at the restored
  point and after each replayed step to the last bit: the step before's integrals are part of the state (a prediction
  kept outside it would be the latest step's at the restored point); a state without them is refused.
* **Physics: the prediction is second order.** A crane released off its set-point (a smooth PD transient, inputs
  held constant, no set-point jumps) has a wrench smooth in time; the predicted mean over [T, T + h] then differs
  from the actual mean over that step (the mean output after it) by the second difference of the step means,
  ``h² W''(T) + O(h³)``: halving h divides that error by 4 (within 20 %), where the held mean's error only halves.
  The FMU steps at rtol 1e-11 here, so its own integration error is far below the prediction's.

The C step's predicted outputs equal Python's to the last bit: tests/test_split_crane_kernel.py,
tests/test_moving_base_kernel.py (in process) and tests/test_kernel_steps.py (FMI 2.0 and 3.0)."""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.core import native
from crane_models.core.moving_base.interface import MEAN_WRENCH, PREDICTED_WRENCH, WRENCH
from crane_models.fmi import saved_states  # noqa: F401 -- registers the model objects a state may hold
from crane_models.fmi.state_format import decode_state, encode_state
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.step_control import StepBudgetExceeded
from fmu_helpers import NO_KERNEL
from test_kernel_outputs import _inputs
from test_moving_base_kernel import CRANES, build, started

POINT = [name for name, _, _ in WRENCH]
MEAN = [name for name, _, _ in MEAN_WRENCH]
PREDICTED = [name for name, _, _ in PREDICTED_WRENCH]
STEPS = (0.01, 0.005, 0.0075)  # the communication steps, in turn: each mean is over its own step
PATHS = [pytest.param(True, id="kernel", marks=pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)),
         pytest.param(False, id="numpy")]
IDENTITY = {"model": "a test's"}  # the FMU's identity in the saved bytes (compared on reading)
CASES = {**CRANES, "CraneOnMovingBase on a ship": ("CraneOnMovingBase", {"mount_heading": 0.7, "mount_x": 12.0,
                                                                         "z_down": True})}


def run(case: str, kernel: bool, steps: int = 12, mean: bool = True, save_at: int | None = None) -> tuple:
    """``(spec, output names, outputs after each step (row 0: before any step), the state saved before step save_at
    as bytes, the simulation)`` of a run with moving set-points and base motion."""
    name, changes = CASES[case]
    spec, sim, names, table = started(name, kernel, 0, mean_wrench_outputs=mean, **changes)
    rows, saved = [table.copy()], None
    for k in range(steps):
        if k == save_at:
            saved = encode_state(sim.get_state(), IDENTITY)
        sim.set_inputs(_inputs(spec, k, False))
        sim.step(STEPS[k % len(STEPS)])
        sim.write_outputs(names, table)
        rows.append(table.copy())
    return spec, names, np.array(rows), saved, sim


def columns(names: tuple, rows: np.ndarray, wanted: list) -> np.ndarray:
    return rows[:, [names.index(n) for n in wanted]]


@pytest.mark.parametrize("kernel", PATHS)
@pytest.mark.parametrize("case", list(CASES))
def test_the_prediction_is_the_line_through_the_last_two_means(case, kernel):
    """Steps of three lengths in turn: the line through the means at their steps' middles, averaged over a coming
    step as long as the last, W̄ₙ + (W̄ₙ − W̄ₙ₋₁) 2 hₙ / (hₙ + hₙ₋₁) (2 W̄ₙ − W̄ₙ₋₁ for equal steps)."""
    _, names, rows, _, _ = run(case, kernel)
    point, mean, predicted = (columns(names, rows, c) for c in (POINT, MEAN, PREDICTED))
    np.testing.assert_array_equal(predicted[0], point[0])  # before any step: the point wrench, as the mean
    np.testing.assert_array_equal(predicted[1], mean[1])  # after one step: the mean, nothing to extrapolate from
    h = np.array([STEPS[(j - 1) % len(STEPS)] for j in range(2, len(rows))])[:, None]  # the step each row ends
    h_before = np.array([STEPS[(j - 2) % len(STEPS)] for j in range(2, len(rows))])[:, None]
    expected = mean[2:] + (mean[2:] - mean[1:-1]) * 2.0 * h / (h + h_before)
    scale = np.max(np.abs(mean), axis=0)
    assert np.all(np.abs(predicted[2:] - expected) <= 1e-12 * scale), np.max(np.abs(predicted[2:] - expected) / scale)
    assert np.all(np.abs(predicted[2:] - mean[2:]) > 1e-6 * scale)  # the prediction is not the mean: a real check


@pytest.mark.parametrize("case", ["CraneOnMovingBase", "KnuckleBoomCraneOnMovingBase"])
def test_without_mean_wrench_outputs_the_prediction_is_zero(case):
    _, names, rows, _, _ = run(case, native.library() is not None, steps=3, mean=False)
    assert not columns(names, rows, MEAN + PREDICTED).any()
    assert columns(names, rows, POINT).all()


@pytest.mark.parametrize("kernel", PATHS)
@pytest.mark.parametrize("case", list(CRANES))
def test_a_restored_state_reproduces_the_predicted_wrench_to_the_last_bit(case, kernel):
    spec, names, rows, saved, sim = run(case, kernel, steps=12, save_at=6)
    state = decode_state(saved, IDENTITY)
    x = state[1]
    last, before = x[-14:-7], x[-7:]  # after 6 steps: the integrals and times of steps 5 and 4 (counted from 0)
    assert np.isclose(last[6], STEPS[5 % len(STEPS)], rtol=1e-12) and np.all(last[:6] != 0.0)
    assert np.isclose(before[6], STEPS[4 % len(STEPS)], rtol=1e-12) and np.all(before[:6] != 0.0)
    assert sim.state_problem(state) is None
    short = (state[0], x[:-7], *state[2:])  # a state without the step before's integrals: refused
    assert "the state x" in sim.state_problem(short)
    sim.set_state(state)
    table = np.empty(len(names))
    sim.write_outputs(names, table)  # at the restored point: the outputs saved with it
    replay = [table.copy()]
    for k in range(6, 12):  # the same inputs and steps as the run after the save
        sim.set_inputs(_inputs(spec, k, False))
        sim.step(STEPS[k % len(STEPS)])
        sim.write_outputs(names, table)
        replay.append(table.copy())
    np.testing.assert_array_equal(columns(names, np.array(replay), PREDICTED), columns(names, rows[6:], PREDICTED))


@pytest.mark.parametrize("case", list(CRANES))
def test_a_step_that_fails_leaves_the_mean_and_its_prediction_as_they_were(case):
    """A step beyond the step budget (discarded by the FMU) leaves the state as it was -- its start's hooks undone
    (the step integrals moved and restarted): the outputs stay the last step's, and the next step follows it."""
    _, names, rows, _, sim = run(case, native.library() is not None, steps=4)
    sim.max_internal_steps = 50
    with pytest.raises(StepBudgetExceeded):
        sim.step(100.0)
    table = np.empty(len(names))
    sim.write_outputs(names, table)
    wanted = MEAN + PREDICTED
    np.testing.assert_array_equal(columns(names, table[None], wanted), columns(names, rows[-1:], wanted))


@pytest.mark.parametrize("case", ["CraneOnMovingBase", "KnuckleBoomCraneOnMovingBase"])
def test_the_predicted_mean_is_the_next_steps_mean_to_second_order(case):
    """The crane released off its set-points (CraneOnMovingBase's booms moving at 0.3-0.5 rad/s, the knuckle boom
    crane's slewing at 0.05 rad/s) on a base at rest, inputs constant; T = 40 ms, h = 2 ms and 1 ms."""
    errors = {}
    for h in (0.002, 0.001):
        name, _ = CRANES[case]
        spec, model, x0, options = build(name, native.library() is not None, mean_wrench_outputs=True)
        x0 = x0.copy()
        if name == "CraneOnMovingBase":
            x0[3:6] = [0.5, -0.3, 0.4]
        else:
            x0[9:12] = [0.05, 0.01, -0.01]
        sim = CoSimulation(model, x0, inputs=np.array([float(v.start) for v in spec.inputs]),
                           **{**options, "rtol": 1e-11, "atol": 1e-12})
        names = tuple(v.name for v in spec.outputs)
        table = np.empty(len(names))
        n = round(0.04 / h)
        for _ in range(n):
            sim.step(h)
        sim.write_outputs(names, table)
        at_t = dict(zip(names, table))
        sim.step(h)  # the step over which the prediction was made
        sim.write_outputs(names, table)
        actual = np.array([dict(zip(names, table))[m] for m in MEAN])
        errors[h] = (np.abs(np.array([at_t[p] for p in PREDICTED]) - actual),
                     np.abs(np.array([at_t[m] for m in MEAN]) - actual))  # the prediction's, the held mean's
    (predicted_2, held_2), (predicted_1, held_1) = errors[0.002], errors[0.001]
    ratio = predicted_2 / predicted_1
    assert np.all((3.2 <= ratio) & (ratio <= 4.8)), ratio  # second order: 4x within 20 %
    assert np.all(predicted_1 < 0.1 * held_1), (predicted_1, held_1)  # far better than holding the mean
    assert np.all(held_2 / held_1 < 2.4), held_2 / held_1  # which is first order
