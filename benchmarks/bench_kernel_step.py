"""Python-level cost of one communication step of each crane model -- ``set_inputs + step + write_outputs``, what
the FMI adapter calls per ``doStep`` (issue 23, item 3) -- without any FMI layer, for this checkout and,
optionally, another one (``--against DIR``: e.g. ``git archive main | tar -x -C DIR`` with its kernel built), in
one interleaved run.

Each figure is one fresh process stepping one model 10 ms at a time with moving set-points (a sine on every
set-point input), after a warm-up; rounds alternate the checkouts and the cases so that the machine's load falls on
all of them alike. Printed: medians over the rounds in µs per step, the ratio this / other, and /proc/loadavg; and
for two KnuckleBoomCrane instances in one process the time of both stepped one after the other over the time of
each on its own thread (the kernel's calls release the GIL: the share of a step spent in C runs in parallel).

    python benchmarks/bench_kernel_step.py [--rounds 5] [--steps 2000] [--against DIR] [--only CASE ...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# case: (FMU name, parameters set before the model is built)
CASES = {
    "KnuckleBoomCrane": ("KnuckleBoomCrane", {}),
    "KnuckleBoomCrane + payload": ("KnuckleBoomCrane", {"payload_enabled": True}),
    "KnuckleBoomCraneOnMovingBase": ("KnuckleBoomCraneOnMovingBase", {}),
    "VesselCrane": ("VesselCrane", {}),
}

# One process: the adapter's per-step calls on a CoSimulation built as the adapter builds it.
LOOP = r"""
import json, math, sys, threading, time
import numpy as np
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.registry import SPECS
from crane_models.fmi.spec import STEP_BUDGET_PARAMETER
name, params, n, h, mode = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
spec = SPECS[name]()
values = {v.name: v.start for v in spec.parameters}
values.update(params)
u0 = np.array([float(v.start) for v in spec.inputs])
moving = np.array([v.name.endswith("_ref") for v in spec.inputs])
names = tuple(v.name for v in spec.outputs)

def instance():
    model, x0, options = spec.build(values)
    return CoSimulation(model, x0, inputs=u0, max_internal_steps=int(values[STEP_BUDGET_PARAMETER.name]), **options)

def run(sim, k0, k1, out):
    for k in range(k0, k1):
        t = k * h
        sim.set_inputs(u0 + moving * 0.05 * math.sin(0.5 * t))
        sim.t = t
        sim.step(h)
        sim.write_outputs(names, out)

a, out_a = instance(), np.empty(len(names))
run(a, 0, 50, out_a)
if mode == "loop":
    t0 = time.perf_counter(); run(a, 50, 50 + n, out_a); print((time.perf_counter() - t0) / n * 1e6)
else:  # threads: a second instance; both serial, then each on its own thread (the kernel runs without the GIL)
    b, out_b = instance(), np.empty(len(names))
    run(b, 0, 50, out_b)
    t0 = time.perf_counter(); run(a, 50, 50 + n, out_a); run(b, 50, 50 + n, out_b); serial = time.perf_counter() - t0
    threads = [threading.Thread(target=run, args=(s, 50 + n, 50 + 2 * n, o)) for s, o in ((a, out_a), (b, out_b))]
    t0 = time.perf_counter()
    for th in threads: th.start()
    for th in threads: th.join()
    print(serial / (time.perf_counter() - t0))
"""


def figure(checkout: Path, case: str, steps: int, mode: str = "loop") -> float:
    """µs per step (mode "loop"), or serial time / two-thread time of two instances (mode "threads")."""
    name, params = CASES[case]
    env = dict(os.environ, PYTHONPATH=str(checkout))
    proc = subprocess.run([sys.executable, "-c", LOOP, name, json.dumps(params), str(steps), "0.01", mode],
                          capture_output=True, text=True, env=env, cwd=str(checkout), timeout=1800)
    try:
        return float(proc.stdout.split()[-1])
    except (IndexError, ValueError):
        sys.exit(f"{case} in {checkout}: the loop failed: {proc.stderr[-1500:]}")


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0] if Path("/proc/loadavg").exists() else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--against", type=Path, help="another checkout (its kernel built in place) to compare with")
    parser.add_argument("--only", nargs="*", choices=list(CASES), help="cases (default: all)")
    args = parser.parse_args()
    if args.against is not None and not (args.against / "crane_models").is_dir():
        sys.exit(f"--against {args.against}: not a checkout of crane-cosim (no crane_models folder)")
    checkouts = {"this": HERE.parent} | ({"other": args.against.resolve()} if args.against else {})
    cases = args.only or list(CASES)
    times = {(c, k): [] for c in cases for k in checkouts}
    threads = {k: [] for k in checkouts}
    loads = []
    for r in range(args.rounds):
        loads.append(load())
        for case in cases:
            for label, path in (checkouts.items() if r % 2 == 0 else reversed(checkouts.items())):
                times[case, label].append(figure(path, case, args.steps))
        for label, path in checkouts.items():
            threads[label].append(figure(path, "KnuckleBoomCrane", args.steps, "threads"))
        print(f"round {r + 1}/{args.rounds} done (load {load()})", file=sys.stderr, flush=True)
    loads.append(load())
    print(f"\nmedians of {args.rounds} interleaved rounds, us per 10 ms step (set_inputs + step + write_outputs); "
          f"/proc/loadavg (1 min) at each round: {' '.join(loads)}")
    print(f"{'case':<32} {'this':>8}" + (f" {'other':>8} {'this/other':>10}" if args.against else ""))
    for case in cases:
        mine = statistics.median(times[case, "this"])
        line = f"{case:<32} {mine:>8.1f}"
        if args.against:
            other = statistics.median(times[case, "other"])
            line += f" {other:>8.1f} {mine / other:>10.2f}"
        print(line)
    print("KnuckleBoomCrane, 2 instances: serial time / two-thread time (2.0: perfect parallelism): "
          + ", ".join(f"{label} {statistics.median(v):.2f} ({' '.join(f'{x:.2f}' for x in v)})"
                      for label, v in threads.items()))


if __name__ == "__main__":
    main()
