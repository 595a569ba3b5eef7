"""Knuckle boom crane of §5: energy balance, statics, dynamic reactions (69)-(74), support matrices (54)-(55).

Expected values come from the hand-written kinematics in physics_reference.py (COG positions, rotations), the masses
and inertias of Tables 1-2 / eq. (66), and Newton-Euler balances of the whole crane or of sub-assemblies.
"""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
from crane_models.core.reactions import equivalent_cylinder_wrenches, support_matrices
from physics_reference import (BODY_ORDER, STATES, TABLE, cog_array, crane_fk, crane_inertias, crane_masses,
                               make_crane, vee)


@pytest.fixture(scope="module")
def crane():
    return make_crane()


G = 9.81
G_VEC = np.array([0.0, 0.0, -G])
MASSES = crane_masses()
INERTIAS = crane_inertias()


def potential(q):
    """V = g Σ m_i z_i from the hand-written kinematics (Table 2 masses)."""
    return G * MASSES @ cog_array(q)[:, 2]


def grad_potential(q, h=1e-6):
    return np.array([(potential(q + h * e) - potential(q - h * e)) / (2 * h) for e in np.eye(3)])


def outputs_at(model, x, inputs):
    xdot, aux = model.derivative(0.0, x, inputs)
    return xdot, model.outputs(0.0, x, inputs, aux)


def wrench(out, name):
    f = np.array([out[f"{name}_force_{a}"] for a in "xyz"])
    n = np.array([out[f"{name}_moment_{a}"] for a in "xyz"]) if f"{name}_moment_x" in out else None
    return f, n


# -- 0. parameters are the paper's tables --------------------------------------------------------------------
def test_parameters_are_tables_1_and_2():
    from crane_models.models.knuckle_boom.crane import KnuckleBoomParameters
    p = KnuckleBoomParameters()
    for k, v in TABLE.items():
        assert getattr(p, k) == v, k
    assert math.isclose(MASSES.sum(), 36000.0)  # Table 2: 10+10+10+2+1+2+1 t


# -- actuator efforts enter as generalized forces (virtual work) ------------------------------------------
@pytest.mark.parametrize("q,u", STATES)
def test_actuator_wrenches_do_virtual_work_T_F2_F3(crane, q, u):
    """T1 about z1 on the king and ±F_k along the cylinder axis on piston/barrel (67)-(68) do the power
    T1 u1 + F2 u2 + F3 u3, so their generalized forces are exactly the efforts."""
    s = crane.system
    kin = s.kinematics(q, u)
    e = np.array([1.3e5, -2.1e5, 4.4e4])
    tau = s.generalized_forces(kin, crane.actuator_wrenches(e))
    assert np.allclose(tau, e, rtol=1e-12, atol=1e-12 * np.abs(e).max())  # exact up to round-off


# -- 8. energy balance without controller ----------------------------------------------------------------------
def test_energy_balance_with_constant_efforts():
    """ΔKE + ΔPE = T Δq1 + F2 Δq2 + F3 Δq3 for constant efforts, controller off (no other non-conservative force)."""
    model = KnuckleBoomModel(controller_enabled=False)
    s = model.crane.system
    q0 = np.array([0.2, 0.9, 0.8])
    bal = grad_potential(q0)  # efforts that balance gravity at q0 (independent of the code)
    efforts = np.array([2.0e4, 1.01 * bal[1], 0.99 * bal[2]])
    inputs = np.concatenate((efforts, np.zeros(3)))
    x0 = np.concatenate((q0, [0.03, 0.0, -0.01]))
    # DOP853 with rtol = atol = 1e-11 keeps the global error of q, u near 1e-10 over 3 s.
    sol = solve_ivp(lambda t, x: model.derivative(t, x, inputs)[0], (0.0, 3.0), x0, method="DOP853",
                    rtol=1e-11, atol=1e-11, dense_output=True)
    assert sol.success
    ts = np.linspace(0.0, 3.0, 31)
    X = sol.sol(ts)
    # The pistons stay inside the stroke range, so the end stops never act.
    assert X[1].min() > 0.0 and X[1].max() < 1.7 and X[2].min() > 0.0 and X[2].max() < 1.7
    for x in X.T[::5]:
        _, out = outputs_at(model, x, inputs)
        assert out["end_stop_active"] == 0

    def energy(x):
        kin = s.kinematics(x[:3], x[3:])
        return 0.5 * x[3:] @ s.mass_matrix(kin) @ x[3:] + potential(x[:3])

    moved = False
    for x in X.T[1:]:
        work = efforts @ (x[:3] - q0)
        dE = energy(x) - energy(x0)
        moved |= abs(work) > 1e3
        # Integration error ~1e-10 relative on q, u -> ~1e-9 on energies ~1e6 J; tolerance 1e-6 relative.
        assert abs(dE - work) < 1e-6 * max(abs(work), 0.5 * x0[3:] @ s.mass_matrix(s.kinematics(x0[:3], x0[3:])) @ x0[3:], 1.0)
    assert moved  # the crane really moved and the efforts really did work


