"""Parameter sweeps on Dask: every case of a case file is one FMU run (fmpy) as a task on ``dask.distributed``.

* The cluster: a ``LocalCluster`` with one single-threaded worker process per core (a pythonfmu FMU runs
  Python inside the worker, so threads would only share one interpreter lock) and less background work
  than dask's defaults (:mod:`.cluster`), or an existing cluster by its scheduler address.
* The FMU is shipped once per worker: a worker plugin carries the file's bytes and unpacks them into the
  worker's local directory when the worker starts (also on workers that join later); a task receives only
  its case (plain data, a few hundred bytes) and builds its input signals where it runs.
* The worker that ran a case writes its series into the results folder itself and returns only the
  summary row (a few kB instead of ~1 MB); the client appends the rows a batch at a time (:mod:`.results`).
  A worker writes there only when it sees the folder -- it must find the token the client wrote into the
  folder's ``sweep.json`` for this run (same storage) and be able to create a file -- otherwise it returns
  the series and the client writes it. The token lives in a file the folder keeps anyway, so a sweep killed
  with SIGKILL leaves no probe file behind.
* Finished cases of an earlier run are skipped, so a re-run resumes. A case that fails -- the FMU reports
  an error, or the worker dies -- is recorded with its message and the FMU's log; the others go on.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import secrets
import socket
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from ..simulation.runs import communication_grid
from .cases import Case, CaseSet
from .cluster import local_cluster
from .fatigue import fatigue_summary
from .results import ResultStore, results_reachable, write_series

__all__ = ["FmuOnWorkers", "ResultsOnWorkers", "run_case", "run_and_store", "run_sweep", "SweepOutcome",
           "fmu_for", "without_monotone_interiors", "ForeignResults"]

# The client writes the summary rows it has received when this many have come or this long has passed since
# its last write, and at the end: a crash loses at most these rows (their cases run again on resume). A
# file costs ~15 ms of client CPU whatever its row count (~350 columns): at 2 s, 2 workers running 1 s cases
# paid ~7 ms per case for it; at 10 s ~1.5 ms, and a crash costs at most 10 s of the cluster's work.
_FLUSH_ROWS = 100
_FLUSH_S = 10.0


@dataclass(frozen=True)
class Settings:
    """What every case of a sweep shares besides the FMU: fatigue outputs, S-N slopes, recording."""

    fatigue_outputs: tuple
    slopes: tuple
    reference_cycles: float
    record: tuple | None
    units: dict

    @classmethod
    def of(cls, case_set: CaseSet) -> "Settings":
        from ..models.registry import SPECS

        units = {v.name: v.unit for v in SPECS[case_set.fmu]().outputs}
        return cls(tuple(case_set.fatigue_outputs), case_set.slopes, case_set.reference_cycles,
                   tuple(case_set.record) if case_set.record else None, units)


def without_monotone_interiors(series) -> np.ndarray:
    """``series`` without the points that lie strictly between both neighbours (inside a strictly rising or
    falling stretch); the first two and the last points are kept. Such a point is never a reversal
    (ASTM E1049-85 section 3.2.12), and dropping it keeps the sign of every difference around the others,
    plateaus included, so ``rainflow`` finds the same reversals in the same order and counts the same
    cycles -- at a fraction of the cost in its Python loop (the force outputs of a 20 s knuckle boom run
    keep ~1/4 of their points: 24 -> 11 ms for 37 outputs). The second point stays so that a monotone
    history keeps three points: ``rainflow`` reads two points as one reversal, three as two."""
    y = np.asarray(series, dtype=float)
    if y.size < 4:
        return y
    before, here, after = y[:-2], y[1:-1], y[2:]
    inside = ((before < here) & (here < after)) | ((before > here) & (here > after))
    return y[np.concatenate(([True, True], ~inside[1:], [True]))]


def _summary(case: Case, result, settings: Settings) -> dict:
    row = {}
    for name in result.dtype.names[1:]:
        y = np.asarray(result[name], dtype=float)
        row[f"max.{name}"], row[f"min.{name}"] = float(y.max()), float(y.min())
    for name in settings.fatigue_outputs:
        for key, value in fatigue_summary(without_monotone_interiors(result[name]), settings.units[name],
                                          settings.slopes, settings.reference_cycles).items():
            row[f"{key}.{name}"] = value
    return row


def _process_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_case(case: Case, fmu_path: str, settings: Settings, model_description=None) -> dict:
    """Run one case with ``fmpy.simulate_fmu`` (inputs at every communication point, as
    ``simulation.runs.run_fmu``) and summarise it. Never raises: a failure is returned as ``status``
    ``failed`` with the message and the FMU's log."""
    import fmpy

    log = []

    def logger(_env, _instance, status, category, message) -> None:
        log.append(f"[{category.decode(errors='replace')}] {message.decode(errors='replace')}")

    out = {"case_id": case.case_id, "index": case.index, "status": "failed", "message": "", "log": "",
           "wall_s": float("nan"), "run_cpu_s": float("nan"), "task_s": float("nan"), "worker": _process_name(),
           "series_by": "", "series": None, "stats": {}}
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        scenario = case.to_scenario()
        times = communication_grid(case.duration, case.step)
        result = fmpy.simulate_fmu(fmu_path, stop_time=case.duration, output_interval=case.step,
                                   start_values=dict(scenario.start_values), input=scenario.input_table(times),
                                   validate=False, debug_logging=True, logger=logger,
                                   model_description=model_description)
        out["wall_s"], out["run_cpu_s"] = time.perf_counter() - t0, time.process_time() - cpu0
        if len(result) != len(times):  # fmpy ends a run early, without raising, when doStep fails
            errors = [m for m in log if "Error" in m or "Fatal" in m]
            out["message"] = (errors[-1] if errors else "the run stopped") + \
                f" (stopped at t = {float(result['time'][-1]):g} s of {case.duration:g} s)"
        else:
            out["stats"] = _summary(case, result, settings)
            names = settings.record or result.dtype.names[1:]
            out["series"] = {"time": np.asarray(result["time"]), **{n: np.asarray(result[n]) for n in names}}
            out["status"] = "ok"
    except Exception as exc:  # noqa: BLE001 -- a failing case is recorded, never stops the sweep
        out["wall_s"] = time.perf_counter() - t0
        # A refused call (a bad parameter at fmi2ExitInitializationMode) raises in fmpy; the FMU says why.
        errors = [m for m in log if "Error" in m or "Fatal" in m]
        out["message"] = (errors[-1] + " -- " if errors else "") + f"{type(exc).__name__}: {exc}"
    out["log"] = "\n".join(log)
    return out


