"""The value table the FMI runtime owns (issue 23, item 2; docs/fmi-runtime.md, "The value table"), every FMU,
FMI 2.0 and 3.0, through fmpy:

* the outputs served from the table equal the specification's -- the model and its co-simulation driven directly in
  this process (tests/value_table_host.py) -- over a run with moving set-points, KnuckleBoomCrane's payload going
  slack and taut on its wire, and a restored state replayed with other set-points: after every step, right after
  the restore and after an input set without a step (the outputs' one refresh through Python);
* every variable got and set through the table equals the per-variable path (the same FMU with the table switched
  off), in every state, and wrong calls are refused alike;
* an output the slave computes but does not publish into the table is an error naming it, the outputs keeping their
  last values;
* a plain pythonfmu slave without a table (benchmarks/null_slave.py) keeps the per-variable path.

Tolerance of the outputs against the specification: 1e-12 of each output's largest magnitude over the run. Both
sides run the same model code, so the values agree to the last bit today; the bound leaves room for a compiled
``write_outputs`` (issue 23, item 3), whose sums may round in another order (~1e-16 per operation over the chain of
reactions), and is still 1e-6 below the FMUs' validation bound against the reference solver.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from crane_models.models.registry import SPECS
from fmu_helpers import build_fmi3_fmus, build_fmus, needs_runtime
from value_table_host import Instance, Run

HERE = Path(__file__).resolve().parent
NAMES = sorted(SPECS)
VERSIONS = (2, 3)
RTOL = 1e-12  # of each output's largest magnitude over the run: see the module's docstring

pytestmark = needs_runtime


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {2: build_fmus(tmp_path_factory), 3: build_fmi3_fmus(tmp_path_factory)}


def started(fmu: Path, version: int, run: Run, name: str, table: bool = True) -> Instance:
    s = Instance(fmu, version, name, table)
    s.enter_initialization()
    s.set({**run.start_values, **run.inputs_at(0.0)})
    s.fmu.exitInitializationMode()
    return s


def compare(rows: list, reference: list, names: list, where: str) -> None:
    """FMU rows against the specification's: Real outputs to RTOL of each one's scale, the others exactly."""
    for j, name in enumerate(names):
        got, want = np.array([r[j] for r in rows], float), np.array([r[j] for r in reference], float)
        scale = max(np.max(np.abs(want)), 1e-300)
        bad = np.flatnonzero(np.abs(got - want) > RTOL * scale)
        assert bad.size == 0, (f"{where}: {name} at row {bad[0]}: FMU {got[bad[0]]!r}, specification "
                               f"{want[bad[0]]!r} (scale {scale:.3g})")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", NAMES)
def test_outputs_through_the_table_equal_the_specification(built, name, version):
    run = Run(name)
    outputs = [v.name for v in run.spec.outputs]
    s = started(built[version] / f"{name}.fmu", version, run, "table")
    assert s.on_table, s.messages[:5]
    ref = run.specification()
    rows, expected, saved, t = [], [], None, 0.0
    for k in range(run.steps):
        t = k * run.h
        u = run.inputs_at(t)
        s.set(u)
        assert s.step(t, run.h) == 0, s.errors()
        ref.step(t, run.h, u)
        got = s.get(outputs)
        rows.append([got[n] for n in outputs])
        expected.append([ref.outputs(u)[n] for n in outputs])
        if k == run.saved_at:  # saved with new inputs set: the state's outputs are stale, its inputs new
            u_saved, t_saved = run.inputs_at(t + run.h, shift=0.02), t + run.h
            s.set(u_saved)
            saved, ref_saved = s.get_state(), ref.sim.get_state()
    if "wire_slack" in outputs:  # the payload switched on and off the hook within the run
        column = [r[outputs.index("wire_slack")] for r in rows]
        assert any(column) and not all(column)
    compare(rows, expected, outputs, "run")
    # Restored: the outputs at once (stale after the restore: published through Python once), then a replay with
    # other set-points, its first outputs read after an input set without a step.
    s.set_state(saved)
    ref.sim.set_state(ref_saved)
    got = s.get(outputs)
    compare([[got[n] for n in outputs]], [[ref.outputs(u_saved)[n] for n in outputs]], outputs, "restored")
    rows, expected = [], []
    for k in range(run.steps - run.saved_at - 1):
        t = t_saved + k * run.h
        u = run.inputs_at(t, shift=0.01)
        s.set(u)
        got = s.get(outputs)  # before the step: the outputs for the new inputs
        rows.append([got[n] for n in outputs])
        expected.append([ref.outputs(u)[n] for n in outputs])
        assert s.step(t, run.h) == 0, s.errors()
        ref.step(t, run.h, u)
        got = s.get(outputs)
        rows.append([got[n] for n in outputs])
        expected.append([ref.outputs(u)[n] for n in outputs])
    compare(rows, expected, outputs, "replay after the restore")
    assert s.errors() == []
    s.close()


def every_variable(s: Instance) -> list:
    return [n for n in s.vr if s.types[n] in ("Real", "Float64", "Integer", "Int32", "Boolean")]


def probe_values(s: Instance, names: list) -> dict:
    """A distinct value for each variable (by value reference), of its type: a set that lands in another slot, or
    a get from another slot, shows."""
    def value(n):
        vr, kind = s.vr[n], s.types[n]
        return bool(vr % 2) if kind == "Boolean" else (vr + 7 if kind in ("Integer", "Int32") else 1000.25 + vr)
    return {n: value(n) for n in names}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", NAMES)
def test_every_variable_through_the_table_equals_the_per_variable_path(built, name, version):
    run = Run(name)
    fmu = built[version] / f"{name}.fmu"
    pair = [Instance(fmu, version, "table", True), Instance(fmu, version, "per-variable", False)]
    assert [s.on_table for s in pair] == [True, False]
    names = every_variable(pair[0])
    settable = [n for n in names if pair[0].causality[n] in ("parameter", "input")]
    outputs = [n for n in names if pair[0].causality[n] == "output"]
    fixed = [n for n in names if n not in outputs]

    def same(where, close=()):
        a, b = (s.get(names) for s in pair)
        assert {n: a[n] for n in names if n not in close} == {n: b[n] for n in names if n not in close}, where
        compare([[a[n] for n in close]], [[b[n] for n in close]], list(close), where)

    same("instantiated")  # the start values
    for s in pair:
        s.enter_initialization()
        s.set(probe_values(s, settable))
    same("initialization mode, every parameter and input set")
    assert pair[0].get(settable) == probe_values(pair[0], settable)
    for s in pair:  # back to what the run needs, then initialized
        s.set({n: s.start[n] for n in settable if s.start[n] is not None})
        s.set({**run.start_values, **run.inputs_at(0.0)})
        s.fmu.exitInitializationMode()
    same("initialized", close=outputs)
    for k in range(3):
        for s in pair:
            s.set(run.inputs_at(k * run.h))
            assert s.step(k * run.h, run.h) == 0, s.errors()
        same(f"step {k}", close=outputs)
    for s in pair:  # wrong calls, refused alike: an output set, an unknown value reference
        with pytest.raises(Exception):
            s.set({outputs[0]: 1.0})
        s.vr["unknown"], s.types["unknown"] = max(s.vr.values()) + 1000, "Real" if version == 2 else "Float64"
        with pytest.raises(Exception):
            s.get(["unknown"])
        s.fmu.terminate()
    same("terminated", close=outputs)
    assert pair[0].errors()[-2:] == pair[1].errors()[-2:] and len(pair[0].errors()) == 2
    for s in pair:  # a new slave, and a new table in its start values
        s.fmu.reset()
    assert pair[0].messages[-1][1].endswith("served without Python"), pair[0].messages[-3:]
    same("reset")
    for s in pair:
        s.fmu.freeInstance()


# A KnuckleBoomCrane slave that from the first step on either publishes its outputs but forgets one (argv[4]
# "forget": its table's list of the Real slots it writes lacks the first output) or computes the first one as NaN
# ("nan": the adapter then keeps the last values); run in its own process, where its module is the FMU's.
FORGETFUL = r"""
import json, sys
import numpy as np
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
sys.path.insert(0, sys.argv[1] + "/resources")
module = open(sys.argv[1] + "/resources/slavemodule.txt").read().strip()
slave_module = __import__(module)
attach = slave_module.SlaveAdapter.attach_value_table
adapters = []
def forgetful_attach(self, *args):
    taken = attach(self, *args)
    adapters.append(self)
    table, publish, compute = self._table, self._table.publish, self._table.compute_outputs
    def compute_with_nan(sim):
        out = compute(sim)
        if sim.t > 0:
            out[0] = float("nan")
        return out
    def publish_but_one():
        if self.sim.t > 0:  # from the first step on
            real_vrs, real_at, int_vrs, int_at = table._publish_index
            table.reals[real_vrs[1:]] = table._outputs[real_at[1:]]
            table.integers[int_vrs] = table._outputs[int_at]
            return
        publish()
    if sys.argv[4] == "forget":
        table.publish = publish_but_one
    else:
        table.compute_outputs = compute_with_nan
    return taken
