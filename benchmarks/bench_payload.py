"""Real-time factor of KnuckleBoomCrane with the payload on against the same FMU without it (issue 14 target:
with / without >= 0.7 at 10 ms under fmpy), measured in one run on the lift scenario's input signals.

Cases: the FMU without payload, with the payload at the FMU's default solver settings (RK23, rtol 1e-4), and at
the scenario's settings (Dormand-Prince, rtol 1e-6, which the validation needs for its snaps); all step in the
compiled kernel. Each round runs the three once; the ratios are per round (wall-clock on a shared machine), their
median is the figure. Then the cost of one model evaluation with and without the payload.

    python benchmarks/bench_payload.py
"""
from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROUNDS = 7


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
        scenarios = [dataclasses.replace(lift, start_values=start) for _, start in cases]
        for sc in scenarios:  # the one-time import of the FMU's package, outside the timing
            run_fmu(fmu, sc, step, warm_up=True)
        ratios = {"wall": [], "cpu": []}
        for r in range(ROUNDS):  # the cases interleaved, so that the machine's load changes hit all of them
            rtf = {"wall": [], "cpu": []}
            for sc in scenarios:
                cpu = time.process_time()
                _, wall = run_fmu(fmu, sc, step)
                rtf["wall"].append(sc.stop_time / wall)
                rtf["cpu"].append(sc.stop_time / (time.process_time() - cpu))
            for kind in ratios:
                ratios[kind].append([x / rtf[kind][0] for x in rtf[kind][1:]])
            print(f"round {r + 1}: RTF (wall) " + ", ".join(f"{x:.1f}" for x in rtf["wall"])
                  + "   ratios (wall) " + ", ".join(f"{x:.3f}" for x in ratios["wall"][-1])
                  + "   (cpu) " + ", ".join(f"{x:.3f}" for x in ratios["cpu"][-1]))
    print(f"\n{step * 1e3:g} ms, median over {ROUNDS} rounds of the RTF ratio with / without payload (target >= 0.7); "
          "wall clock, and the process's CPU time (what the others on a shared machine do not change):")
    for i, (label, _) in enumerate(cases[1:]):
        print(f"  {label:50s} wall {statistics.median(r[i] for r in ratios['wall']):.3f}"
              f"   cpu {statistics.median(r[i] for r in ratios['cpu']):.3f}")
    crane = KnuckleBoomModel()
    x6 = np.array([0.3, 1.0, 1.0, 0.1, 0.05, -0.02])
    with_payload = KnuckleBoomPayloadModel(KnuckleBoomModel())
    x = with_payload.initial_state(x6)
    inputs = np.array([0.0, 0.0, 0.0, 0.3, 1.0, 1.0, 0.0])
    reference = type("Reference", (), {"derivative": staticmethod(with_payload.reference_derivative)})
    print(f"one derivative: crane {evaluation_cost_us(crane, x6, inputs[:6]):.1f} us, "
          f"crane + payload {evaluation_cost_us(with_payload, x, inputs):.1f} us (kernel), "
          f"{evaluation_cost_us(reference, x, inputs):.1f} us (numpy reference)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
