"""doStep never runs without end, the FMU's clock follows the host's, parameter ranges in modelDescription.xml
are what the FMU accepts, and saved states of another FMU or made of hostile bytes are refused."""
from __future__ import annotations

import math
import pickle
import time
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from crane_models.core import native as kane_native
from crane_models.models.registry import SPECS
from crane_models.models.knuckle_boom.spec import knuckle_boom_spec
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.integrators import StepBudgetExceeded
from fmu_helpers import NO_KERNEL, Slave, build_fmus, needs_kernel


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def _knuckle_boom(stepper: str, max_step: float, budget: int) -> CoSimulation:
    spec = knuckle_boom_spec()
    values = {v.name: v.start for v in spec.parameters}
    model, x0, options = spec.build(values)
    options.update(stepper=stepper, max_step=max_step)
    return CoSimulation(model, x0, inputs=np.array([v.start for v in spec.inputs]), max_internal_steps=budget,
                        **options)


@pytest.mark.parametrize("stepper", ["rk23", "dopri5", "dop853", "rosenbrock"])
@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "python"])
def test_the_step_budget_ends_a_step_after_exactly_that_many_trial_steps(stepper, kernel, monkeypatch):
    """A 10 ms step with max_step 1e-5 needs 1000 steps: a budget of 37 stops it after 37 trial steps
    (counted by the stepper's own statistics), leaves the state where it was, and a budget of 1000 (the
    steps needed; no rejections at this tiny step) is enough."""
    if not kernel:
        monkeypatch.setattr(kane_native.system, "native_enabled", lambda: False)
    elif kane_native.library() is None:
        pytest.skip(NO_KERNEL)
    sim = _knuckle_boom(stepper, 1e-5, 37)
    before = sim.get_state()
    stats = sim.stepper.stats
    with pytest.raises(StepBudgetExceeded, match="max_internal_steps = 37"):
        sim.step(0.01)
    assert stats["accepted"] + stats["rejected"] == 37
    assert sim.t == before[0] and np.array_equal(sim.x, before[1])
    sim.max_internal_steps = 1000
    sim.step(0.01)
    assert stats["rejected"] == 0 and stats["accepted"] == 37 + 1000
    assert sim.t == pytest.approx(0.01, abs=1e-15)


@needs_kernel
def test_huge_and_hopeless_steps_are_refused_quickly(fmu_dir):
    """doStep(h = 1e300) and a 10 ms step at the smallest max_step each need more internal steps than
    max_internal_steps allows (h / max_step: 1e308 and 1e6 against 20000): fmi2Error before any work, with a
    message naming the budget (they were discarded after 20000 steps, and never returned before that); afterwards
    the FMU steps normally."""
    s = Slave(fmu_dir / "KnuckleBoomCrane.fmu")
    s.init(max_step=1e-8)
    t0 = time.perf_counter()
    assert s.step(1e300) == 3
    assert s.step(0.01) == 3
    assert time.perf_counter() - t0 < 1.0
    messages = " ".join(m for m in s.instance.messages if "max_internal_steps" in m)
    assert "cannot be reached within the step budget (max_internal_steps = 20000" in messages
    assert s.step(1e-5) == 0
    s.close()


def test_the_fmu_takes_the_hosts_clock():
    """The host's communication point is the time: after doStep(t_host, h) the FMU is at t_host + h even
    when its own sum of steps differs from t_host by rounding (it accumulated to 2e-5 s after 1.25 hours of
    0.1 ms steps, and the FMU then refused an exact host). Rounding is a few ulp of t (the tolerance is 16:
    step_control.TIME_ULPS); a host 1e-7 s off at 4500 s is not rounding and is refused (issue 21, item 7)."""
    from crane_cosim_fmu_src.knuckle_boom_crane_fmu import KnuckleBoomCrane

    slave = KnuckleBoomCrane(instance_name="clock")
    adapter = slave.adapter
    adapter.setup_experiment(4500.0)
    adapter.exit_initialization_mode()
    h = 1e-4
    assert not adapter.do_step(4500.0 + 1.0e-7, h)  # 110000 ulp: another time, not a rounded one
    t_host = 4500.0 + 4 * math.ulp(4500.0)  # within the tolerance of the FMU's time, not equal to it
    assert adapter.do_step(t_host, h)
    assert adapter.sim.t == t_host + h


