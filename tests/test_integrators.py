"""The FMU steppers (crane_models/integration/integrators.py) on problems with known exact solutions.

* order: fixed steps (tolerances so loose that every step is accepted, the step set by ``max_step``)
  on a nonlinear, non-autonomous problem; the observed order between successive halvings must be the
  nominal 3 within ±0.3 (the asymptotic regime is reached when the ratio of successive errors is
  steady; the step sizes below give 20-160 steps per unit time on a problem with time scale 1).
* stiffness: a linear problem with eigenvalues −1 and −1e5. The explicit RK23's stability interval on the
  negative real axis is [−2.51, 0] (Bogacki & Shampine 1989), so it needs at least 1e5/2.51 ≈ 4e4 steps
  per unit time whatever the tolerance, while an L-stable method only has to follow ``e^{−t}``.
* error control: global error against the exact solution for several ``rtol``.
"""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from crane_models.integration.integrators import DormandPrince54, EmbeddedRK23, RosenbrockW, StepFailure, make_stepper

# -- a nonlinear, non-autonomous test problem with an exact solution ----------------------------------
# y1, y2: rotation with angular speed |(y1, y2)| (constant along solutions): exact R(|y0| t) y0.
# y3: Prothero-Robinson type  y3' = lam (y3 - sin t) + cos t, exact sin t + (y3(0)) e^{lam t}.
Y0 = np.array([0.6, 0.8, 0.5])  # |(y1, y2)| = 1


def rhs(t, y, lam=-1.0):
    r = math.hypot(y[0], y[1])
    return np.array([-r * y[1], r * y[0], lam * (y[2] - math.sin(t)) + math.cos(t)]), None


def exact(t, lam=-1.0):
    c, s = math.cos(t), math.sin(t)
    return np.array([c * Y0[0] - s * Y0[1], s * Y0[0] + c * Y0[1], math.sin(t) + Y0[2] * math.exp(lam * t)])


def fixed_step_error(stepper, n_steps: int, t_end: float = 1.0) -> float:
    """Error at ``t_end`` after ``n_steps`` equal steps (every step accepted)."""
    stepper.max_step = t_end / n_steps
    stepper.h = t_end / n_steps
    k1, _ = rhs(0.0, Y0)
    y, _, _ = stepper.advance(rhs, 0.0, Y0.copy(), t_end, k1)
    assert stepper.stats["rejected"] == 0 and stepper.stats["accepted"] == n_steps
    return float(np.max(np.abs(y - exact(t_end))))


LOOSE = dict(rtol=1e10, atol=1e10)  # every step accepted: the step is max_step


def observed_orders(make, steps=(20, 40, 80, 160)) -> list:
    errors = [fixed_step_error(make(), n) for n in steps]
    return [math.log2(a / b) for a, b in zip(errors, errors[1:])]


def test_dopri5_observed_order_is_five():
    """Dormand-Prince 5(4) keeps the 5th-order solution: errors fall 32-fold per halving. 10-80 steps per
    unit time keep the error (1e-8 ... 2e-13) far above round-off (~1e-15 here at 160 steps). On this
    problem the h⁶ term is still visible at 10 steps (the observed order falls 5.44, 5.36, 5.26 towards
    5), so the finest pair must be within 5 ± 0.3 and every pair within the pre-asymptotic band
    [4.7, 5.6] -- a wrong coefficient drops the order to 4 or less."""
    orders = observed_orders(lambda: DormandPrince54(**LOOSE), steps=(10, 20, 40, 80))
    assert abs(orders[-1] - 5.0) <= 0.3 and all(4.7 <= p <= 5.6 for p in orders), f"observed orders {orders}"


@pytest.mark.parametrize("name, make", [
    ("rk23", lambda: EmbeddedRK23(**LOOSE)),
    ("ros34pw2, forward-difference Jacobian", lambda: RosenbrockW(**LOOSE)),
    # A W-method keeps its order with any matrix in place of the Jacobian: a Jacobian refreshed every
    # step, and one that is wrong (half the true one at the start, never refreshed) both give order 3.
    ("ros34pw2, Jacobian every step", lambda: RosenbrockW(jacobian_max_age=1, **LOOSE)),
    ("ros34pw2, wrong frozen Jacobian", lambda: RosenbrockW(
        jacobian=lambda t, y, f0: np.array([[0.0, -0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, -0.5]]),
        jacobian_max_age=10 ** 9, **LOOSE)),
])
def test_observed_order_is_three(name, make):
    orders = observed_orders(make)
    assert all(abs(p - 3.0) <= 0.3 for p in orders), f"{name}: observed orders {orders}"


