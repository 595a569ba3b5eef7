"""A sea state as a sum of wave components (DNV-RP-C205 3.3.2: an irregular sea as the superposition of linear
waves with random phases), made once from the parameters and evaluated as often as needed (:mod:`.kinematics`).

Sampling: the frequency band holding all but 0.2 % of the spectrum's energy (0.1 % cut at each end) is cut into N
bins -- of equal width ("stratified", default) or of equal energy --, and each component takes a frequency drawn
uniformly inside its bin: the components then share no common period, so the sea does not repeat inside any run
(equally spaced frequencies would repeat after 2π/Δω, e.g. 10 min for 200 components over 2 rad/s). Amplitudes
are deterministic, a_i = sqrt(2 S(ω_i) Δω_i); phases uniform in [0, 2π); with spreading each component gets one
direction drawn from cos^2s((θ − θ0)/2) (the single-direction-per-frequency method: no phase locking).

Random numbers come from SplitMix64 written out here, not from numpy's generators: its stream is fixed by these
lines, so a seed means the same sea in every FMU, every process and every numpy version."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .kinematics import wave_numbers
from .spectra import spectrum
from .state import REGULAR, SeaState

__all__ = ["WaveComponents", "wave_components", "uniform_numbers", "energy_band"]

_MASK64 = (1 << 64) - 1
_ENERGY_CUT = 1e-3  # the energy left out below and above the sampled band, each
GRAVITY = 9.81  # m/s², as the crane models' default g


@dataclass(frozen=True)
class WaveComponents:
    """Component i: elevation a_i cos(ω_i t − k_i (x cos β_i + y sin β_i) + ε_i) in the sea frame
    (:mod:`.state`), in water of depth ``depth``; ``width`` is each component's frequency bin Δω_i (0 for a
    regular wave)."""

    amplitude: np.ndarray
    omega: np.ndarray
    wave_number: np.ndarray
    direction: np.ndarray
    phase: np.ndarray
    width: np.ndarray
    depth: float
    g: float = GRAVITY
    build_up: float = 0.0  # s, the sea built up from rest over model time 0..build_up (:mod:`.build_up`)

    @property
    def size(self) -> int:
        return int(self.amplitude.size)


def uniform_numbers(seed: int, count: int) -> np.ndarray:
    """``count`` doubles uniform in [0, 1) from SplitMix64 seeded with ``seed`` (the top 53 bits of each output).

    >>> uniform_numbers(0, 2).round(12).tolist()
    [0.883310808214, 0.431527997049]
    """
    state = int(seed) & _MASK64
    out = np.empty(count)
    for i in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        out[i] = (z >> 11) * 2.0 ** -53
    return out


def _fine_grid(sea: SeaState) -> tuple:
    """The spectrum on a fine grid over 0.2-25 ωp and its cumulative energy (trapezoids)."""
    wp = 2.0 * math.pi / sea.sea_tp
    w = np.linspace(0.2 * wp, 25.0 * wp, 20001)
    s = spectrum(sea.sea_spectrum, w, sea.sea_hs, sea.sea_tp, sea.sea_gamma)
    cumulative = np.concatenate(([0.0], np.cumsum(0.5 * (s[1:] + s[:-1]) * np.diff(w))))
    return w, s, cumulative


def energy_band(sea: SeaState) -> tuple:
    """``(ω_low, ω_high)``: the band holding all of the spectrum's energy but 0.1 % at each end."""
    w, _, cumulative = _fine_grid(sea)
    total = cumulative[-1]
    return tuple(np.interp([_ENERGY_CUT * total, (1.0 - _ENERGY_CUT) * total], cumulative, w))


def _bin_edges(sea: SeaState, equal_energy: bool) -> np.ndarray:
    w, _, cumulative = _fine_grid(sea)
    low, high = energy_band(sea)
    n = sea.sea_components
    if not equal_energy:
        return np.linspace(low, high, n + 1)
    total = cumulative[-1]
    return np.interp(np.linspace(_ENERGY_CUT, 1.0 - _ENERGY_CUT, n + 1) * total, cumulative, w)


def _directions(sea: SeaState, u: np.ndarray) -> np.ndarray:
    """Directions from the cos-2s spreading function by its inverse cumulative distribution (numerically, on 4001
    points), θ0 = sea_heading; all θ0 when sea_spreading is 0 (long-crested)."""
    if sea.sea_spreading == 0.0:
        return np.full(u.size, sea.sea_heading)
    theta = np.linspace(-math.pi, math.pi, 4001)
    density = np.cos(0.5 * theta) ** (2.0 * sea.sea_spreading)
    cumulative = np.concatenate(([0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(theta))))
    return sea.sea_heading + np.interp(u * cumulative[-1], cumulative, theta)


def wave_components(sea: SeaState, equal_energy: bool = False, g: float = GRAVITY) -> WaveComponents:
    """The components of ``sea``: none in still water, one for a regular wave (amplitude Hs/2, period Tp, along
    sea_heading, crest at the origin at t = 0), else ``sea_components`` of the spectrum sampled as the module says.
    The random numbers are drawn in a fixed order: a frequency, a phase and a direction per component."""
    empty = np.zeros(0)
    if sea.still:
        return WaveComponents(empty, empty, empty, empty, empty, empty, sea.water_depth, g, sea.sea_build_up)
    if sea.sea_spectrum == REGULAR:
        omega = np.array([2.0 * math.pi / sea.sea_tp])
        return WaveComponents(np.array([0.5 * sea.sea_hs]), omega, wave_numbers(omega, sea.water_depth, g),
                              np.array([sea.sea_heading]), np.zeros(1), np.zeros(1), sea.water_depth, g,
                              sea.sea_build_up)
    n = sea.sea_components
    u = uniform_numbers(sea.sea_seed, 3 * n).reshape(n, 3)
    edges = _bin_edges(sea, equal_energy)
    width = np.diff(edges)
    omega = edges[:-1] + u[:, 0] * width
    density = spectrum(sea.sea_spectrum, omega, sea.sea_hs, sea.sea_tp, sea.sea_gamma)
    if equal_energy:  # each bin holds the same energy: a_i from it, not from S at the drawn frequency
        _, _, cumulative = _fine_grid(sea)
        amplitude = np.full(n, math.sqrt(2.0 * (1.0 - 2.0 * _ENERGY_CUT) * cumulative[-1] / n))
    else:
        amplitude = np.sqrt(2.0 * density * width)
    return WaveComponents(amplitude, omega, wave_numbers(omega, sea.water_depth, g), _directions(sea, u[:, 2]),
                          2.0 * math.pi * u[:, 1], width, sea.water_depth, g, sea.sea_build_up)
