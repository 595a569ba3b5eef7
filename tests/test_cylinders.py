"""Closed cylinder loops (§3.1): angles (29)-(30), rates (37), (40), their derivatives, and loop closure."""
import math

import numpy as np
import pytest

from crane_models.core.cylinders import CylinderGeometry
from physics_reference import STATES, TABLE, cyl_args, make_crane, paper_alpha, paper_beta


@pytest.fixture(scope="module")
def crane():
    return make_crane()


# Table 1 cylinders plus one made-up geometry (so that a formula that only works for Table 1 is caught).
GEOMS = {
    "cyl2": cyl_args(TABLE, 2),
    "cyl3": cyl_args(TABLE, 3),
    "other": (2.0, 0.7, 1.8, 0.6, 2.2),
}
QS = [0.05, 0.37, 0.81, 1.23, 1.65]


def geometry(name):
    lb, ab, eb, ap, ep = GEOMS[name]
    return CylinderGeometry(lb, ab, eb, ap, ep)


def inside(geom, q):
    lo, hi = geom.extension_range()
    return lo + 1e-3 < q < hi - 1e-3


@pytest.mark.parametrize("name", list(GEOMS))
@pytest.mark.parametrize("q", QS)
def test_angles_match_paper_eqs_29_30(name, q):
    geom = geometry(name)
    if not inside(geom, q):
        pytest.skip("outside the closable range of this geometry")
    # Same formula evaluated twice in double precision: round-off ~1e-15 rad.
    assert math.isclose(geom.alpha(q), paper_alpha(q, *GEOMS[name]), abs_tol=1e-12)
    assert math.isclose(geom.beta(q), paper_beta(q, *GEOMS[name]), abs_tol=1e-12)
    a, b, *_ = geom.rates(q)
    assert math.isclose(a, geom.alpha(q), abs_tol=1e-15) and math.isclose(b, geom.beta(q), abs_tol=1e-15)


@pytest.mark.parametrize("name", list(GEOMS))
@pytest.mark.parametrize("q", QS)
def test_first_derivatives_eq37_eq40_match_finite_differences(name, q):
    geom = geometry(name)
    if not inside(geom, q):
        pytest.skip("outside the closable range of this geometry")
    _, _, da, db, _, _ = geom.rates(q)
    h = 1e-6  # central difference: truncation h^2 * f''' / 6 ~ 1e-12, round-off eps / h ~ 1e-10 (angles O(1) rad)
    fd_a = (paper_alpha(q + h, *GEOMS[name]) - paper_alpha(q - h, *GEOMS[name])) / (2 * h)
    fd_b = (paper_beta(q + h, *GEOMS[name]) - paper_beta(q - h, *GEOMS[name])) / (2 * h)
    assert abs(da - fd_a) < 1e-8 * max(1.0, abs(fd_a))  # 100x the FD error estimate above
    assert abs(db - fd_b) < 1e-8 * max(1.0, abs(fd_b))


@pytest.mark.parametrize("name", list(GEOMS))
@pytest.mark.parametrize("q", QS)
def test_second_derivatives_match_finite_differences(name, q):
    geom = geometry(name)
    if not inside(geom, q):
        pytest.skip("outside the closable range of this geometry")
    _, _, _, _, dda, ddb = geom.rates(q)
    h = 1e-5  # central difference of the closed-form first derivatives: truncation ~1e-10, round-off ~1e-11
    plus, minus = geom.rates(q + h), geom.rates(q - h)
    fd_a = (plus[2] - minus[2]) / (2 * h)
    fd_b = (plus[3] - minus[3]) / (2 * h)
    assert abs(dda - fd_a) < 1e-7 * max(1.0, abs(fd_a))  # ~1000x the FD error estimate above
    assert abs(ddb - fd_b) < 1e-7 * max(1.0, abs(fd_b))


@pytest.mark.parametrize("q,u", STATES)
def test_loop_closure_in_crane_kinematics(crane, q, u):
    """Piston attachment point P_k reached through the boom equals the origin of the piston frame, and the
    cylinder length |P_k − B_k| is l_bk + q_k (Fig. 2)."""
    p = crane.params
    sys_ = crane.system
    ix = sys_.index
    kin = sys_.kinematics(q, u)
    for k, (boom, barrel, piston) in ((2, ("boom2", "barrel2", "piston2")), (3, ("boom3", "barrel3", "piston3"))):
        ap, ep, lb = getattr(p, f"ap{k}"), getattr(p, f"ep{k}"), getattr(p, f"lb{k}")
        P_boom = kin.origin[ix[boom]] + kin.rotation[ix[boom]] @ np.array([0.0, ap, ep])
        P_piston = kin.origin[ix[piston]]
        # Positions are O(10 m); products of a few rotations: round-off ~1e-14 m.
        assert np.allclose(P_boom, P_piston, atol=1e-10, rtol=0)
        assert math.isclose(np.linalg.norm(P_piston - kin.origin[ix[barrel]]), lb + q[k - 1], abs_tol=1e-10)
        # The cylinder points along z of the barrel frame, and the piston frame is parallel to the barrel frame.
        axis = (P_piston - kin.origin[ix[barrel]]) / (lb + q[k - 1])
        assert np.allclose(axis, kin.rotation[ix[barrel]][:, 2], atol=1e-10, rtol=0)
        assert np.allclose(kin.rotation[ix[piston]], kin.rotation[ix[barrel]], atol=1e-14, rtol=0)


@pytest.mark.parametrize("q,u", STATES)
def test_velocity_of_P_same_from_boom_and_piston(crane, q, u):
    """Meaning of (35)/(39): the point P_k has one velocity, whether seen as a point of Link k or of the piston.

    Uses the twists t = P u of the code (body coordinates at the COG) and v_P = v_m + ω × (P − m).
    """
    sys_ = crane.system
    ix = sys_.index
    kin = sys_.kinematics(q, u)
    for boom, piston in (("boom2", "piston2"), ("boom3", "piston3")):
        P = kin.origin[ix[piston]]

        def vel(body):
            i = ix[body]
            t = kin.P[i] @ u
            w, v = kin.rotation[i] @ t[:3], kin.rotation[i] @ t[3:]
            return v + np.cross(w, P - kin.cog[i])

        v_boom, v_piston = vel(boom), vel(piston)
        assert np.linalg.norm(v_boom) > 1e-3  # the check is not vacuous
        # Velocities O(1 m/s), round-off ~1e-15; 1e-10 leaves room for the accumulated products.
        assert np.allclose(v_boom, v_piston, atol=1e-10, rtol=0)


def test_extension_range_is_where_triangle_exists():
    """Triangle inequality for the sides b1, b2, l_c (Fig. 2): l_c in (|b1 − b2|, b1 + b2)."""
    for name, (lb, ab, eb, ap, ep) in GEOMS.items():
        geom = geometry(name)
        b1, b2 = math.hypot(ab, eb), math.hypot(ap, ep)
        lo, hi = geom.extension_range()
        assert math.isclose(lo, abs(b1 - b2) - lb, abs_tol=1e-14)
        assert math.isclose(hi, b1 + b2 - lb, abs_tol=1e-14)
