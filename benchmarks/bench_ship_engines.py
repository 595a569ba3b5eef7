"""What a ship engineer gets in each engine with the shipped vessel-crane files (issue 33): the deviation of every
pair from its monolithic model, per engine, wiring and step.

For each pair (Vessel + CraneOnMovingBase, Vessel + KnuckleBoomCraneOnMovingBase) and wiring (the shipped default and
the ``_PointWrench`` variant), at 10 / 5 / 2 / 1 ms: libcosim's fixed-step algorithm on the OSP system structure (its
steps rewritten in a copy), Ecos on the SSP package (where ecospy runs), and the project's own Jacobi master
(``simulation.split_masters.run_split``, fmpy) started as libcosim starts. Each against the monolithic one-tree model with
the set-points held on the same grid (the demo's 10 s hoisting sequence). Printed: max |split - monolithic| /
range(monolithic) in % for the vessel's roll, pitch, yaw and the largest over the interface forces and moments, the
same over the first 0.1 s, and the 10/5 ms ratio. Accuracy only: no timing.

    python benchmarks/bench_ship_engines.py [--steps 0.01,0.005,0.002,0.001] [--engines libcosim,ecos,jacobi]
                                            [--out crane-cosim-out/fmus] [--markdown]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crane_models.app.ship_demo import (PAIR_RUNS, SSP_OF, STOP, deviations, monolithic_run,  # noqa: E402
                                        run_in_ecos, run_in_libcosim)
from crane_models.models.registry import OSP_PAIRS, OSP_WIRINGS, SPECS  # noqa: E402


def run_jacobi(fmu_dir: Path, structure: str, setpoints, step: float) -> dict:
    from crane_models.fmi.osp import ported_wrench
    from crane_models.simulation.split_masters import SplitSettings, run_split

    pair = OSP_PAIRS[structure]
    (vessel_fmu, vessel_start), (crane_fmu, crane_start) = pair["vessel"], pair["crane"]
    wrench = OSP_WIRINGS.get(structure) or ported_wrench(SPECS[crane_fmu]())
    r = run_split(fmu_dir / f"{vessel_fmu}.fmu", fmu_dir / f"{crane_fmu}.fmu", STOP, step, setpoints,
                  SplitSettings(scheme="jacobi", vessel_start=vessel_start, crane_start=crane_start, wrench=wrench))
    out = {"time": r["time"][1:]}
    out.update({n: r[f"vessel.{n}"][1:] for n in ("roll", "pitch", "yaw")})
    out.update({f"interface_{k}_{a}": r[f"crane.interface_{k}_{a}"][1:] for k in ("force", "moment") for a in "xyz"})
    return out


ENGINES = {"libcosim": lambda d, s, sp, h: run_in_libcosim(d / s, sp, h, STOP),
           "ecos": lambda d, s, sp, h: run_in_ecos(d / SSP_OF[s], sp, h, STOP),
           "jacobi": run_jacobi}


def summary(dev: dict) -> dict:
    loads = {n: v for n, v in dev.items() if n.startswith("interface_")}
    worst = max(loads, key=loads.get)
    return {"roll": dev["roll"], "pitch": dev["pitch"], "yaw": dev["yaw"], "load": loads[worst],
            "load_name": worst.replace("interface_", "")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", default="0.01,0.005,0.002,0.001")
    ap.add_argument("--engines", default="libcosim,ecos,jacobi")
    ap.add_argument("--out", type=Path, default=None, help="folder of the built FMUs and system files "
                    "(default: built into a temporary folder)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    steps = [float(s) for s in args.steps.split(",")]
    engines = args.engines.split(",")
    fmu_dir = args.out
    if fmu_dir is None:
        import tempfile

        from crane_models.models.build import build_all

        fmu_dir = Path(tempfile.mkdtemp(prefix="bench_ship_engines_"))
        build_all(fmu_dir)
    if "ecos" in engines:
        from crane_models.app.native import ecospy_problem

        if ecospy_problem():
            print(f"Ecos left out: {ecospy_problem()}")
            engines.remove("ecos")
    rows = []
    for structure, (title, _) in PAIR_RUNS.items():
        for step in steps:
            setpoints, mono = monolithic_run(structure, step)
            for engine in engines:
                split = ENGINES[engine](fmu_dir, structure, setpoints, step)
                rows.append((title, engine, step, summary(deviations(split, mono)),
                             summary(deviations(split, mono, until=0.1))))
                print(_line(rows[-1]), flush=True)
    print()
    print(_table(rows, steps, args.markdown))


def _line(row) -> str:
    title, engine, step, s, _ = row
    return (f"{title:50s} {engine:9s} {step * 1e3:5g} ms  roll {100 * s['roll']:7.3f}  pitch {100 * s['pitch']:7.3f}  "
            f"yaw {100 * s['yaw']:7.3f}  load {100 * s['load']:7.3f} ({s['load_name']})")


def _table(rows: list, steps: list, markdown: bool) -> str:
    """One line per pair, wiring and engine: roll / pitch / yaw / worst load in % at each step, first 0.1 s at the
    first step, and the ratio of the first two steps' largest errors."""
    head = ["pair", "engine"] + [f"{h * 1e3:g} ms: roll / pitch / yaw / load" for h in steps] + ["first 0.1 s", "ratio"]
    lines = []
    keys = sorted({(r[0], r[1]) for r in rows}, key=lambda k: [r[:2] for r in rows].index(k))
    for title, engine in keys:
        by_step = {r[2]: r for r in rows if (r[0], r[1]) == (title, engine)}
        cells = []
        for h in steps:
            s = by_step[h][3]
            cells.append(" / ".join(f"{100 * s[k]:.2f}" for k in ("roll", "pitch", "yaw", "load")))
        e0 = by_step[steps[0]][4]
        cells.append(" / ".join(f"{100 * e0[k]:.2f}" for k in ("roll", "pitch", "yaw", "load")))
        worst = [max(by_step[h][3][k] for k in ("roll", "pitch", "yaw", "load")) for h in steps[:2]]
        cells.append(f"{worst[0] / worst[1]:.2f}" if len(steps) > 1 else "-")
        lines.append([title, engine] + cells)
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines])
    return "\n".join("  ".join(c for c in line) for line in [head] + lines)


if __name__ == "__main__":
    main()
