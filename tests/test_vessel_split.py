"""The vessel crane split for ship co-simulation (crane_models/models/vessel_crane/split.py): CraneOnMovingBase and Vessel.

Expected values: the monolithic VesselCrane of section III (its constraint forces are tested against
Newton-Euler sums in test_vessel_crane.py), the crane's weight and hand-written potential
(vessel_reference.py), finite differences of the rotation (53), and the equivalence principle (a base
acceleration acts on the crane as gravity does).
"""
import math

import numpy as np
import pytest

from crane_models.models.vessel_crane.crane import VesselCraneModel
from crane_models.models.vessel_crane.split import (MOTION, WRENCH, CraneOnMovingBaseModel, CraneOnMovingBaseParameters,
                                       VesselModel, euler_accelerations, euler_rate_matrix,
                                       euler_rate_matrix_inverse, euler_rates)
from physics_reference import Rx, Rz, vee
from vessel_reference import CRANE, G, MASS, Ry, fk, gradient, potential

CRANE_WEIGHT = 90.0 * G  # Table I: 3 × 30 kg
RNG = np.random.default_rng(20240711)
STATES = [(np.concatenate((RNG.uniform(-0.1, 0.1, 3), RNG.uniform(-2.0, 2.0, 3))), RNG.uniform(-0.5, 0.5, 6),
           np.concatenate((RNG.uniform(-1.0, 1.0, 3), RNG.uniform(-500.0, 500.0, 3)))) for _ in range(3)]


@pytest.fixture(scope="module")
def models():
    return VesselCraneModel(), CraneOnMovingBaseModel(), VesselModel()


def evaluate(model, x, inputs):
    xdot, aux = model.derivative(0.0, np.asarray(x, float), np.asarray(inputs, float))
    return xdot, model.outputs(0.0, np.asarray(x, float), np.asarray(inputs, float), aux)


def crane_inputs(*parts) -> np.ndarray:
    """Set-points and torques, base motion, and a base velocity (which the dynamics must ignore)."""
    return np.concatenate(parts + ([0.7, -0.3, 0.2],))


def wrench_on_vessel(mono_out) -> np.ndarray:
    """Minus the monolithic constraint wrench on the crane (Frame 1) and minus the slewing torque (z1 = z2)."""
    f = [-mono_out[f"interface_f1_force_{a}"] for a in "xyz"]
    n = [-mono_out["interface_f1_moment_x"], -mono_out["interface_f1_moment_y"], -mono_out["applied_joint4_torque"]]
    return np.array(f + n)


@pytest.mark.parametrize("q,u,inputs", STATES)
def test_split_reproduces_the_monolithic_equations_of_motion(models, q, u, inputs):
    """At any state, the Vessel under the monolithic model's interface wrench and the crane under the
    Vessel's motion give the monolithic accelerations (37) and interface wrench (50): the split is exact,
    only the time discretisation of a co-simulation separates the two. Round-off: 1e-10 of the largest
    entry (accelerations up to ~2e3 rad/s², wrenches up to ~1e5 N)."""
    mono, crane, vessel = models
    x = np.concatenate((q, u))
    xdot, out = evaluate(mono, x, inputs)
    wrench = wrench_on_vessel(out)
    xdot_v, out_v = evaluate(vessel, np.concatenate((q[:3], u[:3])), wrench)
    assert np.allclose(xdot_v[3:], xdot[6:9], rtol=0, atol=1e-10 * np.abs(xdot[6:9]).max())
    motion = [out_v[n] for n, _, _ in MOTION]
    xdot_c, out_c = evaluate(crane, np.concatenate((q[3:], u[3:])), crane_inputs(inputs, motion))
    assert np.allclose(xdot_c[3:], xdot[9:], rtol=0, atol=1e-10 * np.abs(xdot[9:]).max())
    got = np.array([out_c[n] for n, _, _ in WRENCH])
    assert np.allclose(got, wrench, rtol=0, atol=1e-10 * np.abs(wrench).max())
    # Not vacuous: the vessel moves and the dynamic part of the wrench is large.
    assert np.abs(xdot[6:9]).max() > 1.0 and np.linalg.norm(wrench[:3] - [0, 0, -CRANE_WEIGHT]) > 100.0


