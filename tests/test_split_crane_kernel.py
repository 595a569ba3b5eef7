"""CraneOnMovingBase in the kernel (issue 23, item 3) against its numpy specification, to 1e-12.

The crane of the split vessel crane (models/vessel_crane/split.py) on a base held over each step: the kernel's right-
hand side (``mbs_held_derivative``: the base's angles and Euler rates held at the inputs', its accelerations
prescribed), its stepping (``mbs_held_integrate``) and its outputs (``mbs_held_outputs``: the load on the vessel with
the slewing torque's reaction, the tip, the torques, with ``inertia_outputs`` the interface inertia A and W0, with
``mean_wrench_outputs`` the load's integral over each step as quadrature states outside the error control) run with
moving set-points, input torques and a rolling, heaving base motion that changes at every communication point, a saved
state restored half-way and replayed with other inputs. At every communication point, against a twin of the model
with the kernel switched off (numpy kinematics and dynamics, ``core/kane.py``):

* the derivative at the point reached, for the inputs in force;
* the step (the kernel's stepping with the model's kernel inputs) against the Python stepper on the numpy derivative
  over the same step from the same state and step size (no accumulation over the run);
* every output ``write_outputs`` writes (one kernel call into the table) against the numpy model's ``outputs``;

and the whole run against the numpy model's own run from the same start with the same inputs. The whole communication
step in C (``mbs_cosim_held_step``, with the step-mean wrench too) equals CoSimulation.step bit for bit (the same
kernel calls on the same data).

Tolerance 1e-12 of each quantity's scale (test_kernel_outputs.py gives the argument): both sides do the same
arithmetic in another order, ~1e-16 per operation; the largest cancellation -- the controller's ~1e4 N m torques
against the booms' weight, and the constraint wrench's sums over three bodies -- leaves ~1e-14 of the scale (measured
~1e-15 per point). The whole run may add up the per-step rounding, but the closed loop is contracting (the PD loop
(63) damps every deviation within ~10 ms, the base motion is an input): measured ~1e-15 over 60 steps too.
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.core import native
from crane_models.core.moving_base.interface import MEAN_WRENCH, PREDICTED_WRENCH
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.integrators import make_stepper
from crane_models.models.registry import SPECS
from fmu_helpers import NO_KERNEL
from kernel_step_checks import ValueTable, assert_kernel_steps_are_pythons
from test_kernel_outputs import _inputs, worst

pytestmark = pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)

STEP, STEPS = 0.01, 60
SAVE_AT, RESTORE_AT = 20, 40  # a state saved at step 20 is restored after step 40: steps 20-40 again, other inputs
TOLERANCE = 1e-12
MEAN, PREDICTED = ([name for name, _, _ in rows] for rows in (MEAN_WRENCH, PREDICTED_WRENCH))


def _build(values: dict, kernel: bool):
    spec = SPECS["CraneOnMovingBase"]()
    model, x0, options = spec.build(values)
    inner = getattr(model, "model", model)  # the crane behind a ship mounting
    if not kernel:
        inner.system.native = None
    return spec, model, x0, options


def _values(**changes) -> dict:
    values = {v.name: v.start for v in SPECS["CraneOnMovingBase"]().parameters}
    values.update(changes)
    return values


def _run(values: dict) -> dict:
    """The kernel model's run, and per communication point the kernel's and numpy's derivative, step and outputs."""
    spec, model, x0, options = _build(values, kernel=True)
    _, twin, _, _ = _build(values, kernel=False)
    inner = getattr(model, "model", model)
    assert inner.compiled(0.0, np.zeros(len(spec.inputs))) is not None, "the kernel's right-hand side is not used"
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, False), **options)
    reference = CoSimulation(twin, x0, inputs=_inputs(spec, 0, False), **options)
    names = tuple(v.name for v in spec.outputs)
    table = np.empty(len(names))
    rows = {"derivative": [], "step": [], "outputs": [], "run": []}
    saved = None
    k = 0
    for count in range(STEPS):
        if count == SAVE_AT:
            saved = sim.get_state(), reference.get_state()
        if count == RESTORE_AT:
            sim.set_state(saved[0])
            reference.set_state(saved[1])
            k = SAVE_AT + 100  # other inputs than the first time
        u = _inputs(spec, k, False)
        sim.set_inputs(u)
        reference.set_inputs(u)
        rows["derivative"].append((model.derivative(sim.t, sim.x, u)[0], twin.derivative(sim.t, sim.x, u)[0]))
        x, h = inner.restart_step_integrals(sim.x) if values["mean_wrench_outputs"] else sim.x.copy(), sim.stepper.h
        sim.step(STEP)
        reference.step(STEP)
        python = make_stepper(options["stepper"], rtol=sim.stepper.rtol, atol=sim.stepper.atol,
                              max_step=sim.stepper.max_step)
        python.h, python.controlled = h, sim.stepper.controlled
        f = lambda t, y: twin.derivative(t, y, u)  # noqa: E731
        k0, aux0 = f(sim.t - STEP, x)
        rows["step"].append((sim.x.copy(), python.advance(f, sim.t - STEP, x, sim.t, k0, aux0)[0]))
        sim.write_outputs(names, table)
        expected = twin.outputs(sim.t, sim.x, u, twin.derivative(sim.t, sim.x, u)[1])
        rows["outputs"].append((table.copy(), np.array([float(expected[n]) for n in names])))
        rows["run"].append((sim.x.copy(), reference.x.copy()))
        k += 1
    return {"names": names, "units": [v.unit for v in spec.outputs], **rows}


