"""The Euler angles of a moving base, eq. (53) of Cibicik & Egeland (*Determination of constraint forces for an
offshore crane on a moving base*): ``R^0_1 = R_z(q3) R_y(q2) R_x(q1)`` (roll ``q1``, pitch ``q2``, yaw ``q3``), the
body rates ``ω^1_{01} = E q̇`` and their derivatives -- what every crane on a moving base needs to read the
base's motion."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["euler_rate_matrix", "euler_rate_matrix_inverse", "euler_rates", "euler_accelerations", "base_motion_of"]


def euler_rate_matrix(roll: float, pitch: float) -> np.ndarray:
    """``E`` with ``ω^1_{01} = E [q̇1, q̇2, q̇3]`` for ``R_z(q3) R_y(q2) R_x(q1)`` (53): the roll axis x1, the
    pitch axis ``R_x(q1)ᵀ y`` and the yaw axis ``R_x(q1)ᵀ R_y(q2)ᵀ z`` in Frame 1.

    >>> euler_rate_matrix(0.0, 0.0)  # upright: body rates are the Euler rates
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    c1, s1, c2, s2 = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    return np.array([[1.0, 0.0, -s2], [0.0, c1, s1 * c2], [0.0, -s1, c1 * c2]])


def euler_rate_matrix_inverse(roll: float, pitch: float) -> np.ndarray:
    """``E⁻¹`` in closed form (a 3×3 solve costs more than the rest of a derivative): with ``t = tan(pitch)``,
    ``[[1, s1 t, c1 t], [0, c1, −s1], [0, s1/c2, c1/c2]]``; singular at pitch ±π/2, as (53) itself."""
    c1, s1, c2, s2 = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    t = s2 / c2
    return np.array([[1.0, s1 * t, c1 * t], [0.0, c1, -s1], [0.0, s1 / c2, c1 / c2]])


def euler_rates(angles: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``q̇ = E⁻¹ ω`` (singular at pitch ±π/2, as (53) itself)."""
    return euler_rate_matrix_inverse(angles[0], angles[1]) @ omega


def euler_accelerations(angles: np.ndarray, rates: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``q̈ = E⁻¹ (ω̇ − Ė q̇)``, the time derivative of ``ω = E q̇``."""
    r, p = angles[0], angles[1]
    c1, s1, c2, s2 = math.cos(r), math.sin(r), math.cos(p), math.sin(p)
    d1, d2 = rates[0], rates[1]
    e_dot = np.array([[0.0, 0.0, -c2 * d2],
                      [0.0, -s1 * d1, c1 * c2 * d1 - s1 * s2 * d2],
                      [0.0, -c1 * d1, -s1 * c2 * d1 - c1 * s2 * d2]])
    return euler_rate_matrix_inverse(r, p) @ (alpha - e_dot @ rates)


def base_motion_of(motion: list) -> tuple:
    """``(angles, q̇, u̇_base)`` of the motion inputs ``[roll, pitch, yaw, ω (3), ω̇ (3), a (3)]`` (Frame 1): the
    Euler rates ``q̇ = E⁻¹ ω``, the Euler accelerations ``q̈ = E⁻¹ (ω̇ − Ė q̇)`` of (53) and the base-point
    acceleration in Frame 0, ``R^0_1 a`` -- as :func:`euler_rates` and :func:`euler_accelerations` (the tests
    compare), written out in floats: numpy's 3-vectors cost more than the arithmetic. The specification of the
    kernel's ``mbs_base_motion`` (core/native/moving_base.c), which the moving-base cranes use when it is loaded."""
    r, p, y, wx, wy, wz, ax, ay, az, bx, by, bz = motion[:12]
    c1, s1, c2, s2, c3, s3 = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    t = s2 / c2

    def e_inverse(v0: float, v1: float, v2: float) -> list:
        return [v0 + s1 * t * v1 + c1 * t * v2, c1 * v1 - s1 * v2, (s1 * v1 + c1 * v2) / c2]

    d1, d2, d3 = e_inverse(wx, wy, wz)
    e_dot_rates = (-c2 * d2 * d3, -s1 * d1 * d2 + (c1 * c2 * d1 - s1 * s2 * d2) * d3,
                   -c1 * d1 * d2 - (s1 * c2 * d1 + c1 * s2 * d2) * d3)
    qdd = e_inverse(ax - e_dot_rates[0], ay - e_dot_rates[1], az - e_dot_rates[2])
    # R_z(y) R_y(p) R_x(r) [bx, by, bz]
    v1 = (bx, c1 * by - s1 * bz, s1 * by + c1 * bz)
    v2 = (c2 * v1[0] + s2 * v1[2], v1[1], -s2 * v1[0] + c2 * v1[2])
    acc0 = [c3 * v2[0] - s3 * v2[1], s3 * v2[0] + c3 * v2[1], v2[2]]
    return [r, p, y], [d1, d2, d3], qdd + acc0
