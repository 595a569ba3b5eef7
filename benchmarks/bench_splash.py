"""Cost of the payload in the water and of the heave compensation (issue 37): the splash-zone lift
(analysis/splash_lift.py, 20 t module lowered into Hs 2.5 m, Tp 8 s, 200 wave components, from the knuckle boom
crane on the WaveVessel) for its first 35 s, through the module's entry into the water (22-30 s) --
with the payload in air (hydro off: the kernel's payload derivative), with hydro on, with hydro and AHC -- in
interleaved rounds; the figure is the real-time factor of each (simulated / wall time) and the median ratio to the
payload in air, with the machine's load beside it. Both hydro cases step in Python (no kernel step).

    python benchmarks/bench_splash.py
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from pathlib import Path

ROUNDS = 3


def main() -> int:
    from crane_models.analysis import splash_lift
    from crane_models.analysis.splash_lift import Lift, run_lift

    cases = {"in air (hydro off)": dict(hydro=False, ahc=False), "hydro": dict(hydro=True, ahc=False),
             "hydro + AHC": dict(hydro=True, ahc=True)}
    original = splash_lift._values
    rtf = {name: [] for name in cases}
    for round_ in range(ROUNDS):
        for name, case in cases.items():
            def values(lift, spec, hydro=case["hydro"]):
                out = original(lift, spec)
                out["hydro_enabled"] = hydro
                return out
            splash_lift._values = values
            lift = dataclasses.replace(Lift(ahc=case["ahc"]), duration=35.0)
            t0 = time.perf_counter()
            run_lift(lift)
            rtf[name].append(lift.duration / (time.perf_counter() - t0))
        splash_lift._values = original
        print(f"round {round_ + 1}: " + ", ".join(f"{n} RTF {v[-1]:.2f}" for n, v in rtf.items())
              + f"   (loadavg {Path('/proc/loadavg').read_text().split()[0]})")
    base = rtf["in air (hydro off)"]
    for name, values in rtf.items():
        ratio = statistics.median(v / b for v, b in zip(values, base))
        print(f"{name:20s} RTF median {statistics.median(values):6.2f}   ratio to in air {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