# -- 9. statics ----------------------------------------------------------------------------------------------
STATIC_POSES = [np.array([0.0, 0.6, 0.6]), np.array([1.1, 0.05, 1.65]), np.array([-2.4, 1.65, 0.05]),
                np.array([2.9, 1.2, 0.9])]


@pytest.mark.parametrize("q", STATIC_POSES)
def test_statics_joint1_carries_weight_and_gravity_moment(q):
    model = KnuckleBoomModel(controller_enabled=True)
    x = np.concatenate((q, np.zeros(3)))
    inputs = np.concatenate((np.zeros(3), q))  # q_ref = q: the controller only compensates gravity
    xdot, out = outputs_at(model, x, inputs)
    # u̇ = M⁻¹(τ_g − τ_g): zero up to round-off (|τ_g| ~ 1e6, M_ii ≥ 4e4 -> ~1e-10).
    assert np.abs(xdot[3:]).max() < 1e-8
    f, n = wrench(out, "joint1")
    W = MASSES.sum() * G  # 36 t * g
    assert math.isclose(f[2], W, rel_tol=1e-10)  # sums of a few terms: round-off
    assert abs(f[0]) < 1e-9 * W and abs(f[1]) < 1e-9 * W
    # Moment about the Frame 0 origin that the ground exerts: −Σ r_i × m_i g_vec, r_i from physics_reference.
    r = cog_array(q)
    n_ref = -sum(np.cross(r[i], MASSES[i] * G_VEC) for i in range(7))
    assert np.allclose(n, n_ref, rtol=0, atol=1e-9 * W * 10.0)  # lever arms ~10 m
    assert abs(n_ref[0]) + abs(n_ref[1]) > 1e4  # the pose has a real overturning moment
    # Applied efforts equal the gravity-holding efforts ∂V/∂q computed from the hand-written kinematics.
    applied = np.array([out["applied_king_torque"], out["applied_cylinder2_force"], out["applied_cylinder3_force"]])
    assert np.allclose(applied, grad_potential(q), rtol=1e-7, atol=1e-2)  # FD of V: ~1e-4 N round-off


@pytest.mark.parametrize("q", STATIC_POSES)
def test_statics_cylinder_supports(q):
    """Axial (§4.2.1): the piston support carries −F_k plus the axial weight of the piston, the barrel support
    F_k plus that of the barrel. Transverse: moment balance of the cylinder about the barrel joint (x axis)."""
    model = KnuckleBoomModel(controller_enabled=True)
    x = np.concatenate((q, np.zeros(3)))
    inputs = np.concatenate((np.zeros(3), q))
    _, out = outputs_at(model, x, inputs)
    fk = crane_fk(q)
    for k in (2, 3):
        Rb = fk[f"barrel{k}"][0]
        F = out[f"applied_cylinder{k}_force"]
        mb, mp = TABLE[f"mb{k}"], TABLE[f"mp{k}"]
        wb, wp = Rb.T @ (mb * G_VEC), Rb.T @ (mp * G_VEC)  # weights in cylinder coordinates
        fb, _ = wrench(out, f"cylinder{k}_barrel")
        fp, _ = wrench(out, f"cylinder{k}_piston")
        scale = abs(F) + (mb + mp) * G
        # Piston: R_pz + F + w_pz = 0; barrel: R_bz − F + w_bz = 0 (round-off level).
        assert math.isclose(fp[2], -F - wp[2], abs_tol=1e-9 * scale)
        assert math.isclose(fb[2], F - wb[2], abs_tol=1e-9 * scale)
        # Force balance of the whole cylinder.
        assert np.allclose(fb + fp + wb + wp, 0.0, atol=1e-9 * scale)
        # Moment about the barrel joint, x component: (z × f)_x = −f_y at heights db, lc − dp, lc.
        lc = TABLE[f"lb{k}"] + q[k - 1]
        mx = -(TABLE[f"db{k}"] * wb[1] + (lc - TABLE[f"dp{k}"]) * wp[1] + lc * fp[1])
        assert abs(mx) < 1e-9 * scale * lc


