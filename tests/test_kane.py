"""Kane's equations with projection matrices (§2.3, §3.2): P, Ṗ, M, C, τ against independent computations.

Reference values come from the hand-written forward kinematics in physics_reference.py (finite differences in time
and in q), from Lagrange's equations, and from the closed-form two-link arm.
"""
import math

import numpy as np
import pytest

from crane_models.core.kane import Body, MultibodySystem
from crane_models.core.twists import twists_by_screw_transformations
from physics_reference import BODY_ORDER, STATES, crane_fk, crane_inertias, crane_masses, make_crane, vee


@pytest.fixture(scope="module")
def crane():
    return make_crane()


def fd_along(fun, q, u, h):
    """Central difference of fun(q + s u) at s = 0."""
    return (fun(q + h * u) - fun(q - h * u)) / (2.0 * h)


def M_of(system, q):
    return system.mass_matrix(system.kinematics(q, np.zeros_like(q)))


# -- mass matrix -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("q,u", STATES)
def test_mass_matrix_symmetric_positive_definite(crane, q, u):
    s = crane.system
    M = s.mass_matrix(s.kinematics(q, u))
    assert np.allclose(M, M.T, rtol=1e-13, atol=1e-13 * np.abs(M).max())  # einsum round-off
    eig = np.linalg.eigvalsh(0.5 * (M + M.T))
    assert eig.min() > 0.0
    # Also the kinetic energy is positive for any nonzero speed.
    assert u @ M @ u > 0.0


@pytest.mark.parametrize("q,u", STATES)
def test_mass_matrix_from_independent_jacobians(crane, q, u):
    """M = Σ m_i J_viᵀ J_vi + J_ωiᵀ I_i J_ωi with J from finite differences of the hand-written kinematics."""
    s = crane.system
    M = s.mass_matrix(s.kinematics(q, u))
    masses, inertias = crane_masses(), crane_inertias()
    h = 1e-6  # central differences of positions O(10 m): truncation ~1e-11, round-off ~1e-9 relative to 1
    Jv = np.zeros((7, 3, 3))
    Jw = np.zeros((7, 3, 3))
    fk0 = crane_fk(q)
    for j in range(3):
        dq = np.zeros(3)
        dq[j] = h
        fp, fm = crane_fk(q + dq), crane_fk(q - dq)
        for i, b in enumerate(BODY_ORDER):
            Jv[i, :, j] = (fp[b][2] - fm[b][2]) / (2 * h)
            R = fk0[b][0]
            Jw[i, :, j] = vee(R.T @ (fp[b][0] - fm[b][0]) / (2 * h))  # body-frame angular velocity per unit q̇_j
    M_ref = sum(masses[i] * Jv[i].T @ Jv[i] + Jw[i].T @ inertias[i] @ Jw[i] for i in range(7))
    # FD error ~1e-9 relative of the Jacobians -> ~1e-8 relative of M; tolerance 1e-6 of the largest entry.
    assert np.allclose(M, M_ref, rtol=0, atol=1e-6 * np.abs(M_ref).max())


@pytest.mark.parametrize("q,u", STATES)
def test_Mdot_minus_2C_is_skew(crane, q, u):
    s = crane.system
    kin = s.kinematics(q, u)
    C = s.coriolis_matrix(kin)
    # Ṁ from central differences of M(q) along q̇ = u; h = 1e-5: truncation ~h²=1e-10, round-off eps/h ~ 1e-11
    # relative to |M|·|u|.
    Mdot = fd_along(lambda x: M_of(s, x), q, u, 1e-5)
    A = Mdot - 2.0 * C
    scale = np.abs(Mdot).max() + 2.0 * np.abs(C).max()
    assert scale > 0
    assert np.abs(A + A.T).max() < 1e-7 * scale  # ~1000x the FD error estimate
    # The test must be able to fail: the paper's literal W_k D_k form is not skew for these inertias, and an
    # arbitrary C would not be; here check that A is genuinely non-zero (otherwise the test would be vacuous).
    assert np.abs(A).max() > 1e-3 * scale


@pytest.mark.parametrize("q,u", STATES)
def test_coriolis_vector_from_lagrange(crane, q, u):
    """Lagrange: M u̇ + Ṁ u − ½ ∂(uᵀ M u)/∂q = τ, hence C u = Ṁ u − ½ ∂(uᵀ M u)/∂q (independent of C)."""
    s = crane.system
    kin = s.kinematics(q, u)
    Cu = s.coriolis_matrix(kin) @ u
    Mdot = fd_along(lambda x: M_of(s, x), q, u, 1e-5)  # as above: relative error ~1e-10
    dT = np.zeros(3)
    h = 1e-6  # central difference in each q_j: truncation ~1e-12, round-off ~1e-10 relative
    for j in range(3):
        dq = np.zeros(3)
        dq[j] = h
        dT[j] = (u @ M_of(s, q + dq) @ u - u @ M_of(s, q - dq) @ u) / (2 * h)
    expected = Mdot @ u - 0.5 * dT
    scale = np.abs(Mdot).max() * np.abs(u).max()
    assert np.allclose(Cu, expected, rtol=0, atol=1e-7 * scale)  # ~1000x the FD error estimate


