"""Ship conventions of the moving-base crane FMUs (models/vessel_crane/ship.py): axis convention, mounting, gravity.

Checked on the models the FMUs build (``spec.build``), so each case costs milliseconds:

* defaults are today's model, untouched (the existing FMU tests then keep their numbers);
* at rest on a level ship the load is the crane's weight along the down axis, in either convention, wherever the
  crane is mounted: ``(0, 0, −m g)`` z-up, ``(0, 0, +m g)`` z-down (m from the parameters: 90 kg and 36 t);
* the same physical motion given z-up and z-down (``F = diag(1, −1, −1)``, roll kept, pitch and yaw negated)
  gives the same physical load, ``f_down = F f_up``, over a run of 50 steps (1e-9 of the load's scale:
  the two paths differ by rounding of the frame conversions only);
* a crane mounted off the yaw axis of a yawing ship feels the centripetal acceleration ``−ω² r`` -- the loads
  equal those of the plain model fed with that acceleration by hand, turned by the mount heading.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.core.screws import rot_x, rot_y, rot_z
from crane_models.models.registry import SPECS
from crane_models.core.moving_base.ship import FLIP, ShipMountedModel, euler_angles
from crane_models.integration.cosimulation import CoSimulation

G = 9.81
NAMES = ["CraneOnMovingBase", "KnuckleBoomCraneOnMovingBase"]
MASS = {"CraneOnMovingBase": 90.0, "KnuckleBoomCraneOnMovingBase": 36000.0}  # Table I (3 × 30 kg), Table 2 (36 t)
# Crane inputs that hold each crane at rest: the three-link crane straight up (no gravity torque), the
# knuckle boom at its initial pose (its controller compensates gravity).
HOLD = {"CraneOnMovingBase": [0.0, math.pi / 2, 0.0, 0.0, 0.0, 0.0],
        "KnuckleBoomCraneOnMovingBase": [0.0, 0.0, 0.0, 0.0, 0.6, 0.6]}
START = {"CraneOnMovingBase": {"q4_0": 0.0, "q5_0": math.pi / 2, "q6_0": 0.0}, "KnuckleBoomCraneOnMovingBase": {}}


def build(name: str, **overrides):
    spec = SPECS[name]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(START[name])
    values.update(overrides)
    return spec.build(values)


def simulate(name: str, motion, steps: int = 1, **overrides) -> dict:
    model, x0, options = build(name, **overrides)
    inputs = lambda k: np.array(HOLD[name] + list(motion(k * 0.01)))  # noqa: E731
    sim = CoSimulation(model, x0, inputs=inputs(0), **options)
    for k in range(steps):
        sim.set_inputs(inputs(k))
        sim.step(0.01)
    return sim.outputs()


def vec(out: dict, name: str) -> np.ndarray:
    return np.array([out[f"{name}_{a}"] for a in "xyz"])


@pytest.mark.parametrize("name", NAMES)
def test_defaults_are_the_plain_model(name):
    model, _, _ = build(name)
    assert not isinstance(model, ShipMountedModel)
    assert isinstance(build(name, z_down=True)[0], ShipMountedModel)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("z_down", [False, True])
def test_weight_at_rest_on_a_level_ship_acts_along_the_down_axis(name, z_down):
    out = simulate(name, lambda t: np.zeros(15), z_down=z_down, mount_x=12.0, mount_y=-3.0, mount_z=4.0,
                   mount_heading=0.7)
    down = 1.0 if z_down else -1.0
    assert np.allclose(vec(out, "interface_force"), [0.0, 0.0, down * MASS[name] * G], rtol=0,
                       atol=1e-9 * MASS[name] * G)
    assert np.allclose(vec(out, "point_of_attack"), [12.0, -3.0, 4.0], rtol=0, atol=0)


def sea(t: float) -> np.ndarray:
    """A physical motion in z-up form: angles, ω, ω̇ (any consistent-enough signal), acceleration, velocity."""
    return np.array([0.05 * math.sin(0.8 * t), 0.03 * math.sin(1.1 * t + 0.3), 0.2 + 0.01 * t,
                     0.04, -0.03, 0.01, 0.02, 0.01, -0.03, 0.3, -0.2, 0.6, 1.5, 0.1, -0.05])


def z_down_form(m: np.ndarray) -> np.ndarray:
    out = m.copy()
    out[1:3] = -m[1:3]
    for i in (3, 6, 9, 12):
        out[i:i + 3] = FLIP @ m[i:i + 3]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_same_motion_in_z_up_and_z_down_gives_the_same_physical_load(name):
    mount = np.array([8.0, 2.0, 5.0])
    up = simulate(name, sea, 50, mount_x=mount[0], mount_y=mount[1], mount_z=mount[2], mount_heading=0.4)
    m_down = FLIP @ mount
    down = simulate(name, lambda t: z_down_form(sea(t)), 50, z_down=True, mount_x=m_down[0], mount_y=m_down[1],
                    mount_z=m_down[2], mount_heading=-0.4)
    scale = MASS[name] * G
    for what, s in (("interface_force", scale), ("interface_moment", 10 * scale), ("tip", 10.0),
                    ("point_of_attack", 10.0)):
        assert np.allclose(vec(down, what), FLIP @ vec(up, what), rtol=0, atol=1e-9 * s), what
    assert np.linalg.norm(vec(up, "interface_force")[:2]) > 1e-3 * scale  # the motion loads the crane sideways


@pytest.mark.parametrize("name", NAMES)
def test_a_crane_off_the_yaw_axis_feels_the_centripetal_acceleration(name):
    omega, r, heading, yaw = 0.3, np.array([10.0, -4.0, 2.0]), 0.5, 0.1
    ship = np.array([0.0, 0.0, yaw, 0.0, 0.0, omega] + [0.0] * 9)
    mounted = simulate(name, lambda t: ship, mount_x=r[0], mount_y=r[1], mount_z=r[2], mount_heading=heading)
    H = rot_z(heading)
    a_p = -omega ** 2 * np.array([r[0], r[1], 0.0])  # ω × (ω × r) about z
    by_hand = np.concatenate(([0.0, 0.0, yaw + heading], [0.0, 0.0, omega], np.zeros(3), H.T @ a_p,
                              H.T @ np.cross([0.0, 0.0, omega], r)))
    plain = simulate(name, lambda t: by_hand)
    scale = MASS[name] * G
    assert np.allclose(vec(mounted, "interface_force"), H @ vec(plain, "interface_force"), rtol=0, atol=1e-9 * scale)
    assert np.allclose(vec(mounted, "interface_moment"), H @ vec(plain, "interface_moment"), rtol=0,
                       atol=1e-9 * scale * 10)
    assert np.linalg.norm(a_p) > 0.9  # a real centripetal load (|a| = ω² |r_xy|)


def test_euler_angles_invert_the_rotation_of_eq_53():
    rng = np.random.default_rng(5)
    for _ in range(50):
        a = rng.uniform([-math.pi, -1.4, -math.pi], [math.pi, 1.4, math.pi])
        R = rot_z(a[2]) @ rot_y(a[1]) @ rot_x(a[0])
        assert np.allclose(euler_angles(R), a, rtol=0, atol=1e-12)
