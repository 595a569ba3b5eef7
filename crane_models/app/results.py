"""Result files: CSV with the unit of every column in its header (``q1 [rad]``) and a JSON sidecar saying
what produced them (scenario, communication step, FMU file and its sha256, project version)."""
from __future__ import annotations

import csv
import datetime
import hashlib
import json
import platform
from pathlib import Path

import numpy as np

from .. import __version__

__all__ = ["column_header", "write_csv", "read_csv", "write_metadata", "file_sha256", "metadata_path",
           "parameter_values", "zero_outputs"]

DIMENSIONLESS = "-"  # header unit of a quantity without unit (integer flags, ratios)


def column_header(name: str, unit: str) -> str:
    """``name [unit]``; ``name [-]`` for a dimensionless column."""
    return f"{name} [{unit or DIMENSIONLESS}]"


def write_csv(path: Path, data, names: list, units: dict | None = None) -> Path:
    """Columns ``names`` of ``data`` (dict or structured array) with ``name [unit]`` headers; ``time`` is in s."""
    units = {"time": "s", **(units or {})}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([column_header(n, units.get(n, "")) for n in names])
        cols = [np.asarray(data[n], dtype=float) for n in names]
        for row in zip(*cols):
            writer.writerow([f"{v:.10g}" for v in row])
    return path


def split_header(header: str) -> tuple:
    """``"q1 [rad]"`` -> ``("q1", "rad")``; a bare ``"q1"`` -> ``("q1", None)``."""
    header = header.strip()
    if header.endswith("]") and " [" in header:
        name, unit = header[:-1].split(" [", 1)
        return name.strip(), unit.strip()
    return header, None


def read_csv(path: Path) -> tuple:
    """A CSV with a header row (``name`` or ``name [unit]``) and numbers: ``(columns, units, lines)`` --
    ``{name: array}``, the units found and each data row's line number in the file (blank lines are skipped
    but counted). A cell that is not a number, a row of the wrong length, a repeated column name or a file
    that is not CSV text raises ``ValueError`` naming the file, the line and the column."""
    path = Path(path)
    rows, lines = [], []
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            for row in reader:
                if row and any(c.strip() for c in row):
                    rows.append(row)
                    lines.append(reader.line_num)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise ValueError(f"{path}, line {reader.line_num}: not CSV ({exc})") from None
    if len(rows) < 2:
        raise ValueError(f"{path}: needs a header row and at least one row of numbers")
    header = [split_header(h) for h in rows[0]]
    names = [n for n, _ in header]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{path}, line {lines[0]}: column {repeated[0]!r} appears more than once")
    values = np.empty((len(rows) - 1, len(header)))
    for i, (row, line) in enumerate(zip(rows[1:], lines[1:])):
        if len(row) != len(header):
            raise ValueError(f"{path}, line {line}: {len(row)} cells, the header has {len(header)}")
        for j, cell in enumerate(row):
            try:
                values[i, j] = float(cell)
            except ValueError:
                raise ValueError(f"{path}, line {line}, column {names[j]!r}: {cell!r} is not a number") from None
    columns = {n: values[:, j] for j, n in enumerate(names)}
    return columns, dict(header), np.array(lines[1:])


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def metadata_path(csv_path: Path) -> Path:
    """The sidecar of ``result.csv``: ``result.csv.json``."""
    return Path(str(csv_path) + ".json")


def parameter_values(md, start_values: dict) -> dict:
    """Every parameter's value in a run: the FMU's start value (fmpy model description ``md``), or the run's."""
    typed = {"Real": float, "Integer": int, "Boolean": lambda s: str(s).lower() in ("true", "1")}
    out = {v.name: typed[v.type](v.start) for v in md.modelVariables
           if v.causality == "parameter" and v.type in typed and v.start is not None}
    out.update({k: v for k, v in start_values.items() if k in out})
    return out


def write_metadata(csv_path: Path, fmu_path: Path | None, **fields) -> Path:
    """``<csv>.json``: what produced the CSV -- the given fields (scenario, step, start values, ...), the
    FMU file and its sha256, the project version, the platform and when."""
    meta = dict(fields)
    if fmu_path is not None:
        meta["fmu"] = {"file": str(Path(fmu_path).resolve()), "sha256": file_sha256(fmu_path)}
    meta["crane_cosim_version"] = __version__
    meta["python"] = platform.python_version()
    meta["platform"] = platform.platform()
    meta["written"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    path = metadata_path(csv_path)
    path.write_text(json.dumps(meta, indent=2, default=_jsonable))
    return path


def _jsonable(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def zero_outputs(result, names: list) -> list:
    """The outputs of ``names`` that are exactly 0 at every point (a moment a joint cannot carry, an input left
    alone): a flat panel each, which :func:`app.plots.plot_outputs` leaves out."""
    return [n for n in names if not np.any(np.asarray(result[n], dtype=float))]
