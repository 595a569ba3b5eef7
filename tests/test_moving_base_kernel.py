"""The step-mean wrench of the moving-base cranes and KnuckleBoomCraneOnMovingBase's communication step in C.

* **The step-mean wrench is the impulse over the step divided by the step** (``mean_wrench_outputs``; issue 33):
  for CraneOnMovingBase and KnuckleBoomCraneOnMovingBase with the payload off and on, on the kernel path and on the
  numpy path (the kernel switched off), one communication step of 10 ms right after a set-point jump on a rolling,
  heaving base: ``interface_*_mean_* · h`` against the impulse of the point outputs ``interface_force_*``,
  ``interface_moment_*`` over the same step -- the same model's state integrated by DOP853 at rtol 1e-12 from the
  state the step starts from (the base imposed), its point wrench read on a grid of 129 points and integrated by
  Simpson's rule (Richardson: the 65-point rule agrees to far below the bound) -- to 1e-6 of the impulse's size
  (force and moment each). The FMU steps at rtol 1e-10 here: its own trajectory is then right to far below that;
  its quadrature states are outside the error control, so what the test checks is that they integrate exactly the
  point outputs. The jump makes the wrench move within the step, so neither end value passes (checked).
* **Before any step the mean is the point wrench** (to the last bit), both cranes, both paths.
* **KnuckleBoomCraneOnMovingBase's step in C** (``mbs_cosim_moving_step``) equals ``CoSimulation.step`` bit for bit --
  outputs, point, derivative, the evaluation's record, the stepper's step size and counters -- over moving
  set-points and base motion, inputs that stay for a step (the base re-imposed from the same inputs), a saved state
  restored with other inputs, with the point and the step-mean wrench (and its prediction) and the interface inertia;
  the kernel's right-hand side with the step-mean wrench's quadrature equals numpy's to 1e-12.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from crane_models.core import native
from crane_models.core.moving_base.interface import MEAN_WRENCH, PREDICTED_WRENCH, STEP_INTEGRALS, WRENCH
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.registry import SPECS
from fmu_helpers import NO_KERNEL
from kernel_step_checks import ValueTable, assert_kernel_steps_are_pythons
from test_kernel_outputs import _inputs, worst

pytestmark = pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)

STEP = 0.01
POINT = [name for name, _, _ in WRENCH]
MEAN = [name for name, _, _ in MEAN_WRENCH]
PREDICTED = [name for name, _, _ in PREDICTED_WRENCH]
# (FMU, start values): the moving-base cranes with the step-mean wrench
CRANES = {"CraneOnMovingBase": ("CraneOnMovingBase", {}),
          "KnuckleBoomCraneOnMovingBase": ("KnuckleBoomCraneOnMovingBase", {}),
          "KnuckleBoomCraneOnMovingBase+payload": ("KnuckleBoomCraneOnMovingBase", {"payload_enabled": True})}


def build(name: str, kernel: bool, **changes):
    """``(spec, model, x0, options)`` with the kernel or, ``kernel=False``, numpy's kinematics and dynamics."""
    spec = SPECS[name]()
    values = {**{v.name: v.start for v in spec.parameters}, **changes}
    model, x0, options = spec.build(values)
    if not kernel:
        inner = getattr(model, "model", model)
        system = getattr(inner, "crane", inner).system  # the crane's tree behind a payload or a ship mounting
        system.native = None
    return spec, model, x0, options


def started(name: str, kernel: bool, inputs: int, **changes) -> tuple:
    """``(spec, simulation, output names, their table)``: the FMU ``name`` built with ``changes`` (:func:`build`),
    started with the inputs of step ``inputs``, its outputs written into the table as after initialization."""
    spec, model, x0, options = build(name, kernel, **changes)
    sim = CoSimulation(model, x0, inputs=_inputs(spec, inputs, False), **options)
    names = tuple(v.name for v in spec.outputs)
    table = np.empty(len(names))
    sim.write_outputs(names, table)  # what the FMU publishes after initialization
    return spec, sim, names, table


def wrench_of(model, t: float, x: np.ndarray, inputs: np.ndarray, names: list) -> np.ndarray:
    return np.array([model.outputs(t, x, inputs, model.derivative(t, x, inputs)[1])[n] for n in names])


