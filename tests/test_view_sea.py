"""``crane-cosim view`` of a crane on the WaveVessel (issue 36, item 4): the page draws the sea surface from the run's
sea parameters and carries the crane with the vessel's recorded attitude and position (crane_models/app/view_sea.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.app.view import build_figure
from crane_models.app.view_scene import crane_scene
from crane_models.app.view_sea import sea_view
from crane_models.core.screws import rot_x, rot_y, rot_z

G = 9.81
CRANE = "KnuckleBoomCraneOnMovingBase"


def _run(n: int, attitude=(0.0, 0.0, 0.0), position=(0.0, 0.0, 0.0)) -> tuple:
    """A run of n rows: the crane at rest, the vessel at a fixed attitude and position; a regular wave of 2 m height
    and 8 s period travelling along x (deep water)."""
    columns = {"time": np.linspace(0.0, 3.0, n), "q1": np.zeros(n), "q2": np.full(n, 0.6), "q3": np.full(n, 0.6),
               "interface_force_z": np.zeros(n)}
    for name, value in zip(("roll", "pitch", "yaw"), attitude):
        columns[f"vessel.{name}"] = np.full(n, value)
    for a, value in zip("xyz", position):
        columns[f"vessel.base_position_{a}"] = np.full(n, value)
    meta = {"components": {"crane": {"model": CRANE, "parameters": {}},
                           "vessel": {"model": "WaveVessel", "parameters": {
                               "sea_spectrum": 0, "sea_hs": 2.0, "sea_tp": 8.0, "sea_heading": 0.0}}}}
    return columns, meta


def test_the_sea_surface_is_the_runs_wave():
    """Each frame's surface is the regular wave a cos(ω t − k x), k = ω²/g (deep water), written out here."""
    columns, meta = _run(4)
    fig = build_figure(CRANE, {}, columns, {"interface_force_z": "N"}, sea=sea_view(meta, columns))
    w = 2 * math.pi / 8.0
    k = w * w / G
    surfaces = [[d for d in frame.data if d.type == "surface"][0] for frame in fig.frames]
    assert len(surfaces) == 4
    for t, s in zip(columns["time"], surfaces):
        x, z = np.asarray(s.x), np.asarray(s.z)
        assert np.allclose(z, 1.0 * np.cos(w * t - k * x), atol=1e-12)


def test_the_vessel_carries_the_crane():
    """The tip drawn is the crane's tip in the ship frame turned by R = R_z R_y R_x of the vessel's angles and moved to
    its reference point's position."""
    attitude, position = (0.05, -0.03, 0.2), (1.5, -2.0, 0.4)
    columns, meta = _run(2, attitude, position)
    fig = build_figure(CRANE, {}, columns, {"interface_force_z": "N"}, sea=sea_view(meta, columns))
    tip_ship = crane_scene(CRANE, {}).pose({"q1": 0.0, "q2": 0.6, "q3": 0.6}).tip
    expected = np.array(position) + rot_z(attitude[2]) @ rot_y(attitude[1]) @ rot_x(attitude[0]) @ tip_ship
    tip = [d for d in fig.frames[0].data if d.name == "tip"][0]
    assert np.allclose([tip.x[0], tip.y[0], tip.z[0]], expected, atol=1e-12)


def test_a_run_without_the_vessels_columns_is_refused_in_one_line():
    columns, meta = _run(2)
    del columns["vessel.base_position_z"]
    with pytest.raises(ValueError, match="vessel.base_position_z"):
        sea_view(meta, columns)
    assert sea_view({"components": {"crane": {"model": CRANE}}}, columns) is None  # no WaveVessel: no sea


@pytest.mark.parametrize("name, value, message", [
    ("sea_components", 10 ** 9, r"sea_components = 1000000000 is outside the allowed range \[1, 5000\]"),
    ("sea_hs", "high", "sea_hs = 'high' m is outside the allowed range"),
    ("z_down", "yes", "z_down = 'yes' must be a boolean"),
])
def test_a_sidecars_sea_is_checked_before_the_sea_is_made(name, value, message):
    """The sidecar is data: a sea of a billion components (memory for hours) or a word for a height is refused in one
    line, naming the parameter and its range, before any wave component is made."""
    columns, meta = _run(2)
    meta["components"]["vessel"]["parameters"][name] = value
    with pytest.raises(ValueError, match=message):
        sea_view(meta, columns)
