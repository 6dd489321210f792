"""The work of one sweep: the :class:`Job` that runs parameter sets (it travels to the workers),
the pickling that sends rows back without the model, and the :class:`Progress` line.

A job's rows come back pickled with the worker's copy of the compiled model replaced by a
reference, so that results do not carry the model back: the caller's model takes its place.
"""
from __future__ import annotations

import io
import os
import pickle
import socket
import time
from collections.abc import Mapping

from ..common.options import OptionError
from ..common.progress import ProgressLine
from .table import SweepError, SweepRow

class Job:
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
        ModelRefPickler(buffer, self.model).dump(((socket.gethostname(), os.getpid()), began, time.time(), rows))
        return buffer.getvalue()


class ModelRefPickler(pickle.Pickler):
    """Pickles ``model`` as a persistent reference instead of its contents."""

    def __init__(self, file, model):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._model = model

    def persistent_id(self, obj):
        return "model" if obj is self._model else None


class ModelRefUnpickler(pickle.Unpickler):
    """Unpickles the references :class:`ModelRefPickler` left as ``model``."""

    def __init__(self, file, model):
        super().__init__(file)
        self._model = model

    def persistent_load(self, pid):
        return self._model


class Progress:
    """``sweep: 120/400 runs (2 failed), 4.1 s, about 9 s left`` on stderr (a
    :class:`~physlib.analysis.common.progress.ProgressLine`), shown when asked (True) or, by
    default, when the estimated duration exceeds PROGRESS_AFTER. The time left is extrapolated
    from the runs finished since ``rate_from`` (time, runs done then): the start, or when the
    first worker's results came, so that starting a pool does not count as slow runs."""

    def __init__(self, total: int, enabled: bool | None):
        if enabled is not None and not isinstance(enabled, bool):
            raise SweepError(f"sweep: progress must be True, False or None, got {enabled!r}")
        self.total, self.line = total, ProgressLine(enabled)
        self.done = self.failed = 0
        self.rate_from: tuple[float, int] | None = None

    @property
    def enabled(self) -> bool | None:
        return self.line.enabled

    def estimate(self, seconds: float) -> None:
        self.line.decide(seconds)

    def add(self, rows: list[SweepRow]) -> None:
        """Count finished runs and redraw the line if it is due."""
        self.done += len(rows)
        self.failed += sum(not row.ok for row in rows)
        final = self.done >= self.total
        if not self.line.enabled or not (final or self.line.due()):
            return
        now = time.perf_counter()
        since, done_then = self.rate_from or (self.line.started, 0)
        rate = (self.done - done_then) / (now - since) if self.done > done_then else 0.0
        left = f", about {(self.total - self.done) / rate:.0f} s left " if rate and not final else " " * 18
        failures = f" ({self.failed} failed)" if self.failed else ""
        self.line.show(f"sweep: {self.done}/{self.total} runs{failures}, {self.line.elapsed():.1f} s{left}", final)

    def close(self) -> None:
        self.line.close()
