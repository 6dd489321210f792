"""What a simulation run did, as SUNDIALS and Dymola report it: ``res.stats``.

A run records its counters in a :class:`RunStats` made current for its duration
(:func:`recording`); the solver calls (:mod:`physlib.analysis.simulation.integrators`), the
event iteration and the fixed-step loop add to the current one, if any, so nothing has to be
passed through their signatures and a call outside a run (``res.at(t)`` continuing a result)
counts nowhere.

``res.stats`` is a dict:

* ``steps``: solver steps (SUNDIALS' ``nsteps``; fixed-step runs: steps of ``dt``).
* ``residual_evaluations``, ``jacobian_evaluations``: evaluations of the DAE residual or ODE
  right-hand side and of its Jacobian by the variable-step solvers (None for fixed-step runs,
  whose compiled Newton does not count them).
* ``error_test_failures``, ``nonlinear_iterations``: SUNDIALS' ``netfails`` and ``nniters``.
* ``solver_starts``: solver initializations (each call of a SUNDIALS integrator; 1 plus the
  event instants for a fixed-step run).
* ``events``: event instants by kind, ``{"state": n, "time": n}`` (a sample instant of a
  discrete block is a time event); ``event_iterations``: rounds of the event iteration that
  changed a mode or a discrete variable.
* ``seconds``: wall time of the run (``total``) and of its ``initialization`` (consistent
  start), ``integration`` (inside the solvers; for a fixed-step run, the step loop) and
  ``events`` (locating, iterating and settling them, solver time excluded).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar = ContextVar("physlib_run_stats", default=None)

SOLVER_COUNTERS = {"nsteps": "steps", "nfevals": "residual_evaluations",
                   "nlinsetups": "jacobian_evaluations", "netfails": "error_test_failures",
                   "nniters": "nonlinear_iterations"}


class RunStats:
    """The counters of one run (see the module docstring)."""

    def __init__(self, fixed_step: bool = False):
        self.fixed_step = fixed_step
        self.counts = dict.fromkeys(SOLVER_COUNTERS.values(), 0)
        self.counts.update(solver_starts=0, event_iterations=0)
        self.events = {"state": 0, "time": 0}
        self.seconds = {"initialization": 0.0, "integration": 0.0, "events": 0.0}
        self._started = time.perf_counter()
        self.progress = None        # a SimulationProgress, told how far the run has come
        self.reached_t = 0.0

    def reached(self, t: float) -> None:
        """The run has come to time t [s]."""
        self.reached_t = t
        if self.progress is not None:
            self.progress.reached(t, sum(self.events.values()))

    def solver_call(self, counters: dict, seconds: float) -> None:
        """One call of a SUNDIALS integrator: its ``stats()`` and its wall time."""
        self.counts["solver_starts"] += 1
        self.add_solver_counters(counters)
        self.seconds["integration"] += seconds

    def add_solver_counters(self, counters: dict) -> None:
        """Add a solver's counters (SUNDIALS' names: ``nsteps``, ``nfevals``, ...)."""
        for key, name in SOLVER_COUNTERS.items():
            self.counts[name] += int(counters.get(key, 0))

    def as_dict(self) -> dict:
        counts = dict(self.counts)
        if self.fixed_step:
            counts.update(residual_evaluations=None, jacobian_evaluations=None,
                          error_test_failures=None, nonlinear_iterations=None,
                          solver_starts=1 + sum(self.events.values()))
        seconds = dict(self.seconds, total=time.perf_counter() - self._started)
        if self.fixed_step:      # the steps run in compiled code called from the step loop
            seconds["integration"] = seconds["total"] - seconds["initialization"] - seconds["events"]
        return {**counts, "events": dict(self.events), "seconds": seconds}


def current() -> RunStats | None:
    """The counters of the run in progress in this thread (None outside a run)."""
    return _current.get()


@contextmanager
def recording(stats: RunStats):
    """Make ``stats`` the current run's counters while the block runs."""
    token = _current.set(stats)
    try:
        yield stats
    finally:
        _current.reset(token)


@contextmanager
def phase(name: str):
    """Add the wall time of the block, less the solver time inside it, to ``seconds[name]``
    of the current run (nothing outside a run)."""
    stats = _current.get()
    if stats is None:
        yield
        return
    started, solver = time.perf_counter(), stats.seconds["integration"]
    try:
        yield
    finally:
        inside = stats.seconds["integration"] - solver
        stats.seconds[name] += time.perf_counter() - started - inside


def count(name: str, kind: str | None = None, n: int = 1) -> None:
    """Add ``n`` to a counter of the current run: ``count("event_iterations")``,
    ``count("events", "state")``, ``count("steps", n=k)``."""
    stats = _current.get()
    if stats is None:
        return
    if kind is None:
        stats.counts[name] += n
    else:
        stats.events[kind] = stats.events.get(kind, 0) + n


def reached(t: float) -> None:
    """The current run has come to time t [s] (for its progress line; nothing outside a run)."""
    stats = _current.get()
    if stats is not None:
        stats.reached(t)
