"""FMI 2.0 statuses of the project's runtime, from the plain C host in a clean environment: a bad call
returns fmi2Error with a message naming the call and the variable, and the instance stays usable; a
slave's refusal to step is fmi2Discard; nothing ends in a signal. Value references and expected values
come from modelDescription.xml and the FMI 2.0 standard, not from the runtime."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fmpy import read_model_description

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "native_host"))
from fmu_helpers import build_fmus  # noqa: E402
from c_host import NO_CC, c_compiler, compile_host, extract, results, run_host  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
OK, DISCARD, ERROR = 0, 2, 3  # fmi2Status values of the standard


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    fmu = build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"
    md = read_model_description(str(fmu))
    unzipped = extract(fmu, tmp_path_factory.mktemp("kb"))
    host = compile_host(tmp_path_factory.mktemp("host"))
    vars_ = {v.name: v for v in md.modelVariables}
    return {"md": md, "dir": unzipped, "host": host, "vars": vars_,
            "vr": {n: v.valueReference for n, v in vars_.items()}}


def run(kb, body: str, env=None, unzipped=None, guid=None):
    head = f"instantiate {guid or kb['md'].guid}\nsetup 0\nenter\nexit\n"
    proc = run_host(kb["host"], unzipped or kb["dir"], "KnuckleBoomCrane", head + body, env=env)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"
    return proc


def statuses(proc, command):
    return [st for st, _ in results(proc.stdout, command)]


def first_of(kb, causality, type_="Real", variability=None):
    return next(v.valueReference for v in kb["md"].modelVariables if v.causality == causality and v.type == type_
                and (variability is None or v.variability == variability))


def test_get_integer_on_a_real_and_a_huge_value_reference_are_errors(kb):
    real_output = first_of(kb, "output")
    proc = run(kb, f"step 0 0.01\nget_integer {real_output}\nget_integer {2**31}\nget_integer {2**32 - 1}\n"
                   "step 0.01 0.01\n")
    assert statuses(proc, "get_integer") == [ERROR, ERROR, ERROR]
    assert statuses(proc, "step") == [OK, OK]  # still usable
    assert f"value reference {real_output} is a Real variable" in proc.stderr
    assert f"value reference {2**31} is unknown" in proc.stderr


def test_set_real_on_an_output_is_refused_and_the_value_stays(kb):
    out = first_of(kb, "output")
    proc = run(kb, f"step 0 0.01\nget_real {out}\nset_real {out} nan\nget_real {out}\nstep 0.01 0.01\n")
    assert statuses(proc, "set_real") == [ERROR]
    (_, before), (_, after) = results(proc.stdout, "get_real")
    assert before == after and before[0] == before[0]  # unchanged and not NaN
    assert "causality output" in proc.stderr and "may not be set" in proc.stderr
    assert statuses(proc, "step") == [OK, OK]


def test_fixed_parameter_after_initialization_is_refused(kb):
    fixed = first_of(kb, "parameter", variability="fixed")
    proc = run(kb, f"set_real {fixed} 1.5\nstep 0 0.01\n")
    assert statuses(proc, "set_real") == [ERROR]
    assert "fixed parameter" in proc.stderr and f"value reference {fixed}" in proc.stderr
    assert statuses(proc, "step") == [OK]


def test_enter_initialization_mode_while_stepping_is_refused(kb):
    proc = run(kb, "step 0 0.01\nenter\nstep 0.01 0.01\n")
    assert statuses(proc, "enter") == [OK, ERROR]  # the first from the script's head
    assert "fmi2EnterInitializationMode is not allowed in state 'stepping'" in proc.stderr
    assert statuses(proc, "step") == [OK, OK]


def test_a_refused_step_is_a_discard_and_a_bad_input_an_error(kb):
    """The slave's do_step returning False (a 1 s step of a moving crane at rtol = 1e-12 needs more than its
    max_internal_steps = 200, though 200 steps of max_step 0.01 s would reach 2 s) -> fmi2Discard, the state kept
    so the next step goes on; a step longer than the budget can reach at all (1e300 s) -> fmi2Error before any
    work, naming the budget; an exception (a NaN input, the host's error) -> fmi2Error."""
    vr = kb["vr"]
    head = (f"instantiate {kb['md'].guid}\nsetup 0\nenter\nset_real {vr['rtol']} 1e-12\n"
            f"set_integer {vr['max_internal_steps']} 200\nexit\nset_real {vr['q1_ref']} 0.5\n")
    proc = run_host(kb["host"], kb["dir"], "KnuckleBoomCrane", head + "step 0 1\nstep 0 1e300\nstep 0 0.01\n"
                    f"set_real {vr['q1_ref']} nan\nstep 0.01 0.01\nset_real {vr['q1_ref']} 0.1\nstep 0.01 0.01\n")
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"
    assert statuses(proc, "step") == [DISCARD, ERROR, OK, ERROR, OK]
    assert "more than max_internal_steps = 200 internal steps would be needed" in proc.stderr
    assert "1e+300 s cannot be reached within the step budget (max_internal_steps = 200" in proc.stderr


def test_a_value_that_is_not_finite_is_never_got_with_ok(kb):
    """Issue 34: a getter's result that is not finite is an error, not OK: an input the host set to NaN or inf
    (refused where it is used, at doStep) read back -- from the value table without Python and, with the table off,
    from the slave -- is fmi2Error naming it; the finite value set next is OK."""
    q1_ref = kb["vr"]["q1_ref"]
    for env in (None, {"CRANE_COSIM_VALUE_TABLE": "0"}):
        proc = run(kb, f"set_real {q1_ref} nan\nget_real {q1_ref}\nset_real {q1_ref} -inf\nget_real {q1_ref}\n"
                       f"set_real {q1_ref} 0.25\nget_real {q1_ref}\n", env=env)
        got = results(proc.stdout, "get_real")
        assert [st for st, _ in got] == [ERROR, ERROR, OK] and got[-1][1] == [0.25], (env, proc.stdout)
        assert f"value reference {q1_ref}" in proc.stderr and "finite" in proc.stderr, proc.stderr[-2000:]


def test_wrong_guid_gives_null_with_a_message(kb):
    proc = run_host(kb["host"], kb["dir"], "KnuckleBoomCrane", "instantiate {not-this-fmu}\n")
    assert proc.returncode == 0
    assert "instantiate NULL" in proc.stdout
    assert "fmuGUID = {not-this-fmu} does not match" in proc.stderr


def test_instantiate_fail_free_cycles_end_without_a_signal(kb):
    """Three cycles of instantiate -> failing calls (a type error caught by the runtime, a Python exception
    in the slave) -> freeInstance: one reference dropped each, no double free (exit status 0)."""
    real_output = first_of(kb, "output")
    cycle = (f"instantiate {kb['md'].guid}\nget_integer {real_output}\nsave\ndeserialize_garbage\n"
             "free_state\nfree\n")
    proc = run_host(kb["host"], kb["dir"], "KnuckleBoomCrane", cycle * 3)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("instantiate ok") == 3
    assert statuses(proc, "deserialize_garbage") == [ERROR] * 3
    assert statuses(proc, "free") == [OK] * 3


def test_serialize_with_larger_buffer_is_ok_and_smaller_is_an_error(kb):
    # The host checks that no byte beyond the reported size was written ("wrote beyond" otherwise).
    proc = run(kb, "step 0 0.01\nsave\nserialize 64\nserialize 1048576\nserialize 0\nserialize -1\n")
    sizes = results(proc.stdout, "serialize")
    assert [st for st, _ in sizes] == [OK, OK, OK, ERROR]
    assert "wrote beyond" not in proc.stdout
    assert "is smaller than the state" in proc.stderr


def all_real_outputs(kb) -> str:
    return " ".join(str(v.valueReference) for v in kb["md"].modelVariables
                    if v.causality == "output" and v.type == "Real")


def test_garbage_state_is_refused_and_the_instance_keeps_its_own(kb):
    out = all_real_outputs(kb)
    steps = "".join(f"set_real {kb['vr']['king_torque']} {k * 1e4}\nstep {k * 0.01!r} 0.01\nget_real {out}\n"
                    for k in range(2, 5))
    plain = run(kb, "step 0 0.01\nstep 0.01 0.01\n" + steps)
    garbled = run(kb, "step 0 0.01\nstep 0.01 0.01\ndeserialize_garbage\n" + steps)
    assert statuses(garbled, "deserialize_garbage") == [ERROR]
    assert results(garbled.stdout, "get_real") == results(plain.stdout, "get_real")
    assert "fmi2DeSerializeFMUstate:" in garbled.stderr


def test_serialized_state_round_trip_restores_the_outputs(kb):
    out = all_real_outputs(kb)
    move = f"set_real {kb['vr']['king_torque']} 5e4\n"  # the crane rests in equilibrium without it
    proc = run(kb, f"step 0 0.01\nsave\nserialize 0\nget_real {out}\n{move}step 0.01 0.01\nget_real {out}\n"
                   f"deserialize_last\nrestore\nget_real {out}\n{move}step 0.01 0.01\nget_real {out}\n")
    (_, at1), (_, at2), (_, back), (_, again) = results(proc.stdout, "get_real")
    assert statuses(proc, "restore") == [OK]
    assert back == at1 and again == at2 and at1 != at2


def test_steps_from_a_new_thread_each_call(kb):
    """Each doStep from a fresh host thread: the thread state the runtime creates for each thread is
    deleted when the thread ends (a wrong release there aborts the process) and stepping goes on."""
    proc = run(kb, "bench 50 0.01 thread\nstep 0.5 0.01\nfree\n")  # bench steps t = 0, 0.01, ..., 0.49
    (status, _), = results(proc.stdout, "bench")
    assert status == OK  # the worst status of the 50 steps
    assert statuses(proc, "step") == [OK]


def test_reset_returns_to_instantiated_and_runs_like_a_new_instance(kb):
    out = all_real_outputs(kb)
    move = f"set_real {kb['vr']['king_torque']} 5e4\n"
    fresh = run(kb, f"{move}step 0 0.01\nget_real {out}\n")
    reset = run(kb, f"step 0 0.01\nstep 0.01 0.01\nreset\nstep 0 0.01\nsetup 0\nenter\nexit\n"
                    f"{move}step 0 0.01\nget_real {out}\n")
    assert statuses(reset, "reset") == [OK]
    assert statuses(reset, "step") == [OK, OK, ERROR, OK]  # no doStep between reset and initialization
    assert results(reset.stdout, "get_real") == results(fresh.stdout, "get_real")
