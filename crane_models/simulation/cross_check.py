"""Reference results in the FMI cross-check layout that reproduce themselves from their folder alone.

A folder ``cross-check/<2.0|3.0>/cs/<platform>/crane-cosim/<version>/<Model>/`` holds ``<Model>.fmu``,
``<Model>_in.csv`` (the inputs at every communication point), ``<Model>_ref.csv`` (the standalone solver's
outputs that move, :func:`moving_outputs`: DOP853 at rtol 1e-10 on the same model, inputs held over each
communication step -- solve_ivp's, or for :data:`MODEL_REFERENCES` the model's own, the kernel's) and ``<Model>_ref.opt``
(StartTime, StopTime, StepSize -- the communication step --, RelTol, OutputIntervalLength), as the FMI
cross-check rules (4.1, section 9.1.4 and appendix B) lay them out.

No start values. Neither the cross-check rules nor the tools that follow them carry start values in a folder:
fmpy's ``fmpy.cross_check`` reads ``_ref.opt`` (StepSize, StopTime), ``_in.csv`` and ``_ref.csv`` and simulates
with the model description's defaults; Reference-FMUs' ``fmusim`` takes start values only as ``--start-value``
options on its command line. So every reference scenario starts from the FMU's default start values (the model
folders' ``CROSS_CHECK`` tables choose such scenarios), and :func:`write_reference_results` refuses one that does
not. A folder is reproduced with fmpy alone (:func:`replay_command`)::

    fmpy simulate M.fmu --input-file M_in.csv --start-time 0 --stop-time T --output-interval H --output-file M_out.csv

or ``fmusim --interface-type cs --input-file M_in.csv --stop-time T --output-interval H M.fmu`` (fmpy and fmusim
step a co-simulation FMU at the output interval, so H is ``StepSize``, not ``OutputIntervalLength``).

Sizes: the rules allow 1 MB per CSV. ``_in.csv`` has a row per communication point (an importer sets the inputs
at its communication points, interpolating linearly between rows) except inside stretches where every input
stays the same; ``_ref.csv`` keeps every k-th point, k the
smallest of 1, 2, 5, 10, ... for which the file cannot exceed 1 MB, k H in ``OutputIntervalLength``. Numbers have
:data:`DIGITS` significant digits, and the reference is computed from the inputs as written.
"""
from __future__ import annotations

import csv
import dataclasses
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .. import __version__
from ..models.registry import SPECS

REFERENCE_RTOL = 1e-10  # tolerances of the standalone solver that computes _ref.csv (runs.run_standalone)
# FMUs whose _ref.csv the model's own DOP853 computes at the same tolerances (runs.run_model_reference, the compiled
# kernel's stepper) instead of solve_ivp's: the FlexibleCrane's 10 s took ~9 min through solve_ivp's Python loop
# (a release job waited on it; 33 s on an idle 2-core machine), 12 s so; the two agree to 4e-6 of each output's range
# over the 10 s (tests/test_cross_check.py: 1e-5 over 0.3 s).
MODEL_REFERENCES = {"FlexibleCrane"}
# An FMU agrees with its reference when every output stays within 0.1 % of its range (max_relative_deviation):
# the bound of tests/test_fmu_knuckle_boom.py and tests/test_engines.py for FMU against standalone solver.
AGREEMENT = 1e-3
# 12 significant digits: the reference's own error (DOP853 at rtol 1e-10) is below the 12th digit, and a
# difference of 1e-3 of a range shows in any output whose range is above 1e-8 of its size.
DIGITS = 12
FIELD_WIDTH = DIGITS + 7  # -d.ddddddddddde-308: sign, digits, point, exponent
FILE_LIMIT = 1_000_000  # bytes: "A CSV file must not be larger than 1 Megabyte" (fmpy checks > 1e6)
INTERVAL_MULTIPLES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
PLATFORM_FOLDER = {2: "linux64", 3: "x86_64-linux"}  # where the references are computed and first checked
REPLAY_TIMEOUT = 900  # s, one folder under fmpy (the slowest, FlexibleCrane's 10 s, takes ~10 s here)