# -- twists and projection matrices ------------------------------------------------------------------------
@pytest.mark.parametrize("q,u", STATES)
def test_twists_equal_screw_transformation_chain(crane, q, u):
    """P_k u (Jacobian route) equals the body-by-body chain of eqs. (18)-(25)."""
    s = crane.system
    kin = s.kinematics(q, u)
    chain = twists_by_screw_transformations(s, q, u)
    assert np.allclose(kin.P @ u, chain, rtol=0, atol=1e-12)  # twists O(1): round-off level
    assert np.allclose(kin.twist, chain, rtol=0, atol=1e-12)


@pytest.mark.parametrize("q,u", STATES)
def test_twists_equal_finite_difference_body_velocities(crane, q, u):
    """v = R0ᵀ d(cog)/dt and ω̂ = R0ᵀ Ṙ0 from the hand-written kinematics differenced along q(t) = q + u t."""
    s = crane.system
    kin = s.kinematics(q, u)
    h = 1e-6  # central difference in time: truncation ~1e-12, round-off 10 m * eps / h ~ 1e-9 m/s
    fp, fm, f0 = crane_fk(q + h * u), crane_fk(q - h * u), crane_fk(q)
    for i, b in enumerate(BODY_ORDER):
        R = f0[b][0]
        v_ref = R.T @ (fp[b][2] - fm[b][2]) / (2 * h)
        w_ref = vee(R.T @ (fp[b][0] - fm[b][0]) / (2 * h))
        t = kin.P[i] @ u
        assert np.allclose(t[:3], w_ref, rtol=0, atol=1e-7), b  # 100x the FD error estimate
        assert np.allclose(t[3:], v_ref, rtol=0, atol=1e-7), b


