"""Report of a sweep: load spectra, DEL and Kp over the varied parameters, a range-mean matrix (PNG), and an
HTML page collecting them with the failed cases and their messages. Figures in the style of
:mod:`.plot_style` (engineering units, a unit on every axis, at most a handful of coloured curves)."""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from .cases import varied_unit
from .fatigue import SPECTRUM_CLASSES, rainflow_cycles, range_mean_matrix
from .plot_style import (CONTEXT, PALETTE, display, legend_outside, new_figure, plain_numbers, save,
                         wrapped_title)
from .results import load_series, load_summary

__all__ = ["write_report", "pick_outputs", "check_report_input", "spectra_figure", "over_parameter_figure",
           "matrix_figure"]

LOG_CYCLES = 20  # a spectrum's cycle axis is logarithmic once some case counts more cycles than this


def pick_outputs(rows: list, outputs: list, count: int = 4) -> list:
    """The ``count`` fatigue outputs whose DEL (m = 3) varies most over the sweep (coefficient of
    variation over the ok cases): the ones the varied parameters matter for."""
    def variation(name: str) -> float:
        values = np.array([r.get(f"del_m3.{name}") for r in rows if r.get(f"del_m3.{name}") is not None], float)
        return float(values.std() / values.mean()) if values.size and values.mean() > 0 else -1.0

    return sorted(outputs, key=variation, reverse=True)[:count]


def _short(name: str) -> str:
    """``signals.q1_ref.amplitude`` -> ``q1_ref amplitude``: a varied name for a legend."""
    return " ".join(name.split(".")[1:]) if name.startswith(("signals.", "sea_state.")) else name


def _shown_value(value: float, unit: str) -> str:
    """``value`` [SI ``unit``] in its display unit: 0.6 rad -> "34.4 deg", 8e6 N.m/rad -> "8 MN·m/rad"."""
    shown, factor = display(unit, abs(value))
    return f"{value * factor:.3g} {shown}"


def _case_label(row: dict, varied: list, fmu: str, why: str) -> str:
    values = ", ".join(f"{_short(p)} {_shown_value(row[f'param.{p}'], varied_unit(p, fmu))}" for p in varied)
    return f"case {row['index']}: {why}" + (f"\n{values}" if values else "")


