"""The FMI 3.0 runtime's statuses from the plain C host (tests/native_host/fmi3_host.c) under ``env -i``: the
error discipline of the FMI 2.0 runtime through the FMI 3.0 API (docs/fmi-runtime.md, section FMI 3.0), and
random call sequences as a careless or hostile host might make them."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("pythonfmu3")
from fmpy import read_model_description  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "native_host"))
from c_host import NO_CC, c_compiler, extract, results, run_host  # noqa: E402
from fmi3_plan import fmus, host, knuckle  # noqa: E402,F401 -- fixtures

from crane_models.models.registry import SPECS  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)


def run_script(host, knuckle, lines):
    unzipped, plan = knuckle
    proc = run_host(host, unzipped, plan.name, "\n".join(lines) + "\n")
    assert proc.returncode == 0, f"exit status {proc.returncode} (a signal is negative): {proc.stderr[-3000:]}"
    return proc


def initialized(plan) -> list:
    return [f"instantiate {plan.md.instantiationToken}", "enter 0", "exit"]


def test_wrong_instantiation_token_gives_null_with_a_message(host, knuckle):
    _, plan = knuckle
    wrong = "{00000000-0000-0000-0000-000000000000}"
    proc = run_script(host, knuckle, [f"instantiate {wrong}", f"instantiate {plan.md.instantiationToken}", "free"])
    assert proc.stdout.splitlines()[:2] == ["instantiate NULL", "instantiate ok"]
    assert f"instantiationToken = {wrong} does not match" in proc.stderr


def test_model_exchange_is_refused_with_a_message(host, knuckle):
    _, plan = knuckle
    proc = run_script(host, knuckle, [f"instantiate {plan.md.instantiationToken} me"])
    assert proc.stdout.splitlines() == ["instantiate NULL"]
    assert "co-simulation only" in proc.stderr


def test_wrong_type_is_an_error_and_the_instance_still_steps(host, knuckle):
    _, plan = knuckle
    flag, out = plan.vr["controller_enabled"], plan.vr["q1"]
    proc = run_script(host, knuckle, initialized(plan) + [f"get_real {flag}", f"get_boolean {flag}",
                                                          f"step 0 {plan.h!r}", f"get_real {out}", "free"])
    assert results(proc.stdout, "get_real")[0][0] == 3  # fmi3Error
    assert f"value reference {flag} is a Boolean variable, not Float64" in proc.stderr
    assert results(proc.stdout, "get_boolean") == [(0, [1.0])]
    assert results(proc.stdout, "step")[0][0] == 0
    assert results(proc.stdout, "get_real")[1][0] == 0


def test_set_on_an_output_is_an_error_and_changes_nothing(host, knuckle):
    _, plan = knuckle
    out = plan.vr["q1"]
    proc = run_script(host, knuckle, initialized(plan) + [f"get_real {out}", f"set_real {out} 123.0",
                                                          f"get_real {out}", "free"])
    assert results(proc.stdout, "set_real") == [(3, [])]
    assert "may not be set by an importer" in proc.stderr
    before, after = results(proc.stdout, "get_real")
    assert before == after and after[1] != [123.0]


def test_fixed_parameter_after_initialization_and_any_set_after_terminate_are_errors(host, knuckle):
    _, plan = knuckle
    param, inp = plan.vr["m1"], plan.vr["q1_ref"]
    proc = run_script(host, knuckle, initialized(plan) + [f"set_real {param} 1000.0", f"set_real {inp} 0.1",
                                                          "terminate", f"set_real {inp} 0.2", "free"])
    assert [st for st, _ in results(proc.stdout, "set_real")] == [3, 0, 3]
    assert "fixed parameter" in proc.stderr and "after fmi3Terminate" in proc.stderr


def test_discarded_step_reports_its_start_as_last_successful_time(host, knuckle):
    """A 1 s step of a moving crane at rtol = 1e-12 runs out of its budget of 200 internal steps: fmi3Discard, the
    state left at the step's start, so lastSuccessfulTime is the communication point; no event, no early return; the
    next step works. A step the budget cannot reach at all (1e300 s) is an fmi3Error before any work, the time
    unchanged."""
    _, plan = knuckle
    setup = [f"instantiate {plan.md.instantiationToken}", "enter 0", f"set_real {plan.vr['rtol']} 1e-12",
             f"set_integer {plan.vr['max_internal_steps']} 200", "exit", f"set_real {plan.vr['q1_ref']} 0.5"]
    proc = run_script(host, knuckle, setup + [f"step 0 {plan.h!r}", f"step {plan.h!r} 1", f"step {plan.h!r} 1e300",
                                              f"step {plan.h!r} {plan.h!r}", "free"])
    ok, discarded, refused, again = results(proc.stdout, "step")
    assert ok == (0, [0, 0, 0, plan.h])
    assert discarded == (2, [0, 0, 0, plan.h])
    assert refused == (3, [0, 0, 0, plan.h])
    assert again == (0, [0, 0, 0, 2 * plan.h])
    assert "more than max_internal_steps = 200" in proc.stderr
    assert "cannot be reached within the step budget" in proc.stderr


def test_nvalues_must_match(host, knuckle):
    _, plan = knuckle
    a, b = plan.vr["q1"], plan.vr["q2"]
    proc = run_script(host, knuckle, initialized(plan) + ["nvalues 3", f"get_real {a} {b}", "nvalues 1",
                                                          f"set_real {plan.vr['q1_ref']} 0.1 {plan.vr['q2_ref']} 0.2",
                                                          f"get_real {a} {b}", "free"])
    assert [st for st, _ in results(proc.stdout, "get_real")] == [3, 0]
    assert results(proc.stdout, "set_real") == [(3, [])]
    assert "nValues = 3" in proc.stderr and "nValues = 1" in proc.stderr


def test_garbage_state_is_refused_and_the_own_state_kept(host, knuckle):
    _, plan = knuckle
    out = plan.vr["q1"]
    h = plan.h
    proc = run_script(host, knuckle, initialized(plan) + [
        f"set_real {plan.vr['q1_ref']} 0.3", f"step 0 {h!r}", "save", f"step {h!r} {h!r}", f"get_real {out}",
        "deserialize_garbage", f"get_real {out}", "restore", f"get_real {out}", f"step {h!r} {h!r}",
        f"get_real {out}", "free_state", "free"])
    assert results(proc.stdout, "deserialize_garbage") == [(3, [])]
    assert "fmi3DeserializeFMUState" in proc.stderr
    (s1, after_two), (s2, after_garbage), (s3, restored), (s4, replayed) = results(proc.stdout, "get_real")
    assert after_garbage == after_two  # the refused bytes changed nothing
    assert restored != after_two  # the saved state (one step earlier) is back ...
    assert replayed == after_two  # ... and the replayed step is bit-identical
    assert (s1, s2, s3, s4) == (0, 0, 0, 0)


def test_serialize_needs_a_buffer_as_large_as_the_state(host, knuckle):
    _, plan = knuckle
    proc = run_script(host, knuckle, initialized(plan) + [
        f"step 0 {plan.h!r}", "save", "serialize -1", "serialize 0", "serialize 4096", "deserialize_last",
        "restore", "free_state", "free"])
    (small, size), (exact, size2), (large, size3) = results(proc.stdout, "serialize")
    assert (small, exact, large) == (3, 0, 0) and size == size2 == size3 and size[0] > 0
    assert "smaller than the state" in proc.stderr
    assert "wrote beyond" not in proc.stdout
    assert results(proc.stdout, "deserialize_last") == [(0, [])]
    assert results(proc.stdout, "restore") == [(0, [])]


def test_state_machine_errors_and_free_after_errors(host, knuckle):
    """Calls in the wrong state are errors with a message; three instantiate -> errors -> free cycles end
    with exit status 0 (no signal)."""
    _, plan = knuckle
    token = plan.md.instantiationToken
    cycle = [f"instantiate {token}", f"step 0 {plan.h!r}", "exit", "enter 0", "enter 0", "exit",
             "call fmi3EnterStepMode", "call fmi3EnterEventMode", "call fmi3EnterContinuousTimeMode",
             f"step 0 -1", "deserialize_garbage", "get_string 0", "free"]
    proc = run_script(host, knuckle, cycle * 3)
    steps = results(proc.stdout, "step")
    assert [s[0] for s in steps] == [3, 3] * 3
    assert [s[0] for s in results(proc.stdout, "enter")] == [0, 3] * 3
    assert [s[0] for s in results(proc.stdout, "call")] == [3, 3, 3] * 3
    assert "fmi3DoStep is not allowed in state 'Instantiated'" in proc.stderr
    assert "fmi3EnterStepMode: not supported" in proc.stderr
    assert "value reference 0 is a Float64 variable, not String" in proc.stderr


def test_adapter_raises_under_the_runtime_for_fmi3_slaves(host, knuckle):
    """The _fmi_runtime contract: the runtime marks the Fmi3Slave, the adapter raises FmiCallError for a host
    error (a communication point that is not the FMU's time), and the runtime answers fmi3Error with the text."""
    _, plan = knuckle
    proc = run_script(host, knuckle, initialized(plan) + [f"step 5.0 {plan.h!r}", f"step 0 {plan.h!r}", "free"])
    assert [s[0] for s in results(proc.stdout, "step")] == [3, 0]
    assert "fmi3DoStep: FmiCallError: currentCommunicationPoint = 5.0 s does not match the FMU time" in proc.stderr


# ---- random call sequences -------------------------------------------------------------------------------

VALUES = st.one_of(st.floats(-1e6, 1e6, allow_nan=False),
                   st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, 5e-324]))
