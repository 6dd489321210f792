"""What the FMU tests share: the example models, FMPy runs of exported FMUs, and the rows and
mode changes compared in them (FMPy itself is imported by the test modules, which skip without
it)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(name: str):
    """The module examples/<name>.py."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relative_error(a, b) -> float:
    """max |a − b| over the range of ``b``."""
    return float(np.max(np.abs(a - b)) / max(np.ptp(b), 1e-300))


def away_from_events(times: np.ndarray) -> np.ndarray:
    """The rows of an FMPy run with ``record_events=True`` that are not at an event instant
    (FMPy records the instant twice or more: before and after the event iteration)."""
    instants, counts = np.unique(times, return_counts=True)
    return np.isin(times, instants[counts == 1])


def event_instants(times: np.ndarray) -> np.ndarray:
    """The instants of an FMPy run with ``record_events=True`` at which it handled an event."""
    instants, counts = np.unique(times, return_counts=True)
    return instants[counts > 1]


def mode_changes(times, modes) -> list[tuple]:
    """(time, before, after) of each change of a mode recorded in consecutive rows."""
    changes = np.flatnonzero(np.diff(modes) != 0)
    return [(times[i + 1], modes[i], modes[i + 1]) for i in changes]