# -- 10. / 11. dynamic trajectory ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dynamic_run():
    """Controller on, set-point far from the start and nonzero initial speeds; dense output of a tight solve."""
    model = KnuckleBoomModel(controller_enabled=True)
    x0 = np.array([0.1, 0.4, 1.3, 0.15, 0.05, -0.06])
    inputs = np.array([0.0, 0.0, 0.0, 0.9, 1.2, 0.5])
    # rtol = atol = 1e-12: the dense output of q, u is good to ~1e-11, the level the FD error budgets below use.
    sol = solve_ivp(lambda t, x: model.derivative(t, x, inputs)[0], (0.0, 2.5), x0, method="DOP853",
                    rtol=1e-12, atol=1e-12, dense_output=True)
    assert sol.success
    return model, inputs, sol


T_CHECK = [0.25, 0.8, 1.4, 2.0]


def momenta(x, per_body=False):
    """Linear momentum per body and angular momentum about the Frame 0 origin (world coordinates), total or
    per body (``per_body=True``).

    Velocities by the chain rule: d/dt f(q) = central difference of f(q ± ε u) (ε = 1e-6; truncation ε² ~ 1e-12,
    round-off 10 m · eps / ε ~ 2e-9 m/s).
    """
    q, u = x[:3], x[3:]
    eps = 1e-6
    fp, fm, f0 = crane_fk(q + eps * u), crane_fk(q - eps * u), crane_fk(q)
    p = np.zeros((7, 3))
    L = np.zeros((7, 3))
    for i, b in enumerate(BODY_ORDER):
        R, _, r = f0[b]
        v = (fp[b][2] - fm[b][2]) / (2 * eps)
        w_body = vee(R.T @ (fp[b][0] - fm[b][0]) / (2 * eps))
        p[i] = MASSES[i] * v
        L[i] = np.cross(r, p[i]) + R @ (INERTIAS[i] @ w_body)
    return p, (L if per_body else L.sum(axis=0))


def time_derivative(fun, sol, t, h=1e-3):
    """Five-point central difference in time (truncation h⁴ f⁽⁵⁾/30 ~ 1e-13 for smooth motion; noise from the
    dense output ~1e-11 / h ~ 1e-8 relative)."""
    f = lambda tt: fun(sol.sol(tt))
    return (-f(t + 2 * h) + 8 * f(t + h) - 8 * f(t - h) + f(t - 2 * h)) / (12 * h)


@pytest.mark.parametrize("t", T_CHECK)
def test_dynamic_joint1_reaction_is_newton_euler_of_whole_crane(dynamic_run, t):
    """Joint 1 (Frame 0): f = Σ m_i (a_i − g_vec), n = dL_O/dt − Σ r_i × m_i g_vec (fixed origin O)."""
    model, inputs, sol = dynamic_run
    x = sol.sol(t)
    _, out = outputs_at(model, x, inputs)
    f, n = wrench(out, "joint1")
    dp = time_derivative(lambda xx: momenta(xx)[0], sol, t)
    dL = time_derivative(lambda xx: momenta(xx)[1], sol, t)
    r = cog_array(x[:3])
    f_ref = dp.sum(axis=0) - MASSES.sum() * G_VEC
    # The king torque T1 (67) is an external (actuator) wrench, not part of the joint reaction (56): the ground
    # exerts reaction + T1 ez0, so the reaction moment is dL/dt − Σ r × m g_vec − T1 ez0 (its z part is zero:
    # a revolute joint carries no moment about its axis).
    T1 = out["applied_king_torque"]
    n_ref = dL - sum(np.cross(r[i], MASSES[i] * G_VEC) for i in range(7)) - np.array([0.0, 0.0, T1])
    W = MASSES.sum() * G
    assert abs(T1) > 1e-3 * W  # the slew torque is really acting
    inertial = np.abs(dp.sum(axis=0)).max()
    assert inertial > 1e-3 * W  # the motion is really dynamic (inertial force > 0.1 % of the weight)
    # FD error budget ~1e-8 relative of momenta ~1e4 -> ~1e-2 N; tolerance 1e-6 W ≈ 0.35 N, 1e-6 W·10 m for moments.
    assert np.allclose(f, f_ref, rtol=0, atol=1e-6 * W)
    assert np.allclose(n, n_ref, rtol=0, atol=1e-5 * W)


