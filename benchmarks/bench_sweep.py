"""Sweep throughput on Dask (issue 15): N knuckle boom cases of a 20 s run (the hoisting scenario, slew gain
varied so that every case is distinct), on a LocalCluster of 1 and of 2 worker processes in one run.

Prints, for each cluster, cases per minute, the run as the worker timed it, and the overhead per case: the
cluster's wall time per case and worker less the run itself, split into the rest of the task on the worker
(fatigue summary of every force output, writing the series) and what lies outside the task (scheduling,
sending the row back, the client's writing, a worker idle at the end); then the speed-up 2 vs 1 worker
(target >= 1.8 on 2 free cores) and the overhead against the run (target < 5 %).

Honest by construction: both clusters run the same cases (each into its own folder); each cluster is
started and then warmed up -- every worker runs a short case first (imports, FMU unpacking, first
instantiation) -- before the timed sweep starts, so neither figure carries start-up. ``--compare`` also
runs the 2-worker sweep with every series sent back to the client (as before the workers wrote them) and
on a cluster with dask's default configuration (``crane_models.analysis.cluster``).
The machine's load average is printed before and after: on a shared machine compare ratios from one run.
CPU seconds per case -- of this process (client, scheduler, nannies), of the workers, and of the run
itself (``run_cpu_s``) -- depend far less on the other load than wall times do: the CPU overhead (all CPU
per case less the run's) is the figure to trust on a busy machine.

    python benchmarks/bench_sweep.py --cases 200      # the issue's figure; --cases 24 on a busy machine
"""
from __future__ import annotations

import argparse
import os

# One BLAS thread in this (client) process: after its in-process reference run, OpenBLAS's idle threads
# spin on the cores the workers need (measured: 2 workers 1.00x of 1 worker with them, 1.69x without). The
# worker processes get the same setting from dask's nanny (distributed.nanny.pre-spawn-environ; checked
# below). Set before numpy is imported.
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


def _warm_up(fmu_file: Path, dask_worker=None) -> str:
    """Run a short case on this worker (imports, unpacking, first instantiation); return the worker's BLAS
    thread setting and its thread count."""
    from crane_models.analysis.sweep import FmuOnWorkers, Settings, run_case

    plugin = next(p for p in dask_worker.plugins.values() if isinstance(p, FmuOnWorkers))
    warm = case_set(fmu_file, 1, 1.0)
    assert run_case(warm.cases[0], plugin.path, Settings.of(warm), plugin.model_description)["status"] == "ok"
    threads = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("Threads:"))
    return f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} threads={threads}"


def _run_twice(args) -> float:
    """Wall time of the second of two in-process runs (the first warms up)."""
    from crane_models.simulation.runs import run_fmu

    fmu, case = args
    scenario = case.to_scenario()
    run_fmu(fmu, scenario, 0.01)
    return run_fmu(fmu, scenario, 0.01)[1]


def cores_available(fmu: Path, case, n: int = 2) -> float:
    """How many cores ``n`` plain processes get, each running the case at once without dask:
    ``n x (run alone) / (mean run of the n)`` -- the ceiling of any speed-up on this machine now."""
    from concurrent.futures import ProcessPoolExecutor

    alone = _run_twice((fmu, case))
    with ProcessPoolExecutor(n) as pool:
        together = list(pool.map(_run_twice, [(fmu, case)] * n))
    return n * alone / float(np.mean(together))


def _noop(i: int) -> dict:
    return {"i": i}


def scheduling_per_task(client, n: int = 200) -> float:
    """Seconds per task of ``n`` tasks that do nothing, submitted and gathered as the sweep does."""
    from distributed import as_completed

    t0 = time.perf_counter()
    futures = client.map(_noop, range(n), pure=False)
    for _ in as_completed(futures, with_results=True):
        pass
    return (time.perf_counter() - t0) / n


def _cpu_s() -> float:
    """CPU seconds (user + system) this process has used."""
    t = os.times()
    return t.user + t.system


def idle_cpu(client, seconds: float = 3.0) -> tuple:
    """CPU milliseconds per second of this process and of all workers while the cluster has no task."""
    workers, here, t0 = sum(client.run(_cpu_s).values()), _cpu_s(), time.perf_counter()
    time.sleep(seconds)
    here, workers = _cpu_s() - here, sum(client.run(_cpu_s).values()) - workers
    elapsed = time.perf_counter() - t0
    return 1e3 * here / elapsed, 1e3 * workers / elapsed