def cross_check_folder(out_dir: Path, fmu: str, fmi_version: int = 2) -> Path:
    return (Path(out_dir) / "cross-check" / f"{fmi_version}.0" / "cs" / PLATFORM_FOLDER[fmi_version] / "crane-cosim"
            / __version__ / fmu)


def reference_scenario(fmu: str):
    """The scenario of the FMU's cross-check folder: its model folder's ``CROSS_CHECK`` entry, or the inputs held
    at their start values for the spec's default experiment."""
    from ..models import collect
    from ..integration.scenario import Scenario

    chosen = collect("scenarios", "CROSS_CHECK").get(fmu)
    if chosen is not None:
        return chosen()
    spec = SPECS[fmu]()
    starts = [float(v.start) for v in spec.inputs]
    return Scenario(name=f"{fmu}_at_rest", fmu=fmu, stop_time=spec.stop_time,
                    input_names=[v.name for v in spec.inputs], signals=lambda t: starts)


def non_default_start_values(scenario) -> dict:
    """{name: (scenario's value, FMU's default)} for every start value a cross-check tool would not set."""
    defaults = {v.name: v.start for v in SPECS[scenario.fmu]().parameters}
    return {k: (v, defaults.get(k)) for k, v in scenario.start_values.items() if defaults.get(k) != v}


def number(x: float) -> str:
    return f"{float(x):.{DIGITS}g}"


def csv_size_bound(names: list, rows: int) -> int:
    """Largest size in bytes of a CSV with these columns and ``rows`` data rows written by :func:`write_csv`."""
    header = sum(len(n) + 3 for n in names)  # "name" and a comma or the newline
    return header + rows * len(names) * (FIELD_WIDTH + 1)


def output_stride(names: list, intervals: int) -> int:
    """Smallest k of :data:`INTERVAL_MULTIPLES` for which every k-th of ``intervals`` communication intervals
    (plus the last point) fits in :data:`FILE_LIMIT`."""
    for k in INTERVAL_MULTIPLES:
        rows = math.ceil(intervals / k) + 1
        if csv_size_bound(names, rows) <= FILE_LIMIT:
            return k
    raise ValueError(f"{len(names)} columns over {intervals} intervals exceed {FILE_LIMIT} bytes at every stride")


def csv_text(columns: dict) -> str:
    """A CSV by the cross-check rules: quoted names, then numbers with :data:`DIGITS` significant digits."""
    names = list(columns)
    table = np.column_stack([np.asarray(columns[n], dtype=float) for n in names])
    return "".join([",".join(f'"{n}"' for n in names) + "\n"] + [",".join(number(x) for x in row) + "\n"
                                                                   for row in table])


def write_csv(path: Path, columns: dict) -> None:
    Path(path).write_text(csv_text(columns), newline="")


BOOLEANS = {"True": 1.0, "False": 0.0, "true": 1.0, "false": 0.0}  # how fmpy's write_csv prints Boolean outputs


