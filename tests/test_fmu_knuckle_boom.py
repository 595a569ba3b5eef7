"""The KnuckleBoomCrane FMU under fmpy against the standalone solver, FMI validation, error handling.

Tolerance: the issue's 0.1 % of each output's range. The FMU integrates with RK23 at rtol 1e-4, the
reference with DOP853 at rtol 1e-10, both with the inputs held over each communication step (what a
master does), so the difference is integration error, orders of magnitude below 0.1 %.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.validation import validate_fmu

from crane_models.simulation.runs import max_relative_deviation, output_units, run_fmu, run_fmu_manual, run_standalone
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting
from crane_models.integration.scenario import Scenario
from fmu_helpers import Slave, build_fmus, needs_runtime

TOL = 1e-3  # 0.1 % of range


@pytest.fixture(scope="module")
def kb_fmu(tmp_path_factory):
    return build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"


@pytest.fixture(scope="module")
def scenario():
    return knuckle_boom_hoisting()


@pytest.fixture(scope="module")
def references(scenario):
    return {}


def reference(references, scenario, step):
    if step not in references:
        references[step] = run_standalone(scenario, step)
    return references[step]


def assert_matches(result, ref, label):
    names = [n for n in ref if n != "time" and n != "end_stop_active"]
    dev = max_relative_deviation(result, ref, names, output_units("KnuckleBoomCrane"))
    worst = max(dev, key=dev.get)
    assert dev[worst] < TOL, f"{label}: {worst} deviates {dev[worst]:.3g} of its range"
    for n in names:
        assert np.all(np.isfinite(result[n])), n


def test_model_description_passes_fmpy_validation(kb_fmu):
    assert validate_fmu(str(kb_fmu)) == []


def test_model_description_declares_units_and_contract(kb_fmu):
    md = read_model_description(str(kb_fmu))
    by_name = {v.name: v for v in md.modelVariables}
    for name in ("king_torque", "cylinder2_force", "cylinder3_force", "q1_ref", "q2_ref", "q3_ref"):
        assert by_name[name].causality == "input"
    assert by_name["joint1_force_z"].unit == "N" and by_name["joint2_moment_x"].unit == "N.m"
    assert by_name["q1"].unit == "rad" and by_name["q1"].displayUnit == "deg"
    assert by_name["m1"].causality == "parameter" and float(by_name["m1"].start) == 10000.0
    assert by_name["end_stop_active"].type == "Integer"
    assert all(v.description for v in md.modelVariables)
    assert md.defaultExperiment is not None and md.coSimulation.canGetAndSetFMUstate


@pytest.mark.parametrize("step", [0.01, 0.001])
def test_simulate_fmu_matches_standalone(kb_fmu, scenario, references, step):
    result, _ = run_fmu(kb_fmu, scenario, step)
    assert_matches(result, reference(references, scenario, step), f"simulate_fmu at {step} s")


def test_every_integrator_code_steps_the_fmu_to_the_reference(kb_fmu, scenario, references):
    """The integrator codes are shared by every FMU (integrators.INTEGRATOR_CODES): each one, DOP853 (4) included,
    steps the hoisting demo within 0.1 % of each output's range of the standalone reference at 10 ms."""
    from crane_models.integration.integrators import INTEGRATOR_CODES

    for code in INTEGRATOR_CODES:
        sc = knuckle_boom_hoisting()
        sc.start_values = {**sc.start_values, "integrator": code}
        result, _ = run_fmu(kb_fmu, sc, 0.01)
        assert_matches(result, reference(references, scenario, 0.01), f"integrator {code}")


@pytest.mark.parametrize("step", [0.01, 0.001])
def test_manual_master_loop_matches_standalone(kb_fmu, scenario, references, step):
    result = run_fmu_manual(kb_fmu, scenario, step)
    assert_matches(result, reference(references, scenario, step), f"FMU2Slave loop at {step} s")


def _constant_input_scenario() -> Scenario:
    sc = knuckle_boom_hoisting()
    return Scenario("step_response", sc.fmu, 3.0, sc.input_names, lambda t: [2e4, 0.0, 0.0, 0.5, 1.2, 1.0],
                    sc.start_values)


def test_results_do_not_depend_on_communication_step(kb_fmu):
    """Constant inputs: 1 ms and 10 ms communication steps must give the same trajectory at the common
    points, to the integrator's accuracy (rtol 1e-6 -> well below 1e-4 of the range)."""
    sc = _constant_input_scenario()
    fine = run_fmu_manual(kb_fmu, sc, 0.001)
    coarse = run_fmu_manual(kb_fmu, sc, 0.01)
    fine_on_coarse = {n: v[::10] for n, v in fine.items()}
    dev = max_relative_deviation(coarse, fine_on_coarse, [n for n in coarse if n != "time"],
                                 output_units("KnuckleBoomCrane"))
    worst = max(dev, key=dev.get)
    assert dev[worst] < 1e-4, (worst, dev[worst])


def test_deterministic(kb_fmu):
    sc = _constant_input_scenario()
    a = run_fmu_manual(kb_fmu, sc, 0.01)
    b = run_fmu_manual(kb_fmu, sc, 0.01)
    for n in a:
        assert np.array_equal(a[n], b[n]), n


OUTPUTS_TO_CHECK = ("q1", "q2", "u2", "tip_x", "joint1_force_z", "joint2_force_y", "cylinder2_piston_force_z")


