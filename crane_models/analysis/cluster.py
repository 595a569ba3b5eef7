"""The sweep's own Dask cluster: a ``LocalCluster`` of single-threaded worker processes, set up so that the
cluster's background work leaves the cores to the FMU runs.

Dask's defaults suit an interactive cluster with a dashboard; on a machine whose cores all run FMUs their
background work competes with the runs. Measured on the 2-core development machine, an idle LocalCluster
of 2 workers used, in CPU milliseconds per second: the client process (client, scheduler, nannies) 51 and
the two workers 69 with the defaults; 9 and 6 with the settings below -- 6 % of the two cores down to
under 1 %. What each one costs:

* ``distributed.admin.tick.interval`` 20 ms -> 500 ms: every event loop (scheduler, nannies, workers)
  wakes 50 times a second to time itself, only to warn when the loop was blocked (the biggest share);
* ``distributed.worker.profile.enabled`` off: each worker samples its task thread's stack every 10 ms for
  the dashboard's profile page (the second share, and more while a task runs: its stacks are deeper);
* ``distributed.admin.system-monitor.interval`` 500 ms -> 2 s: CPU/memory/network counters for the
  dashboard, which the sweep does not start;
* ``distributed.worker.memory.monitor-interval`` 100 ms -> 1 s: a nanny reads its worker's memory
  ten times a second; once a second still stops a worker that runs away.

Dask's scratch space (spilled data, the workers' lock files) would be ``dask-scratch-space/`` in the working
folder, left there after the sweep: it is a temporary folder of the cluster's own, removed when the cluster is
closed (``cluster.remove_scratch()``) or, at the latest, when the process ends.

The workers get one BLAS thread each from the nanny (``distributed.nanny.pre-spawn-environ``: ``OMP``,
``MKL``, ``OPENBLAS_NUM_THREADS=1``), the default kept. An existing cluster (``--scheduler``) keeps its
own configuration: set the same there.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import weakref

__all__ = ["SWEEP_CLUSTER_CONFIG", "local_cluster"]

SWEEP_CLUSTER_CONFIG = {
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def local_cluster(workers: int | None = None, config: dict | None = None):
    """A ``LocalCluster`` of ``workers`` single-threaded processes (default: one per core) and no dashboard,
    with :data:`SWEEP_CLUSTER_CONFIG` (or ``config``) -- the nannies hand it to the worker processes -- and a
    scratch folder of its own in $TMPDIR, which ``cluster.remove_scratch()`` removes after ``cluster.close()``."""
    import dask
    from distributed import LocalCluster

    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers = {workers!r} is not allowed; it must be an integer >= 1")
    scratch = tempfile.mkdtemp(prefix="crane_cosim_dask_")
    try:
        with dask.config.set(SWEEP_CLUSTER_CONFIG if config is None else config), \
                dask.config.set({"temporary-directory": scratch}):  # the scheduler's scratch too
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   dashboard_address=None, local_directory=scratch)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    cluster.remove_scratch = weakref.finalize(cluster, shutil.rmtree, scratch, True)  # call it after close()
    return cluster
