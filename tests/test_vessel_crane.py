"""Vessel crane of section III and constraint forces by auxiliary generalized speeds (§II-C, §III-C).

Expected values come from vessel_reference.py (forward kinematics written from (53)-(56) and Table I,
potential energy, Newton-Euler sums over the crane bodies), from the knuckle boom paper's reaction sums
(:class:`ReactionSolver`, a different algorithm in the core) and from a crane on a fixed base.
"""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, fsolve

from crane_models.core.constraint_forces import AuxiliarySpeeds, ConstraintCut, joint_effort_wrenches
from crane_models.core.kane import MultibodySystem
from crane_models.core.reactions import ReactionSolver
from crane_models.models.vessel_crane.scenarios import vessel_crane_hoisting
from crane_models.integration.scenario import Scenario, smoothstep
from crane_models.models.vessel_crane.crane import (VesselCraneModel, VesselCraneParameters, VesselCraneController,
                                       crane_bodies)
from vessel_reference import (CRANE, G, gradient, K_SPRING, L4, MASS, TABLE_I, crane_newton_euler, euler_axes, fk,
                              gravity_moment_about_origin, potential)

CRANE_WEIGHT = 90.0 * G  # Table I: 3 × 30 kg
RNG = np.random.default_rng(20240702)
STATES = [(np.concatenate((RNG.uniform(-0.1, 0.1, 3), RNG.uniform(-2.0, 2.0, 3))), RNG.uniform(-0.5, 0.5, 6))
          for _ in range(3)]


@pytest.fixture(scope="module")
def model():
    return VesselCraneModel()


def outputs_at(model, x, inputs):
    xdot, aux = model.derivative(0.0, x, inputs)
    return xdot, model.outputs(0.0, x, inputs, aux)


def interface(out, prefix="interface"):
    n = np.array([out[f"{prefix}_moment_{a}"] for a in "xy"] + [0.0])
    f = np.array([out[f"{prefix}_force_{a}"] for a in "xyz"])
    return n, f


def test_parameters_are_table_1(model):
    p = model.crane.params
    for k, v in TABLE_I.items():
        assert getattr(p, k) == v, k
    assert (p.l4, p.k1, p.k2, p.k3) == (L4, K_SPRING, K_SPRING, K_SPRING)


@pytest.mark.parametrize("q,u", STATES)
def test_kinematics_follow_rotations_53_to_56(model, q, u):
    """Rotations, COGs and tip against the hand-written (53)-(56); exact up to round-off."""
    kin = model.crane.system.kinematics(q, u)
    frames, tip = fk(q)
    for b in frames:
        i = model.crane.system.index[b]
        assert np.allclose(kin.rotation[i], frames[b][0], atol=1e-12)
        assert np.allclose(kin.cog[i], frames[b][2], atol=1e-12)
    assert np.allclose(model.crane.tip_position(kin), tip, atol=1e-12)


@pytest.mark.parametrize("q,u", STATES)
def test_joint_efforts_do_virtual_work(model, q, u):
    """A torque pair in each joint (springs in q1-q3, crane torques in q4-q6) has the generalized force
    e_i: the wrenches and the shortcut τ = e of VesselCrane.evaluate agree (round-off)."""
    s = model.crane.system
    kin = s.kinematics(q, u)
    e = np.array([3.0e3, -2.0e3, 1.0e3, 5.0e2, -7.0e2, 2.0e2])
    tau = s.generalized_forces(kin, model.crane.effort_wrenches(kin, e))
    assert np.allclose(tau, e, rtol=0, atol=1e-9 * np.abs(e).max())


@pytest.mark.parametrize("q,u", STATES)
def test_gravity_forces_are_minus_gradient_of_potential(model, q, u):
    """τ_g + spring torques = −∂V/∂q with V from the hand-written kinematics (5-point differences:
    error ~1e-11 relative; tolerance 1e-8 of the largest entry)."""
    s = model.crane.system
    kin = s.kinematics(q, u)
    tau = s.generalized_forces(kin, s.gravity_wrenches(kin, G))
    tau[:3] += model.crane.spring_torques(q)
    grad = gradient(potential, q)
    assert np.allclose(tau, -grad, rtol=0, atol=1e-8 * np.abs(grad).max())


