"""The results of a sweep as one Parquet dataset (pyarrow), written case by case so that a sweep resumes.

Layout of ``RESULTS/``::

    summary/<case_id>.parquet          one row per finished case (ok or failed)
    series/case_id=<case_id>/0.parquet the recorded time series of an ok case (hive-partitioned by case)
    fmu/<FMU>.fmu                      the FMU the cases ran (built by the sweep unless the file names one)

A case is finished when its summary file exists. The series file is written first and the summary last,
each to a temporary name and renamed (atomic on POSIX), so a crash leaves either a finished case or one
that runs again -- never a summary without its series. Column units are in the fields' metadata (``unit``).

Summary columns: ``case_id``, ``index``, ``status`` (``ok`` | ``failed``), ``message``, ``log`` (the FMU's
log), ``wall_s``, ``worker``; ``param.<name>`` for each varied value; ``max.<output>``, ``min.<output>``
for every real output; ``del_m<m>.<output>``, ``kp.<output>``, ``kp_class.<output>``, ``cycles.<output>``
for the fatigue outputs.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["ResultStore", "load_summary", "load_series", "summary_units"]


def _field(name: str, value, unit: str | None) -> pa.Field:
    if isinstance(value, str) or value is None:
        kind = pa.string()
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        kind = pa.int64()
    else:
        kind = pa.float64()
    return pa.field(name, kind, metadata={"unit": unit} if unit is not None else None)


def _write_atomic(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    tmp.replace(path)


class ResultStore:
    """Reads which cases are finished and writes a case's series and summary row."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.summary_dir = self.root / "summary"
        self.series_dir = self.root / "series"

    def summary_path(self, case_id: str) -> Path:
        return self.summary_dir / f"{case_id}.parquet"

    def finished(self, retry_failed: bool = False) -> set:
        """Ids of the finished cases (without the failed ones when ``retry_failed``)."""
        if not self.summary_dir.is_dir():
            return set()
        ids = {p.stem for p in self.summary_dir.glob("*.parquet")}
        if retry_failed and ids:
            table = load_summary(self.root, columns=["case_id", "status"])
            ids -= {c for c, s in zip(table["case_id"].to_pylist(), table["status"].to_pylist()) if s != "ok"}
        return ids

    def write(self, row: dict, units: dict, series: dict | None) -> None:
        """``series`` (name -> array, with ``time``) first, then the summary ``row``; ``units`` by column."""
        case_id = row["case_id"]
        if series:
            fields = [pa.field(n, pa.float64(), metadata={"unit": units.get(n, "")}) for n in series]
            table = pa.Table.from_arrays([pa.array(np.asarray(v, dtype=float)) for v in series.values()],
                                         schema=pa.schema(fields))
            _write_atomic(table, self.series_dir / f"case_id={case_id}" / "0.parquet")
        schema = pa.schema([_field(k, v, units.get(k)) for k, v in row.items()])
        _write_atomic(pa.Table.from_pylist([row], schema=schema), self.summary_path(case_id))


def load_summary(root: Path, columns: list | None = None) -> pa.Table:
    """Every summary row of a results folder, ordered by case index (columns missing in a row are null)."""
    files = sorted((Path(root) / "summary").glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{root} has no summary rows (summary/*.parquet): is it a sweep's results folder?")
    tables = [pq.read_table(f, columns=columns) if columns else pq.read_table(f) for f in files]
    table = pa.concat_tables(tables, promote_options="default")
    return table.sort_by("index") if "index" in table.column_names else table


def load_series(root: Path, case_id: str) -> pa.Table:
    """The recorded time series of one case."""
    path = Path(root) / "series" / f"case_id={case_id}" / "0.parquet"
    if not path.exists():
        raise FileNotFoundError(f"no series for case {case_id!r} in {root} (failed or not run)")
    return pq.read_table(path)


def summary_units(table: pa.Table) -> dict:
    """Column name -> unit, from the fields' metadata."""
    out = {}
    for f in table.schema:
        if f.metadata and b"unit" in f.metadata:
            out[f.name] = f.metadata[b"unit"].decode()
    return out
