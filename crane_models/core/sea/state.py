"""A sea state as parameters -- the same names on every FMU that needs the sea (``sea_*``, ``water_depth``), so that
one SSP parameter set carries them for a whole system and every FMU of it sees the same sea.

The sea frame: z up from the still water level, x along the vessel's mean heading (forward), y to port; the
vessel keeps its mean position and heading (no forward speed), so wave headings are relative to the vessel.
``sea_heading`` is the direction the waves *travel towards*, from x about z (0: following seas; π/2: waves
travelling to port, from starboard; π: head seas) -- the convention of DNV-RP-C205 and of BEM codes such as
Capytaine. It is the same for FMUs in z-down axes: the sea frame is always z up."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..parameters import param

__all__ = ["SeaState", "REGULAR", "JONSWAP", "PIERSON_MOSKOWITZ", "STILL_WATER"]

REGULAR, JONSWAP, PIERSON_MOSKOWITZ = 0, 1, 2


@dataclass(frozen=True)
class SeaState:
    """Hs, Tp and heading of a sea (DNV-ST-N001's description of a sea state), its spectrum and how it is sampled
    into wave components. Defaults: the demo's sea, Hs 2.5 m, Tp 8 s JONSWAP (γ 3.3, DNV's North Sea value),
    head seas, long-crested, in deep water."""

    sea_spectrum: int = param(JONSWAP, "", "wave spectrum: 0 = a regular wave of height sea_hs and period sea_tp, "
                              "1 = JONSWAP, 2 = Pierson-Moskowitz (DNV-RP-C205 3.5.5)", 0, 2, kind="integer")
    sea_hs: float = param(2.5, "m", "significant wave height Hs (regular wave: its height, crest to trough); 0 = "
                          "still water", 0.0, 30.0)
    sea_tp: float = param(8.0, "s", "peak period Tp (regular wave: its period)", 1.0, 40.0)
    sea_gamma: float = param(3.3, "", "JONSWAP peak enhancement factor gamma (1 = Pierson-Moskowitz)", 1.0, 7.0)
    sea_heading: float = param(math.pi, "rad", "direction the waves travel towards, from the vessel's x axis "
                               "(forward) about the upward vertical: 0 following seas, pi/2 from starboard, pi head "
                               "seas", -2.0 * math.pi, 2.0 * math.pi)
    sea_spreading: float = param(0.0, "", "directional spreading exponent s of cos^2s((theta - heading)/2); 0 = "
                                 "long-crested (every component along sea_heading)", 0.0, 100.0)
    sea_seed: int = param(1, "", "seed of the random phases, frequencies and directions: the same seed and "
                          "parameters give the same sea in every FMU and run", 0, 2 ** 31 - 1, kind="integer")
    sea_components: int = param(200, "", "number of wave components of an irregular sea", 1, 5000, kind="integer")
    water_depth: float = param(1000.0, "m", "water depth (finite-depth Airy kinematics; deep water in effect "
                               "from about half the longest wavelength)", 1.0, 1.0e5)
    # A start, not physics (core/sea/build_up.py): the whole sea -- elevation, water kinematics, the vessel's motion
    # -- times the quintic e(t) of model time t over [0, sea_build_up], rates and accelerations by the product rule;
    # the ramped field is no solution of linear wave theory while it grows (as OrcaFlex's build-up stage), so take
    # statistics after it. Upper bound 600 s: 15 periods of the longest Tp (40 s), more than any build-up needs.
    sea_build_up: float = param(0.0, "s", "build-up time T: the sea (elevation, water kinematics, vessel motion) "
                                "grows from rest over model time 0..T by e = 10s^3 - 15s^4 + 6s^5, s = t/T (a start, "
                                "not physics: take statistics after T); 0 = the full sea from t = 0", 0.0, 600.0)

    @property
    def still(self) -> bool:
        return self.sea_hs == 0.0


STILL_WATER = SeaState(sea_hs=0.0)
