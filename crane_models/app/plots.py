"""Time-series figures of FMU runs -- the demo's paper figures, ``run --plot``, the with/without-payload figure --
in the style of :mod:`crane_models.analysis.plot_style`: panels of at most a handful of curves grouped by kind
and unit, engineering units, legends outside the data, the FMU in colour and the standalone reference as a
dashed black line over it, a vibration faster than the plot (or its samples) resolves drawn as its min/max envelope."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..simulation.runs import RESOLUTION
from .plot_bands import (ALIAS_SAMPLES, COLUMNS, DENSE, aliased, band_columns, columns_for, enveloped,  # noqa: F401
                         envelope, oscillates)
from .results import zero_outputs
from ..analysis.plot_style import (MAX_CURVES, PALETTE, REFERENCE, display, figure_key, legend_outside, new_figure,
                                   save, wrapped_title)

__all__ = ["Panel", "plot_figure", "plot_scenario", "plot_outputs", "plot_side_by_side", "time_series_figure",
           "side_by_side_figure", "output_panels", "series_panels", "display", "envelope", "columns_for",
           "oscillates", "aliased", "band_columns", "enveloped", "COLUMNS"]

WIDTH = 9.0  # [in] a figure of one column of panels
# A start transient is "off scale" when, within the first START of the run, it leaves the range of the rest
# of the run by more than that range: the deck force of the lift at sea jumps to 45 kN at t = 0 (the load
# settling on the moving deck), then stays within 0-10 kN, which is what the figure is about.
START = 0.01


@dataclass
class Panel:
    """One axes: series ``[(output, label, role)]`` sharing ``unit``; role ``"target"`` draws a programmed or
    commanded motion as a wide pale line under the others."""

    unit: str
    series: list = field(default_factory=list)
    title: str = ""
    quantity: str = ""  # the y label before the unit (default: the series' names, or the unit's quantity)
    first_color: int = 0  # index into PALETTE of the first series: a series keeps its colour across panels


QUANTITY = {"m": "position", "rad": "angle", "N": "force", "N.m": "moment", "m/s": "speed",
            "rad/s": "angular speed", "s": "time", "kg": "mass"}


def _label_without_unit(label: str) -> str:
    return label.split(" [")[0]


def _axis_name(unit: str, members: list) -> str:
    """The axis label: the series' names when short, else the quantity or what the names share
    (``interface_inertia``); the legend names the series."""
    labels = [_label_without_unit(label) for _, label, *_ in members]
    names = ", ".join(labels)
    if len(names) <= 24:
        return names
    shared = re.sub(r"_[^_]*$", "", os.path.commonprefix(labels)) if len(labels) > 1 else labels[0][:24]
    return QUANTITY.get(unit) or shared or "value"


def _chunks(unit: str, members: list, order: list | None = None) -> list:
    """``members`` in panels of at most :data:`MAX_CURVES`; colours by position in ``order`` when given."""
    first = (lambda m: order.index(m)) if order else (lambda m: 0)
    return [Panel(unit, members[i:i + MAX_CURVES], first_color=first(members[i]))
            for i in range(0, len(members), MAX_CURVES)]


# An output below this fraction of its unit's resolution (simulation.runs.RESOLUTION: 1 N, 1 N·m, 1e-6 m, 1e-6
# rad) is round-off and drawn as 0: the moments a passive joint cannot carry come out at ~1e-9 N·m (terms of
# 1e5-1e6 N·m cancelling at 1e-16), a rigid link's deflection at ~1e-16 m; drawn, they fill the panel with
# noise and "0.0000000000" tick labels.
ROUND_OFF = 1e-3


def _magnitude(result, name: str, unit: str) -> float:
    """The largest magnitude of an output; 0 when it is round-off (:data:`ROUND_OFF`)."""
    largest = float(np.max(np.abs(np.asarray(result[name], float))))
    return 0.0 if largest < ROUND_OFF * RESOLUTION.get(unit, 0.0) else largest


def _separate_bands(panels: list, result) -> list:
    """Each vibrating series (:func:`enveloped`) on a panel of its own when a panel has several: two
    translucent bands over each other mix into a third colour and hide each other's edges."""
    t = np.asarray(result["time"], float)
    out = []
    for panel in panels:
        banded = [m for m in panel.series if m[2] != "target" and _magnitude(result, m[0], panel.unit)
                  and enveloped(t, np.asarray(result[m[0]], float))]
        if len(banded) < 2:
            out.append(panel)
            continue
        calm = [m for m in panel.series if m not in banded]
        colors = {m: panel.first_color + k for k, m in enumerate(panel.series)}
        if calm:
            out.append(Panel(panel.unit, calm, panel.title, panel.quantity, colors[calm[0]]))
        out += [Panel(panel.unit, [m], panel.title, panel.quantity, colors[m]) for m in banded]
    return out


