"""The events of a hybrid run as the sensitivities need them: for each event its instant and
cause, the point just before it, every round of its event iteration (modes and discrete
variables before and after, the states before and after their projection) and the point the
run went on from. Recorded through the simulator's event trace
(:mod:`physlib.analysis.simulation.event_trace`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Round:
    """One round of an event iteration: the parameter vector (modes, discrete variables) went
    from ``p_before`` to ``p_after``; the states were projected from x_in (with the algebraic
    variables z_in of the modes before) to x_out, and z_out solved in the new modes."""

    p_before: np.ndarray
    p_after: np.ndarray
    x_in: np.ndarray
    z_in: np.ndarray
    x_out: np.ndarray
    z_out: np.ndarray


@dataclass
class RecordedEvent:
    """An event at time ``t``: ``cause`` "initial", "time", "state" or "settling" (a mode change
    found by the settling look ``after`` seconds past the event before it); the point before
    it (x, z, p), the guards that fired, the rounds, and the point after it."""

    t: float
    cause: str
    x: np.ndarray
    z: np.ndarray
    p: np.ndarray
    fired: np.ndarray
    rounds: list = field(default_factory=list)
    x_after: np.ndarray | None = None
    z_after: np.ndarray | None = None
    p_after: np.ndarray | None = None


class EventRecorder:
    """A trace (:mod:`physlib.analysis.simulation.event_trace`) that keeps every event that
    changed something, every time event and the start, in order."""

    def __init__(self):
        self.events: list[RecordedEvent] = []
        self._open: RecordedEvent | None = None
        self._settling = False

    def begin(self, t, x, z, p, fired, cause) -> None:
        cause = "settling" if self._settling else cause
        self._settling = False
        self._open = RecordedEvent(float(t), cause, x.copy(), z.copy(), p.copy(), np.asarray(fired, bool).copy())

    def round(self, t, p_before, p_after, x_in, z_in, x_out, z_out) -> None:
        self._open.rounds.append(Round(p_before.copy(), p_after.copy(), x_in.copy(), z_in.copy(),
                                       x_out.copy(), z_out.copy()))

    def end(self, x, z, p) -> None:
        event, self._open = self._open, None
        if event is None or (not event.rounds and event.cause not in ("time", "initial")):
            return          # nothing changed: the run goes on as if there had been no event
        event.x_after, event.z_after, event.p_after = x.copy(), z.copy(), p.copy()
        self.events.append(event)

    def settling(self, t) -> None:
        self._settling = True
