"""Steps without Python (issue 23; fmi/kernel_steps.py, core/native/cosim_step.c; docs/fmi-runtime.md, "Steps without
Python"): the runtime steps a model whose step needs nothing but the kernel in C, over its value table, without the
interpreter lock, and hands every other step to the slave's do_step.

* which FMUs step so, FMI 2.0 and 3.0: KnuckleBoomCrane with and without its payload, VesselCrane (a tree in the
  kernel, an exact input update, the kernel's outputs, state events only where the kernel's stepper checks them:
  a step with an event is declined and Python locates it), CraneOnMovingBase (its crane on the base held over the
  step, evaluated anew for new inputs: core/native/cosim_held.c; with the step-mean wrench its step integrals
  restarted there), KnuckleBoomCraneOnMovingBase without its payload (the base imposed from the inputs and the
  step integrals restarted in C: core/native/cosim_moving.c), Vessel (a fresh evaluation for new inputs) and
  WaveVessel (outputs of time alone: core/native/harmonic.c, kernel_steps.TimeSteps);
  the others step in Python, each for a reason named below;
* Python does not run at all in such a doStep (a profiler in the calling thread sees no call into the slave);
* the results are the Python path's to the last bit -- the same kernel calls on the same data, so the tolerance is
  zero -- over a run with moving set-points, a saved state restored and replayed with other inputs, an input that
  is not finite (refused, then continued) and a step no step budget reaches (refused) -- with the payload also
  through its lift, where the wire goes slack and taut again and again: those steps declined, most others not --;
  and equal to the numpy
  specification (the model and its co-simulation in this process) to 1e-12 of each output's scale, as
  tests/test_value_table.py holds every FMU;
* the kernel's step itself, in this process: a step equals CoSimulation.step and its outputs, the point taken back
  equals the Python step's, and a step it declines (a state outside the model's bounds) changes nothing.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from crane_models.fmi.kernel_steps import KernelSteps
from crane_models.fmi.spec import STEP_BUDGET_PARAMETER
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.registry import SPECS
from fmu_helpers import build_fmi3_fmus, build_fmus, needs_kernel, needs_runtime
from value_table_host import Instance, Run, Specification
from vessel_reference import crane_inertia, inertia_inputs

pytestmark = [needs_runtime, needs_kernel]

SWITCH = "CRANE_COSIM_NATIVE_STEP"
NATIVE_MESSAGE = "stepped without Python"  # the runtime's debug message at the first such step
RTOL = 1e-12  # against the specification: tests/test_value_table.py's bound, for the same reason

# (FMU, start values, steps without Python?): why each one that does not
CASES = [
    ("KnuckleBoomCrane", {"payload_enabled": False}, True),
    ("KnuckleBoomCrane", {"payload_enabled": True}, True),  # a step with a slack/taut event is declined
    ("VesselCrane", {}, True),
    ("KnuckleBoomCraneOnMovingBase", {"payload_enabled": False}, True),  # the base imposed at each step, in C
    ("KnuckleBoomCraneOnMovingBase", {"payload_enabled": False, "mean_wrench_outputs": True}, True),  # integrals too
    ("KnuckleBoomCraneOnMovingBase", {}, False),  # the lift's payload on the moving base: Python's stepper
    ("CraneOnMovingBase", {}, True),  # the base held over the step: the inputs, not the state
    ("CraneOnMovingBase", {"mean_wrench_outputs": True}, True),  # step integrals, restarted in C
    ("CraneOnMovingBase", {"mount_heading": 0.5}, False),  # on a ship: the wrapper's outputs are Python's
    ("FlexibleCrane", {}, False),  # a task (springs, friction) in the right-hand side
    ("Vessel", {}, True),  # new inputs evaluated afresh (no exact update: the crane's inertia A is an input)
    ("WaveVessel", {}, True),  # outputs of time alone: mbs_harmonic_step (kernel_steps.TimeSteps)
    ("WaveVessel", {"z_down": True, "sea_spreading": 4.0}, True),
]
NATIVE_CASES = [(name, starts) for name, starts, native in CASES if native]
DECLINED = "declined by the slave's native step"  # the runtime's debug message at a declined step
EVENT_REASON = "(reason 7)"  # mbs_cosim_payload_step's MBS_COSIM_EVENT: an indicator changed sign in the step


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {2: build_fmus(tmp_path_factory), 3: build_fmi3_fmus(tmp_path_factory)}


def instance(built, name: str, version: int, starts: dict, native: bool, monkeypatch) -> tuple:
    """A started instance and its run (the value table's run of the FMU with ``starts`` over its start values)."""
    run = Run(name)
    run.start_values = {**run.start_values, **starts}
    monkeypatch.setenv(SWITCH, "1" if native else "0")
    s = Instance(built[version] / f"{name}.fmu", version, "kernel-steps")
    monkeypatch.delenv(SWITCH)
    s.enter_initialization()
    s.set({**run.start_values, **run.inputs_at(0.0)})
    s.fmu.exitInitializationMode()
    return s, run


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("name, starts, native", CASES, ids=[f"{c[0]}-{'native' if c[2] else 'python'}" for c in CASES])
def test_which_fmus_step_without_python(built, name, starts, native, version, monkeypatch):
    s, run = instance(built, name, version, starts, True, monkeypatch)
    for k in range(5):
        s.set(run.inputs_at(k * run.h))
        assert s.step(k * run.h, run.h) == 0, s.errors()
    assert any(NATIVE_MESSAGE in m for _, m in s.messages) is native, s.messages[-5:]
    s.close()


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("name, starts", NATIVE_CASES, ids=[c[0] for c in NATIVE_CASES])
def test_no_python_runs_in_a_step(built, name, starts, version, monkeypatch):
    """A profiler in the calling thread sees every Python function the runtime calls (it enters the interpreter in
    this thread): none of the slave's in a doStep, but do_step with the switch off (the profiler's own check)."""
    seen = {}
    for native in (True, False):
        s, run = instance(built, name, version, starts, native, monkeypatch)
        s.set(run.inputs_at(0.0))
        calls = []
        sys.setprofile(lambda frame, event, _arg: calls.append(frame.f_code.co_name) if event == "call" else None)
        try:
            s.fmu.doStep(0.0, run.h)
        finally:
            sys.setprofile(None)
        seen[native] = calls
        s.close()
    assert "do_step" not in seen[True] and "_do_step" not in seen[True], seen[True][:20]
    assert "do_step" in seen[False]


def run_with_everything(s: Instance, run: Run, outputs: list, steps: int = 90) -> tuple:
    """Statuses and output rows over: moving set-points, a state saved at step 30 and restored at step 60 with other
    set-points, an input that is not finite at step 40 (refused; none for an FMU without inputs) and a step the budget cannot reach at step 50
    (refused before any work); then on from the restored state to ``steps`` steps."""
    statuses, rows, t, saved = [], [], 0.0, None
    for k in range(steps):
        if k == 60:
            s.set_state(saved)
            t = saved_t
        u = run.inputs_at(t, shift=0.01 if k >= 60 else 0.0)
        if k == 40 and run.spec.inputs:  # (an FMU without inputs: nothing to refuse)
            u = {**u, run.spec.inputs[0].name: math.nan}
        s.set(u)
        h = 100.0 if k == 50 else run.h  # 10,000 internal steps at least: beyond the reach of a budget of 1000
        statuses.append(s.step(t, h))
        if statuses[-1] == 0:
            t += h
        got = s.get(outputs)
        rows.append([float(got[n]) for n in outputs])
        if k == 30:
            saved, saved_t = s.get_state(), t
    return statuses, np.array(rows)


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("name, starts", NATIVE_CASES, ids=[c[0] for c in NATIVE_CASES])
def test_results_are_the_python_paths_to_the_last_bit(built, name, starts, version, monkeypatch):
    """With the payload the run goes on to 2.7 s (300 steps, 60 of them replayed): through the lift's slack and taut
    switches between 1.8 s and 2.4 s, whose steps the kernel declines (Python locates the events) -- at least one,
    at most a tenth of the steps."""
    starts = {**starts, STEP_BUDGET_PARAMETER.name: 1000}
    payload = bool(starts.get("payload_enabled"))
    steps = 300 if payload else 90
    results, declined = {}, {}
    for native in (True, False):
        s, run = instance(built, name, version, starts, native, monkeypatch)
        outputs = [v.name for v in run.spec.outputs]
        results[native] = run_with_everything(s, run, outputs, steps)
        assert any(NATIVE_MESSAGE in m for _, m in s.messages) is native
        declined[native] = [m for _, m in s.messages if DECLINED in m]
        s.close()
    (status_native, rows_native), (status_python, rows_python) = results[True], results[False]
    assert status_native == status_python
    # refused: the input that is not finite (an FMU without inputs has none) and the step beyond the budget's reach
    # (a model without state has no budget to exceed: any step is one evaluation, CoSimulation.reach)
    within_reach = math.isinf(run.specification().sim.reach)
    refused = ([40] if run.spec.inputs else []) + ([] if within_reach else [50])
    assert [k for k, status in enumerate(status_native) if status != 0] == refused
    assert all(status_native[k] == 3 for k in refused)
    np.testing.assert_array_equal(rows_native, rows_python)
    if starts.get("mean_wrench_outputs"):  # the step-mean wrench's prediction moves apart from the mean: compared live
        predicted, mean = (rows_native[1:, [outputs.index(f"interface_{k}_{w}_{a}") for k in ("force", "moment")
                                            for a in "xyz"]] for w in ("predicted", "mean"))
        assert np.all(predicted != 0.0) and np.all(predicted != mean)
    events = [m for m in declined[True] if EVENT_REASON in m]
    assert not declined[False] and (len(events) > 0) is payload and len(declined[True]) <= steps // 10, declined[True]


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("name, starts", NATIVE_CASES, ids=[c[0] for c in NATIVE_CASES])
def test_results_equal_the_specification(built, name, starts, version, monkeypatch):
    s, run = instance(built, name, version, starts, True, monkeypatch)
    ref = run.specification()
    outputs = [v.name for v in run.spec.outputs if v.kind == "real"]
    rows, expected = [], []
    for k in range(60):
        t = k * run.h
        u = run.inputs_at(t)
        s.set(u)
        assert s.step(t, run.h) == 0, s.errors()
        ref.step(t, run.h, u)
        got, want = s.get(outputs), ref.outputs(u)
        rows.append([got[n] for n in outputs])
        expected.append([want[n] for n in outputs])
    assert any(NATIVE_MESSAGE in m for _, m in s.messages)
    got, want = np.array(rows), np.array(expected)
    scale = np.maximum(np.max(np.abs(want), axis=0), 1e-300)
    assert np.all(np.abs(got - want) <= RTOL * scale), np.max(np.abs(got - want) / scale)
    s.close()


# ---- the kernel's step in this process ----------------------------------------------------------------------

def simulation(name: str = "KnuckleBoomCrane", **starts) -> tuple:
    spec = SPECS[name]()
    params = {**{v.name: v.start for v in spec.parameters}, "payload_enabled": False, **starts}
    model, x0, options = spec.build(params)
    inputs = np.array([float(v.start) for v in spec.inputs])
    sim = CoSimulation(model, x0, inputs=inputs, max_internal_steps=1000, **options)
    return spec, sim


class Table:
    """A value table as the runtime holds it: the inputs first, then the outputs (Real ones in the doubles)."""

    def __init__(self, spec):
        self.inputs = [v.name for v in spec.inputs]
        self.outputs = tuple(v.name for v in spec.outputs)
        n_in = len(self.inputs)
        self.reals, self.ints = np.zeros(n_in + len(self.outputs)), np.zeros(n_in + len(self.outputs), np.int64)
        real = [(n_in + j, j) for j, v in enumerate(spec.outputs) if v.kind == "real"]
        other = [(n_in + j, j) for j, v in enumerate(spec.outputs) if v.kind != "real"]
        self.slots = (list(range(n_in)), real, other, None)

    def outputs_of(self, spec) -> np.ndarray:
        n_in = len(self.inputs)
        return np.array([self.reals[n_in + j] if v.kind == "real" else self.ints[n_in + j]
                         for j, v in enumerate(spec.outputs)], float)


def moved_inputs(name: str, u: np.ndarray, k: int) -> np.ndarray:
    """The inputs of step ``k`` from those in force ``u``: KnuckleBoomCrane's set-points move; the Vessel's wrench at
    the crane base and its crane's inertia A move (a fresh evaluation at the point), held every fourth step (the
    evaluation reached carries over)."""
    u = u.copy()
    if name != "Vessel":
        u[:3] += 0.02 * np.sin(0.3 * k + np.arange(3))
    elif k % 4 != 3:
        t = 0.01 * k
        u[:6] = [1e3 * math.sin(1.0 + 0.3 * i + (1.0 + 0.2 * i) * t) * (3.0 if i >= 3 else 1.0) for i in range(6)]
        u[6:] = inertia_inputs(crane_inertia(t))
    return u


@pytest.mark.parametrize("name", ("KnuckleBoomCrane", "Vessel"))
def test_the_kernels_step_is_cosimulations_step(name):
    spec, sim = simulation(name)
    _, twin = simulation(name)
    table = Table(spec)
    out = np.zeros(len(table.outputs))
    sim.write_outputs(table.outputs, out)  # the evaluation at the start, as after initialization
    twin.write_outputs(table.outputs, out)
    steps = KernelSteps.of(sim, table.outputs, *table.slots)
    assert steps is not None and steps.native.fresh_inputs is (name == "Vessel")
    h = 0.01
    for k in range(40):
        u = moved_inputs(name, sim.inputs, k)
        table.reals[:u.size] = u
        assert steps.hand_over()
        assert steps.native.step(twin.t, h, table.reals, table.ints) == 0
        twin.set_inputs(u)
        twin.step(h)
        twin.write_outputs(table.outputs, out)
        np.testing.assert_array_equal(table.outputs_of(spec), out)
        steps.take_back()  # the point as the Python step leaves it
        assert sim.t == twin.t and sim.stepper.h == twin.stepper.h
        np.testing.assert_array_equal(sim.x, twin.x)
        np.testing.assert_array_equal(sim._k, twin._k)
        np.testing.assert_array_equal(sim.inputs, twin.inputs)
        np.testing.assert_array_equal(sim._aux.record, twin._aux.record)
    assert sim.stepper.stats["evaluations"] > 0 and sim.stepper.stats["accepted"] == twin.stepper.stats["accepted"]


def test_the_kernels_payload_step_is_cosimulations_step():
    """The lift (Run's scenario, 2.4 s) with the payload: each step by the kernel where it takes it -- equal to
    CoSimulation.step in outputs, point, derivative, evaluation and the event indicators' cache -- and by Python where
    it declines (an indicator changes sign: reason 7), from the same point; some declined, most not."""
    run = Run("KnuckleBoomCrane")
    sim, twin = (Specification(run.spec, run.start_values, run.inputs_at(0.0)).sim for _ in range(2))
    table = Table(run.spec)
    out = np.zeros(len(table.outputs))
    sim.write_outputs(table.outputs, out)  # the evaluation at the start, as after initialization
    twin.write_outputs(table.outputs, out)
    steps = KernelSteps.of(sim, table.outputs, *table.slots)
    assert steps is not None
    codes = []
    for k in range(240):
        t = k * run.h
        u = np.array([run.inputs_at(t)[name] for name in table.inputs])
        table.reals[:u.size] = u
        assert steps.hand_over()
        codes.append(steps.native.step(t, run.h, table.reals, table.ints))
        twin.set_inputs(u)
        twin.t = t
        twin.step(run.h)
        twin.write_outputs(table.outputs, out)
        if codes[-1] == 0:
            np.testing.assert_array_equal(table.outputs_of(run.spec), out)
            steps.take_back()
        else:  # declined: Python's step, as the runtime hands it to do_step
            sim.set_inputs(u)
            sim.t = t
            sim.step(run.h)
        assert sim.t == twin.t and sim.stepper.h == twin.stepper.h
        np.testing.assert_array_equal(sim.x, twin.x)
        np.testing.assert_array_equal(sim._k, twin._k)
        np.testing.assert_array_equal(sim._aux[0].record, twin._aux[0].record)
        for ours, theirs in zip(sim.model._indicators, twin.model._indicators):
            np.testing.assert_array_equal(ours, theirs)
    assert set(codes) == {0, 7} and 0 < codes.count(7) <= 24, codes


def test_a_declined_step_changes_nothing():
    spec, sim = simulation()
    table = Table(spec)
    out = np.zeros(len(table.outputs))
    sim.write_outputs(table.outputs, out)
    steps = KernelSteps.of(sim, table.outputs, *table.slots)
    # bounds that the state at the start already violates: the step is taken, then its state refused (reason 5)
    native = steps.native
    x0 = sim.x.copy()
    native._bounds[1][0], native._bounds[2][0] = x0[native._bounds[0][0]] + 1.0, math.inf
    table.reals[:sim.inputs.size] = sim.inputs + 0.01
    table.reals[sim.inputs.size:] = -7.0
    assert steps.hand_over()
    assert native.step(sim.t, 0.01, table.reals, table.ints) == 5
    assert native.steps == 0 and np.all(table.reals[sim.inputs.size:] == -7.0)
    steps.take_back()
    assert sim.t == 0.0
    np.testing.assert_array_equal(sim.x, x0)
    # a start time that is not the point reached (beyond rounding), and an input not finite: declined before any work
    assert native.step(0.5, 0.01, table.reals, table.ints) == 1
    table.reals[0] = math.inf
    assert native.step(0.0, 0.01, table.reals, table.ints) == 2


def test_the_vessels_pitch_bound_declines_the_step_and_python_reports_it():
    """A pitch moment M = 1e8 N m, suddenly applied, swings the Vessel from rest towards (4 M / k2)^(1/3) = 1.7 rad (the
    cubic spring's energy k2 q^4 / 4 against M q) past check_state's bound |q2| <= 1.4 rad: the kernel's step there is
    declined (reason 5: the state's check) with nothing changed, and Python's step from the same point raises
    check_state's error; the steps before are the kernel's."""
    spec, sim = simulation("Vessel")
    table = Table(spec)
    out = np.zeros(len(table.outputs))
    sim.write_outputs(table.outputs, out)
    steps = KernelSteps.of(sim, table.outputs, *table.slots)
    u = sim.inputs.copy()
    u[4] = 1e8  # N m about y1 at the crane base
    table.reals[:u.size] = u
    codes = []
    for _ in range(20):
        assert steps.hand_over()
        codes.append(steps.native.step(sim.t, 0.01, table.reals, table.ints))
        if codes[-1]:
            break
        steps.take_back()
        assert abs(sim.x[1]) <= 1.4
    assert codes[-1] == 5 and len(codes) > 1, codes
    before = table.reals.copy()
    assert steps.native.steps == 0 and np.array_equal(table.reals, before)
    t, x = sim.t, sim.x.copy()
    sim.set_inputs(u)
    with pytest.raises(ValueError, match="pitch"):
        sim.step(0.01)
    assert sim.t == t and np.array_equal(sim.x, x)


def test_what_does_not_qualify_gets_no_kernel_steps():
    spec, sim = simulation(integrator=1)  # the Rosenbrock-W stepper
    table = Table(spec)
    assert KernelSteps.of(sim, table.outputs, *table.slots) is None
    spec, sim = simulation()
    sim._has_events = True  # state events that the tree's stepper (mbs_integrate) does not check: Python's to locate
    assert KernelSteps.of(sim, table.outputs, *table.slots) is None