def series_panels(series: list, units: dict, result) -> list:
    """A figure's ``series`` ``[(output, label[, role])]`` as panels: one per unit, at most
    :data:`MAX_CURVES` each, vibrating series apart (:func:`_separate_bands`); a series keeps its colour."""
    order = [(name, label, role[0] if role else "") for name, label, *role in series]
    groups: dict = {}
    for member in order:
        groups.setdefault(units.get(member[0], ""), []).append(member)
    return _separate_bands([p for unit, members in groups.items() for p in _chunks(unit, members, order)], result)


_COMPONENT = re.compile(r"_[a-z]?[xyz]$")  # joint1_force_x, tip_z, payload_vx: one vector's components
SIMILAR = 10.0  # single outputs share a panel when their largest magnitudes are within this factor


def _similar_singles(unit: str, names: list, result) -> list:
    """Single outputs of one unit in panels of at most :data:`MAX_CURVES` whose magnitudes are within
    :data:`SIMILAR` of each other (a 2 m height would flatten a 0.2 mm base motion); zeros go anywhere."""
    panels: list = []
    for name in names:
        size = _magnitude(result, name, unit)
        for panel, sizes in panels:
            if len(panel.series) < MAX_CURVES and all(not s or not size or max(s, size) <= SIMILAR * min(s, size)
                                                      for s in sizes):
                panel.series.append((name, name, ""))
                sizes.append(size)
                break
        else:
            panels.append((Panel(unit, [(name, name, "")]), [size]))
    return [panel for panel, _ in panels]


def output_panels(names: list, units: dict, result) -> list:
    """``run --plot``: outputs grouped by kind and unit -- the components of one vector together
    (``joint1_force_x|y|z``), then the same kind numbered (``q2, q3``; ``applied_cylinder2|3_force``), then
    single outputs of one unit and similar size -- at most :data:`MAX_CURVES` per panel, vibrating ones
    apart (:func:`_separate_bands`), in the FMU's order."""
    groups: dict = {}
    for name in names:
        groups.setdefault((units.get(name, ""), _COMPONENT.sub("", name)), []).append(name)
    merged: dict = {}
    for (unit, stem), members in groups.items():
        merged.setdefault((unit, re.sub(r"\d+", "#", stem)), []).append(members)
    panels, singles = [], {}
    for (unit, _), families in merged.items():
        members = [n for family in families for n in family]
        if len(members) == 1:
            singles.setdefault(unit, []).extend(members)
        elif len(members) <= MAX_CURVES:
            panels.append(Panel(unit, [(n, n, "") for n in members]))
        else:  # e.g. joint1..3 forces: one panel per joint
            panels += [p for family in families for p in _chunks(unit, [(n, n, "") for n in family])]
    for unit, members in singles.items():
        panels += _similar_singles(unit, members, result)
    return _separate_bands(panels, result)


BAND_ALPHA = 0.35  # opacity of a band's fill
TARGET_WIDTH, TARGET_ALPHA = 5.0, 0.35  # [pt], opacity: a programmed motion, wide and pale under the curves


def _draw(ax, t, y, color, label, band: bool, columns: int, reference: bool = False, target: bool = False) -> None:
    """One curve: a line, or -- ``band`` -- the min/max band of each of ``columns`` intervals, outlined in its
    colour; the reference as black dashes (its band as a dashed outline)."""
    if band:
        from matplotlib.colors import to_rgba

        tm, lo, hi = envelope(t, y, columns)
        # the outline in full colour: where the signal is smooth the band is as thin as a line and reads as one
        style = dict(facecolor="none", edgecolor=REFERENCE, linestyle=(0, (4, 3)), lw=0.8) if reference else \
            dict(facecolor=to_rgba(color, BAND_ALPHA), edgecolor=color, lw=0.8)
        ax.fill_between(tm, lo, hi, label=label, **style)
    elif reference:
        ax.plot(t, y, color=REFERENCE, lw=0.9, ls=(0, (4, 3)), label=label)
    elif target:
        ax.plot(t, y, color=color, lw=TARGET_WIDTH, alpha=TARGET_ALPHA, solid_capstyle="butt", label=label,
                zorder=1.5)  # under the curves (zorder 2): the curve that follows it stays on top
    else:
        ax.plot(t, y, color=color, lw=1.4, label=label)


