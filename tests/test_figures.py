"""Every figure the tool draws -- the demo's paper figures, ``run --plot`` of every FMU's outputs, the figure
with and without the payload, the ship co-simulation figure, the sweep report's figures -- built as a
matplotlib Figure and checked against the issue's rules (tests/figure_checks.py): a handful of curves per
axes in distinct colours, no overlapping bands, legends inside the figure and off the data, a unit on every
axis, engineering units, no text outside the figure.

The data are synthetic, shaped like the runs': every output of an FMU with the magnitude of its unit, a
third of them carrying a vibration at 40 Hz sampled at 100 Hz (the flexible crane's support modes), one
with a start spike four times its later range (the deck force at sea), one at round-off level."""
from __future__ import annotations

import math

import numpy as np
import pytest

from figure_checks import problems

from crane_models.app.demo import PAYLOAD_PANELS, SCENARIOS
from crane_models.app.plots import output_panels, series_panels, side_by_side_figure, time_series_figure
from crane_models.models.registry import SPECS

SIZE = {"N": 3e5, "N.m": 1e6, "rad": 0.5, "m": 2.0, "m/s": 0.3, "rad/s": 0.2, "kg": 5e3, "": 1.0}
T = np.arange(1001) * 0.01  # 10 s at 10 ms


def synthetic(names: list, units: dict, seed: int = 25) -> dict:
    """A result with every output in ``names``: a slow motion of its unit's size, every third one with a
    40 Hz vibration of a quarter of that size on top."""
    rng = np.random.default_rng(seed)
    out = {"time": T}
    for k, name in enumerate(names):
        size = SIZE.get(units.get(name, ""), 1.0)
        y = size * np.sin(2 * np.pi * T / rng.uniform(4.0, 12.0) + rng.uniform(0, 2 * np.pi))
        if k % 3 == 1:
            y = y + 0.25 * size * np.sin(2 * np.pi * 40.0 * T + 0.3)
        out[name] = y
    return out


def outputs_of(fmu: str) -> tuple:
    spec = SPECS[fmu]()
    return [v.name for v in spec.outputs], {v.name: v.unit or "" for v in spec.outputs}


def check(fig) -> None:
    try:
        found = problems(fig)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_demo_figures_read_at_a_glance(scenario):
    sc = SCENARIOS[scenario]()
    names, units = outputs_of(sc.fmu)
    result = synthetic(names, units)
    reference = {k: v * (1 + 1e-6) for k, v in result.items()}
    for stem, title, series, *_ in sc.figures:
        check(time_series_figure(f"{title}\n{sc.paper}", series_panels(series, units, result), result, reference))


@pytest.mark.parametrize("fmu", list(SPECS))
def test_run_plot_of_every_output_reads_at_a_glance(fmu):
    """``run --plot`` with the default, all outputs: grouped into panels, every output drawn exactly once."""
    names, units = outputs_of(fmu)
    result = synthetic(names, units)
    panels = output_panels(names, units, result)
    drawn = [n for p in panels for n, *_ in p.series]
    assert sorted(drawn) == sorted(names)
    columns = 1 if len(panels) <= 6 else 2 if len(panels) <= 16 else 3
    check(time_series_figure(f"{fmu}: {fmu}.fmu", panels, result, columns=columns))


def test_run_plot_leaves_out_outputs_that_are_zero_throughout(monkeypatch, tmp_path):
    """``run --plot`` with all outputs: an output that is 0 at every point (a moment a passive joint cannot carry,
    the payload's outputs without a payload) is a flat panel; it is not drawn, and the figure's title says so."""
    from crane_models.app import plots

    names, units = outputs_of("KnuckleBoomCrane")
    result = synthetic(names, units)
    zero = [n for n in names if n.startswith(("hook_", "swing_", "joint1_moment"))]
    for n in zero:
        result[n] = np.zeros_like(T)
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig))
    plots.plot_outputs(tmp_path / "r.png", "KnuckleBoomCrane", result, names, units)
    (fig,) = figures
    drawn = [text.get_text() for ax in fig.axes if ax.get_legend() for text in ax.get_legend().get_texts()]
    labels = " ".join(drawn)
    assert not any(n in labels for n in zero) and "q2" in labels
    assert "not drawn, 0 throughout: " + zero[0] in fig._suptitle.get_text()
    panels_all = plots.output_panels(names, units, result)
    assert len([ax for ax in fig.axes if ax.has_data()]) < len(panels_all)


