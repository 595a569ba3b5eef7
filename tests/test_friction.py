"""Dahl and LuGre joint friction (eqs. (13)-(15)) on a single joint: a rotor of inertia J on a pin of
diameter d under a constant normal force f_n, driven by a torque T(t) or at a prescribed speed.

Expected values come from the models' closed-form steady states (Coulomb level μ_s for Dahl, the
Stribeck curve for LuGre), from statics (the stuck bristle carries the load: σ0 z f_n d/2 = T) and from
the energy balance (input work = kinetic energy + bristle energy + dissipation).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from crane_models.core.friction import (BristleParameters, bristle_rate, dissipation_rate, friction_coefficient,
                                   pin_friction_torque)

# Table 1, joint 2 (the link (c,2) root): μ_s 0.2, μ_k 0.1, σ0 5, σ1 0.022, σ2 0, γ 1, q̇_S 0.0175.
TABLE1_J2 = dict(mu_s=0.2, mu_k=0.1, sigma0=5.0, sigma1=0.022, sigma2=0.0, gamma=1.0, v_s=0.0175)
J, FN, D = 50.0, 2000.0, 0.05  # rotor inertia [kg m²], normal force [N], pin diameter [m]
N_LOAD = FN * D / 2  # torque per unit friction coefficient [N m]


def params(**over) -> BristleParameters:
    values = {**TABLE1_J2, **over}
    return BristleParameters(**{k: np.array([v]) for k, v in values.items()})


def rotor_rhs(model: str, p: BristleParameters, torque):
    """State [q, v, z, W]: W is the work of the driving torque (for the energy balance)."""
    def rhs(t, y):
        v, z = np.array([y[1]]), np.array([y[2]])
        zdot = bristle_rate(model, v, z, p)
        mu = friction_coefficient(model, v, z, zdot, p)
        tf = pin_friction_torque(mu, np.array([FN]), np.array([D]))[0]
        T = torque(t)
        return [y[1], (T + tf) / J, zdot[0], T * y[1]]
    return rhs


@pytest.mark.parametrize("model", ["dahl", "lugre"])
@pytest.mark.parametrize("v", [-0.5, -0.02, 0.005, 0.0175, 0.05, 0.5])
def test_steady_state_friction_matches_coulomb_and_stribeck_curves(model, v):
    """At constant joint speed the bristle settles and μ approaches μ_s sgn(v) (Dahl, Coulomb) or
    μ_k + (μ_s − μ_k) exp(−(v/v_S)²) sgn(v) (LuGre, Stribeck). Tolerance 1e-6 of μ_s: the bristle
    decays as exp(−σ0 |v| t / g) and is integrated at rtol 1e-10 long enough for e^-20."""
    p = params()
    g_min = TABLE1_J2["mu_k"]
    t_end = 20.0 * TABLE1_J2["mu_s"] / (TABLE1_J2["sigma0"] * abs(v)) * (TABLE1_J2["mu_s"] / g_min)
    sol = solve_ivp(lambda t, z: bristle_rate(model, np.array([v]), z, p), (0.0, t_end), [0.0],
                    method="LSODA", rtol=1e-10, atol=1e-13)
    z = sol.y[:, -1]
    mu = friction_coefficient(model, np.array([v]), z, bristle_rate(model, np.array([v]), z, p), p)[0]
    s = TABLE1_J2
    expected = s["mu_s"] * np.sign(v) if model == "dahl" else \
        (s["mu_k"] + (s["mu_s"] - s["mu_k"]) * np.exp(-(v / s["v_s"]) ** 2)) * np.sign(v)
    assert mu == pytest.approx(expected, abs=1e-6 * s["mu_s"])


def test_steady_state_lugre_includes_viscous_term():
    """With σ2 > 0 the LuGre steady state adds σ2 v (Stribeck + viscous)."""
    p = params(sigma2=0.01)
    v = 0.3
    sol = solve_ivp(lambda t, z: bristle_rate("lugre", np.array([v]), z, p), (0, 50.0), [0.0], rtol=1e-10, atol=1e-13)
    z = sol.y[:, -1]
    mu = friction_coefficient("lugre", np.array([v]), z, bristle_rate("lugre", np.array([v]), z, p), p)[0]
    assert mu == pytest.approx(0.1 + 0.1 * np.exp(-(v / 0.0175) ** 2) + 0.01 * v, abs=1e-7)


@pytest.mark.parametrize("model", ["dahl", "lugre"])
def test_small_load_sticks_without_drift(model):
    """A rotor at rest is loaded smoothly (quintic ramp over 20 s, seven periods of the bristle-spring
    oscillation ω = √(σ0 f_n d/2 / J) = 2.2 rad/s, so none is excited) to 40 % of the breakaway torque
    μ_s f_n d/2 and held for 40 s. Statics: the stuck bristle carries the load, z_eq = T / (σ0 f_n d/2).
    The joint angle exceeds z_eq by the presliding term: with ż = q̇ (1 − σ0 z/g) the quasi-static path
    is q = −(g/σ0) ln(1 − σ0 z/g), 1.28 z_eq for g = μ_s (Dahl, γ = 1) and a little more for LuGre,
    whose g(q̇) ≤ μ_s. The ramp leaves a small swing on the weakly damped bristle spring, and the bristle
    ratchets forward with it while it decays. So, over 200 s: z → z_eq (1 %), q never beyond 1.5 z_eq,
    and the creep dies out: the last 20 s window mean moves < 1 % of
    z_eq and less than the window before it. A sliding joint would pass 1.5 z_eq within seconds.

    (Under a *step* load the rotor swings by ±z_eq and the ratchet carries it to several z_eq: the known
    drift of Dahl/LuGre under oscillation, which is why the load is ramped.)"""
    p = params()
    T = 0.4 * TABLE1_J2["mu_s"] * N_LOAD
    z_eq = T / (TABLE1_J2["sigma0"] * N_LOAD)

    def load(t):
        s = min(t / 20.0, 1.0)
        return T * s ** 3 * (10 - 15 * s + 6 * s * s)

    sol = solve_ivp(rotor_rhs(model, p, load), (0.0, 200.0), [0.0, 0.0, 0.0, 0.0], method="LSODA",
                    rtol=1e-10, atol=1e-13, dense_output=True)
    t = np.linspace(0.0, 200.0, 200001)
    q, _, z, _ = sol.sol(t)
    means = [q[(t >= a) & (t < a + 20)].mean() for a in (140, 160, 180)]
    assert z[t >= 180].mean() == pytest.approx(z_eq, rel=1e-2)
    assert q.max() <= 1.5 * z_eq and means[-1] >= z_eq
    if model == "lugre":  # Dahl has no σ1: its swing decays only through hysteresis, slowly
        assert abs(means[2] - means[1]) < 1e-2 * z_eq
    assert abs(means[2] - means[1]) <= abs(means[1] - means[0]) + 1e-6 * z_eq


@pytest.mark.parametrize("model", ["dahl", "lugre"])
def test_load_above_breakaway_slides(model):
    """A torque 50 % above the breakaway torque makes the joint slide (a check that the stick test can fail)."""
    p = params()
    T = 1.5 * TABLE1_J2["mu_s"] * N_LOAD
    sol = solve_ivp(rotor_rhs(model, p, lambda t: T), (0.0, 10.0), [0.0, 0.0, 0.0, 0.0], rtol=1e-9, atol=1e-12)
    assert sol.y[1, -1] > 0.1


@pytest.mark.parametrize("model", ["dahl", "lugre"])
def test_dissipated_energy_is_never_negative(model):
    """Sinusoidal torque twice the breakaway level: stick-slip with reversals. Energy balance
    D(t) = W(t) − J v²/2 − f_n d/2 σ0 z²/2 must be ≥ 0 and non-decreasing (friction only dissipates).
    Tolerance 1e-9 of the input work (integration at rtol 1e-11)."""
    p = params()
    amp = 2.0 * TABLE1_J2["mu_s"] * N_LOAD
    sol = solve_ivp(rotor_rhs(model, p, lambda t: amp * np.sin(2.0 * t) + 0.3 * amp * np.sin(7.3 * t)), (0.0, 12.0),
                    [0.0, 0.0, 0.0, 0.0], method="DOP853", rtol=1e-11, atol=1e-13, max_step=0.005)
    q, v, z, W = sol.y
    D = W - 0.5 * J * v ** 2 - N_LOAD * TABLE1_J2["sigma0"] * z ** 2 / 2
    tol = 1e-9 * np.max(np.abs(W)) + 1e-12
    assert D.min() > -tol
    assert np.all(np.diff(D) > -tol)
    assert D[-1] > 0.1 * np.max(np.abs(W))  # it does dissipate
    rate = dissipation_rate(model, v, z, np.full_like(v, FN), np.full_like(v, D_PIN), p)
    assert rate.min() > -1e-9 * np.max(np.abs(rate))


D_PIN = D


def test_dissipation_rate_matches_energy_balance():
    """The documented rate −t_f q̇ − N σ0 z ż, integrated, equals the energy-balance dissipation."""
    p = params()
    amp = 2.0 * TABLE1_J2["mu_s"] * N_LOAD
    base = rotor_rhs("lugre", p, lambda t: amp * np.sin(3.0 * t))

    def rhs(t, y):
        dy = base(t, y[:4])
        r = dissipation_rate("lugre", np.array([y[1]]), np.array([y[2]]), np.array([FN]), np.array([D]), p)[0]
        return dy + [r]

    sol = solve_ivp(rhs, (0.0, 5.0), [0.0] * 5, method="DOP853", rtol=1e-11, atol=1e-13, max_step=0.005)
    q, v, z, W, Dint = sol.y
    D_balance = W - 0.5 * J * v ** 2 - N_LOAD * TABLE1_J2["sigma0"] * z ** 2 / 2
    assert np.max(np.abs(Dint - D_balance)) < 1e-8 * np.max(np.abs(W))
