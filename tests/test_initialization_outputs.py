"""Outputs in Initialization Mode follow the start values and inputs (fmi/initialization.py), so an engine's initial
value propagation starts a coupled pair consistent.

What is checked: for every FMU, FMI 2.0 and 3.0, an output read in Initialization Mode after an input or parameter
was set equals the output the FMU gives right after ExitInitializationMode for the same values -- the evaluation its
first step starts from, which the model tests check against physics; a start value that does not validate leaves the
outputs at their start values and is still reported by ExitInitializationMode; and the ship pair in libcosim starts
without the start-up error the engine's propagation used to leave (the first point's sway force against the
monolithic model, an independent one-tree computation).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException

from fmu_helpers import build_fmi3_fmus, build_fmus, needs_runtime
from crane_models.fmi.instance import FmuInstance
from crane_models.models.registry import SPECS

sys.path.insert(0, str(Path(__file__).parent))
from engine_runs import NO_LIBCOSIM, libcosim_missing  # noqa: E402

# An input and a parameter of each FMU that move an output at the start, and that output.
CASES = {
    "Vessel": ({"interface_force_y": 2.0e3, "interface_moment_z": 5.0e2}, {"m1": 1500.0}, "angular_acceleration_x"),
    "CraneOnMovingBase": ({"base_acceleration_y": 1.5, "angular_acceleration_x": 0.2}, {"m2": 40.0},
                          "interface_force_y"),
    "KnuckleBoomCraneOnMovingBase": ({"base_acceleration_y": 1.5, "q2_ref": 0.9}, {"q2_0": 0.7},
                                     "interface_force_y"),
    "KnuckleBoomCrane": ({"q2_ref": 0.9, "cylinder2_force": 1.0e5}, {"q2_0": 0.7}, "applied_cylinder2_force"),
    "VesselCrane": ({"q5_ref": 0.5}, {"m2": 40.0}, "interface_f1_force_z"),
    "FlexibleCrane": ({"column_torque": 50.0}, {"m2": 2.5}, "drive_torque"),
}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return {2: build_fmus(tmp_path_factory), 3: build_fmi3_fmus(tmp_path_factory)}


def _outputs(fmu, path: Path) -> list:
    md = read_model_description(str(path))
    return [v for v in md.modelVariables if v.causality == "output" and v.type in ("Real", "Float64")]


def _fmi3_instance(path: Path):
    from fmpy import extract
    from fmpy.fmi3 import FMU3Slave

    md = read_model_description(str(path))
    fmu = FMU3Slave(guid=md.guid, unzipDirectory=extract(str(path)), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="init")
    fmu.instantiate()
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def _read_in_and_after_initialization(path: Path, version: int, values: dict) -> tuple:
    """The outputs read in Initialization Mode after ``values`` were set, and right after leaving it."""
    refs = [v.valueReference for v in _outputs(None, path)]
    if version == 2:
        inst = FmuInstance(path, "init", logger=lambda *a: None)
        inst.enter_initialization(values)
        during = np.array(inst.fmu.getReal(refs))
        inst.fmu.exitInitializationMode()
        after = np.array(inst.fmu.getReal(refs))
        inst.close()
        return during, after
    fmu, vr = _fmi3_instance(path)
    fmu.enterInitializationMode()
    for name, value in values.items():
        fmu.setFloat64([vr[name]], [float(value)])
    during = np.array(fmu.getFloat64(refs))
    fmu.exitInitializationMode()
    after = np.array(fmu.getFloat64(refs))
    fmu.terminate()
    fmu.freeInstance()
    return during, after


@needs_runtime
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_in_initialization_mode_follow_inputs_and_parameters(fmus, name, version):
    inputs, params, watched = CASES[name]
    path = fmus[version] / f"{name}.fmu"
    names = [v.name for v in _outputs(None, path)]
    start = {v.name: v.start for v in SPECS[name]().outputs}
    during, after = _read_in_and_after_initialization(path, version, {**params, **inputs})
    # the evaluation ExitInitializationMode makes for the same values (1e-12 of each output's scale: the same model
    # evaluated twice, possibly once by numpy and once by the kernel)
    scale = np.maximum(np.abs(after), 1.0)
    assert np.all(np.abs(during - after) <= 1e-12 * scale), [n for n, d, a in zip(names, during, after) if d != a][:5]
    i = names.index(watched)
    assert during[i] != start[watched]  # not the start value: the inputs and parameters moved it


@needs_runtime
def test_a_bad_start_value_keeps_the_start_outputs_and_is_reported_when_leaving_initialization(fmus):
    path = fmus[2] / "Vessel.fmu"
    inst = FmuInstance(path, "bad", logger=lambda *a: None)
    inst.enter_initialization({"m1": -5.0, "interface_force_y": 2.0e3})
    assert inst.get(["angular_acceleration_x"])[0] == 0.0  # the start value: no model for m1 < 0
    with pytest.raises(FMICallException):
        inst.fmu.exitInitializationMode()
    assert any("m1" in m for m in inst.messages)


@needs_runtime
@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosim_starts_the_knuckle_boom_pair_without_the_start_up_error(fmus):
    """The pair's first communication point in libcosim against the monolithic model (one tree, the same set-points):
    the sway force within 3 % of its 10 s range. With outputs that stayed at their start values in Initialization
    Mode the crane's first step ignored the released vessel's acceleration: 12.4 % (measured; the crane's first sway
    force was -0.0 N where the monolithic model has -9553 N). 3 %: libcosim's two propagation rounds leave a residual
    of the loop (measured 2.2 %; a third round would leave 0.5 %)."""
    from crane_models.app.ship_demo import PAIR_RUNS, STOP, run_in_libcosim
    from crane_models.integration.reference import simulate_reference
    from crane_models.simulation.runs import communication_grid

    structure = "KnuckleBoomOnVessel_OspSystemStructure.xml"
    model, x0, setpoints, rename = PAIR_RUNS[structure][1]()
    step = 0.01
    split = run_in_libcosim(fmus[2] / structure, setpoints, step, STOP)
    grid = communication_grid(STOP, step)
    mono = rename(simulate_reference(model, x0, grid, lambda t: np.array(list(setpoints(t).values())),
                                     rtol=1e-9, atol=1e-9))
    fy = np.asarray(mono["interface_force_y"])
    error = abs(split["interface_force_y"][0] - fy[1]) / np.ptp(fy)
    assert error < 0.03, error
