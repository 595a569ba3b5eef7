"""The demo's figure of a payload lift with and without the payload (issue 14, item 3): written next to the other
plots with the expected panels, from a run of the scenario and one with ``payload_enabled`` false. Cheap: 0.3 s
of the lift by the standalone solver in place of the FMU."""
from __future__ import annotations

import dataclasses

import numpy as np

from crane_models.app.demo import PAYLOAD_PANELS, payload_comparison
from crane_models.app.plots import plot_side_by_side
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_lift
from crane_models.simulation.runs import output_units, run_standalone


def test_demo_writes_the_with_and_without_payload_figure(tmp_path):
    lift = dataclasses.replace(knuckle_boom_lift(), stop_time=0.3)
    runs = []

    def run(scenario):
        runs.append(scenario.start_values)
        return run_standalone(scenario, 0.01, rtol=1e-6, atol=1e-8)

    path = payload_comparison(lift, run(lift), run, tmp_path, output_units(lift.fmu))
    assert path == tmp_path / "with_without_payload.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
    assert [r["payload_enabled"] for r in runs] == [True, False]  # the second run is without the payload


def test_side_by_side_figure_has_a_panel_per_quantity_and_run(tmp_path):
    lift = knuckle_boom_lift()
    units = output_units(lift.fmu)
    t = np.linspace(0.0, 1.0, 11)
    result = {"time": t, **{n: np.sin(t + i) for i, n in enumerate(
        n for _, series in PAYLOAD_PANELS for n, _ in series)}}
    _, drawn = plot_side_by_side(tmp_path / "f.png", "title", PAYLOAD_PANELS, units,
                                 [("with payload", result), ("without payload", result)])
    assert drawn == [(panel, column) for panel in ("Hook load", "Swing angles", "Joint 1 vertical reaction",
                                                   "Joint 1 moments") for column in ("with payload", "without payload")]
    assert {units[n] for n, _ in PAYLOAD_PANELS[0][1]} == {"N"} and {units[n] for n, _ in PAYLOAD_PANELS[1][1]} == {"rad"}
    assert {units[n] for n, _ in PAYLOAD_PANELS[3][1]} == {"N.m"}
