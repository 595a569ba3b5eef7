"""The FlexibleCrane's equilibrium start (``start_in_equilibrium``): the base and the link's elastic coordinates at
rest in equilibrium with the loads of t = 0, for the full and the reduced link; the default start unchanged.

Tolerances: the solve stops when every acceleration it solves for is below ``EQUILIBRIUM_TOL`` × g
(``statics.elastic_equilibrium``); the numpy specification of the equations agrees with the kernel to 1e-9 of the
largest acceleration (tests/test_flexible_reduced.py), which adds 1e-9 of the undeformed start's accelerations. The
deflection: a Rayleigh beam (Euler-Bernoulli with the section's rotary inertia) and the RFE's own discretisation
error, derived below; the reduced link: Craig-Bampton statics at the interface, derived below.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.core.parameters import ParameterError
from crane_models.core.springs import rfe_lengths
from crane_models.models.flexible_crane.parameters import FlexibleCraneInitialState, FlexibleCraneParameters
from crane_models.models.flexible_crane.spec import build_model, flexible_crane_spec
from crane_models.models.flexible_crane.statics import EQUILIBRIUM_TOL, link_deflection

N_RFE = 16
LINKS = {"full, paper": {}, "full, damped": {"link_damping_ratio": 0.02},
         "reduced": {"link_modes": 4, "link_damping_ratio": 0.02}}


def free_accelerations(model, x: np.ndarray) -> np.ndarray:
    return model.evaluate(0.0, x, np.zeros(1))["udot"][model.crane.free_static]


@pytest.mark.parametrize("values", LINKS.values(), ids=LINKS.keys())
def test_elastic_and_support_accelerations_vanish_at_the_start(values):
    """The paper's scenario (pulse (21), programmed constraints with E off its ellipse, LuGre): with the option the
    accelerations of the base and of the link's elastic coordinates are zero at t = 0 -- in the kernel to the solve's
    tolerance, and in the numpy specification (independent code) to that plus the two paths' agreement -- where the
    undeformed start gives them 1e2-1e3 (rad/s², m/s²)."""
    model, x_eq, _ = build_model({"n_rfe": N_RFE, **values, "start_in_equilibrium": True})
    _, x_paper, _ = build_model({"n_rfe": N_RFE, **values})
    g = model.crane.params.g
    undeformed = np.max(np.abs(free_accelerations(model, x_paper)))
    assert undeformed > 100.0
    assert np.max(np.abs(free_accelerations(model, x_eq))) <= EQUILIBRIUM_TOL * g
    model.crane.system.native, model.crane._native = None, None  # the numpy specification
    assert np.max(np.abs(free_accelerations(model, x_eq))) <= EQUILIBRIUM_TOL * g + 1e-9 * undeformed
    n = model.n  # at rest: the elastic and base rates zero, joints and bristles as (23)
    assert not np.any(x_eq[n:]) and np.array_equal(x_eq[model.crane.state_joint_coords],
                                                   x_paper[model.crane.state_joint_coords])


def rayleigh_pivot_deflection(p: FlexibleCraneParameters, angle: float) -> tuple:
    """The tip deflection, in the frame of its root, of a uniform beam (mass ``m2`` over ``l2``, bending stiffness ``E
    I_z2``, section rotary inertia ``I_z2 / A2`` per unit mass) pinned at its root at ``angle`` above the horizontal
    and released from rest under gravity: its angular acceleration ``α = g cos(angle) L / 2 / (L²/3 + r²)``, the
    load per length ``ρ (g cos − α s)`` and the couple ``−ρ r² α``, the moment ``M(x)`` of what lies outboard,
    and ``v(L) = ∫ M (L − x) dx / EI`` (v(0) = v'(0) = 0 in the root's frame; M(0) = 0: the pin).

    Returns ``(v(L), e)``: ``e`` the RFE's discretisation error. An RFE link of n elements has its springs ``EI/d``
    at the middles of n − 1 sections of length d (rfe_lengths), so its tip deflection is the midpoint rule of that
    integral (its loads lumped per element reproduce M at the springs): the rule's error for the quartic integrand
    g = M (L − x)/EI: the rule gives the integral minus ``d²/24 (g'(L) − g'(0)) + O(d⁴)``, with g'(L) = 0 and
    g'(0) = M'(0) L / EI."""
    L, rho, EI, r2, gc = p.l2, p.m2 / p.l2, p.E * p.I_z2, p.I_z2 / p.A2, p.g * math.cos(angle)
    alpha = gc * L / 2.0 / (L * L / 3.0 + r2)

    def moment(x):
        return rho * (gc * (L - x) ** 2 / 2.0 - alpha * ((L ** 3 - x ** 3) / 3.0 - x * (L * L - x * x) / 2.0)
                      - r2 * alpha * (L - x))

    nodes, weights = np.polynomial.legendre.leggauss(4)  # exact for the quartic integrand
    x = 0.5 * L * (nodes + 1.0)
    v = float(np.sum(0.5 * L * weights * moment(x) * (L - x))) / EI
    d = L / (N_RFE - 1)
    dm0 = -rho * (gc * L - alpha * L * L / 2.0) + rho * r2 * alpha  # M'(0)
    return v, d * d / 24.0 * dm0 * L / EI


def test_equilibrium_deflection_of_a_released_link_is_a_rayleigh_beams():
    """No constraint, no friction, no pulse, no load and link (c,3) all but massless: at t = 0 link (c,2) swings on its
    root pin from rest, so its equilibrium shape is the quasi-static bending under its weight and the inertia of the
    swing -- outboard the inertia outweighs gravity, the tip bends up relative to the root, a tenth of the
    cantilever's deflection the other way. The RFE's tip deflection is the beam's plus the midpoint rule's leading
    error (0.37 % with 16 elements); what remains -- the rule's O(d⁴) term (< 1e-5), the base's tilt on its supports
    (1e-5 rad) and the elements' lumped loads -- within 2 % of that error (7e-5 of the deflection)."""
    p = FlexibleCraneParameters()
    angle = FlexibleCraneInitialState().q_c2_0
    model, x0, _ = build_model({"n_rfe": N_RFE, "constraints_enabled": False, "friction_model": 0,
                                "paper_torque_enabled": False, "m_E": 0.0, "m3": 1e-6, "start_in_equilibrium": True})
    got = link_deflection(model.crane, model.evaluate(0.0, x0, np.zeros(1))["kin"])["link2_deflection_y"]
    v, e = rayleigh_pivot_deflection(p, angle)
    assert abs(v) > 2e-5 and abs(e) > 3e-3 * abs(v)  # the error is worth resolving: the check below is 50x finer
    # link2_deflection_y is positive against gravity (a cantilever under its weight gives -ρgcL⁴/8EI): −v
    assert got == pytest.approx(-(v + e), abs=0.02 * abs(e))
    assert rfe_lengths(p.l2, N_RFE)[0] == pytest.approx(0.5 * p.l2 / (N_RFE - 1))  # the springs where assumed


