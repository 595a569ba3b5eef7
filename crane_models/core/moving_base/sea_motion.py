"""A moderate sea as a crane base feels it, the prescribed base motion of the demo scenarios of every crane on a
moving base (not from the papers): the motion inputs of the moving-base interface
(:data:`.interface.MOTION` then :data:`.interface.BASE_VELOCITY`) as functions of time."""
from __future__ import annotations

import math

import numpy as np

from .euler import euler_rate_matrix

__all__ = ["sea_motion"]

# A moderate sea as the crane base feels it (not from the papers): roll 3° at 8 s, pitch 1.7° at 6 s, yaw 0.6° at
# 20 s, and a heave and sway acceleration of the base point of 0.5 and 0.2 m/s² (a heave of 1 m at 9 s).
_SEA_AMPLITUDE = np.array([0.05, 0.03, 0.01])  # rad
_SEA_FREQUENCY = 2.0 * np.pi / np.array([8.0, 6.0, 20.0])  # rad/s


def sea_motion(t: float) -> list:
    """The motion inputs of a moving-base crane FMU at ``t`` (roll, pitch, yaw, ω, ω̇ in the base frame, base
    acceleration, base velocity): Euler angles ``a sin(w t)`` with the consistent ``ω = E q̇`` and
    ``ω̇ = E q̈ + Ė q̇`` of (53)."""
    q = _SEA_AMPLITUDE * np.sin(_SEA_FREQUENCY * t)
    qd = _SEA_AMPLITUDE * _SEA_FREQUENCY * np.cos(_SEA_FREQUENCY * t)
    qdd = -_SEA_FREQUENCY ** 2 * q
    r, p = q[0], q[1]
    e_dot = np.array([[0.0, 0.0, -math.cos(p) * qd[1]],
                      [0.0, -math.sin(r) * qd[0], math.cos(r) * math.cos(p) * qd[0] - math.sin(r) * math.sin(p) * qd[1]],
                      [0.0, -math.cos(r) * qd[0], -math.sin(r) * math.cos(p) * qd[0] - math.cos(r) * math.sin(p) * qd[1]]])
    E = euler_rate_matrix(r, p)
    acc = [0.0, 0.2 * math.sin(2.0 * np.pi * t / 7.0), 0.5 * math.sin(2.0 * np.pi * t / 9.0)]
    return list(q) + list(E @ qd) + list(E @ qdd + e_dot @ qd) + acc + [0.0, 0.0, 0.0]
