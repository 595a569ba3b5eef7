"""The payload on the knuckle boom crane on a moving base (issue 14): the same physics as on the fixed base when
the base rests level, and under a steady heel the wire hangs along the true vertical, not the deck normal."""
import math

import numpy as np
import pytest

from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
from crane_models.models.knuckle_boom.moving_base import KnuckleBoomOnMovingBaseModel
from crane_models.models.knuckle_boom.payload import KnuckleBoomPayloadModel, PayloadParameters
from crane_models.models.knuckle_boom.payload_moving_base import KnuckleBoomOnMovingBasePayloadModel
from crane_models.integration.reference import simulate_reference

POSE = [0.3, 1.0, 1.0]


def moving_base_inputs(model, roll=0.0):
    inputs = np.zeros(len(model.input_names))
    inputs[3:6] = POSE
    inputs[6] = roll
    return inputs


@pytest.mark.parametrize("deck", [False, True])
def test_level_resting_base_is_the_fixed_crane_with_payload(deck):
    """Independent check: the fixed-base payload model (another body tree, no prescribed coordinates); with the
    deck, the load 1 cm into it and moving down (the moving deck's velocity and normal against the fixed one's)."""
    payload = PayloadParameters()
    mb = KnuckleBoomOnMovingBasePayloadModel(KnuckleBoomOnMovingBaseModel(), payload)
    inputs = moving_base_inputs(mb)
    x18 = np.zeros(18)
    x18[:3] = POSE
    x = mb.initial_state(x18, inputs)
    x[18:21] += [0.5, -0.3, 0.0]  # swinging out, and moving, so that the wire force has all components
    x[21:24] = [0.2, 0.1, -0.1]
    if deck:
        payload = PayloadParameters(deck_height=float(x[20]) + 0.01)
        mb = KnuckleBoomOnMovingBasePayloadModel(KnuckleBoomOnMovingBaseModel(), payload, deck_enabled=True)
    fixed = KnuckleBoomPayloadModel(KnuckleBoomModel(), payload, deck_enabled=deck)
    xf = np.concatenate((x[:3], x[9:12], x[18:]))
    fixed_inputs = np.concatenate((inputs[:6], [0.0]))
    xdot, aux = mb.derivative(0.0, x, inputs)
    xdot_f, aux_f = fixed.derivative(0.0, xf, fixed_inputs)
    # Same equations, other trees: agreement to rounding of the mass-matrix solves (1e-9 of the accelerations).
    np.testing.assert_allclose(xdot[9:12], xdot_f[3:6], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(xdot[18:], xdot_f[6:], rtol=1e-9, atol=1e-12)
    out, out_f = mb.outputs(0.0, x, inputs, aux), fixed.outputs(0.0, xf, fixed_inputs, aux_f)
    for name in ("hook_load", "joint1_force_z", "joint1_moment_x", "joint1_moment_y", "joint2_force_y",
                 "joint3_force_z", "swing_radial", "swing_tangential", "deck_contact_force"):
        assert out[name] == pytest.approx(out_f[name], rel=1e-9, abs=1e-6), name
    assert (out["deck_contact_force"] > 1e5) == deck  # 1 cm at 1e7 N/m, plus the damper
    # The vessel carries the hook load: the interface force is minus the Joint 1 reaction on the king.
    assert out["interface_force_z"] == pytest.approx(-out["joint1_force_z"], rel=1e-9)


def test_under_steady_heel_the_wire_hangs_along_the_true_vertical():
    roll = math.radians(5.0)
    # A light load (50 kg on the 36 t crane): the booms, which the controller does not compensate for it, hardly
    # sag or move under it, so the tip stays put and the swing's centre is the load's equilibrium direction.
    model = KnuckleBoomOnMovingBasePayloadModel(KnuckleBoomOnMovingBaseModel(), PayloadParameters(payload_mass=50.0))
    inputs = moving_base_inputs(model, roll)
    x18 = np.zeros(18)
    x18[:3] = POSE
    x = model.initial_state(x18, inputs)
    # Start the load along the deck normal (5° off the true vertical), at rest: it swings about the vertical.
    kin = model.crane.system.kinematics(x[:9], x[9:18])
    tip = x[18:21] + [0.0, 0.0, np.linalg.norm(x[18:21] - model._tip(kin)[0])]
    x[18:21] = tip - np.linalg.norm(x[18:21] - tip) * kin.rotation[model.base._base][:, 2]
    period = 2.0 * math.pi * math.sqrt(model.payload.wire_length_0 / 9.81)
    times = np.linspace(0.0, 2.0 * period, 400)
    res = simulate_reference(model, x, times, lambda t: inputs, rtol=1e-9, atol=1e-9)
    assert not np.any(res["wire_slack"])
    swing = np.hypot(res["swing_radial"], res["swing_tangential"])
    assert swing[0] == pytest.approx(roll, rel=1e-3)  # started 5° off the vertical
    for name in ("swing_radial", "swing_tangential"):
        centre = 0.5 * (res[name].max() + res[name].min())
        # The centre of the swing is the true vertical: 1e-4 rad, 0.1 % of the heel, allows for the tip's motion
        # and the sampling of the extremes (400 points in two periods: 1 − cos(π/100) ≈ 5e-4 of 5°, 4e-5 rad).
        assert abs(centre) < 1e-4, (name, centre)