@pytest.mark.parametrize("q,u", STATES)
@pytest.mark.parametrize("cut", [
    ConstraintCut("king", ("rx", "ry", "tx", "ty", "tz")),  # eq. (67)
    ConstraintCut("boom", ("tz", "rx", "tx", "ry", "ty")),  # another joint, other order
    ConstraintCut("outer_boom", ((0, 0, 0, 1, 1, 0), (0, 0, 0, 1, -1, 0), "tz", (1, 1, 0, 0, 0, 0), "ry")),
])
def test_auxiliary_speeds_equal_reaction_sums(model, q, u, cut):
    """ρ of (50) for any joint and any independent set of directions reproduces the reaction wrench of
    the knuckle boom paper's eq. (56) (sums of transported total wrenches, a different algorithm):
    Σ_i ρ_i s_i is its projection onto the span of the s_i. Round-off only: 1e-9 of the largest entry."""
    s = model.crane.system
    kin = s.kinematics(q, u)
    e = np.concatenate((model.crane.spring_torques(q), [400.0, -900.0, 250.0]))
    udot, _ = model.crane.evaluate(kin, e)
    wrenches = model.crane.applied_wrenches(kin, e)
    aux = AuxiliarySpeeds(s, cut)
    rho = aux.magnitudes(kin, udot, wrenches)
    rs = ReactionSolver(s)
    reaction = rs.joint_reactions(kin, rs.total_wrenches(kin, wrenches, udot), [])[s.index[cut.body]]
    flipped = np.concatenate((reaction[3:], reaction[:3]))  # [n; f]
    S = cut.matrix()
    expected = np.linalg.solve(S.T @ S, S.T @ flipped)
    assert np.allclose(rho, expected, rtol=0, atol=1e-9 * np.abs(flipped).max())


def test_auxiliary_partial_velocities_are_rigid_motion_of_the_outboard_bodies(model):
    """P̃_k u_c (42) is the velocity of body k when the outboard subtree moves rigidly with the twist
    S u_c at the cut origin: check against finite differences of the hand-written kinematics, moving the
    crane by a small rigid rotation/translation at the king base (central differences, h = 1e-6)."""
    q = STATES[0][0]
    s = model.crane.system
    kin = s.kinematics(q, np.zeros(6))
    aux = model.crane.interface
    partials = aux.partial_velocities(kin)
    frames, _ = fk(q)
    R2, o2 = frames["king"][0], frames["king"][1]
    h = 1e-6
    for j in range(5):
        tw = aux.S[:, j]
        w0, v0 = R2 @ tw[:3], R2 @ tw[3:]  # Frame 0, at o2
        for i, b in enumerate(CRANE):
            c = frames[b][2]
            moved = []
            for sgn in (1, -1):
                ang = sgn * h * w0
                rot = _rotation(ang)
                moved.append(o2 + sgn * h * v0 + rot @ (c - o2))
            v_c = (moved[0] - moved[1]) / (2 * h)
            Rb = frames[b][0]
            assert np.allclose(partials[i][:3, j], Rb.T @ w0, atol=1e-12)
            assert np.allclose(partials[i][3:, j], Rb.T @ v_c, atol=1e-8)


def _rotation(v):
    """Rotation by the vector ``v`` (Rodrigues)."""
    a = np.linalg.norm(v)
    if a == 0.0:
        return np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / a
    return np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k


def static_vessel_angles(q_crane):
    """Roll and pitch where k q³ equals the total gravity moment about the rotation centre along the roll
    and pitch axes (yaw: no gravity moment, q3 = 0). Solved with the hand-written kinematics."""
    def residual(v):
        q = np.concatenate((v, [0.0], q_crane))
        m = gravity_moment_about_origin(q)
        x1, y, _ = euler_axes(q)
        return [K_SPRING * v[0] ** 3 - m @ x1, K_SPRING * v[1] ** 3 - m @ y]
    sol, info, ok, msg = fsolve(residual, [0.01, 0.01], xtol=1e-14, full_output=True)
    assert ok == 1, msg
    return np.concatenate((sol, [0.0]))


@pytest.mark.parametrize("q_crane", [np.array([0.3, 0.5, -0.9]), np.array([2.0, 0.1, 0.4])])
def test_statics_on_a_vessel_in_equilibrium(model, q_crane):
    """Crane held at rest (set-point = pose, joint torques = its gravity torques from the hand-written
    potential) on the vessel at the angles where k q³ = gravity moment: the model stays at rest, the
    vessel carries the crane's weight 90 kg · g and holds its gravity moment about the interface."""
    qv = static_vessel_angles(q_crane)
    q = np.concatenate((qv, q_crane))
    hold = gradient(potential, q)[3:]
    x = np.concatenate((q, np.zeros(6)))
    xdot, out = outputs_at(model, x, np.concatenate((q_crane, hold)))
    # The static angles came from an independent equation: any error shows as an acceleration. The
    # 5-point gradient of V (~3e4 J) has round-off ~3e-8 N·m; over inertias ≥ ~5 kg·m²: |u̇| < 1e-8.
    assert np.abs(xdot[6:]).max() < 1e-8
    frames, _ = fk(q)
    R1, R2, o2 = frames["vessel"][0], frames["king"][0], frames["king"][1]
    weight = np.array([0.0, 0.0, CRANE_WEIGHT])  # the vessel pushes the crane up
    held = -sum(np.cross(frames[b][2] - o2, MASS[b] * np.array([0.0, 0.0, -G])) for b in CRANE)
    n2, f2 = interface(out)
    n1, f1 = interface(out, "interface_f1")
    # Round-off of ~1e3 N·m sums and the 1e-9 residual of fsolve: 1e-6 N, N·m.
    assert np.linalg.norm(R2 @ f2) == pytest.approx(CRANE_WEIGHT, abs=1e-6)
    assert np.allclose(R2 @ f2, weight, atol=1e-6)
    assert np.allclose(R1 @ f1, weight, atol=1e-6)
    assert np.allclose(n2[:2], (R2.T @ held)[:2], atol=1e-6)
    assert np.allclose(n1[:2], (R1.T @ held)[:2], atol=1e-6)
    assert out["applied_joint4_torque"] == pytest.approx((R2.T @ held)[2], abs=1e-6)


