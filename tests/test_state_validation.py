"""Issue 21, items 1, 2, 5, 6 and 7: a saved state is data and a host is careless. Each case runs a host
(tests/state_host.py) in a child process on every FMU, FMI 2.0 and 3.0: a crash there is a signal in the child's
exit status, not the end of pytest."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_helpers import build_fmi3_fmus, build_fmus, needs_kernel, needs_runtime

HOST = Path(__file__).resolve().parent / "state_host.py"
FMUS = ["KnuckleBoomCrane", "KnuckleBoomCraneOnMovingBase", "VesselCrane", "CraneOnMovingBase", "Vessel",
        "FlexibleCrane"]
OK, DISCARD, ERROR = 0, 2, 3

pytestmark = needs_runtime  # the statuses are the crane-cosim FMI runtime's (pythonfmu's binary logs instead)


@pytest.fixture(scope="module")
def fmu_dirs(tmp_path_factory):
    return {2: build_fmus(tmp_path_factory), 3: build_fmi3_fmus(tmp_path_factory)}


def host(case: str, fmu: Path, version: int, *args, timeout: float = 120, prefix: tuple = ()) -> dict:
    """The result of ``case`` run by a child host; the child must exit 0 (a signal is a negative status)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HOST.parent), os.environ.get("PYTHONPATH", "")]),
               PYTHONFAULTHANDLER="1")
    proc = subprocess.run([*prefix, sys.executable, str(HOST), case, str(fmu), str(version), json.dumps(args)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"exit status {proc.returncode} (a signal is negative): {proc.stderr[-3000:]}"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):]) | {"stderr": proc.stderr}


@needs_kernel
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_a_cached_derivative_of_the_wrong_shape_is_refused(fmu_dirs, name, version):
    """The issue's crafted state (right magic, version, checksum and identity; k with 1 element) and a 1 x 1 k:
    Set/DeserializeFMUState answers Error naming k and the length the model has; no signal; the instance keeps
    its own state and steps on."""
    for shape in ("1", "1x1"):
        r = host("crafted_k", fmu_dirs[version] / f"{name}.fmu", version, shape)
        assert r["load"] == ERROR, r
        assert "cached derivative k must be an array of float64" in r["message"]
        assert (r["step"], r["finite"]) == (OK, True), r