def rotation(q):
    return Rz(q[2]) @ Ry(q[1]) @ Rx(q[0])


def test_euler_rates_and_accelerations_follow_the_rotation_53():
    """Along q(t) = q0 + q̇0 t + q̈0 t²/2: ω^1 = vee(Rᵀ Ṙ) and ω̇^1 by central differences of the hand-written
    R_z R_y R_x (h = 1e-4: truncation ~1e-8, round-off ~1e-12 / h² ~ 1e-4 for the second difference)."""
    q0, r0, a0 = np.array([0.3, -0.4, 1.1]), np.array([0.5, -0.7, 0.2]), np.array([-1.0, 2.0, 0.5])

    def omega(t):
        h = 1e-6
        qt = lambda s: q0 + r0 * s + 0.5 * a0 * s * s  # noqa: E731
        return vee(rotation(qt(t)).T @ (rotation(qt(t + h)) - rotation(qt(t - h))) / (2 * h))

    h = 1e-4
    w, alpha = omega(0.0), (omega(h) - omega(-h)) / (2 * h)
    assert np.allclose(euler_rate_matrix(q0[0], q0[1]) @ r0, w, atol=1e-8)
    assert np.allclose(euler_rates(q0, w), r0, atol=1e-8)
    assert np.allclose(euler_accelerations(q0, r0, alpha), a0, atol=1e-4)


def test_closed_form_inverse_of_the_euler_rate_matrix():
    rng = np.random.default_rng(2)
    for roll, pitch in rng.uniform(-1.3, 1.3, size=(20, 2)):
        assert np.allclose(euler_rate_matrix_inverse(roll, pitch) @ euler_rate_matrix(roll, pitch), np.eye(3),
                           rtol=0, atol=1e-12)


def hold_inputs(q):
    """Set-points at the pose and joint torques equal to the crane's gravity torques (hand-written potential)."""
    return np.concatenate((q[3:], gradient(potential, q)[3:]))


@pytest.mark.parametrize("q", [np.array([0.0, 0.0, 0.0, 0.3, 0.5, -0.9]),
                               np.array([0.1, -0.05, 0.3, 2.0, 0.1, 0.4])])
def test_crane_at_rest_on_a_base_at_rest_loads_the_vessel_with_its_weight(models, q):
    """Statics: crane held at rest, base at rest (level and tilted): no acceleration, the crane pushes the
    vessel down with 90 kg · g (Frame 0) and with the moment of its weight about the crane base; the
    moment about z2 is the holding slewing torque. Round-off of ~1e3 N·m sums and the 5-point gradient
    of V (~3e-8 N·m): 1e-6."""
    _, crane, _ = models
    motion = np.concatenate((q[:3], np.zeros(9)))
    xdot, out = evaluate(crane, np.concatenate((q[3:], np.zeros(3))), crane_inputs(hold_inputs(q), motion))
    assert np.abs(xdot[3:]).max() < 1e-8  # over joint inertias ≥ ~5 kg·m²
    frames, _ = fk(q)
    R1, o2 = frames["vessel"][0], frames["king"][1]
    force = R1 @ np.array([out[f"interface_force_{a}"] for a in "xyz"])
    assert np.allclose(force, [0.0, 0.0, -CRANE_WEIGHT], atol=1e-6)
    moment = R1 @ np.array([out[f"interface_moment_{a}"] for a in "xyz"])
    weight_moment = sum(np.cross(frames[b][2] - o2, MASS[b] * np.array([0.0, 0.0, -G])) for b in CRANE)
    assert np.allclose(moment, weight_moment, atol=1e-6)


