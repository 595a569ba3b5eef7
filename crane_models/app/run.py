"""``crane-cosim run NAME|FILE.fmu``: one FMU under fmpy with chosen parameters and inputs, its own log
messages shown, any FMI status worse than Warning an error (exit code 1), results as CSV with units."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from ..integration.scenario import check_step, communication_grid
from .fmus import CliError, resolve_fmu
from .run_inputs import _unknown, check_output_files, input_signals, parse_assignment, read_input_table

__all__ = ["add_commands", "parse_assignment", "variable_table", "input_signals", "run_command"]

STATUS_NAMES = ("OK", "Warning", "Discard", "Error", "Fatal", "Pending")


def add_commands(sub) -> None:
    p = sub.add_parser("run", help="run one FMU under fmpy (or an SSP package under libcosim) with chosen parameters "
                                   "and inputs",
                       description="Run one FMU (a crane-cosim FMU by NAME, built if missing, or any FMI 2.0 "
                                   "co-simulation .fmu) and write its outputs as CSV with units. FILE.ssp: an SSP "
                                   "system package under libcosim; variables are named component.variable.")
    p.add_argument("fmu", metavar="NAME|FILE.fmu|FILE.ssp")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                   help="start value of a parameter or input, in the variable's unit (repeatable)")
    p.add_argument("--input", metavar="SIGNALS.csv", type=Path,
                   help="input signals: a 'time' column and one column per input (linear in between)")
    p.add_argument("--start", type=float, help="start time [s] (default: the FMU's DefaultExperiment, else 0)")
    p.add_argument("--stop", type=float, help="stop time [s] (default: the FMU's DefaultExperiment, else 10)")
    p.add_argument("--step", type=float, help="communication step [s] (default: the FMU's, else 0.01)")
    p.add_argument("--outputs", metavar="A,B,...", help="outputs to record (default: all)")
    p.add_argument("--out", type=Path, default=Path("result.csv"), help="result CSV (default: %(default)s)")
    p.add_argument("--plot", action="store_true", help="also write the outputs as PNG next to the CSV")
    p.add_argument("--fmus", type=Path, help="folder of built FMUs for NAME (default: crane-cosim-out/fmus)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, FMU messages only if worse than OK")
    p.add_argument("--view", action="store_true", help="also write the 3-D page of the run (crane-cosim view)")
    p.set_defaults(func=run_command)


def variable_table(fmu_path: Path):
    from fmpy import read_model_description

    try:
        return read_model_description(str(fmu_path), validate=False)
    except Exception as exc:  # fmpy raises plain exceptions for a broken archive or XML
        raise CliError(f"{fmu_path}: not a readable FMU ({exc})") from None


def _experiment(md, args) -> tuple:
    de = md.defaultExperiment
    start = args.start if args.start is not None else float(de.startTime) if de and de.startTime else 0.0
    stop = args.stop if args.stop is not None else float(de.stopTime) if de and de.stopTime else 10.0
    step = args.step if args.step is not None else float(de.stepSize) if de and de.stepSize else 0.01
    for option, value in (("--start", start), ("--stop", stop)):
        if not math.isfinite(value):
            raise CliError(f"{option} {value:g}: must be a finite number of seconds")
    if stop <= start:
        raise CliError(f"--stop {stop:g} s must be later than --start {start:g} s")
    try:
        check_step(step, stop - start, "--step")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return start, stop, step


def _printer(quiet: bool):
    def log(status: int, category: str, message: str) -> None:
        if quiet and status == 0:
            return
        label = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else str(status)
        print(f"FMU [{label}] {message}", file=sys.stderr, flush=True)

    return log


def run_command(args: argparse.Namespace) -> int:
    if Path(args.fmu).suffix.lower() == ".ssp":
        from .run_ssp import run_ssp_command

        code = run_ssp_command(args)
    else:
        code = run_fmu_command(args)
    if code == 0 and args.view:
        from .view import write_view

        page = write_view(args.out)
        if not args.quiet:
            print(f"3-D view -> {page}")
    return code


def run_fmu_command(args: argparse.Namespace) -> int:
    from ..simulation.runs import FmuRunError, co_simulate
    from .progress import progress_bar
    from .results import parameter_values, write_csv, write_metadata

    check_output_files(args)
    table = read_input_table(args.input) if args.input else None  # before the FMU is built
    fmu_path = resolve_fmu(args.fmu, args.fmus, args.quiet)
    md = variable_table(fmu_path)
    if not md.fmiVersion.startswith("2") or md.coSimulation is None:
        raise CliError(f"{fmu_path}: crane-cosim run drives FMI 2.0 co-simulation FMUs "
                       f"(this one is FMI {md.fmiVersion}{'' if md.coSimulation else ', no co-simulation'})")
    if args.view:
        from .view import check_drawable

        check_drawable([md.modelName])
    variables = {v.name: v for v in md.modelVariables}
    start_values = dict(parse_assignment(a, variables) for a in args.set)
    names, inputs_at = input_signals(args.input, variables, table) if args.input else ([], lambda t: [])
    start, stop, step = _experiment(md, args)
    all_outputs = [n for n, v in variables.items() if v.causality == "output" and v.type in ("Real", "Integer", "Boolean")]
    outputs = [s.strip() for s in args.outputs.split(",")] if args.outputs else all_outputs
    for name in outputs:
        if name not in all_outputs:
            raise _unknown(name, all_outputs, "outputs")
    times = communication_grid(stop, step, start)
    try:
        with progress_bar(stop - start, f"{md.modelName}", disable=args.quiet) as bar:
            result = co_simulate(fmu_path, times, start_values, names, inputs_at, outputs,
                                 logger=_printer(args.quiet), on_step=lambda t: bar.update_to(t - start))
    except FmuRunError as exc:  # its messages were printed as they came
        print(f"crane-cosim run: error: {exc.what}; no result written (the FMU's messages are above)",
              file=sys.stderr)
        return 1
    units = {n: variables[n].unit or "" for n in outputs}
    write_csv(args.out, result, ["time"] + outputs, units)
    write_metadata(args.out, fmu_path, model=md.modelName, fmi_version=md.fmiVersion, guid=md.guid,
                   start_time=start, stop_time=stop, step=step, start_values=start_values,
                   parameters=parameter_values(md, start_values),
                   input_file=str(args.input) if args.input else None,
                   columns=[{"name": n, "unit": units.get(n, "s")} for n in ["time"] + outputs])
    if not args.quiet:
        print(f"{len(times)} rows, t = {start:g} ... {stop:g} s, step {step:g} s -> {args.out}")
    if args.plot:
        from .plots import plot_outputs
        from .results import zero_outputs

        png = plot_outputs(args.out.with_suffix(".png"), f"{md.modelName}: {fmu_path.name}", result, outputs, units)
        zero = zero_outputs(result, outputs)
        if not args.quiet:
            print(f"plot -> {png}" + ("" if args.outputs else f" (all {len(outputs)} outputs; --outputs A,B,... to choose)")
                  + (f"; {len(zero)} of them 0 throughout, not drawn: {', '.join(zero)}"
                     if zero and len(zero) < len(outputs) else ""))
    return 0
