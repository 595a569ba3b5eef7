"""Split vessel crane: real-time factors at 10 ms (VesselCrane alone, Vessel + CraneOnMovingBase per
coupling scheme) and the convergence table of the split against the monolithic model.

Scenario: the paper's hoisting sequence compressed to 4 s (every joint moves); reference: the monolithic
VesselCrane, inputs continuous in time, DOP853 at rtol 1e-11. Errors: max over the run of |q − q_ref|
(vessel angles, crane angles) and of |F − F_ref| (interface force on the vessel, Frame 1); beside them the
monolithic model's own vessel-angle error with the set-points held over each step (what the VesselCrane FMU
gets wrong at that step), and each scheme's ratio to it at 10 ms (issue 12's target: within 2x).
Run: ``python benchmarks/bench_vessel_split.py [OUT_DIR]`` (about 3 minutes on one core).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from crane_models.fmi.build import build_fmu
from crane_models.integration.reference import simulate_reference
from crane_models.simulation.runs import communication_grid, run_fmu
from crane_models.models.vessel_crane.scenarios import vessel_crane_hoisting
from crane_models.simulation.split_masters import SCHEMES, SplitSettings, convergence_table, run_split
from crane_models.models.vessel_crane.crane import INPUTS, VesselCraneModel

STOP = 4.0
STEPS = (0.02, 0.01, 0.005, 0.002, 0.001)


def reference_solution(sc):
    model = VesselCraneModel()
    x0 = np.concatenate((np.zeros(3), sc.inputs_at(0.0)[:3], np.zeros(6)))
    return solve_ivp(lambda t, x: model.derivative(t, x, sc.inputs_at(t))[0], (0.0, STOP), x0, method="DOP853",
                     rtol=1e-11, atol=1e-12, dense_output=True)


def reference(sc, sol):
    model = VesselCraneModel()

    def at(times):
        q, f = [], []
        for t in times:
            x = sol.sol(t)
            _, aux = model.derivative(t, x, sc.inputs_at(t))
            out = model.outputs(t, x, sc.inputs_at(t), aux)
            q.append(x[:6])
            f.append([-out[f"interface_f1_force_{a}"] for a in "xyz"])
        return np.array(q), np.array(f)
    return at


def monolithic_own_error(sc, ref_sol, step: float) -> float:
    """The monolithic model's own vessel-angle error at ``step``: set-points sampled and held over each step (as
    a master feeds the VesselCrane FMU), solved tightly, against the continuous-input reference."""
    held = simulate_reference(VesselCraneModel(), ref_sol.sol(0.0), communication_grid(STOP, step), sc.inputs_at,
                              rtol=1e-11, atol=1e-12)
    angles = np.column_stack([held[f"q{i}"] for i in (1, 2, 3)])
    return float(np.abs(angles - np.array([ref_sol.sol(t)[:3] for t in held["time"]])).max())


def split_errors(out: Path, sc, ref_at, step: float, scheme: str) -> tuple:
    names = [n for n, _, _ in INPUTS]
    r = run_split(out / "Vessel.fmu", out / "CraneOnMovingBase.fmu", STOP, step,
                  lambda t: dict(zip(names, sc.inputs_at(t))), SplitSettings(scheme=scheme))
    q, f = ref_at(r["time"])
    got_q = np.column_stack([r[f"vessel.{n}"] for n in ("roll", "pitch", "yaw")] + [r[f"crane.q{i}"] for i in (4, 5, 6)])
    got_f = np.column_stack([r[f"crane.interface_force_{a}"] for a in "xyz"])
    e = np.abs(got_q - q).max(axis=0)
    return {"q vessel [rad]": e[:3].max(), "q crane [rad]": e[3:].max(),
            "force [N]": np.abs(got_f - f).max()}, STOP / r["wall"], float(np.mean(r["iterations"]))


def main(out: Path) -> None:
    for name in ("Vessel", "CraneOnMovingBase", "VesselCrane"):
        build_fmu(name, out)
    sc = vessel_crane_hoisting(STOP)
    sol = reference_solution(sc)
    ref_at = reference(sc, sol)
    own = {h: monolithic_own_error(sc, sol, h) for h in STEPS}
    print("monolithic model's own vessel-angle error (set-points held over the step) [rad]: "
          + ", ".join(f"{h * 1e3:g} ms {e:.3g}" for h, e in own.items()))
    _, wall = run_fmu(out / "VesselCrane.fmu", sc, 0.01, warm_up=True)
    print(f"RTF at 10 ms: VesselCrane (monolithic FMU) {STOP / wall:.2f}")
    for scheme in SCHEMES:
        errors = {}
        for h in STEPS:
            errors[h], rtf, iters = split_errors(out, sc, ref_at, h, scheme)
            if h == 0.01:
                print(f"RTF at 10 ms: Vessel + CraneOnMovingBase, {scheme}: {rtf:.2f} "
                      f"(mean loop iterations per point {iters:.1f})")
        print(f"\nscheme {scheme}\n" + convergence_table(errors))
        print(f"vessel-angle error at 10 ms / the monolithic model's own: "
              f"{errors[0.01]['q vessel [rad]'] / own[0.01]:.2f} (issue 12 target: <= 2)\n", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="bench_split_")))