def _off_scale_start(ax, t: np.ndarray, curves: list, unit: str) -> None:
    """Limit the axis to the run after a start transient that would set the scale (:data:`START`), and mark
    its peak with a triangle on the top or bottom edge, named in the legend."""
    early = t <= t[0] + START * (t[-1] - t[0])
    if early.all() or not early.any():
        return
    rest = np.concatenate([y[~early] for y in curves])
    first = np.concatenate([y[early] for y in curves])
    lo, hi = float(rest.min()), float(rest.max())
    span = hi - lo
    excess = max(float(first.max()) - hi, lo - float(first.min()))
    if excess <= span or span <= 0.0:
        return
    up = float(first.max()) - hi >= lo - float(first.min())
    peak_curve = max(curves, key=lambda y: float(np.max(y[early])) if up else -float(np.min(y[early])))
    k = int(np.argmax(peak_curve[early]) if up else np.argmin(peak_curve[early]))
    edge = hi + 0.08 * span if up else lo - 0.08 * span
    ax.set_ylim(lo - 0.08 * span, hi + 0.08 * span)
    ax.plot([t[early][k]], [edge], marker="^" if up else "v", color=REFERENCE, ms=7, clip_on=False, ls="none",
            label=f"off scale: {peak_curve[early][k]:.4g} {unit} at t = {t[early][k]:.3g} s")


def _draw_panel(ax, panel: Panel, result, reference, largest: float | None = None) -> dict:
    """Draw one panel; returns what its styles need explaining (band width, reference, target). ``largest``:
    the magnitude that sets the display unit (default: the panel's own largest value)."""
    t = np.asarray(result["time"], float)
    if largest is None:
        largest = max(float(np.max(np.abs(np.asarray(result[n], float)))) for n, *_ in panel.series)
    shown, factor = display(panel.unit, largest)
    zero = {name for name, *_ in panel.series if not _magnitude(result, name, panel.unit)}
    ys = {name: factor * np.asarray(result[name], float) * (name not in zero) for name, *_ in panel.series}
    span = float(np.ptp(np.concatenate(list(ys.values()))))
    drawn = {"band": None, "reference": False, "target": False}
    colors = [PALETTE[(panel.first_color + k) % len(PALETTE)] for k in range(len(panel.series))]
    for (name, label, role), color in zip(panel.series, colors):
        columns = 0 if role == "target" else band_columns(t, ys[name], span)
        band = columns > 0
        if band:
            drawn["band"] = min(drawn["band"] or np.inf, (t[-1] - t[0]) / columns)
        exact = name in zero and not np.any(np.asarray(result[name], float))
        label = _label_without_unit(label) + (" = 0" if exact else " ≈ 0 (round-off)" if name in zero else "")
        _draw(ax, t, ys[name], color, label, band, columns, target=role == "target")
        if role == "target" and not drawn["target"]:
            drawn["target"] = color  # the key shows it in its own colour, as the legend does
        if reference is not None and role != "target":
            t_ref = np.asarray(reference["time"], float)
            y_ref = factor * np.asarray(reference[name], float) * (name not in zero)
            _draw(ax, t_ref, y_ref, color, None, band, columns, reference=True)
            drawn["reference"] = True
    _off_scale_start(ax, t, list(ys.values()), shown)
    ax.set_ylabel(f"{panel.quantity or _axis_name(panel.unit, panel.series)} [{shown}]")
    if panel.title:
        ax.set_title(panel.title, fontsize=9)
    legend_outside(ax)
    return drawn


def _key(drawn: list, note: str = "", reference_name: str = "standalone reference solver") -> list:
    """The figure key: what the line styles and shaded areas of ``drawn`` (from :func:`_draw_panel`) mean."""
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    entries = [(Line2D([], [], color="0.35", lw=1.4), "FMU under fmpy (coloured)")]
    if any(d["reference"] for d in drawn):
        entries.append((Line2D([], [], color=REFERENCE, lw=0.9, ls=(0, (4, 3))), f"{reference_name} (dashed black)"))
    targets = [d["target"] for d in drawn if d["target"]]
    if targets:
        entries.append((Line2D([], [], color=targets[0], lw=TARGET_WIDTH, alpha=TARGET_ALPHA),
                        "programmed motion (wide, pale, under its curve)"))
    widths = [d["band"] for d in drawn if d["band"]]
    if widths:
        entries.append((Patch(facecolor=to_rgba("0.35", BAND_ALPHA), edgecolor="0.35"),
                        f"shaded: min/max over each {min(widths):.2g} s (a vibration faster than the plot or the "
                        "samples resolve)"))
    if note:
        entries.append((Line2D([], [], color="none"), note))
    return entries


