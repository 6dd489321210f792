"""Where a fit's sensitivity runs go: the experiments of one evaluation run side by side on the
executor the fit names, one task per experiment, as a sweep's runs do
(:mod:`physlib.analysis.sweeps.executors`): ``"serial"`` (in this process), ``"processes"`` (a
pool of fresh processes kept for the whole fit) or dask (``"dask"``, a ``distributed.Client``
or a scheduler address). Every worker keeps the solver of each experiment it has run for the
next evaluation (:class:`~physlib.analysis.sensitivity.sensitivity.RepeatedSensitivity`), so
the results do not depend on the executor.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import tempfile

import numpy as np

from ...core.errors import FitError
from ..sensitivity.sensitivity import RepeatedSensitivity
from ..sweeps.executors import dask_client, executor_kind, restore_malloc_thresholds
from ..sweeps.table import SweepError


class ExperimentRuns:
    """The sensitivity runs of a fit's experiments. ``specs``: for each experiment (t_end, the
    names its runs differentiate by, its parameter values, its simulate options). It travels
    to the workers; each keeps its own solvers."""

    def __init__(self, sim, specs):
        self.sim, self.specs = sim, specs
        self._runs: dict[int, RepeatedSensitivity] = {}

    def __getstate__(self):
        return {"sim": self.sim, "specs": self.specs, "_runs": {}}

    def evaluate(self, k: int, values: dict, x0: dict, paths) -> dict:
        """{path: (values at the measurement times, ∂values/∂θ by the run's names)} of experiment
        k at the parameter ``values`` and initial values ``x0``."""
        if k not in self._runs:
            t_end, names, fixed, options = self.specs[k]
            self._runs[k] = RepeatedSensitivity(self.sim, t_end, names, fixed, **options)
        run = self._runs[k]
        sens = run(values, x0)
        return {path: (sens[path], np.column_stack([sens.derivative(path, n) for n in run.names]))
                for path in paths}

    def close(self) -> None:
        for run in self._runs.values():
            run.close()
        self._runs.clear()


def executor_for(runs: ExperimentRuns, executor, workers):
    """The object whose ``map(tasks)`` evaluates tasks (k, values, x0, paths) of ``runs`` on
    ``executor``, in order, and whose ``close()`` stops its workers."""
    try:
        kind = executor_kind(executor, workers)
    except SweepError as err:
        raise FitError(str(err).replace("sweep:", "fit:")) from None
    return {"serial": Serial, "processes": Processes, "dask": Dask}[kind](runs, executor, workers)


class Serial:
    def __init__(self, runs, executor=None, workers=None):
        self.runs = runs

    def map(self, tasks) -> list:
        return [self.runs.evaluate(*task) for task in tasks]

    def close(self) -> None:
        self.runs.close()


class Processes:
    """A pool of ``workers`` spawned processes (at most one per experiment), each loading the
    runs once from a temporary file (see :class:`~physlib.analysis.sweeps.executors.ProcessRunner`)."""

    def __init__(self, runs, executor, workers):
        from concurrent.futures import ProcessPoolExecutor

        count = min(workers or os.cpu_count() or 1, len(runs.specs))
        with tempfile.NamedTemporaryFile(prefix="physlib-fit-", suffix=".pickle", delete=False) as fh:
            try:
                pickle.dump(runs, fh, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as err:    # noqa: BLE001 -- whatever pickling raised means the same
                raise FitError(f"fit: executor 'processes' sends the model to other processes with "
                               f"pickle, which failed: {err}") from err
        self.path = fh.name
        self.pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start_worker, initargs=(self.path,))

    def map(self, tasks) -> list:
        return [future.result() for future in [self.pool.submit(_evaluate_in_worker, *task) for task in tasks]]

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        os.unlink(self.path)


class Dask:
    """Tasks on a dask cluster, the runs sent to every worker once."""

    def __init__(self, runs, executor, workers):
        self.client, self._close = dask_client(executor, workers)
        self.runs = self.client.scatter(runs, broadcast=True, hash=False)

    def map(self, tasks) -> list:
        futures = [self.client.submit(_evaluate_on_dask, self.runs, *task, pure=False) for task in tasks]
        return self.client.gather(futures)

    def close(self) -> None:
        self._close()


_WORKER_RUNS: ExperimentRuns | None = None      # a process worker's runs, loaded by its initializer


def _start_worker(path: str) -> None:
    global _WORKER_RUNS
    restore_malloc_thresholds()
    with open(path, "rb") as fh:
        _WORKER_RUNS = pickle.load(fh)


def _evaluate_in_worker(*task):
    return _WORKER_RUNS.evaluate(*task)


def _evaluate_on_dask(runs: ExperimentRuns, *task):
    return runs.evaluate(*task)
