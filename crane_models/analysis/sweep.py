"""Parameter sweeps on Dask: every case of a case file is one FMU run (fmpy) as a task on ``dask.distributed``.

* The cluster: a ``LocalCluster`` with one single-threaded worker process per core (a pythonfmu FMU runs
  Python inside the worker, so threads would only share one interpreter lock), or an existing cluster by
  its scheduler address -- the same code either way.
* The FMU is shipped once per worker: a worker plugin carries the file's bytes and unpacks them into the
  worker's local directory when the worker starts (also on workers that join later); a task receives only
  its case (plain data, a few hundred bytes) and builds its input signals where it runs.
* Each finished case is written as it arrives (:mod:`.results`); finished cases of an earlier run are
  skipped, so a re-run resumes. A case that fails -- the FMU reports an error, or the worker dies -- is
  recorded with its message and the FMU's log; the others go on.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
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
from .fatigue import fatigue_summary
from .results import ResultStore

__all__ = ["FmuOnWorkers", "run_case", "run_sweep", "SweepOutcome", "fmu_for"]


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
        from ..fmi.registry import SPECS

        units = {v.name: v.unit for v in SPECS[case_set.fmu]().outputs}
        return cls(tuple(case_set.fatigue_outputs), case_set.slopes, case_set.reference_cycles,
                   tuple(case_set.record) if case_set.record else None, units)


def _summary(case: Case, result, settings: Settings) -> dict:
    row = {}
    for name in result.dtype.names[1:]:
        y = np.asarray(result[name], dtype=float)
        row[f"max.{name}"], row[f"min.{name}"] = float(y.max()), float(y.min())
    for name in settings.fatigue_outputs:
        for key, value in fatigue_summary(result[name], settings.units[name], settings.slopes,
                                          settings.reference_cycles).items():
            row[f"{key}.{name}"] = value
    return row


def run_case(case: Case, fmu_path: str, settings: Settings, model_description=None) -> dict:
    """Run one case with ``fmpy.simulate_fmu`` (inputs at every communication point, as
    ``simulation.runs.run_fmu``) and summarise it. Never raises: a failure is returned as ``status``
    ``failed`` with the message and the FMU's log."""
    import fmpy

    log = []

    def logger(_env, _instance, status, category, message) -> None:
        log.append(f"[{category.decode(errors='replace')}] {message.decode(errors='replace')}")

    out = {"case_id": case.case_id, "index": case.index, "status": "failed", "message": "", "log": "",
           "wall_s": float("nan"), "worker": f"{socket.gethostname()}:{os.getpid()}", "series": None, "stats": {}}
    t0 = time.perf_counter()
    try:
        scenario = case.to_scenario()
        times = communication_grid(case.duration, case.step)
        result = fmpy.simulate_fmu(fmu_path, stop_time=case.duration, output_interval=case.step,
                                   start_values=dict(scenario.start_values), input=scenario.input_table(times),
                                   validate=False, debug_logging=True, logger=logger,
                                   model_description=model_description)
        out["wall_s"] = time.perf_counter() - t0
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


def _case_task(case: Case, settings: Settings, plugin_name: str) -> dict:
    from distributed import get_worker

    plugin = get_worker().plugins[plugin_name]
    return run_case(case, plugin.path, settings, plugin.model_description)


@dataclass
class SweepOutcome:
    ran: list  # case ids run now, in order of completion
    skipped: int  # finished before
    failed: int  # of those run now
    wall_s: float  # from submission to the last result written


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
        from ..fmi.build import build_fmu

        build_fmu(case_set.fmu, path.parent)
    return path


def _failed_row(case: Case, message: str) -> dict:
    return {"case_id": case.case_id, "index": case.index, "status": "failed", "message": message, "log": "",
            "wall_s": float("nan"), "worker": "", "series": None, "stats": {}}


