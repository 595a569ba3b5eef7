"""Flexible supports and the rigid finite element method (RFEM) for a flexible link
(Jarzębowska, Urbaś & Augustynek 2019, eqs. (7)-(8), (20); Wittbrodt et al. 2013).

* :func:`rfe_lengths` -- primary and secondary division of a link into rigid finite elements (7).
* :func:`sde_stiffness` -- the three rotational stiffnesses of a spring-damping element (8): bending
  ``E I / d`` about the two transverse axes and torsion ``G J / d`` about the link axis.
* :func:`rfe_inertia` -- mass properties of one element of a uniform beam.
* :class:`PointSprings` -- linear springs/dampers between points of a body and fixed ground points,
  along the ground axes; their wrench on the body, energy and generalized forces from the kinematics.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kane import _SKEW, Kinematics, skew_stack

__all__ = ["cross", "rfe_lengths", "sde_stiffness", "rfe_inertia", "box_section", "PointSprings", "point_velocity_jacobian"]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products of 3-vectors along the last axis (``np.cross`` is ten times slower on tiny arrays).

    >>> cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a = np.asarray(a, dtype=float)
    # skew(a) b as one broadcasting product of the stacked skew matrices (kane._SKEW) with b.
    return ((a @ _SKEW).reshape(a.shape[:-1] + (3, 3)) @ np.asarray(b, dtype=float)[..., None])[..., 0]


def rfe_lengths(length: float, n_rfe: int) -> np.ndarray:
    """Lengths of the ``n_rfe`` rigid finite elements of a link of ``length`` (eq. (7)).

    Primary division: ``n_div = n_rfe − 1`` sections of length ``d = l / n_div``; a spring-damping
    element sits at the middle of each section. Secondary division: the rigid elements between them are
    ``d/2`` long at both ends and ``d`` inside. ``n_rfe = 1`` is the rigid link.

    >>> rfe_lengths(3.0, 4).tolist()
    [0.5, 1.0, 1.0, 0.5]
    >>> rfe_lengths(3.0, 1).tolist()
    [3.0]
    """
    n_rfe = int(n_rfe)
    if n_rfe < 1:
        raise ValueError(f"n_rfe = {n_rfe} must be >= 1")
    if n_rfe == 1:
        return np.array([float(length)])
    d = length / (n_rfe - 1)
    out = np.full(n_rfe, d)
    out[0] = out[-1] = 0.5 * d
    return out


def sde_stiffness(E: float, G: float, I_y: float, I_z: float, J: float, d: float) -> np.ndarray:
    """Stiffnesses ``[s_ψ, s_θ, s_φ]`` [N·m/rad] of a spring-damping element (8) for a section of length
    ``d``: ``ψ`` about z (``E I_z / d``), ``θ`` about y (``E I_y / d``), ``φ`` about the link axis x
    (torsion, ``G J / d``).

    >>> sde_stiffness(2e11, 8e10, 1e-6, 2e-6, 3e-6, 0.5).tolist()
    [800000.0, 400000.0, 480000.0]
    """
    return np.array([E * I_z / d, E * I_y / d, G * J / d])


def box_section(width: float, height: float, wall: float) -> dict:
    """Rectangular hollow section, ``width`` along z, ``height`` along y, wall thickness ``wall``:
    area ``A``, second moments ``I_y = ∫z² dA``, ``I_z = ∫y² dA`` and Bredt's torsion constant
    ``J = 4 A_m² t / p_m`` (thin-walled closed section; ``A_m``, ``p_m`` on the wall mid-line)."""
    b, h, t = width, height, wall
    bi, hi = b - 2 * t, h - 2 * t
    area_m = (b - t) * (h - t)
    perim_m = 2 * ((b - t) + (h - t))
    return {"A": b * h - bi * hi, "I_y": (h * b ** 3 - hi * bi ** 3) / 12.0, "I_z": (b * h ** 3 - bi * hi ** 3) / 12.0,
            "J": 4 * area_m ** 2 * t / perim_m}


def rfe_inertia(mass: float, length: float, area: float, I_y: float, I_z: float) -> np.ndarray:
    """Inertia about the COG of a prismatic beam element along x whose mass is distributed like its
    section: ``I_xx = m (I_y + I_z)/A``, ``I_yy = m (l²/12 + I_y/A)``, ``I_zz = m (l²/12 + I_z/A)``."""
    return mass * np.diag([(I_y + I_z) / area, length ** 2 / 12.0 + I_y / area, length ** 2 / 12.0 + I_z / area])


def point_velocity_jacobian(kin: Kinematics, body: int, point: np.ndarray) -> tuple:
    """World position of a point fixed in ``body`` (body coordinates), its velocity Jacobian
    ``∂v/∂u`` (3, n) and the moment arm from the body's COG (Frame 0)."""
    R = kin.rotation[body]
    p = kin.origin[body] + R @ point
    arm = p - kin.cog[body]
    w_jac = R @ kin.P[body, :3]
    return p, kin.cog_jacobian[body] - skew_stack(arm[None])[0] @ w_jac, arm


