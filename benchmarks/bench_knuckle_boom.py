"""Real-time factors of the KnuckleBoomCrane demo scenario (issue 2 performance targets).

Prints, for the 20 s demo scenario: the standalone solver (solve_ivp DOP853, rtol 1e-10, inputs held
per 10 ms step), the FMU under fmpy.simulate_fmu at 10 ms and 1 ms, a do-nothing pythonfmu FMU with the
same interface under the same loop (the floor), and the cost of one model evaluation. Targets: RTF >= 50
at 10 ms and >= 5 at 1 ms. Figures are wall-clock on a shared machine: compare ratios from one run.

    python benchmarks/bench_knuckle_boom.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import model_costs, print_costs, print_table  # noqa: E402


def build_null_fmu(out: Path) -> Path:
    from pythonfmu.builder import FmuBuilder

    return Path(FmuBuilder.build_FMU(HERE / "null_slave.py", dest=out))


def model_evaluation_costs() -> dict:
    from crane_models.models.knuckle_boom.crane import KnuckleBoomInitialState, KnuckleBoomModel

    x = KnuckleBoomInitialState().state()
    x[3:] = [0.1, 0.05, -0.02]
    return model_costs(KnuckleBoomModel, x, np.array([0.0, 0.0, 0.0, 0.1, 0.7, 0.6]))


def main() -> int:
    from crane_models.fmi.build import build_fmu
    from crane_models.simulation.runs import run_fmu, run_fmu_manual, run_standalone
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting

    sc = knuckle_boom_hoisting()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fmu = build_fmu("KnuckleBoomCrane", tmp)
        null = build_null_fmu(tmp)
        rows = []
        t0 = time.perf_counter()
        run_standalone(sc, 0.01)
        rows.append(("standalone solver (DOP853, rtol 1e-10)", "-", sc.stop_time / (time.perf_counter() - t0)))
        for step in (0.01, 0.001):
            _, wall = run_fmu(fmu, sc, step, warm_up=True)
            rows.append(("KnuckleBoomCrane FMU, fmpy.simulate_fmu", f"{step * 1e3:g} ms", sc.stop_time / wall))
            _, wall_null = run_fmu(null, sc, step, warm_up=True)
            rows.append(("do-nothing pythonfmu FMU (same interface)", f"{step * 1e3:g} ms", sc.stop_time / wall_null))
            n = round(sc.stop_time / step)
            rows.append(("  per step: crane FMU / do-nothing", f"{step * 1e3:g} ms",
                         f"{wall / n * 1e6:.0f} us / {wall_null / n * 1e6:.0f} us"))
            t0 = time.perf_counter()
            run_fmu_manual(fmu, sc, step, outputs=["joint1_force_x", "joint1_force_y", "joint1_force_z"])
            rows.append(("KnuckleBoomCrane FMU, FMU2Slave loop, 3 outputs read", f"{step * 1e3:g} ms",
                         sc.stop_time / (time.perf_counter() - t0)))
    print_table(rows)
    print_costs(model_evaluation_costs(), "outputs with reactions")
    print("targets: RTF >= 50 at 10 ms, >= 5 at 1 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
