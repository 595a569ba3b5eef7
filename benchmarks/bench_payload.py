"""Real-time factor of KnuckleBoomCrane with the payload on against the same FMU without it (issue 14 target:
with / without >= 0.7 at 10 ms under fmpy), measured in one run on the lift scenario's input signals.

Rows: the FMU without payload (the crane steps in the compiled kernel), with the payload at the FMU's default
solver settings (RK23, rtol 1e-4), and at the scenario's settings (Dormand-Prince, rtol 1e-6, which the
validation needs for its snaps); plus the model evaluation costs. Wall-clock on a shared machine: compare
ratios from one run.

    python benchmarks/bench_payload.py
"""
from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def evaluation_cost_us(model, x, inputs, repeat: int = 2000) -> float:
    model.derivative(0.0, x, inputs)
    t0 = time.perf_counter()
    for _ in range(repeat):
        model.derivative(0.0, x, inputs)
    return (time.perf_counter() - t0) / repeat * 1e6


def main() -> int:
    from crane_models.fmi.build import build_fmu
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
    from crane_models.models.knuckle_boom.payload import KnuckleBoomPayloadModel
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_lift
    from crane_models.simulation.runs import run_fmu

    lift = knuckle_boom_lift()
    base = {k: v for k, v in lift.start_values.items() if k not in ("integrator", "rtol")}
    cases = [("without payload (kernel stepping)", {**base, "payload_enabled": False}),
             ("with payload, RK23 rtol 1e-4 (FMU defaults)", base),
             ("with payload, DOPRI5 rtol 1e-6 (lift scenario)", lift.start_values)]
    step = 0.01
    with tempfile.TemporaryDirectory() as tmp:
        fmu = build_fmu("KnuckleBoomCrane", Path(tmp))
        rtf = []
        for label, start in cases:
            sc = dataclasses.replace(lift, start_values=start)
            _, wall = run_fmu(fmu, sc, step, warm_up=True)
            rtf.append(sc.stop_time / wall)
            print(f"{label:50s} {step * 1e3:g} ms  RTF {rtf[-1]:8.1f}")
    for (label, _), r in zip(cases[1:], rtf[1:]):
        print(f"ratio {label:44s} {r / rtf[0]:.3f}   (target >= 0.7)")
    crane = KnuckleBoomModel()
    x6 = np.array([0.3, 1.0, 1.0, 0.1, 0.05, -0.02])
    with_payload = KnuckleBoomPayloadModel(KnuckleBoomModel())
    x = with_payload.initial_state(x6)
    inputs = np.array([0.0, 0.0, 0.0, 0.3, 1.0, 1.0, 0.0])
    print(f"one derivative: crane {evaluation_cost_us(crane, x6, inputs[:6]):.1f} us, "
          f"crane + payload {evaluation_cost_us(with_payload, x, inputs):.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
