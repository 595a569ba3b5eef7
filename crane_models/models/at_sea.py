"""The FMI parameters of the sea (:class:`core.sea.SeaState`), the same names on every FMU that needs the sea
(``sea_*``, ``water_depth``): one SSP parameter set then carries them for a whole system and each FMU makes the same
wave components from them. A module of the models floor beside the model packages, as ``on_ship.py``, so that no
model package imports another."""
from __future__ import annotations

from ..core.sea import SeaState
from ..core.sea.components import WaveComponents, wave_components
from ..fmi.spec import parameters_from_dataclasses

__all__ = ["sea_parameters", "sea_from", "SEA_PARAMETER_NAMES", "components_from"]


def sea_parameters() -> list:
    """The FMI parameters of the sea, with the defaults of :class:`SeaState`."""
    return parameters_from_dataclasses(SeaState())


SEA_PARAMETER_NAMES = tuple(v.name for v in sea_parameters())  # the one list: SSP parameter sets take it from here


def sea_from(values: dict) -> SeaState:
    """The sea state of an FMU's parameter ``values`` (already checked against their ranges)."""
    kinds = {v.name: v.kind for v in sea_parameters()}
    return SeaState(**{name: int(values[name]) if kinds[name] == "integer" else float(values[name])
                       for name in SEA_PARAMETER_NAMES})


def components_from(values: dict) -> WaveComponents:
    """The wave components of the sea of ``values``."""
    return wave_components(sea_from(values))