@pytest.mark.parametrize("kernel", (True, False), ids=("kernel", "numpy"))
@pytest.mark.parametrize("crane", list(CRANES))
def test_the_step_mean_wrench_is_the_impulse_of_the_point_wrench_over_the_step(crane, kernel):
    name, changes = CRANES[crane]
    spec, model, x0, options = build(name, kernel, mean_wrench_outputs=True, **changes)
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, False), **{**options, "rtol": 1e-10, "atol": 1e-12})
    for k in range(3):  # under way on the moving base, the integrals filled by the steps before
        sim.set_inputs(_inputs(spec, k, False))
        sim.step(STEP)
    u = _inputs(spec, 3, False)
    u[:6] += [2e4, -3e4, 1e4, 0.05, 0.03, -0.04] if name == "KnuckleBoomCraneOnMovingBase" else [0.0] * 3 + [0.1] * 3
    sim.set_inputs(u)  # a set-point jump: the PD loop answers within the step
    impose = getattr(model, "impose_inputs", lambda x, inputs: x)
    start = impose(sim.x, u)  # the state the step starts from (the base at the inputs')
    n = model.state_size - STEP_INTEGRALS  # the step integrals last
    t0 = sim.t
    sim.step(STEP)
    out = sim.outputs()
    mean = np.array([out[m] for m in MEAN])
    if kernel and "payload" not in crane:  # stepped in the kernel (with the payload: the kernel's crane derivative)
        assert model.compiled(sim.t, u) is not None

    def point(t, y):
        return wrench_of(model, t, np.concatenate((y, np.zeros(STEP_INTEGRALS))), u, POINT)

    solution = solve_ivp(lambda t, y: model.derivative(t, np.concatenate((y, np.zeros(STEP_INTEGRALS))), u)[0][:n],
                         (t0, t0 + STEP), start[:n], method="DOP853", rtol=1e-12, atol=1e-12, dense_output=True)
    assert solution.success
    grid = np.linspace(t0, t0 + STEP, 129)
    values = np.array([point(t, solution.sol(t)) for t in grid])

    def simpson(v):
        return STEP / (3 * (len(v) - 1)) * (v[0] + v[-1] + 4 * v[1:-1:2].sum(axis=0) + 2 * v[2:-1:2].sum(axis=0))

    impulse, coarse = simpson(values), simpson(values[::2])
    for part in (slice(0, 3), slice(3, 6)):  # force, moment
        size = np.linalg.norm(impulse[part])
        assert np.linalg.norm(impulse[part] - coarse[part]) < 1e-8 * size  # the quadrature's own error is negligible
        assert np.linalg.norm(mean[part] * STEP - impulse[part]) <= 1e-6 * size, (mean * STEP, impulse)
        for end in (values[0], values[-1]):  # the wrench moves within the step: neither end value is the mean
            assert np.linalg.norm(end[part] * STEP - impulse[part]) > 1e-4 * size


@pytest.mark.parametrize("kernel", (True, False), ids=("kernel", "numpy"))
@pytest.mark.parametrize("crane", list(CRANES))
def test_before_any_step_the_mean_is_the_point_wrench(crane, kernel):
    name, changes = CRANES[crane]
    _, sim, names, table = started(name, kernel, 1, mean_wrench_outputs=True, **changes)
    got = dict(zip(names, table))
    point = np.array([got[n] for n in POINT])
    assert np.abs(point).max() > 1e3  # the crane's weight at least: not a zero against a zero
    np.testing.assert_array_equal([got[n] for n in MEAN], point)
    sim.step(STEP)
    sim.write_outputs(names, table)
    assert not np.array_equal(table[[names.index(n) for n in MEAN]], table[[names.index(n) for n in POINT]])


# ---- KnuckleBoomCraneOnMovingBase's whole communication step in C (mbs_cosim_moving_step) ------------------------

CASES = {"point wrench": {}, "step-mean wrench": {"mean_wrench_outputs": True},
         "step-mean wrench and interface inertia": {"mean_wrench_outputs": True, "inertia_outputs": True}}


def kernel_steps(changes: dict) -> tuple:
    """``(spec, simulation, value table with the kernel's steps)``."""
    spec, model, x0, options = build("KnuckleBoomCraneOnMovingBase", True, **changes)
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, False), max_internal_steps=1000, **options)
    return spec, sim, ValueTable(spec, sim)


@pytest.mark.parametrize("case", list(CASES))
def test_the_kernels_moving_base_step_is_cosimulations_step_to_the_last_bit(case):
    spec, sim, table = kernel_steps(CASES[case])
    _, twin, _ = kernel_steps(CASES[case])
    assert_kernel_steps_are_pythons(table, sim, twin, lambda k: _inputs(spec, k, False), lambda aux: aux.record, STEP)
    values = table.outputs()
    moving = [table.names.index(n) for n in POINT + (MEAN + PREDICTED if "mean" in case else [])]
    assert np.all(values[moving] != 0.0)
    if "mean" in case:  # the prediction 2 W̄ₙ − W̄ₙ₋₁ (its steps restart the integrals and keep the step before's)
        assert np.all(values[[table.names.index(n) for n in PREDICTED]] != values[[table.names.index(n) for n in MEAN]])


def test_the_kernels_right_hand_side_with_the_step_mean_wrench_is_numpys():
    spec, model, x0, _ = build("KnuckleBoomCraneOnMovingBase", True, mean_wrench_outputs=True)
    _, twin, _, _ = build("KnuckleBoomCraneOnMovingBase", False, mean_wrench_outputs=True)
    rng = np.random.default_rng(33)
    pairs = []
    for k in range(10):
        u = _inputs(spec, k, False)
        x = model.impose_inputs(x0 + np.concatenate((0.02 * rng.standard_normal(18),
                                                     rng.standard_normal(STEP_INTEGRALS))), u)
        x[9:12] += 0.1 * rng.standard_normal(3)
        pairs.append((model.derivative(0.0, x, u)[0], twin.derivative(0.0, x, u)[0]))
    deviation, i = worst(pairs)
    assert deviation < 1e-12, f"component {i}: {deviation:.3g} of its scale"
    assert np.all(np.ptp([a[18:24] for a, _ in pairs], axis=0) > 0.0)  # the integrand moves: a real comparison
