"""Command line for sweeps: ``crane-cosim sweep CASES.yaml`` and ``crane-cosim report RESULTS``. Parses
arguments and calls :mod:`crane_models.analysis`; nothing else."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .fmus import CliError, writable_dir

__all__ = ["add_commands"]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"--workers = {value} is not allowed; it must be >= 1")
    return value


def add_commands(subparsers) -> None:
    """Register the ``sweep`` and ``report`` subcommands on ``crane-cosim``'s subparsers."""
    s = subparsers.add_parser("sweep", help="run the cases of a YAML case file as FMU runs on Dask")
    s.add_argument("cases", type=Path, help="case file (docs/fatigue-and-sweeps.md)")
    s.add_argument("--out", type=Path, default=None,
                   help="results folder (default: crane-cosim-out/sweeps/<case file name>); re-running resumes")
    s.add_argument("--workers", type=_positive_int, default=None,
                   help="worker processes of the local cluster (default: one per core)")
    s.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler, e.g. tcp://host:8786; "
                   "its workers write the series when --out is on storage they share, else this client does")
    s.add_argument("--retry-failed", action="store_true", help="run the cases that failed before again")
    s.add_argument("--no-progress", action="store_true", help="no progress bar (there is none when the output "
                   "is not a terminal)")
    s.set_defaults(handler=_sweep)
    r = subparsers.add_parser("report", help="load spectra, DEL and Kp of a sweep's results (PNG + HTML)")
    r.add_argument("results", type=Path, help="a sweep's results folder")
    r.add_argument("--out", type=Path, default=None, help="report folder (default: RESULTS/report)")
    r.add_argument("--outputs", default=None,
                   help="comma-separated outputs to draw (default: the 4 whose DEL varies most)")
    r.set_defaults(handler=_report)


def _sweep(args) -> int:
    from ..analysis.cases import load_case_file
    from ..analysis.sweep import ForeignResults, run_sweep

    if args.workers is not None and args.scheduler is not None:
        raise CliError("give --workers or --scheduler, not both")
    try:
        case_set = load_case_file(args.cases)
    except OSError as exc:
        raise CliError(f"{args.cases}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(f"{args.cases}: {exc}") from None
    out = writable_dir(args.out or Path("crane-cosim-out") / "sweeps" / args.cases.stem, "--out")
    progress = not args.no_progress and sys.stdout.isatty()  # the bar redraws one line: a terminal's
    try:
        outcome = run_sweep(case_set, out, args.workers, args.scheduler, args.retry_failed, progress)
    except ForeignResults as exc:
        raise CliError(f"--out {exc}") from None
    print(f"{len(outcome.ran)} cases run ({outcome.failed} failed), {outcome.skipped} finished before; "
          f"results in {out}")
    if outcome.series_by_client:
        print(f"the workers could not write into {out} (not on storage they share with this machine): this "
              f"client received and wrote the series of {outcome.series_by_client} cases")
    return 0


def _report(args) -> int:
    from ..analysis.report import check_report_input, write_report

    outputs = [s.strip() for s in args.outputs.split(",") if s.strip()] if args.outputs else None
    try:
        check_report_input(args.results, outputs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    out = writable_dir(args.out or args.results / "report", "--out")
    print(write_report(args.results, out, outputs))
    return 0