def _declared_ranges(fmu_path) -> dict:
    with zipfile.ZipFile(fmu_path) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    out = {}
    for sv in root.find("ModelVariables"):
        if sv.get("causality") == "parameter":
            typed = sv[0]
            out[sv.get("name")] = (typed.tag, typed.get("min"), typed.get("max"))
    return out


@pytest.mark.parametrize("name", list(SPECS))
def test_declared_parameter_ranges_are_what_the_fmu_accepts(fmu_dir, name):
    """Each declared min/max is accepted by the FMU's range check and the next value beyond it is refused
    (an open lower bound such as a mass > 0 is declared as the next double above 0, not min="0.0")."""
    from crane_models.fmi.spec import check_range  # the one check of initialization and restored states

    spec = SPECS[name]()
    meta = {v.name: v for v in spec.parameters}
    declared = _declared_ranges(fmu_dir / f"{name}.fmu")
    assert declared.keys() == meta.keys()
    for pname, (tag, lo, hi) in declared.items():
        v = meta[pname]
        if tag == "Boolean":
            continue
        assert lo is not None or v.low == -math.inf, pname
        for bound, outward in ((lo, -math.inf), (hi, math.inf)):
            if bound is None:
                continue
            x = float(bound) if tag == "Real" else int(bound)
            check_range(v, x)  # accepted
            beyond = math.nextafter(x, outward) if tag == "Real" else x + (1 if outward > 0 else -1)
            with pytest.raises(ValueError, match=pname):
                check_range(v, beyond)


def _outputs(s: Slave) -> list:
    return [s.get(n) for n in ("q1", "q2", "joint1_force_z")]


def test_a_state_of_another_fmu_is_refused_and_the_instance_keeps_its_own(fmu_dir):
    crane = Slave(fmu_dir / "KnuckleBoomCrane.fmu", "crane")
    crane.init()
    for _ in range(5):
        crane.step()
    vessel = Slave(fmu_dir / "VesselCrane.fmu", "vessel")
    vessel.init()
    foreign = vessel.fmu.serializeFMUstate(vessel.fmu.getFMUstate())
    before = _outputs(crane)
    try:
        crane.fmu.setFMUstate(crane.fmu.deSerializeFMUstate(foreign))
    except FMICallException as exc:
        assert exc.status == 3  # fmi2Error (the project's runtime)
    assert _outputs(crane) == before
    assert any("another FMU" in m for m in crane.instance.messages)
    assert crane.step() == 0
    vessel.close()
    crane.close()


def test_a_state_file_that_would_run_code_does_nothing_and_is_refused(fmu_dir, tmp_path):
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    s = Slave(fmu_dir / "KnuckleBoomCrane.fmu")
    s.init()
    s.step()
    before = _outputs(s)
    try:
        s.fmu.setFMUstate(s.fmu.deSerializeFMUstate(pickle.dumps(Exploit())))
    except FMICallException as exc:
        assert exc.status == 3
    assert not marker.exists()
    assert _outputs(s) == before
    assert s.step() == 0
    s.close()


def test_an_instance_keeps_only_the_last_messages(fmu_dir):
    """A debug-logging FMU over a long run must not grow the host's memory: the master-side instance keeps
    the last MESSAGES_KEPT messages, the newest last. Messages are sent through the FMU's own logger
    callback (the path every FMU message takes)."""
    from crane_models.fmi.instance import MESSAGES_KEPT, FmuInstance

    inst = FmuInstance(fmu_dir / "KnuckleBoomCrane.fmu", "chatty", logger=lambda *args: None)
    inst.initialize({})
    try:
        for k in range(MESSAGES_KEPT + 500):
            inst.callbacks.logger(None, b"chatty", 0, b"info", b"message %d" % k)
        assert len(inst.messages) == MESSAGES_KEPT
        assert inst.messages[-1].endswith(f"message {MESSAGES_KEPT + 499}")
        assert inst.messages[0].endswith("message 500")
    finally:
        inst.close()
