"""The names of the payload's splash-zone variables (issue 37): the hydrodynamic outputs and the heave
compensation's, which every knuckle boom FMU with a payload declares (zero while ``hydro_enabled`` / ``ahc_enabled``
is off). A module of its own so that the payload models (:mod:`.payload`, :mod:`.payload_moving_base`) and the
hydrodynamic ones (:mod:`.hydro`) take them from one place."""
from __future__ import annotations

__all__ = ["HYDRO_OUTPUTS", "AHC_OUTPUTS", "SPLASH_OUTPUTS", "SPLASH_OUTPUT_NAMES", "POSITION_INPUTS"]

HYDRO_OUTPUTS = (
    ("payload_submergence", "m", "relative submergence h of the payload: the local wave elevation over its bottom, "
                                 "clipped to [0, its height] (with hydro_enabled)"),
    ("payload_buoyancy", "N", "buoyancy rho g V(h) of the payload (with hydro_enabled)"),
    ("payload_hydro_force_x", "N", "force of the water on the payload, x (buoyancy, Froude-Krylov and diffraction, "
                                   "added-mass inertia, slamming, drag; Frame 0, z up)"),
    ("payload_hydro_force_y", "N", "force of the water on the payload, y (Frame 0)"),
    ("payload_hydro_force_z", "N", "force of the water on the payload, z (Frame 0, up)"),
    ("wave_elevation_at_payload", "m", "wave elevation over the payload above the still water level"),
    ("slack_sling_margin", "", "DNV-RP-N103's slack-sling criterion in the time domain: 1 - F_dyn / (0.9 W0) with W0 "
                               "the static weight in still water at the payload's level, (m - rho V(h0)) g, and "
                               "F_dyn = W0 - hook load the dynamic unloading of the sling; >= 0 meets it, < 0 "
                               "violates it (-1/9 with the wire slack)"),
)
AHC_OUTPUTS = (
    ("ahc_heave_reduction", "", "1 - payload heave / crane tip heave, heave the RMS about the running mean (exponential "
                                "window ahc_window) of the tip's height and of the payload's height plus the operator's "
                                "payout, in the sea frame (with ahc_enabled; else 0)"),
)
SPLASH_OUTPUTS = HYDRO_OUTPUTS + AHC_OUTPUTS
SPLASH_OUTPUT_NAMES = tuple(name for name, _, _ in SPLASH_OUTPUTS)
POSITION_INPUTS = tuple((f"base_position_{a}", "m", f"position of the vessel's reference point in the sea frame, {a} "
                         "(z up from the still water level; flipped with z_down): where the payload meets the waves; "
                         "used with hydro_enabled or ahc_enabled") for a in "xyz")
