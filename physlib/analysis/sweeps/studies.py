"""Parameter sweeps and Monte Carlo studies of one compiled model, serially, in local processes or
on a dask.distributed cluster.

:func:`sweep` runs an analysis (``"simulate"`` by default, or any function of the compiled model
and a parameter set) once per parameter set of a grid or a table; :func:`monte_carlo` draws the
parameter sets from distributions (:func:`normal`, :func:`uniform`, :func:`lognormal`). Both return
a :class:`SweepTable`: one row per run with its parameters, the quantities a ``summary`` function
took from its result, optionally the full result, and the error if the run raised.

How runs are spread (``executor=``):

* ``"serial"``: one after the other in this process.
* ``"processes"``: a pool of ``workers`` fresh processes (``spawn``, so no CasADi state is
  inherited from this one). The compiled model, analysis and summary are pickled once (to a
  temporary file) and loaded once per worker by the pool's initializer. Starting the pool
  costs 1–2 s (each worker imports physlib), so processes pay off for sweeps of more than a
  few seconds.
* dask.distributed (optional: ``pip install physlib[dask]``): a ``distributed.Client``, a
  scheduler address (``"tcp://10.0.0.5:8786"``) or ``"dask"`` (a ``LocalCluster`` of ``workers``
  single-threaded worker processes started for this sweep). The model goes to every worker
  once (``scatter(..., broadcast=True)``) and stays there for all chunks. Give workers one
  thread each: chunks in threads of one worker share its copy of the model and run one after
  the other. dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which makes physlib
  runs about 1.6× slower (see :func:`restore_malloc_thresholds`); ``"dask"`` starts its
  cluster without it; for other clusters, start them inside ``dask.config.set(
  {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})`` or run
  ``client.run(restore_malloc_thresholds)`` once.

In both parallel cases the first two runs are made here to time one run, and the remaining runs
are grouped into chunks that each last well above the per-task cost of the executor
(measured by ``benchmarks/bench_sweeps.py``: about 1 ms a chunk for processes, 2 ms for dask;
chunks carry at least 50 ms and 0.2 s of work), largest first and shrinking towards the end
(guided scheduling) so that workers finish together. A
chunk's runs go one after the other in the worker's one thread: CasADi's own parallel maps are
not used (integrators in CasADi thread maps crash or give wrong results).

Results do not depend on the executor: every run evaluates the same CasADi functions (pickled
as ``Function.serialize()`` strings) with the same inputs, so a sweep gives the same numbers bit
for bit serially, in processes and on dask; a Monte Carlo sample depends only on ``(seed, run
index, parameter name)``.
"""
from __future__ import annotations

import itertools
import numbers
import time
from collections.abc import Mapping

import numpy as np

from ...core.errors import ParameterError
from .distributions import Distribution, lognormal, normal, sample, uniform
from .executors import (MIN_CHUNK_SECONDS, DaskRunner, ProcessRunner, chunk_sizes, executor_kind,
                        restore_malloc_thresholds, workers_hint)
from .jobs import Job, Progress
from .table import SweepError, SweepRow, SweepTable, unknown_name

__all__ = ["sweep", "monte_carlo", "normal", "uniform", "lognormal", "Distribution", "sample", "SweepTable",
           "SweepRow", "SweepError", "chunk_sizes", "MIN_CHUNK_SECONDS", "restore_malloc_thresholds"]

ANALYSES = ("simulate", "operating_point", "trim", "linearize")


# --- public entry points -----------------------------------------------------------------------

