"""Executors of a sweep: how the runs after the first two are spread over workers.

* ``"processes"``: a pool of fresh processes (``spawn``, so no CasADi state is inherited). The
  job is pickled once to a temporary file and loaded once per worker by the pool's initializer
  (an initializer argument larger than a pipe's buffer would start the processes one after
  the other).
* dask.distributed: a ``distributed.Client``, a scheduler address, or ``"dask"`` (a
  ``LocalCluster`` started for the sweep, without dask's ``MALLOC_TRIM_THRESHOLD_``; see
  :func:`restore_malloc_thresholds`). The job goes to every worker once
  (``scatter(..., broadcast=True)``).

The runs are grouped into chunks (:func:`chunk_sizes`) that each carry well above the
executor's per-task cost, largest first (guided scheduling). A chunk whose worker fails gets
the error in each of its rows; the other chunks go on.
"""
from __future__ import annotations

import io
import math
import multiprocessing
import os
import pickle
import sys
import tempfile
import threading
import time

import numpy as np

from ...core.memory import settle_malloc_thresholds
from .jobs import Job, ModelRefUnpickler
from .table import SweepError, SweepRow

# Smallest amount of work [s] a chunk should carry: about 100 times the per-task cost of the
# executor (result pickling and the pool's queue for processes, the scheduler for dask).
MIN_CHUNK_SECONDS = {"processes": 0.05, "dask": 0.2}


def executor_kind(executor, workers) -> str:
    """``"serial"``, ``"processes"`` or ``"dask"`` for the ``executor`` argument of a sweep,
    checked together with ``workers``."""
    if isinstance(executor, str):
        if executor in ("serial", "processes"):
            if executor == "serial" and workers is not None:
                raise SweepError("sweep: workers= applies to executor 'processes' or 'dask', not 'serial'")
            return executor
        if executor == "dask" or "://" in executor:
            import_distributed(executor)
            return "dask"
        raise SweepError(f"sweep: unknown executor {executor!r}; give 'serial', 'processes', 'dask', "
                         "a dask.distributed Client or a scheduler address such as 'tcp://host:8786'")
    if is_client(executor):
        if workers is not None:
            raise SweepError("sweep: with a dask Client the cluster decides the number of workers; "
                             "leave out workers=")
        return "dask"
    raise SweepError(f"sweep: executor must be 'serial', 'processes', 'dask', a dask.distributed Client "
                     f"or a scheduler address, got {executor!r:.60}")


def is_client(obj) -> bool:
    """Whether ``obj`` is a ``distributed.Client`` (without importing dask)."""
    cls = type(obj)
    return cls.__name__ == "Client" and cls.__module__.split(".")[0] == "distributed"


def import_distributed(executor):
    """The ``distributed`` module, or a SweepError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise SweepError(f"executor {executor!r} needs dask.distributed, which is not installed: "
                         "pip install physlib[dask]") from None
    return distributed


def workers_hint(kind, executor, workers) -> int:
    """The number of workers, for the time estimate (before the pool or cluster is up)."""
    if workers is not None:
        return workers
    if kind == "dask" and is_client(executor):
        return max(1, len(executor.scheduler_info().get("workers", {})))
    return os.cpu_count() or 1


def chunk_sizes(n: int, per_run: float, workers: int, min_seconds: float) -> list[int]:
    """Sizes of the chunks ``n`` runs of ``per_run`` seconds each are split into for
    ``workers`` workers: each chunk a share 1/(2·workers) of the runs still unassigned (guided
    scheduling: large chunks first, small ones at the end so workers finish together), but at
    least ``min_seconds`` of work."""
    smallest = max(1, math.ceil(min_seconds / max(per_run, 1e-6)))
    sizes, left = [], n
    while left:
        size = min(left, max(smallest, math.ceil(left / (2 * workers))))
        sizes.append(size)
        left -= size
    return sizes


class Runner:
    """Sends the pending runs to workers in chunks and files the rows that come back;
    :meth:`run` of a subclass does it for one kind of executor."""

    kind = ""

    def __init__(self, job, executor, workers, per_run, pending, rows, bar, timing):
        self.job, self.executor, self.workers, self.per_run = job, executor, workers, per_run
        self.pending, self.rows, self.bar, self.timing = pending, rows, bar, timing
        self.busy: dict = {}    # worker -> wall-clock (start of its first chunk, end of its last)

    def chunks(self, workers: int) -> list[list[tuple[int, dict]]]:
        sizes = chunk_sizes(len(self.pending), self.per_run, workers, MIN_CHUNK_SECONDS[self.kind])
        self.timing["chunks"] = sizes
        bounds = np.cumsum([0] + sizes)
        return [self.pending[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def file(self, payload: bytes) -> None:
        worker, began, ended, rows = ModelRefUnpickler(io.BytesIO(payload), self.job.model).load()
        first, last = self.busy.get(worker, (began, ended))
        self.busy[worker] = (min(first, began), max(last, ended))
        for row in rows:
            self.rows[row.index] = row
        if self.bar.rate_from is None:
            self.bar.rate_from = (time.perf_counter(), self.bar.done)     # the workers are up
        self.bar.add(rows)

    def lost(self, chunk, err) -> None:
        """A chunk whose worker failed (died, or the transfer failed): its runs get the error."""
        for index, params in chunk:
            self.rows[index] = SweepRow(index, params, error=f"{self.kind} executor: {type(err).__name__}: {err}")
        self.bar.add([self.rows[index] for index, _ in chunk])

    def payload(self) -> bytes:
        """The pickled job, for the process pool's initializer."""
        try:
            return pickle.dumps(self.job, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:    # noqa: BLE001 -- PicklingError, AttributeError, ... all mean the same
            raise SweepError(
                f"executor {self.kind!r} sends the model, the analysis and the summary to other "
                f"processes with pickle, which failed: {err}. Define analysis and summary functions "
                "with def at the top level of an importable module (or use executor='serial')") from err

    def finish(self, phase_start: float) -> None:
        if self.busy:
            self.timing["startup"] = max(first for first, _ in self.busy.values()) - phase_start
            self.timing["worker_seconds"] = sum(last - first for first, last in self.busy.values())


class ProcessRunner(Runner):
    kind = "processes"

    def run(self) -> None:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        workers = self.workers or os.cpu_count() or 1
        chunks = self.chunks(workers)
        workers = min(workers, len(chunks))
        self.timing["workers"] = workers
        phase_start = time.time()
        # The job reaches the workers' initializer through a file: an initializer argument
        # larger than a pipe's buffer would hold up the start of each process until the one
        # before has imported its modules, one process after the other.
        with tempfile.NamedTemporaryFile(prefix="physlib-sweep-", suffix=".pickle", delete=False) as fh:
            fh.write(self.payload())
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_process_worker, initargs=(fh.name,))
        try:
            futures = {pool.submit(_run_chunk_in_process, chunk): chunk for chunk in chunks}
            for future in as_completed(futures):
                try:
                    self.file(future.result())
                except Exception as err:    # noqa: BLE001 -- a dead worker loses its chunk only
                    self.lost(futures[future], err)
        finally:
            # Worker processes take about 0.5 s to exit (tearing down CasADi, SymPy, ...): the
            # sweep returns while a thread waits for them and then removes the file.
            threading.Thread(target=_close_pool, args=(pool, fh.name), name="physlib-sweep-pool").start()
        self.finish(phase_start)