@pytest.mark.parametrize("t", T_CHECK)
def test_dynamic_subassembly_force_balances(dynamic_run, t):
    """The sub-assembly {boom3, barrel3, piston3} hangs on boom2 only through Joint 3 and the barrel-3 joint, so
    (joint 3 force) + (barrel-3 support force) = Σ m (a − g_vec) over it; likewise everything above the king hangs
    on Joint 2 and the barrel-2 joint. Forces rotated to Frame 0 with the hand-written rotations."""
    model, inputs, sol = dynamic_run
    x = sol.sol(t)
    _, out = outputs_at(model, x, inputs)
    fk = crane_fk(x[:3])
    dp = time_derivative(lambda xx: momenta(xx)[0], sol, t)
    ix = {b: i for i, b in enumerate(BODY_ORDER)}
    W = MASSES.sum() * G
    for joint, frame, cyl, members in (
            ("joint3", "boom3", "cylinder3", ("boom3", "barrel3", "piston3")),
            ("joint2", "boom2", "cylinder2", ("boom2", "barrel2", "piston2", "boom3", "barrel3", "piston3"))):
        fj, _ = wrench(out, joint)
        fb, _ = wrench(out, f"{cyl}_barrel")
        total = fk[frame][0] @ fj + fk[f"barrel{cyl[-1]}"][0] @ fb
        ref = sum(dp[ix[b]] - MASSES[ix[b]] * G_VEC for b in members)
        assert np.allclose(total, ref, rtol=0, atol=1e-6 * W), joint  # same FD budget as above


@pytest.mark.parametrize("t", T_CHECK)
def test_dynamic_subassembly_moment_balances(dynamic_run, t):
    """Euler's law about the fixed origin O for the same sub-assemblies: the Joint-k reaction (force f_j, moment
    n_j at the origin of Frame k) plus the barrel-k support force at the barrel joint B_k plus the weights give
    dL_O/dt of the sub-assembly. The barrel support carries torsion n_z only, which is zero here because the
    cylinders have no axial inertia (eq. (66)): (I ω̇ + ω × I ω)_z = 0 for I = diag(a, a, 0)."""
    model, inputs, sol = dynamic_run
    x = sol.sol(t)
    _, out = outputs_at(model, x, inputs)
    fk = crane_fk(x[:3])
    dL = time_derivative(lambda xx: momenta(xx, per_body=True)[1], sol, t)
    ix = {b: i for i, b in enumerate(BODY_ORDER)}
    W = MASSES.sum() * G
    for joint, frame, k, members in (
            ("joint3", "boom3", 3, ("boom3", "barrel3", "piston3")),
            ("joint2", "boom2", 2, ("boom2", "barrel2", "piston2", "boom3", "barrel3", "piston3"))):
        fj, nj = wrench(out, joint)
        fb, _ = wrench(out, f"cylinder{k}_barrel")
        Rj, oj, _ = fk[frame]
        Rb, ob, _ = fk[f"barrel{k}"]
        total = Rj @ nj + np.cross(oj, Rj @ fj) + np.cross(ob, Rb @ fb)
        total += sum(np.cross(fk[b][2], MASSES[ix[b]] * G_VEC) for b in members)
        ref = sum(dL[ix[b]] for b in members)
        assert np.abs(ref).max() > 1e-3 * W  # dynamic, not static
        assert np.allclose(total, ref, rtol=0, atol=1e-5 * W), joint  # FD budget as for Joint 1 (lever ~10 m)


