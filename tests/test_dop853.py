"""DOP853 (integrators.DormandPrince853, its tableau in integration/dop853_coefficients.py), checked against what
does not come from our code: an independent copy of the coefficients (scipy's), the order conditions a
Runge-Kutta tableau must meet, the method's observed order on a problem with an exact solution, the order of
its error estimate, and its stability region, which the flexible crane's step cap and the automatic stepper
choice rely on."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.integration import dop853_coefficients as d8
from crane_models.integration.integrators import (DormandPrince54, DormandPrince853, combined_error,
                                                  stepper_for_code)
from crane_models.integration.stiffness import EXPLICIT_STABLE_H_RHO
from crane_models.models.flexible_crane.statics import DOP853_STABLE_H_OMEGA, RK23_STABLE_H_OMEGA
from test_integrators import LOOSE, observed_orders, rhs

A = np.zeros((13, 13))
for _s, _row in enumerate(d8.A):
    A[_s, :len(_row)] = _row
C, B = np.array(d8.C), np.array(d8.B)


def test_coefficients_match_an_independent_copy():
    """scipy's DOP853 (Hairer's coefficients, typed separately) to the last bit or one rounding."""
    ref = pytest.importorskip("scipy.integrate._ivp.dop853_coefficients")
    assert np.allclose(A[:12, :12], ref.A[:12, :12], rtol=1e-15, atol=0.0)
    assert np.allclose(B, ref.B, rtol=1e-15, atol=0.0) and np.allclose(C[:12], ref.C[:12], rtol=1e-15, atol=0.0)
    assert np.allclose(d8.E5, ref.E5, rtol=1e-15, atol=0.0) and np.allclose(d8.E3, ref.E3, rtol=1e-15, atol=0.0)


def test_tableau_meets_the_order_conditions_it_can_be_checked_by_hand():
    """Row sums a_i. = c_i (stage times), quadrature b·c^k = 1/(k+1) for k < 8 (the bushy trees of order 8),
    b·A c^k = 1/((k+1)(k+2)) for k < 7 and b·(c ∘ A c^k) = 1/((k+1)(k+3)) for k < 6, each to 1e-14 (the
    coefficients are rounded to 16 digits); the E5 and E3 weights integrate c^k exactly for k below 5 and 3
    (E = b - b_embedded, so E·c^k = 0: the embedded solutions' orders)."""
    a = A[:12, :12]
    assert np.allclose(a.sum(axis=1), C[:12], atol=1e-14)
    for k in range(8):
        assert B @ C[:12] ** k == pytest.approx(1.0 / (k + 1), abs=1e-14), k
    for k in range(7):
        assert B @ (a @ C[:12] ** k) == pytest.approx(1.0 / ((k + 1) * (k + 2)), abs=1e-14), k
    for k in range(6):
        assert B @ (C[:12] * (a @ C[:12] ** k)) == pytest.approx(1.0 / ((k + 1) * (k + 3)), abs=1e-14), k
    for e, low in ((np.array(d8.E5[:12]), 5), (np.array(d8.E3[:12]), 3)):
        for k in range(low):
            assert e @ C[:12] ** k == pytest.approx(0.0, abs=1e-14), (low, k)
        assert abs(e @ C[:12] ** low) > 1e-6, low  # and not of a higher order


def test_observed_order_is_eight():
    """Fixed steps on the nonlinear, non-autonomous problem of test_integrators: errors fall 256-fold per halving
    (observed 7.98 and 8.02 from 2 to 4 to 8 steps per unit time; the error at 8 steps, 2.7e-14, is still 100
    times the rounding, which 16 steps reach). DP5's tableau in its place gives 5, one wrong digit in a stage
    less than 8."""
    orders = observed_orders(lambda: DormandPrince853(**LOOSE), steps=(2, 4, 8))
    assert all(abs(p - 8.0) <= 0.3 for p in orders), f"observed orders {orders}"


def test_the_combined_error_estimate_is_of_order_eight():
    """The controller's exponent 1/8 assumes err ~ h^8 (|E5 K|² / |E3 K| with |E5 K| ~ h^6, |E3 K| ~ h^4): one step
    from the same point at h and h/2 gives a ratio of 2^8 within 15 % (the h^9 terms at h = 0.05); the fifth-order
    estimate alone would give 2^6."""
    st = DormandPrince853(rtol=1e-6, atol=1e-6)
    y0 = np.array([0.6, 0.8, 0.5])
    k1 = rhs(0.0, y0)[0]
    errors = [st._trial(rhs, 0.0, y0, h, k1)[3] for h in (0.05, 0.025)]
    assert errors[0] / errors[1] == pytest.approx(2.0 ** 8, rel=0.15)
    assert combined_error(0.0, 0.0) == 0.0 and combined_error(3.0, 0.0) == pytest.approx(3.0)


def stability_radius(a: np.ndarray, b: np.ndarray, direction: complex) -> float:
    """The largest r with |R(r d)| ≤ 1 from 0 up, R(z) = 1 + z bᵀ (I − z A)⁻¹ 1 (the stability function of an
    explicit Runge-Kutta method), by bisection after a scan of 0.001 steps."""
    R = lambda z: abs(1.0 + z * (b @ np.linalg.solve(np.eye(len(b)) - z * a, np.ones(len(b)))))  # noqa: E731
    r = 0.0
    while R((r + 1e-3) * direction) <= 1.0 + 1e-12:
        r += 1e-3
    lo, hi = r, r + 1e-3
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if R(mid * direction) <= 1.0 + 1e-12 else (lo, mid)
    return lo


def test_stability_region_gives_the_step_caps_used():
    """On the imaginary axis (undamped modes) DOP853 is stable to |h λ| = 5.96, so the flexible crane's cap
    5.2/ω_max keeps RK23's margin (1.5 of √3); on the negative real axis 6.39, where the automatic choice's
    EXPLICIT_STABLE_H_RHO (6.4) must sit within 1 %. DP5 for contrast: about 1.0 on the imaginary axis."""
    imaginary = stability_radius(A[:12, :12], B, 1j)
    real = stability_radius(A[:12, :12], B, -1.0 + 0j)
    assert imaginary == pytest.approx(5.96, abs=0.01) and real == pytest.approx(6.39, abs=0.01)
    assert DOP853_STABLE_H_OMEGA / imaginary == pytest.approx(RK23_STABLE_H_OMEGA / math.sqrt(3.0), abs=0.01)
    assert EXPLICIT_STABLE_H_RHO == pytest.approx(real, rel=0.01)
    stages, _, a5, _, _ = DormandPrince54.tableau()
    assert stability_radius(a5[:6, :6], a5[6, :6], 1j) < 1.1


def test_integrator_code_four_is_dop853_and_three_is_not_a_stepper():
    """Code 3 stays the automatic choice of the models that have one (FlexibleCrane); elsewhere it is refused."""
    assert stepper_for_code(4) == "dop853"
    with pytest.raises(ValueError, match="must be one of"):
        stepper_for_code(3)
