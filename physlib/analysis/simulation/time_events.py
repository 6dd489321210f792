"""Output times around time events (a source's step, a controller's sample instant).

A waveform switches at its edge with a tolerance of 10⁻¹⁴ of |t|, so values "just before" a
time event are evaluated a little earlier, at its left limit (:func:`left_limit`), and output
times a rounding error away from an event are moved onto it (:func:`snap_to_events`), so that
no row shows the post-edge value as if it came before the edge. Where an input has an edge at
t_end itself, the solver stops at its left limit (:func:`run_events`): no step crosses the
jump, and the rows at t_end are solved there from the states reached.
"""
from __future__ import annotations

import numpy as np

from ...core.arrays import sorted_unique

LEFT_LIMIT = 1e-12     # offset of left-limit evaluations, relative to the run's time scale


def left_limit(t: float, t0: float, t_end: float) -> float:
    """The time at which values "just before" a time event at ``t`` are evaluated: earlier by
    1e-12 of the run's time scale, clearly before the edge tolerance of waveforms (10⁻¹⁴ of
    |t|), so a waveform there has its pre-edge value, while continuous inputs move by a
    negligible 1e-12 relative."""
    return t - LEFT_LIMIT * max(abs(t), t_end - t0)


def run_events(model, p: np.ndarray, t0: float, t_end: float) -> tuple[list[float], float]:
    """The time events of a run over [t0, t_end] with the parameter vector ``p``, and the time
    at which the run ends: t_end, or its left limit where an input has an edge at t_end (a
    pulse train whose period divides the horizon). A solver step onto such an edge sees the jump:
    IDA cut its steps to femtoseconds towards it, and the last one crossed it (two diodes at
    microvolts came out of it with the wrong mode, and the run stopped)."""
    end = left_limit(t_end, t0, t_end)
    events = model.time_events(p, t0, t_end + (t_end - end))
    inside = [te for te in events if te < end]
    return inside, (end if len(inside) < len(events) else t_end)


def snap_to_events(grid: np.ndarray, events, t0: float, t_end: float) -> np.ndarray:
    """Output times with those within two left-limit offsets of a time event moved onto it: a
    grid point a rounding error before an edge would otherwise be evaluated after the edge
    (the waveform's edge tolerance) and show the post-edge value as if before it."""
    if not len(events):
        return grid
    events = np.asarray(sorted(events))
    k = np.clip(np.searchsorted(events, grid), 1, len(events)) - 1
    nearest = np.where(np.abs(events[np.minimum(k + 1, len(events) - 1)] - grid)
                       < np.abs(events[k] - grid), events[np.minimum(k + 1, len(events) - 1)], events[k])
    close = np.abs(nearest - grid) <= 2 * LEFT_LIMIT * np.maximum(np.abs(grid), t_end - t0)
    return sorted_unique(np.where(close, nearest, grid))
