"""FlexibleCrane at a 10 ms communication step under fmpy: the real-time targets of issues 4 and 24 in one
interleaved run, the accuracy against a tight reference, and what the steppers spend.

Cases (the paper's scenario: torque pulse (21), programmed motion (17), (22), LuGre friction):

* the paper's crane, undamped as in the paper: ``n_rfe`` 1, 4, 8, 16 with the FMU's default integrator
  (automatic, which picks DOP853 here: integration/stiffness.py), 1, 4 and 16 with Dormand-Prince 5(4) (the
  automatic choice before DOP853 came) and 16 with ROS34PW2 forced;
* damped elements, ``sde_damping`` 1e-4 s (ζ ≈ 2.6 % at the first link mode, 520 rad/s; the high element
  modes overdamped): 4 and 16 automatic (DOP853 and ROS34PW2), 16 with DOP853 forced, 16 with ROS34PW2 at
  rtol 1e-5.

Each round runs every case once (``run_fmu`` with an untimed warm-up step), the RTF is the median over the
rounds, and each ratio to the rigid link's RTF is the median of the per-round ratios; ``/proc/loadavg`` is
printed with each round. Then, untimed: model evaluations, accepted and rejected steps and Jacobians per 10 ms
from the code inside the FMU run in-process (``CoSimulation``), and the accuracy of n_rfe 4 and 16: the FMU's
outputs at 10 ms against DOP853 at rtol = atol = 1e-10 on a 1 ms grid, as a fraction of each output's range
over that grid.

Issue 24's targets: RTF ≥ 1 with 16 elements and ≥ 0.05 × the rigid link's RTF of the same round, ≥ 10 with 4,
accuracy within 1e-3 of range for 4 and 16.

    python benchmarks/bench_flexible_crane.py [--rounds 3] [--accuracy-stop 10 1] [--no-accuracy]
    python benchmarks/bench_flexible_crane.py --accuracy-only 3 --accuracy-stop 0 1   # one accuracy case
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from crane_models.models.flexible_crane.scenarios import DAMPED_ELEMENTS

DAMPED = {"sde_damping": DAMPED_ELEMENTS}
# (label, n_rfe, FMU start values, simulated seconds per round)
CASES = [
    ("paper, automatic", 1, {}, 10.0),
    ("paper, automatic", 4, {}, 10.0),
    ("paper, automatic", 8, {}, 2.0),
    ("paper, automatic", 16, {}, 0.5),
    ("paper, DP5", 1, {"integrator": 2}, 10.0),
    ("paper, DP5", 4, {"integrator": 2}, 10.0),
    ("paper, DP5", 16, {"integrator": 2}, 0.5),
    ("paper, ROS34PW2", 16, {"integrator": 1}, 0.2),
    ("damped, automatic", 4, DAMPED, 10.0),
    ("damped, automatic", 16, DAMPED, 2.0),
    ("damped, DOP853", 16, {**DAMPED, "integrator": 4}, 0.5),
    ("damped, ROS34PW2 rtol 1e-5", 16, {**DAMPED, "integrator": 1, "rtol": 1e-5, "atol": 1e-7}, 2.0),
]
RIGID = CASES[0]
ACCURACY_CASES = [("paper, automatic", {}), ("paper, ROS34PW2", {"integrator": 1}), ("damped, automatic", DAMPED),
                  ("damped, ROS34PW2 rtol 1e-5", {**DAMPED, "integrator": 1, "rtol": 1e-5, "atol": 1e-7}),
                  ("damped, ROS34PW2 rtol 1e-6", {**DAMPED, "integrator": 1, "rtol": 1e-6, "atol": 1e-8}),
                  ("paper, DP5", {"integrator": 2})]
STEP = 0.01
STEPPER_NAMES = {"rk23": "RK23", "rosenbrock": "ROS34PW2", "dopri5": "DP5", "dop853": "DOP853"}


def load() -> str:
    return open("/proc/loadavg").read().split(" ")[0] if Path("/proc/loadavg").exists() else "?"


def scenario(n_rfe: int, values: dict, stop: float):
    from crane_models.models.flexible_crane.scenarios import flexible_crane_paper

    return flexible_crane_paper(n_rfe=n_rfe, stop_time=stop, **values)


def stepper_and_spectrum(n_rfe: int, values: dict) -> tuple:
    """The stepper the FMU runs, ``max |λ|`` of the Jacobian at the start and the largest ``|λ|`` of a mode that
    must be followed (simulation/stiffness.py)."""
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.simulation.stiffness import model_jacobian, stiffness_estimate

    model, x0, opts = build_model({"n_rfe": n_rfe, **values})
    e = stiffness_estimate(model_jacobian(model, 0.0, x0, np.zeros(1)), opts["rtol"])
    return STEPPER_NAMES[opts["stepper"]], e.spectral_radius, e.followed_radius


def counts(n_rfe: int, values: dict, stop: float) -> dict:
    """Evaluations, accepted and rejected steps and Jacobians per 10 ms of the FMU's stepping code in-process."""
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.simulation.cosimulation import CoSimulation

    model, x0, opts = build_model({"n_rfe": n_rfe, **values})
    sim = CoSimulation(model, x0, **opts)
    steps = int(round(stop / STEP))
    for _ in range(steps):
        sim.step(STEP)
    return {k: v / steps for k, v in sim.stepper.stats.items()}


