"""Figures a crane engineer can read: one axis per quantity (unit), angles in degrees, vibration drawn as
its min/max envelope, the FMU as solid colour and the standalone reference as a dashed black line, the
title naming the paper figure."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["plot_figure", "plot_scenario", "plot_outputs", "plot_side_by_side", "display", "envelope", "columns_for",
           "oscillates", "enveloped", "COLUMNS"]

# Display unit and factor for SI units a reader thinks of in other units (as the FMUs' displayUnit).
DISPLAY = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi), "N.m": ("N·m", 1.0)}
# A run of more than DENSE points is drawn per column of the time axis: min/max (band) and mean (line), so a
# vibration shows as its amplitude around the slow motion instead of a solid block of zig-zags. A column
# holds at least 10 samples (the mean of fewer still zig-zags for a mode near the sampling rate: the
# flexible crane's 40 Hz support mode at 100 Hz) and is at least ~4 pixels wide (COLUMNS across the axis).
COLUMNS = 200
DENSE = 400
FIGSIZE_PER_AXIS = (9.0, 2.6)  # [in]; dpi 110 -> ~990 px wide


def display(unit: str, largest: float = 0.0) -> tuple:
    """``(display unit, factor)`` for an SI unit: rad -> deg; forces and moments in k when ``largest``
    (the largest magnitude drawn, in the SI unit) is 10 000 or more."""
    shown, factor = DISPLAY.get(unit, (unit or "-", 1.0))
    if unit in ("N", "N.m") and largest >= 1e4:
        return "k" + shown, factor * 1e-3
    return shown, factor


def envelope(t: np.ndarray, y: np.ndarray, columns: int = COLUMNS) -> tuple:
    """Per column of equal width in time: ``(t_mid, y_min, y_max, y_mean)``."""
    edges = np.linspace(t[0], t[-1], columns + 1)
    index = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, columns - 1)
    count = np.bincount(index, minlength=columns)
    keep = count > 0
    y_min = np.full(columns, np.inf)
    y_max = np.full(columns, -np.inf)
    np.minimum.at(y_min, index, y)
    np.maximum.at(y_max, index, y)
    y_mean = np.bincount(index, weights=y, minlength=columns)[keep] / count[keep]
    t_mid = 0.5 * (edges[:-1] + edges[1:])
    return t_mid[keep], y_min[keep], y_max[keep], y_mean


def columns_for(points: int) -> int:
    """Envelope columns for a run of ``points`` samples; 0: draw every sample."""
    return 0 if points <= DENSE else min(COLUMNS, points // 10)


# A signal whose slope changes sign at more than this fraction of its samples is vibrating faster than the
# plot can show (a smooth crane motion over a run of 1000+ samples has a few dozen turning points).
OSCILLATING = 0.05
VISIBLE = 0.02  # a vibration narrower than 2 % of the axis is not worth a band


def oscillates(y: np.ndarray) -> bool:
    """True when ``y`` turns (slope changes sign) at more than :data:`OSCILLATING` of its samples."""
    slope = np.sign(np.diff(np.asarray(y, dtype=float)))
    slope = slope[slope != 0]
    return len(slope) > 2 and np.count_nonzero(slope[1:] != slope[:-1]) > OSCILLATING * len(y)


def enveloped(t: np.ndarray, y: np.ndarray, scale: float | None = None) -> bool:
    """Draw ``y`` as an envelope: many samples and a vibration the line cannot resolve, wide enough to see:
    in some column, min/max spread beyond the net change across the column (what a monotonic stretch
    spans) above :data:`VISIBLE` of ``scale`` (the axis' span; default the signal's range)."""
    columns = columns_for(len(t))
    if not columns or not oscillates(y):
        return False
    t, y = np.asarray(t, float), np.asarray(y, float)
    cuts = np.searchsorted(t, np.linspace(t[0], t[-1], columns + 1)[1:-1])
    zigzag = max(float(np.ptp(c)) - abs(float(c[-1] - c[0])) for c in np.split(y, cuts) if len(c))
    return zigzag > VISIBLE * (float(np.ptp(y)) if scale is None else scale)


def _draw(ax, t, y, color, label, style: dict, envelope_it: bool) -> None:
    columns = columns_for(len(t)) if envelope_it else 0
    if columns:
        tm, lo, hi, mean = envelope(np.asarray(t, float), np.asarray(y, float), columns)
        if style.get("band", True):
            ax.fill_between(tm, lo, hi, color=color, alpha=0.25, lw=0)
        ax.plot(tm, mean, color=color, label=label, **{k: v for k, v in style.items() if k != "band"})
    else:
        ax.plot(t, y, color=color, label=label, **{k: v for k, v in style.items() if k != "band"})


def _axes_by_unit(series: list, units: dict) -> list:
    """Series grouped by unit, in order of first appearance: one axis each."""
    groups: dict = {}
    for name, label in series:
        groups.setdefault(units.get(name, ""), []).append((name, label))
    return list(groups.items())


QUANTITY = {"m": "position", "rad": "angle", "N": "force", "N.m": "moment", "m/s": "speed",
            "rad/s": "angular speed", "s": "time"}


def _axis_name(unit: str, members: list) -> str:
    """The axis label: the series' names when short, else the quantity (the legend names the series)."""
    names = ", ".join(_label_without_unit(label) for _, label in members)
    return names if len(names) <= 24 or unit not in QUANTITY else QUANTITY[unit]


