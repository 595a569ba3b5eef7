"""Sweep throughput on Dask (issue 15): N knuckle boom cases of a 20 s run (the hoisting scenario, slew gain
varied so that every case is distinct), on a LocalCluster of 1 and of 2 worker processes in one run.

Prints cases per minute for each cluster, the speed-up 2 vs 1 (target >= 1.8 on 2 free cores), and the
overhead per case -- the cluster's wall time per case and worker less the run itself as the worker timed it
(scheduling, transfer of the series to the client, Parquet writing) -- as a fraction of the run (target
< 5 %). Cluster start-up is not counted (it is paid once per sweep). Figures are wall-clock on a shared
machine: compare ratios from one run.

    python benchmarks/bench_sweep.py --cases 200      # the issue's figure; --cases 12 on a busy machine
"""
from __future__ import annotations

import argparse
import os

# One BLAS thread in this (client) process: after its in-process reference run, OpenBLAS's idle threads
# spin on the cores the workers need (measured: 2 workers 1.00x of 1 worker with them, 1.69x without; the
# worker processes get the same setting from dask's nanny). Set before numpy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import tempfile
import time
from pathlib import Path

import numpy as np


def case_set(fmu_file: Path, cases: int, duration: float):
    from crane_models.analysis.cases import parse_cases

    return parse_cases({"fmu": "KnuckleBoomCrane", "fmu_file": str(fmu_file), "duration": duration, "step": 0.01,
                        "scenario": "knuckle_boom_hoisting",
                        "parameters": {"kp1": {"range": [3.0e6, 5.0e6], "num": cases}}})


def measure(cases, workers: int, out: Path) -> dict:
    from crane_models.analysis.results import load_summary
    from crane_models.analysis.sweep import run_sweep

    outcome = run_sweep(cases, out, workers=workers, progress=False)
    runs = np.array(load_summary(out, columns=["wall_s"])["wall_s"].to_pylist(), float)
    per_case = outcome.wall_s * workers / len(outcome.ran)  # worker-seconds per case
    return {"workers": workers, "cases": len(outcome.ran), "failed": outcome.failed, "wall": outcome.wall_s,
            "per_minute": 60.0 * len(outcome.ran) / outcome.wall_s, "run": float(runs.mean()),
            "overhead": per_case - float(runs.mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200, help="number of cases (default: %(default)s)")
    parser.add_argument("--duration", type=float, default=20.0, help="simulated time per case [s]")
    args = parser.parse_args()
    from crane_models.fmi.build import build_fmu
    from crane_models.simulation.runs import run_fmu

    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        tmp = Path(tmp)
        fmu = build_fmu("KnuckleBoomCrane", tmp / "fmu")
        cases = case_set(fmu, args.cases, args.duration)
        _, alone = run_fmu(fmu, cases.cases[0].to_scenario(), 0.01, warm_up=True)
        rows = [measure(cases, n, tmp / f"w{n}") for n in (1, 2)]
    print(f"{args.cases} cases of a {args.duration:g} s knuckle boom run; one run in-process: {alone:.3f} s")
    print(f"{'workers':>7} {'cases/min':>10} {'wall [s]':>9} {'run [s]':>8} {'overhead/case [s]':>18} {'overhead':>9}")
    for r in rows:
        print(f"{r['workers']:>7} {r['per_minute']:>10.1f} {r['wall']:>9.2f} {r['run']:>8.3f} "
              f"{r['overhead']:>18.4f} {100 * r['overhead'] / r['run']:>8.1f}%")
    print(f"speed-up 2 vs 1 worker: {rows[1]['per_minute'] / rows[0]['per_minute']:.2f}")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"benchmark wall time {time.perf_counter() - t0:.1f} s")