def read_csv(path: Path) -> dict:
    """{column: values} of a CSV with a header row (ours, or fmpy's output file)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array([[BOOLEANS.get(x, x) for x in row] for row in rows[1:]], dtype=float)
    data = data.reshape(len(rows) - 1, len(rows[0]))
    return {name: data[:, i] for i, name in enumerate(rows[0])}


def changing_rows(table: np.ndarray) -> np.ndarray:
    """Indices of the rows an input file needs: the first, the last, and every row that differs from the row
    before or after it. A dropped row lies inside a stretch of equal rows, where an importer's linear
    interpolation gives its values exactly (a held input, an input at rest: two rows)."""
    n = len(table)
    if n <= 2:
        return np.arange(n)
    inner = np.any(table[1:-1] != table[:-2], axis=1) | np.any(table[1:-1] != table[2:], axis=1)
    return np.concatenate(([0], 1 + np.flatnonzero(inner), [n - 1]))


def held_inputs(times: np.ndarray, table: np.ndarray):
    """inputs_at(t) of the rows of ``table`` (one per communication point), each held until the next point."""
    def inputs_at(t: float) -> np.ndarray:
        return table[max(int(np.searchsorted(times, t, side="right")) - 1, 0)]

    return inputs_at


def moving_outputs(fmu: str, reference: dict) -> list:
    """The real outputs whose reference moves by at least their unit's resolution (runs.RESOLUTION: 1 N, 1e-6 m,
    ...). The others stay at a value or carry only rounding noise (a passive joint's moment, ~1e-9 N.m): fmpy's
    cross-check judges each signal within 10 % of its own range, which for noise is noise, and the rules advise
    "the important variables" only."""
    from .runs import RESOLUTION

    return [v.name for v in SPECS[fmu]().outputs if v.kind == "real"
            and float(np.ptp(reference[v.name])) >= RESOLUTION.get(v.unit, 1e-9)]


def input_columns(fmu: str, names: list, table: np.ndarray) -> dict:
    """Every input of the FMU in its model description's order -- the cross-check rules want the file's variables
    to match the FMU's inputs --, from the columns of ``table`` (named ``names``) or held at its start value (an
    input the scenario leaves alone, e.g. the winch of KnuckleBoomCrane without its payload)."""
    inputs = SPECS[fmu]().inputs
    unknown = sorted(set(names) - {v.name for v in inputs})
    if unknown:
        raise ValueError(f"{fmu}: the reference scenario drives {unknown}, which are not inputs of the FMU")
    return {v.name: table[:, names.index(v.name)] if v.name in names else np.full(len(table), float(v.start))
            for v in inputs}


def write_reference_results(fmu: str, fmu_path: Path, folder: Path, stop_time: float | None = None) -> Path:
    """``<Model>_in.csv``, ``_ref.csv``, ``_ref.opt`` and a copy of the FMU in ``folder``; ``stop_time`` shortens
    the reference scenario (its beginning, same signals). ValueError when the scenario needs a start value."""
    from .runs import communication_grid, run_model_reference, run_standalone

    scenario = reference_scenario(fmu)
    needed = non_default_start_values(scenario)
    if needed:
        raise ValueError(f"{fmu}: the cross-check scenario {scenario.name} sets start values the folder cannot "
                         f"carry (cross-check tools use the FMU's defaults): {needed}")
    if stop_time is not None:
        scenario = dataclasses.replace(scenario, stop_time=float(stop_time))
    step = SPECS[fmu]().step_size
    folder.mkdir(parents=True, exist_ok=True)
    times = communication_grid(scenario.stop_time, step)
    # The reference sees the inputs as written (DIGITS), at every communication point.
    table = np.array([[float(number(x)) for x in scenario.inputs_at(t)] for t in times]).reshape(len(times), -1)
    kept = changing_rows(table)
    text = csv_text({"time": times[kept], **input_columns(fmu, scenario.input_names, table[kept])})
    if len(text.encode()) > FILE_LIMIT:
        raise ValueError(f"{fmu}: {fmu}_in.csv would have {len(text.encode())} bytes, more than {FILE_LIMIT}")
    (folder / f"{fmu}_in.csv").write_text(text, newline="")
    solver = run_model_reference if fmu in MODEL_REFERENCES else run_standalone
    reference = solver(dataclasses.replace(scenario, signals=held_inputs(times, table)), step,
                       rtol=REFERENCE_RTOL, atol=REFERENCE_RTOL)
    names = moving_outputs(fmu, reference)
    stride = output_stride(["time"] + names, len(times) - 1)
    rows = sorted(set(range(0, len(times), stride)) | {len(times) - 1})
    write_csv(folder / f"{fmu}_ref.csv", {"time": times[rows], **{n: np.asarray(reference[n])[rows] for n in names}})
    (folder / f"{fmu}_ref.opt").write_text(
        f"StartTime, {number(times[0])}\nStopTime, {number(times[-1])}\nStepSize, {number(step)}\n"
        f"RelTol, {REFERENCE_RTOL!r}\nOutputIntervalLength, {number(stride * step)}\n")
    shutil.copyfile(fmu_path, folder / f"{fmu}.fmu")
    return folder


def copy_reference_results(source: Path, fmu_path: Path, folder: Path) -> Path:
    """The reference files of ``source`` (another FMI version's folder: same model, same results) with
    ``fmu_path`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.suffix != ".fmu":
            shutil.copyfile(path, folder / path.name)
    shutil.copyfile(fmu_path, folder / f"{source.name}.fmu")
    return folder


def read_options(folder: Path) -> dict:
    """``_ref.opt`` as {name: float} (the elements the rules require, and any optional ones)."""
    options = {}
    for line in (folder / f"{folder.name}_ref.opt").read_text().splitlines():
        name, _, value = line.partition(",")
        if value.strip():
            options[name.strip()] = float(value)
    return options


def replay_command(folder: Path, out_csv: Path, launcher: list | None = None) -> list:
    """fmpy's command line simulating the folder as a cross-check importer does: its FMU with its default start
    values, ``_in.csv``, and the communication step and times of ``_ref.opt``. ``launcher``: what runs fmpy's
    command line (default ``python -m fmpy.cli``)."""
    model, opts = folder.name, read_options(folder)
    return [*(launcher or [sys.executable, "-m", "fmpy.cli"]), "simulate", str(folder / f"{model}.fmu"),
            "--input-file", str(folder / f"{model}_in.csv"), "--start-time", repr(opts["StartTime"]),
            "--stop-time", repr(opts["StopTime"]), "--output-interval", repr(opts["StepSize"]),
            "--output-file", str(out_csv)]


def deviations(out_csv: Path, folder: Path) -> dict:
    """max |result - reference| / range(reference) of every output of ``_ref.csv`` (runs.max_relative_deviation,
    the range at least the output unit's resolution), the result taken at the reference's times."""
    from .runs import max_relative_deviation, output_units

    reference, result = read_csv(folder / f"{folder.name}_ref.csv"), read_csv(out_csv)
    names = [n for n in reference if n != "time"]
    missing = [n for n in names if n not in result]
    if missing:
        raise ValueError(f"{out_csv.name} lacks the outputs {missing}")
    at_reference = {n: np.interp(reference["time"], result["time"], result[n]) for n in names}
    return max_relative_deviation(at_reference, reference, names, output_units(folder.name))


def check_folder(folder: Path, launcher: list | None = None) -> list:
    """Problems of one cross-check folder: a CSV over 1 MB, fmpy failing to simulate it from the folder alone
    (:func:`replay_command`), or an output off its ``_ref.csv`` by more than :data:`AGREEMENT` of its range."""
    folder = Path(folder)
    problems = [f"{p.name} has {p.stat().st_size} bytes, more than {FILE_LIMIT}" for p in sorted(folder.glob("*.csv"))
                if p.stat().st_size > FILE_LIMIT]
    with tempfile.TemporaryDirectory(prefix="crane_cosim_replay_") as scratch:
        out = Path(scratch) / f"{folder.name}_out.csv"
        done = subprocess.run(replay_command(folder, out, launcher), capture_output=True, text=True, timeout=REPLAY_TIMEOUT)
        if done.returncode != 0 or not out.is_file():
            return problems + [f"fmpy could not simulate {folder}: {(done.stderr or done.stdout)[-1500:]}"]
        deviation = deviations(out, folder)
    worst = max(deviation, key=deviation.get)
    if deviation[worst] > AGREEMENT:
        problems.append(f"{folder.name}: {worst} deviates {deviation[worst]:.3g} of its range from _ref.csv "
                        f"(allowed {AGREEMENT:g})")
    return problems