def run_and_store(case: Case, fmu_path: str, settings: Settings, model_description=None,
                  root: str | None = None) -> dict:
    """:func:`run_case`, then -- when ``root`` is given -- write the series into the results folder ``root``
    here, where the case ran, and return the row without it (``series_by = "worker"``). Without ``root``,
    or when the write fails, the series stays in the row for the client to write (``series_by =
    "client"``). ``task_s`` is the whole of it as timed here: run, summary and writing."""
    t0 = time.perf_counter()
    out = run_case(case, fmu_path, settings, model_description)
    if out["series"] is not None:
        out["series_by"] = "client"
        if root is not None:
            try:
                write_series(root, case.case_id, out["series"], settings.units, out["worker"])
                out["series"], out["series_by"] = None, "worker"
            except OSError as exc:  # e.g. the shared folder filled up: the client still can write it
                out["message"] = f"the worker could not write the series ({exc}); the client wrote it"
    out["task_s"] = time.perf_counter() - t0
    return out


class ForeignResults(ValueError):
    """The results folder holds the results of another FMU file (refused before any case runs)."""


class FmuOnWorkers(WorkerPlugin):
    """Worker plugin: carries an FMU's bytes to each worker once and unpacks them there once."""

    def __init__(self, data: bytes):
        self.data = data
        self.sha = hashlib.sha256(data).hexdigest()
        self.name = f"crane-cosim-fmu-{self.sha[:16]}"
        self.path = None
        self.model_description = None

    def setup(self, worker) -> None:
        import fmpy

        target = Path(worker.local_directory) / self.name
        if not target.exists():
            tmp = target.with_name(target.name + ".tmp")
            with zipfile.ZipFile(io.BytesIO(self.data)) as archive:
                archive.extractall(tmp)
            tmp.replace(target)
        self.path = str(target)
        self.model_description = fmpy.read_model_description(self.path, validate=False)


class ResultsOnWorkers(WorkerPlugin):
    """Worker plugin: a sweep's settings, and whether this worker writes into the results folder itself
    (:func:`results_reachable`, checked once when the worker sets the plugin up)."""

    def __init__(self, root: str, token: str | None, settings: Settings):
        self.root, self.token, self.settings = root, token, settings
        self.name = f"crane-cosim-results-{token or secrets.token_hex(8)}"  # one plugin per run
        self.writes, self.why_not = False, "not set up"

    def setup(self, worker) -> None:
        self.writes, self.why_not = results_reachable(self.root, self.token)