def accuracy(fmu: Path, n_rfe: int, values: dict, stop: float) -> tuple:
    """Largest deviation of any output of the FMU (10 ms) from the tight reference (1 ms grid) as a fraction of
    the output's range over that grid: ``(fraction, output, reference seconds)``."""
    from crane_models.simulation.runs import RESOLUTION, output_units, run_fmu, run_standalone

    sc = scenario(n_rfe, values, stop)
    result, _ = run_fmu(fmu, sc, STEP)
    t0 = time.perf_counter()
    ref = run_standalone(sc, 0.001)
    seconds = time.perf_counter() - t0
    units = output_units("FlexibleCrane")
    every = int(round(STEP / 0.001))
    worst = (0.0, "")
    for name in ref:
        if name == "time":
            continue
        span = max(float(np.ptp(ref[name])), RESOLUTION.get(units.get(name, ""), 1e-9))
        dev = float(np.max(np.abs(np.asarray(result[name], float) - ref[name][::every]))) / span
        worst = max(worst, (dev, name))
    return worst[0], worst[1], seconds


def timed_rounds(fmu: Path, rounds: int) -> dict:
    from crane_models.simulation.runs import run_fmu

    rtf = {i: [] for i in range(len(CASES))}
    for r in range(rounds):
        before = load()
        for i, (_, n, values, stop) in enumerate(CASES):
            _, wall = run_fmu(fmu, scenario(n, values, stop), STEP, warm_up=True)
            rtf[i].append(stop / wall)
        print(f"round {r + 1}: load average {before} -> {load()}", flush=True)
    return rtf


def accuracy_only(args) -> int:
    from crane_models.fmi.build import build_fmu

    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("FlexibleCrane", Path(tmp))
        for i in args.accuracy_only or range(len(ACCURACY_CASES)):
            label, values = ACCURACY_CASES[i]
            for n, stop in zip((4, 16), args.accuracy_stop):
                if stop > 0.0:
                    dev, name, seconds = accuracy(fmu, n, values, stop)
                    print(f"  {label:<26} n_rfe {n:>2} over {stop:g} s: {dev:.2e} ({name}); reference {seconds:.0f} s"
                          f"; load {load()}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--accuracy-stop", type=float, nargs=2, default=[10.0, 1.0], metavar=("S4", "S16"),
                    help="simulated seconds of the accuracy runs with 4 and with 16 elements")
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--accuracy-only", type=int, nargs="*", metavar="I", help="skip the timed rounds and run only "
                    "these accuracy cases (indices into ACCURACY_CASES)")
    args = ap.parse_args()
    if args.accuracy_only is not None:
        return accuracy_only(args)
    from crane_models.fmi.build import build_fmu

    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("FlexibleCrane", Path(tmp))
        print(f"FlexibleCrane at {STEP * 1e3:.0f} ms under fmpy, {args.rounds} interleaved rounds", flush=True)
        rtf = timed_rounds(fmu, args.rounds)
        rigid = rtf[CASES.index(RIGID)]
        print(f"\n{'case':<28} {'n_rfe':>5} {'stepper':>9} {'max|λ|':>8} {'followed':>8} {'sim. s':>6} {'RTF':>8} "
              f"{'/ rigid':>8} {'evals/10ms':>10} {'acc/10ms':>8} {'rej/10ms':>8} {'jac/10ms':>8}")
        summary = {}
        for i, (label, n, values, stop) in enumerate(CASES):
            median = statistics.median(rtf[i])
            ratio = statistics.median(a / b for a, b in zip(rtf[i], rigid))
            c = counts(n, values, min(stop, 0.5))
            summary[(label, n)] = (median, ratio)
            stepper, radius, followed = stepper_and_spectrum(n, values)
            print(f"{label:<28} {n:>5} {stepper:>9} {radius:>8.3g} {followed:>8.3g} {stop:>6.1f} {median:>8.3f} {ratio:>8.4f} "
                  f"{c['evaluations']:>10.0f} {c['accepted']:>8.1f} {c['rejected']:>8.2f} {c['jacobians']:>8.3f}",
                  flush=True)
        print(f"load average at the end: {load()}")
        deviations = {}
        if not args.no_accuracy:
            print("\naccuracy against DOP853 at rtol 1e-10 on a 1 ms grid (largest deviation / range):")
            for label, values in ACCURACY_CASES:
                for n, stop in zip((4, 16), args.accuracy_stop):
                    dev, name, seconds = accuracy(fmu, n, values, stop)
                    deviations[(label, n)] = dev
                    print(f"  {label:<26} n_rfe {n:>2} over {stop:g} s: {dev:.2e} ({name}); reference {seconds:.0f} s",
                          flush=True)
        print("\nissue 24's targets:")
        for label in ("paper, automatic", "damped, automatic"):
            r16, q16 = summary.get((label, 16), (0.0, 0.0))
            r4 = summary.get((label, 4), (0.0, 0.0))[0]
            acc = [deviations.get((label, n)) for n in (4, 16)]
            verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
            print(f"  {label}: RTF(16) {r16:.3f} >= 1 {verdict(r16 >= 1.0)}; RTF(16)/RTF(1) {q16:.4f} >= 0.05 "
                  f"{verdict(q16 >= 0.05)}; RTF(4) {r4:.2f} >= 10 {verdict(r4 >= 10.0)}; accuracy "
                  + ("not measured" if None in acc else f"{max(acc):.1e} <= 1e-3 {verdict(max(acc) <= 1e-3)}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
