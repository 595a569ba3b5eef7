"""The ``WaveVessel`` FMU: a vessel's reference point O moving in the sea of the ``sea_*`` parameters as its RAO
table prescribes (:mod:`.motion`), with the moving-base cranes' motion inputs as its outputs -- the same names and
meanings, so that they connect by name -- plus ``heave``, ``wave_elevation`` and ``base_position_*``. No inputs: the
RAO vessel is linear and does not feel the crane. docs/sea.md.

Its RAO table travels inside the FMU, chosen when it is built: the package's default table
(``data/default_rao.csv``) or the user's (``crane-cosim build --rao-table FILE``, :func:`build_files`: checked,
then carried as ``data/built_in_rao.csv``, which the FMU then reads instead). Not a string parameter naming a file:
the FMU would depend on a file outside it that a system structure does not carry, and the table would not be part of
what identifies the build (its module namespace, its saved states)."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import numpy as np

from ...fmi.spec import FmuSpec, FmuVariable, real_variables
from ..at_sea import components_from, sea_parameters
from .model import OUTPUTS, WaveVesselModel
from .motion import vessel_body
from .rao import RaoError, RaoTable, read_rao_table

__all__ = ["wave_vessel_spec", "build_files", "table_file", "DEFAULT_TABLE", "BUILT_IN_TABLE", "FMUS"]

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_TABLE = DATA / "default_rao.csv"    # the package's table of a generic vessel (its file says its origin)
BUILT_IN_TABLE = DATA / "built_in_rao.csv"  # a user's table, put there inside an FMU by its build only
_IN_BUNDLE = "models/wave_vessel/data/built_in_rao.csv"  # BUILT_IN_TABLE relative to the bundled package

PARAMETERS = [
    FmuVariable("z_down", "", "axis convention of the outputs, as the moving-base cranes': false = z up (x forward, y "
                "to port), true = NED-style z down (x forward, y to starboard); the sea parameters stay in the sea "
                "frame (z up, sea_heading about the upward vertical)", False, "boolean"),
    FmuVariable("reference_height", "m", "height of the reference point O (the point of the RAO table) above the "
                "still water level with the vessel at rest", 0.0, low=-1.0e3, high=1.0e3),
]


def table_file() -> Path:
    """The table this FMU carries: the one built in (a user's), else the package's default."""
    return BUILT_IN_TABLE if BUILT_IN_TABLE.is_file() else DEFAULT_TABLE


@functools.lru_cache(maxsize=8)
def _read(path: str, stamp: tuple) -> RaoTable:
    return read_rao_table(path)


def load_table(path: Optional[Path] = None) -> RaoTable:
    """The RAO table at ``path`` (default :func:`table_file`), read once per file version."""
    path = Path(path) if path is not None else table_file()
    if not path.is_file():
        raise RaoError(f"no RAO table: {path.name} is not in the package (the default table of a generic vessel "
                       "ships with it); build the FMU with a table of your own: crane-cosim build --rao-table FILE")
    stat = path.stat()
    return _read(str(path), (stat.st_mtime_ns, stat.st_size))


def build_files(rao_table) -> dict:
    """What a build puts into the FMU for a user's table ``rao_table`` (checked here: :class:`RaoError`, one line):
    ``{path inside the bundled package: file}``."""
    read_rao_table(rao_table)
    return {_IN_BUNDLE: Path(rao_table)}


def wave_vessel_spec(rao_table=None) -> FmuSpec:
    """The FMU's spec; ``rao_table``: a table file to use instead of the FMU's own (in-process runs, tests)."""
    params = sea_parameters() + PARAMETERS
    outputs = real_variables(OUTPUTS, {})

    def build(values: dict):
        table = load_table(rao_table)
        body = vessel_body(table, components_from(values), float(values["reference_height"]), bool(values["z_down"]))
        return WaveVesselModel(body), np.zeros(0), {"max_step": 1.0}

    return FmuSpec("WaveVessel", "Vessel in irregular or regular waves from its RAO table: the motion of its reference "
                   "point, superposed over the wave components of the sea_* parameters (docs/sea.md)", params, [],
                   outputs, build, stop_time=60.0, step_size=0.01)


FMUS = {"WaveVessel": wave_vessel_spec}
