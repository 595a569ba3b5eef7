"""What makes a figure read at a glance (issue 25), checked on a matplotlib Figure object -- independently of
how the project draws it: the rules are the issue's, the numbers here are this file's own.

* at most ``MAX_COLOURED`` coloured curves per axes, each in its own colour (black and grey are the
  reference and the context, not counted);
* at most one filled band per axes (two translucent bands mix into a third colour), no line of a band's
  colour inside it (a mean line through an envelope aliases), every band named in a legend and shaded
  areas explained in the figure's key;
* no text over the data (labels such as "Q2" inside the axes), no offset label ("1e6") at an axis' end;
* every legend inside the figure and off the data (outside every axes), every text inside the figure;
* a unit ``[...]`` in every axis label, a y label on every axes with data (or on one sharing its y axis),
  an x label on the lowest axes of each column; engineering units: no ``[rad]`` (degrees), no ``[N]`` or
  ``[N·m]`` axis beyond 10 000 (kN, kN·m).
"""
from __future__ import annotations

import re
import warnings

from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D

MAX_COLOURED = 4  # "a handful": three vector components and one more
TOLERANCE = 1.0  # [px] a text may touch the figure's edge
UNIT = re.compile(r"\[[^\]]+\]")


def _grey(color) -> bool:
    r, g, b, _ = to_rgba(color)
    return abs(r - g) < 0.02 and abs(g - b) < 0.02


def _curve_color(artist):
    """The colour of a data curve (a line of 3+ points or a filled band), None for anything else."""
    if isinstance(artist, Line2D) and len(artist.get_xdata()) >= 3 and artist.get_visible():
        return to_rgba(artist.get_color())
    if isinstance(artist, PolyCollection) and len(artist.get_paths()):
        faces = artist.get_facecolor()
        if len(faces) and faces[0][3] > 0:
            return tuple(faces[0][:3]) + (1.0,)
    return None


def _bands(ax) -> list:
    return [c for c in ax.collections if isinstance(c, PolyCollection) and _curve_color(c) is not None
            and not _grey(_curve_color(c))]


def _inside(box, outer) -> bool:
    return (box.x0 >= outer.x0 - TOLERANCE and box.y0 >= outer.y0 - TOLERANCE and box.x1 <= outer.x1 + TOLERANCE
            and box.y1 <= outer.y1 + TOLERANCE)


def _data_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and (ax.lines or ax.collections) and ax.get_label() != "<colorbar>"]


def problems(fig) -> list:
    """Every rule the figure breaks, as readable strings (empty: it reads at a glance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Tight layout not applied" and friends
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    found = []
    axes = _data_axes(fig)
    for ax in axes:
        name = ax.get_ylabel() or ax.get_title() or str(ax)
        colours = [c for a in ax.lines + ax.collections if (c := _curve_color(a)) is not None and not _grey(c)]
        if len(colours) > MAX_COLOURED:
            found.append(f"{name}: {len(colours)} coloured curves (at most {MAX_COLOURED})")
        if len(set(colours)) != len(colours):
            found.append(f"{name}: two curves share a colour")
        bands = _bands(ax)
        if len(bands) > 1:
            found.append(f"{name}: {len(bands)} filled bands on one axes")
        legend_labels = [t.get_text() for lg in [ax.get_legend()] + fig.legends if lg for t in lg.get_texts()]
        for band in bands:
            if band.get_label().startswith("_") or band.get_label() not in legend_labels:
                found.append(f"{name}: a shaded band without a legend entry")
            if any(isinstance(a, Line2D) and len(a.get_xdata()) >= 3 and to_rgba(a.get_color()) == _curve_color(band)
                   for a in ax.lines):
                found.append(f"{name}: a line of the band's colour runs inside the band")
        if bands and not any("min/max" in t.get_text() for lg in fig.legends for t in lg.get_texts()):
            found.append(f"{name}: the figure's key does not say what the shaded band is")
        if any(t.get_visible() and t.get_text().strip() for t in ax.texts):
            found.append(f"{name}: text inside the data area ({ax.texts[0].get_text()!r})")
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_offset_text().get_text():
                found.append(f"{name}: an offset label {axis.get_offset_text().get_text()!r} at the axis' end")
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent(renderer)
            if box.overlaps(ax.bbox):
                found.append(f"{name}: the legend covers the data")
        siblings = ax.get_shared_y_axes().get_siblings(ax)
        if not any(s.get_ylabel() for s in siblings):
            found.append(f"{name}: no y label")
        low, high = ax.get_ylim()
        ylabel = ax.get_ylabel()
        if re.search(r"\[(N|N·m|N\.m)\]", ylabel) and max(abs(low), abs(high)) >= 1e4:
            found.append(f"{name}: {ylabel} reaches {max(abs(low), abs(high)):.3g}; kN or kN·m reads better")
    for lg in fig.legends:
        box = lg.get_window_extent(renderer)
        if any(box.overlaps(ax.bbox) for ax in axes):
            found.append("the figure's key covers an axes")
    for ax in fig.axes:
        for label in (ax.get_xlabel(), ax.get_ylabel()):
            if label and not UNIT.search(label):
                found.append(f"axis label {label!r} has no unit")
            if "[rad]" in label:
                found.append(f"axis label {label!r}: angles read in degrees")
    columns: dict = {}
    for ax in axes:
        spec = ax.get_subplotspec()
        if spec is not None:
            col = spec.colspan.start
            if col not in columns or spec.rowspan.stop > columns[col].get_subplotspec().rowspan.stop:
                columns[col] = ax
    for col, ax in columns.items():
        if not ax.get_xlabel():
            found.append(f"column {col}: the lowest axes has no x label")
    # What is drawn: each axes with its tick labels, labels, title and legend (ticks beyond the view are not
    # drawn and do not count), and the figure's own texts and key.
    for ax in fig.axes:
        if ax.get_visible() and not _inside(ax.get_tightbbox(renderer), frame):
            found.append(f"{ax.get_ylabel() or ax.get_title() or 'an axes'}: labels or legend reach outside the figure")
    texts = list(fig.texts) + [t for t in (fig._suptitle, fig._supxlabel, fig._supylabel) if t is not None]
    for text in texts:
        if text.get_visible() and text.get_text().strip() and not _inside(text.get_window_extent(renderer), frame):
            found.append(f"text {text.get_text()[:40]!r} reaches outside the figure")
    for lg in fig.legends:
        if not _inside(lg.get_window_extent(renderer), frame):
            found.append("the figure's key reaches outside the figure")
    return found
