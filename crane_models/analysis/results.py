"""The results of a sweep as one Parquet dataset (pyarrow), written as cases finish so that a sweep resumes.

Layout of ``RESULTS/``::

    summary/part-<ns>-<pid>.parquet    summary rows (ok or failed), a batch of finished cases per file
    series/case_id=<case_id>/0.parquet the recorded time series of an ok case (hive-partitioned by case)
    fmu/<FMU>.fmu                      the FMU the cases ran (built by the sweep unless the file names one)

Who writes what: the worker that ran a case writes its series file (:func:`write_series`); the client
appends the summary rows it receives, a batch per file (:meth:`ResultStore.append`) -- one Parquet file per
row would cost the client ~10 ms per case for ~350 columns, whatever the row count. Every file is written
to a temporary name starting with ``.`` (which ``pyarrow.dataset`` ignores) and renamed (atomic on POSIX).

A case is **finished** when its latest summary row exists and, for an ok case, its series file too: a
crash may leave a series without its row (the case runs again and replaces it) or a temporary file
(never taken for a series), never a finished case without its data. A case may have several rows (run
again after a lost row, or ``retry_failed``); the latest file's row counts. Column units are in the
fields' metadata (``unit``); a series file names the process that wrote it in its metadata (``writer``).

Summary columns: ``case_id``, ``index``, ``status`` (``ok`` | ``failed``), ``message``, ``log`` (the FMU's
log), ``wall_s`` (the run), ``run_cpu_s`` (its CPU time in the worker process), ``task_s`` (run, summary
and series writing on the worker), ``worker``,
``series_by`` (``worker`` or ``client``); ``param.<name>`` for each varied value; ``max.<output>``,
``min.<output>`` for every real output; ``del_m<m>.<output>``, ``kp.<output>``, ``kp_class.<output>``,
``cycles.<output>`` for the fatigue outputs.
"""
from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["ResultStore", "write_series", "series_path", "results_reachable", "load_summary", "load_series",
           "summary_units"]

# Series are float columns that rarely repeat a value: dictionary encoding is tried per column and then
# abandoned, which costs a third of the write (measured: 5.8 ms instead of 9.1 ms for 62 columns x 2001).
_SERIES_OPTIONS = {"use_dictionary": False}
_TEMPORARY = ".{name}.{pid}.tmp"  # the temporary name of ``name`` while process ``pid`` writes it


def _field(name: str, value, unit: str | None) -> pa.Field:
    if isinstance(value, str) or value is None:
        kind = pa.string()
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        kind = pa.int64()
    else:
        kind = pa.float64()
    return pa.field(name, kind, metadata={"unit": unit} if unit is not None else None)


def _write_atomic(table: pa.Table, path: Path, **options) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(_TEMPORARY.format(name=path.name, pid=os.getpid()))
    pq.write_table(table, tmp, **options)
    tmp.replace(path)


def series_path(root: Path, case_id: str) -> Path:
    """Where the series of a case is (hive partition ``case_id=<id>``)."""
    return Path(root) / "series" / f"case_id={case_id}" / "0.parquet"


def write_series(root: Path, case_id: str, series: dict, units: dict, writer: str) -> None:
    """Write ``series`` (name -> array, with ``time``) of one case atomically; ``writer`` names the process
    (``host:pid``) in the file's metadata. Called by the worker that ran the case."""
    fields = [pa.field(n, pa.float64(), metadata={"unit": units.get(n, "")}) for n in series]
    schema = pa.schema(fields, metadata={"writer": writer})
    table = pa.Table.from_arrays([pa.array(np.asarray(v, dtype=float)) for v in series.values()], schema=schema)
    _write_atomic(table, series_path(root, case_id), **_SERIES_OPTIONS)


def results_reachable(root: str, token: str | None) -> tuple:
    """``(True, "")`` when this process sees the client's results folder ``root`` -- its ``sweep.json``
    holds the sweep's ``token``, so it is the same storage, not a folder of the same name elsewhere -- and
    can create files in it; else ``(False, why)``. ``token`` None: the client writes every series."""
    if token is None:
        return False, "the client writes the series"
    try:
        found = json.loads((Path(root) / "sweep.json").read_text()).get("token")
        if found != token:
            return False, f"{root}/sweep.json holds another sweep's token"
        test = Path(root) / f".write-test-{token}-{os.getpid()}"
        test.write_bytes(b"")
        test.unlink()
    except (OSError, ValueError) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


class ResultStore:
    """The client's side: which cases are finished, and the summary rows appended as cases finish."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.summary_dir = self.root / "summary"
        self.series_dir = self.root / "series"
        self._parts = itertools.count()

    def finished(self, retry_failed: bool = False) -> set:
        """Ids of the finished cases: latest row ok and series file present, or latest row failed (left out
        when ``retry_failed``). A leftover temporary file is not a series file."""
        if not any(self.summary_dir.glob("*.parquet")):
            return set()
        table = load_summary(self.root, columns=["case_id", "status"])
        done = set()
        for case_id, status in zip(table["case_id"].to_pylist(), table["status"].to_pylist()):
            if status == "ok" and series_path(self.root, case_id).is_file():
                done.add(case_id)
            elif status != "ok" and not retry_failed:
                done.add(case_id)
        return done

    def clear_temporaries(self, case_ids) -> int:
        """Remove temporary files an interrupted write left in the series folders of ``case_ids`` (cases
        about to run again); returns how many."""
        removed = 0
        for case_id in case_ids:
            folder = series_path(self.root, case_id).parent
            if folder.is_dir():
                for tmp in folder.glob(".*.tmp"):
                    tmp.unlink(missing_ok=True)
                    removed += 1
        return removed

    def append(self, rows: list, units: dict) -> None:
        """Write summary ``rows`` (dicts; a key missing in a row is null) as one new file; ``units`` by
        column. The file name sorts by time, so the latest row of a case is in the last file holding it."""
        if not rows:
            return
        first = {}
        for row in rows:
            for key, value in row.items():
                if first.get(key) is None:
                    first[key] = value
        schema = pa.schema([_field(k, v, units.get(k)) for k, v in first.items()])
        name = f"part-{time.time_ns():020d}-{os.getpid()}-{next(self._parts):06d}.parquet"
        _write_atomic(pa.Table.from_pylist(rows, schema=schema), self.summary_dir / name)


def load_summary(root: Path, columns: list | None = None) -> pa.Table:
    """The latest summary row of every case in a results folder, ordered by case index (columns missing in
    a row are null)."""
    files = sorted((Path(root) / "summary").glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{root} has no summary rows (summary/*.parquet): is it a sweep's results folder?")
    if columns is not None and "case_id" not in columns:
        columns = ["case_id", *columns]
    tables = [pq.read_table(f, columns=columns) if columns else pq.read_table(f) for f in files]
    table = pa.concat_tables(tables, promote_options="default")
    ids = table["case_id"].to_pylist()
    seen, keep = set(), []
    for i in range(len(ids) - 1, -1, -1):  # the last row of a case is its latest
        if ids[i] not in seen:
            seen.add(ids[i])
            keep.append(i)
    table = table.take(sorted(keep))
    return table.sort_by("index") if "index" in table.column_names else table


def load_series(root: Path, case_id: str) -> pa.Table:
    """The recorded time series of one case."""
    path = series_path(root, case_id)
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
