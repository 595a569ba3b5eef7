"""Plot helpers: which signals are drawn as a min/max envelope, and what the envelope holds."""
from __future__ import annotations

import numpy as np

from crane_models.app.plots import display, enveloped, envelope, oscillates


def test_a_sampled_support_mode_is_enveloped_a_smooth_motion_is_not():
    t = np.arange(1001) * 0.01  # the demo's 10 s at 10 ms
    slow = 2e-4 * np.sin(0.5 * t)
    vibration = 1e-4 * np.sin(2 * np.pi * 40.0 * t + 0.3)  # 40 Hz at 100 Hz sampling: a zig-zag
    assert oscillates(slow + vibration) and enveloped(t, slow + vibration)
    assert not oscillates(slow) and not enveloped(t, slow)
    # A steep but smooth signal: its columns span much, none zig-zags.
    steep = np.tanh((t - 0.3) / 0.1)
    assert not enveloped(t, steep)
    # Round-off chatter on a near-zero signal is invisible next to the axis' other signals.
    chatter = 1e-9 * (-1.0) ** np.arange(t.size)
    assert enveloped(t, chatter) and not enveloped(t, chatter, scale=1.0)


def test_envelope_holds_the_vibration_amplitude():
    t = np.arange(1001) * 0.01
    y = 0.5 + 0.1 * np.sin(2 * np.pi * 40.0 * t + 0.3)
    tm, lo, hi = envelope(t, y, 100)
    assert len(tm) == 100 and np.isclose(tm[0], 0.05)
    # Column by column with a plain mask (the function bins with bincount).
    edges = np.linspace(t[0], t[-1], 101)
    for k in range(100):
        inside = (t >= edges[k]) & ((t < edges[k + 1]) if k < 99 else (t <= edges[k + 1]))
        assert (lo[k], hi[k]) == (y[inside].min(), y[inside].max())
    # The band is the vibration: 40 Hz sampled at 100 Hz visits phases 0.8 pi apart, so every 0.1 s column
    # reaches within 1 - cos(0.2 pi) = 19 % of the 0.1 amplitude on both sides.
    assert np.all(hi - 0.5 > 0.1 * np.cos(0.2 * np.pi) - 1e-12) and np.all(0.5 - lo > 0.1 * np.cos(0.2 * np.pi) - 1e-12)


def test_display_units():
    assert display("rad") == ("deg", 180.0 / np.pi)
    assert display("N", 3.5e5) == ("kN", 1e-3) and display("N", 900.0) == ("N", 1.0)
    assert display("N.m", 2e4) == ("kN·m", 1e-3)


def test_an_aliased_mode_of_a_short_run_is_drawn_as_its_band_not_a_zig_zag():
    """The damped 16-element crane's demo: 1 s at 10 ms (101 samples, fewer than the axis' pixels) of its 40 Hz
    support mode: a line through the samples draws a false, slower wave; the figure draws the min/max band and
    no line through the samples. A well-sampled motion of the same run stays a line."""
    from matplotlib.collections import PolyCollection

    from crane_models.app.plots import Panel, time_series_figure
    from crane_models.analysis.plot_style import pyplot

    t = np.arange(101) * 0.01
    result = {"time": t, "z_b": -2e-4 + 2e-4 * np.sin(2 * np.pi * 40.0 * t + 0.3) + 1e-5 * t,
              "q": 0.3 * np.sin(2 * np.pi * t)}
    fig = time_series_figure("t", [Panel("m", [("z_b", "z(b)", "")]), Panel("rad", [("q", "q", "")])], result)
    try:
        band_ax, line_ax = fig.axes[:2]
        assert any(isinstance(c, PolyCollection) for c in band_ax.collections)
        assert all(len(line.get_xdata()) < len(t) for line in band_ax.lines), "a line through the samples"
        assert not line_ax.collections and max(len(line.get_xdata()) for line in line_ax.lines) == len(t)
    finally:
        pyplot().close(fig)


def test_the_programmed_motion_is_under_its_curve_in_the_same_colour_in_legend_and_key():
    """fig_end_effector: z_E follows its programmed motion within millimetres; the wide pale target is drawn under
    z_E, and the figure key shows it in the colour the axes' legend (and the axes) give it."""
    from matplotlib.colors import to_rgba

    from crane_models.app.plots import Panel, time_series_figure
    from crane_models.analysis.plot_style import pyplot

    t = np.arange(101) * 0.01
    result = {"time": t, "tip_x": 0.1 * t, "tip_z": 1.8 + 0.2 * t ** 2, "z_E_programmed": 1.8 + 0.2 * t ** 2}
    panel = Panel("m", [("tip_x", "x_E", ""), ("tip_z", "z_E", ""), ("z_E_programmed", "z_E programmed", "target")])
    fig = time_series_figure("t", [panel], result)
    try:
        ax = fig.axes[0]
        lines = {line.get_label(): line for line in ax.lines}
        target, curve = lines["z_E programmed"], lines["z_E"]
        assert target.get_zorder() < curve.get_zorder() and target.get_alpha() < 1.0
        key = {text.get_text(): handle for text, handle in zip(fig.legends[0].texts, fig.legends[0].legend_handles)}
        swatch = next(h for text, h in key.items() if text.startswith("programmed motion"))
        assert to_rgba(swatch.get_color(), swatch.get_alpha()) == to_rgba(target.get_color(), target.get_alpha())
    finally:
        pyplot().close(fig)