@pytest.mark.parametrize("t", T_CHECK)
def test_dynamic_cylinder_axial_newton(dynamic_run, t):
    """Along the cylinder axis z_bk the piston feels only F_k, its weight and the support at P_k (the prismatic
    joint carries no axial force), the barrel only −F_k, its weight and its joint: m (a · z_bk) = sum of those."""
    model, inputs, sol = dynamic_run
    x = sol.sol(t)
    _, out = outputs_at(model, x, inputs)
    fk = crane_fk(x[:3])
    dp = time_derivative(lambda xx: momenta(xx)[0], sol, t)
    ix = {b: i for i, b in enumerate(BODY_ORDER)}
    for k in (2, 3):
        z = fk[f"barrel{k}"][0][:, 2]
        F = out[f"applied_cylinder{k}_force"]
        for part, sign in (("piston", 1.0), ("barrel", -1.0)):
            i = ix[f"{part}{k}"]
            f_support, _ = wrench(out, f"cylinder{k}_{part}")
            lhs = dp[i] @ z  # m a · z
            rhs = sign * F + MASSES[i] * G_VEC @ z + f_support[2]
            assert abs(dp[i] @ z) > 1.0 or part == "barrel"  # the piston really accelerates axially
            # FD budget ~1e-8 relative of momenta; tolerance 1e-6 of the weight of the crane.
            assert abs(lhs - rhs) < 1e-6 * MASSES.sum() * G, (k, part, lhs, rhs)


@pytest.mark.parametrize("t", T_CHECK + [0.0])
def test_passive_joints_carry_no_moment_about_their_axis(dynamic_run, t):
    """§6: n_x in Joints 2 and 3 is zero (the pins turn freely about x), while n_y, n_z are not all zero."""
    model, inputs, sol = dynamic_run
    x = sol.sol(t)
    _, out = outputs_at(model, x, inputs)
    for j in ("joint2", "joint3"):
        _, n = wrench(out, j)
        typical = max(abs(n[1]), abs(n[2]), np.abs(wrench(out, j)[0]).max())
        assert typical > 1.0
        # n_x cancels between terms of size ~1e6 N·m: round-off ~1e-9; tolerance 1e-6 × typical moment.
        assert abs(n[0]) < 1e-6 * typical, (j, n)
    # Not vacuous: at the start of the run the king slews, so Joint 2 carries a moment about its own z or y.
    _, n2 = wrench(out, "joint2")
    assert abs(n2[1]) + abs(n2[2]) > 1.0


# -- 12. support matrices (54)-(55) --------------------------------------------------------------------------
def moment_about(ref, point, wrench6):
    """Wrench [f; n] given at ``point`` re-referenced to ``ref`` (all on the cylinder z axis)."""
    f, n = wrench6[:3], wrench6[3:]
    return np.concatenate((f, n + np.cross(point - ref, f)))


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_support_matrices_equilibrium_eqs_51_52(seed):
    rng = np.random.default_rng(seed)
    lc, db, dp = rng.uniform(2.3, 4.0), rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5)
    Wb, Wp = rng.normal(size=6), rng.normal(size=6)
    sbb, spb, sbp, spp = support_matrices(lc, db, dp)
    Wsb = sbb @ Wb + spb @ Wp
    Wsp = sbp @ Wb + spp @ Wp
    assert np.allclose(np.concatenate(equivalent_cylinder_wrenches(Wb, Wp, lc, db, dp)),
                       np.concatenate((Wsb, Wsp)), atol=1e-14)
    ez = np.array([0.0, 0.0, 1.0])
    B, P = np.zeros(3), lc * ez
    mb, mp = db * ez, (lc - dp) * ez
    # (51): about the barrel joint B;  (52): about the piston support P. O(1) numbers -> round-off 1e-14.
    for ref in (B, P, rng.normal(size=3)):
        lhs = moment_about(ref, B, Wsb) + moment_about(ref, P, Wsp)
        rhs = moment_about(ref, mb, Wb) + moment_about(ref, mp, Wp)
        assert np.allclose(lhs, rhs, atol=1e-12)
    # §4.2.1: axial force of the piston goes fully to the piston support, of the barrel to the barrel support.
    assert math.isclose(Wsp[2], Wp[2], abs_tol=1e-14)
    assert math.isclose(Wsb[2], Wb[2], abs_tol=1e-14)
    # The piston support carries no moment; the barrel support only torsion (n_z).
    assert np.allclose(Wsp[3:], 0.0, atol=0)
    assert np.allclose(Wsb[3:5], 0.0, atol=0)