@pytest.mark.parametrize("acc", [np.array([0.0, 0.0, 4.0]), np.array([3.0, 0.0, 0.0]), np.array([0.0, -2.5, 0.0])])
@pytest.mark.parametrize("q,u,inputs", STATES[:2])
def test_base_acceleration_acts_as_gravity(models, q, u, inputs, acc):
    """Equivalence principle: a level base accelerating with ``a`` (prismatic route) is, for the crane, a
    base at rest under gravity ``g_eff = g − a``, realised with ``|g_eff|`` and a base tilted so that
    ``R_1ᵀ (0, 0, −|g_eff|) = (0, 0, −g) − a`` (Euler-angle route). Crane accelerations and the wrench in
    Frame 1 agree to round-off (1e-10 of the largest entry)."""
    _, crane, _ = models
    x = np.concatenate((q[3:], u[3:]))
    xdot_a, out_a = evaluate(crane, x, crane_inputs(inputs, np.zeros(9), acc))
    g_eff = np.array([0.0, 0.0, -G]) - acc
    norm = float(np.linalg.norm(g_eff))
    d = -g_eff / norm  # the base's z axis in its own coordinates must see gravity along -z: R_1 d = e_z
    pitch = math.asin(-d[0])  # R_y(p) R_x(r) maps d to e_z: solve roll then pitch from d
    roll = math.atan2(d[1], d[2])
    assert np.allclose((Ry(pitch) @ Rx(roll)).T @ [0, 0, -norm], g_eff, atol=1e-12)
    tilted = CraneOnMovingBaseModel(CraneOnMovingBaseParameters(g=norm), crane.controller)
    xdot_g, out_g = evaluate(tilted, x, crane_inputs(inputs, [roll, pitch, 0.0], np.zeros(9)))
    assert np.allclose(xdot_a, xdot_g, rtol=0, atol=1e-10 * np.abs(xdot_g).max())
    names = [n for n, _, _ in WRENCH]
    a, b = np.array([out_a[n] for n in names]), np.array([out_g[n] for n in names])
    assert np.allclose(a, b, rtol=0, atol=1e-10 * np.abs(b).max())


def test_vessel_carrying_the_crane_weight_through_its_centre_stays_upright(models):
    """The crane's weight at the crane base acts along the roll/pitch centre line of the upright vessel:
    no generalized force, the vessel at q = 0 stays at rest, and its base point does not accelerate."""
    _, _, vessel = models
    xdot, out = evaluate(vessel, np.zeros(6), [0.0, 0.0, -CRANE_WEIGHT, 0.0, 0.0, 0.0])
    assert np.abs(xdot).max() < 1e-12
    assert all(abs(out[f"base_acceleration_{a}"]) < 1e-12 for a in "xyz")


def test_vessel_moment_input_gives_the_static_heel_of_the_cubic_spring(models):
    """A roll moment M at the crane base holds the vessel where k q³ + m1 g d1 sin q = M (spring and
    righting moment of the COG d1 below the rotation centre, §III-D): at that heel ``u̇ = 0``."""
    _, _, vessel = models
    p = vessel.params
    q = 0.05
    moment = p.k1 * q ** 3 + p.m1 * p.g * p.d1 * math.sin(q)
    xdot, _ = evaluate(vessel, [q, 0, 0, 0, 0, 0], [0, 0, 0, moment, 0, 0])
    assert np.abs(xdot[3:]).max() < 1e-10 * moment
    xdot, _ = evaluate(vessel, [q, 0, 0, 0, 0, 0], [0, 0, 0, 1.01 * moment, 0, 0])
    assert xdot[3] > 1e-4  # 1 % more moment heels it further: the check can fail


