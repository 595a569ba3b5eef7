"""KnuckleBoomCraneOnMovingBase.fmu against its standalone solver and against the monolithic tree it is cut from.

* FMU vs standalone (the same model under DOP853 at 1e-10, inputs held over each step as the FMU sees them):
  the issue's 0.1 % of each output's range at 10 ms and 1 ms (measured: 4e-6 and 4e-9).
* FMU vs monolithic (:class:`KnuckleBoomOnVesselModel`, vessel and crane in one tree): the FMU receives the
  monolithic vessel's motion sampled at the communication points and holds it over the step (FMI 2.0 has no
  other way), so it converges to the monolithic solution at first order in the step -- a property of the held
  input, not of either model. Checked: the observed order between 10 ms and 1 ms lies in [0.8, 1.2] for every
  output (measured 0.89 for the heave force, 0.99-1.00 for the others), and at 1 ms the crane's coordinates and speeds are within 0.1 % of range (measured
  1.7e-4). The wrench is not held to 0.1 % at 1 ms: its sway force, the smallest range (55 kN), deviates 2.3e-3
  at 1 ms and 2.2e-2 at 10 ms (the others 4e-4 and 4e-3); 0.1 % would need a step of about 0.4 ms. The crane's
  set-points are constant (a step at t = 0) so that the vessel motion is the only held signal.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from crane_models.models.knuckle_boom.moving_base import INPUTS
from crane_models.models.knuckle_boom.on_vessel import KnuckleBoomOnVesselModel
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea
from crane_models.models.vessel_crane.vessels import knuckle_boom_vessel
from crane_models.integration.reference import simulate_reference
from crane_models.simulation.runs import (communication_grid, max_relative_deviation, output_units, run_fmu,
                                          run_standalone)
from crane_models.integration.scenario import Scenario
from fmu_helpers import build_fmus

NAME = "KnuckleBoomCraneOnMovingBase"
TOL = 1e-3  # 0.1 % of range


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def test_passes_fmpy_validation(fmu_dir):
    assert validate_fmu(str(fmu_dir / f"{NAME}.fmu")) == []


@pytest.mark.parametrize("step,stop", [(0.01, 20.0), (0.001, 2.0)])
def test_fmu_matches_standalone(fmu_dir, step, stop):
    sc = knuckle_boom_at_sea(stop)
    result, _ = run_fmu(fmu_dir / f"{NAME}.fmu", sc, step)
    ref = run_standalone(sc, step)
    names = [n for n in ref if n != "time"]
    dev = max_relative_deviation(result, ref, names, output_units(NAME))
    worst = max(dev, key=dev.get)
    assert dev[worst] < TOL, f"{worst} deviates {dev[worst]:.3g} of its range at {step} s"
    assert np.ptp(ref["interface_force_y"]) > 1e4  # the sea really moves the crane (36 t, 0.2 m/s2 sway)


MONO_STOP = 5.0
SETPOINTS = [0.0, 0.0, 0.0, 0.8, 1.2, 1.0]  # T1, F2, F3, q1_ref, q2_ref, q3_ref: slew and luff from q = [0, 0.6, 0.6]
WRENCH = [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]


@pytest.fixture(scope="module")
def monolithic():
    """The monolithic run on the 1 ms grid (its 10 ms grid is every tenth point: constant crane inputs)."""
    model = KnuckleBoomOnVesselModel(knuckle_boom_vessel())
    x0 = np.zeros(12)
    x0[1:3] = 0.6
    return simulate_reference(model, x0, communication_grid(MONO_STOP, 0.001), lambda t: np.array(SETPOINTS),
                              rtol=1e-10, atol=1e-10)


def _fmu_on_monolithic_motion(fmu_dir, ref: dict, step: float) -> tuple:
    every = int(round(step / 0.001))
    index = {round(t, 9): i for i, t in enumerate(ref["time"])}
    motion = ["roll", "pitch", "yaw"] + [f"{q}_{a}" for q in ("angular_velocity", "angular_acceleration",
                                                             "base_acceleration") for a in "xyz"]

    def signals(t: float) -> list:
        i = index[round(t, 9)]
        return SETPOINTS + [float(ref[n][i]) for n in motion] + [0.0, 0.0, 0.0]

    sc = Scenario("on_monolithic_vessel", NAME, MONO_STOP, [n for n, _, _ in INPUTS], signals,
                  start_values={"q2_0": 0.6, "q3_0": 0.6})
    result, _ = run_fmu(fmu_dir / f"{NAME}.fmu", sc, step)
    sampled = {n: np.asarray(v)[::every] for n, v in ref.items()}
    names = ["q1", "q2", "q3", "u1", "u2", "u3"] + WRENCH
    return max_relative_deviation(result, sampled, names, output_units(NAME)), sampled


def test_fmu_converges_to_the_monolithic_tree_at_first_order(fmu_dir, monolithic):
    fine, sampled = _fmu_on_monolithic_motion(fmu_dir, monolithic, 0.001)
    coarse, _ = _fmu_on_monolithic_motion(fmu_dir, monolithic, 0.01)
    states = {n: v for n, v in fine.items() if not n.startswith("interface")}
    worst = max(states, key=states.get)
    assert states[worst] < TOL, f"{worst} deviates {states[worst]:.3g} of its range at 1 ms"
    for name in fine:
        order = math.log10(coarse[name] / fine[name])
        assert 0.8 < order < 1.2, f"{name}: observed order {order:.3g} ({coarse[name]:.3g} at 10 ms, {fine[name]:.3g} at 1 ms)"
    assert np.ptp(sampled["roll"]) > 0.01  # the crane really rolls the vessel


def test_split_pair_is_within_twice_the_monolithic_models_own_error_at_10_ms(fmu_dir):
    """Issue 12's target on the knuckle boom pair (Vessel with the 3000 t set + this FMU, the first 4 s of the
    hoisting sequence): at 10 ms the split's vessel-angle error within 2x the monolithic model's own error at
    10 ms (its set-points held over each step, solved tightly), both against the continuous-input reference.
    The 36 t crane on a 3000 t vessel couples weakly: the "trapezoid" scheme is at the sampling error itself
    (measured: 8.03e-6 against 8.01e-6 rad). "jacobi" instead (a mutation tried) fails it."""
    from scipy.integrate import solve_ivp

    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting
    from crane_models.models.vessel_crane.vessels import KNUCKLE_BOOM_VESSEL
    from crane_models.simulation.split_masters import SplitSettings, run_split

    stop, step = 4.0, 0.01
    sc = knuckle_boom_hoisting()
    model = KnuckleBoomOnVesselModel(knuckle_boom_vessel())
    x0 = np.zeros(12)
    x0[1:3] = 0.6
    sol = solve_ivp(lambda t, x: model.derivative(t, x, sc.inputs_at(t))[0], (0.0, stop), x0, method="DOP853",
                    rtol=1e-10, atol=1e-10, dense_output=True)
    held = simulate_reference(model, x0, communication_grid(stop, step), sc.inputs_at)  # the monolithic's own
    angles = np.column_stack([held[n] for n in ("roll", "pitch", "yaw")])
    own = np.abs(angles - np.array([sol.sol(t)[3:6] for t in held["time"]])).max()
    r = run_split(fmu_dir / "Vessel.fmu", fmu_dir / f"{NAME}.fmu", stop, step,
                  lambda t: dict(zip(sc.input_names, sc.inputs_at(t))),
                  SplitSettings(scheme="trapezoid", vessel_start=dict(KNUCKLE_BOOM_VESSEL)))
    got = np.column_stack([r[f"vessel.{n}"] for n in ("roll", "pitch", "yaw")])
    split = np.abs(got - np.array([sol.sol(t)[3:6] for t in r["time"]])).max()
    assert own > 1e-7  # a real, measurable figure (rad)
    assert split <= 2.0 * own, (split, own)