@pytest.mark.parametrize("q,u", STATES)
def test_Pdot_equals_finite_difference_of_P(crane, q, u):
    s = crane.system
    kin = s.kinematics(q, u)
    # P depends on q only; h = 1e-5: truncation ~1e-10, round-off ~1e-11 for entries O(10).
    Pd_ref = fd_along(lambda x: s.kinematics(x, u).P, q, u, 1e-5)
    assert np.abs(Pd_ref).max() > 1e-3  # not vacuous
    assert np.allclose(kin.Pdot, Pd_ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize("q,u", STATES)
def test_body_accelerations_from_second_differences(crane, q, u):
    """ṫ = P u̇ + Ṗ u (27) equals the second time derivative along q(t) = q + u t + ½ u̇ t² (any u̇)."""
    s = crane.system
    kin = s.kinematics(q, u)
    udot = np.array([0.05, -0.03, 0.04])
    tdot = s.body_accelerations(kin, udot)
    h = 1e-4  # 2nd central difference: truncation ~h²=1e-8, round-off 10 m * eps / h² ~ 2e-7 m/s²
    path = lambda t: q + u * t + 0.5 * udot * t * t
    fp, fm, f0 = crane_fk(path(h)), crane_fk(path(-h)), crane_fk(path(0.0))
    for i, b in enumerate(BODY_ORDER):
        R = f0[b][0]
        a_world = (fp[b][2] - 2 * f0[b][2] + fm[b][2]) / h**2
        t = kin.P[i] @ u
        # Body-coordinate twist rate: v̇ = R0ᵀ a − ω × v.
        v_dot_ref = R.T @ a_world - np.cross(t[:3], t[3:])
        assert np.allclose(tdot[i, 3:], v_dot_ref, rtol=0, atol=1e-5), b  # ~50x the FD error estimate
        # ω̇ (body coordinates): derivative of the FD body angular velocity.
        w = lambda tt: vee(crane_fk(path(tt))[b][0].T @ (crane_fk(path(tt + 1e-6))[b][0]
                                                         - crane_fk(path(tt - 1e-6))[b][0]) / 2e-6)
        w_dot_ref = (w(h) - w(-h)) / (2 * h)  # inner FD error ~1e-9 / h -> ~1e-5 rad/s²
        assert np.allclose(tdot[i, :3], w_dot_ref, rtol=0, atol=1e-4), b


# -- textbook two-link arm ----------------------------------------------------------------------------------
ARM = dict(m1=3.0, m2=2.0, l1=1.2, lc1=0.5, lc2=0.4, I1=0.35, I2=0.12, g=9.81)


def two_link_system(a=ARM):
    """Planar arm in the vertical y-z plane: both joints about x, links along y at q = 0 (gravity along −z)."""
    Ib = lambda I: np.diag([I, 0.7 * I, 0.3 * I])  # only the x entry enters the planar motion
    bodies = [
        Body("link1", None, "revolute", (1.0, 0.0, 0.0), (0, 0, 0), 0, mass=a["m1"], inertia=Ib(a["I1"]),
             com=(0.0, a["lc1"], 0.0)),
        Body("link2", "link1", "revolute", (1.0, 0.0, 0.0), (0.0, a["l1"], 0.0), 1, mass=a["m2"],
             inertia=Ib(a["I2"]), com=(0.0, a["lc2"], 0.0)),
    ]
    return MultibodySystem(bodies, 2)


ARM_STATES = [(np.array([0.3, -0.9]), np.array([1.1, -0.7])), (np.array([-2.0, 2.4]), np.array([-0.4, 1.5])),
              (np.array([1.2, 0.0]), np.array([0.8, 0.6]))]


@pytest.mark.parametrize("q,u", ARM_STATES)
def test_two_link_arm_closed_form(q, u):
    """Spong/Siciliano two-link arm: M, C u and gravity torques in closed form."""
    a = ARM
    s = two_link_system()
    kin = s.kinematics(q, u)
    m1, m2, l1, lc1, lc2, I1, I2, g = (a[k] for k in ("m1", "m2", "l1", "lc1", "lc2", "I1", "I2", "g"))
    c2, s2 = math.cos(q[1]), math.sin(q[1])
    M_ref = np.array([
        [I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2), I2 + m2 * (lc2**2 + l1 * lc2 * c2)],
        [I2 + m2 * (lc2**2 + l1 * lc2 * c2), I2 + m2 * lc2**2],
    ])
    hh = -m2 * l1 * lc2 * s2
    Cu_ref = np.array([hh * (2 * u[0] * u[1] + u[1] ** 2), -hh * u[0] ** 2])
    # Gravity torques (angles measured from the horizontal y axis, upwards positive): τ_g = −∂V/∂q.
    c1, c12 = math.cos(q[0]), math.cos(q[0] + q[1])
    tau_g_ref = -np.array([(m1 * lc1 + m2 * l1) * g * c1 + m2 * lc2 * g * c12, m2 * lc2 * g * c12])
    M = s.mass_matrix(kin)
    Cu = s.coriolis_matrix(kin) @ u
    tau_g = s.generalized_forces(kin, s.gravity_wrenches(kin, g))
    # Closed forms vs code: both exact; round-off ~1e-15 relative.
    assert np.allclose(M, M_ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(Cu, Cu_ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(tau_g, tau_g_ref, rtol=1e-12, atol=1e-12)
    # Kinetic / potential energy helpers.
    assert math.isclose(s.kinetic_energy(kin), 0.5 * u @ M_ref @ u, rel_tol=1e-12)
    V_ref = g * (m1 * lc1 * math.sin(q[0]) + m2 * (l1 * math.sin(q[0]) + lc2 * math.sin(q[0] + q[1])))
    assert math.isclose(s.potential_energy(kin, g), V_ref, rel_tol=1e-12, abs_tol=1e-12)


def test_prismatic_arm_closed_form():
    """Revolute–prismatic (polar) arm in the horizontal plane: M = diag(I1 + I2 + m2 r², m2), C u = [2 m2 r ṙ θ̇,
    −m2 r θ̇²] with r = q2 + c the distance of the slider COG from the axis."""
    m1, m2, I1, I2, c = 4.0, 1.5, 0.3, 0.05, 0.25
    bodies = [
        Body("base", None, "revolute", (0, 0, 1), (0, 0, 0), 0, mass=m1, inertia=np.diag([1.0, 1.0, I1])),
        Body("slider", "base", "prismatic", (1, 0, 0), (0, 0, 0), 1, mass=m2, inertia=np.diag([0.1, 0.1, I2]),
             com=(c, 0.0, 0.0)),
    ]
    s = MultibodySystem(bodies, 2)
    for q, u in [(np.array([0.4, 0.8]), np.array([1.3, -0.6])), (np.array([-1.0, 0.1]), np.array([-0.5, 2.0]))]:
        kin = s.kinematics(q, u)
        r = q[1] + c
        assert np.allclose(s.mass_matrix(kin), np.diag([I1 + I2 + m2 * r * r, m2]), rtol=1e-12, atol=1e-12)
        assert np.allclose(s.coriolis_matrix(kin) @ u, [2 * m2 * r * u[1] * u[0], -m2 * r * u[0] ** 2],
                           rtol=1e-12, atol=1e-12)
        # Horizontal plane: gravity does no work on either coordinate.
        assert np.allclose(s.generalized_forces(kin, s.gravity_wrenches(kin, 9.81)), 0.0, atol=1e-12)


@pytest.mark.parametrize("q,u", STATES)
def test_gravity_generalized_forces_are_minus_gradient_of_potential(crane, q, u):
    """τ_g (46) with the weights of (67)-(68) equals −∂V/∂q, V = g Σ m z_cog from the hand-written kinematics."""
    s = crane.system
    kin = s.kinematics(q, u)
    g = crane.params.g
    tau_g = crane.gravity_forces(kin)
    masses = crane_masses()
    V = lambda x: g * masses @ np.array([crane_fk(x)[b][2][2] for b in BODY_ORDER])
    h = 1e-6  # central difference of V ~ 1e6 J: truncation ~1e-6 N, round-off ~eps*V/h ~ 1e-4 N
    grad = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.allclose(tau_g, -grad, rtol=1e-7, atol=1e-2)  # 100x the round-off estimate
    assert math.isclose(s.potential_energy(kin, g), V(q), rel_tol=1e-12)
