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

import ctypes
import difflib
import io
import itertools
import math
import multiprocessing
import numbers
import os
import pickle
import socket
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ParameterError, PhyslibError
from .options import OptionError

ANALYSES = ("simulate", "operating_point", "trim", "linearize")
# Smallest amount of work [s] a chunk should carry: about 100 times the per-task cost of the
# executor (result pickling and the pool's queue for processes, the scheduler for dask).
MIN_CHUNK_SECONDS = {"processes": 0.05, "dask": 0.2}
PROGRESS_AFTER = 3.0        # show a progress line when the estimated duration exceeds this [s]


class SweepError(PhyslibError, ValueError):
    """A sweep or Monte Carlo study was set up wrongly: no runs, a bad distribution, an executor
    that is unknown or not installed, an analysis or summary that cannot be sent to workers."""


# --- distributions -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Distribution:
    """A distribution of one parameter's value; make one with :func:`normal`, :func:`uniform` or
    :func:`lognormal`. ``nominal`` None means the model's compiled-in value of the parameter;
    with ``relative`` the spread is a fraction of the nominal value."""

    kind: str
    nominal: float | None
    spread: float
    relative: bool

    def resolve(self, name: str, model_value: float) -> tuple[float, float]:
        """(nominal value, absolute spread) for parameter ``name`` whose compiled-in value is
        ``model_value``."""
        nominal = model_value if self.nominal is None else self.nominal
        spread = self.spread * abs(nominal) if self.relative else self.spread
        if self.kind == "lognormal" and not nominal > 0:
            raise SweepError(f"monte_carlo: lognormal({nominal}, ...) for {name}: a lognormal "
                             "distribution has positive values only, so its mean must be > 0")
        return nominal, spread

    def draw(self, rng: np.random.Generator, nominal: float, spread: float) -> float:
        """One value from ``rng``; the mean is ``nominal`` and the standard deviation ``spread``
        (normal, lognormal) or the values lie in nominal ± spread (uniform)."""
        if self.kind == "normal":
            return float(rng.normal(nominal, spread))
        if self.kind == "uniform":
            return float(rng.uniform(nominal - spread, nominal + spread))
        sigma2 = math.log1p((spread / nominal) ** 2)
        return float(rng.lognormal(math.log(nominal) - sigma2 / 2, math.sqrt(sigma2)))


def normal(mean: float | None = None, sd: float = 0.0, *, relative: bool = False) -> Distribution:
    """Normal distribution with mean ``mean`` and standard deviation ``sd`` (in the parameter's
    unit, or with ``relative=True`` a fraction of the mean: ``normal(1e3, 0.01, relative=True)``
    is 1 kΩ ± 1 % (one sigma)). ``mean`` None: the model's compiled-in value. Values are not
    truncated: one the parameter's declaration refuses (a negative resistance) makes that run
    fail with a ParameterError in its row."""
    return _distribution("normal", mean, sd, relative)


def uniform(nominal: float | None = None, half_width: float = 0.0, *, relative: bool = False) -> Distribution:
    """Uniform distribution on ``nominal ± half_width`` (``relative=True``: half_width is a
    fraction of nominal, ``uniform(1e3, 0.05, relative=True)`` is a 5 % part: 950..1050 Ω).
    Its standard deviation is half_width/√3. ``nominal`` None: the model's compiled-in value."""
    return _distribution("uniform", nominal, half_width, relative)


def lognormal(mean: float | None = None, sd: float = 0.0, *, relative: bool = False) -> Distribution:
    """Lognormal distribution with mean ``mean`` (> 0) and standard deviation ``sd`` (or with
    ``relative=True`` a fraction of the mean), always positive: log(value) is normal with
    σ² = ln(1 + (sd/mean)²) and μ = ln(mean) − σ²/2. ``mean`` None: the model's compiled-in value."""
    return _distribution("lognormal", mean, sd, relative)


def _distribution(kind, nominal, spread, relative) -> Distribution:
    for label, value in (("the nominal value", nominal), ("the spread", spread)):
        if value is None and label == "the nominal value":
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise SweepError(f"{kind}(): {label} must be a finite number, got {value!r}")
    if spread < 0:
        raise SweepError(f"{kind}(): the spread must be >= 0, got {spread}")
    if not isinstance(relative, bool):
        raise SweepError(f"{kind}(): relative must be True or False, got {relative!r}")
    return Distribution(kind, None if nominal is None else float(nominal), float(spread), relative)