def test_step_mean_wrench_is_the_impulse_over_the_last_step_divided_by_the_step():
    """``mean_wrench_outputs``: the crane integrates its wrench on the vessel along its own steps. Expected: a
    tight DOP853 solution of the same crane without the quadrature states, its instantaneous wrench
    integrated over the step by 8-point Gauss-Legendre (exact to far below the steppers' tolerances on a
    smooth 10 ms arc). A set-point jump makes the wrench change by ~100 N within the step, so the mean
    differs clearly from either end value; the tolerance 1e-6 of the weight covers both integrators at
    rtol 1e-10. The second step's mean is over that step only (the integrals restart)."""
    from scipy.integrate import solve_ivp

    from crane_models.integration.cosimulation import CoSimulation

    plain, meaned = CraneOnMovingBaseModel(inertia_outputs=False), CraneOnMovingBaseModel(inertia_outputs=False,
                                                                                           mean_wrench_outputs=True)
    motion = np.array([0.02, -0.01, 0.1, 0.05, -0.03, 0.02, 0.3, -0.2, 0.1, 0.4, -0.5, 0.2])
    inputs = crane_inputs(np.array([0.3, 1.2, -0.4, 0.0, 0.0, 0.0]), motion)
    x0 = np.array([0.0, 1.0, -0.2, 0.1, 0.0, 0.0])
    sim = CoSimulation(meaned, np.concatenate((x0, np.zeros(meaned.state_size - 6))), inputs=inputs, rtol=1e-10,
                       atol=1e-12)
    names = [f"interface_{k}_mean_{a}" for k in ("force", "moment") for a in "xyz"]
    wrench_names = [n for n, _, _ in WRENCH]
    nodes, weights = np.polynomial.legendre.leggauss(8)
    x = x0
    for h in (0.01, 0.02):
        t0 = sim.t
        sim.step(h)
        got = np.array([sim.outputs()[n] for n in names])
        sol = solve_ivp(lambda t, y: plain.derivative(t, y, inputs)[0], (t0, t0 + h), x, method="DOP853",
                        rtol=1e-12, atol=1e-12, dense_output=True)
        mean = np.zeros(6)
        for node, weight in zip(nodes, weights):
            y = sol.sol(t0 + h * (node + 1.0) / 2.0)
            mean += weight / 2.0 * np.array([evaluate(plain, y, inputs)[1][n] for n in wrench_names])
        assert np.allclose(got, mean, rtol=0, atol=1e-6 * CRANE_WEIGHT), (got, mean)
        ends = np.array([[evaluate(plain, y, inputs)[1][n] for n in wrench_names] for y in (x, sol.y[:, -1])])
        assert np.abs(mean - ends).max() > 1.0  # the mean is neither end value: the check can fail
        x = sol.y[:, -1]
        assert np.allclose(sim.x[:6], x, rtol=0, atol=1e-8)  # the quadrature does not disturb the crane


def test_step_mean_quadrature_leaves_the_cranes_steps_alone():
    """The quadrature states of the step-mean wrench feed nothing back and are left out of the error control:
    with the FMU's own tolerances the crane takes the same internal steps with them as without (watched,
    they took 161 steps instead of 137 on this run: the PD loop's fast wrench transients) and reaches the
    same state to round-off."""
    from crane_models.integration.cosimulation import CoSimulation

    motion = np.array([0.02, -0.01, 0.1, 0.05, -0.03, 0.02, 0.3, -0.2, 0.1, 0.4, -0.5, 0.2])
    x0 = np.array([0.0, 1.0, -0.2, 0.1, 0.0, 0.0])
    runs = []
    for mean in (False, True):
        model = CraneOnMovingBaseModel(inertia_outputs=False, mean_wrench_outputs=mean)
        sim = CoSimulation(model, np.concatenate((x0, np.zeros(model.state_size - 6))), rtol=1e-5, atol=3e-6,
                           stepper="dopri5", inputs=crane_inputs(np.zeros(6), motion))
        for k in range(50):  # set-point steps every 10 ms: the crane's PD response inside each step
            sim.set_inputs(crane_inputs(np.array([0.3, 1.0 + 0.3 * math.sin(0.05 * k), -0.4, 0.0, 0.0, 0.0]),
                                        motion))
            sim.step(0.01)
        runs.append((sim.x[:6].copy(), sim.stepper.stats["accepted"]))
    assert runs[0][1] == runs[1][1], runs
    assert np.allclose(runs[0][0], runs[1][0], rtol=0, atol=1e-12)
