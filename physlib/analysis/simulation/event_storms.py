"""The errors that stop a run whose events chase each other (an event storm), naming where.

Two checks of :class:`~physlib.analysis.simulation.events.HybridStepper` raise them: more than
``max_events`` events in a row each with its guard still within the zero band of the one
before (a sliding mode the events chase, however far apart the band lets them be), and more
than ``max_events`` events within a microsecond (relative) of each other.
"""
from __future__ import annotations

from ...core.errors import PhyslibError


class EventStormError(PhyslibError):
    """Events chase each other: the model chatters (or integration error decides a mode)."""


def chattering_storm(components: list[str], count: int, t_first: float, t_last: float, zero_band: float,
                     rtol: float, atol: float) -> EventStormError:
    """``count`` events in a row between t_first and t_last [s], each released from the zero band."""
    return EventStormError(
        f"event storm: {count} events in a row between t = {t_first:.10g} s and t = {t_last:.10g} s, "
        f"each with its guard still within the zero band ({zero_band:.3g}) of the one before, most "
        f"of them in {_most_frequent(components)}; the model chatters (a sliding mode: raise "
        f"max_events if this is intended)" + _tolerance_hint(rtol, atol))


def crowded_storm(components: list[str], max_events: int, span: float, t: float, rtol: float,
                  atol: float) -> EventStormError:
    """More than ``max_events`` events within ``span`` [s] around t."""
    return EventStormError(
        f"event storm: more than {max_events} events within {span:.3g} s around t = {t:.10g} s, "
        f"most of them in {_most_frequent(components)}; the model chatters (raise max_events if "
        f"this is intended)" + _tolerance_hint(rtol, atol))


def _most_frequent(names: list[str]) -> str:
    return max(set(names), key=names.count) if names else "?"


def _tolerance_hint(rtol: float, atol: float) -> str:
    """What to try when switching is decided by integration error rather than by the model."""
    return (f". If the signals at the switching element are near atol ({atol:g}) or rtol ({rtol:g}) "
            "of their size, integration error decides its mode: simulate with smaller rtol and atol")
