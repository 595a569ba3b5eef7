"""Ship co-simulation (issue 12): real-time factor of KnuckleBoomCraneOnMovingBase against KnuckleBoomCrane in the
same run, and where the time of a step goes.

Both FMUs run the 20 s hoisting sequence under fmpy at 10 ms (the moving-base one on the at-sea base motion of
``knuckle_boom_at_sea``), alternately ``ROUNDS`` times after an untimed warm-up; the ratio is taken per round (the
machine is shared: a ratio from one round is the figure, the median over rounds the summary). Target: ratio >= 0.8.
Beside it the ratio of the process CPU times of the same runs (the FMUs run inside this process): on a machine
shared with other load, wall time counts the time this process waited for a core, CPU time does not.
The input signals are tabulated before the clock starts: the master only looks them up, as a ship simulator
hands over values it has (the at-sea signal costs ~20 us per point in Python, the fixed crane's ~1.5 us -- a cost
of this script's signal generator, not of the FMU or fmpy). ``--signals-in-loop`` times them inside the loop
too (the figure before this was changed).

Then (unless ``--rtf-only``) the convergence table of every coupling scheme of ``simulation/split_masters.py``
on the knuckle boom pair (Vessel with the 3000 t parameter set + KnuckleBoomCraneOnMovingBase, the hoisting
sequence, first ``PAIR_STOP`` s) against the monolithic ``KnuckleBoomOnVesselModel`` with the set-points
continuous in time (DOP853, rtol 1e-10): largest error of the vessel angles [rad] and of the crane's
coordinates, steps 20 … 1 ms, with RTF at 10 ms. The paper's scaled pair has its own table in
``bench_vessel_split.py`` (it includes the "inertia" scheme too).

``--baseline FMU``: a KnuckleBoomCraneOnMovingBase built from another commit joins every round -- before/after in the
same run. FMUs carry their own copy of the package under a name with the project version: build the baseline with
another ``crane_models.__version__`` (e.g. ``git archive <commit>``, set the version to ``0.0.0.base``, compile the
kernel, ``build_fmu``), or Python's module cache hands it this build's code.

    python benchmarks/bench_ship.py [--rtf-only] [--signals-in-loop] [--baseline FMU]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import per_call, print_table  # noqa: E402

ROUNDS = 7
PAIR_STOP = 4.0
STEPS = (0.02, 0.01, 0.005, 0.002, 0.001)


def evaluation_costs() -> list:
    """Cost of one state derivative and of the outputs, called from Python, for both models."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
    from crane_models.models.knuckle_boom.moving_base import KnuckleBoomOnMovingBaseModel
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea

    fixed, moving = KnuckleBoomModel(), KnuckleBoomOnMovingBaseModel(inertia_outputs=False)  # the FMU's default
    with_inertia = KnuckleBoomOnMovingBaseModel(inertia_outputs=True)
    w_fixed = np.array([0.0, 0.0, 0.0, 0.1, 0.7, 0.6])
    w_moving = knuckle_boom_at_sea().inputs_at(1.3)
    x_fixed = np.array([0.1, 0.7, 0.6, 0.1, 0.05, -0.02])
    x_moving = moving.impose_inputs(np.concatenate((x_fixed[:3], np.zeros(6), x_fixed[3:], np.zeros(6))), w_moving)
    rows = []
    for name, model, x, w in (("KnuckleBoomCrane", fixed, x_fixed, w_fixed),
                              ("KnuckleBoomCraneOnMovingBase", moving, x_moving, w_moving),
                              ("OnMovingBase, inertia_outputs", with_inertia, x_moving, w_moving)):
        _, aux = model.derivative(0.0, x, w)
        rows.append((f"{name}: one evaluation from Python", "-", f"{per_call(lambda: model.derivative(0.0, x, w)) * 1e6:.1f} us"))
        rows.append((f"{name}: outputs", "-", f"{per_call(lambda: model.outputs(0.0, x, w, aux), 500) * 1e6:.1f} us"))
    return rows


def tabulated(scenario, step: float):
    """``scenario`` with its inputs at the communication points computed now and looked up by the master."""
    from dataclasses import replace

    from crane_models.simulation.scenario import communication_grid

    table = {float(t): list(scenario.signals(float(t))) for t in communication_grid(scenario.stop_time, step)}
    return replace(scenario, signals=table.__getitem__)


