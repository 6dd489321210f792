"""Helpers for differential tests of the variable-step runs: the two stepping loops, the row
block size, and the comparison of two runs bit for bit."""
from __future__ import annotations

import contextlib

import numpy as np

from physlib.analysis.simulation import compiled_stepping, output_rows
from physlib.core.errors import SimulationError


@contextlib.contextmanager
def python_stepping_loop():
    """Runs within take the Python stepping loop (``_HybridRun._run_to``) instead of the C
    loop of :mod:`~physlib.analysis.simulation.compiled_stepping` (the solver's callbacks stay
    compiled)."""
    original = compiled_stepping.CompiledStepping.for_run
    compiled_stepping.CompiledStepping.for_run = staticmethod(lambda run: None)
    try:
        yield
    finally:
        compiled_stepping.CompiledStepping.for_run = original


@contextlib.contextmanager
def row_block_size(size: int):
    """Runs within complete their interpolated rows in blocks of ``size`` rows (a small block
    fills at every kind of step: before a crossing, at the target, at a row on a step)."""
    original = output_rows.BLOCK
    output_rows.BLOCK = size
    try:
        yield
    finally:
        output_rows.BLOCK = original


def run_or_error(sim, t_end, **options):
    """The run, or the text of the SimulationError it ended with (so two ways of running can
    be compared even where they fail)."""
    try:
        return sim.simulate(t_end, **options)
    except SimulationError as err:
        return f"SimulationError: {err}"


def assert_identical_runs(a, b):
    """The same output times, values of every variable and mode, events and solver steps,
    bit for bit (or the same error)."""
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert np.array_equal(a.t, b.t)
    for name in a.names:
        assert np.array_equal(a[name], b[name], equal_nan=True), name
    assert [(e.t, e.component, e.before, e.after, e.cause) for e in a.events] == \
        [(e.t, e.component, e.before, e.after, e.cause) for e in b.events]
    assert a.stats["steps"] == b.stats["steps"]