def _label_without_unit(label: str) -> str:
    return label.split(" [")[0]


def plot_figure(path: Path, title: str, series: list, units: dict, result, reference: dict | None = None,
                note: str = "") -> Path:
    """One PNG: ``series`` ``[(output, label)]`` of ``result`` (and ``reference``), one axis per unit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = _axes_by_unit(series, units)
    fig, axes = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                             figsize=(FIGSIZE_PER_AXIS[0], 1.2 + FIGSIZE_PER_AXIS[1] * len(groups)))
    colors = {name: f"C{i}" for i, (name, _) in enumerate(series)}
    t = np.asarray(result["time"], dtype=float)
    columns = columns_for(len(t))
    banded = False
    for ax, (unit, members) in zip(axes[:, 0], groups):
        largest = max(float(np.max(np.abs(np.asarray(result[n], float)))) for n, _ in members)
        shown, factor = display(unit, largest)
        ys = {name: factor * np.asarray(result[name], float) for name, _ in members}
        span = float(np.ptp(np.concatenate(list(ys.values()))))
        for name, label in members:
            band = enveloped(t, ys[name], span)
            banded |= band
            _draw(ax, t, ys[name], colors[name], _label_without_unit(label), {"lw": 1.4}, band)
            if reference is not None:
                _draw(ax, np.asarray(reference["time"], float), factor * np.asarray(reference[name], float),
                      "k", None, {"lw": 0.9, "ls": (0, (4, 3)), "band": False}, band)
        ax.set_ylabel(f"{_axis_name(unit, members)} [{shown}]")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best", ncol=len(members))
    axes[-1, 0].set_xlabel("time [s]")
    lines = ["FMU under fmpy: coloured"]
    if reference is not None:
        lines.append("standalone reference solver: dashed black")
    if banded:
        width = (t[-1] - t[0]) / columns
        lines.append(f"shaded: min/max over each {width:.3g} s, line: the mean over it")
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.005, "; ".join(lines) + (f". {note}" if note else ""), fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def plot_scenario(scenario, fmu_result, reference: dict | None, out_dir: Path, units: dict | None = None) -> list:
    """The scenario's figures (``scenario.figures``: ``(stem, title, [(output, label)], ...)``) as PNGs."""
    if units is None:
        from ..simulation.runs import output_units

        units = output_units(scenario.fmu)
    paths = []
    for stem, title, series, *_ in scenario.figures:
        full = f"{title}\n{scenario.paper}" if getattr(scenario, "paper", "") else title
        paths.append(plot_figure(Path(out_dir) / f"{stem}.png", full, series, units, fmu_result, reference))
    return paths


def plot_outputs(path: Path, title: str, result, names: list, units: dict) -> Path:
    """``crane-cosim run --plot``: the chosen outputs, one axis per unit."""
    return plot_figure(path, title, [(n, n) for n in names], units, result)


def plot_side_by_side(path: Path, title: str, panels: list, units: dict, results: list, note: str = "") -> tuple:
    """One PNG with a column per run (``results``: ``[(column title, result)]``) and a row per panel (``panels``:
    ``[(panel title, [(output, label)])]``, the outputs of a panel sharing one unit); the rows share their
    y axis across the columns, so the runs compare at a glance. Returns ``(path, [(row, column) titles])``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(panels), len(results), sharex=True, sharey="row", squeeze=False,
                             figsize=(6.0 * len(results), 1.2 + FIGSIZE_PER_AXIS[1] * len(panels)))
    drawn = []
    for r, (panel, series) in enumerate(panels):
        unit = units.get(series[0][0], "")
        largest = max(float(np.max(np.abs(np.asarray(res[n], float)))) for _, res in results for n, _ in series)
        shown, factor = display(unit, largest)
        for c, (column, res) in enumerate(results):
            ax = axes[r, c]
            t = np.asarray(res["time"], dtype=float)
            for i, (name, label) in enumerate(series):
                y = factor * np.asarray(res[name], float)
                _draw(ax, t, y, f"C{i}", _label_without_unit(label), {"lw": 1.2}, enveloped(t, y))
            ax.set_title(f"{panel} -- {column}", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="best", ncol=len(series))
            if c == 0:
                ax.set_ylabel(f"{_axis_name(unit, series)} [{shown}]")
            drawn.append((panel, column))
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle(title, fontsize=11)
    if note:
        fig.text(0.01, 0.005, note, fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path), drawn
