"""Real-time factor of the FlexibleCrane FMU under fmpy (issue 4): the paper scenario (torque pulse (21),
programmed motion (17), (22), LuGre friction) for n_rfe = 1 (rigid), 4, 8, 16, with the FMU's default
integrator settings (RK23, rtol 1e-6, max_step = 1.5/ω_max). Also prints ω_max, the step cap and the
cost of one model evaluation. Target: RTF >= 1 for 4 elements over the paper's 10 s.

    python benchmarks/bench_flexible_crane.py [--stop 10] [--sizes 1 4 8 16]

The FMU's cost per simulated second is nearly constant (the step is held at the stability/accuracy
limit of the undamped element modes), so a shorter ``--stop`` gives the same RTF much sooner.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def model_cost(n_rfe: int, repeat: int = 300) -> tuple:
    from crane_models.flexible_crane import highest_frequency
    from crane_models.flexible_crane_spec import build_model

    model, x0, opts = build_model({"n_rfe": n_rfe})
    x = x0.copy()
    x[model.n + 6] = 0.1
    model.derivative(0.05, x, np.zeros(1))
    t0 = time.perf_counter()
    for _ in range(repeat):
        model.derivative(0.05, x, np.zeros(1))
    w = highest_frequency(model.crane, x0[:model.n])
    return (time.perf_counter() - t0) / repeat, w, opts["max_step"], model.n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stop", type=float, default=None, help="simulated time [s] (default: 10 s rigid, 1 s / "
                    "0.3 s / 0.1 s for 4 / 8 / 16 elements)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 4, 8, 16])
    ap.add_argument("--step", type=float, default=0.01)
    args = ap.parse_args()
    from crane_cosim_build.build_fmus import build_fmu
    from crane_models.cosim import run_fmu
    from crane_models.flexible_crane_scenarios import flexible_crane_paper

    default_stop = {1: 10.0, 4: 1.0, 8: 0.3, 16: 0.1}
    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("FlexibleCrane", Path(tmp))
        print(f"{'n_rfe':>5} {'n_dof':>5} {'omega_max':>10} {'max_step':>9} {'eval':>8} {'simulated':>9} "
              f"{'wall':>8} {'RTF':>7} {'wall per sim. s':>15}")
        for n in args.sizes:
            cost, w, h, ndof = model_cost(n)
            stop = args.stop or default_stop.get(n, 0.1)
            _, wall = run_fmu(fmu, flexible_crane_paper(n_rfe=n, stop_time=stop), args.step)
            print(f"{n:>5} {ndof:>5} {w:>8.0f}/s {h:>9.2e} {cost * 1e6:>6.0f}us {stop:>8.2f}s {wall:>7.1f}s "
                  f"{stop / wall:>7.3f} {wall / stop:>13.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