def test_run_plot_groups_outputs_by_kind_and_unit():
    """The components of one vector share a panel (joint1_force_x|y|z), numbered outputs of one kind and unit
    too (q2, q3 in m), and never two units on one panel."""
    names, units = outputs_of("KnuckleBoomCrane")
    result = synthetic(names, {n: "" for n in names})  # no vibration splits panels: only the grouping counts
    for n in names:
        result[n] = T * (1 + names.index(n))
    panels = {tuple(n for n, *_ in p.series): p.unit for p in output_panels(names, units, result)}
    assert ("joint1_force_x", "joint1_force_y", "joint1_force_z") in panels
    assert ("q2", "q3") in panels and ("alpha2", "alpha3") in panels
    assert ("applied_cylinder2_force", "applied_cylinder3_force") in panels
    for members, unit in panels.items():
        assert {units[n] for n in members} == {unit}


def test_a_long_title_wraps_inside_the_figure():
    """``run --plot`` titles the figure with the model and the FMU's file name, which may be long."""
    result = {"time": T, "q1": 0.3 * np.sin(T)}
    title = "KnuckleBoomCrane: " + "knuckle_boom_crane_with_payload_and_deck_contact_build_2025_11_27_" * 3 + ".fmu"
    check(time_series_figure(title, output_panels(["q1"], {"q1": "rad"}, result), result))


def test_vibrating_series_get_panels_of_their_own():
    """Two vibrating series of one unit would draw two bands over each other: each gets its own panel."""
    units = {"a": "N", "b": "N", "c": "N"}
    result = {"time": T, "a": 1e3 * np.sin(2 * np.pi * 40 * T), "b": 2e3 * np.cos(2 * np.pi * 40 * T + 1),
              "c": 1e3 * T}
    panels = series_panels([("a", "a"), ("b", "b"), ("c", "c")], units, result)
    assert sorted(tuple(n for n, *_ in p.series) for p in panels) == [("a",), ("b",), ("c",)]
    check(time_series_figure("three forces", panels, result))


def test_a_start_spike_does_not_set_the_scale():
    """The deck force at sea: 45 kN in the first sample, then within 0-10 kN. The axis shows 0-10 kN and the
    legend names the peak that is off scale."""
    y = np.where(T < 1.8, 9.81e3, 0.0)
    y[0] = 45e3
    result = {"time": T, "deck_contact_force": y}
    fig = time_series_figure("deck", series_panels([("deck_contact_force", "N")], {"deck_contact_force": "N"},
                                                   result), result)
    ax = fig.axes[0]
    assert ax.get_ylim()[1] < 12.0  # kN: the later range and a margin, far below 45
    assert any("off scale: 45 kN at t = 0 s" in t.get_text() for t in ax.get_legend().get_texts())
    check(fig)


def test_round_off_is_drawn_as_zero():
    """A passive joint's moment comes out at ~1e-9 N·m: drawn as 0 and said so, not as noise."""
    result = {"time": T, "n_x": 2e-9 * (-1.0) ** np.arange(T.size), "n_y": 5e4 * np.sin(T)}
    fig = time_series_figure("moments", series_panels([("n_x", "n_x"), ("n_y", "n_y")],
                                                      {"n_x": "N.m", "n_y": "N.m"}, result), result)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["n_x ≈ 0 (round-off)", "n_y"]
    assert not np.any(ax.lines[0].get_ydata())
    check(fig)


