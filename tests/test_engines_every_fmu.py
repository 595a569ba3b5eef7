"""Every FMU built by ``crane-cosim build`` under libcosim (libcosimpy) and Ecos (ecospy), in process, against
the same run under fmpy (issue 11: "runs in ... fmpy, libcosimpy and ecospy with the fmpy results").

Each FMU gets a short run in which every kind of input moves: its demo scenario where it has one, cut to
2 s; for CraneOnMovingBase a rolling, accelerating base with set-point ramps, for Vessel a swinging wrench
(``moving_inputs``). The engines feed the same inputs at the same communication points (``engine_runs``), so
the only legitimate differences are floating-point noise; the tolerance is the project's 0.1 % of each
output's range (``max_relative_deviation``), the tolerance that ``test_engines.py`` shows catches inputs fed
one step late.
"""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from crane_models.models.registry import SPECS
from crane_models.models import collect
from crane_models.simulation.runs import max_relative_deviation, output_units, run_fmu
from crane_models.integration.scenario import Scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fmu_helpers import build_fmus  # noqa: E402
from engine_runs import NO_LIBCOSIM, libcosim_missing, needs_ecospy, run_ecos, run_libcosim  # noqa: E402

TOL = 1e-3  # 0.1 % of range
STEP = 0.01
STOP = 2.0


def moving_inputs(name: str) -> Scenario:
    """A 2 s run of ``name`` in which its inputs move: the first demo scenario of that FMU, else a
    hand-made one."""
    for make in collect("scenarios", "SCENARIOS").values():
        scenario = make()
        if scenario.fmu == name:
            return dataclasses.replace(scenario, stop_time=STOP)
    inputs = [v.name for v in SPECS[name]().inputs]
    start = {v.name: v.start for v in SPECS[name]().inputs}
    if name == "CraneOnMovingBase":
        def signals(t: float) -> list:
            moving = {"q5_ref": start["q5_ref"] + 0.2 * math.sin(2.0 * t), "q4_ref": 0.3 * t,
                      "roll": 0.05 * math.sin(1.5 * t), "angular_velocity_x": 0.075 * math.cos(1.5 * t),
                      "angular_acceleration_x": -0.1125 * math.sin(1.5 * t),
                      "base_acceleration_y": 0.3 * math.sin(1.5 * t), "base_acceleration_z": 0.2 * math.cos(t)}
            return [moving.get(n, start[n]) for n in inputs]
    elif name == "Vessel":
        def signals(t: float) -> list:
            moving = {"interface_force_z": -900.0 + 100.0 * math.sin(3.0 * t),
                      "interface_moment_x": 40.0 * math.sin(2.0 * t), "interface_force_y": 30.0 * math.cos(2.0 * t)}
            return [moving.get(n, start[n]) for n in inputs]
    elif name == "WaveVessel":  # no inputs: its sea (the default JONSWAP) moves it
        def signals(t: float) -> list:
            return []
    else:
        raise KeyError(f"no moving-input run for {name}")
    return Scenario(f"{name}_moving", name, STOP, inputs, signals)


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def compare(result: dict, ref, name: str, label: str) -> None:
    names = [n for n in result if n != "time"]
    assert len(names) == len([v for v in SPECS[name]().outputs if v.kind == "real"]), names  # every Real output
    for n in names:
        assert np.all(np.isfinite(result[n])), f"{label}: {n} not finite"
    trimmed = {n: np.asarray(ref[n])[1:] for n in names}
    np.testing.assert_allclose(result["time"], np.asarray(ref["time"])[1:], rtol=0, atol=1e-9)
    dev = max_relative_deviation(result, trimmed, names, output_units(name))
    worst = max(dev, key=dev.get)
    assert dev[worst] < TOL, f"{label}: {name}.{worst} deviates {dev[worst]:.3g} of its range from fmpy"
    moved = [n for n in names if np.ptp(trimmed[n]) > 1e-6 * max(1.0, np.abs(trimmed[n]).max())]
    assert len(moved) >= 3, f"{name}: too few outputs move for the comparison to mean anything ({moved})"


@pytest.fixture(scope="module")
def fmpy_runs(fmu_dir):
    """The fmpy run of every FMU's moving-input scenario, made once for both engines: {name: (scenario, result)}."""
    cache = {}

    def run(name: str):
        if name not in cache:
            scenario = moving_inputs(name)
            cache[name] = scenario, run_fmu(fmu_dir / f"{name}.fmu", scenario, STEP)[0]
        return cache[name]
    return run


@pytest.mark.parametrize("name", list(SPECS))
@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosim_gives_fmpys_results(fmu_dir, fmpy_runs, name):
    scenario, ref = fmpy_runs(name)
    result, _ = run_libcosim(fmu_dir / f"{name}.fmu", scenario, STEP)
    compare(result, ref, name, "libcosimpy")


@needs_ecospy
@pytest.mark.parametrize("name", list(SPECS))
def test_ecos_gives_fmpys_results(fmu_dir, fmpy_runs, name):
    scenario, ref = fmpy_runs(name)
    result, _ = run_ecos(fmu_dir / f"{name}.fmu", scenario, STEP)
    compare(result, ref, name, "ecospy")
