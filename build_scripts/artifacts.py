"""CI artifacts: ``python -m crane_cosim_build.artifacts build OUT_DIR [--platforms all]`` builds every FMU (FMI 2.0
and 3.0) with the kernels of those platforms, validates them and writes the cross-check reference results and the
manifest; ``python -m crane_cosim_build.artifacts check OUT_DIR`` checks them on the machine it runs on (exit 1
on a problem; what cannot be checked there is a ``::notice::`` line and no failure);
``python -m crane_cosim_build.artifacts kernel OUT_DIR [--platforms ...]`` only compiles the kernels
(``OUT_DIR/<platform>/multibody-<platform>.<ext>``). The work is :mod:`crane_models.app.artifacts`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crane_models.app.artifacts import build_artifacts, check_artifacts
from crane_models.fmi.platforms import build_binaries, resolve_platforms


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m crane_cosim_build.artifacts")
    parser.add_argument("action", choices=["build", "check", "kernel"])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--platforms", default="all", help="'all' or a comma-separated list, e.g. "
                        "x86_64-linux,x86_64-windows (FMI 2.0 names like win64 work too)")
    parser.add_argument("--no-references", action="store_true", help="skip the cross-check reference results")
    args = parser.parse_args(argv)
    if args.action == "build":
        for path in build_artifacts(args.out_dir, args.platforms, references=not args.no_references):
            print(path)
    elif args.action == "kernel":
        for path in build_binaries(resolve_platforms(args.platforms), args.out_dir).values():
            print(path)
    elif not (args.out_dir / "manifest.json").is_file():
        print(f"::error title=check::{args.out_dir / 'manifest.json'} not found: OUT_DIR must be a dist that "
              "'build' wrote")
        return 2
    else:
        problems, cannot_check = check_artifacts(args.out_dir)
        # GitHub workflow commands: a notice or an error annotation in CI, a plain line everywhere else.
        for line in cannot_check:
            print(f"::notice title=cannot check here::{line}")
        for problem in problems:
            print(f"::error title=check failed::{problem}")
        if problems:
            return 1
        print(f"{args.out_dir}: every FMU checked" + (f", {len(cannot_check)} check(s) not possible here"
                                                    if cannot_check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
