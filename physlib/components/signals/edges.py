"""The edges of waveforms and of sampled blocks as time events: the tolerance within which a time
counts as at an edge, the position in a period (SymPy, for the equations), the periods a run
meets (for ``time_events``) and the next edge after a time (physlib.core.logic, for
``next_time_event``, which also compiles to C). Shared by the waveforms, the tables, the
pulse-width modulator and the sampled blocks, so that all of them place an edge alike."""
import math

from ...core import symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import absolute, minimum, next_instant, where

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["EDGE_TOLERANCE", "MAX_PERIODS", "cycle", "periods", "first_after", "next_periodic"]

EDGE_TOLERANCE = 1e-14   # relative tolerance of waveform edge times (see cycle)
MAX_PERIODS = 100_000    # periods of a periodic waveform in one run (each edge is a solver stop)


def cycle(t0, period):
    """(time since the start of the current period, edge tolerance) at time ``t`` for a waveform
    that repeats every ``period`` from ``t0`` on, as SymPy expressions.

    Edge times are computed in floating point, here and in ``time_events``; a time within
    EDGE_TOLERANCE·(|t| + |t0|) before an edge (a few hundred rounding errors, far below the
    left-limit offset the solvers use, 1e-12 of the run) counts as reached, so the value at an
    edge is the value after it and just before it the value before. The time since the period
    start is then at least −tolerance."""
    t = symbols.t
    eps = EDGE_TOLERANCE * (sp.Abs(t) + sp.Abs(t0))
    cycles = sp.floor((t - t0 + eps) / period)
    return t - t0 - cycles * period, eps


def periods(waveform, t0, period, t_start, t_stop):
    """Indices k of the periods [t0 + k·period, t0 + (k + 1)·period) that meet [t_start, t_stop]."""
    first = max(0, math.floor((t_start - t0) / period))
    last = math.ceil((t_stop - t0) / period)
    if last - first > MAX_PERIODS:
        raise ParameterError(f"{type(waveform).__name__} {waveform.name!r}: {last - first} periods "
                             "in the simulated interval; use a longer period or a shorter run")
    return range(first, last + 1)


def first_after(t, *instants):
    """The first of ``instants`` [s] not reached at t (+inf if all are): later than t by more
    than the edge tolerance of :func:`cycle`, so a t at an instant up to rounding is past it.
    For :meth:`~physlib.core.component.Component.next_time_event`, with physlib.core.logic."""
    return minimum(*(where(te > t + EDGE_TOLERANCE * (absolute(t) + absolute(te)), te, math.inf)
                     for te in instants))


def next_periodic(t, t0, period, offsets):
    """The first instant t0 + offset + k·period (k = 0, 1, ...; offset from ``offsets`` [s])
    not reached at t, with the edge tolerance of :func:`cycle`; for ``next_time_event``."""
    tolerance = EDGE_TOLERANCE * (absolute(t) + absolute(t0))
    return minimum(*(next_instant(t, t0 + offset, period, tolerance) for offset in offsets))