slave_module.SlaveAdapter.attach_value_table = forgetful_attach
md = read_model_description(sys.argv[1] + "/modelDescription.xml")
vr = {v.name: v.valueReference for v in md.modelVariables}
messages = []
from crane_models.fmi.instance import _callbacks
cb = _callbacks(lambda status, cat, msg: messages.append([status, msg]))
s = FMU2Slave(guid=md.guid, unzipDirectory=sys.argv[1], modelIdentifier=md.coSimulation.modelIdentifier,
              instanceName="forgetful")
s.instantiate(loggingOn=True, callbacks=cb)
s.setupExperiment(startTime=0.0); s.enterInitializationMode(); s.exitInitializationMode()
first, second = sys.argv[2], sys.argv[3]

def status_of(call, *args):
    try:
        return 0, call(*args)
    except FMICallException as exc:
        return exc.status, None

s.setReal([vr["king_torque"]], [1e5])
before = s.getReal([vr[first], vr[second]])  # published for that input: nothing stale before the step
step, _ = status_of(s.doStep, 0.0, 0.01)
in_table = lambda: [float(adapters[0]._table.reals[vr[n]]) for n in (first, second)]  # the runtime's memory
after_step = in_table()
get, _ = status_of(s.getReal, [vr[second], vr[first]])  # no input changed: stale from the step alone
s.setReal([vr["king_torque"]], [2e5])
refresh, _ = status_of(s.getReal, [vr[second], vr[first]])  # the first output asked for not the faulty one
print(json.dumps({"before": before, "after_step": after_step, "after_refresh": in_table(), "step": step,
                  "get": get, "refresh": refresh, "messages": messages}))
