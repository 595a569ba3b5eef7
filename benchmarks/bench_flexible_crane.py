"""FlexibleCrane at a 10 ms communication step under fmpy: the paper's full link, the damped full link and the modally
reduced link side by side -- real-time factors in one interleaved run, then their accuracy.

Cases (the paper's scenario: torque pulse (21), programmed motion (17), (22), LuGre friction):

* the paper's crane, undamped: ``n_rfe`` 1, 4 and 16 (the FMU's automatic stepper: DOP853);
* the damped full link: 16 elements with the modal damping ``link_damping_ratio`` 2 % on every mode of the link
  (automatic stepper; ROS34PW2 at fixed steps of 1 and 2.5 ms), and with the stiffness-proportional element damping
  ``sde_damping`` 1e-4 s at ROS34PW2 rtol 1e-5 (the fastest damped case before the reduced link);
* the reduced link: 16 elements, ``link_modes`` 4 per bending plane, 2 % modal damping (automatic; ROS34PW2 at
  rtol 1e-4; fixed steps of 1, 2.5 and 5 ms);
* the damped full and the reduced link (automatic) from the equilibrium start (``start_in_equilibrium``), whose
  one-time solve at instantiation is also timed alone.

Each round runs every case once (``run_fmu`` with an untimed warm-up step); the RTF is the median over the rounds,
each ratio to the rigid link's the median of the per-round ratios; ``/proc/loadavg`` is printed with each round.
Then, untimed: evaluations per 10 ms in-process (the same code as the FMU's), and the accuracy:

* the link alone: the reduced link's first 4 frequencies per bending plane against the full link's, the static
  deflection of the crane under its weight (start_static) against the full link's;
* the reduced model against the full link with the same damping, both by the kernel's DOP853 at rtol 1e-9 on a
  0.1 ms grid (no stepper error): the largest deviation of the joint normal forces and the tip position, low-pass
  filtered at 20 Hz (4th-order Butterworth forward and backward), as a fraction of the filtered range over the first
  2 s, and the same leaving out the first 50 ms (the filter's start, where the undeformed start of (23) loads the
  link's modes the reduced link does not keep: the pulse (21) at t = 0 turns the column alone), from the paper's
  undeformed start and from the equilibrium start (``start_in_equilibrium``); stick phases (a joint's rate,
  low-pass filtered at 20 Hz, below 1.75e-3 rad/s -- a tenth of the Stribeck velocity -- for at least 20 ms; 1 ms
  grid) and the RMS of the friction torques over 10 s;
* each FMU case against the full link of its damping and start (DOP853 rtol 1e-9) at the 10 ms points over 2 s:
  the largest deviation of the normal forces and the tip, unfiltered and filtered at 20 Hz, as a fraction of range.

With ``--support-damping`` only this: the reduced link at a fixed 5 ms step against the full link, both with the
supports' dampers set to 0, 2 and 5 % at 250 rad/s, from either start; then the fixed step against DOP853 on the same
model with the friction, the pulse (21), the link's or the supports' damping changed one at a time.

    python benchmarks/bench_flexible_crane.py [--rounds 3] [--no-accuracy] [--accuracy-only] [--support-damping]
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

ZETA = {"link_damping_ratio": 0.02}
REDUCED = {"link_modes": 4, **ZETA}
EQUILIBRIUM = {"start_in_equilibrium": True}
# The accuracy from each start: the paper's undeformed link and supports (23), and in equilibrium with the loads of
# t = 0
STARTS = (("undeformed start", {}), ("equilibrium start", EQUILIBRIUM))
# (label, n_rfe, FMU start values, simulated seconds per round)
CASES = [
    ("paper, automatic", 1, {}, 10.0),
    ("paper, automatic", 4, {}, 10.0),
    ("paper, automatic", 16, {}, 0.5),
    ("damped full, automatic", 16, ZETA, 0.5),
    ("damped full, fixed 1 ms", 16, {**ZETA, "fixed_step": 0.001}, 2.0),
    ("damped full, fixed 2.5 ms", 16, {**ZETA, "fixed_step": 0.0025}, 2.0),
    ("sde 1e-4 s, ROS34PW2 rtol 1e-5", 16, {"sde_damping": DAMPED_ELEMENTS, "integrator": 1, "rtol": 1e-5,
                                            "atol": 1e-7}, 2.0),
    ("reduced, automatic", 16, REDUCED, 0.5),
    ("damped full, automatic, equil.", 16, {**ZETA, **EQUILIBRIUM}, 0.5),
    ("reduced, automatic, equilibrium", 16, {**REDUCED, **EQUILIBRIUM}, 0.5),
    ("reduced, ROS34PW2 rtol 1e-4", 16, {**REDUCED, "integrator": 1, "rtol": 1e-4, "atol": 1e-6}, 2.0),
    ("reduced, fixed 1 ms", 16, {**REDUCED, "fixed_step": 0.001}, 10.0),
    ("reduced, fixed 2.5 ms", 16, {**REDUCED, "fixed_step": 0.0025}, 10.0),
    ("reduced, fixed 5 ms", 16, {**REDUCED, "fixed_step": 0.005}, 10.0),
]
RIGID = CASES[0]
STEP = 0.01
STEPPER_NAMES = {"rk23": "RK23", "rosenbrock": "ROS34PW2", "dopri5": "DP5", "dop853": "DOP853",
                 "rosenbrock_fixed": "ROS34PW2 fixed"}
FORCES = ("normal_force_1", "normal_force_2", "normal_force_3")
TIP = ("tip_x", "tip_y", "tip_z")
STICK_RATE = 1.75e-3  # [rad/s]: a tenth of v_s of Table 1
STICK_TIME = 0.02  # [s]: the shortest stick phase counted (two communication steps)


def load() -> str:
    return open("/proc/loadavg").read().split(" ")[0] if Path("/proc/loadavg").exists() else "?"


def scenario(n_rfe: int, values: dict, stop: float):
    from crane_models.models.flexible_crane.scenarios import flexible_crane_paper

    return flexible_crane_paper(n_rfe=n_rfe, stop_time=stop, **values)


def stepper_of(n_rfe: int, values: dict) -> str:
    from crane_models.models.flexible_crane.spec import build_model

    return STEPPER_NAMES[build_model({"n_rfe": n_rfe, **values})[2]["stepper"]]


def counts(n_rfe: int, values: dict, stop: float) -> dict:
    """Evaluations and Jacobian evaluations per 10 ms of the FMU's stepping code in-process, and the largest count of
    one 10 ms step after the first."""
    from crane_models.integration.cosimulation import CoSimulation
    from crane_models.models.flexible_crane.spec import build_model

    model, x0, opts = build_model({"n_rfe": n_rfe, **values})
    sim = CoSimulation(model, x0, **opts)
    steps, each = int(round(stop / STEP)), []
    for _ in range(steps):
        before = sim.stepper.stats["evaluations"]
        sim.step(STEP)
        each.append(sim.stepper.stats["evaluations"] - before)
    return {"evaluations": sum(each) / steps, "spread": (max(each[1:]), min(each[1:])) if steps > 1 else (0, 0)}


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


def lowpass(x: np.ndarray, dt: float, hz: float = 20.0) -> np.ndarray:
    from scipy.signal import butter, filtfilt

    b, a = butter(4, hz * 2.0 * dt)
    return filtfilt(b, a, np.asarray(x, dtype=float))


def reference(values: dict, stop: float, step: float) -> dict:
    from crane_models.simulation.runs import run_model_reference

    return run_model_reference(scenario(16, values, stop), step, 1e-9, 1e-9)


def deviation(x, ref, dt: float, skip: float = 0.0, filtered: bool = True) -> float:
    x, ref = np.asarray(x, float), np.asarray(ref, float)
    if filtered:
        x, ref = lowpass(x, dt), lowpass(ref, dt)
    k = int(round(skip / dt))
    return float(np.max(np.abs(x[k:] - ref[k:])) / np.ptp(ref[k:]))


def stick_statistics(result: dict, dt: float) -> tuple:
    """Stick phases per joint -- its rate, low-pass filtered at 20 Hz (the supports' and the link's ringing left
    out), below STICK_RATE for at least STICK_TIME -- with their total time, and the friction torques' RMS."""
    phases = []
    for i in (1, 2, 3):
        still = np.concatenate(([False], np.abs(lowpass(result[f"u_c{i}"], dt)) < STICK_RATE, [False]))
        edges = np.flatnonzero(np.diff(still.astype(int)))
        runs = (edges[1::2] - edges[::2]) * dt
        runs = runs[runs >= STICK_TIME - 1e-9]
        phases.append((int(runs.size), float(runs.sum())))
    rms = [float(np.sqrt(np.mean(np.square(np.asarray(result[f"friction_torque_{i}"], float))))) for i in (1, 2, 3)]
    return phases, rms


