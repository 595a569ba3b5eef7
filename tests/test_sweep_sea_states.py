"""Sweeps over sea states as lift planners tabulate them (issue 36, item 4): a grid of Hs x Tp x heading in the
sea's own parameter names moves the crane's base as the WaveVessel does -- a sweep case is the shipped system's run
(simulation/sea_master.py, the WaveVessel FMU itself) to round-off."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from crane_models.analysis.cases import parse_cases, varied_unit
from crane_models.analysis.sweep import Settings, run_case
from crane_models.models.build import build_fmu
from crane_models.models.sea_systems import KNUCKLE_BOOM_MOUNT
from crane_models.simulation.sea_master import run_sea_system

CRANE = "KnuckleBoomCraneOnMovingBase"
GRID = {"sea_hs": [1.5, 3.0], "sea_tp": [6.0, 8.0, 10.0], "sea_heading": math.pi}


def _case_file(**extra) -> dict:
    return {"fmu": CRANE, "duration": 1.0, "step": 0.01, "start_values": dict(KNUCKLE_BOOM_MOUNT),
            "sea_states": GRID, **extra}


def test_a_grid_of_sea_states_is_their_product_with_the_fmus_names_and_units():
    cases = parse_cases(_case_file()).cases
    assert [(c.sea_state["sea_hs"], c.sea_state["sea_tp"]) for c in cases] == [
        (hs, tp) for hs in GRID["sea_hs"] for tp in GRID["sea_tp"]]
    assert all(c.sea_state["sea_heading"] == math.pi for c in cases)
    assert cases[4].varied == {"sea_state.sea_hs": 3.0, "sea_state.sea_tp": 8.0, "sea_state.sea_heading": math.pi}
    assert varied_unit("sea_state.sea_hs", CRANE) == "m" and varied_unit("sea_state.sea_tp", CRANE) == "s"


@pytest.mark.parametrize("seas, message", [
    ({"sea_hs": [40.0]}, r"sea_states\[0\]\.sea_hs = 40.0 m is outside the allowed range \[0, 30\] m"),
    ({"sea_hs": []}, "sea_states.sea_hs is an empty list"),
    ({"sea_hs": [2.0], "sea_depth": [30.0]}, "must be a mapping with amplitude"),
])
def test_bad_sea_states_are_refused_naming_the_field(seas, message):
    with pytest.raises(ValueError, match=message):
        parse_cases(_case_file(sea_states=seas))


def test_a_crane_without_motion_inputs_takes_no_sea():
    with pytest.raises(ValueError, match="no motion inputs"):
        parse_cases({**_case_file(), "fmu": "KnuckleBoomCrane", "start_values": {}})


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("sweep_sea")
    for fmu in (CRANE, "WaveVessel"):
        build_fmu(fmu, d)
    return d


def test_a_sweep_case_is_the_shipped_systems_run(fmu_dir):
    """Hs 3 m, Tp 8 s, head seas: the case run by the sweep (the WaveVessel's model in process giving the crane's
    inputs) and the system run by the project's master (the WaveVessel FMU's outputs passed on) give the crane the
    same base motion, hence the same loads, to round-off (1e-9 of each signal's range; fmpy records the outputs after
    the step, before the next inputs: the master's default reading)."""
    case_set = parse_cases({**_case_file(), "record": ["interface_force_z", "interface_moment_y", "q2"]})
    case = case_set.cases[4]
    out = run_case(case, str(fmu_dir / f"{CRANE}.fmu"), Settings.of(case_set))
    assert out["status"] == "ok", out["message"]
    # the case's sea: its values, the rest at the sea's defaults -- sea_build_up 0 (the full sea from t = 0), where
    # the shipped system builds its sea up over 10 s
    sea = {"sea_build_up": 0.0, **case.sea_state}
    system = run_sea_system(fmu_dir, "KnuckleBoomOnWaveVessel", 1.0, 0.01, {"crane": list(case_set.record)},
                            overrides={"vessel": sea, "crane": {}})
    for name in case_set.record:
        swept, shipped = out["series"][name][1:], system[f"crane.{name}"]
        assert np.ptp(shipped) > 0.0
        assert np.max(np.abs(swept - shipped)) <= 1e-9 * np.ptp(shipped), name
