"""Vessel parameter sets for the ``Vessel`` FMU (:class:`.split.VesselParameters`) beyond the paper's scaled model.

:data:`KNUCKLE_BOOM_VESSEL` carries the 36 t knuckle boom crane (``KnuckleBoomCraneOnMovingBase``). Not from the
papers -- a supply vessel of about 70 m chosen for its natural periods, within what the model of §III can express
(one inertia ``m1 l1²/12`` about all three axes, eq. (73)):

* ``m1 = 3000 t``: displacement of a ~70 m offshore supply vessel; the crane is 1.2 % of it.
* ``d1 = 1.0 m``: the COG below the rotation centre plays the metacentric height GM (righting moment
  ``m1 g d1 sin q``); 1 m is a usual GM for such a hull.
* ``l1 = 17 m``: crane base above the rotation centre (deck plus pedestal). It also sets the inertia
  ``m1 l1²/12 = 7.2e7 kg·m²`` (radius of gyration 4.9 m), so that the roll period is
  ``2π sqrt(l1²/12 / (g d1)) = 9.9 s`` -- typical for the size. Pitch gets the same period (a real hull pitches
  faster and is strongly damped: the model has no damping).
* ``k1 = k2 = 0``: roll and pitch are restored by the hull (``d1``) alone; ``k3 = 1.3e9 N·m/rad³``: a soft
  yaw restoring (mooring or dynamic positioning) of 1.6e5 N·m at 0.05 rad, a period of about 30 s there.

With the crane's 36 t some 21 m above the rotation centre the righting stiffness stays positive
(``2.9e7 − 0.74e7 N·m/rad``): the loaded vessel is stable.
"""
from __future__ import annotations

from .split import VesselParameters

__all__ = ["KNUCKLE_BOOM_VESSEL", "knuckle_boom_vessel", "SHIP_PAIRS"]


def knuckle_boom_vessel() -> VesselParameters:
    return VesselParameters(l1=17.0, d1=1.0, m1=3.0e6, k1=0.0, k2=0.0, k3=1.3e9)


KNUCKLE_BOOM_VESSEL = {"l1": 17.0, "d1": 1.0, "m1": 3.0e6, "k1": 0.0, "k2": 0.0, "k3": 1.3e9}


# The vessel-crane pairs for ship co-simulation, one source for every system file written of them (OSP system
# structures, SSP packages): system name -> {component: (FMU, parameter values beyond the FMU's start values)}.
SHIP_PAIRS = {
    "CraneOnVessel": {"vessel": ("Vessel", {}), "crane": ("CraneOnMovingBase", {})},
    "KnuckleBoomOnVessel": {"vessel": ("Vessel", dict(KNUCKLE_BOOM_VESSEL)), "crane": ("KnuckleBoomCraneOnMovingBase", {})},
}
