"""The one plotting style of crane-cosim's figures (demo, ``run --plot``, the ship co-simulation, sweep reports).

Rules, so that a crane engineer reads a figure at a glance:

* at most :data:`MAX_CURVES` coloured curves per axes, in the Okabe-Ito colours (:data:`PALETTE`, told apart
  with every common colour-vision deficiency); black (dashed) is kept for a reference solution, grey for
  context (all cases of a sweep);
* engineering units (:func:`display`): angles in deg, forces and moments in kN and kN·m (MN, MN·m) once they
  pass 10 kN, other large or small values with their power of ten in the label -- never an offset or a
  "1e6" at the end of an axis;
* a unit in every axis label, legends outside the data (right of the axes) and a figure key under the
  axes that explains every line style and every shaded area;
* matplotlib's constrained layout, so that no title, label or legend is clipped (and no "Tight layout not
  applied"); titles wrapped to the figure's width.
"""
from __future__ import annotations

import math
import textwrap

__all__ = ["PALETTE", "REFERENCE", "CONTEXT", "MAX_CURVES", "DPI", "display", "pyplot", "new_figure",
           "legend_outside", "figure_key", "wrapped_title", "plain_numbers", "save"]

# Okabe & Ito (2008), "Color Universal Design": blue, vermillion, bluish green, reddish purple, orange, sky
# blue. Yellow (#F0E442) is left out: it vanishes on white.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
REFERENCE = "black"  # the reference solution, dashed over the coloured curve
CONTEXT = "0.75"  # grey: many curves shown as a background (each sweep case)
MAX_CURVES = 4  # coloured curves per axes: three axis components and one more (a target, say)
DPI = 110  # [dots per inch]: a 9 in wide figure is ~1000 px
FONT = 9  # [pt] labels; legends one smaller

# SI unit -> (display unit, factor): what a reader thinks in.
_ANGLES = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi),
           "rad/s2": ("deg/s²", 180.0 / math.pi)}
_PRETTY = {"N.m": "N·m", "m/s2": "m/s²", "kg.m2": "kg·m²", "kg.m": "kg·m", "": "-"}
_PREFIXES = ((1e6, "M"), (1e3, "k"))
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def display(unit: str, largest: float = 0.0) -> tuple:
    """``(display unit, factor)`` for a quantity in the SI ``unit`` whose largest magnitude is ``largest``:
    rad -> deg; units of force (N, N.m, N/m, N.m/rad, ...) in k or M from 1e4 or 1e7 (``3.5e5 N`` -> kN);
    lengths below 0.1 m in mm; any other unit beyond 1e4 or below 1e-3 with its power of ten written in the
    label (``1e6 kg`` -> ``10⁶ kg``)."""
    if unit in _ANGLES:
        return _ANGLES[unit]
    shown = _PRETTY.get(unit, unit.replace(".", "·"))
    largest = abs(float(largest)) if math.isfinite(largest) else 0.0
    if unit.split(".")[0].split("/")[0] == "N":
        for size, prefix in _PREFIXES:
            if largest >= 10.0 * size:
                return prefix + shown, 1.0 / size
        return shown, 1.0
    if unit == "m" and 0.0 < largest < 0.1:  # deflections, base motion: millimetres
        return "mm", 1e3
    if largest >= 1e4 or 0.0 < largest < 1e-3:
        power = 3 * math.floor(math.log10(largest) / 3)
        return f"10{str(power).translate(_SUPERSCRIPT)} {shown}", 10.0 ** -power
    return shown, 1.0


def pyplot():
    """matplotlib's pyplot on the Agg backend (files only, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def new_figure(rows: int, columns: int = 1, width: float = 9.0, row_height: float = 2.4, **options):
    """``(figure, axes[rows, columns])`` with constrained layout; ``width`` [in], ``row_height`` [in] per row
    of axes plus room for title and key."""
    plt = pyplot()
    fig, axes = plt.subplots(rows, columns, squeeze=False, layout="constrained",
                             figsize=(width, 1.4 + row_height * rows), **options)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
        ax.ticklabel_format(useOffset=False, style="plain")  # display() scales; no "1e6" at an axis' end
        ax.tick_params(labelsize=FONT - 1)
    return fig, axes


def legend_outside(ax, **options) -> None:
    """The axes' legend to its right, outside the data (constrained layout makes room for it)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize=FONT - 1, frameon=False, **options)


def figure_key(fig, entries: list, columns: int | None = None) -> None:
    """A key under the axes: ``entries`` ``[(artist, text)]`` (proxy artists: a line style, a shaded patch)
    saying what each style means -- every shaded area of the figure is explained here or in a legend."""
    if entries:
        fig.legend([a for a, _ in entries], [t for _, t in entries], loc="outside lower center",
                   ncol=columns or min(len(entries), 2), fontsize=FONT - 1, frameon=False)


def wrapped_title(fig, title: str, width_in: float) -> None:
    """The figure's title, each line wrapped to the figure's width (~0.13 in per character at 11 pt)."""
    chars = max(30, int(width_in / 0.105))
    lines = [piece for line in title.split("\n") for piece in textwrap.wrap(line, chars) or [""]]
    fig.suptitle("\n".join(lines), fontsize=FONT + 2)


def plain_numbers(axis) -> None:
    """Tick labels of a log axis as plain numbers (0.5, 1, 2, 10, 100), not 6×10⁻¹."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def save(fig, path) -> None:
    """Write ``fig`` as PNG and release it."""
    fig.savefig(path, dpi=DPI)
    pyplot().close(fig)
