"""WaveVessel step cost against a KnuckleBoomCrane step (issue 36's target: WaveVessel <= 1.0x), 10 ms steps in
fmpy's FMU2Slave loop -- set every input, doStep, get every output -- on this project's runtime.

The WaveVessel runs its default sea (JONSWAP Hs 2.5 m, Tp 8 s, 200 components: every output a sum over them) with
the package's RAO table, or -- while there is none -- the tests' synthetic one (the cost does not depend on the
values). Rounds interleave the two FMUs, each in a fresh process, so that the machine's load falls on both alike;
the figures are medians over the rounds, printed with /proc/loadavg.

    python benchmarks/bench_wave_vessel.py [--rounds 7] [--steps 3000]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from bench_step_cost import fmpy_figure, load  # noqa: E402
from c_host import extract  # noqa: E402  (tests/native_host, via bench_runtime)

from crane_models.models.build import build_fmu  # noqa: E402
from crane_models.models.wave_vessel.spec import DEFAULT_TABLE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_wave_vessel_") as tmp:
        tmp = Path(tmp)
        table = None
        if not DEFAULT_TABLE.is_file():
            from wave_vessel_helpers import write_synthetic_table

            table = write_synthetic_table(tmp / "synthetic_rao.csv")
            print(f"(the package has no default RAO table yet: the tests' synthetic one, {table.name})")
        fmus = {"KnuckleBoomCrane": build_fmu("KnuckleBoomCrane", tmp / "fmus"),
                "WaveVessel": build_fmu("WaveVessel", tmp / "fmus", rao_table=table)}
        unzipped = {name: extract(path, tmp / name) for name, path in fmus.items()}
        times = {name: [] for name in fmus}
        loads = []
        for r in range(args.rounds):
            loads.append(load())
            for name in fmus:
                times[name].append(fmpy_figure(unzipped[name], name, args.steps))
            print(f"round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.1f} us" for n in fmus)
                  + f" (load {loads[-1]})", flush=True)
        median = {name: statistics.median(v) for name, v in times.items()}
        ratios = [w / k for w, k in zip(times["WaveVessel"], times["KnuckleBoomCrane"])]
        print(f"\nper 10 ms step, fmpy loop, all outputs read, median of {args.rounds} interleaved rounds "
              f"(load {', '.join(loads)}):")
        for name, value in median.items():
            print(f"  {name:<18} {value:8.1f} us")
        print(f"  WaveVessel / KnuckleBoomCrane: {median['WaveVessel'] / median['KnuckleBoomCrane']:.2f}x "
              f"(per round {min(ratios):.2f}-{max(ratios):.2f}x; target <= 1.0x)")


if __name__ == "__main__":
    main()
