"""Linear (Airy) wave kinematics of a sum of wave components (:class:`.components.WaveComponents`) at any point of
the sea frame (:mod:`.state`: z up from the still water level), after DNV-RP-C205 (2021) section 3.2.2, table 3-1,
finite depth d (deep water is its limit, reached without overflow: the depth functions are written with
exponentials of non-positive arguments).

For component i with phase θ_i = ω_i t − k_i (x cos β_i + y sin β_i) + ε_i:
elevation η = Σ a_i cos θ_i; horizontal velocity along β_i, a_i ω_i cosh(k_i(z+d))/sinh(k_i d) cos θ_i;
vertical velocity −a_i ω_i sinh(k_i(z+d))/sinh(k_i d) sin θ_i; accelerations their time derivatives (the local
ones: the convective terms are of second order in the amplitude, beyond linear theory).

Above the still water level linear theory has no kinematics; **Wheeler stretching** (DNV-RP-C205 3.2.3) gives them:
a point at z under the actual surface η takes the kinematics of linear theory at z_s = d (z − η)/(d + η), which
maps the wetted column [−d, η] onto [−d, 0]; the crest (z = η) then moves as the still water level of linear
theory. It is applied over the whole column, as DNV writes it. A point above the surface is in air: zero
velocity and acceleration.

A sea built up from rest (``components.build_up`` > 0, :mod:`.build_up`): every amplitude times e(t) until T -- the
surface e η (the one the stretching and the wet test use), its rate ė η + e η̇, the velocity e u and the acceleration
ė u + e u̇ (u, u̇ those of the full sea at the stretched level of the built-up surface)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .build_up import FULL, build_up_envelope, built_up_rate

__all__ = ["wave_numbers", "phases", "elevation", "particle_kinematics", "WaterKinematics", "depth_factors",
           "sea_envelope"]


def wave_numbers(omega: np.ndarray, depth: float, g: float = 9.81) -> np.ndarray:
    """k solving the dispersion relation ω² = g k tanh(k d) (DNV-RP-C205 3.2.2.3), by Newton's method from the
    deep-water k = ω²/g (from above: tanh(kd) <= 1 makes the deep-water k a lower bound of ω²/(g tanh)), to
    machine precision."""
    w = np.atleast_1d(np.asarray(omega, dtype=float))
    k = np.maximum(w * w / g, w / np.sqrt(g * depth))  # the larger of the deep and shallow limits: k is above both
    for _ in range(100):
        t = np.tanh(k * depth)
        f = g * k * t - w * w
        df = g * t + g * k * depth * (1.0 - t * t)
        step = f / df
        k = k - step
        if np.all(np.abs(step) <= 1e-15 * k):
            break
    return k


def phases(components, t: float, x, y) -> np.ndarray:
    """θ_i at time ``t`` and horizontal position(s) ``(x, y)`` (arrays broadcast; components on the last axis)."""
    c = components
    x = np.asarray(x, dtype=float)[..., None]
    y = np.asarray(y, dtype=float)[..., None]
    return c.omega * t - c.wave_number * (x * np.cos(c.direction) + y * np.sin(c.direction)) + c.phase


def sea_envelope(components, t: float) -> tuple:
    """``(e, ė, ë)`` of the sea of ``components`` at model time ``t`` (:mod:`.build_up`; FULL without a build-up)."""
    return build_up_envelope(t, components.build_up)


def elevation(components, t: float, x=0.0, y=0.0) -> np.ndarray:
    """The surface elevation η [m] at time ``t`` over the point(s) ``(x, y)`` (built up: e η)."""
    eta = np.cos(phases(components, t, x, y)) @ components.amplitude
    e = sea_envelope(components, t)[0]
    return eta if e == 1.0 else e * eta


def depth_factors(k: np.ndarray, z: float, depth: float) -> tuple:
    """``(cosh(k(z+d))/sinh(kd), sinh(k(z+d))/sinh(kd))`` for −d <= z <= 0, in exponentials of non-positive
    arguments: ``(e^{kz} ± e^{−k(z+2d)}) / (1 − e^{−2kd})``."""
    up = np.exp(k * z)
    down = np.exp(-k * (z + 2.0 * depth))
    norm = -np.expm1(-2.0 * k * depth)
    return (up + down) / norm, (up - down) / norm


@dataclass(frozen=True)
class WaterKinematics:
    """The water at one point and time: the surface above it and its rate, the particle velocity and (local)
    acceleration in the sea frame; ``wet``: whether the point is under the surface."""

    elevation: float
    elevation_rate: float
    velocity: np.ndarray
    acceleration: np.ndarray
    wet: bool


def particle_kinematics(components, t: float, point) -> WaterKinematics:
    """The water at ``point`` (x, y, z in the sea frame) at time ``t``, with Wheeler stretching (module docstring);
    a point below the seabed takes the seabed's kinematics."""
    c = components
    x, y, z = (float(v) for v in point)
    theta = phases(c, t, x, y)
    cos, sin = np.cos(theta), np.sin(theta)
    a, w = c.amplitude, c.omega
    envelope = sea_envelope(c, t)
    eta = float(cos @ a)
    eta_rate = float(-(sin @ (a * w)))
    if envelope != FULL:
        eta, eta_rate = built_up_rate(envelope, eta, eta_rate)
    if c.size == 0 or z > eta:
        zero = np.zeros(3)
        return WaterKinematics(eta, eta_rate, zero, zero.copy(), c.size == 0 and z <= 0.0)
    d = c.depth
    stretched = max(d * (z - eta) / (d + eta), -d)
    ch, sh = depth_factors(c.wave_number, stretched, d)
    horizontal = a * w * ch
    vertical = a * w * sh
    ux, uy = np.cos(c.direction), np.sin(c.direction)
    velocity = np.array([(horizontal * cos) @ ux, (horizontal * cos) @ uy, -(vertical @ sin)])
    acceleration = np.array([-(horizontal * w * sin) @ ux, -(horizontal * w * sin) @ uy, -(vertical * w) @ cos])
    if envelope != FULL:
        velocity, acceleration = built_up_rate(envelope, velocity, acceleration)
    return WaterKinematics(eta, eta_rate, velocity, acceleration, True)
