"""A point-mass payload on an elastic hoisting wire with a winch, hanging from a point of any body of a
:class:`kane.MultibodySystem` tree. Not in the papers: they stop at the crane tip; this goes beyond them on the
same core (the tension acts on the tip as a force, entering ``τ`` by (46) and the reactions as an applied wrench).

Wire (Kelvin-Voigt in tension only). With ``d = |p − r_tip|`` the distance from the suspension point to the
load and ``L`` the unstretched paid-out length,

    T = max(0, EA/L (d − L) + c ḋ)   when d > L,      T = 0 when d ≤ L (slack),

acting on the load along ``−e`` and on the tip along ``+e``, ``e = (p − r_tip)/d``. The axial stiffness is
``EA/L`` of the current length. The damper acts in parallel with the spring, so it may slow a stretching or
a recoiling wire but never pull: where ``EA/L (d − L) + c ḋ < 0`` the wire is slack (it cannot push), which
also makes the tension continuous when the wire goes slack while recoiling. When it goes taut the tension
starts at ``c ḋ`` (a jump when ``c > 0``; none for ``c = 0``).

The taut/slack switch is a state event; :func:`taut_indicator` is its indicator (positive taut, negative
slack, continuous in the state), which the steppers locate instead of stepping across it
(:mod:`integration.cosimulation`).

Winch: the paid-out length ``L`` is a state driven by a speed input (positive pays out): ``L̇`` is the input
clipped to ``[−v_max, v_max]``, and zero at the length limits ``[L_min, L_max]`` when the input drives
further out of them. A speed input (not a length set-point) because that is how a winch operator's lever and
the OSP crane FMUs command it; a set-point is a controller outside the FMU.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .kane import Kinematics

__all__ = ["Wire", "Winch", "Deck", "deck_force", "contact_indicator", "wire_tension", "taut_indicator", "winch_rate", "point_position", "point_jacobian",
           "payload_accelerations", "wire_strain_energy", "swing_angles", "swing_angles_from_vertical"]


@dataclass(frozen=True)
class Wire:
    """``ea``: axial stiffness E·A [N]; ``damping``: c [N·s/m] of the parallel damper."""

    ea: float
    damping: float = 0.0


@dataclass(frozen=True)
class Winch:
    """Speed limit ``v_max`` [m/s] and the paid-out length range ``[l_min, l_max]`` [m]."""

    v_max: float
    l_min: float
    l_max: float


@dataclass(frozen=True)
class Deck:
    """A compliant deck plane under the load: ``stiffness`` [N/m] and ``damping`` [N·s/m] of the contact."""

    stiffness: float
    damping: float = 0.0


def deck_force(penetration: float, rate: float, deck: Deck) -> float:
    """Normal force of the deck on the load, ``max(0, k δ + c δ̇)`` while the load is ``δ > 0`` below the deck
    surface, else 0: like the wire, the contact pushes but never pulls (frictionless: no tangential force)."""
    if penetration <= 0.0:
        return 0.0
    return max(0.0, deck.stiffness * penetration + deck.damping * rate)


def contact_indicator(penetration: float, rate: float, deck: Deck) -> float:
    """Positive in contact, negative free, zero where :func:`deck_force` switches (metres)."""
    return min(penetration, penetration + deck.damping * rate / deck.stiffness)


def wire_tension(d: float, d_dot: float, length: float, wire: Wire) -> float:
    """``T = max(0, EA/L (d − L) + c ḋ)`` for ``d > L``, 0 for ``d ≤ L`` (module docstring)."""
    if d <= length:
        return 0.0
    return max(0.0, wire.ea / length * (d - length) + wire.damping * d_dot)


def taut_indicator(d: float, d_dot: float, length: float, wire: Wire) -> float:
    """Positive while the wire carries tension, negative while slack, in metres: ``min(d − L, d − L + c ḋ L/EA)``
    -- zero exactly where :func:`wire_tension` switches (stretch reaches zero, or the damper would pull)."""
    stretch = d - length
    return min(stretch, stretch + wire.damping * d_dot * length / wire.ea)


def winch_rate(length: float, speed: float, winch: Winch) -> float:
    """``L̇``: the commanded speed clipped to ``±v_max``; zero at a length limit when driving beyond it."""
    v = min(max(speed, -winch.v_max), winch.v_max)
    if (v < 0.0 and length <= winch.l_min) or (v > 0.0 and length >= winch.l_max):
        return 0.0
    return v


def point_position(kin: Kinematics, body: int, r: np.ndarray) -> np.ndarray:
    """Position in Frame 0 of the point ``r`` (body coordinates) of ``body``."""
    return kin.origin[body] + kin.rotation[body] @ r


def point_jacobian(kin: Kinematics, body: int, r: np.ndarray) -> np.ndarray:
    """``∂v/∂u`` (3 × n, Frame 0) of the point ``r`` of ``body``: the COG's ``v_m = J_c u`` (8) shifted by
    ``ω × (r_p − r_m)``, with ``ω = R P_ω u`` from the projection matrix (28), so ``J = J_c − [r_p − r_m]× R P_ω``."""
    R = kin.rotation[body]
    a0, a1, a2 = (R @ r + kin.origin[body] - kin.cog[body]).tolist()
    w = R @ kin.P[body][:3]  # ∂ω/∂u in Frame 0
    return kin.cog_jacobian[body] - np.array([a1 * w[2] - a2 * w[1], a2 * w[0] - a0 * w[2], a0 * w[1] - a1 * w[0]])


def payload_accelerations(p: np.ndarray, v: np.ndarray, tip: np.ndarray, tip_velocity: np.ndarray, length: float,
                          mass: float, g: float, wire: Wire) -> tuple:
    """``(v̇_load, F_tip, T, d)``: the load's acceleration under gravity and the wire, the wire's force on the
    suspension point (Frame 0), the tension and the distance."""
    # 3-vectors as Python floats: numpy's per-call cost exceeds the arithmetic here (the hot path).
    rx, ry, rz = (p - tip).tolist()
    wx, wy, wz = (v - tip_velocity).tolist()
    d = math.sqrt(rx * rx + ry * ry + rz * rz)
    if d <= 0.0:
        raise ValueError("payload at the suspension point: wire direction undefined")
    tension = wire_tension(d, (rx * wx + ry * wy + rz * wz) / d, length, wire)
    s = tension / d
    force_on_tip = np.array([s * rx, s * ry, s * rz])
    acc = np.array([-s * rx / mass, -s * ry / mass, -s * rz / mass - g])
    return acc, force_on_tip, tension, d


def wire_strain_energy(d: float, length: float, wire: Wire) -> float:
    """``½ EA/L (d − L)²`` while stretched, else 0 (the spring part of :func:`wire_tension`)."""
    return 0.5 * wire.ea / length * (d - length) ** 2 if d > length else 0.0


def swing_angles(rel_in_frame: np.ndarray) -> tuple:
    """Swing angles of the wire from the frame's ``−z`` axis: about the frame's x (positive when the load
    swings toward +y) and about y (positive toward +x), from the load's position relative to the suspension
    point in that frame: ``(atan2(y, −z), atan2(x, −z))``."""
    x, y, z = (float(c) for c in rel_in_frame)
    return math.atan2(y, -z), math.atan2(x, -z)


def swing_angles_from_vertical(rel: np.ndarray, heading: np.ndarray) -> tuple:
    """``(radial, tangential)`` swing of the wire from the true vertical (Frame 0's z): :func:`swing_angles` of
    ``rel`` (load minus suspension point, Frame 0) in the frame with z up, y the horizontal part of ``heading``
    (a crane's boom direction) and x = y × z."""
    hx, hy, _ = (float(c) for c in heading)
    # sqrt of the sum, not hypot: the kernel's step (cosim_payload.c) repeats it bit for bit; a heading is a unit
    # vector's size (a rotation's column), far from hypot's overflow
    norm = math.sqrt(hx * hx + hy * hy)
    if norm == 0.0:
        raise ValueError("heading is vertical: the swing plane is undefined")
    yx, yy = hx / norm, hy / norm  # y axis; x = y × z = (yy, −yx, 0)
    rx, ry, rz = (float(c) for c in rel)
    return swing_angles(np.array([rx * yy - ry * yx, rx * yx + ry * yy, rz]))