@dataclass
class PointSprings:
    """Springs (and dampers) from points ``points`` (k, 3) of body ``body`` (body coordinates) to the
    ground points they meet when the body frame coincides with Frame 0; stiffness ``stiffness`` (k, 3)
    and damping ``damping`` (k, 3) along the Frame 0 axes (the supports of eq. (20)).

    The deflection is the exact displacement of each point, ``d = p − p_rest``; the paper's
    ``d = U q̃^(b)`` is its linearization for small base rotations.
    """

    body: int
    points: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray

    def forces(self, kin: Kinematics) -> tuple:
        """World positions (k, 3) and the forces on the body at each point (k, 3), Frame 0."""
        R, o = kin.rotation[self.body], kin.origin[self.body]
        p = o + self.points @ R.T
        w = R @ kin.twist[self.body, :3]
        v_cog = R @ kin.twist[self.body, 3:]
        arm = p - kin.cog[self.body]
        v = v_cog + cross(w, arm)
        return p, -self.stiffness * (p - self.points) - self.damping * v

    def resultant(self, kin: Kinematics) -> tuple:
        """Resultant force on the body and its moment about the body frame origin, Frame 0: the forces of
        :meth:`forces`, summed spring by spring.

        Written as plain sums of products, in the order the kernel's ``mbs_task_outputs`` repeats bit for bit (numpy's
        ``@`` may go through BLAS, whose summation order and fused multiply-adds are the library's): each force is a
        stiffness times a deflection of ~1e-4 m taken from positions of ~1 m, so another rounding of a position moves
        a nearly balanced resultant by ~1e-12 of itself."""
        b = self.body
        R, o, g, tw = (kin.rotation[b].tolist(), kin.origin[b].tolist(), kin.cog[b].tolist(), kin.twist[b].tolist())

        def turned(v):  # R v
            return [row[0] * v[0] + row[1] * v[1] + row[2] * v[2] for row in R]

        def crossed(a, c):
            return [a[1] * c[2] - a[2] * c[1], a[2] * c[0] - a[0] * c[2], a[0] * c[1] - a[1] * c[0]]

        w, v_cog = turned(tw[:3]), turned(tw[3:])
        force, moment = [0.0] * 3, [0.0] * 3
        for r, k, c in zip(self.points.tolist(), self.stiffness.tolist(), self.damping.tolist()):
            p = [a + oi for a, oi in zip(turned(r), o)]
            x = crossed(w, [p[i] - g[i] for i in range(3)])
            f = [-k[i] * (p[i] - r[i]) - c[i] * (v_cog[i] + x[i]) for i in range(3)]
            m = crossed([p[i] - o[i] for i in range(3)], f)
            for i in range(3):
                force[i] += f[i]
                moment[i] += m[i]
        return np.array(force), np.array(moment)

    def generalized_forces(self, kin: Kinematics) -> np.ndarray:
        """``Σ_s J_sᵀ F_s``: the resultant at the COG as force and moment (eq. (46) form)."""
        p, f = self.forces(kin)
        force = f.sum(axis=0)
        moment = cross(p - kin.cog[self.body], f).sum(axis=0)
        b = self.body
        return kin.cog_jacobian[b].T @ force + (kin.rotation[b] @ kin.P[b, :3]).T @ moment

    def energy(self, kin: Kinematics) -> float:
        """``½ Σ dᵀ S d`` (the ``E_p,sup`` of (16))."""
        R, o = kin.rotation[self.body], kin.origin[self.body]
        d = o + self.points @ R.T - self.points
        return 0.5 * float(np.sum(self.stiffness * d * d))
