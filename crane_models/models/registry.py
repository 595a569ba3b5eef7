"""Every FMU the project builds, found in the model folders: each ``models/<crane>/spec.py`` declares ``FMUS``
(FMU name -> function returning its :class:`fmi.spec.FmuSpec`). Adding a crane adds a folder; nothing here
changes. The variable names of the specs are a public contract: co-simulation configurations refer to them.
Beside them the OSP system structures of the vessel-crane pairs, named by their file."""
from __future__ import annotations

from . import collect
from .vessel_crane.vessels import SHIP_PAIRS

__all__ = ["SPECS", "OSP_PAIRS"]

SPECS = collect("spec", "FMUS")

# OSP system structure file -> {simulator: (FMU, initial values)}: the pairs of vessel_crane.vessels.SHIP_PAIRS.
# libcosim and the OSP tools look for ``OspSystemStructure.xml`` first: the paper's own pair has that name.
OSP_PAIRS = {
    "OspSystemStructure.xml": SHIP_PAIRS["CraneOnVessel"],
    "KnuckleBoomOnVessel_OspSystemStructure.xml": SHIP_PAIRS["KnuckleBoomOnVessel"],
}