def _highlighted(rows: list, name: str) -> list:
    """The cases drawn in colour on a spectrum: largest, median and smallest DEL (m = 3)."""
    order = sorted(rows, key=lambda r: r[f"del_m3.{name}"])
    picks = [(order[-1], "largest DEL (m = 3)"), (order[len(order) // 2], "median DEL"), (order[0], "smallest DEL")]
    seen, out = set(), []
    for row, why in picks:
        if row["index"] not in seen:
            seen.add(row["index"])
            out.append((row, why))
    return out


def spectra_figure(spectra: dict, rows: list, name: str, unit: str, varied: list, fmu: str):
    """Cumulative spectra (range exceeded against the number of cycles): every case in grey, the cases of
    largest, median and smallest DEL in colour. ``spectra``: case index -> (ranges, counts)."""
    top = max((float(r.max()) for r, _ in spectra.values() if r.size), default=0.0)
    shown, factor = display(unit, top)
    fig, axes = new_figure(1, 1, width=9.0, row_height=3.6)
    ax = axes[0, 0]
    most = 0.0
    curves = {}
    for index, (ranges, counts) in spectra.items():
        order = np.argsort(ranges)[::-1]
        curves[index] = (np.cumsum(counts[order]), factor * ranges[order])
        most = max(most, float(curves[index][0][-1]) if counts.size else 0.0)
    for k, (x, y) in enumerate(curves.values()):
        ax.step(x, y, where="post", lw=0.7, color=CONTEXT, label=f"each of the {len(curves)} cases" if not k else None)
    for (row, why), color in zip(_highlighted(rows, name), PALETTE):
        x, y = curves[row["index"]]
        ax.step(x, y, where="post", lw=1.6, color=color, label=_case_label(row, varied, fmu, why))
    if most > LOG_CYCLES:
        ax.set_xscale("log")
        plain_numbers(ax.xaxis)
    ax.set_xlabel("cycles exceeding the range, cumulative [-]")
    ax.set_ylabel(f"range of {name} [{shown}]")
    legend_outside(ax)
    wrapped_title(fig, f"Load spectra of {name}, {len(curves)} cases", fig.get_figwidth())
    return fig


def over_parameter_figure(rows: list, name: str, unit: str, param: str, slopes: list, fmu: str):
    """DEL for each slope (left) and Kp with its classes Q1-Q4 on the right edge (right) against one varied
    parameter, in display units (:func:`.plot_style.display`)."""
    x = np.array([r[f"param.{param}"] for r in rows], float)
    x_shown, x_factor = display(varied_unit(param, fmu), float(np.max(np.abs(x))) if x.size else 0.0)
    dels = {m: np.array([r[f"del_m{m:g}.{name}"] for r in rows], float) for m in slopes}
    y_shown, y_factor = display(unit, max((float(np.max(np.abs(v))) for v in dels.values() if v.size), default=0.0))
    fig, axes = new_figure(1, 2, width=11.0, row_height=3.4)
    left, right = axes[0]
    for m, color in zip(slopes, PALETTE):
        left.plot(x_factor * x, y_factor * dels[m], "o", ms=4, color=color, label=f"m = {m:g}")
    left.set_ylabel(f"DEL of {name} [{y_shown}]")
    legend_outside(left, title="S-N slope")
    right.plot(x_factor * x, [r[f"kp.{name}"] for r in rows], "o", ms=4, color=PALETTE[0])
    lower = 0.0
    for _, bound in SPECTRUM_CLASSES:  # class bounds as lines, the class names on the right edge
        right.axhline(bound, color=CONTEXT, lw=0.8, ls="--")
    classes = right.secondary_yaxis("right")
    classes.set_yticks([0.5 * (lo + hi) for lo, hi in zip([lower] + [b for _, b in SPECTRUM_CLASSES[:-1]],
                                                             [b for _, b in SPECTRUM_CLASSES])],
                       [label for label, _ in SPECTRUM_CLASSES])
    classes.set_ylabel("load-spectrum class [-]")
    right.set_ylim(0.0, 1.0)
    right.set_ylabel(f"Kp of {name} (by range) [-]")
    for ax in (left, right):
        ax.set_xlabel(f"{_short(param)} [{x_shown}]")
    wrapped_title(fig, f"{name} over {_short(param)}", fig.get_figwidth())
    return fig


def matrix_figure(series: np.ndarray, row: dict, name: str, unit: str):
    """The range-mean (Markov) matrix of one case, in display units; empty classes left white."""
    matrix = range_mean_matrix(rainflow_cycles(series, unit), 24, 24)
    largest = max(float(np.max(np.abs(matrix.mean_edges))), float(matrix.range_edges[-1]))
    shown, factor = display(unit, largest)
    fig, axes = new_figure(1, 1, width=7.0, row_height=3.8)
    ax = axes[0, 0]
    counts = np.ma.masked_equal(matrix.counts, 0.0)
    image = ax.pcolormesh(factor * matrix.mean_edges, factor * matrix.range_edges, counts, cmap="viridis")
    fig.colorbar(image, ax=ax, label="cycles in the class [-]")
    ax.set_xlabel(f"mean of {name} [{shown}]")
    ax.set_ylabel(f"range of {name} [{shown}]")
    wrapped_title(fig, f"Range-mean matrix of {name}, case {row['index']}", fig.get_figwidth())
    return fig


def check_report_input(root: Path, outputs: list | None = None) -> dict:
    """The sweep description of the results folder ``root``, after checking what the report reads: the
    folder, its ``sweep.json``, its summary rows, the chosen outputs. Raises ``ValueError`` naming the
    problem before anything is written."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"{root}: no such folder (give the results folder of crane-cosim sweep)")
    if not (root / "sweep.json").is_file():
        raise ValueError(f"{root} has no sweep.json: is it the results folder of crane-cosim sweep?")
    try:
        description = json.loads((root / "sweep.json").read_text())
        needed = ["name", "fmu", "fatigue_outputs", "slopes", "reference_cycles", "varied", "units", "cases"]
        missing = [k for k in needed if k not in description]
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{root / 'sweep.json'}: not a sweep description ({exc})") from None
    if missing:
        raise ValueError(f"{root / 'sweep.json'}: not a sweep description (no {', '.join(missing)})")
    if not any((root / "summary").glob("*.parquet")):
        raise ValueError(f"{root} has no summary rows (summary/*.parquet): did the sweep finish any case?")
    for name in outputs or []:
        if name not in description["fatigue_outputs"]:
            raise ValueError(f"--outputs: {name!r} has no fatigue results; fatigue outputs: "
                             f"{', '.join(description['fatigue_outputs'])}")
    return description


def write_report(root: Path, out: Path | None = None, outputs: list | None = None) -> Path:
    """Draw the figures of the sweep in ``root`` into ``out`` (default ``root/report``); returns the page.
    The input is checked first (:func:`check_report_input`): nothing is written for a bad one."""
    root = Path(root)
    description = check_report_input(root, outputs)
    out = Path(out) if out else root / "report"
    units, fmu = description["units"], description["fmu"]
    rows = load_summary(root).to_pylist()
    ok = [r for r in rows if r["status"] == "ok"]
    out.mkdir(parents=True, exist_ok=True)
    chosen = outputs or pick_outputs(ok, description["fatigue_outputs"])
    varied = [p for p in description["varied"] if len({r.get(f"param.{p}") for r in ok}) > 1]
    images = []
    for name in chosen if ok else []:
        stem = name.replace(".", "_")
        series = {r["index"]: load_series(root, r["case_id"])[name].to_numpy() for r in ok}
        cycles = {i: rainflow_cycles(y, units[name]) for i, y in series.items()}
        images.append((f"Load spectra: {name}", f"spectra_{stem}.png"))
        save(spectra_figure({i: (c.ranges, c.counts) for i, c in cycles.items()}, ok, name, units[name], varied,
                            fmu), out / images[-1][1])
        for param in varied:
            images.append((f"DEL and Kp of {name} over {param}", f"del_kp_{stem}_{param.replace('.', '_')}.png"))
            save(over_parameter_figure(ok, name, units[name], param, description["slopes"], fmu), out / images[-1][1])
        worst = max(ok, key=lambda r: r[f"del_m3.{name}"])
        images.append((f"Range-mean matrix of {name} (case {worst['index']}, largest DEL m = 3)", f"matrix_{stem}.png"))
        save(matrix_figure(series[worst["index"]], worst, name, units[name]), out / images[-1][1])
    page = out / "index.html"
    page.write_text(_html(description, rows, images))
    return page


def _html(description: dict, rows: list, images: list) -> str:
    failed = [r for r in rows if r["status"] != "ok"]
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(description['name'])}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}img{max-width:100%}"
             "td,th{padding:2px 8px;text-align:left;vertical-align:top}</style></head><body>",
             f"<h1>Sweep {html.escape(description['name'])} ({html.escape(description['fmu'])})</h1>",
             f"<p>{len(rows)} of {description['cases']} cases finished, {len(failed)} failed. DEL over "
             f"{description['reference_cycles']:.3g} reference cycles; Kp = &Sigma; (n<sub>i</sub>/N<sub>T</sub>)"
             f"(P<sub>i</sub>/P<sub>max</sub>)<sup>3</sup> with P the rainflow ranges.</p>"]
    for title, file in images:
        parts.append(f"<h2>{html.escape(title)}</h2><img src='{html.escape(file)}' alt='{html.escape(title)}'>")
    if failed:
        parts.append("<h2>Failed cases</h2><table><tr><th>case</th><th>parameters</th><th>message</th></tr>")
        for r in failed:
            params = ", ".join(f"{k[6:]} = {v:g}" for k, v in r.items() if k.startswith("param.") and v is not None)
            parts.append(f"<tr><td>{r['index']}</td><td>{html.escape(params)}</td>"
                         f"<td>{html.escape(r['message'])}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)