def sample(distributions: Mapping[str, Distribution], nominal: Mapping[str, tuple[float, float]],
           seed: int, index: int) -> dict[str, float]:
    """The parameter set of Monte Carlo run ``index``: each parameter's value comes from its own
    random stream, ``numpy.random.SeedSequence(seed, spawn_key=(index, crc32(name)))``, so it
    depends only on (seed, index, name): not on the executor, the number of workers or the
    other distributions. ``nominal``: (nominal value, absolute spread) per parameter."""
    out = {}
    for name, dist in distributions.items():
        stream = np.random.SeedSequence(seed, spawn_key=(index, zlib.crc32(name.encode())))
        out[name] = dist.draw(np.random.default_rng(stream), *nominal[name])
    return out


# --- the result table --------------------------------------------------------------------------

@dataclass
class SweepRow:
    """One run: its ``index``, ``params`` (path -> value), the ``values`` its summary returned,
    its ``result`` (when kept), ``error`` (``"SimulationError: ..."``, None if it succeeded) and
    ``seconds``, the wall time of the analysis and summary."""

    index: int
    params: dict
    values: dict = field(default_factory=dict)
    result: object = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


class SweepTable:
    """The rows of a sweep or Monte Carlo study, in run order.

    ``table[i]`` is row i (a :class:`SweepRow`); ``table["R1.R"]`` or ``table["peak"]`` a column
    over all runs as a NumPy array (NaN where a run failed); ``for row in table``; ``table.failed``
    lists the rows whose run raised; ``table.to_pandas()`` gives a DataFrame (pandas optional).
    ``seed`` is the Monte Carlo seed (None for a sweep); ``timing`` says how the runs were spread:
    ``executor``, ``workers``, ``wall`` [s] (the whole call), ``startup`` [s] (from the start of
    the parallel phase until every worker had begun its first chunk: pool or cluster start,
    model transfer), ``worker_seconds`` [s] (summed over the workers, the time from the start
    of a worker's first chunk to the end of its last), ``run_seconds`` [s] (the sum of the
    runs' own times), ``chunks`` (the chunks' sizes; the first two runs are made in the calling
    process to time a run)."""

    def __init__(self, rows: list[SweepRow], param_names: list[str], seed: int | None = None,
                 timing: dict | None = None):
        self.rows = rows
        self.param_names = param_names
        self.seed = seed
        self.timing = timing or {}

    @property
    def value_names(self) -> list[str]:
        """Names of the summary values, in the order the runs first returned them."""
        names = {}
        for row in self.rows:
            names.update(dict.fromkeys(row.values))
        return list(names)

    @property
    def columns(self) -> list[str]:
        return self.param_names + self.value_names

    @property
    def failed(self) -> list[SweepRow]:
        return [row for row in self.rows if not row.ok]

    @property
    def results(self) -> list:
        """The kept results, one per row (None where the run failed or results were not kept)."""
        return [row.result for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.column(key)
        return self.rows[key]

    def column(self, name: str) -> np.ndarray:
        """A parameter or summary value over all runs (float array with NaN for failed runs,
        or an object array with None when the values are not numbers)."""
        if name in self.param_names:
            values = [row.params.get(name) for row in self.rows]
        elif name in self.value_names:
            values = [row.values.get(name) for row in self.rows]
        else:
            raise SweepError(_unknown_name("column", name, self.columns))
        try:
            return np.array([np.nan if v is None else v for v in values], dtype=float)
        except (TypeError, ValueError):
            return np.array(values, dtype=object)

    def to_pandas(self):
        """A pandas DataFrame: one row per run, the parameters, the summary values and
        ``error``. pandas is optional: ``pip install pandas``."""
        try:
            import pandas
        except ImportError:
            raise PhyslibError("SweepTable.to_pandas() needs the pandas package: pip install pandas") from None
        data = {name: self.column(name) for name in self.columns}
        data["error"] = [row.error for row in self.rows]
        return pandas.DataFrame(data, index=pandas.Index([row.index for row in self.rows], name="run"))

    def __repr__(self):
        return (f"<SweepTable: {len(self.rows)} runs, {len(self.failed)} failed; columns "
                f"{', '.join(self.columns)}>")


# --- the runs ----------------------------------------------------------------------------------

class _Job:
    """The model and what to do with each parameter set; this object travels to the workers."""

    def __init__(self, model, analysis, summary, keep_results: bool, options: dict):
        self.model, self.analysis, self.summary = model, analysis, summary
        self.keep_results, self.options = keep_results, options

    def run(self, index: int, params: dict, strict: bool = False) -> SweepRow:
        """One run; an exception goes into the row, except an ``OptionError`` when ``strict``
        (an option error is the same for every run: the sweep stops at the first run)."""
        started = time.perf_counter()
        row = SweepRow(index, params)
        try:
            if isinstance(self.analysis, str):
                result = getattr(self.model, self.analysis)(**self.options, params=params)
            else:
                result = self.analysis(self.model, params, **self.options)
            if self.summary is not None:
                values = self.summary(result)
                row.values = dict(values) if isinstance(values, Mapping) else {"value": values}
            if self.keep_results or self.summary is None:
                row.result = result
        except Exception as err:    # noqa: BLE001 -- a failing run is reported in its row
            if strict and isinstance(err, OptionError):
                raise
            row.error = f"{type(err).__name__}: {err}"
        row.seconds = time.perf_counter() - started
        return row

    def run_chunk(self, chunk: list[tuple[int, dict]]) -> bytes:
        """The rows of a chunk, pickled with the worker's copy of the model replaced by a
        reference, so that results do not carry the model back (the caller's model takes its
        place); with the worker's identity and the wall-clock start and end of the chunk."""
        began = time.time()
        rows = [self.run(index, params) for index, params in chunk]
        buffer = io.BytesIO()
        _ModelRefPickler(buffer, self.model).dump(((socket.gethostname(), os.getpid()), began, time.time(), rows))
        return buffer.getvalue()


class _ModelRefPickler(pickle.Pickler):
    def __init__(self, file, model):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._model = model

    def persistent_id(self, obj):
        return "model" if obj is self._model else None


class _ModelRefUnpickler(pickle.Unpickler):
    def __init__(self, file, model):
        super().__init__(file)
        self._model = model

    def persistent_load(self, pid):
        return self._model


_WORKER_JOB: _Job | None = None     # a process worker's job, loaded once by its initializer


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
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3         # glibc's mallopt parameter numbers
    return bool(libc.mallopt(m_mmap_threshold, 32 << 20)) and bool(libc.mallopt(m_trim_threshold, 64 << 20))


def _run_chunk_in_process(chunk) -> bytes:
    return _WORKER_JOB.run_chunk(chunk)


def _run_chunk_on_dask(job: _Job, chunk) -> bytes:
    return job.run_chunk(chunk)


# --- public entry points -----------------------------------------------------------------------

def sweep(sim, params, *, analysis="simulate", summary=None, keep_results: bool = False,
          executor="serial", workers: int | None = None, progress: bool | None = None,
          **options) -> SweepTable:
    """Run ``analysis`` on the compiled model ``sim`` once per parameter set.

    params: a grid, ``{"R1.R": [1e3, 2e3], "C1.C": [1e-6, 2e-6]}`` (every combination, the
    last name varying fastest, as ``itertools.product``), or a table, a list of dicts
    (``[{"R1.R": 1e3}, {"R1.R": 2e3, "C1.C": 2e-6}]``). Values in the parameters' units (SI).
    analysis: ``"simulate"`` (the default; give ``t_end`` [s] and any other simulate option as
    keywords), ``"operating_point"``, ``"trim"``, ``"linearize"`` (``sim.<analysis>(**options,
    params=...)``), or a function ``analysis(sim, params, **options)`` returning anything.
    summary: a function of one run's result returning a dict of named quantities (or one
    value, named ``"value"``), evaluated where the run ran, so only those travel back.
    keep_results: also keep every full result (always kept when there is no summary).
    executor: ``"serial"``, ``"processes"``, ``"dask"``, a ``distributed.Client`` or a
    scheduler address (see :mod:`physlib.analysis.sweeps`); workers: number of processes for
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
    compiled_in, nominal = sim.parameters, {}
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
    from ..assembly.compiled import CompiledModel

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


def _check_names(sim, names, caller) -> None:
    known = sim.parameters
    for name in names:
        if not isinstance(name, str) or name not in known:
            raise ParameterError(f"{caller}: " + _unknown_name(f"parameter of {sim.name}", name, known))


def _unknown_name(kind: str, name, known) -> str:
    known = list(known)
    close = difflib.get_close_matches(str(name), known, n=5, cutoff=0.5)
    listed = close or known[:10]
    more = "" if close or len(known) <= 10 else f" (and {len(known) - 10} more)"
    return (f"unknown {kind} {name!r}; {'did you mean' if close else 'its names are'} "
            f"{', '.join(listed)}{more}")


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
    kind = _executor_kind(executor, workers)
    started = time.perf_counter()
    job = _Job(sim, analysis, summary, keep_results, options)
    rows: list[SweepRow | None] = [None] * len(runs)
    # The first runs here: they time one run (the second, with the caches the first built)
    # and show option errors before any worker starts.
    first = range(len(runs)) if kind == "serial" else range(min(2, len(runs)))
    bar = _Progress(len(runs), progress)
    for i in first:
        rows[i] = job.run(i, runs[i], strict=True)
        if i == min(1, len(runs) - 1):
            per_run = rows[i].seconds
            parallel = 1 if kind == "serial" else _workers_hint(kind, executor, workers)
            bar.estimate(per_run * len(runs) / parallel)
        bar.add([rows[i]])
    timing = {"executor": kind, "workers": 1, "startup": 0.0, "worker_seconds": 0.0, "chunks": []}
    pending = [(i, runs[i]) for i in range(len(runs)) if rows[i] is None]
    if pending:
        runner = _ProcessRunner if kind == "processes" else _DaskRunner
        runner(job, executor, workers, per_run, pending, rows, bar, timing).run()
    bar.close()
    timing["wall"] = time.perf_counter() - started
    timing["run_seconds"] = sum(row.seconds for row in rows)
    return SweepTable(rows, names, seed, timing)


def _executor_kind(executor, workers) -> str:
    if isinstance(executor, str):
        if executor in ("serial", "processes"):
            if executor == "serial" and workers is not None:
                raise SweepError("sweep: workers= applies to executor 'processes' or 'dask', not 'serial'")
            return executor
        if executor == "dask" or "://" in executor:
            _import_distributed(executor)
            return "dask"
        raise SweepError(f"sweep: unknown executor {executor!r}; give 'serial', 'processes', 'dask', "
                         "a dask.distributed Client or a scheduler address such as 'tcp://host:8786'")
    if _is_client(executor):
        if workers is not None:
            raise SweepError("sweep: with a dask Client the cluster decides the number of workers; "
                             "leave out workers=")
        return "dask"
    raise SweepError(f"sweep: executor must be 'serial', 'processes', 'dask', a dask.distributed Client "
                     f"or a scheduler address, got {executor!r:.60}")


def _is_client(obj) -> bool:
    cls = type(obj)
    return cls.__name__ == "Client" and cls.__module__.split(".")[0] == "distributed"


def _import_distributed(executor):
    try:
        import distributed
    except ImportError:
        raise SweepError(f"executor {executor!r} needs dask.distributed, which is not installed: "
                         "pip install physlib[dask]") from None
    return distributed


def _workers_hint(kind, executor, workers) -> int:
    """The number of workers, for the time estimate (before the pool or cluster is up)."""
    if workers is not None:
        return workers
    if kind == "dask" and _is_client(executor):
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


class _Runner:
    """Sends the pending runs to workers in chunks and files the rows that come back."""

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
        worker, began, ended, rows = _ModelRefUnpickler(io.BytesIO(payload), self.job.model).load()
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


class _ProcessRunner(_Runner):
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


class _DaskRunner(_Runner):
    kind = "dask"

    def run(self) -> None:
        phase_start = time.time()
        distributed = _import_distributed(self.executor)
        own = not _is_client(self.executor)
        if own and self.executor == "dask":
            # Workers without dask's MALLOC_TRIM_THRESHOLD_ (see restore_malloc_thresholds).
            import dask

            with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
                cluster = distributed.LocalCluster(n_workers=self.workers or os.cpu_count() or 1,
                                                   threads_per_worker=1, processes=True,
                                                   dashboard_address=None)
            client = distributed.Client(cluster)
        else:
            cluster, client = None, (distributed.Client(self.executor) if own else self.executor)
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
            if own:
                client.close()
                if cluster is not None:
                    cluster.close()


class _Progress:
    """``sweep: 120/400 runs (2 failed), 4.1 s, about 9 s left`` on stderr, rewritten in place at
    most four times a second; shown when asked (True) or, by default, when the estimated
    duration exceeds PROGRESS_AFTER. The time left is extrapolated from the runs finished since
    ``rate_from`` (time, runs done then): the start, or when the first worker's results came, so
    that starting a pool does not count as slow runs."""

    def __init__(self, total: int, enabled: bool | None):
        if enabled is not None and not isinstance(enabled, bool):
            raise SweepError(f"sweep: progress must be True, False or None, got {enabled!r}")
        self.total, self.enabled, self.started, self.shown = total, enabled, time.perf_counter(), 0.0
        self.done = self.failed = 0
        self.rate_from: tuple[float, int] | None = None
        self.active = False

    def estimate(self, seconds: float) -> None:
        if self.enabled is None:
            self.enabled = seconds > PROGRESS_AFTER

    def add(self, rows: list[SweepRow]) -> None:
        """Count finished runs and redraw the line if it is due."""
        self.done += len(rows)
        self.failed += sum(not row.ok for row in rows)
        now = time.perf_counter()
        if not self.enabled or (now - self.shown < 0.25 and self.done < self.total):
            return
        since, done_then = self.rate_from or (self.started, 0)
        rate = (self.done - done_then) / (now - since) if self.done > done_then else 0.0
        left = f", about {(self.total - self.done) / rate:.0f} s left " if rate and self.done < self.total else " " * 18
        failures = f" ({self.failed} failed)" if self.failed else ""
        sys.stderr.write(f"\rsweep: {self.done}/{self.total} runs{failures}, {now - self.started:.1f} s{left}")
        sys.stderr.flush()
        self.shown, self.active = now, True

    def close(self) -> None:
        if self.active:
            sys.stderr.write("\n")
            sys.stderr.flush()
