"""Command line ``crane-cosim``: a thin layer that parses arguments and calls the library.

Each command lives in its own module with ``add_commands(subparsers)``, which adds its parsers and sets
``func`` (``args -> exit code``; ``handler`` is accepted too). Registering a module's commands is one line in :data:`COMMAND_MODULES`;
a listed module that is not there (yet) is skipped.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from .. import __version__
from .fmus import CliError, MissingTool, default_fmu_dir, writable_dir

__all__ = ["main", "build_parser", "COMMAND_MODULES"]

# Modules of crane_models.app whose add_commands(subparsers) registers subcommands, in --help order.
COMMAND_MODULES = [
    "crane_models.app.cli",  # build
    "crane_models.app.demo",
    "crane_models.app.run",
    "crane_models.app.info",
    "crane_models.app.native",  # ecos
    "crane_models.app.sweep_cli",  # sweep, report (fatigue and sweeps)
    "crane_models.app.view",  # view (3-D page of a result)
    "crane_models.app.rao_cli",  # rao (a vessel's RAO table from Capytaine)
    "crane_models.app.splash_cli",  # splash-zone (DNV-RP-N103 simplified method)
    "crane_models.app.splash_lift_cli",  # splash-lift (the lift in the time domain, with and without AHC)
]


def add_commands(sub) -> None:
    b = sub.add_parser("build", help="build every FMU into a folder (plus manifest.json, OSP files and SSP packages)")
    b.add_argument("--out", type=Path, help="output folder (default: crane-cosim-out/fmus for FMI 2, "
                                            "crane-cosim-out/fmus-fmi3 for FMI 3)")
    b.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version (default: %(default)s)")
    b.add_argument("--platforms", default=None,
                   help="put the compiled kernel for these platforms into every FMU, cross-built with zig: 'all' "
                        "or a comma-separated list such as x86_64-linux,x86_64-windows (default: this machine's "
                        "kernel only; docs/platforms.md)")
    b.add_argument("--rao-table", type=Path, default=None, metavar="FILE",
                   help="the WaveVessel's RAO table, carried inside its FMU (CSV, docs/sea.md; default: the "
                        "package's table of a generic vessel)")
    b.set_defaults(func=build_command)


def build_command(args: argparse.Namespace) -> int:
    from ..models.build import build_all

    out = writable_dir(args.out or default_fmu_dir(args.fmi), "--out")
    platforms = None
    if args.platforms:
        from ..fmi.platforms import ToolchainMissing, require_toolchain, resolve_platforms

        platforms = "all" if args.platforms == "all" else [p.strip() for p in args.platforms.split(",") if p.strip()]
        try:  # checked before anything is built
            resolve_platforms(platforms)
            require_toolchain()
        except (ValueError, ToolchainMissing) as exc:  # the known names; what to install (zig, LIEF)
            raise CliError(f"--platforms: {exc}") from None
    if args.rao_table is not None:  # checked before anything is built: one line, exit 2
        from ..models.wave_vessel.rao import RaoError, read_rao_table

        try:
            read_rao_table(args.rao_table)
        except RaoError as exc:
            raise CliError(f"--rao-table: {exc}") from None
    table = {"rao_table": args.rao_table} if args.rao_table is not None else {}
    for path in build_all(out, args.fmi, platforms=platforms, **table):
        print(path)
    return 0


def _module_name(name: str) -> str:
    """The module's name inside this package (the FMU build bundles the package under another name)."""
    return name.replace("crane_models", __package__.rsplit(".", 1)[0], 1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crane-cosim",
                                     description="Physics-based crane models as FMI co-simulation FMUs: build, "
                                                 "run, inspect, demonstrate.")
    parser.add_argument("--version", action="version", version=f"crane-cosim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(_module_name(name))
        except ModuleNotFoundError as exc:
            if exc.name != _module_name(name):
                raise
            continue
        module.add_commands(sub)
    return parser


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._subparsers._group_actions:  # argparse keeps the subparsers here
        if command in getattr(action, "choices", {}):
            return action.choices[command]
    return parser


def main(argv: list | None = None) -> int:
    """Exit codes: 0 success, 1 the simulation failed (an FMU error, its messages shown), 2 bad usage or input."""
    from ..simulation.runs import FmuRunError

    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "func", None) or getattr(args, "handler")  # `handler`: the name sweep_cli first used
    try:
        return run(args)
    except MissingTool as exc:  # the machine lacks something: one line, no usage
        print(f"crane-cosim {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except CliError as exc:
        _subparser(parser, args.command).error(str(exc))  # usage + message, exit code 2
    except FmuRunError as exc:
        print(f"crane-cosim {args.command}: the FMU reported an error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `crane-cosim info ... | head`: the reader left, not an error of ours
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:  # checked before the run; still possible: the disk filled up, a file was removed
        print(f"crane-cosim {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"crane-cosim {args.command}: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
