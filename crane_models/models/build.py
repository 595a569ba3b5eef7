"""The project's FMUs built by name (``crane-cosim build``, ``python -m crane_cosim_build.build_fmus``): the FMI
layer's build (:mod:`fmi.packaging`) and system-file writers (:mod:`fmi.osp`, :mod:`fmi.ssp`) given the specs of
:data:`.registry.SPECS` and the vessel-crane pairs (:data:`.vessel_crane.vessels.SHIP_PAIRS`,
:data:`.registry.OSP_PAIRS`, :data:`.registry.OSP_ECCO`)."""
from __future__ import annotations

from functools import partial
from pathlib import Path

from ..fmi import packaging
from ..fmi.osp import osp_system_structure, variable_connections
from ..fmi.osp import write_osp_files as write_osp
from ..fmi.osp_ecco import write_ecco_files as write_ecco
from ..fmi.spec import BASE_UNITS
from ..fmi.ssp import write_ssp_files as write_ssp
from .registry import OSP_ECCO, OSP_PAIRS, OSP_WIRINGS, SPECS
from .sea_systems import SEA_SYSTEMS, sea_connections, sea_osp_file, system_set_values, with_sea
from .vessel_crane.vessels import SHIP_PAIRS, WIRINGS
from .wave_vessel.spec import build_files as wave_vessel_files

__all__ = ["build_fmu", "build_all", "fmu_files", "write_osp_files", "write_ecco_files", "write_ssp_files",
           "pair_connections"]

# A pair's connections, variable by variable, from its simulators: the one wiring that the SSP packages and the
# ECCO system structures carry (the fixed-step system structures carry the same as variable-group connections).
pair_connections = partial(variable_connections, specs=SPECS)


def fmu_files(rao_table=None) -> dict:
    """``{FMU name: {path inside its bundle: file}}``: what FMUs carry besides the package -- the WaveVessel a user's
    RAO table (``rao_table``; checked here, :class:`.wave_vessel.rao.RaoError`, one line)."""
    return {} if rao_table is None else {"WaveVessel": wave_vessel_files(rao_table)}


def build_fmu(name: str, out_dir: Path, fmi_version: int = 2, binaries: dict | None = None,
              rao_table=None) -> Path:
    """Build the FMU ``name`` (a name of :data:`.registry.SPECS`) into ``out_dir``: :func:`fmi.packaging.build_fmu`;
    ``rao_table``: the WaveVessel's RAO table file (default: the package's)."""
    return packaging.build_fmu(name, SPECS[name](), out_dir, fmi_version, binaries, fmu_files(rao_table).get(name))


def write_osp_files(out_dir: Path, step: float = 0.01) -> list:
    """Every FMU's OSP model description, the pairs' and the sea systems' system structures into ``out_dir``."""
    paths = write_osp(out_dir, SPECS, OSP_PAIRS, step, OSP_WIRINGS)
    for system, members in SEA_SYSTEMS.items():  # one way, variable by variable: no ports, no groups
        members = with_sea(members, SPECS)
        path = Path(out_dir) / sea_osp_file(system)
        path.write_text(osp_system_structure(members, step, port_connections=sea_connections(members, SPECS),
                                             groups=[]))
        paths.append(path)
    return paths


def write_ecco_files(out_dir: Path) -> list:
    """The ECCO variant of every pair's system structure into ``out_dir`` (:func:`fmi.osp_ecco.write_ecco_files`),
    named ``…Ecco_OspSystemStructure.xml`` beside the fixed-step one."""
    return write_ecco(out_dir, OSP_ECCO, pair_connections)


def write_ssp_files(out_dir: Path) -> list:
    """Every FMU's SSP package and the pairs' into ``out_dir``, beside the FMUs."""
    def connect(system: str, members: dict) -> list:
        if system in SEA_SYSTEMS:
            return sea_connections(members, SPECS)
        return pair_connections(members, wrench=WIRINGS.get(system))

    # a sea system binds one set to every component, the sea in it once (docs/sea.md); a ship pair one per component
    sets = {name: system_set_values(name, members, SPECS) for name, members in SEA_SYSTEMS.items()}
    return write_ssp(out_dir, SPECS, {**SHIP_PAIRS, **SEA_SYSTEMS}, connect, BASE_UNITS, sets)


def write_system_files(out_dir: Path) -> None:
    """The OSP files (fixed-step and ECCO) and SSP packages for the FMUs and the vessel-crane pairs, from the specs."""
    write_osp_files(out_dir)
    write_ecco_files(out_dir)
    write_ssp_files(out_dir)


def build_all(out_dir: Path, fmi_version: int = 2, platforms=None, rao_table=None) -> list:
    """Build every FMU of the project into ``out_dir`` with ``manifest.json`` (:func:`fmi.packaging.build_fmus`)
    and, for FMI 2.0, the OSP files and SSP packages beside them; ``rao_table``: the WaveVessel's RAO table file
    (default: the package's)."""
    files = fmu_files(rao_table)  # checked before anything is built
    return packaging.build_fmus(SPECS, out_dir, fmi_version, platforms, write_system_files, files)