def test_payload_figure_reads_at_a_glance():
    """Both Joint 1 moments vibrate after the wire's snaps (as in the demo's lift): a row each."""
    units = outputs_of("KnuckleBoomCrane")[1]
    names = [n for _, series in PAYLOAD_PANELS for n, _ in series]
    with_payload, without = synthetic(names, units), synthetic(names, units, seed=3)
    for name in ("joint1_moment_x", "joint1_moment_y"):
        with_payload[name] = 1e6 * np.sin(T / 4) + 5e4 * np.sin(2 * np.pi * 40.0 * T)
    fig, drawn = side_by_side_figure("knuckle_boom_lift: with and without the payload", PAYLOAD_PANELS, units,
                                 [("with payload", with_payload), ("without payload", without)],
                                 note="same inputs; without the payload the winch input is ignored")
    assert [row for row, column in drawn if column == "with payload"][-2:] == ["Joint 1 moments: n_x",
                                                                                "Joint 1 moments: n_y"]
    check(fig)


def test_ship_figure_reads_at_a_glance():
    from crane_models.app.ship_demo import ship_figure

    mono = {"time": T, "roll": -0.13 * np.sin(T / 3), "pitch": 0.01 * np.sin(T / 2), "yaw": -0.002 * T,
            "interface_force_x": 1e4 * np.sin(T / 3), "interface_force_y": 6e4 * np.sin(T / 4),
            "interface_force_z": -3.5e5 + 3e3 * np.sin(T)}
    split = {k: v[1:] for k, v in mono.items()}
    check(ship_figure("Vessel + KnuckleBoomCraneOnMovingBase: libcosim against the monolithic model (10 ms)",
                      split, mono))


def sweep_rows(count: int = 18) -> list:
    """Summary rows as a sweep of 3 x 3 x 2 cases writes them (joint1_force_x in N)."""
    rows = []
    for i in range(count):
        kp1, amplitude = (2e6, 4e6, 8e6)[i % 3], (0.2, 0.4, 0.6)[(i // 3) % 3]
        row = {"index": i, "case_id": f"c{i}", "status": "ok", "param.kp1": kp1,
               "param.signals.q1_ref.amplitude": amplitude, "kp.joint1_force_x": 0.2 + 0.02 * i}
        for m in (3, 4, 5):
            row[f"del_m{m}.joint1_force_x"] = 1e3 * amplitude * m * kp1 / 1e6
        rows.append(row)
    return rows


def test_sweep_report_figures_read_at_a_glance():
    from crane_models.analysis.fatigue import rainflow_cycles
    from crane_models.analysis.report import matrix_figure, over_parameter_figure, spectra_figure

    rows = sweep_rows()
    rng = np.random.default_rng(1)
    series = {r["index"]: 1.5e5 * r["param.signals.q1_ref.amplitude"] * np.cumsum(rng.normal(size=400)) / 20
              for r in rows}
    cycles = {i: rainflow_cycles(y, "N") for i, y in series.items()}
    varied = ["kp1", "signals.q1_ref.amplitude"]
    check(spectra_figure({i: (c.ranges, c.counts) for i, c in cycles.items()}, rows, "joint1_force_x", "N",
                         varied, "KnuckleBoomCrane"))
    for param in varied:
        check(over_parameter_figure(rows, "joint1_force_x", "N", param, [3, 4, 5], "KnuckleBoomCrane"))
    check(matrix_figure(series[0] + 1.2e6, rows[0], "joint1_force_x", "N"))
    # cycles of ±100 N about 1.2 MN: without care the mean axis ends in an offset label ("+1.2e3", "1e6")
    check(matrix_figure(1.2e6 + 100.0 * np.sin(np.linspace(0.0, 40.0 * np.pi, 2000)) + np.linspace(0, 50, 2000),
                        rows[0], "joint1_force_x", "N"))


def test_spectrum_axis_has_plain_tick_labels():
    """Cycle counts past 20 go on a log axis labelled 1, 10, 100 -- not 6×10⁻¹."""
    from crane_models.analysis.fatigue import rainflow_cycles
    from crane_models.analysis.report import spectra_figure

    rows = sweep_rows(3)
    rng = np.random.default_rng(2)
    cycles = {r["index"]: rainflow_cycles(np.cumsum(rng.normal(size=2000)), "N") for r in rows}
    fig = spectra_figure({i: (c.ranges, c.counts) for i, c in cycles.items()}, rows, "joint1_force_x", "N",
                         ["kp1"], "KnuckleBoomCrane")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(re_plain(text) for text in labels), labels
    check(fig)


def re_plain(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
