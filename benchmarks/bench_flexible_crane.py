"""Real-time factor of the FlexibleCrane FMU under fmpy (issue 4): the paper scenario (torque pulse (21),
programmed motion (17), (22), LuGre friction) for n_rfe = 1 (rigid), 4, 8, 16, with the FMU's default
tolerances and each chosen internal stepper (``integrator`` 2: Dormand-Prince 5(4), the default; 0: RK23;
1: Rosenbrock-W ROS34PW2).

For each case it prints ω_max (stiffest undamped mode), the RK23 step cap, the cost of one model
evaluation (the Python-called derivative: one kernel call), the FMU's wall time and RTF under fmpy at a
10 ms communication step, and -- from the same run repeated in-process through ``CoSimulation`` (the code
inside the FMU; explicit steppers step in the kernel) -- model evaluations, accepted and rejected steps and
Jacobian refreshes per simulated second, the median step, and the state component that most often set the
step (largest scaled error estimate; from the first 0.05 s stepped in Python, which takes the same steps).
Target: RTF >= 1 for 4 elements over the paper's 10 s (the default ``--stop`` for 1 and 4 elements).

    python benchmarks/bench_flexible_crane.py [--stop S] [--sizes 1 4 8 16] [--integrators 2 0 1]
"""
from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

STEPPER_NAMES = {0: "RK23", 1: "ROS34PW2", 2: "DOPRI5"}


def model_cost(n_rfe: int, repeat: int = 300) -> tuple:
    from crane_models.models.flexible_crane.statics import highest_frequency
    from crane_models.models.flexible_crane.spec import build_model

    model, x0, opts = build_model({"n_rfe": n_rfe, "integrator": 0})
    x = x0.copy()
    x[model.n + 6] = 0.1
    model.derivative(0.05, x, np.zeros(1))
    t0 = time.perf_counter()
    for _ in range(repeat):
        model.derivative(0.05, x, np.zeros(1))
    w = highest_frequency(model.crane, x0[:model.n])
    return (time.perf_counter() - t0) / repeat, w, opts["max_step"], model.n


def state_names(model) -> list:
    n, c = model.n, model.crane
    names = [f"q{i}" for i in range(n)]
    for i, a in enumerate(("x_b", "y_b", "z_b", "psi_b", "theta_b", "phi_b")):
        names[i] = a
    for i, j in enumerate(c.joint_coords):
        names[j] = f"q_c{i + 1}"
    for j in c.rfe_coords:
        names[j] = f"rfe{j - 8}"
    return names + ["d" + s for s in names] + ["z1", "z2", "z3"]


def limiting_states(n_rfe: int, integrator: int, stop: float, step: float) -> str:
    """Which state components set the step: the stepper in Python (the kernel takes the same steps but
    does not report its error vector), over ``stop`` seconds."""
    from crane_models.simulation import integrators, rosenbrock
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.simulation.cosimulation import CoSimulation

    model, x0, opts = build_model({"n_rfe": n_rfe, "integrator": integrator})
    model.compiled = lambda t, inputs: None
    sim = CoSimulation(model, x0, **opts)
    limiting = collections.Counter()
    rms = integrators._rms

    def counting_rms(e):
        limiting[int(np.argmax(np.abs(e)))] += 1
        return rms(e)

    integrators._rms = rosenbrock._rms = counting_rms  # the explicit pairs' and the Rosenbrock stepper's norm
    try:
        for _ in range(max(1, int(round(stop / step)))):
            sim.step(step)
    finally:
        integrators._rms = rosenbrock._rms = rms
    names = state_names(model)
    return ", ".join(f"{names[i]} {c / sum(limiting.values()):.0%}" for i, c in limiting.most_common(2))


def in_process(n_rfe: int, integrator: int, stop: float, step: float) -> dict:
    """The FMU's stepping code in-process: counts per simulated second, median step."""
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.simulation.cosimulation import CoSimulation

    model, x0, opts = build_model({"n_rfe": n_rfe, "integrator": integrator})
    sim = CoSimulation(model, x0, **opts)
    steps = []
    for _ in range(int(round(stop / step))):
        sim.step(step)
        steps.append(sim.stepper.h)
    st = dict(sim.stepper.stats)
    return {**{k: v / stop for k, v in st.items()}, "h": float(np.median(steps)),
            "limiting": limiting_states(n_rfe, integrator, min(stop, 0.05), step)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stop", type=float, default=None, help="simulated time [s] (default: the paper's 10 s for "
                    "1 and 4 elements, 2 s / 0.5 s for 8 / 16)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 4, 8, 16])
    ap.add_argument("--integrators", type=int, nargs="*", default=[2])
    ap.add_argument("--step", type=float, default=0.01)
    args = ap.parse_args()
    from crane_models.fmi.build import build_fmu
    from crane_models.simulation.runs import run_fmu
    from crane_models.models.flexible_crane.scenarios import flexible_crane_paper

    default_stop = {1: 10.0, 4: 10.0, 8: 2.0, 16: 0.5}
    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("FlexibleCrane", Path(tmp))
        print(f"{'n_rfe':>5} {'n_dof':>5} {'omega_max':>10} {'RK23 cap':>9} {'eval':>7} {'stepper':>9} "
              f"{'sim.':>5} {'wall':>7} {'RTF':>7} {'evals/s':>8} {'acc/s':>7} {'rej/s':>6} {'jac/s':>6} "
              f"{'median h':>9}  step set by")
        for n in args.sizes:
            cost, w, cap, ndof = model_cost(n)
            stop = args.stop or default_stop.get(n, 0.05)
            for integrator in args.integrators:
                _, wall = run_fmu(fmu, flexible_crane_paper(n_rfe=n, stop_time=stop, integrator=integrator),
                                  args.step, warm_up=True)
                c = in_process(n, integrator, stop, args.step)
                print(f"{n:>5} {ndof:>5} {w:>8.0f}/s {cap:>9.2e} {cost * 1e6:>5.0f}us "
                      f"{STEPPER_NAMES[integrator]:>9} {stop:>5.2f} {wall:>6.1f}s {stop / wall:>7.3f} "
                      f"{c['evaluations']:>8.0f} {c['accepted']:>7.0f} {c['rejected']:>6.0f} {c['jacobians']:>6.1f} "
                      f"{c['h']:>9.2e}  {c['limiting']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
