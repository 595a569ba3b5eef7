"""Report of a sweep: load spectra, DEL and Kp over the varied parameters, a range-mean matrix (PNG), and an
HTML page collecting them with the failed cases and their messages."""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from .fatigue import SPECTRUM_CLASSES, rainflow_cycles, range_mean_matrix
from .results import load_series, load_summary

__all__ = ["write_report", "pick_outputs"]


def pick_outputs(rows: list, outputs: list, count: int = 4) -> list:
    """The ``count`` fatigue outputs whose DEL (m = 3) varies most over the sweep (coefficient of
    variation over the ok cases): the ones the varied parameters matter for."""
    def variation(name: str) -> float:
        values = np.array([r.get(f"del_m3.{name}") for r in rows if r.get(f"del_m3.{name}") is not None], float)
        return float(values.std() / values.mean()) if values.size and values.mean() > 0 else -1.0

    return sorted(outputs, key=variation, reverse=True)[:count]


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _load_spectra(root: Path, rows: list, name: str, unit: str, path: Path) -> None:
    """Cumulative spectrum of each case: range exceeded against the number of cycles (log), one line per case."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for row in rows:
        series = load_series(root, row["case_id"])
        cycles = rainflow_cycles(series[name].to_numpy(), unit)
        order = np.argsort(cycles.ranges)[::-1]
        ax.step(np.cumsum(cycles.counts[order]), cycles.ranges[order], where="post", lw=0.8, alpha=0.7)
    ax.set_xscale("log")
    ax.set_xlabel("cycles exceeding the range (cumulative count)")
    ax.set_ylabel(f"range of {name} [{unit}]")
    ax.set_title(f"Load spectra of {name}, {len(rows)} cases")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _over_parameter(rows: list, name: str, unit: str, param: str, slopes: list, path: Path) -> None:
    """DEL for each slope (left) and Kp with the class bounds (right) against one varied parameter."""
    plt = _figure()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    x = np.array([r[f"param.{param}"] for r in rows], float)
    for m in slopes:
        left.plot(x, [r[f"del_m{m:g}.{name}"] for r in rows], "o", ms=4, label=f"m = {m:g}")
    left.set_xlabel(param)
    left.set_ylabel(f"DEL of {name} [{unit}]")
    left.legend()
    right.plot(x, [r[f"kp.{name}"] for r in rows], "o", ms=4, color="k")
    lower = 0.0
    for label, bound in SPECTRUM_CLASSES:  # the class bands, labelled inside
        right.axhline(bound, color="grey", lw=0.7, ls="--")
        right.text(0.01, 0.5 * (lower + bound), label, transform=right.get_yaxis_transform(), va="center",
                   fontsize=8, color="grey")
        lower = bound
    right.set_ylim(0.0, 1.0)
    right.set_xlabel(param)
    right.set_ylabel(f"Kp of {name} (by range) [-]")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{name} over {param}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _matrix(root: Path, row: dict, name: str, unit: str, path: Path) -> None:
    plt = _figure()
    series = load_series(root, row["case_id"])
    matrix = range_mean_matrix(rainflow_cycles(series[name].to_numpy(), unit), 24, 24)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    counts = np.ma.masked_equal(matrix.counts, 0.0)
    image = ax.pcolormesh(matrix.mean_edges, matrix.range_edges, counts, cmap="viridis")
    fig.colorbar(image, ax=ax, label="cycles")
    ax.set_xlabel(f"mean [{unit}]")
    ax.set_ylabel(f"range [{unit}]")
    ax.set_title(f"Range-mean matrix of {name}, case {row['index']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(root: Path, out: Path | None = None, outputs: list | None = None) -> Path:
    """Draw the figures of the sweep in ``root`` into ``out`` (default ``root/report``); returns the page."""
    root = Path(root)
    out = Path(out) if out else root / "report"
    out.mkdir(parents=True, exist_ok=True)
    if not (root / "sweep.json").is_file():
        raise FileNotFoundError(f"{root} has no sweep.json: is it the results folder of crane-cosim sweep?")
    description = json.loads((root / "sweep.json").read_text())
    units = description["units"]
    rows = load_summary(root).to_pylist()
    ok = [r for r in rows if r["status"] == "ok"]
    for name in outputs or []:
        if name not in description["fatigue_outputs"]:
            raise ValueError(f"output {name!r} has no fatigue results; "
                             f"fatigue outputs: {description['fatigue_outputs']}")
    chosen = outputs or pick_outputs(ok, description["fatigue_outputs"])
    images = []
    for name in chosen if ok else []:
        stem = name.replace(".", "_")
        images.append((f"Load spectra: {name}", f"spectra_{stem}.png"))
        _load_spectra(root, ok, name, units[name], out / images[-1][1])
        for param in [p for p in description["varied"] if len({r.get(f"param.{p}") for r in ok}) > 1]:
            images.append((f"DEL and Kp of {name} over {param}", f"del_kp_{stem}_{param.replace('.', '_')}.png"))
            _over_parameter(ok, name, units[name], param, description["slopes"], out / images[-1][1])
        worst = max(ok, key=lambda r: r[f"del_m3.{name}"])
        images.append((f"Range-mean matrix of {name} (case {worst['index']}, largest DEL m = 3)", f"matrix_{stem}.png"))
        _matrix(root, worst, name, units[name], out / images[-1][1])
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