@needs_runtime
def test_nan_input_is_rejected_and_the_instance_recovers(kb_fmu, capfd):
    s = Slave(kb_fmu)
    s.init()
    assert s.step() == 0
    before = [s.get(n) for n in OUTPUTS_TO_CHECK]
    s.set("cylinder2_force", math.nan)
    assert s.step() == 3  # fmi2Error: a NaN input is the host's error
    assert "cylinder2_force" in capfd.readouterr().out
    assert [s.get(n) for n in OUTPUTS_TO_CHECK] == before  # nothing moved, no NaN written
    s.set("cylinder2_force", 0.0)
    assert s.step() == 0
    assert all(math.isfinite(s.get(n)) for n in OUTPUTS_TO_CHECK)
    s.close()


@needs_runtime
@pytest.mark.parametrize("name, value, word", [
    ("m1", -5.0, "m1"), ("l2", 0.0, "l2"), ("g", math.inf, "g"), ("max_step", 0.0, "max_step"),
    ("q2_max", 4.0, "q2"),  # beyond what the cylinder geometry can close
    ("eb2", 50.0, "cylinder 2"),  # a barrel joint so far away that the stroke range cannot close
])
def test_bad_parameters_are_reported_not_crashing(kb_fmu, capfd, name, value, word):
    """A bad parameter is reported where it is given: fmi2ExitInitializationMode returns fmi2Error with a
    message naming it and the allowed range; the instance survives (a step is refused, outputs stay finite)."""
    s = Slave(kb_fmu)
    with pytest.raises(FMICallException) as failure:
        s.init(**{name: value})
    assert failure.value.status == 3
    out = capfd.readouterr().out
    assert word in out and ("allowed" in out or "range" in out), out
    assert s.step() == 3
    assert all(math.isfinite(s.get(n)) for n in OUTPUTS_TO_CHECK)
    s.close()


@needs_runtime
def test_non_positive_step_is_rejected(kb_fmu, capfd):
    s = Slave(kb_fmu)
    s.init()
    assert s.step(0.0) == 3  # fmi2Error: the runtime refuses an invalid communicationStepSize
    assert s.step(-0.01) == 3
    assert "step size" in capfd.readouterr().out
    assert s.step(0.01) == 0
    s.close()


def test_end_stop_holds_the_piston_and_is_reported(kb_fmu):
    """Piston 2 starts at its upper limit and is pushed out by F = 2 MN. Gravity is compensated, so at
    rest the end-stop spring k and the controller's Kp carry F: the static penetration is
    F / (k + kp2) (1.98 cm). It is never NaN, and end_stop_active reports the contact."""
    s = Slave(kb_fmu)
    s.init(q2_0=1.7, q2_ref=1.7, q3_0=0.6, q3_ref=0.6)
    force, k, kp2 = 2.0e6, 1.0e8, 1.1e6
    s.set("cylinder2_force", force)
    active = 0
    for _ in range(400):  # 4 s: the contact (about 20 rad/s, damped) settles
        assert s.step() == 0
        active |= int(s.fmu.getInteger([s.vr["end_stop_active"]])[0])
        assert all(math.isfinite(s.get(n)) for n in OUTPUTS_TO_CHECK)
    assert active == 1
    penetration = s.get("q2") - 1.7
    assert penetration == pytest.approx(force / (k + kp2), rel=1e-3)
    assert s.get("end_stop_force2") == pytest.approx(-k * penetration, rel=1e-3)
    s.close()


def test_fmu_without_its_compiled_kernel_gives_the_same_results(kb_fmu, scenario, tmp_path):
    """An FMU on a platform its kernel was not built for runs the numpy implementation: forced here with
    CRANE_COSIM_NATIVE=0 in a fresh process, 2 s of the demo must give the kernel's outputs to 1e-6 of
    each output's range. Both evaluate the same formulas in another order: round-off of the 1e5-1e6 N·m
    reaction sums is ~1e-8 N·m, which the zero moment n_x of Joint 2 sees against its 1 N·m resolution
    floor (measured 1.4e-9); a formula that differed would show at O(1)."""
    import dataclasses
    import os
    import subprocess
    import sys

    short = dataclasses.replace(scenario, stop_time=2.0)
    with_kernel, _ = run_fmu(kb_fmu, short, 0.01)
    code = ("import sys, numpy as np, dataclasses; from crane_models.simulation.runs import run_fmu; "
            "from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting; "
            "sc = dataclasses.replace(knuckle_boom_hoisting(), stop_time=2.0); "
            f"r, _ = run_fmu({str(kb_fmu)!r}, sc, 0.01); "
            f"np.save({str(tmp_path / 'numpy.npy')!r}, r); "
            # the FMU's own bundled copy of the package ran, and it ran without its kernel
            "bundled = [m for n, m in sys.modules.items() if n.endswith('_crane_models.core.native')]; "
            "assert bundled and all(m.library() is None for m in bundled), bundled")
    env = dict(os.environ, CRANE_COSIM_NATIVE="0")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    without = np.load(tmp_path / "numpy.npy")
    names = [n for n in with_kernel.dtype.names if n != "time"]
    dev = max_relative_deviation(without, with_kernel, names, output_units("KnuckleBoomCrane"))
    worst = max(dev, key=dev.get)
    assert dev[worst] < 1e-6, f"{worst} differs by {dev[worst]:.3g} of its range"