def test_vessel_level_when_crane_weight_is_over_the_rotation_centre(model):
    """Booms straight up (q5 = π/2, q6 = 0): all COGs on the vertical through the rotation centre, no
    gravity moment, the vessel is in equilibrium upright and interface_force_z is exactly 90 kg · g."""
    q = np.array([0.0, 0.0, 0.0, 0.7, math.pi / 2, 0.0])
    hold = gradient(potential, q)[3:]
    xdot, out = outputs_at(model, np.concatenate((q, np.zeros(6))), np.concatenate((q[3:], hold)))
    assert np.abs(xdot[6:]).max() < 1e-8  # as above
    assert out["interface_force_z"] == pytest.approx(CRANE_WEIGHT, abs=1e-9)
    for name in ("interface_force_x", "interface_force_y", "interface_moment_x", "interface_moment_y"):
        assert abs(out[name]) < 1e-9, name


@pytest.fixture(scope="module")
def trajectory(model):
    """The compressed hoisting sequence (4 s) with smooth set-points, DOP853 at rtol 1e-11, dense."""
    sc = vessel_crane_hoisting(4.0)
    x0 = np.concatenate((np.zeros(3), sc.inputs_at(0.0)[:3], np.zeros(6)))
    sol = solve_ivp(lambda t, x: model.derivative(t, x, sc.inputs_at(t))[0], (0.0, 2.0), x0, method="DOP853",
                    rtol=1e-11, atol=1e-12, dense_output=True)
    assert sol.success
    return sc, sol


@pytest.mark.parametrize("t", [0.35, 0.9, 1.45, 1.8])
def test_constraint_forces_equal_newton_euler_resultant_on_the_crane(model, trajectory, t):
    """Along a dynamic trajectory: ρ = what the vessel must supply for the crane's motion,
    F = Σ m_i (a_i − g), N = Σ (c_i − o2) × m_i (a_i − g) + Ḣ_i about the crane base; the moment about z2
    is the slewing torque. Accelerations by central differences of the hand-written kinematics along the
    dense solution (h = 1e-3 s: truncation ~1e-6 relative; dense-output error 1e-11 / h² ~ 1e-5 m/s²):
    tolerance 1e-4 of the weight scale (0.09 N, 0.09 N·m for ~1 m arms)."""
    sc, sol = trajectory
    x = sol.sol(t)
    _, out = outputs_at(model, x, sc.inputs_at(t))
    force, moment, R2, R1 = crane_newton_euler(lambda s: sol.sol(s)[:6], t)
    n2, f2 = interface(out)
    n1, f1 = interface(out, "interface_f1")
    tol = 1e-4 * CRANE_WEIGHT
    assert np.allclose(f2, R2.T @ force, atol=tol)
    assert np.allclose(n2[:2], (R2.T @ moment)[:2], atol=tol)
    assert out["applied_joint4_torque"] == pytest.approx((R2.T @ moment)[2], abs=tol)
    assert np.allclose(f1, R1.T @ force, atol=tol)
    assert np.allclose(n1[:2], (R1.T @ moment)[:2], atol=tol)
    # Not a trivial check: the dynamic part is large at these times.
    assert np.linalg.norm(force - [0.0, 0.0, CRANE_WEIGHT]) > 100 * tol


