"""Python-level cost of one communication step of each crane model -- ``set_inputs + step + write_outputs``, what
the FMI adapter calls per ``doStep`` (issue 23, item 3) -- without any FMI layer, for this checkout and,
optionally, another one (``--against DIR``: e.g. ``git archive main | tar -x -C DIR`` with its kernel built), in
one interleaved run.

Each figure is one fresh process stepping one model 10 ms at a time with moving set-points (a sine on every
set-point input), after a warm-up; rounds alternate the checkouts and the cases so that the machine's load falls on
all of them alike. Printed: medians over the rounds in µs per step, the ratio this / other, and /proc/loadavg.

    python benchmarks/bench_kernel_step.py [--rounds 5] [--steps 2000] [--against DIR] [--only CASE ...]
"""
from __future__ import annotations

import argparse
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
import json, math, sys, time
import numpy as np
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.registry import SPECS
from crane_models.fmi.spec import STEP_BUDGET_PARAMETER
name, params, n, h = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
spec = SPECS[name]()
values = {v.name: v.start for v in spec.parameters}
values.update(params)
model, x0, options = spec.build(values)
u0 = np.array([float(v.start) for v in spec.inputs])
moving = np.array([v.name.endswith("_ref") for v in spec.inputs])
sim = CoSimulation(model, x0, inputs=u0, max_internal_steps=int(values[STEP_BUDGET_PARAMETER.name]), **options)
names = tuple(v.name for v in spec.outputs)
out = np.empty(len(names))
write = getattr(sim, "write_outputs", None)

def run(k0, k1):
    for k in range(k0, k1):
        t = k * h
        u = u0 + moving * 0.05 * math.sin(0.5 * t)
        sim.set_inputs(u)
        sim.t = t
        sim.step(h)
        write(names, out)

run(0, 50)
t0 = time.perf_counter(); run(50, 50 + n); print((time.perf_counter() - t0) / n * 1e6)
"""


def figure(checkout: Path, case: str, steps: int) -> float:
    name, params = CASES[case]
    env = dict(os.environ, PYTHONPATH=str(checkout))
    import json

    proc = subprocess.run([sys.executable, "-c", LOOP, name, json.dumps(params), str(steps), "0.01"],
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
    loads = []
    for r in range(args.rounds):
        loads.append(load())
        for case in cases:
            for label, path in (checkouts.items() if r % 2 == 0 else reversed(checkouts.items())):
                times[case, label].append(figure(path, case, args.steps))
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


if __name__ == "__main__":
    main()