def time_series_figure(title: str, panels: list, result, reference: dict | None = None, note: str = "",
                       columns: int = 1):
    """The figure of ``panels`` of ``result`` (and ``reference``) over time, ``columns`` columns of panels."""
    rows = -(-len(panels) // columns)
    fig, axes = new_figure(rows, columns, width=WIDTH * (1.0 if columns == 1 else 0.8 * columns), sharex=True)
    drawn = [_draw_panel(ax, panel, result, reference) for ax, panel in zip(axes.flat, panels)]
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for c in range(columns):
        bottom = max(r for r in range(rows) if r * columns + c < len(panels) or r == 0)
        axes[bottom, c].set_xlabel("time [s]")
        axes[bottom, c].xaxis.set_tick_params(labelbottom=True)
    wrapped_title(fig, title, fig.get_figwidth())
    figure_key(fig, _key(drawn, note))
    return fig


def plot_figure(path: Path, title: str, series: list, units: dict, result, reference: dict | None = None,
                note: str = "", quantity: str = "") -> Path:
    """One PNG: ``series`` ``[(output, label[, role])]`` of ``result`` (and ``reference``), a panel per unit;
    ``quantity`` names the y axis when there is one unit ("force", "hook load")."""
    panels = series_panels(series, units, result)
    if len({p.unit for p in panels}) == 1:
        for panel in panels:
            panel.quantity = quantity
    save(time_series_figure(title, panels, result, reference, note), path)
    return Path(path)


def plot_scenario(scenario, fmu_result, reference: dict | None, out_dir: Path, units: dict | None = None) -> list:
    """The scenario's figures (``scenario.figures``: ``(stem, title, [(output, label)], ...)``) as PNGs."""
    if units is None:
        from ..simulation.runs import output_units

        units = output_units(scenario.fmu)
    paths = []
    for stem, title, series, *axis in scenario.figures:
        full = f"{title}\n{scenario.paper}" if getattr(scenario, "paper", "") else title
        quantity = re.sub(r"\s*\[[^]]*\]\s*$", "", axis[0]) if axis else ""  # "force [N]" -> "force"
        paths.append(plot_figure(Path(out_dir) / f"{stem}.png", full, series, units, fmu_result, reference,
                                 quantity=quantity))
    return paths


def plot_outputs(path: Path, title: str, result, names: list, units: dict) -> Path:
    """``crane-cosim run --plot``: the outputs ``names`` in panels by kind and unit (:func:`output_panels`), two
    columns of panels beyond six; those 0 throughout (:func:`zero_outputs`) not drawn, the title naming them."""
    zero = zero_outputs(result, names)
    if zero and len(zero) < len(names):
        names = [n for n in names if n not in zero]
        shown = ", ".join(zero[:8]) + (f" and {len(zero) - 8} more" if len(zero) > 8 else "")
        title = f"{title}\nnot drawn, 0 throughout: {shown}"
    panels = output_panels(names, units, result)
    save(time_series_figure(title, panels, result, columns=1 if len(panels) <= 6 else 2 if len(panels) <= 16 else 3),
         path)
    return Path(path)


def _rows_without_overlapping_bands(panels: list, units: dict, results: list) -> list:
    """The rows of :func:`side_by_side_figure`, a row split into one per output where, in some run, more than
    one of its outputs vibrates (:func:`_separate_bands`: the same rule as every other figure)."""
    rows = []
    for name, series in panels:
        unit = units.get(series[0][0], "")
        split = any(len(_separate_bands([Panel(unit, [(n, label, "") for n, label in series])], res)) > 1
                    for _, res in results)
        rows += [(f"{name}: {label}", [(n, label)]) for n, label in series] if split else [(name, series)]
    return rows


def side_by_side_figure(title: str, panels: list, units: dict, results: list, note: str = "") -> tuple:
    """A column per run (``results``: ``[(column title, result)]``) and a row per panel (``panels``:
    ``[(panel title, [(output, label)])]``, the outputs of a panel sharing one unit); the rows share their y
    axis across the columns, so the runs compare at a glance. Returns ``(figure, [(row, column) titles])``."""
    panels = _rows_without_overlapping_bands(panels, units, results)
    fig, axes = new_figure(len(panels), len(results), width=6.0 * len(results), sharex=True, sharey="row")
    drawn, used = [], []
    for r, (name, series) in enumerate(panels):
        unit = units.get(series[0][0], "")
        # one display unit per row (the rows share their y axis): from the largest value over every run
        largest = max(float(np.max(np.abs(np.asarray(res[n], float)))) for _, res in results for n, _ in series)
        for c, (column, res) in enumerate(results):
            panel = Panel(unit, [(n, label, "") for n, label in series], f"{name} -- {column}")
            used.append(_draw_panel(axes[r, c], panel, res, None, largest))
            drawn.append((name, column))
            if c:
                axes[r, c].set_ylabel("")
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    wrapped_title(fig, title, fig.get_figwidth())
    figure_key(fig, _key(used, note))
    return fig, drawn


def plot_side_by_side(path: Path, title: str, panels: list, units: dict, results: list, note: str = "") -> tuple:
    """:func:`side_by_side_figure` as a PNG; returns ``(path, [(row, column) titles])``."""
    fig, drawn = side_by_side_figure(title, panels, units, results, note)
    save(fig, path)
    return Path(path), drawn
