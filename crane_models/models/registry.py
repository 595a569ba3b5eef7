"""Every FMU the project builds, found in the model folders: each ``models/<crane>/spec.py`` declares ``FMUS``
(FMU name -> function returning its :class:`fmi.spec.FmuSpec`). Adding a crane adds a folder; nothing here
changes. The variable names of the specs are a public contract: co-simulation configurations refer to them.
Beside them the OSP system structures of the vessel-crane pairs, named by their file."""
from __future__ import annotations

from . import collect
from .vessel_crane.vessels import POINT_WRENCH, SHIP_PAIRS, WIRINGS

__all__ = ["SPECS", "OSP_PAIRS", "OSP_WIRINGS", "osp_file"]

SPECS = collect("spec", "FMUS")

# OSP system structure file -> {simulator: (FMU, initial values)}: the pairs of vessel_crane.vessels.SHIP_PAIRS.
# libcosim and the OSP tools look for ``OspSystemStructure.xml`` first: the paper's own pair has that name.
_OSP_FILE = {"CraneOnVessel": "OspSystemStructure.xml", "KnuckleBoomOnVessel": "KnuckleBoomOnVessel_OspSystemStructure.xml"}


def osp_file(system: str) -> str:
    """The OSP system structure file of a system of SHIP_PAIRS (a ``_PointWrench`` variant: ``PointWrench_`` before
    ``OspSystemStructure.xml`` in its pair's file name)."""
    base = system.removesuffix(POINT_WRENCH)
    return _OSP_FILE[base].replace("OspSystemStructure", f"{POINT_WRENCH[1:]}_OspSystemStructure", base != system)


OSP_PAIRS = {osp_file(system): members for system, members in SHIP_PAIRS.items()}
OSP_WIRINGS = {osp_file(system): wrench for system, wrench in WIRINGS.items()}  # file -> the crane's wrench connected