@needs_kernel
def test_the_crafted_state_under_valgrind_writes_nowhere_it_should_not(fmu_dirs):
    """Under valgrind (memcheck) the crafted state of the issue is refused and no invalid read or write happens
    in the project's code -- the kernel or the FMU's runtime (it was "Invalid write of size 8" in steppers.c and
    SIGSEGV). The dynamic loader's vectorized strncmp reads past its strings by design: not judged here."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed (Debian/Ubuntu package valgrind)")
    r = host("crafted_k", fmu_dirs[2] / "VesselCrane.fmu", 2, "1", timeout=900,
             prefix=(valgrind, "--error-limit=no", "--num-callers=30"))
    assert "ERROR SUMMARY" in r["stderr"], "valgrind ran"
    ours = [block for block in _valgrind_errors(r["stderr"]) if any(
        mark in block for mark in ("multibody", "VesselCrane.so", "fmi2_", "steppers.c", "payload.c"))]
    assert ours == [], "\n\n".join(ours[:3])
    assert r["load"] == ERROR and r["step"] == OK


def _valgrind_errors(stderr: str) -> list:
    """The 'Invalid read/write' reports of memcheck, each with its stack."""
    blocks, current = [], None
    for line in stderr.splitlines():
        text = line.split("== ", 1)[-1] if line.startswith("==") else None
        if text is None:
            continue
        if text.startswith(("Invalid read", "Invalid write")):
            current = [text]
            blocks.append(current)
        elif current is not None and text.strip():
            current.append(text)
        else:
            current = None
    return ["\n".join(b) for b in blocks]


@needs_kernel
def test_the_kernel_refuses_buffers_shorter_than_the_model(tmp_path):
    """Defence in depth: the kernel's stepping entry points compare the lengths of y, k, the records and the work
    array with what they compute from the model, and refuse a mismatch (MBS_BAD_BUFFERS) without writing --
    the explicit, payload and Rosenbrock steppers alike, called directly past the state checks."""
    script = tmp_path / "kernel.py"
    script.write_text('''
import numpy as np
from crane_models.models.knuckle_boom.spec import knuckle_boom_spec
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.integrators import make_stepper
spec = knuckle_boom_spec()
model, x0, options = spec.build({v.name: v.start for v in spec.parameters})
compiled, inputs = model.compiled(0.0, np.array([float(v.start) for v in spec.inputs]))
k = np.zeros(1)
for stepper in ("rk23", "rosenbrock"):
    s = make_stepper(stepper, rtol=1e-5, atol=1e-9, max_step=0.01)
    try:
        compiled.advance(s, 0.0, x0, 0.01, k, None, inputs)
        print("ACCEPTED", stepper)
    except ValueError as exc:
        print("REFUSED", stepper, exc)
''')
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.stdout.count("REFUSED") == 2 and "the kernel refused the buffers" in proc.stdout, proc.stdout


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_parameters_inside_a_state_pass_the_initialization_checks(fmu_dirs, name, version):
    """max_step = 1e-300 with a legal max_internal_steps = 2^31 - 1 (doStep(0.01) ran for hours), rtol = 0 and
    < 0, a negative step budget and NaN: each refused at Set/DeserializeFMUState with the parameter's name and
    range, as exitInitializationMode refuses them; the instance steps on."""
    for pname, value in (("max_step", "1e-300"), ("rtol", "0.0"), ("rtol", "-1e-5"), ("max_internal_steps", "-5"),
                         ("max_step", "nan")):
        r = host("parameter", fmu_dirs[version] / f"{name}.fmu", version, pname, value, timeout=60)
        assert r["load"] == ERROR, (pname, value, r)
        assert f"parameter {pname} = " in r["message"] and "outside the allowed range" in r["message"], r
        assert r["step"] == OK, r


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_parameters_inside_a_state_are_of_their_declared_type_and_agree_with_its_values(fmu_dirs, name, version):
    """Issue 34: max_internal_steps = true in a state's parameters was accepted (a budget of 1 in force while
    fmi2GetInteger reported 20000): a Boolean where an Integer or Real parameter is declared, and a Real where an
    Integer is, are refused as fmi2Set* refuses them, naming the type -- also when the state's variable holds the
    number the Boolean equals in Python (True == 1); a legal value in force that is not the one the state's variables
    hold (20001 against 20000) is refused, naming both. The instance steps on."""
    for pname, value, variable, words in (("max_internal_steps", "True", None, "must be integer, not bool"),
                                          ("max_internal_steps", "True", "1", "must be integer, not bool"),
                                          ("rtol", "True", None, "must be real, not bool"),
                                          ("max_internal_steps", "20000.0", None, "must be integer, not float"),
                                          ("max_internal_steps", "20001", None, "differs from its value 20000")):
        r = host("parameter", fmu_dirs[version] / f"{name}.fmu", version, pname, value, variable, timeout=60)
        assert r["load"] == ERROR, (pname, value, r)
        assert f"parameter {pname} = {value}" in r["message"] and words in r["message"], r["message"]
        assert r["step"] == OK, r


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_an_overflowed_input_put_back_gives_ok_steps_again(fmu_dirs, name, version):
    """Each Real input at 1e308 for one step (KnuckleBoomCrane q1..q3_ref and VesselCrane q4_ref were Discarded for
    good after it), then back at its start value: the three next steps are OK with finite outputs, and after a
    Discarded step the outputs are those of a run that never saw the input, to 1e-9 of each (the state was left
    at the step's start; only the cached derivative differs: evaluated afresh instead of carried from the last
    stage of the step, the same function at the same point up to rounding)."""
    r = host("overflow", fmu_dirs[version] / f"{name}.fmu", version, "all", timeout=300)
    r.pop("stderr")
    assert r, "the FMU has Real inputs"
    for name_in, case in r.items():
        assert case["after"] == [OK, OK, OK] and case["finite"], (name_in, case)
        assert case["first"] in (OK, DISCARD), (name_in, case)
        if case["first"] == DISCARD:
            assert case["deviation"] <= 1e-9, (name_in, case)


# The models that are autonomous under constant inputs (no programmed motion, no waves), with the inputs that make
# them move: a run from 1.7e9 s is a run from 0 shifted.
AUTONOMOUS = {"KnuckleBoomCrane": {"q1_ref": 0.2, "q2_ref": 0.05}, "VesselCrane": {}}


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", list(AUTONOMOUS))
def test_a_run_from_unix_time_is_a_run_from_zero_shifted(fmu_dirs, name, version):
    """startTime 1.7e9 s (Unix time) with 1 ms steps: 500 OK steps that move the model (they were empty: a step
    below 1e-12 |t| counted as none), equal to the run from t = 0. Tolerance, from the spacing of t: a double at
    1.7e9 s resolves u = 2.4e-7 s, each step integrates fl(t + h) - t, within u/2 of h, so after k steps the model
    has run k u / 2 more or less than from 0, and each coordinate and tip position differs by at most that times
    its largest rate (from the run at 0; measured: 0.61 of the bound)."""
    t0, n, h = 1.7e9, 500, 1e-3
    fmu = fmu_dirs[version] / f"{name}.fmu"
    zero = host("start_time", fmu, version, 0.0, n, h, AUTONOMOUS[name])
    late = host("start_time", fmu, version, t0, n, h, AUTONOMOUS[name])
    assert zero["statuses"] == late["statuses"] == [OK]
    names = zero["names"]
    A, B = np.array(zero["rows"]), np.array(late["rows"])
    kinematic = [i for i, nm in enumerate(names) if nm.startswith(("q", "tip_"))]
    A, B = A[:, kinematic], B[:, kinematic]
    assert (np.ptp(B, axis=0) > 0).all(), "every coordinate moves from 1.7e9 s"
    rate = np.abs(np.diff(A, axis=0)).max(axis=0) / h
    bound = np.arange(n + 1)[:, None] * (math.ulp(t0) / 2) * rate
    assert (np.abs(A - B) <= bound).all(), np.abs(A - B).max(axis=0) / bound[-1]


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_every_fmu_moves_from_unix_time(fmu_dirs, name, version):
    """From 1.7e9 s the outputs that move in the first 0.2 s from t = 0 move too (they all stood still before);
    FlexibleCrane's programmed motion depends on the time (its lift is over at 1.7e9 s): some of them there."""
    fmu = fmu_dirs[version] / f"{name}.fmu"
    zero = host("start_time", fmu, version, 0.0, 200, 1e-3, {})
    late = host("start_time", fmu, version, 1.7e9, 200, 1e-3, {})
    assert zero["statuses"] == late["statuses"] == [OK]
    moving = np.ptp(np.array(zero["rows"]), axis=0) > 0
    moves = np.ptp(np.array(late["rows"]), axis=0)[moving] > 0
    assert moves.all() or (name == "FlexibleCrane" and moves.any())


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_absurd_communication_points_are_refused(fmu_dirs, name, version):
    """doStep(1e308, 1e308) (OK before, lastSuccessfulTime inf), a point ahead of or behind the FMU's time or off
    by 1e-9 s, a step <= 0 or not finite, a step below the spacing of doubles at t, a step of 1.7e308 s (its end is
    finite, but no budget of internal steps reaches it: it ran until the budget was spent, then was discarded):
    Error each, lastSuccessfulTime stays the FMU's time (0.01 s); then a proper step is OK."""
    r = host("absurd_steps", fmu_dirs[version] / f"{name}.fmu", version)
    r.pop("stderr")
    then = r.pop("then")
    for label, case in r.items():
        assert case == {"status": ERROR, "last": 0.01}, (label, case)
    assert then == {"status": OK, "last": 0.02, "t": 0.02}


@needs_kernel
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_a_restored_state_brings_its_time(fmu_dirs, name, version):
    """Saved at 0.03 s, stepped to 0.05 s, restored: the runtime's time is the state's -- lastSuccessfulTime 0.03 s
    (it said 0.05 s, the step before the restore), a refused step reports 0.03 s, a step from 0.03 s is OK and ends
    at 0.04 s -- and a refused state's message names the standard's call (FMI 3.0 said fmi2SetFMUstate)."""
    r = host("restored_time", fmu_dirs[version] / f"{name}.fmu", version)
    assert r["load"] == OK and r["refused"] == ERROR and r["step"] == OK, r
    assert r["direct"] == (0.03 if version == 2 else None)
    assert (r["after_refused"], r["after_step"]) == (0.03, 0.04)
    call = "fmi3SetFMUState" if version == 3 else "fmi2SetFMUstate"
    assert call + ": " in r["message"] and ("fmi2" not in r["message"] if version == 3 else True), r["message"]