def _close_pool(pool, path: str) -> None:
    pool.shutdown(wait=True, cancel_futures=True)
    os.unlink(path)


class DaskRunner(Runner):
    kind = "dask"

    def run(self) -> None:
        phase_start = time.time()
        distributed = import_distributed(self.executor)
        client, close = dask_client(self.executor, self.workers)
        try:
            workers = max(1, len(client.scheduler_info()["workers"]))
            self.timing["workers"] = workers
            try:
                job = client.scatter(self.job, broadcast=True, hash=False)
            except Exception as err:    # noqa: BLE001 -- whatever serialization raised
                raise SweepError(f"executor 'dask' could not send the model, analysis and summary to "
                                 f"the workers: {err}") from err
            chunks = self.chunks(workers)
            futures = {client.submit(_run_chunk_on_dask, job, chunk, pure=False): chunk for chunk in chunks}
            for future in distributed.as_completed(futures):
                try:
                    self.file(future.result())
                except Exception as err:    # noqa: BLE001 -- a failed task loses its chunk only
                    self.lost(futures[future], err)
            self.finish(phase_start)
        finally:
            close()


def dask_client(executor, workers):
    """(client, close) for a dask ``executor``: the Client given (close does nothing), one
    connected to the scheduler address given, or one of a LocalCluster of ``workers``
    processes started for ``"dask"`` (close closes what was started)."""
    distributed = import_distributed(executor)
    if is_client(executor):
        return executor, lambda: None
    if executor != "dask":
        client = distributed.Client(executor)
        return client, client.close
    # Workers without dask's MALLOC_TRIM_THRESHOLD_ (see restore_malloc_thresholds).
    import dask

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        cluster = distributed.LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
    client = distributed.Client(cluster)

    def close():
        client.close()
        cluster.close()
    return client, close


_WORKER_JOB: Job | None = None     # a process worker's job, loaded once by its initializer


def _start_process_worker(path: str) -> None:
    global _WORKER_JOB
    restore_malloc_thresholds()
    with open(path, "rb") as fh:
        _WORKER_JOB = pickle.load(fh)


def restore_malloc_thresholds() -> bool:
    """Undo ``MALLOC_TRIM_THRESHOLD_`` in this process (Linux, glibc); returns whether it did.

    dask's nanny starts worker processes with MALLOC_TRIM_THRESHOLD_=65536 and also sets it in
    the environment of the process running the nanny, so process pools started there later
    inherit it. Setting it switches off glibc's adaptive mmap threshold: every array above
    128 kB is then mapped and unmapped afresh, and a physlib run (result arrays of hundreds of
    kB) takes about 1.6× as long. This sets the mmap and trim thresholds to the largest values
    glibc's adaptive rule would reach (32 MB and 64 MB). Called by the workers of the
    ``"processes"`` executor; run it on the workers of a dask cluster started elsewhere with
    ``client.run(restore_malloc_thresholds)``."""
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ or not sys.platform.startswith("linux"):
        return False
    return settle_malloc_thresholds()


def _run_chunk_in_process(chunk) -> bytes:
    return _WORKER_JOB.run_chunk(chunk)


def _run_chunk_on_dask(job: Job, chunk) -> bytes:
    return job.run_chunk(chunk)
