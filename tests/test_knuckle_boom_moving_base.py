"""The knuckle boom crane on a moving base (models/knuckle_boom/moving_base.py) against physics and its monolithic
reference (on_vessel.py), without FMUs.

* Prescribed coordinates in the kernel's effort law against the numpy specification (rounding).
* Fed with the motion of the vessel of the monolithic tree, the moving-base model gives the same crane
  accelerations and the same king-joint wrench at the same instant: two trees, two solves (a partitioned one in
  the kernel, a full numpy one), one physics. Tolerance 1e-8 relative: both are exact, only rounding in solves of
  a mass matrix with entries from 1e3 to 1e7 differs.
* Statics on a level and on a tilted base: the wrench is the crane's weight (36 t × g, Table 2) and its moment
  about the base, from the masses and COGs of the *fixed* crane's tree at the same joint values.
* Newton-Euler on all crane bodies (numpy kinematics, no kernel) equals the interface wrench along a run.
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.core.kane import MultibodySystem
from crane_models.core.screws import rot_x, rot_y, rot_z
from crane_models.core.state_derivative import StateDerivative
from crane_models.models.knuckle_boom.crane import KnuckleBoomCrane
from crane_models.models.knuckle_boom.moving_base import KnuckleBoomOnMovingBaseModel
from crane_models.models.knuckle_boom.on_vessel import KnuckleBoomOnVesselModel
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea
from crane_models.models.vessel_crane.vessels import knuckle_boom_vessel
from crane_models.integration.cosimulation import CoSimulation

G = 9.81
CRANE_MASS = 36000.0  # Table 2: 3 × 10 t + 2 × (2 t + 1 t)


def _inputs(crane_inputs, motion) -> np.ndarray:
    return np.concatenate((crane_inputs, motion))


def _state(model, q_crane, u_crane) -> np.ndarray:
    x = np.zeros(model.state_size)
    x[:3], x[9:12] = q_crane, u_crane
    return x


def test_prescribed_coordinates_in_the_kernel_match_numpy():
    model = KnuckleBoomOnMovingBaseModel()
    rng = np.random.default_rng(3)
    for _ in range(5):
        w = _inputs([1e4, 2e4, -1e4, 0.3, 0.9, 0.8], np.concatenate((rng.normal(size=12) * 0.2, np.zeros(3))))
        x = model.impose_inputs(_state(model, [rng.normal(), 0.8, 0.7], rng.normal(size=3) * 0.1), w)
        native = model._dynamics(x, model.kernel_inputs(w))
        numpy_system = MultibodySystem(model.system.bodies, model.system.n, native=False)
        twin = StateDerivative(numpy_system, model.law, G)(x, model.kernel_inputs(w))
        scale = np.abs(twin.xdot).max()
        assert np.allclose(native.xdot, twin.xdot, rtol=0, atol=1e-12 * scale)
        # the base's efforts are those that realise its motion: (M u̇ + C u − τ_g)_p, from the full M
        assert np.allclose(native.efforts, twin.efforts, rtol=1e-10, atol=1e-6)
        assert np.allclose(native.udot[3:], model.kernel_inputs(w)[6:], rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fed_with_the_vessel_motion_it_matches_the_monolithic_tree(seed):
    rng = np.random.default_rng(seed)
    mono = KnuckleBoomOnVesselModel(knuckle_boom_vessel())
    split = KnuckleBoomOnMovingBaseModel()
    x = np.concatenate(([rng.uniform(-1, 1), rng.uniform(0.3, 1.4), rng.uniform(0.3, 1.4)],
                        rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.2, rng.normal(size=3) * 0.1))
    w = np.array([3e4, -2e4, 1e4, 0.5, 1.0, 0.9])
    _, (kin, udot, efforts) = mono.derivative(0.0, x, w)
    motion = mono.motion_inputs(kin, udot)
    inputs = _inputs(w, motion)
    xs = split.impose_inputs(_state(split, x[:3], x[6:9]), inputs)
    xdot, skin = split.derivative(0.0, xs, inputs)
    assert np.allclose(xdot[9:12], udot[:3], rtol=1e-8, atol=1e-8 * np.abs(udot[:3]).max())
    out = split.outputs(0.0, xs, inputs, skin)
    force, moment = mono.interface_wrench(kin, udot, efforts)
    got_f = np.array([out[f"interface_force_{a}"] for a in "xyz"])
    got_m = np.array([out[f"interface_moment_{a}"] for a in "xyz"])
    assert np.allclose(got_f, force, rtol=0, atol=1e-8 * CRANE_MASS * G)
    assert np.allclose(got_m, moment, rtol=0, atol=1e-8 * CRANE_MASS * G * 10.0)
    assert np.linalg.norm(motion[3:12]) > 1e-3  # the vessel really moves


def _weight_wrench(q_crane, gravity_in_base: np.ndarray) -> tuple:
    """Weight of the crane and its moment about the base point, from the fixed crane's tree (base frame =
    Frame 0 of the fixed crane)."""
    fixed = KnuckleBoomCrane()
    kin = fixed.system.kinematics(np.asarray(q_crane, float), np.zeros(3))
    m = fixed.system.mass
    force = m.sum() * gravity_in_base
    moment = sum(mk * np.cross(c, gravity_in_base) for mk, c in zip(m, kin.cog))
    return force, moment, m.sum()


@pytest.mark.parametrize("roll,pitch,yaw", [(0.0, 0.0, 0.0), (0.12, -0.07, 0.4)])
def test_statics_on_a_level_and_on_a_tilted_base(roll, pitch, yaw):
    model = KnuckleBoomOnMovingBaseModel()
    q = np.array([0.7, 1.1, 0.9])
    motion = np.concatenate(([roll, pitch, yaw], np.zeros(12)))
    inputs = _inputs([0.0, 0.0, 0.0, *q], motion)  # at its set-point, at rest: gravity compensation holds it
    x = model.impose_inputs(_state(model, q, np.zeros(3)), inputs)
    xdot, kin = model.derivative(0.0, x, inputs)
    assert np.abs(xdot[9:12]).max() < 1e-9  # static equilibrium
    out = model.outputs(0.0, x, inputs, kin)
    R = rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)
    force, moment, mass = _weight_wrench(q, R.T @ np.array([0.0, 0.0, -G]))
    assert mass == pytest.approx(CRANE_MASS, rel=1e-15)
    got_f = np.array([out[f"interface_force_{a}"] for a in "xyz"])
    got_m = np.array([out[f"interface_moment_{a}"] for a in "xyz"])
    assert np.allclose(got_f, force, rtol=0, atol=1e-9 * CRANE_MASS * G)
    assert np.allclose(got_m, moment, rtol=0, atol=1e-9 * CRANE_MASS * G * 10.0)
    if roll == 0.0:
        assert got_f[2] == pytest.approx(-CRANE_MASS * G, rel=1e-12)


def test_newton_euler_on_all_crane_bodies_equals_the_interface_wrench_along_a_run():
    model = KnuckleBoomOnMovingBaseModel()
    scenario = knuckle_boom_at_sea(6.0)
    numpy_system = MultibodySystem(model.system.bodies, model.system.n, native=False)
    crane = [model.system.index[n] for n in ("king", "boom2", "barrel2", "piston2", "boom3", "barrel3", "piston3")]
    x0 = _state(model, [0.0, 0.6, 0.6], np.zeros(3))
    sim = CoSimulation(model, x0, inputs=np.array(scenario.inputs_at(0.0)), max_step=0.01, rtol=1e-6)
    worst = 0.0
    for k in range(60):
        t = 0.1 * k
        sim.set_inputs(np.array(scenario.inputs_at(t)))
        sim.step(0.1)
        _, kin_native = sim._current()
        out = sim.outputs()
        kin = numpy_system.kinematics(sim.x[:9], sim.x[9:])
        udot = kin_native.udot
        tdot = numpy_system.body_accelerations(kin, udot)
        o = kin.origin[model.system.index["vessel"]]
        f_sum, m_sum = np.zeros(3), np.zeros(3)
        for b in crane:
            R, w, v = kin.rotation[b], kin.twist[b, :3], kin.twist[b, 3:]
            a = R @ (tdot[b, 3:] + np.cross(w, v))  # COG acceleration, Frame 0
            m, inertia = numpy_system.mass[b], numpy_system.inertia[b]
            net = m * a - m * np.array([0.0, 0.0, -G])  # what the vessel must supply besides gravity
            f_sum += net
            m_sum += np.cross(kin.cog[b] - o, net) + R @ (inertia @ tdot[b, :3] + np.cross(w, inertia @ w))
        rb = kin.rotation[model.system.index["vessel"]]
        f_expected, m_expected = -(rb.T @ f_sum), -(rb.T @ m_sum)  # on the vessel, base frame
        got_f = np.array([out[f"interface_force_{a}"] for a in "xyz"])
        got_m = np.array([out[f"interface_moment_{a}"] for a in "xyz"])
        worst = max(worst, np.abs(got_f - f_expected).max() / (CRANE_MASS * G),
                    np.abs(got_m - m_expected).max() / (CRANE_MASS * G * 10.0))
    assert worst < 1e-10  # both sides are exact: rounding only


def test_base_motion_in_floats_matches_the_euler_angle_functions():
    from crane_models.models.knuckle_boom.moving_base import base_motion_of
    from crane_models.models.vessel_crane.split import euler_accelerations, euler_rates

    rng = np.random.default_rng(7)
    for _ in range(20):
        m = rng.normal(size=12) * [0.4, 0.4, 2.0, 0.3, 0.3, 0.3, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
        angles, rates, udot = base_motion_of(list(m))
        expected_rates = euler_rates(m[:3], m[3:6])
        assert np.allclose(rates, expected_rates, rtol=1e-13, atol=1e-14)
        assert np.allclose(udot[:3], euler_accelerations(m[:3], expected_rates, m[6:9]), rtol=1e-12, atol=1e-13)
        R = rot_z(m[2]) @ rot_y(m[1]) @ rot_x(m[0])
        assert np.allclose(udot[3:], R @ m[9:12], rtol=1e-13, atol=1e-14)
