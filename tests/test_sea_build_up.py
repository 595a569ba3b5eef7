"""A sea built up from rest (``sea_build_up``, core/sea/build_up.py): the whole sea -- the WaveVessel's motion, the
elevation and the water's kinematics -- is the full sea times e(t) = 10 s³ − 15 s⁴ + 6 s⁵ over model time 0..T, so
its rates and accelerations are the time derivatives of its values across the build-up (checked by central
differences of the outputs, not against the code's product rule); the sea at full strength after T, to the bit;
the default (0) the full sea from t = 0, to the bit; the kernel's vessel the numpy specification's."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.core.hydro import water_at_payload
from crane_models.core.parameters import ParameterError
from crane_models.core.screws import rot_x, rot_y, rot_z
from crane_models.core.sea import SeaState, elevation, particle_kinematics, wave_components
from crane_models.core.sea.kinematics import phases
from crane_models.fmi.spec import check_parameters
from crane_models.models.at_sea import SEA_PARAMETER_NAMES, components_from, sea_parameters
from crane_models.models.registry import SPECS
from crane_models.models.sea_systems import DEMO_SEA
from fmu_helpers import needs_kernel

T = 10.0
H = 1e-3  # s, the central differences' step: error h²/6 |x'''| -- below 1e-7 of the motion's rate at these periods
BUILDING = np.linspace(0.05, T - 0.05, 37)  # times inside the build-up (not at its ends: the differences straddle)


def vessel_body(build_up: float, use_kernel: bool = True):
    """The WaveVessel FMU's own body in the demo's sea (its default RAO table) with the build-up ``build_up``."""
    spec = SPECS["WaveVessel"]()
    values = {**{p.name: p.start for p in spec.parameters}, **DEMO_SEA, "sea_build_up": build_up}
    body = spec.build(values)[0].body
    if not use_kernel:
        body._native = None
    return body


def rotation(v: np.ndarray) -> np.ndarray:
    return rot_z(v[2]) @ rot_y(v[1]) @ rot_x(v[0])


def central(f, t: float) -> np.ndarray:
    return (np.asarray(f(t + H)) - np.asarray(f(t - H))) / (2.0 * H)


@pytest.mark.parametrize("use_kernel", [True, False])
def test_the_vessels_rates_are_the_time_derivatives_of_its_built_up_motion(use_kernel):
    """O's displacement (fixed frame) -> its velocity R v_body -> its acceleration R a_body; the attitude R ->
    the angular velocity (Rᵀ Ṙ = [ω]×) -> the angular acceleration ω̇ (body frame). Tolerance 1e-6 of each
    quantity's largest value over the build-up: the differences' error is h²/6 |x'''| ~ 2e-7 ω² of it at the
    highest wave frequencies (ω < 2 rad/s)."""
    body = vessel_body(T, use_kernel)
    v = body.values
    rows = {"velocity": [], "d displacement": [], "acceleration": [], "d velocity": [], "omega": [],
            "d attitude": [], "omega dot": [], "d omega": []}
    for t in BUILDING:
        x = v(t)
        R = rotation(x[:3])
        rows["velocity"].append(R @ x[12:15])
        rows["d displacement"].append(central(lambda s: v(s)[18:21], t))
        rows["acceleration"].append(R @ x[9:12])
        rows["d velocity"].append(central(lambda s: rotation(v(s)[:3]) @ v(s)[12:15], t))
        W = R.T @ central(lambda s: rotation(v(s)[:3]), t)
        rows["omega"].append(x[3:6])
        rows["d attitude"].append([W[2, 1], W[0, 2], W[1, 0]])
        rows["omega dot"].append(x[6:9])
        rows["d omega"].append(central(lambda s: v(s)[3:6], t))
    rows = {k: np.array(r) for k, r in rows.items()}
    for exact, difference in (("velocity", "d displacement"), ("acceleration", "d velocity"),
                              ("omega", "d attitude"), ("omega dot", "d omega")):
        scale = np.abs(rows[exact]).max()
        assert scale > 1e-4, exact  # the vessel moves during the build-up: the check is not of zeros
        np.testing.assert_allclose(rows[difference], rows[exact], atol=1e-6 * scale, rtol=0, err_msg=exact)


def test_the_vessel_starts_from_rest_and_is_the_full_seas_after_the_build_up():
    built, full = vessel_body(T), vessel_body(0.0)
    assert not built.values(0.0)[:21].any()  # at rest at the mean position: every motion value 0 (angles, rates)
    assert built.values(0.0)[15:18].tolist() == [0.0, 0.0, 0.0]  # O on the still water (reference_height 0)
    for t in (T, T + 1e-9, 10.05, 12.5, 300.0):
        assert np.array_equal(built.values(t), full.values(t)), t  # the kernel's path
        assert np.array_equal(built.numpy_values(t), full.numpy_values(t)), t  # the specification's
    # during it, the displacement is e(t) times the full sea's (e written out: the quintic)
    for t in (1.0, 5.0, 9.0):
        s = t / T
        e = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
        np.testing.assert_allclose(built.values(t)[18:21], e * full.values(t)[18:21], rtol=1e-14, atol=1e-16)


@needs_kernel
def test_the_kernel_computes_the_numpy_build_up():
    """The kernel's harmonic.c and the numpy specification during the build-up: to round-off (the sums are
    summed in another order; the envelope's operations are the same)."""
    kernel, numpy_path = vessel_body(T), vessel_body(T, use_kernel=False)
    assert kernel.native is not None and numpy_path.native is None
    for t in (0.0, 0.37, 2.5, 5.0, 9.99, T, 11.0):
        got, want = kernel.values(t), numpy_path.numpy_values(t)
        assert np.abs(got - want).max() <= 1e-13 * max(1.0, np.abs(want).max()), t


def test_by_default_the_sea_is_at_full_strength_from_the_start():
    """sea_build_up defaults to 0 on every FMU with the sea, and the elevation is then the plain Airy sum
    Σ a_i cos θ_i (written here) to the bit from t = 0; so is the vessel's (its seventh series)."""
    assert SeaState().sea_build_up == 0.0
    for fmu in ("WaveVessel", "KnuckleBoomCraneOnMovingBase"):
        starts = {p.name: p.start for p in SPECS[fmu]().parameters}
        assert starts["sea_build_up"] == 0.0, fmu
    components = components_from({p.name: p.start for p in sea_parameters()})
    spec = SPECS["WaveVessel"]()
    body = spec.build({p.name: p.start for p in spec.parameters})[0].body
    for t in (0.0, 0.5, 3.0, 9.5):
        plain = np.cos(phases(components, t, 0.0, 0.0)) @ components.amplitude
        assert abs(plain) > 1e-3  # mid-wave: a scaled sea would differ
        assert elevation(components, t) == plain
        assert particle_kinematics(components, t, (0.0, 0.0, -3.0)).elevation == plain
        # the vessel's seventh series, summed by the kernel in its own order: to round-off of the sum of |a_i|
        assert abs(body.values(t)[21] - plain) <= 1e-14 * components.amplitude.sum() * components.size


def _sea(build_up: float) -> object:
    # a regular wave of 2 cm (steepness k a = 6e-4): the Wheeler stretching's time dependence (of order k a of the
    # acceleration) stays below the tolerance; the build-up is what is checked
    return wave_components(SeaState(sea_spectrum=0, sea_hs=0.04, sea_tp=8.0, sea_heading=0.3,
                                    sea_build_up=build_up))


def test_the_waters_rates_are_the_time_derivatives_of_the_built_up_sea():
    """At a point 5 m down (and the payload's wetted centre there, core/hydro.py): η̇ = dη/dt, u̇ = du/dt by
    central differences across the build-up, to 2e-3 of each quantity's largest value (the stretching's share,
    k a ≈ 6e-4, and the differences' h²/6 ω² ≈ 1e-7); the full wave after T to the bit."""
    sea, full = _sea(T), _sea(0.0)
    point = (1.0, 2.0, -5.0)

    def water(t):
        w = particle_kinematics(sea, t, point)
        return w.elevation, w.elevation_rate, w.velocity, w.acceleration

    def payload(t):  # a 2 m tall payload with its bottom 6 m down: the wetted centre at -5 m
        w = water_at_payload(sea, t, 1.0, 2.0, -6.0, 2.0)
        return w.elevation, w.elevation_rate, w.velocity, w.acceleration

    for source in (water, payload):
        rate, d_eta, acc, d_u = [], [], [], []
        for t in BUILDING:
            _, eta_rate, _, a = source(t)
            rate.append(eta_rate)
            d_eta.append((source(t + H)[0] - source(t - H)[0]) / (2 * H))
            acc.append(a)
            d_u.append((source(t + H)[2] - source(t - H)[2]) / (2 * H))
        for exact, diff in ((np.array(rate), np.array(d_eta)), (np.array(acc), np.array(d_u))):
            scale = np.abs(exact).max()
            assert scale > 1e-4
            np.testing.assert_allclose(diff, exact, atol=2e-3 * scale, rtol=0)
        assert source(0.0)[0] == 0.0 and not np.any(source(0.0)[2]) and not np.any(source(0.0)[3])
    for t in (T, 10.05, 14.0):
        a, b = particle_kinematics(sea, t, point), particle_kinematics(full, t, point)
        assert (a.elevation, a.elevation_rate) == (b.elevation, b.elevation_rate)
        assert np.array_equal(a.velocity, b.velocity) and np.array_equal(a.acceleration, b.acceleration)


@pytest.mark.parametrize("value", [-1.0, 600.5, math.nan])
def test_a_build_up_out_of_range_is_one_line(value):
    spec = SPECS["WaveVessel"]()
    values = {p.name: p.start for p in spec.parameters}
    values["sea_build_up"] = value
    with pytest.raises(ParameterError) as info:
        check_parameters(spec.parameters, values)
    text = str(info.value)
    assert text.startswith("sea_build_up = ") and "600" in text and "\n" not in text


def test_the_sea_parameters_carry_the_build_up_once():
    assert SEA_PARAMETER_NAMES.count("sea_build_up") == 1