def test_reduced_equilibrium_matches_the_full_links_at_the_interface():
    """The reduced link solved in its own coordinates against the full link's solve, the paper's scenario: the end of
    link (c,2) (its deflection in and out of the luffing plane, its twist) and the base. Craig-Bampton statics are
    exact at the interface for any load on the link -- the interior loads reach it through Ψᵀ exactly, and the
    fixed-interface modes are K-orthogonal to Ψ, so dropping some does not move it -- in the linear theory; the RFE
    kinematics bring the dropped interior shape in at second order, its rotations (< 1e-4 rad) times the deflection:
    1e-5 of it at most."""
    results = []
    for values in (LINKS["full, damped"], LINKS["reduced"]):
        model, x0, _ = build_model({"n_rfe": N_RFE, **values, "start_in_equilibrium": True})
        results.append((link_deflection(model.crane, model.evaluate(0.0, x0, np.zeros(1))["kin"]), x0[:6]))
    (full, base_f), (reduced, base_r) = results
    for name in ("link2_deflection_y", "link2_deflection_z", "link2_torsion"):
        assert abs(full[name]) > 1e-4, name  # loaded in all three: the weight, the pulse (21) turning the arm
        assert reduced[name] == pytest.approx(full[name], rel=1e-5), name
    np.testing.assert_allclose(base_r, base_f, rtol=0, atol=1e-5 * np.max(np.abs(base_f)))


@pytest.mark.parametrize("values", [{}, {"n_rfe": N_RFE, **LINKS["reduced"]}, {"n_rfe": 1}])
def test_default_start_is_the_papers_undeformed_one(values):
    """(23) exactly: base at the origin, the joint angles of the paper, every elastic coordinate, rate and bristle
    zero -- by default and with the option false."""
    spec = {v.name: v.start for v in flexible_crane_spec().parameters}
    assert spec["start_in_equilibrium"] is False
    model, x0, _ = build_model(values)
    _, x_false, _ = build_model({**values, "start_in_equilibrium": False})
    expected = np.zeros_like(x0)
    expected[model.crane.state_joint_coords] = [1.5 * math.pi, 0.25 * math.pi, 1.5 * math.pi]
    assert np.array_equal(x0, expected) and np.array_equal(x_false, expected)


def test_two_starts_at_once_are_refused_in_one_line():
    with pytest.raises(ParameterError) as e:
        build_model({"start_static": True, "start_in_equilibrium": True})
    message = str(e.value)
    assert "\n" not in message and "start_static" in message and "start_in_equilibrium" in message