CASES = {"default": {}, "interface inertia": {"inertia_outputs": True},
         "step-mean wrench": {"mean_wrench_outputs": True, "inertia_outputs": True},
         "on a ship at a heading, z down": {"mount_heading": 0.7, "mount_x": 12.0, "mount_z": -3.0, "z_down": True,
                                            "inertia_outputs": True}}


@pytest.fixture(scope="module", params=list(CASES))
def run(request):
    return _run(_values(**CASES[request.param]))


@pytest.mark.parametrize("part", ["derivative", "step", "run"])
def test_the_kernels_right_hand_side_and_stepping_are_numpys(run, part):
    deviation, i = worst(run[part])
    assert deviation < TOLERANCE, f"{part}: state component {i}: {deviation:.3g} of its scale"


def test_write_outputs_writes_every_output_as_numpy_computes_it(run):
    deviation, i = worst(run["outputs"], run["units"])
    assert deviation < TOLERANCE, f"output {run['names'][i]}: {deviation:.3g} of its scale"
    kernel = np.array([a for a, _ in run["outputs"]])
    moving = [j for j, name in enumerate(run["names"]) if name.startswith(("interface_force_", "interface_moment_"))
              and "mean" not in name and "predicted" not in name]
    assert np.all(np.ptp(kernel[:, moving], axis=0) > 0.0), "the interface wrench does not move: a weak test"


def test_the_interface_inertia_is_computed_when_asked_for_and_zero_else():
    for inertia in (False, True):
        spec, model, x0, options = _build(_values(inertia_outputs=inertia), kernel=True)
        sim = CoSimulation(model, x0, inputs=_inputs(spec, 3, False), **options)
        sim.step(STEP)
        names = tuple(v.name for v in spec.outputs)
        table = np.empty(len(names))
        sim.write_outputs(names, table)
        at = [j for j, name in enumerate(names) if name.startswith(("interface_inertia_", "interface_force0_",
                                                                   "interface_moment0_"))]
        assert len(at) == 27 and (np.all(table[at] != 0.0) if inertia else not table[at].any()), inertia


# ---- the whole communication step in C (mbs_cosim_held_step, fmi/kernel_steps.py) --------------------------------

def _kernel_steps(values: dict):
    """``(spec, simulation, value table with the kernel's steps)``."""
    spec, model, x0, options = _build(values, kernel=True)
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, False), max_internal_steps=1000, **options)
    return spec, sim, ValueTable(spec, sim)


@pytest.mark.parametrize("case", ["default", "interface inertia", "step-mean wrench"])
def test_the_kernels_step_is_cosimulations_step_to_the_last_bit(case):
    """Each step by mbs_cosim_held_step equals CoSimulation.step -- outputs, point, derivative, the evaluation's record,
    the stepper's step size and counters -- over moving set-points and base motion, inputs that stay for a step, a
    saved state restored with other inputs; a step with an input not finite is declined with nothing changed. With the
    step-mean wrench the step restarts its integrals in C (restart_step_integrals, the step before's kept) and outputs
    their mean and its prediction."""
    values = _values(**CASES[case])
    spec, sim, table = _kernel_steps(values)
    _, twin, _ = _kernel_steps(values)
    assert_kernel_steps_are_pythons(table, sim, twin, lambda k: _inputs(spec, k, False), lambda aux: aux[0].record, STEP)
    if values["mean_wrench_outputs"]:  # the prediction 2 W̄ₙ − W̄ₙ₋₁ moves apart from the mean: compared live
        out = table.outputs()
        mean, predicted = ([out[table.names.index(n)] for n in names] for names in (MEAN, PREDICTED))
        assert np.all(np.array(predicted) != 0.0) and np.all(np.array(predicted) != np.array(mean))


@pytest.mark.parametrize("changes", [{"mount_heading": 0.5}, {"integrator": 1}], ids=["on a ship", "Rosenbrock-W"])
def test_what_does_not_qualify_steps_in_python(changes):
    """A ship mounting (its wrapper's outputs and inputs are Python's) and the implicit stepper keep Python's step."""
    assert _kernel_steps(_values(**changes))[2].steps is None
