"""Per-step cost of KnuckleBoomCrane.fmu at a 10 ms communication step under fmpy, libcosimpy and ecospy,
and the fixed cost of a pythonfmu FMU call under each (a trivial pythonfmu FMU built in a temp dir).

    python benchmarks/bench_engines.py [--stop-time 4]

libcosim calls the FMU from its own worker thread, which has no Python thread state: pythonfmu then makes
and destroys one around every FMI call (``PyGILState_Ensure``/``Release``), a fixed cost per call that the
trivial FMU exposes. fmpy calls from the Python main thread, which already has one.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from crane_models.simulation.runs import run_fmu_manual  # noqa: E402
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting  # noqa: E402
from crane_models.simulation.scenario import Scenario  # noqa: E402
from engine_runs import ECOSPY_PROBLEM, run_ecos, run_libcosim  # noqa: E402

TRIVIAL = '''
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class Trivial(Fmi2Slave):
    author = "bench"
    description = "y = u: nothing but the pythonfmu call machinery"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.u = 0.0
        self.y = 0.0
        self.register_variable(Real("u", causality=Fmi2Causality.input))
        self.register_variable(Real("y", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        self.y = self.u
        return True
'''


def build_trivial(tmp: Path) -> Path:
    from pythonfmu.builder import FmuBuilder

    script = tmp / "trivial_bench_slave.py"
    script.write_text(TRIVIAL)
    return Path(FmuBuilder.build_FMU(script, dest=tmp))


def per_step_us(fn, fmu, scenario, step) -> float:
    n = int(round(scenario.stop_time / step))
    t0 = time.perf_counter()
    _, wall = fn(fmu, scenario, step)
    return (wall if wall is not None else time.perf_counter() - t0) / n * 1e6


def fmpy_loop(fmu, scenario, step, outputs=None):
    t0 = time.perf_counter()
    result = run_fmu_manual(fmu, scenario, step, outputs)
    return result, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stop-time", type=float, default=4.0)
    args = parser.parse_args()
    step = 0.01
    with tempfile.TemporaryDirectory(prefix="bench_engines_") as tmp:
        tmp = Path(tmp)
        from crane_models.fmi.build import build_all

        build_all(tmp / "fmus")
        crane = tmp / "fmus" / "KnuckleBoomCrane.fmu"
        scenario = dataclasses.replace(knuckle_boom_hoisting(), stop_time=args.stop_time)
        print(f"KnuckleBoomCrane, hoisting scenario {args.stop_time:g} s at {step * 1e3:g} ms "
              "(6 inputs set, 48 outputs read every step)")
        engines = [("fmpy FMU2Slave", fmpy_loop), ("libcosimpy", run_libcosim)]
        if ECOSPY_PROBLEM:
            print(f"  ecospy skipped: {ECOSPY_PROBLEM}")
        else:
            engines.append(("ecospy", run_ecos))
        for label, fn in engines:
            print(f"  {label:<16} {per_step_us(fn, crane, scenario, step):9.1f} us/step")

        trivial = build_trivial(tmp)
        flat = Scenario("trivial", "Trivial", 20.0, ["u"], lambda t: [t], {})
        print(f"Trivial pythonfmu FMU ({trivial.name}), 2000 steps: fixed cost of the FMI calls of one step "
              "(set 1 input, doStep, get 1 output)")
        for label, fn in engines:
            best = min(per_step_us(fn, trivial, flat, 0.01) for _ in range(3))
            print(f"  {label:<16} {best:9.1f} us/step")


if __name__ == "__main__":
    main()
