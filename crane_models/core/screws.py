"""Screw algebra of Cibicik & Egeland (2018), section 2.

Screws (twists and wrenches) are 6-vectors ``s = [u; w]``: a twist is ``[omega; v]``, a wrench is
``[f; n]`` (force first, as in eq. (46)). Both change reference point with the same matrix ``U`` (8) and
change coordinates with ``R̄`` (7). Functions here are the paper's operators, one each, so that code
built on them reads like the paper.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "skew",
    "rot_x",
    "rot_y",
    "rot_z",
    "axis_rotation",
    "screw_reference_transform",
    "screw_rotation",
    "screw_transform",
    "combined_screw_transform",
    "INTERCHANGE",
    "interchange",
    "twist_cross",
    "line",
    "line_at_infinity",
]


def skew(p: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrix ``p̂`` with ``p̂ x = p × x``.

    >>> skew([1.0, 2.0, 3.0]) @ np.array([0.0, 0.0, 1.0])
    array([ 2., -1.,  0.])
    """
    x, y, z = p
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rot_x(angle: float) -> np.ndarray:
    """Rotation matrix ``R_x(angle)`` (positive angle turns +y towards +z)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(angle: float) -> np.ndarray:
    """Rotation matrix ``R_y(angle)`` (positive angle turns +z towards +x)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(angle: float) -> np.ndarray:
    """Rotation matrix ``R_z(angle)`` (positive angle turns +x towards +y)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` about the unit vector ``axis`` (Rodrigues' formula)."""
    k = skew(axis)
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def screw_reference_transform(p_ab: np.ndarray) -> np.ndarray:
    """Screw reference transformation ``U_ab`` of eq. (8).

    Moves the reference point of a screw from ``b`` to ``a``; ``p_ab`` is the position vector from ``a``
    to ``b``. For a twist ``[ω; v_b]`` it gives ``[ω; v_b + p_ab × ω]`` = the velocity of point ``a``;
    for a wrench ``[f; n_b]`` it gives the moment about ``a``.

    >>> screw_reference_transform([0.0, 0.0, 2.0]) @ np.array([1.0, 0, 0, 0, 0, 0])
    array([1., 0., 0., 0., 2., 0.])
    """
    u = np.eye(6)
    u[3:, :3] = skew(p_ab)
    return u


def screw_rotation(r_ji: np.ndarray) -> np.ndarray:
    """Screw rotation matrix ``R̄`` of eq. (7): the 3×3 rotation on both halves of a screw."""
    out = np.zeros((6, 6))
    out[:3, :3] = r_ji
    out[3:, 3:] = r_ji
    return out


def screw_transform(r_ij: np.ndarray, p_ab_j: np.ndarray) -> np.ndarray:
    """``R̄^i_j U^j_ab`` of eq. (6)/(9): change reference point b→a, then coordinates j→i."""
    out = np.zeros((6, 6))
    out[:3, :3] = r_ij
    out[3:, 3:] = r_ij
    out[3:, :3] = r_ij @ skew(p_ab_j)
    return out


def combined_screw_transform(
    r_next_k: np.ndarray, p_next_k_k: np.ndarray, p_m_next_next: np.ndarray
) -> np.ndarray:
    """``V^{k+1,k}_{m_{k+1},k}`` of eq. (24).

    Takes a twist of Link k referenced to the origin of Frame k (coordinates k) to the same twist
    referenced to the COG ``m_{k+1}`` of Link k+1 in coordinates of Frame k+1. ``r_next_k`` is
    ``R^{k+1}_k``, ``p_next_k_k`` is ``p^k_{k+1,k}`` (from origin k+1 to origin k, coordinates k) and
    ``p_m_next_next`` is ``p^{k+1}_{m_{k+1},k+1}`` (from the COG to origin k+1, coordinates k+1).
    """
    return screw_reference_transform(p_m_next_next) @ screw_transform(r_next_k, p_next_k_k)


INTERCHANGE = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])


def interchange(s: np.ndarray) -> np.ndarray:
    """Interchange operator ``Π`` of eq. (36): swaps the two halves of a screw (``W̌ = Π W``)."""
    s = np.asarray(s)
    return np.concatenate((s[3:], s[:3]), axis=0)


def twist_cross(t: np.ndarray) -> np.ndarray:
    """Matrix of the screw cross product ``t ×`` for twists ``[ω; v]``.

    ``twist_cross(t1) @ t2`` is the Lie bracket; the rate of a screw fixed in a body moving with twist
    ``t`` (same reference point and coordinates) is ``twist_cross(t) @ s``.
    """
    out = np.zeros((6, 6))
    w = skew(t[:3])
    out[:3, :3] = w
    out[3:, 3:] = w
    out[3:, :3] = skew(t[3:])
    return out


def line(direction: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Line ``[a; p × a]`` of eq. (3) through ``point`` with unit ``direction`` (zero-pitch screw)."""
    a = np.asarray(direction, dtype=float)
    return np.concatenate((a, np.cross(point, a)))


def line_at_infinity(direction: np.ndarray) -> np.ndarray:
    """Line at infinity ``[0; a]`` (infinite pitch), the joint screw of a prismatic joint, eq. (15)."""
    return np.concatenate((np.zeros(3), np.asarray(direction, dtype=float)))
