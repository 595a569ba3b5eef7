"""The sea core (crane_models/core/sea): spectra against MHKiT and against DNV-RP-C205's formulas written out here,
the statistics of a 3-hour record, Airy kinematics (dispersion, decay with depth, Wheeler stretching at the crest),
the directional spreading and the seeds."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, signal

from crane_models.core.sea import (JONSWAP, PIERSON_MOSKOWITZ, REGULAR, SeaState, elevation, jonswap,
                                   particle_kinematics, pierson_moskowitz, wave_components, wave_numbers)
from crane_models.core.sea.components import energy_band, uniform_numbers

G = 9.81


def dnv_jonswap(w, hs, tp, gamma):
    """DNV-RP-C205 (2021) eq. 3.5.5.1-2 as printed: S_PM = 5/16 Hs² ωp⁴ ω⁻⁵ exp(−5/4 (ω/ωp)⁻⁴),
    S_J = (1 − 0.287 ln γ) S_PM γ^exp(−0.5 ((ω − ωp)/(σ ωp))²)."""
    wp = 2 * math.pi / tp
    spm = 5 / 16 * hs ** 2 * wp ** 4 * w ** -5 * np.exp(-5 / 4 * (w / wp) ** -4)
    sigma = np.where(w <= wp, 0.07, 0.09)
    return (1 - 0.287 * math.log(gamma)) * spm * gamma ** np.exp(-0.5 * ((w - wp) / (sigma * wp)) ** 2)


@pytest.mark.parametrize("hs, tp, gamma", [(2.5, 8.0, 3.3), (6.0, 12.0, 1.0), (1.0, 5.0, 7.0)])
def test_spectra_are_dnv_rp_c205(hs, tp, gamma):
    w = np.linspace(0.1, 4.0, 500)
    assert np.allclose(jonswap(w, hs, tp, gamma), dnv_jonswap(w, hs, tp, gamma), rtol=1e-12, atol=0)
    assert np.allclose(pierson_moskowitz(w, hs, tp), dnv_jonswap(w, hs, tp, 1.0), rtol=1e-12, atol=0)


@pytest.mark.parametrize("hs, tp, gamma", [(2.5, 8.0, 3.3), (4.0, 10.0, 2.0)])
def test_spectra_against_mhkit(hs, tp, gamma):
    """MHKiT (IEC TS 62600-2's forms) in Hz: S(ω) = S(f) / 2π at f = ω / 2π."""
    resource = pytest.importorskip("mhkit.wave.resource", reason="needs mhkit[wave] (the test extra)")
    f = np.linspace(0.02, 0.6, 300)
    w = 2 * math.pi * f
    mj = resource.jonswap_spectrum(f, tp, hs, gamma).to_numpy().ravel() / (2 * math.pi)
    mp = resource.pierson_moskowitz_spectrum(f, tp, hs).to_numpy().ravel() / (2 * math.pi)
    scale = mj.max()
    assert np.max(np.abs(jonswap(w, hs, tp, gamma) - mj)) <= 1e-10 * scale
    assert np.max(np.abs(pierson_moskowitz(w, hs, tp) - mp)) <= 1e-10 * mp.max()


def test_three_hour_record_has_the_sea_states_hs_and_tp():
    """4 sqrt(m0) of the elevation over 3 h within 3 % of Hs (the issue's bound; JONSWAP's own m0 is within 1 % of
    Hs²/16 and the sampled band leaves out 0.2 % of the energy); the spectral peak of the record (Welch, 128 s
    segments: bins of 1/128 Hz, 6 % of 1/Tp, 84 segments averaged) within one bin of 1/Tp."""
    sea = SeaState(sea_hs=2.5, sea_tp=8.0, sea_seed=7)
    c = wave_components(sea)
    dt = 0.25
    t = np.arange(0.0, 3 * 3600.0, dt)
    eta = np.array([elevation(c, ti) for ti in t])
    assert abs(4 * eta.std() / 2.5 - 1) < 0.03
    f, s = signal.welch(eta, fs=1 / dt, nperseg=int(128 / dt))
    assert abs(f[np.argmax(s)] - 1 / 8.0) <= f[1] - f[0]


def test_sampled_components_hold_the_spectrums_energy():
    """Σ a²/2 = ∫ S dω over the band (scipy quad of the formula above), stratified and equal-energy; no repeat period:
    the frequencies are not multiples of a common step (their differences are not all commensurate to 1e-6)."""
    sea = SeaState(sea_hs=3.0, sea_tp=9.0, sea_gamma=2.0, sea_components=300)
    low, high = energy_band(sea)
    m0 = integrate.quad(lambda w: dnv_jonswap(w, 3.0, 9.0, 2.0), low, high, limit=200)[0]
    for equal in (False, True):
        c = wave_components(sea, equal_energy=equal)
        assert abs(np.sum(c.amplitude ** 2) / 2 / m0 - 1) < 0.01  # 300 bins of a smooth spectrum: well within 1 %
    d = np.diff(np.sort(wave_components(sea).omega))
    assert np.std(d / d.mean()) > 0.1  # random in their bins, not a comb


def test_regular_wave_and_still_water():
    c = wave_components(SeaState(sea_spectrum=REGULAR, sea_hs=2.0, sea_tp=10.0, sea_heading=0.3))
    assert c.size == 1 and c.amplitude[0] == 1.0 and c.omega[0] == 2 * math.pi / 10.0 and c.direction[0] == 0.3
    assert elevation(c, 0.0) == 1.0  # crest over the origin at t = 0
    assert wave_components(SeaState(sea_hs=0.0)).size == 0
    assert particle_kinematics(wave_components(SeaState(sea_hs=0.0)), 3.0, (1, 2, -3)).velocity.tolist() == [0, 0, 0]


@pytest.mark.parametrize("depth", [5.0, 30.0, 1000.0])
def test_dispersion_relation(depth):
    w = np.linspace(0.05, 3.0, 60)
    k = wave_numbers(w, depth)
    assert np.allclose(G * k * np.tanh(k * depth), w ** 2, rtol=1e-13, atol=0)
    if depth == 1000.0:
        assert np.allclose(k[w > 0.3], w[w > 0.3] ** 2 / G, rtol=1e-12)  # deep water from λ < 2 d


@pytest.mark.parametrize("depth", [20.0, 1000.0])
def test_velocity_and_acceleration_decay_with_depth(depth):
    """One small wave (stretching negligible: a = 1 µm moves z_s by 1 µm, 1e-7 of u's relative change): u and w at depth z against Airy's finite-depth formulas
    written out with cosh and sinh (DNV-RP-C205 table 3-1)."""
    c = wave_components(SeaState(sea_spectrum=REGULAR, sea_hs=2e-6, sea_tp=7.0, water_depth=depth,
                                 sea_heading=0.0))
    a, w, k = 1e-6, c.omega[0], c.wave_number[0]
    for z in (-1.0, -5.0, -15.0):
        for t in (0.3, 1.9):
            theta = w * t
            q = particle_kinematics(c, t, (0.0, 0.0, z))
            zs = depth * (z - q.elevation) / (depth + q.elevation)
            ch, sh = np.cosh(k * (zs + depth)) / np.sinh(k * depth), np.sinh(k * (zs + depth)) / np.sinh(k * depth)
            expected_v = [a * w * ch * math.cos(theta), 0.0, -a * w * sh * math.sin(theta)]
            expected_a = [-a * w * w * ch * math.sin(theta), 0.0, -a * w * w * sh * math.cos(theta)]
            assert np.allclose(q.velocity, expected_v, rtol=1e-10, atol=1e-12 * a * w)
            assert np.allclose(q.acceleration, expected_a, rtol=1e-10, atol=1e-12 * a * w * w)
            # the local acceleration is the time derivative of the velocity (central differences, O(dt²) = 1e-8)
            dt = 1e-4
            fd = (particle_kinematics(c, t + dt, (0, 0, z)).velocity - particle_kinematics(c, t - dt, (0, 0, z)).velocity)
            assert np.allclose(fd / (2 * dt), q.acceleration, rtol=1e-6, atol=1e-6 * a * w * w)


def test_wheeler_stretching_at_the_crest():
    """At the crest of a steep regular wave the particle velocity is linear theory's at the still water level,
    a ω coth(kd), and horizontal; half way up the crest it is linear theory's at z_s = d (z − η)/(d + η); above the
    surface the point is in air."""
    depth = 40.0
    c = wave_components(SeaState(sea_spectrum=REGULAR, sea_hs=6.0, sea_tp=9.0, water_depth=depth, sea_heading=0.0))
    a, w, k = 3.0, c.omega[0], c.wave_number[0]
    crest = particle_kinematics(c, 0.0, (0.0, 0.0, 3.0))
    assert crest.wet and crest.elevation == pytest.approx(3.0, abs=1e-15)
    assert crest.velocity == pytest.approx([a * w / math.tanh(k * depth), 0.0, 0.0], abs=1e-12)
    half = particle_kinematics(c, 0.0, (0.0, 0.0, 1.5))
    zs = depth * (1.5 - 3.0) / (depth + 3.0)
    assert half.velocity[0] == pytest.approx(a * w * math.cosh(k * (zs + depth)) / math.sinh(k * depth), rel=1e-12)
    air = particle_kinematics(c, 0.0, (0.0, 0.0, 3.01))
    assert not air.wet and not air.velocity.any() and not air.acceleration.any()


def test_surface_moves_with_the_water():
    """The kinematic surface condition of linear theory: at the surface the vertical particle velocity is the
    elevation's rate (deep water, irregular, stretched to the surface)."""
    c = wave_components(SeaState(sea_hs=4.0, sea_tp=10.0, sea_spreading=4.0))
    for t in (12.0, 50.0, 77.7):
        q = particle_kinematics(c, t, (3.0, -2.0, 0.0))
        s = particle_kinematics(c, t, (3.0, -2.0, q.elevation))
        assert s.velocity[2] == pytest.approx(q.elevation_rate, rel=1e-9, abs=1e-12)
        dt = 1e-5
        rate = (elevation(c, t + dt, 3.0, -2.0) - elevation(c, t - dt, 3.0, -2.0)) / (2 * dt)
        assert q.elevation_rate == pytest.approx(float(rate), rel=1e-6)


@pytest.mark.parametrize("s", [1.0, 4.0, 15.0])
def test_directional_spreading_is_cos_2s(s):
    """For D(θ) ∝ cos^2s(θ/2) the mean of cos θ is s/(s+1); 2000 directions: their sample mean within 4 standard
    errors (the standard deviation of cos θ is at most 1/sqrt(2) · ... bounded by its sample value)."""
    c = wave_components(SeaState(sea_spreading=s, sea_heading=1.0, sea_components=2000))
    x = np.cos(c.direction - 1.0)
    assert abs(x.mean() - s / (s + 1)) < 4 * x.std() / math.sqrt(x.size)
    assert np.all(np.abs(c.direction - 1.0) <= math.pi)
    assert wave_components(SeaState(sea_spreading=0.0, sea_heading=1.0)).direction.tolist() == [1.0] * 200


def test_seeds():
    """SplitMix64's published first output for seed 0 is 0xE220A8397B1DCDAF; a seed is the same sea every time, and
    another seed another sea."""
    assert uniform_numbers(0, 1)[0] == (0xE220A8397B1DCDAF >> 11) * 2.0 ** -53
    one, again, other = (wave_components(SeaState(sea_seed=seed)) for seed in (5, 5, 6))
    assert one.phase.tobytes() == again.phase.tobytes() and one.omega.tobytes() == again.omega.tobytes()
    assert not np.allclose(one.phase, other.phase)
