"""Sea states of a sweep as lift planners tabulate them (issue 36, item 4): Hs x Tp x heading grids. A sea state
given by the sea's own parameter names (``sea_hs``, ``sea_tp``, ``sea_heading``, ... -- models/at_sea.py, the FMUs'
names) moves the crane's base as the ``WaveVessel`` FMU would (its RAO table, the package's default; its motion
outputs carry the crane's motion inputs by name), and sets the same sea on the crane FMU when it has the sea's
parameters (a payload in the water). The older form, a regular motion of given angle amplitude and period
(``amplitude``, ``period``, ...: :mod:`.signals`), stays as it was.

In a case file, ``sea_states`` is a list of sea states or a grid, ``{name: value or [values]}``, expanded to the
product of its lists in the order written::

    sea_states: {sea_hs: [1.5, 2.5, 3.5], sea_tp: [6.0, 8.0, 10.0], sea_heading: [3.1416, 2.3562]}
"""
from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

__all__ = ["is_wave_sea_state", "check_wave_sea_state", "expand_sea_states", "wave_vessel_model", "wave_vessel_motion",
           "sea_parameter_units", "sea_start_values"]


def _parameters() -> dict:
    from ..models.at_sea import sea_parameters

    return {v.name: v for v in sea_parameters()}


def sea_parameter_units() -> dict:
    """``{sea parameter: unit}``."""
    return {name: v.unit for name, v in _parameters().items()}


def is_wave_sea_state(sea) -> bool:
    """Whether ``sea`` is given by the sea's parameters (the other form: a regular prescribed motion)."""
    return isinstance(sea, dict) and bool(sea) and set(sea) <= set(_parameters())


def check_wave_sea_state(where: str, sea: dict, spec) -> None:
    """Raise naming the field when a value is outside its parameter's range, or when ``spec`` has no motion inputs
    the WaveVessel could drive."""
    from ..fmi.spec import check_range
    from ..models.registry import SPECS

    vessel = SPECS["WaveVessel"]()
    driven = {v.name for v in vessel.outputs} & {v.name for v in spec.inputs}
    if not driven:
        raise ValueError(f"{where}: {spec.model_name} has no motion inputs a vessel in the sea could drive; sea "
                         "states need a moving-base FMU such as KnuckleBoomCraneOnMovingBase")
    parameters = _parameters()
    for name, value in sea.items():
        try:
            check_range(parameters[name], value)
        except ValueError as exc:
            raise ValueError(f"{where}.{exc}") from None


def expand_sea_states(seas) -> list:
    """The list of sea states of a case file's ``sea_states``: a list as it is, a grid mapping expanded (module
    docstring); raises for anything else."""
    if isinstance(seas, list):
        return seas
    if not isinstance(seas, dict) or not seas:
        raise ValueError("sea_states must be a non-empty list of sea states or a grid {sea_hs: [..], sea_tp: [..], "
                         "...}")
    axes = {name: values if isinstance(values, list) else [values] for name, values in seas.items()}
    empty = [name for name, values in axes.items() if not values]
    if empty:
        raise ValueError(f"sea_states.{empty[0]} is an empty list")
    return [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]


def sea_start_values(sea: dict, spec) -> dict:
    """The crane FMU's own sea parameters for a wave sea state: the sea's values for those ``spec`` has."""
    own = {v.name for v in spec.parameters}
    return {name: value for name, value in sea.items() if name in own}


def wave_vessel_model(sea: dict):
    """The WaveVessel FMU's own model in the sea ``sea`` (its other parameters at their start values)."""
    from ..models.registry import SPECS

    spec = SPECS["WaveVessel"]()
    values = {**{p.name: p.start for p in spec.parameters}, **sea}
    return spec.build(values)[0]


def wave_vessel_motion(sea: dict) -> Callable[[float], dict]:
    """``t -> {output: value}``: the WaveVessel's outputs at ``t`` in the sea ``sea`` (its other parameters at their
    start values), computed by the FMU's own model (the kernel's harmonic sums)."""
    model = wave_vessel_model(sea)
    return lambda t: model.outputs(t, np.zeros(0), (), None)