def sweep(sim, params, *, analysis="simulate", summary=None, keep_results: bool = False,
          executor="serial", workers: int | None = None, progress: bool | None = None,
          **options) -> SweepTable:
    """Run ``analysis`` on the compiled model ``sim`` once per parameter set.

    params: a grid, ``{"R1.R": [1e3, 2e3], "C1.C": [1e-6, 2e-6]}`` (every combination, the
    last name varying fastest, as ``itertools.product``), or a table, a list of dicts
    (``[{"R1.R": 1e3}, {"R1.R": 2e3, "C1.C": 2e-6}]``). Values in the parameters' units (SI).
    Model parameters (``sim.model_parameters``, e.g. a SPICE deck's ``.param`` names) are
    named like parameter paths: ``{"rload": [1e3, 2e3]}``.
    analysis: ``"simulate"`` (the default; give ``t_end`` [s] and any other simulate option as
    keywords), ``"operating_point"``, ``"trim"``, ``"linearize"`` (``sim.<analysis>(**options,
    params=...)``), or a function ``analysis(sim, params, **options)`` returning anything.
    summary: a function of one run's result returning a dict of named quantities (or one
    value, named ``"value"``), evaluated where the run ran, so only those travel back.
    keep_results: also keep every full result (always kept when there is no summary).
    executor: ``"serial"``, ``"processes"``, ``"dask"``, a ``distributed.Client`` or a
    scheduler address (see :mod:`physlib.analysis.sweeps.studies`); workers: number of processes for
    ``"processes"`` and ``"dask"`` (default: the number of CPUs).
    progress: a progress line on stderr; default: when the sweep is estimated to take more than
    3 s. For ``"processes"`` the analysis and summary are pickled by reference: define them with
    ``def`` at the top level of a module (dask also takes lambdas).

    A run that raises is recorded in its row (``row.error``) and the others go on; an option
    error (``OptionError``: the same for every run) stops the sweep at the first run.
    Returns a :class:`SweepTable`.
    """
    names, runs = _parameter_sets(sim, params)
    return _execute(sim, names, runs, analysis, summary, keep_results, executor, workers, progress,
                    options, seed=None)