STEP_SIZES = st.sampled_from([0.01, 0.001, 0.0, -0.01, math.nan, math.inf, 1e300, 1e-9])
PLAIN_CALLS = ["enter 0", "enter nan", "exit", "terminate", "reset", "save", "restore", "free_state",
               "deserialize_last", "deserialize_garbage", "call fmi3EnterStepMode", "call fmi3EnterEventMode",
               "call fmi3EvaluateDiscreteStates", "call fmi3EnterConfigurationMode", "get_string 0"]


def _operations(md):
    """One host call (a line of fmi3_host's script); value references include ones the FMU does not have."""
    by_type = {t: [v.valueReference for v in md.modelVariables if v.type == t] for t in ("Float64", "Int32", "Boolean")}
    n = len(md.modelVariables)
    any_vr = st.one_of(st.sampled_from(range(n)), st.sampled_from([n + 5, 2 ** 31, 2 ** 32 - 1]))
    values = {"set_real": VALUES, "set_integer": st.integers(-2 ** 31, 2 ** 31 - 1), "set_boolean": st.integers(0, 1)}
    typed = {"set_real": "Float64", "set_integer": "Int32", "set_boolean": "Boolean"}
    return st.one_of(
        *[st.tuples(st.just(cmd), st.one_of(st.sampled_from(by_type[typed[cmd]] or [0]), any_vr), values[cmd])
          for cmd in values],
        st.tuples(st.sampled_from(["get_real", "get_integer", "get_boolean"]), any_vr, st.none()),
        st.tuples(st.just("step"), STEP_SIZES, st.booleans()),  # True: at the host's clock, else a wrong time
        st.tuples(st.just("nvalues"), st.sampled_from([0, 2]), st.none()),
        st.tuples(st.just("serialize"), st.sampled_from([0, 64, -1]), st.none()),
        st.tuples(st.sampled_from(PLAIN_CALLS), st.none(), st.none()),
    )


