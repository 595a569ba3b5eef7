"""Issue 5: saved states, reset, start time, several instances, bad input -- the FMU must survive any host.

Expected values here are the FMU's own results along another path (a replay, a second instance, a run
from another start time) that must be *identical*: bit-for-bit where the computation is the same.
"""
from __future__ import annotations

import hashlib
import json
import math
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fmu_helpers import Slave, build_fmus, needs_runtime

OUT = ("q1", "q2", "q3", "u1", "u2", "u3", "tip_z", "joint1_force_z", "joint2_moment_y", "joint3_force_y",
       "cylinder3_barrel_force_z", "applied_cylinder2_force")
INPUTS = ("king_torque", "cylinder2_force", "cylinder3_force", "q1_ref", "q2_ref", "q3_ref")


@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    return build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"


def outputs(s: Slave) -> list:
    return [s.get(n) for n in OUT]


def drive(s: Slave, n: int, seed: int, h: float = 0.01) -> list:
    """n steps with pseudo-random but reproducible set-points; the outputs after each step."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        s.set("q1_ref", rng.uniform(-0.5, 0.5))
        s.set("q2_ref", rng.uniform(0.3, 1.4))
        s.set("q3_ref", rng.uniform(0.3, 1.4))
        s.set("king_torque", rng.normal(0, 1e4))
        assert s.step(h) == 0
        rows.append(outputs(s))
    return rows


def test_rollback_replays_bit_identically(fmu):
    s = Slave(fmu)
    s.init()
    drive(s, 20, seed=1)
    state = s.fmu.getFMUstate()
    t_saved = s.t
    first = drive(s, 30, seed=2)
    s.fmu.setFMUstate(state)
    s.t = t_saved
    assert outputs(s) != first[-1]
    second = drive(s, 30, seed=2)
    assert first == second
    s.fmu.freeFMUstate(state)
    s.close()


def test_serialized_state_continues_in_a_fresh_instance(fmu):
    """The state carries time, mechanical state, cached derivative and the parameters in force."""
    a = Slave(fmu, "a")
    a.init(m3=12000.0, kp2=2.0e6)
    drive(a, 15, seed=3)
    blob = a.fmu.serializeFMUstate(a.fmu.getFMUstate())
    b = Slave(fmu, "b")
    b.init()  # default parameters: the state must bring m3 and kp2 along
    b.fmu.setFMUstate(b.fmu.deSerializeFMUstate(blob))
    b.t = a.t
    assert drive(a, 25, seed=4) == drive(b, 25, seed=4)
    a.close()
    b.close()


def test_reset_returns_to_the_initial_state_and_takes_new_parameters(fmu):
    s = Slave(fmu)
    s.init()
    initial = outputs(s)
    drive(s, 10, seed=5)
    s.fmu.reset()
    s.t = 0.0
    s.fmu.setupExperiment(startTime=0.0)
    s.init()
    assert outputs(s) == initial
    s.fmu.reset()
    s.fmu.setupExperiment(startTime=0.0)
    s.init(q1_0=0.5, q1_ref=0.5, m1=12000.0)
    assert s.get("q1") == 0.5
    # At rest with gravity compensated the king carries the new weight: (36 t + 2 t) g.
    assert s.get("joint1_force_z") == pytest.approx(38000.0 * 9.81, rel=1e-12)
    s.close()


def test_start_time_other_than_zero(fmu):
    """The model is autonomous: started at t = 5 s it must give the same outputs as from t = 0, up to
    round-off (the step t_end - t is 0.01 only to ~1e-15 relative at t = 5 s: 1e-9 is ample)."""
    a = Slave(fmu, "a")
    a.init()
    b = Slave(fmu, "b", start_time=5.0)
    b.init()
    ra, rb = np.array(drive(a, 20, seed=6)), np.array(drive(b, 20, seed=6))
    assert np.allclose(ra, rb, rtol=1e-9, atol=1e-9)
    assert b.step(0.01) == 0 and b.t == pytest.approx(5.21)
    a.close()
    b.close()


def test_instances_are_independent(fmu):
    """Two instances with different parameters, stepped interleaved, give exactly what each gives alone."""
    alone = {}
    for name, params in (("a", {}), ("b", {"m3": 15000.0, "q2_0": 1.0, "q2_ref": 1.0})):
        s = Slave(fmu, name)
        s.init(**params)
        alone[name] = drive(s, 20, seed=7 if name == "a" else 8)
        s.close()
    a, b = Slave(fmu, "a"), Slave(fmu, "b")
    a.init()
    b.init(m3=15000.0, q2_0=1.0, q2_ref=1.0)
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(8)
    rows_a, rows_b = [], []
    for _ in range(20):
        for s, rng, rows in ((a, rng_a, rows_a), (b, rng_b, rows_b)):
            s.set("q1_ref", rng.uniform(-0.5, 0.5))
            s.set("q2_ref", rng.uniform(0.3, 1.4))
            s.set("q3_ref", rng.uniform(0.3, 1.4))
            s.set("king_torque", rng.normal(0, 1e4))
        for s, rows in ((a, rows_a), (b, rows_b)):
            assert s.step() == 0
            rows.append(outputs(s))
    assert rows_a == alone["a"] and rows_b == alone["b"]
    a.close()
    b.close()


def test_huge_input_is_survived(fmu):
    """A force of 1e30 N cannot be integrated (end stop, loop limits): the step is discarded, the state
    stays at the start of the step, outputs stay finite, and a sane input works again."""
    s = Slave(fmu)
    s.init()
    drive(s, 5, seed=9)
    before = outputs(s)
    s.set("cylinder3_force", 1e30)
    status = s.step()
    assert status in (0, 2)
    assert all(math.isfinite(v) for v in outputs(s))
    if status == 2:  # the motion stays at the start of the step (reactions follow the new input at once)
        assert outputs(s)[:7] == before[:7]
    s.set("cylinder3_force", 0.0)
    drive(s, 5, seed=10)
    s.close()


def test_manifest_lists_every_fmu_with_its_hash(fmu):
    manifest = json.loads((fmu.parent / "manifest.json").read_text())
    entry = {f["name"]: f for f in manifest["fmus"]}["KnuckleBoomCrane"]
    assert entry["fmi_version"] == "2.0"
    assert entry["sha256"] == hashlib.sha256(fmu.read_bytes()).hexdigest()
    assert manifest["project_version"] and manifest["build_time"]
    # The kernel each FMU carries is named, and is really inside the FMU.
    kernel = manifest["compiled_kernel"]
    if kernel is not None:
        with zipfile.ZipFile(fmu) as z:
            assert any(n.endswith("/core/native/" + kernel) for n in z.namelist())


operation = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(INPUTS),
              st.one_of(st.floats(-2e5, 2e5), st.sampled_from([math.nan, math.inf, -math.inf, 1e300, -1e300]))),
    st.tuples(st.just("step"), st.sampled_from([0.01, 0.002, 0.0, -0.01, math.nan]), st.none()),
    st.tuples(st.just("save"), st.none(), st.none()),
    st.tuples(st.just("restore"), st.none(), st.none()),
    st.tuples(st.just("reset"), st.none(), st.none()),
)


@needs_runtime
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=1, max_size=25))
def test_random_host_behaviour_never_crashes(fmu, ops):
    """Random interleavings of inputs (NaN, inf, huge), steps (also <= 0), saves, restores and resets:
    the FMU answers every call, fails only where the call was bad, never shows a non-finite output,
    and a replay after restore repeats the recorded outputs exactly."""
    s = Slave(fmu, "prop")
    s.init()
    saved = None
    inputs = {n: s.get(n) for n in INPUTS}
    for kind, a, b in ops:
        if kind == "set":
            s.set(a, b)
            inputs[a] = b
        elif kind == "step":
            status = s.step(a)
            bad_step = not (math.isfinite(a) and a > 0)
            bad_input = any(not math.isfinite(v) for v in inputs.values())
            if bad_step or bad_input:  # invalid arguments or inputs: the host's error (FMI 2.0 fmi2Error)
                assert status == 3
            else:
                assert status in (0, 2)  # 2 only if the model could not be integrated (huge input)
        elif kind == "save":
            saved = (s.fmu.getFMUstate(), s.t, dict(inputs))
            s.set("q1_ref", inputs["q1_ref"])  # no-op; keeps the sequence honest
            ref = []
            for _ in range(3):
                st_ = s.step(0.01)
                ref.append((st_, outputs(s)))
            saved = saved + (ref,)
        elif kind == "restore" and saved is not None:
            state, t, saved_inputs, ref = saved
            s.fmu.setFMUstate(state)
            s.t = t
            for n, v in saved_inputs.items():
                s.set(n, v)
            inputs = dict(saved_inputs)
            for st_, row in ref:
                assert (s.step(0.01), outputs(s)) == (st_, row)
        elif kind == "reset":
            s.fmu.reset()
            s.t = 0.0
            s.fmu.setupExperiment(startTime=0.0)
            s.init()
            saved = None
            inputs = {n: s.get(n) for n in INPUTS}
        assert all(math.isfinite(v) for v in outputs(s))
    s.close()
