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

__all__ = ["KNUCKLE_BOOM_VESSEL", "knuckle_boom_vessel", "SHIP_PAIRS", "WIRINGS", "POINT_WRENCH",
           "CRANE_ON_VESSEL_START", "KNUCKLE_BOOM_ON_VESSEL_START"]


def knuckle_boom_vessel() -> VesselParameters:
    return VesselParameters(l1=17.0, d1=1.0, m1=3.0e6, k1=0.0, k2=0.0, k3=1.3e9)


KNUCKLE_BOOM_VESSEL = {"l1": 17.0, "d1": 1.0, "m1": 3.0e6, "k1": 0.0, "k2": 0.0, "k3": 1.3e9}


# Where each pair starts: at rest in its static equilibrium for the crane's set-points at t = 0 (the demo's), the
# monolithic model's u' = 0 with u = 0 (integration.equilibrium), and with the coupling inputs at their values there:
# the vessel's the crane's static load, the crane's the vessel's heel (tests/test_ship_pairs.py recomputes them all).
# A pair started there has no transient of its own: an engine's initial value propagation has nothing left to settle
# whatever its number of rounds (libcosim's and Ecos' differ), and the split pair and its monolithic model leave the
# same point. The paper's crane (PD without gravity compensation) sags below its set-points; the knuckle boom crane
# (gravity compensated) holds them, and the vessel heels under it.
CRANE_ON_VESSEL_START = {
    "vessel": {"q1_0": -0.0187138860562606, "q3_0": 3.10494926088085e-07, "interface_force_y": 16.5215256270658,
               "interface_force_z": -882.745404514233, "interface_moment_x": -992.41239397152},
    "crane": {"q5_0": 0.180702469641472, "q6_0": -1.40935349908832, "roll": -0.0187138860562606,
              "yaw": 3.10494926088085e-07}}
KNUCKLE_BOOM_ON_VESSEL_START = {
    "vessel": {"q1_0": -0.0642005603498276, "interface_force_y": 22657.49779216, "interface_force_z": -352432.438055577,
               "interface_moment_x": -1502947.35354661},
    "crane": {"roll": -0.0642005603498276}}

# The vessel-crane pairs for ship co-simulation, one source for every system file written of them (OSP system
# structures, SSP packages): system name -> {component: (FMU, parameter values beyond the FMU's start values)}. Each
# pair connects the crane's step-mean wrench (its impulse over the step: mean_wrench_outputs, on by default); the
# ``_PointWrench`` variants connect the wrench at each step's end instead (WIRINGS), for comparison.
SHIP_PAIRS = {
    "CraneOnVessel": {"vessel": ("Vessel", dict(CRANE_ON_VESSEL_START["vessel"])),
                      "crane": ("CraneOnMovingBase", dict(CRANE_ON_VESSEL_START["crane"]))},
    "KnuckleBoomOnVessel": {"vessel": ("Vessel", {**KNUCKLE_BOOM_VESSEL, **KNUCKLE_BOOM_ON_VESSEL_START["vessel"]}),
                            "crane": ("KnuckleBoomCraneOnMovingBase", dict(KNUCKLE_BOOM_ON_VESSEL_START["crane"]))},
}
POINT_WRENCH = "_PointWrench"
SHIP_PAIRS.update({f"{name}{POINT_WRENCH}": {sim: (fmu, dict(values)) for sim, (fmu, values) in members.items()}
                   for name, members in list(SHIP_PAIRS.items())})
# system -> the crane's wrench kind connected (fmi.osp.WRENCH_KINDS) where it is not the crane's first
WIRINGS = {name: "point" for name in SHIP_PAIRS if name.endswith(POINT_WRENCH)}
