"""Every FMU the project builds, found in the model folders: each ``models/<crane>/spec.py`` declares ``FMUS``
(FMU name -> function returning its :class:`fmi.spec.FmuSpec`). Adding a crane adds a folder; nothing here
changes. The variable names of the specs are a public contract: co-simulation configurations refer to them.
Beside them the OSP system structures of the vessel-crane pairs, named by their file."""
from __future__ import annotations

from ..fmi.osp_ecco import EccoSettings, port_bonds
from . import collect
from .vessel_crane.vessels import POINT_WRENCH, SHIP_PAIRS, WIRINGS

__all__ = ["SPECS", "OSP_SYSTEMS", "OSP_PAIRS", "OSP_WIRINGS", "osp_file", "SHIP_ECCO", "OSP_ECCO"]

SPECS = collect("spec", "FMUS")

# OSP system structure file -> the pair of vessel_crane.vessels.SHIP_PAIRS it holds.
# libcosim and the OSP tools look for ``OspSystemStructure.xml`` first: the paper's own pair has that name.
_OSP_FILE = {"CraneOnVessel": "OspSystemStructure.xml", "KnuckleBoomOnVessel": "KnuckleBoomOnVessel_OspSystemStructure.xml"}


def osp_file(system: str) -> str:
    """The OSP system structure file of a system of SHIP_PAIRS (a ``_PointWrench`` variant: ``PointWrench_`` before
    ``OspSystemStructure.xml`` in its pair's file name)."""
    base = system.removesuffix(POINT_WRENCH)
    return _OSP_FILE[base].replace("OspSystemStructure", f"{POINT_WRENCH[1:]}_OspSystemStructure", base != system)


OSP_SYSTEMS = {osp_file(system): system for system in SHIP_PAIRS}  # every pair and variant the build writes
# OSP system structure file -> {simulator: (FMU, initial values)}.
OSP_PAIRS = {file: SHIP_PAIRS[system] for file, system in OSP_SYSTEMS.items()}
OSP_WIRINGS = {osp_file(system): wrench for system, wrench in WIRINGS.items()}  # file -> the crane's wrench connected
# The ECCO variant of each pair (fmi.osp_ecco): the power bonds its system structure carries -- one, the most
# libcosimpy 0.0.6 loads from a file -- and the controller's settings. Chosen by measurement
# (docs/ship-cosimulation.md, "ECCO"); the tolerance [J of energy residual per step] scales with the power the pair
# exchanges (a 90 kg crane, a 36 t one). Steps from the 10 ms grid down to 0.1 ms. (Here, not beside SHIP_PAIRS:
# the FMUs carry vessel_crane.vessels, not the system-file writers.) The default wiring only: not the variants.
SHIP_ECCO = {
    "CraneOnVessel": (("interface_linear_port_y",), EccoSettings(abs_tolerance=1e-3, rel_tolerance=0.0)),
    "KnuckleBoomOnVessel": (("interface_linear_port_y",), EccoSettings(abs_tolerance=1e-1, rel_tolerance=0.0)),
}
# The ECCO variant of every default OSP pair (fmi.osp_ecco.write_ecco_files, named by fmi.osp_ecco.ecco_file_name):
# fixed-step file -> (simulators, {power bond: (effort, flow)}, EccoSettings).
OSP_ECCO = {file: (OSP_PAIRS[file], {b: port_bonds()[b] for b in SHIP_ECCO[system][0]}, SHIP_ECCO[system][1])
            for file, system in OSP_SYSTEMS.items() if system in SHIP_ECCO}
