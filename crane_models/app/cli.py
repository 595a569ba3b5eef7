"""Command line: ``crane-cosim build --out DIR`` and ``crane-cosim demo``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import sweep_cli


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="crane-cosim", description="Crane models as FMI 2.0 co-simulation FMUs")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build every FMU into a folder (plus manifest.json)")
    b.add_argument("--out", default="crane-cosim-out/fmus", help="output folder (default: %(default)s)")
    b.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version (default: %(default)s)")
    d = sub.add_parser("demo", help="build the FMUs, run the demo scenarios under fmpy and standalone, plot")
    d.add_argument("--out", default="crane-cosim-out", help="output folder (default: %(default)s)")
    d.add_argument("--step", type=float, default=0.01, help="communication step [s] (default: %(default)s)")
    sweep_cli.add_commands(sub)
    args = parser.parse_args(argv)
    if hasattr(args, "handler"):  # subcommands registered by other modules (sweep, report)
        return args.handler(args)
    if args.command == "build":
        from ..fmi.build import build_all

        for path in build_all(Path(args.out), args.fmi):
            print(path)
        return 0
    if args.step <= 0:
        parser.error("--step must be > 0")
    from ..fmi.build import build_all
    from .demo import run_demo

    out = Path(args.out)
    build_all(out / "fmus")
    run_demo(out, args.step)
    return 0


if __name__ == "__main__":
    sys.exit(main())