def _option(name: str):
    """The value after ``name`` on the command line, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


def timed_run(fmu, scenario) -> tuple:
    """``(wall, CPU)`` seconds of one run under fmpy (the FMU runs in this process: its CPU time is counted)."""
    from crane_models.simulation.runs import run_fmu

    cpu = time.process_time()
    _, wall = run_fmu(fmu, scenario, 0.01)
    return wall, time.process_time() - cpu


def main() -> int:
    from crane_models.fmi.build import build_fmu
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea, knuckle_boom_hoisting
    from crane_models.simulation.runs import run_fmu

    fixed_sc, moving_sc = knuckle_boom_hoisting(), knuckle_boom_at_sea()
    if "--signals-in-loop" not in sys.argv:
        fixed_sc, moving_sc = tabulated(fixed_sc, 0.01), tabulated(moving_sc, 0.01)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fixed = build_fmu("KnuckleBoomCrane", tmp)
        moving = build_fmu("KnuckleBoomCraneOnMovingBase", tmp)
        run_fmu(fixed, fixed_sc, 0.01, warm_up=True)
        run_fmu(moving, moving_sc, 0.01, warm_up=True)
        baseline = _option("--baseline")
        if baseline:
            run_fmu(Path(baseline), moving_sc, 0.01, warm_up=True)
        ratios, cpu_ratios, base_ratios, rows = [], [], [], []
        for r in range(ROUNDS):
            wall_fixed, cpu_fixed = timed_run(fixed, fixed_sc)
            wall_moving, cpu_moving = timed_run(moving, moving_sc)
            rtf_fixed, rtf_moving = fixed_sc.stop_time / wall_fixed, moving_sc.stop_time / wall_moving
            ratios.append(rtf_moving / rtf_fixed)
            cpu_ratios.append(cpu_fixed / cpu_moving)
            rows.append((f"round {r + 1}: RTF KnuckleBoomCrane / OnMovingBase / ratio (CPU-time ratio)", "10 ms",
                         f"{rtf_fixed:.1f} / {rtf_moving:.1f} / {ratios[-1]:.2f} ({cpu_ratios[-1]:.2f})"))
            if baseline:
                wall_base, cpu_base = timed_run(Path(baseline), moving_sc)
                base_ratios.append((wall_fixed / wall_base, cpu_fixed / cpu_base))
                rows.append((f"round {r + 1}: baseline OnMovingBase RTF / ratio (CPU-time ratio)", "10 ms",
                             f"{moving_sc.stop_time / wall_base:.1f} / {base_ratios[-1][0]:.2f} "
                             f"({base_ratios[-1][1]:.2f})"))
        rows.append(("median ratio OnMovingBase / KnuckleBoomCrane (target >= 0.8)", "10 ms",
                     f"{statistics.median(ratios):.2f}"))
        rows.append(("median ratio of the process CPU times (less disturbed by other load)", "10 ms",
                     f"{statistics.median(cpu_ratios):.2f}"))
        if baseline:
            rows.append((f"baseline {Path(baseline).name}: median ratio (CPU-time ratio)", "10 ms",
                         f"{statistics.median(b[0] for b in base_ratios):.2f} "
                         f"({statistics.median(b[1] for b in base_ratios):.2f})"))
    rows += evaluation_costs()
    print_table(rows, width=66)
    if "--rtf-only" not in sys.argv:
        convergence()
    return 0


def convergence() -> None:
    from scipy.integrate import solve_ivp

    from crane_models.fmi.build import build_fmu
    from crane_models.models.knuckle_boom.on_vessel import KnuckleBoomOnVesselModel
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting
    from crane_models.models.vessel_crane.vessels import KNUCKLE_BOOM_VESSEL, knuckle_boom_vessel
    from crane_models.integration.reference import simulate_reference
    from crane_models.simulation.runs import communication_grid
    from crane_models.simulation.split_masters import SCHEMES, SplitSettings, convergence_table, run_split

    sc = knuckle_boom_hoisting()
    model = KnuckleBoomOnVesselModel(knuckle_boom_vessel())
    x0 = np.zeros(12)
    x0[1:3] = 0.6
    sol = solve_ivp(lambda t, x: model.derivative(t, x, sc.inputs_at(t))[0], (0.0, PAIR_STOP), x0, method="DOP853",
                    rtol=1e-10, atol=1e-10, dense_output=True)
    own = {}  # the monolithic model's own vessel-angle error: set-points held over each step, solved tightly
    for h in STEPS:
        held = simulate_reference(model, x0, communication_grid(PAIR_STOP, h), sc.inputs_at)
        angles = np.column_stack([held[n] for n in ("roll", "pitch", "yaw")])
        own[h] = float(np.abs(angles - np.array([sol.sol(t)[3:6] for t in held["time"]])).max())
    print("monolithic model's own vessel-angle error (set-points held over the step) [rad]: "
          + ", ".join(f"{h * 1e3:g} ms {e:.3g}" for h, e in own.items()), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        vessel, crane = build_fmu("Vessel", tmp), build_fmu("KnuckleBoomCraneOnMovingBase", tmp)
        for scheme in (s for s in SCHEMES if s != "averaged"):  # "averaged" needs CraneOnMovingBase's step means
            errors = {}
            for h in STEPS:
                r = run_split(vessel, crane, PAIR_STOP, h, lambda t: dict(zip(sc.input_names, sc.inputs_at(t))),
                              SplitSettings(scheme=scheme, vessel_start=dict(KNUCKLE_BOOM_VESSEL)))
                ref = np.array([sol.sol(t) for t in r["time"]])
                vessel_q = np.column_stack([r[f"vessel.{n}"] for n in ("roll", "pitch", "yaw")])
                crane_q = np.column_stack([r[f"crane.q{i}"] for i in (1, 2, 3)])
                errors[h] = {"q vessel [rad]": np.abs(vessel_q - ref[:, 3:6]).max(),
                             "q crane": np.abs(crane_q - ref[:, :3]).max()}
                if h == 0.01:
                    print(f"RTF at 10 ms, knuckle boom pair, {scheme}: {PAIR_STOP / r['wall']:.2f} "
                          f"(mean loop iterations per point {np.mean(r['iterations']):.1f})", flush=True)
            print(f"\nscheme {scheme}\n" + convergence_table(errors))
            print(f"vessel-angle error at 10 ms / the monolithic model's own: "
                  f"{errors[0.01]['q vessel [rad]'] / own[0.01]:.2f} (issue 12 target: <= 2)\n", flush=True)


if __name__ == "__main__":
    sys.exit(main())
