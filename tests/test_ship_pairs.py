"""The ship pairs start at rest in their static equilibrium, with consistent coupling inputs
(models/vessel_crane/vessels.py): checked against the monolithic one-tree models, an independent computation of the
same physics (the split FMUs are never asked).

* the pair's start positions make every acceleration of the monolithic model vanish with zero speeds (the vessel's
  springs and hull balance the crane's load; the paper's crane sags to where its PD torque holds gravity);
* the vessel's wrench inputs start at the crane's load on it there, the crane's attitude inputs at the vessel's heel;
* :func:`integration.equilibrium.static_equilibrium` finds that point from the crane's set-points and a level vessel,
  and refuses a model that has none.
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.app.ship_demo import _PAIRS
from crane_models.integration.equilibrium import static_equilibrium
from crane_models.models.vessel_crane.vessels import SHIP_PAIRS, WIRINGS


def _monolithic(system: str):
    model, x0, setpoints, rename = _PAIRS[system][1]()
    return model, x0, np.array(list(setpoints(0.0).values())), rename


@pytest.mark.parametrize("system", sorted(_PAIRS))
def test_the_pair_starts_in_the_static_equilibrium_of_its_monolithic_model(system):
    model, x0, inputs, _ = _monolithic(system)
    n = len(x0) // 2
    assert not x0[n:].any()  # at rest
    accelerations = model.derivative(0.0, x0, inputs)[0][n:]
    # 1e-9 rad/s2 and m/s2: the start values are printed to 15 digits; the accelerations they leave are ~1e-12
    assert np.max(np.abs(accelerations)) < 1e-9, accelerations
    # and it is an equilibrium worth the name: the level vessel with the crane at its set-points is not one
    level = x0.copy()
    level[0:3 if system == "CraneOnVessel" else 6][-3:] = 0.0  # the vessel's roll, pitch, yaw: q1-q3 there, q4-q6 here
    assert np.max(np.abs(model.derivative(0.0, level, inputs)[0][n:])) > 1e-3


@pytest.mark.parametrize("system", sorted(_PAIRS))
def test_the_coupling_inputs_start_at_the_load_and_heel_of_that_equilibrium(system):
    model, x0, inputs, rename = _monolithic(system)
    _, aux = model.derivative(0.0, x0, inputs)
    out = rename(model.outputs(0.0, x0, inputs, aux))
    vessel, crane = SHIP_PAIRS[system]["vessel"][1], SHIP_PAIRS[system]["crane"][1]
    for name in [f"interface_force_{a}" for a in "xyz"] + [f"interface_moment_{a}" for a in "xyz"]:
        if name in out:  # (the paper's tree has no yaw moment: at rest its slewing PD torque is 0, as the input's start)
            # the start values carry 15 significant digits; a component that is zero in the tree is zero to ~1e-15 of
            # the load (the crane's weight), left out of the file
            expected, scale = out[name], abs(out["interface_force_z"])
            assert abs(vessel.get(name, 0.0) - expected) <= 1e-13 * max(abs(expected), scale), name
    for name in ("roll", "pitch", "yaw"):
        assert abs(crane.get(name, 0.0) - out[name]) <= 1e-15, name
        assert crane.get(name, 0.0) == vessel.get({"roll": "q1_0", "pitch": "q2_0", "yaw": "q3_0"}[name], 0.0)


@pytest.mark.parametrize("system", sorted(_PAIRS))
def test_the_equilibrium_is_found_from_the_set_points_and_a_level_vessel(system):
    model, x0, inputs, _ = _monolithic(system)
    n = len(x0) // 2
    guess = x0[:n].copy()
    vessel = slice(0, 3) if system == "CraneOnVessel" else slice(3, 6)
    guess[vessel] = 0.0
    if system == "CraneOnVessel":
        guess[3:6] = inputs[:3]  # the crane at its set-points
    q = static_equilibrium(model.derivative, guess, inputs)
    assert np.allclose(q, x0[:n], rtol=0, atol=1e-10), q - x0[:n]


def test_a_model_without_equilibrium_is_refused():
    def falling(t, x, inputs):  # a free mass under gravity: no position holds it
        return np.array([x[1], -9.81]), None

    with pytest.raises(ValueError, match="no static equilibrium"):
        static_equilibrium(falling, np.array([0.0]), np.zeros(0))


def test_every_variant_starts_as_its_pair():
    for system, wrench in WIRINGS.items():
        base = system.removesuffix("_PointWrench")
        assert wrench == "point" and SHIP_PAIRS[system] == SHIP_PAIRS[base]