def _case_task(case: Case, fmu_plugin: str, results_plugin: str) -> bytes:
    """A case on a worker; its row comes back pickled as one ``bytes``: dask serialises a returned dict
    value by value (measured with rows of 350 numbers: 6.2 ms of client CPU and 26 ms of wall time per
    task on 2 workers; as bytes 1.5 ms and 2.4 ms). Client and workers trust each other as dask does."""
    from distributed import get_worker

    plugins = get_worker().plugins
    fmu, results = plugins[fmu_plugin], plugins[results_plugin]
    return pickle.dumps(run_and_store(case, fmu.path, results.settings, fmu.model_description,
                                      results.root if results.writes else None), protocol=pickle.HIGHEST_PROTOCOL)


@dataclass
class SweepOutcome:
    ran: list  # case ids run now, in order of completion
    skipped: int  # finished before
    failed: int  # of those run now
    wall_s: float  # from submission to the last result written
    series_by_client: int = 0  # ok cases whose series the client wrote (the worker could not reach the folder)


def fmu_for(case_set: CaseSet, out_dir: Path) -> Path:
    """The case file's FMU file, or one built into ``out_dir/fmu`` once (kept for re-runs: a rebuilt FMU
    is a different file, so the cases would not be recognised as finished)."""
    if case_set.fmu_file:
        path = Path(case_set.fmu_file)
        if not path.is_file():
            raise FileNotFoundError(f"fmu_file = {str(path)!r} does not exist")
        return path
    path = Path(out_dir) / "fmu" / f"{case_set.fmu}.fmu"
    if not path.exists():
        from ..models.build import build_fmu

        build_fmu(case_set.fmu, path.parent)
    return path


def _failed_row(case: Case, message: str) -> dict:
    return {"case_id": case.case_id, "index": case.index, "status": "failed", "message": message, "log": "",
            "wall_s": float("nan"), "run_cpu_s": float("nan"), "task_s": float("nan"), "worker": "",
            "series_by": "", "series": None, "stats": {}}


class _Rows:
    """The client's side of the results: writes a series a worker could not, and appends summary rows a
    batch at a time (every ``_FLUSH_ROWS`` rows or ``_FLUSH_S`` seconds, and at :meth:`flush`)."""

    def __init__(self, store: ResultStore, settings: Settings):
        self.store, self.settings = store, settings
        self.units = dict(settings.units, wall_s="s", run_cpu_s="s", task_s="s")
        self.rows, self.since = [], time.perf_counter()

    def add(self, case: Case, result: dict) -> None:
        if result["series"] is not None:
            write_series(self.store.root, case.case_id, result["series"], self.settings.units, _process_name())
        row = {k: result[k] for k in ("case_id", "index", "status", "message", "log", "wall_s", "run_cpu_s",
                                      "task_s", "worker", "series_by")}
        row.update({f"param.{k}": float(v) for k, v in case.varied.items()})
        row.update(result["stats"])
        self.rows.append(row)
        if len(self.rows) >= _FLUSH_ROWS or time.perf_counter() - self.since > _FLUSH_S:
            self.flush()

    def flush(self) -> None:
        units = self.units
        for key in {k for row in self.rows for k in row if "." in k and k not in units}:
            kind, name = key.split(".", 1)
            if kind in ("max", "min") or kind.startswith("del_m"):
                units[key] = self.settings.units.get(name, "")
            elif kind in ("kp", "cycles"):
                units[key] = ""
        self.store.append(self.rows, units)
        self.rows, self.since = [], time.perf_counter()