def link_accuracy() -> None:
    from crane_models.core.modal_reduction import generalized_eigh
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.models.flexible_crane.statics import link_deflection

    model, x0, _ = build_model({"n_rfe": 16, **REDUCED})
    red = model.crane.reduction
    worst = 0.0
    for plane in (0, 1):
        idx = np.arange(plane, red.M_link.shape[0], 3)
        cols = [j for j in range(red.Phi.shape[1]) if np.any(red.Phi[idx, j])]
        full = np.sqrt(generalized_eigh(red.K_link[np.ix_(idx, idx)], red.M_link[np.ix_(idx, idx)])[0][:4])
        reduced = np.sqrt(generalized_eigh(red.K_r[np.ix_(cols, cols)], red.M_r[np.ix_(cols, cols)])[0][:4])
        worst = max(worst, float(np.max(np.abs(reduced / full - 1.0))))
        print(f"  link alone, plane {'in' if plane == 0 else 'out of'} the luffing plane: full "
              + ", ".join(f"{w:.1f}" for w in full) + " rad/s; reduced " + ", ".join(f"{w:.1f}" for w in reduced))
    print(f"  first 4 frequencies per plane: largest deviation {worst:.1e} (target 5e-3)")
    defl = []
    for values in (ZETA, REDUCED):
        m, x, _ = build_model({"n_rfe": 16, "start_static": True, **values})
        defl.append(link_deflection(m.crane, m.evaluate(0.0, x, np.zeros(1))["kin"])["link2_deflection_y"])
    print(f"  static tip deflection under the weight: full {defl[0] * 1e3:.4f} mm, reduced {defl[1] * 1e3:.4f} mm, "
          f"deviation {abs(defl[1] / defl[0] - 1):.1e} (target 1e-3)", flush=True)


