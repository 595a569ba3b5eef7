"""The FMI parameters of a crane on a ship, the same for every moving-base crane FMU (``CraneOnMovingBase``,
``KnuckleBoomCraneOnMovingBase``): where the crane sits on the hull and in which axes the ship gives its motion
(:class:`core.moving_base.ship.ShipMounting`), whether the interface inertia is computed, and whether the wrench
averaged over each step is (``MEAN_WRENCH_PARAMETER``). A module of the
models floor, beside the model packages rather than in one, so that no model package imports another."""
from __future__ import annotations

from ..core.moving_base.ship import MountPoint, ShipMountedModel, ShipMounting
from ..fmi.spec import FmuVariable, parameters_from_dataclasses

__all__ = ["mounting_parameters", "mounting_from", "on_ship", "MEAN_WRENCH_PARAMETER"]

# The step-mean wrench (core.moving_base.interface MEAN_WRENCH): the same parameter for every moving-base crane FMU.
# On by default: an engine holds the wrench it hands the vessel over a whole step, and only the step mean gives the
# vessel the crane's impulse over it (docs/ship-cosimulation.md); a structure wired to the mean of a crane that does
# not integrate it would feed the vessel zeros.
MEAN_WRENCH_PARAMETER = FmuVariable(
    "mean_wrench_outputs", "", "also integrate the interface wrench over each communication step (outputs "
    "interface_*_mean_*: the wrench averaged over the last step, the impulse-true wrench the ship pairs connect to the "
    "vessel; false: they stay 0 and the FMU runs a little faster)", True, "boolean")


def mounting_parameters() -> list:
    """The FMI parameters of :class:`core.moving_base.ship.ShipMounting` (mount point, heading, axis convention)."""
    params = parameters_from_dataclasses(MountPoint())
    return params + [FmuVariable("z_down", "", "axis convention of the ship's inputs and outputs: false = z up (x "
                                 "forward, y to port), true = NED-style z down (x forward, y to starboard); gravity "
                                 "acts along the world's down axis and is not part of base_acceleration", False,
                                 "boolean"),
                     FmuVariable("inertia_outputs", "", "compute the interface inertia A and W0 (outputs "
                                 "interface_inertia_*, interface_*0_*; W = W0 - A a) at every output evaluation "
                                 "(false: they stay 0 and the FMU runs faster)", False, "boolean")]


def mounting_from(values: dict) -> ShipMounting:
    return ShipMounting(*(float(values[n]) for n in ("mount_x", "mount_y", "mount_z", "mount_heading")),
                        z_down=bool(values["z_down"]))


def on_ship(model, values: dict):
    """The model seen through the ship conventions of ``values``; the model itself for the defaults (today's)."""
    mounting = mounting_from(values)
    return model if mounting.is_identity else ShipMountedModel(model, mounting)
