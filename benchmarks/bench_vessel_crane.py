"""Real-time factor of the VesselCrane FMU (issue 3 target: RTF >= 50 under fmpy at 10 ms).

Prints, for the 20 s demo scenario: the FMU under fmpy.simulate_fmu at 10 ms and 1 ms, the standalone
solver (DOP853, rtol 1e-10, inputs held per 10 ms step), and the cost of one model evaluation and of
the outputs (with the constraint forces of eq. (50)). Wall-clock on a shared machine.

    python benchmarks/bench_vessel_crane.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def per_call(fn, repeat: int = 2000) -> float:
    """Mean wall time of ``fn()`` in seconds."""
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def time_model() -> tuple:
    from crane_models.vessel_crane import VesselCraneInitialState, VesselCraneModel

    model = VesselCraneModel()
    x = VesselCraneInitialState().state() + 0.01
    inputs = np.array([0.1, 0.5, -1.0, 0.0, 0.0, 0.0])
    _, aux = model.derivative(0.0, x, inputs)
    return per_call(lambda: model.derivative(0.0, x, inputs)), per_call(lambda: model.outputs(0.0, x, inputs, aux))


def main() -> int:
    from crane_cosim_build.build_fmus import build_fmu
    from crane_models.cosim import run_fmu, run_standalone
    from crane_models.scenarios import vessel_crane_hoisting

    sc = vessel_crane_hoisting()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("VesselCrane", Path(tmp))
        for step in (0.01, 0.001):
            _, wall = run_fmu(fmu, sc, step)
            rows.append(("VesselCrane FMU, fmpy.simulate_fmu", f"{step * 1e3:g} ms", sc.stop_time / wall))
    t0 = time.perf_counter()
    run_standalone(sc, 0.01)
    rows.append(("standalone solver (DOP853, rtol 1e-10)", "10 ms", sc.stop_time / (time.perf_counter() - t0)))
    t_rhs, t_out = time_model()
    print(f"{'what':<40} {'comm. step':>10} {'real-time factor':>18}")
    for what, step, rtf in rows:
        print(f"{what:<40} {step:>10} {rtf:>18.1f}")
    print(f"\none model evaluation: {t_rhs * 1e6:.0f} us; outputs with constraint forces (50): {t_out * 1e6:.0f} us")
    print("target: RTF >= 50 at 10 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