def monte_carlo(sim, distributions: Mapping[str, Distribution], *, n: int | None = None,
                seed: int | None = None, analysis="simulate", summary=None, keep_results: bool = False,
                executor="serial", workers: int | None = None, progress: bool | None = None,
                **options) -> SweepTable:
    """``n`` runs of ``analysis`` on ``sim`` with parameters drawn from ``distributions``
    (``{"R1.R": normal(1e3, 0.01, relative=True), "C1.C": uniform(None, 0.05, relative=True)}``:
    1 kΩ with a 1 % standard deviation, C1.C within ±5 % of its compiled-in value).

    The value of each parameter in run i is drawn from its own stream seeded by (seed, i,
    parameter name) (:func:`sample`), so the samples and results are the same on 1 or 1000
    workers and with any executor. seed: a non-negative integer; None draws one, which is kept
    in ``table.seed`` so the study can be repeated. The other arguments are :func:`sweep`'s.
    """
    _check_model(sim, "monte_carlo")
    if n is None:
        raise SweepError("monte_carlo needs the number of runs: n=1000, for example")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise SweepError(f"monte_carlo: n must be a positive integer (the number of runs), got {n!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**63)
    elif isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise SweepError(f"monte_carlo: seed must be a non-negative integer, got {seed!r}")
    if not isinstance(distributions, Mapping) or not distributions:
        raise SweepError("monte_carlo: give distributions as a dict of parameter paths to "
                         "distributions, e.g. {'R1.R': normal(1e3, 0.01, relative=True)}")
    _check_names(sim, list(distributions), "monte_carlo")
    compiled_in, nominal = _settable(sim), {}
    for name, dist in distributions.items():
        if not isinstance(dist, Distribution):
            raise SweepError(f"monte_carlo: the distribution of {name} must be made by normal(), "
                             f"uniform() or lognormal(), got {dist!r}")
        nominal[name] = dist.resolve(name, compiled_in[name])
    runs = [sample(distributions, nominal, int(seed), i) for i in range(int(n))]
    return _execute(sim, list(distributions), runs, analysis, summary, keep_results, executor, workers,
                    progress, options, seed=int(seed))


# --- set-up checks -----------------------------------------------------------------------------

def _check_model(sim, caller) -> None:
    from ...assembly.compiled import CompiledModel

    if not isinstance(sim, CompiledModel):
        raise SweepError(f"{caller} runs a compiled model: give it model.compile(), got {type(sim).__name__}")


def _parameter_sets(sim, params) -> tuple[list[str], list[dict]]:
    _check_model(sim, "sweep")
    if isinstance(params, Mapping):
        names = list(params)
        _check_names(sim, names, "sweep")
        axes = []
        for name, values in params.items():
            if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
                raise SweepError(f"sweep: give the values of {name} as a list, e.g. {{{name!r}: "
                                 f"[1.0, 2.0]}}; got {values!r:.60}")
            values = np.ravel(values).tolist() if isinstance(values, np.ndarray) else list(values)
            if not values:
                raise SweepError(f"sweep: the list of values of {name} is empty, so the grid has no runs")
            axes.append(values)
        return names, [dict(zip(names, combo)) for combo in itertools.product(*axes)]
    if isinstance(params, (list, tuple)):
        if not params:
            raise SweepError("sweep: the table of parameter sets is empty")
        names: dict[str, None] = {}
        for k, row in enumerate(params):
            if not isinstance(row, Mapping):
                raise SweepError(f"sweep: parameter set {k} is {row!r:.60}; give each as a dict of "
                                 "parameter paths to values")
            names.update(dict.fromkeys(row))
        _check_names(sim, list(names), "sweep")
        return list(names), [dict(row) for row in params]
    raise SweepError("sweep: params must be a grid (dict of parameter paths to lists of values) or a "
                     f"table (list of dicts); got {type(params).__name__}")


def _settable(sim) -> dict[str, float]:
    """Every name a run's ``params`` may set: parameter paths and model parameters, with their
    compiled-in values."""
    return {**sim.model_parameters, **sim.parameters}


def _check_names(sim, names, caller) -> None:
    known = _settable(sim)
    for name in names:
        if not isinstance(name, str) or name not in known:
            sim.refuse_structural(name)     # named as such, not as unknown
            raise ParameterError(f"{caller}: " + unknown_name(f"parameter of {sim.name}", name, known))


def _check_analysis(analysis, options) -> None:
    if isinstance(analysis, str):
        if analysis not in ANALYSES:
            raise SweepError(f"sweep: unknown analysis {analysis!r}; give one of "
                             f"{', '.join(ANALYSES)} or a function analysis(sim, params, **options)")
        if "params" in options:
            raise SweepError("sweep: the parameters of each run come from the sweep; pass fixed values "
                             "as one-element lists of the grid instead of params=")
        if analysis == "simulate" and "t_end" not in options:
            raise SweepError("sweep: analysis 'simulate' needs the end time: t_end=... [s]")
    elif not callable(analysis):
        raise SweepError(f"sweep: analysis must be one of {', '.join(ANALYSES)} or a function, got {analysis!r:.60}")


# --- executing ---------------------------------------------------------------------------------

def _execute(sim, names, runs, analysis, summary, keep_results, executor, workers, progress, options,
             seed) -> SweepTable:
    _check_analysis(analysis, options)
    if summary is not None and not callable(summary):
        raise SweepError(f"sweep: summary must be a function of one run's result, got {summary!r:.60}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral)
                                or workers < 1):
        raise SweepError(f"sweep: workers must be a positive integer, got {workers!r}")
    kind = executor_kind(executor, workers)
    started = time.perf_counter()
    job = Job(sim, analysis, summary, keep_results, options)
    rows: list[SweepRow | None] = [None] * len(runs)
    # The first runs here: they time one run (the second, with the caches the first built)
    # and show option errors before any worker starts.
    first = range(len(runs)) if kind == "serial" else range(min(2, len(runs)))
    bar = Progress(len(runs), progress)
    for i in first:
        rows[i] = job.run(i, runs[i], strict=True)
        if clash := [name for name in rows[i].values if name in names]:
            raise SweepError(f"sweep: the summary value {clash[0]!r} has the name of a swept parameter, "
                             "whose column it would hide; give it another name")
        if i == min(1, len(runs) - 1):
            per_run = rows[i].seconds
            parallel = 1 if kind == "serial" else workers_hint(kind, executor, workers)
            bar.estimate(per_run * len(runs) / parallel)
        bar.add([rows[i]])
    timing = {"executor": kind, "workers": 1, "startup": 0.0, "worker_seconds": 0.0, "chunks": []}
    pending = [(i, runs[i]) for i in range(len(runs)) if rows[i] is None]
    if pending:
        runner = ProcessRunner if kind == "processes" else DaskRunner
        runner(job, executor, workers, per_run, pending, rows, bar, timing).run()
    bar.close()
    timing["wall"] = time.perf_counter() - started
    timing["run_seconds"] = sum(row.seconds for row in rows)
    _complete_params(sim, names, rows)
    return SweepTable(rows, names, seed, timing)


def _complete_params(sim, names, rows) -> None:
    """Give each row the value its run used of every swept name it did not set itself (the
    compiled-in one, or one computed from the model parameters it set), so that a column is
    what the runs used, not NaN, which the table keeps for failed runs' summary values."""
    for row in rows:
        unset = [name for name in names if name not in row.params]
        if not unset:
            continue
        p, model_parameters = sim.parameter_vector(row.params), sim.model_parameter_values(row.params)
        row.params = {**row.params, **{name: model_parameters[name] if name in model_parameters
                                       else float(p[sim.parameter_slot(name)]) for name in unset}}
