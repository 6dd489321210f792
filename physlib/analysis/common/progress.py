"""A progress line on stderr for long runs and sweeps, rewritten in place.

``simulate(..., progress=True)`` and ``sweep(..., progress=True)`` show one; with the default
``None`` it appears by itself once the work is estimated to take more than
:data:`PROGRESS_AFTER` seconds (for a simulation: only on a terminal, so logs and notebooks
stay clean). The line is redrawn at most four times a second, so a run of a million steps pays
a clock reading per step, not a write.
"""
from __future__ import annotations

import sys
import time

from .options import OptionError

PROGRESS_AFTER = 3.0        # show a line when the estimated duration exceeds this [s]
REDRAW_EVERY = 0.25         # s between redraws
ESTIMATE_AFTER = 0.5        # s of work before a run's duration is extrapolated


def progress_option(value, what: str) -> bool | None:
    """``progress`` as given to ``what`` (True, False or None), else an OptionError."""
    if value is not None and not isinstance(value, bool):
        raise OptionError(f"{what}: progress must be True, False or None, got {value!r}")
    return value


class ProgressLine:
    """One line on stderr: :meth:`show` redraws it (at most every REDRAW_EVERY s unless
    ``final``), :meth:`close` ends it with a newline if anything was drawn. ``enabled``: True,
    False, or None (undecided: :meth:`decide` settles it from an estimated duration)."""

    def __init__(self, enabled: bool | None, stream=None):
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.started = time.perf_counter()
        self.shown = 0.0
        self.active = False

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def decide(self, estimated_seconds: float) -> None:
        """Turn an undecided line on when the work should take more than PROGRESS_AFTER."""
        if self.enabled is None:
            self.enabled = estimated_seconds > PROGRESS_AFTER

    def due(self) -> bool:
        return bool(self.enabled) and time.perf_counter() - self.shown >= REDRAW_EVERY

    def show(self, text: str, final: bool = False) -> None:
        if not self.enabled or not (final or self.due()):
            return
        self.stream.write("\r" + text)
        self.stream.flush()
        self.shown, self.active = time.perf_counter(), True

    def close(self) -> None:
        if self.active:
            self.stream.write("\n")
            self.stream.flush()
            self.active = False


class SimulationProgress:
    """``simulate: t = 0.0213 of 0.05 s (43 %), 85 events, 1.3 s, about 1.7 s left``.

    :meth:`reached` is called as the run advances (every solver step of a run with modes,
    every step of a fixed-step run, every segment between time events of a run without
    modes, whose solver runs a segment in one compiled call). With ``enabled`` None the line
    appears when stderr is a terminal and the run, extrapolated from its first ESTIMATE_AFTER
    seconds, would take more than PROGRESS_AFTER."""

    def __init__(self, t0: float, t_end: float, enabled: bool | None):
        if enabled is None and not _on_terminal():
            enabled = False
        self.t0, self.span = t0, t_end - t0
        self.line = ProgressLine(enabled)

    def reached(self, t: float, events: int) -> None:
        line = self.line
        if line.enabled is False:
            return
        fraction = (t - self.t0) / self.span
        if line.enabled is None:
            elapsed = line.elapsed()
            if elapsed < ESTIMATE_AFTER or fraction <= 0:
                return
            line.decide(elapsed / fraction)
        if line.due():
            line.show(self._text(t, fraction, events))

    def close(self, t: float, events: int) -> None:
        if self.line.active:
            self.line.show(self._text(t, (t - self.t0) / self.span, events), final=True)
        self.line.close()

    def _text(self, t, fraction, events) -> str:
        elapsed = self.line.elapsed()
        estimated = 0 < fraction < 1 and elapsed >= ESTIMATE_AFTER
        left = f", about {elapsed * (1 - fraction) / fraction:.0f} s left" if estimated else ""
        return (f"simulate: t = {t:.6g} of {self.t0 + self.span:.6g} s ({100 * fraction:.0f} %), "
                f"{events} events, {elapsed:.1f} s{left}   ")


def _on_terminal() -> bool:
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())
