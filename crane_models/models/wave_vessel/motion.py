"""The motion of a vessel's reference point O in a sea from its RAOs: each wave component i (amplitude a_i,
frequency ω_i, direction β_i, phase ε_i; core/sea) moves DOF j as ``Re{H_j(ω_i, β_i) a_i e^{i(ω_i t + ε_i)}}``
(:mod:`.rao`), and the vessel's motion is their sum -- linear superposition, the RAO model's premise. The sums and
the kinematics that follow from them are a :class:`core.moving_base.harmonic.HarmonicBody`: six series (O's
surge, sway, heave along the sea frame, then roll, pitch, yaw as the Euler angles of (53)) and the wave elevation
at O's mean position as a seventh.

>>> from crane_models.core.sea import SeaState, wave_components
>>> from .rao import EXAMPLE, parse_rao_table
>>> sea = SeaState(sea_spectrum=0, sea_hs=2.0, sea_tp=2 * math.pi)
>>> body = vessel_body(parse_rao_table(EXAMPLE), wave_components(sea))
>>> round(float(body.values(0.0)[17]), 12)  # heave RAO 0.5 at 1 rad/s in a 1 m amplitude head sea, crest at t = 0
0.5
"""
from __future__ import annotations

import math  # noqa: F401 (the doctest)

import numpy as np

from ...core.moving_base.harmonic import VALUE_NAMES, HarmonicBody
from ...core.sea.components import WaveComponents
from .rao import RaoTable

__all__ = ["vessel_body", "coefficients", "ELEVATION"]

ELEVATION = len(VALUE_NAMES)  # the index of the wave elevation among the body's values


def coefficients(table: RaoTable, components: WaveComponents) -> tuple:
    """``(c, s)`` (7 × n): the cosine and sine coefficients of surge, sway, heave, roll, pitch, yaw and the wave
    elevation at O, ``a Re H`` and ``a Im H`` (the elevation's: ``a`` and 0)."""
    a = components.amplitude
    if a.size == 0:
        return np.zeros((7, 0)), np.zeros((7, 0))
    motion = table.at(components.omega, components.direction) * a
    return np.vstack((motion.real, a)), np.vstack((motion.imag, np.zeros(a.size)))


def vessel_body(table: RaoTable, components: WaveComponents, height: float = 0.0, z_down: bool = False,
                use_kernel: bool = True) -> HarmonicBody:
    """The body moved by ``components`` through ``table``, O's mean position ``height`` above the still water level
    at the sea frame's origin, in z-down axes when ``z_down``; built up from rest as the sea is (``components.build_up``:
    the vessel's motion and the elevation at O times the sea's envelope, core/sea/build_up.py)."""
    c, s = coefficients(table, components)
    return HarmonicBody(components.omega, components.phase, c, s, (0.0, 0.0, float(height)), z_down, use_kernel,
                        components.build_up)