def measure(cases, fmu_file: Path, workers: int, out: Path, series_on_workers: bool = True,
            dask_defaults: bool = False) -> dict:
    from distributed import Client

    from crane_models.analysis.cluster import local_cluster
    from crane_models.analysis.results import load_summary
    from crane_models.analysis.sweep import FmuOnWorkers, run_sweep

    with local_cluster(workers, {} if dask_defaults else None) as cluster, Client(cluster) as client:
        plugin = FmuOnWorkers(Path(fmu_file).read_bytes())
        client.register_plugin(plugin, name=plugin.name)
        blas = sorted(set(client.run(_warm_up, fmu_file).values()))
        noop = scheduling_per_task(client)
        idle = idle_cpu(client)
        load = open("/proc/loadavg").read().split()[0]
        workers_cpu = sum(client.run(_cpu_s).values())
        client_cpu = _cpu_s()  # this process: client, scheduler and nannies of the LocalCluster
        outcome = run_sweep(cases, out, progress=False, client=client, series_on_workers=series_on_workers)
        client_cpu = _cpu_s() - client_cpu
        workers_cpu = sum(client.run(_cpu_s).values()) - workers_cpu
    rows = load_summary(out, columns=["wall_s", "run_cpu_s", "task_s", "series_by", "worker"])
    run_cpu = float(np.mean(rows["run_cpu_s"].to_numpy()))
    run, task = (float(np.mean(rows[c].to_numpy())) for c in ("wall_s", "task_s"))
    n = len(outcome.ran)
    per_case = outcome.wall_s * workers / n  # worker-seconds per case
    busy = {}  # task seconds per worker process
    for name, seconds in zip(rows["worker"].to_pylist(), rows["task_s"].to_pylist()):
        busy[name] = busy.get(name, 0.0) + seconds
    # the end: workers that ran out of cases wait for the busiest one (per case; ~ one run / n)
    end = (workers * max(busy.values()) - sum(busy.values())) / n
    return {"workers": workers, "cases": n, "failed": outcome.failed, "wall": outcome.wall_s,
            "per_minute": 60.0 * n / outcome.wall_s, "run": run, "in_task": task - run, "end": end,
            "outside": per_case - task - end, "overhead": per_case - run, "blas": blas, "noop": noop,
            "load": load, "series_by": sorted(set(rows["series_by"].to_pylist())),
            "client_cpu": client_cpu / n, "idle": idle, "run_cpu": run_cpu,
            "cpu_overhead": (client_cpu + workers_cpu) / n - run_cpu, "workers_cpu": workers_cpu / n,
            "label": "dask defaults" if dask_defaults else "client writes" if not series_on_workers else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200, help="number of cases (default: %(default)s)")
    parser.add_argument("--duration", type=float, default=20.0, help="simulated time per case [s]")
    parser.add_argument("--compare", action="store_true",
                        help="also run 2 workers with every series written by the client, and 2 workers on a "
                        "cluster with dask's default configuration")
    args = parser.parse_args()
    from crane_models.fmi.build import build_fmu
    from crane_models.simulation.runs import run_fmu

    print("load average before:", open("/proc/loadavg").read().strip())
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        tmp = Path(tmp)
        fmu = build_fmu("KnuckleBoomCrane", tmp / "fmu")
        cases = case_set(fmu, args.cases, args.duration)
        _, alone = run_fmu(fmu, cases.cases[0].to_scenario(), 0.01, warm_up=True)
        cores = cores_available(fmu, cases.cases[0])
        rows = [measure(cases, fmu, n, tmp / f"w{n}") for n in (1, 2)]
        if args.compare:
            rows.append(measure(cases, fmu, 2, tmp / "w2-client", series_on_workers=False))
            rows.append(measure(cases, fmu, 2, tmp / "w2-defaults", dask_defaults=True))
    print(f"{args.cases} cases of a {args.duration:g} s knuckle boom run; one run in-process: {alone:.3f} s")
    print("overhead per case = wall x workers / cases - run = in task (fatigue summary, series writing) + "
          "outside (scheduling, row transfer, client) + end (idle workers at the end); CPU overhead = CPU "
          "seconds of client process and workers per case - the run's CPU seconds")
    print(f"{'workers':>7} {'variant':>13} {'load':>5} {'cases/min':>10} {'wall [s]':>9} {'run [s]':>8} "
          f"{'in task [s]':>11} {'outside [s]':>11} {'end [s]':>8} {'overhead':>9} {'no-op task [ms]':>15} "
          f"{'CPU/case: client [ms]':>21} {'workers [s]':>11} {'run [s]':>8} {'overhead':>9} "
          f"{'idle CPU [ms/s]: client, workers':>32}")
    for r in rows:
        print(f"{r['workers']:>7} {r['label']:>13} {r['load']:>5} {r['per_minute']:>10.1f} "
              f"{r['wall']:>9.2f} {r['run']:>8.3f} {r['in_task']:>11.4f} {r['outside']:>11.4f} {r['end']:>8.4f} "
              f"{100 * r['overhead'] / r['run']:>8.1f}% {1e3 * r['noop']:>15.2f} {1e3 * r['client_cpu']:>21.1f} "
              f"{r['workers_cpu']:>11.3f} {r['run_cpu']:>8.3f} {100 * r['cpu_overhead'] / r['run_cpu']:>8.1f}% "
              f"{r['idle'][0]:>23.1f}, {r['idle'][1]:>7.1f}")
        if r["failed"]:
            print(f"        {r['failed']} cases failed: the figures are not comparable")
    print(f"cores this process got: 2 plain processes running the case at once, without dask, ran "
          f"{cores:.2f}x as fast as one (the ceiling of the speed-up at that moment)")
    print(f"speed-up 2 vs 1 worker: {rows[1]['per_minute'] / rows[0]['per_minute']:.2f} "
          f"(2 x run(1) / run(2) = {2 * rows[0]['run'] / rows[1]['run']:.2f}: the bound the run times alone set, "
          f"below 2 when the 2 workers do not each find a free core)")
    if args.compare:
        print(f"2 workers: cases per minute of this sweep vs the client writing every series "
              f"{rows[1]['per_minute'] / rows[2]['per_minute']:.2f}x, vs dask's default configuration "
              f"{rows[1]['per_minute'] / rows[3]['per_minute']:.2f}x")
    print("workers:", "; ".join(sorted({b for r in rows for b in r["blas"]})))
    print("load average after:", open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"benchmark wall time {time.perf_counter() - t0:.1f} s")
