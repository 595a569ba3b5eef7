"""``crane-cosim demo``: build the FMUs, run every demo scenario under fmpy and standalone, compare, plot."""
from __future__ import annotations

import csv
import time
from pathlib import Path

import numpy as np

from ..simulation.runs import max_relative_deviation, output_units, run_fmu, run_standalone
from ..models import collect

__all__ = ["run_demo", "write_csv", "plot_scenario", "SCENARIOS"]

# Every model folder's demo scenarios (models/<crane>/scenarios.py), in the models' order.
SCENARIOS = collect("scenarios", "SCENARIOS")


def write_csv(path: Path, data, names: list) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        cols = [np.asarray(data[n], dtype=float) for n in names]
        for row in zip(*cols):
            w.writerow([f"{v:.10g}" for v in row])


def plot_scenario(scenario, fmu_result, reference: dict, out_dir: Path) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for stem, title, series, ylabel in scenario.figures:
        fig, ax = plt.subplots(figsize=(7, 4))
        for (name, label), color in zip(series, ("C0", "C1", "C2")):
            ax.plot(fmu_result["time"], fmu_result[name], color=color, label=f"{label} (FMU)")
            ax.plot(reference["time"][::50], reference[name][::50], "o", color=color, ms=3,
                    label=f"{label} (standalone)")
        ax.set_title(title)
        ax.set_xlabel("time [s]")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        path = out_dir / f"{stem}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def run_demo(out_dir: Path, step: float = 0.01, fmu_dir: Path | None = None) -> list:
    """Build FMUs (unless ``fmu_dir`` holds them), run each scenario, write CSV/PNG, print a summary."""
    out_dir = Path(out_dir)
    fmu_dir = Path(fmu_dir) if fmu_dir else out_dir / "fmus"
    if not all((fmu_dir / f"{SCENARIOS[s]().fmu}.fmu").exists() for s in SCENARIOS):
        from ..fmi.build import build_all

        print(f"building FMUs into {fmu_dir} ...", flush=True)
        build_all(fmu_dir)
    rows = []
    for name, make in SCENARIOS.items():
        sc = make()
        sc_dir = out_dir / name
        sc_dir.mkdir(parents=True, exist_ok=True)
        print(f"running {name}: FMU under fmpy (step {step * 1e3:g} ms) and standalone solver ...", flush=True)
        result, wall = run_fmu(fmu_dir / f"{sc.fmu}.fmu", sc, step, warm_up=True)
        t0 = time.perf_counter()
        reference = run_standalone(sc, step)
        wall_ref = time.perf_counter() - t0
        names = [n for n in reference if n != "time"]
        dev = max_relative_deviation(result, reference, names, output_units(sc.fmu))
        worst = max(dev, key=dev.get)
        write_csv(sc_dir / "fmu_result.csv", result, ["time"] + names)
        write_csv(sc_dir / "standalone_result.csv", reference, ["time"] + names)
        plot_scenario(sc, result, reference, sc_dir)
        rows.append((name, step, dev[worst], worst, sc.stop_time / wall, sc.stop_time / wall_ref))
    print()
    width = max([26] + [len(r[0]) for r in rows]) if rows else 26
    header = (f"{'scenario':<{width}} {'step':>7}  {'max deviation FMU vs standalone':<46} {'RTF FMU':>9} "
              f"{'RTF standalone':>15}")
    print(header)
    print("-" * len(header))
    for name, h, d, worst, rtf, rtf_ref in rows:
        deviation = f"{100 * d:.2e} % of range ({worst})"
        print(f"{name:<{width}} {h * 1e3:>5g}ms  {deviation:<46} {rtf:>9.2f} {rtf_ref:>15.2f}")
    print(f"\nresults (CSV, PNG) in {out_dir.resolve()}")
    return rows
