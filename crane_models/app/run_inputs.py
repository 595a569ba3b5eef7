"""What a ``crane-cosim run`` is given, checked before any work: ``--set NAME=VALUE`` assignments, an ``--input``
CSV of input signals, and the ``--out`` files (for FMU and SSP runs alike: :mod:`.run`, :mod:`.run_ssp`)."""
from __future__ import annotations

import argparse
import difflib
import math
from pathlib import Path

import numpy as np

from .fmus import CliError, writable_file

__all__ = ["parse_assignment", "read_input_table", "input_signals", "check_output_files"]


def _unknown(name: str, allowed: list, what: str) -> CliError:
    close = difflib.get_close_matches(name, allowed, n=3)
    if close:
        return CliError(f"{name!r} is not one of the FMU's {what}; did you mean {', '.join(close)}?")
    return CliError(f"{name!r} is not one of the FMU's {what} ({', '.join(allowed) or 'it has none'})")


def parse_assignment(text: str, variables: dict) -> tuple:
    """``"name=value"`` -> ``(name, value)`` converted to the variable's type; clear errors for unknown
    names, variables that are not parameters/inputs, and values that are not numbers."""
    if "=" not in text:
        raise CliError(f"--set {text!r}: expected NAME=VALUE")
    name, raw = (s.strip() for s in text.split("=", 1))
    settable = [n for n, v in variables.items() if v.causality in ("parameter", "input")]
    if name not in settable:
        raise _unknown(name, settable, "parameters and inputs")
    kind = variables[name].type
    try:
        if kind == "Boolean":
            if raw.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return name, raw.lower() in ("true", "1")
        if kind == "Integer":
            return name, int(raw)
        value = float(raw)
    except ValueError:
        article = "an" if kind[0] in "AEIOU" else "a"
        raise CliError(f"--set {name}={raw}: not {article} {kind.lower()} value") from None
    if not math.isfinite(value):
        raise CliError(f"--set {name}={raw}: must be a finite number")
    return name, value


def _first_bad_row(columns: dict, lines, path: Path) -> None:
    """Refuse a cell that is not a finite number (NaN, inf) and time going backwards, naming the line."""
    for name, values in columns.items():
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise CliError(f"--input {path}, line {lines[bad[0]]}, column {name!r}: {values[bad[0]]} is not a "
                           f"finite number")
    back = np.flatnonzero(np.diff(columns["time"]) < 0)
    if back.size:
        i = back[0] + 1
        raise CliError(f"--input {path}, line {lines[i]}: time {columns['time'][i]:g} s is before "
                       f"{columns['time'][i - 1]:g} s on line {lines[i - 1]}; time must not decrease")


def read_input_table(path: Path) -> tuple:
    """``(columns, units, lines)`` of an ``--input`` CSV, checked without the FMU (before it is built or run): the
    file readable, its syntax, a ``time`` column in s, every cell a finite number, time not going back."""
    from .results import read_csv

    try:
        columns, units, lines = read_csv(path)
    except OSError as exc:
        raise CliError(f"--input {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(f"--input {exc}") from None
    if "time" not in columns:
        raise CliError(f"--input {path}: needs a 'time' column (got {', '.join(columns)})")
    if units.get("time") not in (None, "s"):
        raise CliError(f"--input {path}: time must be in s (got [{units['time']}])")
    _first_bad_row(columns, lines, path)
    return columns, units, lines


def input_signals(path: Path, variables: dict, table: tuple | None = None) -> tuple:
    """``(names, inputs_at)`` from a CSV (``table``: what :func:`read_input_table` read from it, else read now):
    ``time`` and input columns, linear interpolation in between and the end values held outside the table (as
    fmpy does for continuous inputs)."""
    columns, units, _ = table or read_input_table(path)
    columns = dict(columns)
    inputs = [n for n, v in variables.items() if v.causality == "input"]
    for name in columns:
        if name != "time" and name not in inputs:
            raise _unknown(name, inputs, "inputs")
        unit = units.get(name)
        if name != "time" and unit not in (None, variables[name].unit or "-", variables[name].unit or ""):
            raise CliError(f"--input {path}: column {name} is in [{unit}], the FMU expects [{variables[name].unit}]")
    t = columns.pop("time")
    names = list(columns)

    def inputs_at(time: float) -> list:
        return [float(np.interp(time, t, columns[n])) for n in names]

    return names, inputs_at


def check_output_files(args: argparse.Namespace) -> None:
    """The CSV, its sidecar and (with --plot) the PNG of a run can be written: checked before the FMU is built
    or run, for FMU and SSP runs alike (a refusal after the run loses it)."""
    from .results import metadata_path

    if args.plot and args.out.suffix.lower() == ".png":
        raise CliError(f"--out {args.out}: the plot goes next to the CSV as .png; give the CSV a .csv name")
    for target in [args.out, metadata_path(args.out)] + ([args.out.with_suffix(".png")] if args.plot else []):
        writable_file(target, "--out")
