"""The knuckle boom FMUs with the payload in the water and heave compensation (issue 37) under fmpy: the same run as
the spec's model in Python (the parameters reach the model; nothing of the FMU path changes it), the kernel's steps
declined, and the one-line errors of bad splash parameters."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.knuckle_boom.spec import knuckle_boom_on_moving_base_spec, knuckle_boom_spec
from fmu_helpers import Slave, build_fmus

PARAMS = dict(payload_enabled=True, hydro_enabled=True, ahc_enabled=True, water_level=-6.0, sea_hs=2.0,
              payload_mass=8000.0, wire_length_0=8.0, payload_cd=2.5, integrator=2, rtol=1e-6)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def heave(t: float) -> dict:
    return {"base_position_z": 0.8 * math.sin(0.8 * t), "base_velocity_z": 0.64 * math.cos(0.8 * t),
            "base_acceleration_z": -0.512 * math.sin(0.8 * t)}


@pytest.mark.parametrize("name, spec", [("KnuckleBoomCrane", knuckle_boom_spec),
                                        ("KnuckleBoomCraneOnMovingBase", knuckle_boom_on_moving_base_spec)])
def test_fmu_runs_the_spec_s_model(fmus, name, spec, monkeypatch):
    monkeypatch.setenv("CRANE_COSIM_NATIVE_STEP", "1")
    slave = Slave(fmus / f"{name}.fmu")
    slave.init(**PARAMS)
    s = spec()
    values = {v.name: v.start for v in s.parameters}
    values.update(PARAMS)
    model, x0, options = s.build(values)
    names = [v.name for v in s.inputs]
    inputs = np.array([float(v.start) for v in s.inputs])
    sim = CoSimulation(model, x0, inputs=inputs, rtol=options["rtol"], max_step=options["max_step"],
                       stepper=options["stepper"])
    watched = ("hook_load", "payload_submergence", "payload_hydro_force_z", "wave_elevation_at_payload",
               "slack_sling_margin", "ahc_heave_reduction")
    moving = name.endswith("OnMovingBase")
    for k in range(150):
        if moving:
            for key, value in heave(slave.t).items():
                slave.set(key, value)
                inputs[names.index(key)] = value
            sim.set_inputs(inputs)
        assert slave.step(0.01) == 0
        sim.step(0.01)
    out = model.outputs(sim.t, sim.x, sim.inputs, sim._current()[1])
    for key in watched:
        assert slave.get(key) == out[key], key  # the same floating-point operations: bit for bit
    assert slave.get("payload_submergence") > 0.0  # it is in the water
    slave.close()


def test_splash_without_payload_is_refused_in_one_line(fmus):
    slave = Slave(fmus / "KnuckleBoomCrane.fmu")
    slave.fmu.enterInitializationMode()
    slave.set("hydro_enabled", True)
    with pytest.raises(Exception):
        slave.fmu.exitInitializationMode()
    slave.close()