def fixed_base_run(p: VesselCraneParameters, ctrl: VesselCraneController, sc, times, q0):
    """The same crane (same Body data, eqs. (54)-(56), (73)) on a fixed base, same PD (63); reactions
    in the king joint by the reaction sums of eq. (56)."""
    s = MultibodySystem(crane_bodies(p, base=None, first=0), 3)
    rs = ReactionSolver(s)
    kp, kd = ctrl.kp, ctrl.kd

    def accel(x, t):
        kin = s.kinematics(x[:3], x[3:])
        effort = kp * (sc.inputs_at(t)[:3] - x[:3]) - kd * x[3:]
        w = s.gravity_wrenches(kin, p.g) + joint_effort_wrenches(s, kin, effort)
        udot, _, _ = s.accelerations(kin, s.generalized_forces(kin, w))
        return kin, udot, w

    sol = solve_ivp(lambda t, x: np.concatenate((x[3:], accel(x, t)[1])), (0, times[-1]), np.concatenate((q0, np.zeros(3))),
                    method="DOP853", rtol=1e-10, atol=1e-10, t_eval=times)
    out = []
    for t, x in zip(times, sol.y.T):
        kin, udot, w = accel(x, t)
        r = rs.joint_reactions(kin, rs.total_wrenches(kin, w, udot), [])[0]
        out.append(np.concatenate((x[:3], r[3:5], r[:3])))  # q4-q6, n_x, n_y, f_x, f_y, f_z (Frame 2)
    return np.array(out)


def rest_state(model, inputs):
    """The vessel and the PD-held crane at rest (the crane sags under gravity). Yaw carries no load at
    rest, q3 = 0; roll, pitch and the crane angles by Newton on u̇ = 0, continued from the paper's k in
    steps of 100 with the guess scaled by the cubic law q ∝ k^(-1/3) (a cubic spring has no stiffness
    at q = 0, where a plain Newton start would stall)."""
    p = model.crane.params
    v = np.concatenate((np.zeros(2), inputs[:3]))
    k = 8.0e7
    while True:
        kk = min(k, p.k1)
        trial = VesselCraneModel(VesselCraneParameters(k1=kk, k2=kk, k3=kk), model.controller)

        def residual(w):
            x = np.concatenate((w[:2], [0.0], w[2:], np.zeros(6)))
            return np.delete(trial.derivative(0.0, x, inputs)[0][6:], 2)
        v, _, ok, msg = fsolve(residual, v, xtol=1e-13, full_output=True)
        assert ok == 1, msg
        if kk == p.k1:
            return np.concatenate((v[:2], [0.0], v[2:]))
        v[:2] *= (kk / min(100.0 * kk, p.k1)) ** (1.0 / 3.0)
        k = 100.0 * kk


def vessel_run(k: float, sc, times):
    p = VesselCraneParameters(k1=k, k2=k, k3=k)
    model = VesselCraneModel(p)
    q0 = rest_state(model, sc.inputs_at(0.0))
    sol = solve_ivp(lambda t, x: model.derivative(t, x, sc.inputs_at(t))[0], (0, times[-1]),
                    np.concatenate((q0, np.zeros(6))), method="DOP853", rtol=1e-10, atol=1e-12, t_eval=times)
    names = ["q4", "q5", "q6", "interface_moment_x", "interface_moment_y", "interface_force_x",
             "interface_force_y", "interface_force_z"]
    rows = [[outputs_at(model, x, sc.inputs_at(t))[1][n] for n in names] for t, x in zip(times, sol.y.T)]
    return np.array(rows), p, model.controller, q0[3:]


def test_stiff_vessel_approaches_crane_on_fixed_base():
    """With stiff springs the vessel hardly moves, and crane motion and interface wrench tend to those of
    the same crane on a fixed base. Both start at rest (vessel at its static tilt, crane at its gravity
    sag) and follow the same set-points: a 2 s luff of both booms with the reach kept outboard.

    The heeling moment must not pass through zero: a cubic spring has no stiffness at zero load, so
    there the vessel is soft for any k (found while writing this test: a slew or a load reversal leaves
    deviations of ~10 % that do not shrink with k). Away from zero load the static tilt, hence the
    deviation, scales as k^(-1/3): from k = 8e7 to 8e15 it must drop by more than 100 (464 expected)
    and end below 1 % of each signal's range."""
    sc = Scenario("luff", "VesselCrane", 2.5, [],
                  lambda t: [0.0, smoothstep(t, 0.2, 2.2, 0.0, 0.5), smoothstep(t, 0.2, 2.2, 0.0, -0.5), 0, 0, 0])
    times = np.linspace(0.0, 2.5, 51)
    dev = {}
    for k in (8.0e7, 8.0e15):
        vessel, p, ctrl, q0 = vessel_run(k, sc, times)
        base = fixed_base_run(p, ctrl, sc, times, q0)
        assert base[:, 3].min() > 500.0  # the heeling moment stays well away from zero
        keep = [1, 2, 3, 6, 7]  # q5, q6, n_x, f_y, f_z (q4, n_y, f_x stay zero in this planar motion)
        dev[k] = np.abs(vessel - base).max(axis=0)[keep] / np.ptp(base, axis=0)[keep]
    assert np.all(dev[8.0e15] < 0.01), dev[8.0e15]
    assert np.all(dev[8.0e15] < 0.01 * dev[8.0e7]), (dev[8.0e15], dev[8.0e7])
