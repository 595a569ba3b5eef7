"""The moving base as bodies of a tree: the chain that carries a crane on a moving base (the base point's
translation, then yaw, pitch and roll of eq. (53)) and a vessel hull on its Euler angles (Body 1 of Cibicik &
Egeland, §III), for the crane models on a ship and the monolithic references that hold hull and crane in one tree."""
from __future__ import annotations

import numpy as np

from ..kane import Body

__all__ = ["base_bodies", "vessel_bodies"]


def base_bodies(angles: tuple = (0, 1, 2), translation: tuple = (6, 7, 8)) -> list:
    """Massless translation of the base point (Frame 0 axes), then yaw, pitch, roll (53) about it; the
    coordinates of roll, pitch, yaw and of the translation along x0, y0, z0."""
    x, y, z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
    return [Body("base_x", None, "prismatic", x, coordinate=translation[0]),
            Body("base_y", "base_x", "prismatic", y, coordinate=translation[1]),
            Body("base_z", "base_y", "prismatic", z, coordinate=translation[2]),
            Body("yaw", "base_z", "revolute", z, coordinate=angles[2]),
            Body("pitch", "yaw", "revolute", y, coordinate=angles[1]),
            Body("vessel", "pitch", "revolute", x, coordinate=angles[0])]


def vessel_bodies(p, first: int = 0) -> list:
    """Body 1 as yaw ``q3`` (z0), pitch ``q2`` (y) and roll ``q1`` (x) joints, eq. (53), with roll, pitch, yaw
    the coordinates ``first … first+2``; the first two bodies are massless frames of the Euler-angle chain. ``p``:
    the vessel's ``m1``, ``l1`` (inertia ``m1 l1²/12`` about all three axes, eq. (73)) and ``d1`` (COG below the
    rotation centre), e.g. a ``VesselParameters``."""
    x, y, z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
    return [
        Body("yaw", None, "revolute", z, coordinate=first + 2),
        Body("pitch", "yaw", "revolute", y, coordinate=first + 1),
        Body("vessel", "pitch", "revolute", x, coordinate=first, mass=p.m1,
             inertia=np.diag(np.ones(3) * p.m1 * p.l1 * p.l1 / 12.0), com=(0.0, 0.0, -p.d1)),
    ]