def model_accuracy(start: str, values0: dict) -> dict:
    """The reduced model against the full link with the same damping (tight references), both from ``start``;
    returns the full link's 2 s reference at 10 ms for the FMU cases."""
    t0 = time.perf_counter()
    fine = {label: reference({**values, **values0}, 2.0, 1e-4) for label, values in (("full", ZETA),
                                                                                       ("reduced", REDUCED))}
    print(f"  {start}: (references on a 0.1 ms grid over 2 s: {time.perf_counter() - t0:.0f} s, load {load()})")
    for skip in (0.0, 0.05):
        devs = {n: deviation(fine["reduced"][n], fine["full"][n], 1e-4, skip) for n in FORCES + TIP}
        print(f"  reduced vs full, same damping, 20 Hz low-pass, {skip:g}-2 s: "
              + ", ".join(f"{n} {d:.1e}" for n, d in devs.items()) + " (target 1e-2)", flush=True)
    long = {label: reference({**values, **values0}, 10.0, 1e-3) for label, values in (("full", ZETA),
                                                                                       ("reduced", REDUCED))}
    stats = {label: stick_statistics(r, 1e-3) for label, r in long.items()}
    for label, (phases, rms) in stats.items():
        print(f"  {label:<8} over 10 s: stick phases per joint (count, seconds) "
              + ", ".join(f"({c}, {s:.3f})" for c, s in phases) + "; friction torque RMS "
              + ", ".join(f"{v:.3f}" for v in rms) + " N.m")
    (p0, r0), (p1, r1) = stats["full"], stats["reduced"]
    dp = max(abs(a[0] - b[0]) / max(a[0], 1) for a, b in zip(p0, p1))
    dt = max(abs(a[1] - b[1]) / max(a[1], 1e-9) for a, b in zip(p0, p1) if a[0])
    dr = max(abs(a / b - 1.0) for a, b in zip(r1, r0))
    print(f"  stick phases: counts within {dp:.1%}, their time within {dt:.1%}; friction torque RMS within {dr:.1%} "
          "(target 5 %)", flush=True)
    return {"full": {k: np.asarray(v)[::100] for k, v in fine["full"].items()}}