def _record(store: ResultStore, case: Case, result: dict, settings: Settings) -> None:
    row = {k: result[k] for k in ("case_id", "index", "status", "message", "log", "wall_s", "worker")}
    row.update({f"param.{k}": float(v) for k, v in case.varied.items()})
    row.update(result["stats"])
    units = {"wall_s": "s"}
    for key in result["stats"]:
        kind, name = key.split(".", 1)
        if kind in ("max", "min") or kind.startswith("del_m"):
            units[key] = settings.units.get(name, "")
        elif kind in ("kp", "cycles"):
            units[key] = ""
    store.write(row, {**settings.units, **units}, result["series"])


def run_sweep(case_set: CaseSet, out_dir: Path, workers: int | None = None, scheduler: str | None = None,
              retry_failed: bool = False, progress: bool = True) -> SweepOutcome:
    """Run the unfinished cases of ``case_set`` on Dask and write them to ``out_dir`` as they finish."""
    from distributed import Client, LocalCluster, as_completed

    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers = {workers!r} is not allowed; it must be an integer >= 1")
    store = ResultStore(out_dir)
    fmu_path = fmu_for(case_set, out_dir)
    settings = Settings.of(case_set)
    fmu_bytes = fmu_path.read_bytes()
    _write_description(case_set, settings, Path(out_dir), hashlib.sha256(fmu_bytes).hexdigest())
    done = store.finished(retry_failed)
    pending = [c for c in case_set.cases if c.case_id not in done]
    outcome = SweepOutcome([], len(case_set.cases) - len(pending), 0, 0.0)
    if not pending:
        return outcome
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    client = Client(scheduler or cluster)
    try:
        plugin = FmuOnWorkers(fmu_bytes)
        client.register_plugin(plugin, name=plugin.name)
        t0 = time.perf_counter()
        by_key = {}
        futures = []
        for case in pending:
            future = client.submit(_case_task, case, settings, plugin.name, key=f"case-{case.case_id}", pure=False)
            by_key[future.key] = case
            futures.append(future)
        bar = threading.Thread(target=_progress_bar, args=(futures,), daemon=True) if progress else None
        if bar:
            bar.start()
        for future in as_completed(futures):
            case = by_key[future.key]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 -- e.g. the worker died running this case
                result = _failed_row(case, f"the task failed on the cluster: {type(exc).__name__}: {exc}")
            _record(store, case, result, settings)
            outcome.ran.append(case.case_id)
            outcome.failed += result["status"] != "ok"
            future.release()
        outcome.wall_s = time.perf_counter() - t0
        if bar:
            bar.join(timeout=2.0)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return outcome


def _write_description(case_set: CaseSet, settings: Settings, out_dir: Path, fmu_sha256: str) -> None:
    """``sweep.json``: what a report needs besides the rows (FMU, fatigue outputs, slopes, units). A folder
    holds the results of one FMU file: the case ids do not include the FMU, so finished cases of another
    FMU file would be taken for finished cases of this one."""
    path = out_dir / "sweep.json"
    if path.exists():
        before = json.loads(path.read_text()).get("fmu_sha256")
        if before not in (None, fmu_sha256):
            raise ValueError(f"{out_dir} holds results of another FMU file (sha256 {before[:12]}..., now "
                             f"{fmu_sha256[:12]}...); give a new results folder or remove that one")
    description = {"name": case_set.name, "fmu": case_set.fmu, "fmu_sha256": fmu_sha256,
                   "fatigue_outputs": list(settings.fatigue_outputs),
                   "slopes": list(settings.slopes), "reference_cycles": settings.reference_cycles,
                   "varied": sorted({k for c in case_set.cases for k in c.varied}), "units": settings.units,
                   "cases": len(case_set.cases)}
    out_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(description, indent=2))


def _progress_bar(futures: list) -> None:
    """Dask's text progress bar (``distributed.progress``) over the sweep's tasks."""
    from distributed import progress

    try:
        progress(futures)
    except Exception:  # noqa: BLE001 -- a progress bar must never stop the sweep
        pass
