"""The sea in ``crane-cosim view``: for a run of a crane on the ``WaveVessel`` (an SSP run or the demo's lift at sea,
whose sidecar names a ``WaveVessel`` component), the drawing moves to the sea frame (z up from the still water level,
x along the vessel's mean heading; core/sea/state.py) -- the crane, its deck and payload carried by the vessel's
recorded attitude and position -- and the sea surface is drawn under it from the same wave components the FMUs made
of the run's sea parameters (models/at_sea.py): the surface in the page is the surface the vessel moved in."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SeaView", "sea_view", "GRID"]

GRID = 41  # points per side of the drawn surface: a wave of 60 m over a 60 m wide view gets 40 facets
_ATTITUDE = ("roll", "pitch", "yaw")
_POSITION = tuple(f"base_position_{a}" for a in "xyz")


@dataclass
class SeaView:
    """The vessel's columns (``prefix`` + name) and the sea's wave components of one run."""

    prefix: str
    components: object
    z_down: bool

    def carry(self, row: dict):
        """``p -> p`` from the ship frame (the crane scene's, from the vessel's reference point O, the run's axis
        convention) into the sea frame at the row's instant: ``p_sea = o + R p`` (R of (53), z up)."""
        from ..core.moving_base.ship import FLIP
        from ..core.screws import rot_x, rot_y, rot_z

        roll, pitch, yaw = (row[self.prefix + n] for n in _ATTITUDE)
        origin = np.array([row[self.prefix + n] for n in _POSITION])
        rotation = rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)
        if self.z_down:  # the outputs are in z-down axes: F R F and F o; the ship-frame points likewise
            rotation, origin = FLIP @ rotation @ FLIP, FLIP @ origin

            def to_sea(p):
                return origin + rotation @ (FLIP @ np.asarray(p, dtype=float))
            return to_sea
        return lambda p: origin + rotation @ np.asarray(p, dtype=float)

    def surface(self, t: float, ranges: list) -> tuple:
        """``(x, y, z)`` grids of the sea surface over the horizontal ``ranges`` at time ``t``."""
        from ..core.sea import elevation

        x, y = np.meshgrid(np.linspace(*ranges[0], GRID), np.linspace(*ranges[1], GRID))
        return x, y, elevation(self.components, t, x, y)


def sea_view(meta: dict, columns: dict) -> SeaView | None:
    """The sea of a run whose sidecar names a ``WaveVessel`` component with its columns recorded; None otherwise."""
    from ..fmi.spec import check_range
    from ..models.at_sea import components_from, sea_parameters

    comps = meta.get("components") if isinstance(meta, dict) else None
    if not isinstance(comps, dict):
        return None
    vessels = [name for name, comp in comps.items() if isinstance(comp, dict) and comp.get("model") == "WaveVessel"]
    if not vessels:
        return None
    prefix = f"{vessels[0]}."
    missing = [prefix + n for n in _ATTITUDE + _POSITION if prefix + n not in columns]
    if missing:
        raise ValueError(f"the run's WaveVessel component {vessels[0]} lacks the columns {', '.join(missing)}, which "
                         "crane-cosim view needs to draw it in its sea")
    parameters = comps[vessels[0]].get("parameters") or {}
    if not isinstance(parameters, dict):
        raise ValueError(f"the parameters of the run's WaveVessel component {vessels[0]} are not a mapping")
    values = {p.name: parameters.get(p.name, p.start) for p in sea_parameters()}
    for p in sea_parameters():  # a sidecar is data: its sea within the FMU's ranges before any component is made
        check_range(p, values[p.name])
    z_down = parameters.get("z_down", False)
    if z_down not in (True, False, 0, 1):
        raise ValueError(f"z_down = {z_down!r} must be a boolean")
    return SeaView(prefix, components_from(values), bool(z_down))
