"""Random FMI 2.0 call sequences, as a careless or hostile host might make them, on every FMU in the plain C
host under a clean environment (one process per sequence): out-of-order calls, wrong types and value
references, NaN/inf/1e308 values, odd step sizes, garbage and stale states, freeing after errors.

What must hold (issue 11), whatever the sequence: the host process ends normally (no signal, no abort), within
a bounded time (every doStep ends: max_internal_steps); no call returns fmi2Fatal or a status outside the
standard's; an output read with status OK is never NaN; a call the standard forbids in the instance's state
returns fmi2Error. Statuses of valid calls are not predicted here (they depend on the model), only bounded.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from fmpy import read_model_description
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "native_host"))
from c_host import NO_CC, c_compiler, compile_host, extract, results, run_host  # noqa: E402
from fmu_helpers import build_fmus  # noqa: E402

from crane_models.models.registry import SPECS  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
# Seconds for one whole sequence (at most ~25 calls): doSteps are bounded by max_internal_steps (a hopeless
# 1e300 step ends after 20000 internal steps, ~1 s), instantiation imports the FMU's package (~0.5 s).
SEQUENCE_TIMEOUT = 240.0

VALUES = st.one_of(st.floats(-1e6, 1e6, allow_nan=False),
                   st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, 5e-324]))
STEPS = st.sampled_from([0.01, 0.001, 0.1, 0.0, -0.01, math.nan, math.inf, 1e300, 1e-9])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {"dir": build_fmus(tmp_path_factory), "host": compile_host(tmp_path_factory.mktemp("host")),
            "tmp": tmp_path_factory}


def _operations(variables: list):
    """Hypothesis strategy of one host call (a line of the C host's script) for an FMU with ``variables``
    [(vr, type, causality)]; value references include ones the FMU does not have."""
    reals = [vr for vr, t, _ in variables if t == "Real"]
    ints = [vr for vr, t, _ in variables if t == "Integer"]
    any_vr = st.one_of(st.sampled_from([vr for vr, _, _ in variables]), st.sampled_from([len(variables) + 5,
                                                                                       2 ** 31, 2 ** 32 - 1]))
    return st.one_of(
        st.tuples(st.just("set_real"), st.one_of(st.sampled_from(reals), any_vr), VALUES),
        st.tuples(st.just("set_integer"), st.one_of(st.sampled_from(ints or reals), any_vr),
                  st.integers(-2 ** 31, 2 ** 31 - 1)),
        st.tuples(st.just("get_real"), st.one_of(st.sampled_from(reals), any_vr), st.none()),
        st.tuples(st.just("get_integer"), any_vr, st.none()),
        st.tuples(st.just("step"), STEPS, st.booleans()),  # True: at the host's current time, else a wrong one
        st.tuples(st.sampled_from(["enter", "exit", "terminate", "reset", "save", "restore", "free_state",
                                   "deserialize_last", "deserialize_garbage"]), st.none(), st.none()),
        st.tuples(st.just("serialize"), st.sampled_from([0, 64, -1]), st.none()),
        st.tuples(st.just("setup"), st.sampled_from([0.0, -5.0, 1e9]), st.none()),
    )


def _script(ops: list, guid: str, free_at_end: bool) -> str:
    lines, t = [f"instantiate {guid}", "setup 0", "enter", "exit"], 0.0
    for kind, a, b in ops:
        if kind == "step":
            lines.append(f"step {t if b else t + 0.5!r} {a!r}")
            if b and math.isfinite(a) and 0 < a < 1:
                t += a  # the host's clock moves only for a step it may expect to succeed
        elif kind in ("set_real", "set_integer"):
            lines.append(f"{kind} {a} {b!r}")
        elif kind in ("get_real", "get_integer"):
            lines.append(f"{kind} {a}")
        elif kind == "serialize":
            lines.append(f"serialize {a}")
        elif kind == "setup":
            lines.append(f"setup {a!r}")
        else:
            lines.append(kind)
    if free_at_end:
        lines.append("free")
    return "\n".join(lines) + "\n"


def _outputs(md) -> set:
    return {v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == "Real"}


def _check(proc, md) -> None:
    assert proc.returncode == 0, f"host ended with {proc.returncode}: {proc.stderr[-3000:]}"
    outputs = _outputs(md)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2 or not parts[1].lstrip("-").isdigit():
            continue
        status = int(parts[1])
        assert status in (OK, WARNING, DISCARD, ERROR), line  # never fmi2Fatal (4) or fmi2Pending (5)
    for status, values in results(proc.stdout, "get_real"):
        if status == OK and values:
            assert all(math.isfinite(v) for v in values), values


@pytest.mark.parametrize("name", list(SPECS))
def test_random_host_call_sequences_never_crash_hang_or_show_nan(built, name):
    fmu = built["dir"] / f"{name}.fmu"
    md = read_model_description(str(fmu))
    unzipped = extract(fmu, built["tmp"].mktemp(name))
    variables = [(v.valueReference, v.type, v.causality) for v in md.modelVariables]

    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(ops=st.lists(_operations(variables), min_size=1, max_size=20), free_at_end=st.booleans())
    def sequence(ops, free_at_end):
        proc = run_host(built["host"], unzipped, md.coSimulation.modelIdentifier,
                        _script(ops, md.guid, free_at_end), timeout=SEQUENCE_TIMEOUT)
        _check(proc, md)

    sequence()


def test_calls_in_the_wrong_state_are_errors_and_the_instance_goes_on(built):
    """The standard's state machine: before initialization no doStep; while stepping no
    enterInitializationMode; after terminate no doStep -- each fmi2Error, the instance still usable."""
    fmu = built["dir"] / "KnuckleBoomCrane.fmu"
    md = read_model_description(str(fmu))
    unzipped = extract(fmu, built["tmp"].mktemp("states"))
    script = (f"instantiate {md.guid}\nstep 0 0.01\nsetup 0\nenter\nexit\nenter\nstep 0 0.01\nterminate\n"
              "step 0.01 0.01\nreset\nsetup 0\nenter\nexit\nstep 0 0.01\nfree\n")
    proc = run_host(built["host"], unzipped, md.coSimulation.modelIdentifier, script)
    _check(proc, md)
    assert [s for s, _ in results(proc.stdout, "step")] == [ERROR, OK, ERROR, OK]
    assert [s for s, _ in results(proc.stdout, "enter")] == [OK, ERROR, OK]