"""


def faulty_slave_run(built, tmp_path, mode: str) -> tuple:
    """FORGETFUL in ``mode``: its printout and the first two Real outputs' names."""
    from fmpy import extract

    unzipped = extract(str(built[2] / "KnuckleBoomCrane.fmu"), str(tmp_path / "kbc"))
    outputs = [v.name for v in SPECS["KnuckleBoomCrane"]().outputs if v.kind == "real"]
    # the fault is in Python's publishing: every step through the slave's do_step (a step without Python publishes
    # in the kernel: tests/test_kernel_steps.py)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE)]), "CRANE_COSIM_NATIVE_STEP": "0"}
    proc = subprocess.run([sys.executable, "-c", FORGETFUL, unzipped, outputs[0], outputs[1], mode],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1]), outputs


def test_an_output_computed_but_not_published_is_caught(built, tmp_path):
    out, outputs = faulty_slave_run(built, tmp_path, "forget")
    assert out["step"] == out["get"] == out["refresh"] == 3  # fmi2Error each time
    forgot = [m for st, m in out["messages"] if st == 3 and "did not publish output" in m]
    assert len(forgot) == 3 and all(f"output {outputs[0]} " in m for m in forgot), out["messages"]
    assert [m.split(":")[0] for m in forgot] == ["fmi2DoStep", "fmi2GetReal", "fmi2GetReal"]
    # the outputs keep their last published values (the initialization's), the forgotten one and the others
    assert out["after_step"] == out["before"] == out["after_refresh"] and all(np.isfinite(out["before"]))


def test_outputs_that_cannot_be_evaluated_keep_their_last_values_and_are_tried_again(built, tmp_path):
    """A step that moves the state but cannot publish (an output not finite): OK, the outputs keep their last
    values, and they are stale -- the next get of an output asks the slave again, which says so again."""
    out, outputs = faulty_slave_run(built, tmp_path, "nan")
    assert out["step"] == out["get"] == out["refresh"] == 0
    kept = [m for st, m in out["messages"] if st == 3 and f"outputs {outputs[0]} are not finite" in m]
    assert len(kept) == 3, out["messages"]  # at the step, at the get after it, at the get after an input set
    assert out["after_step"] == out["before"] == out["after_refresh"] and all(np.isfinite(out["before"]))


def test_a_slave_without_a_table_keeps_the_per_variable_path(tmp_path):
    """benchmarks/null_slave.py: a plain pythonfmu slave (no _fmi_attach_value_table) on this runtime."""
    sys.path.insert(0, str(HERE.parent / "benchmarks"))
    from bench_step_cost import null_fmu

    from crane_models.fmi.build import fmi2_runtime_binary, install_runtime

    fmu = null_fmu("KnuckleBoomCrane", tmp_path)
    install_runtime(fmu, fmi2_runtime_binary())
    s = Instance(fmu, 2, "null")
    assert not s.on_table
    spec = SPECS["KnuckleBoomCrane"]()
    s.enter_initialization()
    s.fmu.exitInitializationMode()
    s.set({"q1_ref": 0.25, "king_torque": -3.5})
    assert s.step(0.0, 0.01) == 0
    assert s.get(["q1_ref", "king_torque"]) == {"q1_ref": 0.25, "king_torque": -3.5}
    assert s.get([spec.outputs[0].name])[spec.outputs[0].name] == spec.outputs[0].start
    assert s.errors() == []
    s.close()
