"""A rigid body moved by sums of harmonic series -- a base whose motion is prescribed, not integrated (a vessel in
waves from its RAOs: ``models/wave_vessel``). The specification, in numpy, of the kernel's ``harmonic.c``, which
computes the same values whenever it is built (:class:`HarmonicBody` then calls it: the outputs are the kernel's on
every path, to the bit); this code is the path without the kernel.

Each of the body's six coordinates -- the position of its point O in a fixed frame (z up) and the Euler angles of
(53), ``R = R_z(yaw) R_y(pitch) R_x(roll)`` -- and any further scalar is a sum
``x(t) = Σ_i (c_i cos θ_i − s_i sin θ_i)``, ``θ_i = ω_i t + ε_i``, with its exact time derivatives. From them:

* the angular velocity in the body frame, ``ω = [φ̇ − sin θ ψ̇; cos φ θ̇ + sin φ cos θ ψ̇; −sin φ θ̇ + cos φ cos θ ψ̇]``
  (φ roll, θ pitch, ψ yaw), and its time derivative ``ω̇`` (the angular acceleration, same frame: ω × ω = 0);
* O's velocity and acceleration turned into the body frame, ``Rᵀ ṗ`` and ``Rᵀ p̈`` (the moving-base cranes'
  ``base_velocity``, ``base_acceleration``: kinematic, without gravity);
* in z-down axes (``z_down``, core/moving_base/ship.py) every vector ``F v`` and the angles ``F R F``: the same
  roll, pitch and yaw of opposite sign;
* built up from rest over ``build_up`` [s] (a sea's ``sea_build_up``, core/sea/build_up.py): every series, its rate
  and acceleration scaled by the envelope ``(e, ė, ë)`` of time t by the product rule, before all of the above.

>>> body = HarmonicBody(np.array([1.0]), np.zeros(1), np.array([[0.0], [0.0], [2.0], [0.0], [0.0], [0.0]]),
...                     np.zeros((6, 1)), use_kernel=False)
>>> body.values(0.0)[[15, 16, 17, 9, 10, 11]].tolist()  # heave 2 cos t: position 2, acceleration -2
[0.0, 0.0, 2.0, 0.0, 0.0, -2.0]
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..screws import rot_x, rot_y, rot_z
from ..sea.build_up import FULL, build_up_envelope, built_up

__all__ = ["HarmonicBody", "harmonic_sums", "euler_body_rates", "VALUE_NAMES", "MAX_SERIES"]

MAX_SERIES = 64  # harmonic.c's bound on the series of one body (6 coordinates and scalars)

# The values in the kernel's order (harmonic.h): attitude, ω, ω̇, O's acceleration and velocity (body frame), O's
# position and its displacement from the mean (fixed frame); the further scalar series follow.
VALUE_NAMES = (("roll", "pitch", "yaw") + tuple(f"angular_velocity_{a}" for a in "xyz")
               + tuple(f"angular_acceleration_{a}" for a in "xyz") + tuple(f"base_acceleration_{a}" for a in "xyz")
               + tuple(f"base_velocity_{a}" for a in "xyz") + tuple(f"base_position_{a}" for a in "xyz")
               + tuple(f"displacement_{a}" for a in "xyz"))


def harmonic_sums(omega: np.ndarray, phase: np.ndarray, c: np.ndarray, s: np.ndarray, t: float) -> tuple:
    """``(x, ẋ, ẍ)`` of the series with coefficients ``c``, ``s`` (series × components) at time ``t``.

    >>> sums = harmonic_sums(np.array([2.0]), np.zeros(1), np.ones((1, 1)), np.zeros((1, 1)), 0.0)
    >>> [v.round(12).tolist() for v in sums]
    [[1.0], [-0.0], [-4.0]]
    """
    theta = omega * t + phase
    cos, sin = np.cos(theta), np.sin(theta)
    value = c * cos - s * sin
    return value.sum(axis=1), -(omega * (c * sin + s * cos)).sum(axis=1), -(omega * omega * value).sum(axis=1)


def euler_body_rates(angles: np.ndarray, rates: np.ndarray, accels: np.ndarray) -> tuple:
    """``(ω, ω̇)`` in the body frame of ``R = R_z(ψ) R_y(θ) R_x(φ)`` from ``[φ, θ, ψ]``, their rates and second
    derivatives (the module's docstring).

    >>> [v.tolist() for v in euler_body_rates(np.zeros(3), np.array([0.0, 0.0, 1.0]), np.zeros(3))]
    [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    sf, cf, sq, cq = math.sin(angles[0]), math.cos(angles[0]), math.sin(angles[1]), math.cos(angles[1])
    df, dq, dp = rates
    ddf, ddq, ddp = accels
    w = np.array([df - sq * dp, cf * dq + sf * cq * dp, -sf * dq + cf * cq * dp])
    dw = np.array([ddf - sq * ddp - cq * dq * dp,
                   cf * ddq - sf * df * dq + sf * cq * ddp + (cf * cq * df - sf * sq * dq) * dp,
                   -sf * ddq - cf * df * dq + cf * cq * ddp - (sf * cq * df + cf * sq * dq) * dp])
    return w, dw


class HarmonicBody:
    """The series of one body: ``omega``, ``phase`` (n components), ``c``, ``s`` (series × n, series >= 6: x, y, z
    of O, roll, pitch, yaw, then scalars), O's mean position ``origin`` (fixed frame, z up), the axis convention
    ``z_down`` and the build-up time ``build_up`` [s] (0: none). :meth:`values` at a time: the kernel's ``mbs_harmonic_values`` when it is built (and ``use_kernel``),
    else :meth:`numpy_values`, the specification."""

    def __init__(self, omega: np.ndarray, phase: np.ndarray, c: np.ndarray, s: np.ndarray,
                 origin=(0.0, 0.0, 0.0), z_down: bool = False, use_kernel: bool = True,
                 build_up: float = 0.0) -> None:
        self.omega = np.ascontiguousarray(omega, dtype=float)
        self.phase = np.ascontiguousarray(phase, dtype=float)
        self.c, self.s = np.ascontiguousarray(c, dtype=float), np.ascontiguousarray(s, dtype=float)
        n = self.omega.size
        if self.phase.shape != (n,) or self.c.ndim != 2 or self.c.shape != self.s.shape or self.c.shape[1] != n:
            raise ValueError("a harmonic body needs omega and phase of n components and c, s of series x n")
        if not 6 <= self.c.shape[0] <= MAX_SERIES:
            raise ValueError(f"a harmonic body has 6 to {MAX_SERIES} series, not {self.c.shape[0]}")
        self.origin, self.z_down = np.array(origin, dtype=float), bool(z_down)
        self.build_up = float(build_up)
        if not (math.isfinite(self.build_up) and self.build_up >= 0.0):
            raise ValueError(f"a harmonic body's build_up is a time >= 0 s, not {build_up!r}")
        self.size = len(VALUE_NAMES) + self.c.shape[0] - 6
        self._native: Optional[object] = None
        if use_kernel:
            from ..native.harmonic import NativeHarmonic

            self._native = NativeHarmonic.of(self)

    @property
    def native(self):
        """The kernel's record of this body (:class:`core.native.harmonic.NativeHarmonic`), None without a kernel."""
        return self._native

    def values(self, t: float) -> np.ndarray:
        """The values of :data:`VALUE_NAMES` and the scalars at ``t`` (a new array)."""
        if self._native is not None:
            return self._native.values(t).copy()
        return self.numpy_values(t)

    def numpy_values(self, t: float) -> np.ndarray:
        """:meth:`values` in numpy; with a build-up every series, its rate and acceleration scaled by the envelope
        ``(e, ė, ë)`` at ``t`` by the product rule, ``(e x, ė x + e ẋ, ë x + 2 ė ẋ + e ẍ)`` (core/sea/build_up.py);
        the angular velocity and the body-frame vectors follow from the scaled series as from the series
        themselves."""
        x, rate, accel = harmonic_sums(self.omega, self.phase, self.c, self.s, float(t))
        envelope = build_up_envelope(float(t), self.build_up)
        if envelope != FULL:
            x, rate, accel = built_up(envelope, x, rate, accel)
        R = rot_z(x[5]) @ rot_y(x[4]) @ rot_x(x[3])
        w, dw = euler_body_rates(x[3:6], rate[3:6], accel[3:6])
        vectors = [w, dw, R.T @ accel[:3], R.T @ rate[:3], self.origin + x[:3], x[:3].copy()]
        angles = x[3:6].copy()
        if self.z_down:
            angles[1:] = -angles[1:]
            vectors = [v * np.array([1.0, -1.0, -1.0]) for v in vectors]
        return np.concatenate([angles] + vectors + [x[6:]])
