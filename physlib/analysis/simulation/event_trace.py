"""What happens at each event of a hybrid run, for analyses that follow a run through its events
(parameter sensitivities, :mod:`physlib.analysis.sensitivity`, carry their derivatives across
every mode change, projection and discrete update).

While :func:`tracing` is active in a thread (or task), every
:class:`~physlib.analysis.simulation.events.HybridStepper` made there reports to the trace
given to it; otherwise to :data:`NO_TRACE`, which does nothing. The calls, in order:

* ``begin(t, x, z, p, fired, cause)``: an event iteration starts at time t from the states x and
  algebraic variables z with the parameter vector p (modes and discrete variables before it);
  ``fired``: the guards that crossed zero (all False at a time event or the start); ``cause``:
  ``"state"``, ``"time"`` or ``"initial"``.
* ``round(t, p_before, p_after, x_in, z_in, x_out, z_out)``: one round of the iteration changed
  modes or discrete variables from ``p_before`` to ``p_after``; the states were projected from
  x_in onto the constraints now active (x_out, the same values where none changed), and the
  algebraic variables solved again (z_out).
* ``end(x, z, p)``: the iteration settled there.
* ``settling(t)``: the next iteration is a settling look a moment after the event at t (its
  modes changed there: a new event, whose instant follows that of the event at t).
"""
from __future__ import annotations

import contextlib
import contextvars


class NoTrace:
    """The trace of a run that nobody follows: every call does nothing."""

    def begin(self, t, x, z, p, fired, cause) -> None:
        pass

    def round(self, t, p_before, p_after, x_in, z_in, x_out, z_out) -> None:
        pass

    def end(self, x, z, p) -> None:
        pass

    def settling(self, t) -> None:
        pass


NO_TRACE = NoTrace()
_current = contextvars.ContextVar("physlib_event_trace", default=NO_TRACE)


def current_trace():
    """The trace the hybrid runs made now report to (:data:`NO_TRACE` if none)."""
    return _current.get()


@contextlib.contextmanager
def tracing(trace):
    """Within the block, hybrid runs made in this thread report their events to ``trace`` (an
    object with the methods of :class:`NoTrace`)."""
    token = _current.set(trace)
    try:
        yield trace
    finally:
        _current.reset(token)