def test_coefficients_satisfy_the_order_conditions_up_to_three():
    """ROS34PW2 as tabulated (Rang & Angermann 2005): the Rosenbrock order conditions of Hairer & Wanner
    II, Table IV.7.1, with beta_ij = alpha_ij + gamma_ij, to rounding of the 17-digit coefficients
    (1e-14); the embedded weights satisfy those of order 2 and not the order-3 one."""
    from crane_models.integration import rosenbrock as I

    g = I._RW_GAMMA
    A = np.zeros((4, 4))
    G = np.zeros((4, 4))
    for i in range(4):
        A[i, :i] = I._RW_ALPHA[i]
        G[i, :i] = I._RW_G[i]
    beta = A + G
    b, bh = np.array(I._RW_B), np.array(I._RW_BHAT)
    alpha = A.sum(axis=1)
    betap = beta.sum(axis=1)  # beta'_i = sum_j beta_ij (strictly lower part)

    def conditions(w):
        return [w.sum() - 1.0, w @ betap - (0.5 - g), w @ alpha ** 2 - 1.0 / 3.0,
                w @ beta @ betap - (1.0 / 6.0 - g + g * g)]

    assert np.max(np.abs(conditions(b))) < 1e-14
    c_hat = conditions(bh)
    assert max(abs(c) for c in c_hat[:2]) < 1e-14 and max(abs(c) for c in c_hat[2:]) > 1e-3
    # L-stability: R(inf) = 1 - b^T B^{-1} 1 with B = Gamma + A... for a stiffly accurate method R(inf)
    # = 0; here checked through the stability function at z = -1e12 (below).
    z = -1e12
    M = np.eye(4) - z * (A + np.diag([g] * 4) + G)
    R = 1.0 + z * b @ np.linalg.solve(M, np.ones(4))
    assert abs(R) < 1e-9


def test_stiff_problem_the_w_method_takes_over_100_times_fewer_steps_than_rk23():
    lam_fast = -1e5
    V = np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2.0)
    A = V @ np.diag([-1.0, lam_fast]) @ V.T
    y0 = np.array([1.0, 0.5])

    def f(t, y):
        return A @ y, None

    def exact_lin(t):
        return V @ (np.exp(np.array([-1.0, lam_fast]) * t) * (V.T @ y0))

    counts, errors = {}, {}
    for name in ("rk23", "rosenbrock"):
        s = make_stepper(name, rtol=1e-6, atol=1e-9, max_step=math.inf)
        y = y0.copy()
        k, aux = f(0.0, y)
        err = 0.0
        for i in range(10):  # ten calls, as ten communication steps
            y, k, aux = s.advance(f, 0.1 * i, y, 0.1 * (i + 1), k, aux)
            err = max(err, float(np.max(np.abs(y - exact_lin(0.1 * (i + 1))))))
        counts[name], errors[name] = s.stats["accepted"] + s.stats["rejected"], err
    assert counts["rk23"] >= 1e5 / 2.51  # the explicit stability bound, whatever the tolerance
    assert counts["rk23"] > 100 * counts["rosenbrock"], counts
    # 1e-5: ten times rtol times the solution's size ~1 (see test_global_error_follows_rtol).
    assert errors["rosenbrock"] < 1e-5, errors


@pytest.mark.parametrize("lam", [-1.0, -1e4])
def test_global_error_follows_rtol(lam):
    """Max error over 2 s at ten communication points. The controller keeps each step's estimated local
    error below ``rtol·|y|`` (atol negligible); on this problem errors do not grow (rotation: neutral,
    y3: contractive), so the global error is a few local tolerances: bounded by ``10·rtol·max|y|``
    (max|y| = 1). Tightening rtol 1000× must cut the error ≥ 100× (error ∝ rtol for a 3(2) pair with
    error-per-step control, a factor 10 of slack for the integer step counts)."""
    f = lambda t, y: rhs(t, y, lam)  # noqa: E731
    errs = {}
    for rtol in (1e-4, 1e-7):
        s = RosenbrockW(rtol=rtol, atol=1e-14)
        y = Y0.copy()
        k, aux = f(0.0, y)
        err = 0.0
        for i in range(10):
            y, k, aux = s.advance(f, 0.2 * i, y, 0.2 * (i + 1), k, aux)
            err = max(err, float(np.max(np.abs(y - exact(0.2 * (i + 1), lam)))))
        errs[rtol] = err
        assert err <= 10.0 * rtol, (rtol, err)
    assert errs[1e-4] >= 100.0 * errs[1e-7], errs


@pytest.mark.parametrize("name", ["rk23", "rosenbrock"])
def test_saved_stepper_state_replays_bit_identically(name):
    f = lambda t, y: rhs(t, y, -50.0)  # noqa: E731
    s = make_stepper(name, rtol=1e-6, atol=1e-9, max_step=1.0)
    y = Y0.copy()
    k, aux = f(0.0, y)
    for i in range(3):
        y, k, aux = s.advance(f, 0.1 * i, y, 0.1 * (i + 1), k, aux)
    saved = pickle.loads(pickle.dumps((s.get_state(), y, k)))

    def run(stepper, y, k):
        out = []
        for i in range(3, 8):
            y, k, _ = stepper.advance(f, 0.1 * i, y, 0.1 * (i + 1), k)
            out.append(y.copy())
        return out

    first = run(s, y, k)
    fresh = make_stepper(name, rtol=1e-6, atol=1e-9, max_step=1.0)
    fresh.set_state(saved[0])
    second = run(fresh, saved[1], saved[2])
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


