"""Screw algebra of section 2 (eqs. (2)-(10), (24), (36)) against hand-written vector algebra."""
import numpy as np
import pytest

from crane_models.core import screws as S
from physics_reference import Rx, Rz, hat

# All quantities are O(1); the operations are a few flops, so agreement is at round-off level.
TOL = 1e-12  # double-precision round-off for O(1) products of a few terms


def random_rotation(rng):
    """A random proper rotation from the QR decomposition of a Gaussian matrix (independent of the package)."""
    qm, r = np.linalg.qr(rng.normal(size=(3, 3)))
    qm = qm @ np.diag(np.sign(np.diag(r)))
    if np.linalg.det(qm) < 0:
        qm[:, 0] = -qm[:, 0]
    return qm


SEEDS = [1, 2, 3, 4]


@pytest.mark.parametrize("seed", SEEDS)
def test_skew_is_cross_product(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=3), rng.normal(size=3)
    assert np.allclose(S.skew(a) @ b, np.cross(a, b), atol=TOL, rtol=0)
    assert np.allclose(S.skew(a), -S.skew(a).T, atol=0, rtol=0)  # exactly antisymmetric


@pytest.mark.parametrize("seed", SEEDS)
def test_elementary_rotations(seed):
    rng = np.random.default_rng(seed)
    ang = rng.uniform(-np.pi, np.pi)
    # Positive angle turns +y towards +z (x-rotation) and +x towards +y (z-rotation), as used in Section 5.
    assert np.allclose(S.rot_x(ang) @ [0, 1, 0], [0, np.cos(ang), np.sin(ang)], atol=TOL, rtol=0)
    assert np.allclose(S.rot_z(ang) @ [1, 0, 0], [np.cos(ang), np.sin(ang), 0], atol=TOL, rtol=0)
    assert np.allclose(S.rot_y(ang) @ [0, 0, 1], [np.sin(ang), 0, np.cos(ang)], atol=TOL, rtol=0)
    assert np.allclose(S.rot_x(ang), Rx(ang), atol=TOL, rtol=0)
    assert np.allclose(S.rot_z(ang), Rz(ang), atol=TOL, rtol=0)
    # Rodrigues about a random axis: a rotation that leaves the axis fixed and turns a normal vector by ang.
    k = rng.normal(size=3)
    k /= np.linalg.norm(k)
    R = S.axis_rotation(k, ang)
    assert np.allclose(R @ R.T, np.eye(3), atol=TOL, rtol=0) and np.isclose(np.linalg.det(R), 1.0, atol=TOL)
    assert np.allclose(R @ k, k, atol=TOL, rtol=0)
    n = np.cross(k, rng.normal(size=3))
    n /= np.linalg.norm(n)
    assert np.isclose(n @ (R @ n), np.cos(ang), atol=TOL)
    assert np.allclose(np.cross(n, R @ n), np.sin(ang) * k, atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_transform_U_eq8(seed):
    """U_ab [ω; v_b] = [ω; v_b + p_ab × ω] (eq. (2)/(10)): the velocity of point a of the same rigid body."""
    rng = np.random.default_rng(seed)
    w, v_b, p_ab = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    out = S.screw_reference_transform(p_ab) @ np.concatenate((w, v_b))
    assert np.allclose(out[:3], w, atol=TOL, rtol=0)
    assert np.allclose(out[3:], v_b + np.cross(p_ab, w), atol=TOL, rtol=0)
    # Rigid-body meaning: v_a = v_b + ω × (r_a − r_b) with p_ab = r_b − r_a.
    r_a, r_b = rng.normal(size=3), rng.normal(size=3)
    out = S.screw_reference_transform(r_b - r_a) @ np.concatenate((w, v_b))
    assert np.allclose(out[3:], v_b + np.cross(w, r_a - r_b), atol=TOL, rtol=0)
    # Same matrix moves the reference of a wrench [f; n_b]: moment about a = n_b + (r_b − r_a) × f.
    f, n_b = rng.normal(size=3), rng.normal(size=3)
    out = S.screw_reference_transform(r_b - r_a) @ np.concatenate((f, n_b))
    assert np.allclose(out[3:], n_b + np.cross(r_b - r_a, f), atol=TOL, rtol=0)
    # Composition: U_ab U_bc = U_ac (p_ac = p_ab + p_bc).
    p_bc = rng.normal(size=3)
    assert np.allclose(S.screw_reference_transform(p_ab) @ S.screw_reference_transform(p_bc),
                       S.screw_reference_transform(p_ab + p_bc), atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_screw_rotation_and_eq9_block_form(seed):
    rng = np.random.default_rng(seed)
    R, p_j = random_rotation(rng), rng.normal(size=3)
    Rbar = S.screw_rotation(R)
    expected_Rbar = np.zeros((6, 6))
    expected_Rbar[:3, :3] = R
    expected_Rbar[3:, 3:] = R
    assert np.allclose(Rbar, expected_Rbar, atol=0, rtol=0)
    # Eq. (9): R̄ U = [[R, 0], [p̂^i R, R]] with p^i = R p^j.
    p_i = R @ p_j
    expected = np.block([[R, np.zeros((3, 3))], [hat(p_i) @ R, R]])
    assert np.allclose(S.screw_transform(R, p_j), expected, atol=TOL, rtol=0)
    assert np.allclose(Rbar @ S.screw_reference_transform(p_j), expected, atol=TOL, rtol=0)
    # Applied to a screw, (10): [R u; R w + p^i × R u].
    s = rng.normal(size=6)
    out = S.screw_transform(R, p_j) @ s
    assert np.allclose(out, np.concatenate((R @ s[:3], R @ s[3:] + np.cross(p_i, R @ s[:3]))), atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_combined_transform_V_eq24(seed):
    rng = np.random.default_rng(seed)
    R, p_k, p_m = random_rotation(rng), rng.normal(size=3), rng.normal(size=3)
    V = S.combined_screw_transform(R, p_k, p_m)
    # Eq. (24) written out block by block.
    expected = np.block([[R, np.zeros((3, 3))], [hat(p_m) @ R + R @ hat(p_k), R]])
    assert np.allclose(V, expected, atol=TOL, rtol=0)
    # Eq. (23): V = U_{m,k+1} R̄ U_{k+1,k}; built from hand-made block matrices.
    U = lambda p: np.block([[np.eye(3), np.zeros((3, 3))], [hat(p), np.eye(3)]])
    Rbar = np.block([[R, np.zeros((3, 3))], [np.zeros((3, 3)), R]])
    assert np.allclose(V, U(p_m) @ Rbar @ U(p_k), atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_interchange_eq36(seed):
    rng = np.random.default_rng(seed)
    Pi = S.INTERCHANGE
    assert np.array_equal(Pi @ Pi, np.eye(6))
    assert np.array_equal(Pi, Pi.T)
    s = rng.normal(size=6)
    assert np.array_equal(S.interchange(s), np.concatenate((s[3:], s[:3])))
    assert np.array_equal(Pi @ s, S.interchange(s))
    assert np.array_equal(S.interchange(S.interchange(s)), s)
    # Virtual power of a wrench [f; n] on a twist [ω; v] is (Π W)·t = n·ω + f·v.
    W, t = rng.normal(size=6), rng.normal(size=6)
    assert np.isclose((Pi @ W) @ t, W[3:] @ t[:3] + W[:3] @ t[3:], atol=TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_line_eq3(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=3)
    a /= np.linalg.norm(a)
    x = rng.normal(size=3)  # a point on the line, relative to the reference point
    L = S.line(a, x)
    assert np.allclose(L[:3], a, atol=0, rtol=0)
    assert np.allclose(L[3:], np.cross(x, a), atol=TOL, rtol=0)
    assert abs(L[:3] @ L[3:]) < TOL  # direction and moment are orthogonal (zero pitch)
    # Any other point of the line gives the same line.
    assert np.allclose(S.line(a, x + 2.7 * a), L, atol=TOL, rtol=0)
    # Moving the reference point by p_AB gives the line through the same point seen from A (eq. (2)).
    p_ab = rng.normal(size=3)
    assert np.allclose(S.screw_reference_transform(p_ab) @ L, S.line(a, x + p_ab), atol=TOL, rtol=0)
    lam = S.line_at_infinity(a)
    assert np.allclose(lam, np.concatenate((np.zeros(3), a)), atol=0, rtol=0)


def twist_hat(t):
    """4×4 matrix form of a twist, eq. (13)."""
    m = np.zeros((4, 4))
    m[:3, :3] = hat(t[:3])
    m[:3, 3] = t[3:]
    return m


@pytest.mark.parametrize("seed", SEEDS)
def test_twist_cross_is_lie_bracket(seed):
    """(t1 ×) t2 is the twist whose matrix form (13) is the commutator of the matrix forms."""
    rng = np.random.default_rng(seed)
    t1, t2 = rng.normal(size=6), rng.normal(size=6)
    br = S.twist_cross(t1) @ t2
    comm = twist_hat(t1) @ twist_hat(t2) - twist_hat(t2) @ twist_hat(t1)
    assert np.allclose(twist_hat(br), comm, atol=TOL, rtol=0)
    assert np.allclose(br, -S.twist_cross(t2) @ t1, atol=TOL, rtol=0)
    # Rate of a line fixed in a body rotating about the origin: ṡ = ω × a, d(p × a)/dt = (ω×p)×a + p×(ω×a).
    w = rng.normal(size=3)
    a, p = rng.normal(size=3), rng.normal(size=3)
    s = np.concatenate((a, np.cross(p, a)))
    sdot = np.concatenate((np.cross(w, a), np.cross(np.cross(w, p), a) + np.cross(p, np.cross(w, a))))
    assert np.allclose(S.twist_cross(np.concatenate((w, np.zeros(3)))) @ s, sdot, atol=TOL, rtol=0)