def _sequence_script(ops, token: str, free_at_end: bool) -> str:
    lines, t = [f"instantiate {token}", "enter 0", "exit"], 0.0
    for kind, a, b in ops:
        if kind == "step":
            lines.append(f"step {t if b else t + 0.5!r} {a!r}")
            if b and math.isfinite(a) and 0 < a < 1:
                t += a  # the host's clock moves only for a step it may expect to succeed
        elif kind.startswith("set_"):
            lines.append(f"{kind} {a} {b!r}")
        elif kind in ("get_real", "get_integer", "get_boolean", "nvalues", "serialize"):
            lines.append(f"{kind} {a}")
        else:
            lines.append(kind)
    return "\n".join(lines + (["free"] if free_at_end else [])) + "\n"


@pytest.mark.parametrize("name", list(SPECS))
def test_random_call_sequences_never_crash_or_return_fatal(fmus, host, tmp_path_factory, name):
    """Out-of-order calls, wrong types and value references, NaN/inf/1e308, odd step sizes, garbage and stale
    states, freeing after errors: the host ends normally (no signal), no call returns fmi3Fatal or a status
    outside the standard's, an output read with OK is finite, a step that is not an error reports no event
    and no early return."""
    fmu = fmus / f"{name}.fmu"
    md = read_model_description(str(fmu))
    unzipped = extract(fmu, tmp_path_factory.mktemp(f"seq_{name}"))

    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(ops=st.lists(_operations(md), min_size=1, max_size=20), free_at_end=st.booleans())
    def sequence(ops, free_at_end):
        proc = run_host(host, unzipped, name, _sequence_script(ops, md.instantiationToken, free_at_end),
                        timeout=240)
        assert proc.returncode == 0, f"host ended with {proc.returncode}: {proc.stderr[-3000:]}"
        assert "wrote beyond" not in proc.stdout
        for line in proc.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1].lstrip("-").isdigit():
                assert int(parts[1]) in (0, 1, 2, 3), line  # never fmi3Fatal
        for status, values in results(proc.stdout, "get_real"):
            assert status != 0 or all(math.isfinite(v) for v in values), values
        for status, flags in results(proc.stdout, "step"):
            if status in (0, 1, 2):  # after fmi3Error the standard leaves the outputs undefined
                assert flags[:3] == [0, 0, 0] and math.isfinite(flags[3])  # no events, no early return

    sequence()