class _Reversal:
    """y' = 1 before t = 0.1, −1 from 0.1 on (a pulse that ends at 0.1), declared as a switching time."""

    input_names: list = []
    state_size = 1
    switch_times = (0.1,)

    def derivative(self, t, y, inputs):
        return np.array([1.0 if t < 0.1 else -1.0]), None

    def outputs(self, t, y, inputs, aux):
        return {}

    def check_state(self, y):
        pass


@pytest.mark.parametrize("name", ["rk23", "dopri5", "dop853", "rosenbrock"])
def test_a_step_from_a_point_rounded_just_before_a_switch_starts_after_the_switch(name):
    """A master that accumulates its steps reaches 0.09 + 0.01 = 0.09999999999999999, one ulp before the
    switch. Stepping there, the step that ends within rounding of the switch leaves the value after it
    cached; started there (a restored state, the first step), the derivative is the left value. Either way
    the next step must give what the exact grid gives: y(0.2) = 0 to the rounding of t (1e-15), in a few
    steps, not fail for want of a step below the ulp."""
    from crane_models.integration.cosimulation import CoSimulation

    t_acc = 0.0
    for _ in range(10):
        t_acc += 0.01
    assert t_acc < 0.1  # the rounding this test is about
    stepped = CoSimulation(_Reversal(), np.zeros(1), rtol=1e-8, atol=1e-12, max_step=1.0, stepper=name)
    for _ in range(10):
        stepped.step(0.01)
    assert stepped.t == t_acc and stepped._current()[0][0] == -1.0  # the value after the switch
    started = CoSimulation(_Reversal(), np.array([t_acc]), t0=t_acc, rtol=1e-8, atol=1e-12, max_step=1.0,
                           stepper=name)
    assert started._current()[0][0] == 1.0  # the left value at the rounded communication point
    for sim in (stepped, started):
        accepted = sim.stepper.stats["accepted"]
        sim.step(0.1)
        assert abs(sim.x[0] - 0.0) < 1e-15 * 10 and sim._current()[0][0] == -1.0
        assert sim.stepper.stats["accepted"] - accepted < 20


def test_non_finite_model_raises_step_failure_and_unknown_stepper_is_refused():
    s = RosenbrockW(rtol=1e-6, atol=1e-9)

    def f(t, y):
        return np.array([math.nan if t > 0.0 else 1.0]), None

    with pytest.raises(StepFailure):
        s.advance(f, 0.0, np.array([0.0]), 1.0, np.array([1.0]))
    with pytest.raises(ValueError, match="unknown stepper"):
        make_stepper("euler")


class _Pulse:
    """x' = 1 on [0, 0.1), 0 after: the shape of the FlexibleCrane's torque pulse (21). Exact x(t ≥ 0.1) = 0.1."""

    input_names: list = []
    state_size = 1
    switch_times = (0.1,)

    def derivative(self, t, x, inputs):
        return np.array([1.0 if t < 0.1 else 0.0]), None

    def outputs(self, t, x, inputs, aux):
        return {"x": float(x[0])}

    def check_state(self, x):
        pass


@pytest.mark.parametrize("stepper", ["rk23", "dopri5", "dop853", "rosenbrock"])
@pytest.mark.parametrize("h", [0.01, 0.010000000000000009, 0.03])
def test_cosimulation_restarts_at_a_model_switch(stepper, h):
    """A switch inside a communication step, or within rounding of its end (fmpy's steps of
    0.010000000000000009 reach 0.1 + 1e-17), is integrated up to and restarted from: no step failure at
    tolerances far tighter than the jump allows to resolve (rtol 1e-10, atol 1e-12: a step across a unit
    jump would have to shrink below 1e-11 s, under min_step), and the exact area 0.1 to 1e-12."""
    from crane_models.integration.cosimulation import CoSimulation

    sim = CoSimulation(_Pulse(), np.zeros(1), rtol=1e-10, atol=1e-12, max_step=0.05, stepper=stepper)
    t = 0.0
    while t < 0.2:
        sim.step(h)
        t += h
    assert sim.x[0] == pytest.approx(0.1, abs=1e-12)


def test_without_the_switch_declared_a_step_onto_the_jump_fails():
    """The same pulse without ``switch_times``: the Rosenbrock stepper, whose equal steps all end on the
    jump, cannot meet the tolerance -- the failure the declaration avoids."""
    from crane_models.integration.cosimulation import CoSimulation

    class Undeclared(_Pulse):
        switch_times = ()

    sim = CoSimulation(Undeclared(), np.zeros(1), rtol=1e-10, atol=1e-12, max_step=0.05, stepper="rosenbrock")
    with pytest.raises(StepFailure):
        t = 0.0
        for _ in range(20):
            sim.step(0.010000000000000009)
            t += 0.010000000000000009