def run_sweep(case_set: CaseSet, out_dir: Path, workers: int | None = None, scheduler: str | None = None,
              retry_failed: bool = False, progress: bool = True, client=None,
              series_on_workers: bool = True) -> SweepOutcome:
    """Run the unfinished cases of ``case_set`` on Dask and write them to ``out_dir`` as they finish: on a
    new ``LocalCluster`` of ``workers`` processes, on the cluster at ``scheduler``, or with a connected
    ``client`` (left open). ``series_on_workers=False`` has every series sent back and written by the
    client, as when no worker sees the folder (for comparison in ``benchmarks/bench_sweep.py``)."""
    from distributed import Client

    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers = {workers!r} is not allowed; it must be an integer >= 1")
    out_dir = Path(out_dir).resolve()  # the workers write there: no path relative to the client's cwd
    store = ResultStore(out_dir)
    fmu_path = fmu_for(case_set, out_dir)
    settings = Settings.of(case_set)
    fmu_bytes = fmu_path.read_bytes()
    token = secrets.token_hex(8)
    _write_description(case_set, settings, out_dir, hashlib.sha256(fmu_bytes).hexdigest(), token)
    done = store.finished(retry_failed)
    pending = [c for c in case_set.cases if c.case_id not in done]
    outcome = SweepOutcome([], len(case_set.cases) - len(pending), 0, 0.0)
    if not pending:
        return outcome
    store.clear_temporaries(c.case_id for c in pending)
    cluster = None
    if client is None and scheduler is None:
        cluster = local_cluster(workers)
    own_client = client is None
    client = client or Client(scheduler or cluster)
    results = ResultsOnWorkers(str(out_dir), token if series_on_workers else None, settings)
    try:
        fmu = FmuOnWorkers(fmu_bytes)
        client.register_plugin(fmu, name=fmu.name)
        client.register_plugin(results, name=results.name)
        _run_pending(client, pending, fmu.name, results.name, _Rows(store, settings), outcome, progress)
    finally:
        if cluster is None:  # a cluster that outlives the sweep keeps no plugin of it
            _forget_plugin(client, results.name)
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()
            cluster.remove_scratch()
    return outcome


def _run_pending(client, pending: list, fmu_plugin: str, results_plugin: str, rows: _Rows,
                 outcome: SweepOutcome, progress: bool) -> None:
    """Submit the pending cases, record each as it finishes (the rows of the finished ones also when the
    sweep is interrupted), fill ``outcome``."""
    from distributed import as_completed

    t0 = time.perf_counter()
    futures = client.map(_case_task, pending, fmu_plugin=fmu_plugin, results_plugin=results_plugin,
                         key=[f"case-{c.case_id}" for c in pending], pure=False)
    by_key = {f.key: c for f, c in zip(futures, pending)}
    bar = threading.Thread(target=_progress_bar, args=(futures,), daemon=True) if progress else None
    if bar:
        bar.start()
    try:
        for future, result in as_completed(futures, with_results=True, raise_errors=False):
            case = by_key[future.key]
            if future.status != "finished":  # e.g. the worker died running it: (type, exc, tb), or cancelled
                exc = result[1] if isinstance(result, tuple) else result
                result = _failed_row(case, f"the task failed on the cluster: {type(exc).__name__}: {exc}")
            else:
                result = pickle.loads(result)  # noqa: S301 -- from the sweep's own workers (_case_task)
            outcome.series_by_client += result["series"] is not None
            rows.add(case, result)
            outcome.ran.append(case.case_id)
            outcome.failed += result["status"] != "ok"
            future.release()
    finally:
        rows.flush()
    outcome.wall_s = time.perf_counter() - t0
    if bar:
        bar.join(timeout=2.0)


def _forget_plugin(client, name: str) -> None:
    try:
        client.unregister_worker_plugin(name)
    except Exception:  # noqa: BLE001 -- e.g. the scheduler went away; nothing left to clean up then
        pass


def _write_description(case_set: CaseSet, settings: Settings, out_dir: Path, fmu_sha256: str, token: str) -> None:
    """``sweep.json``: what a report needs besides the rows (FMU, fatigue outputs, slopes, units), and this
    run's ``token`` (:func:`.results.results_reachable`). A folder holds the results of one FMU file: the
    case ids do not include the FMU, so finished cases of another FMU file would be taken for finished
    cases of this one (:class:`ForeignResults`)."""
    path = out_dir / "sweep.json"
    if path.exists():
        before = json.loads(path.read_text()).get("fmu_sha256")
        if before not in (None, fmu_sha256):
            raise ForeignResults(f"{out_dir} holds results of another FMU file (sha256 {before[:12]}..., now "
                                 f"{fmu_sha256[:12]}...); give a new results folder or remove that one")
    description = {"name": case_set.name, "fmu": case_set.fmu, "fmu_sha256": fmu_sha256,
                   "fatigue_outputs": list(settings.fatigue_outputs),
                   "slopes": list(settings.slopes), "reference_cycles": settings.reference_cycles,
                   "varied": sorted({k for c in case_set.cases for k in c.varied}), "units": settings.units,
                   "cases": len(case_set.cases), "token": token}
    out_dir.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # renamed: a worker never reads half a file
    draft.write_text(json.dumps(description, indent=2))
    draft.replace(path)


def _progress_bar(futures: list) -> None:
    """Dask's text progress bar (``distributed.progress``) over the sweep's tasks."""
    from distributed import progress

    try:
        progress(futures)
    except Exception:  # noqa: BLE001 -- a progress bar must never stop the sweep
        pass