def fmu_accuracy(fmu: Path, refs: dict, values0: dict) -> None:
    from crane_models.simulation.runs import run_fmu

    for label, n, values, _ in CASES:
        if n != 16 or values.get("link_damping_ratio") != 0.02 or "automatic" in label:
            continue
        result, _ = run_fmu(fmu, scenario(n, {**values, **values0}, 2.0), STEP)
        ref = refs["full"]
        raw = max(deviation(result[k], ref[k], STEP, filtered=False) for k in FORCES)
        tip = max(deviation(result[k], ref[k], STEP, filtered=False) for k in TIP)
        low = max(deviation(result[k], ref[k], STEP, skip=0.05) for k in FORCES)
        print(f"  {label:<28} vs the full link (2 s): normal forces {raw:.1e} (20 Hz low-pass from 0.05 s: {low:.1e}),"
              f" tip {tip:.1e}", flush=True)


def support_dampers(zeta: float, omega: float = 250.0) -> dict:
    """The supports' dampers ``c_x|y|z`` stiffness-proportional with the ratio ``zeta`` at ``omega`` [rad/s] (their
    stiffest modes: 205-290 rad/s): ``c = 2 ζ / ω × s``."""
    from crane_models.models.flexible_crane.parameters import SupportParameters

    sp = SupportParameters()
    return {f"c_{a}": 2.0 * zeta / omega * getattr(sp, f"s_{a}") for a in "xyz"}


def support_damping_accuracy(fmu: Path) -> None:
    """Would damped supports bring the reduced link at a fixed 5 ms step to the full link's joint forces? Each against
    the full link with the same dampers and start (DOP853 rtol 1e-9), 2 s at 10 ms, as the FMU cases above."""
    from crane_models.simulation.runs import run_fmu

    fixed = {**REDUCED, "fixed_step": 0.005}
    for zeta in (0.0, 0.02, 0.05):
        for start, values0 in STARTS:
            extra = {**support_dampers(zeta), **values0}
            ref = reference({**ZETA, **extra}, 2.0, STEP)
            result, _ = run_fmu(fmu, scenario(16, {**fixed, **extra}, 2.0), STEP)
            raw = max(deviation(result[k], ref[k], STEP, filtered=False) for k in FORCES)
            low = max(deviation(result[k], ref[k], STEP, skip=0.05) for k in FORCES)
            tip = max(deviation(result[k], ref[k], STEP, filtered=False) for k in TIP)
            print(f"  supports damped {zeta:.0%} at 250 rad/s, {start}: reduced, fixed 5 ms vs the full link: normal "
                  f"forces {raw:.1e} (20 Hz low-pass from 0.05 s: {low:.1e}), tip {tip:.1e}", flush=True)


def fixed_step_loss(fmu: Path) -> None:
    """What the fixed 5 ms step loses of the joint forces, taken apart: the reduced link at a fixed 5 ms under fmpy
    against the same model by DOP853 at rtol 1e-9 (the stepper's error alone), from the equilibrium start, with one
    thing changed at a time."""
    from crane_models.simulation.runs import run_fmu

    changes = {"as it is": {}, "no friction": {"friction_model": 0}, "link damped 20 %": {"link_damping_ratio": 0.2},
               "supports damped 5 %": support_dampers(0.05), "no pulse (21)": {"paper_torque_enabled": False}}
    for label, change in changes.items():
        values = {**REDUCED, **EQUILIBRIUM, **change}
        ref = reference(values, 2.0, STEP)
        result, _ = run_fmu(fmu, scenario(16, {**values, "fixed_step": 0.005}, 2.0), STEP)
        raw = {k: deviation(result[k], ref[k], STEP, filtered=False) for k in FORCES}
        worst = max(raw, key=raw.get)
        low = max(deviation(result[k], ref[k], STEP, skip=0.05) for k in FORCES)
        print(f"  {label:<20} reduced, fixed 5 ms vs DOP853 rtol 1e-9: normal forces {raw[worst]:.1e} ({worst}; "
              f"20 Hz low-pass from 0.05 s: {low:.1e})", flush=True)


def start_cost(rounds: int = 7) -> None:
    """The equilibrium start's one-time cost at instantiation: the initial state of a built model with and without
    it, interleaved, the fastest of each (the model's construction around it, 0.1-0.4 s, varies with the load by more
    than the solve costs; the RTF rows above include it once per run)."""
    from crane_models.models.flexible_crane.parameters import FlexibleCraneInitialState
    from crane_models.models.flexible_crane.spec import build_model

    for label, values in (("damped full", ZETA), ("reduced", REDUCED)):
        model = build_model({"n_rfe": 16, **values})[0]
        walls = ([], [])
        for _ in range(rounds):
            for i, equilibrium in enumerate((False, True)):
                t0 = time.perf_counter()
                model.initial_state(FlexibleCraneInitialState(), equilibrium=equilibrium)
                walls[i].append(time.perf_counter() - t0)
        print(f"equilibrium start, {label} link of 16 elements: initial state {min(walls[0]) * 1e3:.2f} ms, "
              f"{min(walls[1]) * 1e3:.1f} ms in equilibrium (fastest of {rounds}; load {load()})")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--accuracy-only", action="store_true")
    ap.add_argument("--support-damping", action="store_true", help="only the fixed 5 ms step with damped supports")
    args = ap.parse_args()
    from crane_models.fmi.build import build_fmu

    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("FlexibleCrane", Path(tmp))
        if args.support_damping:
            print("fixed 5 ms with damped supports:")
            support_damping_accuracy(fmu)
            print("the fixed 5 ms step's loss taken apart (equilibrium start):")
            fixed_step_loss(fmu)
            return 0
        if not args.accuracy_only:
            print(f"FlexibleCrane at {STEP * 1e3:.0f} ms under fmpy, {args.rounds} interleaved rounds", flush=True)
            rtf = timed_rounds(fmu, args.rounds)
            rigid = rtf[CASES.index(RIGID)]
            print(f"\n{'case':<32} {'n_rfe':>5} {'stepper':>15} {'sim. s':>6} {'RTF':>8} {'/ rigid':>8} "
                  f"{'evals/10ms':>10} {'max/min per step':>16}")
            for i, (label, n, values, stop) in enumerate(CASES):
                median = statistics.median(rtf[i])
                ratio = statistics.median(a / b for a, b in zip(rtf[i], rigid))
                c = counts(n, values, min(stop, 0.5))
                spread = "%d / %d" % c["spread"]
                print(f"{label:<32} {n:>5} {stepper_of(n, values):>15} {stop:>6.1f} {median:>8.3f} {ratio:>8.4f} "
                      f"{c['evaluations']:>10.0f} {spread:>16}", flush=True)
            print(f"load average at the end: {load()}")
            start_cost()
        if not args.no_accuracy:
            print("\naccuracy:")
            link_accuracy()
            for start, values0 in STARTS:
                refs = model_accuracy(start, values0)
                fmu_accuracy(fmu, refs, values0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
