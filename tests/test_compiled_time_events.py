"""Time events taken inside the C stepping loop (physlib.analysis.simulation.compiled_time_events)
against the same events taken by Python's quick course between calls of the loop: the same
run bit for bit -- events, every row (the rows around each edge among the interpolated ones),
the solver's statistics -- on the converters of test_quick_time_events. Both take the same
compiled functions and SUNDIALS calls in the same order, so any difference at all is a defect:
a row held at the wrong place, a counter lost, a restart from another first step."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from physlib.analysis.simulation import compiled_time_events, quick_time_events
from physlib.analysis.simulation.compiled_time_events import CompiledTimeEvents
from physlib.components.electrical import Diode, IdealDiode

from test_quick_time_events import F_SW, assert_same_run, buck

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler: no C stepping loop")

T_END = 60 / F_SW       # 119 PWM edges before the end


def run(sim, monkeypatch, in_c: bool, **options):
    """The run with the C loop taking the time events it can (``in_c``) or Python taking every
    one, and how many the C loop took."""
    taken = []
    if in_c:
        take = CompiledTimeEvents.take

        def counted(self):
            taken.append(self.c.taken)
            return take(self)
        monkeypatch.setattr(CompiledTimeEvents, "take", counted)
    else:
        monkeypatch.setattr(CompiledTimeEvents, "prepare", lambda self: None)
    result = sim.simulate(T_END, **options)
    monkeypatch.setattr(CompiledTimeEvents, "take", CompiledTimeEvents.take)
    monkeypatch.undo()
    return result, sum(taken)


def assert_same_statistics(a, b):
    assert {k: v for k, v in a.stats.items() if k != "seconds"} == \
        {k: v for k, v in b.stats.items() if k != "seconds"}


@pytest.fixture(scope="module")
def shockley_buck():
    sim = buck(Diode("D1", Is=1e-14, N=1.0, Rs=10e-3)).compile()
    sim.simulate(T_END)         # its transitions and functions compiled, as in a sweep's later runs
    return sim


@pytest.mark.parametrize("points", [None, 3001, 777], ids=["default grid", "dense grid", "uneven grid"])
def test_a_shockley_buck_s_edges_taken_in_c_give_the_python_run_bit_for_bit(shockley_buck, monkeypatch, points):
    options = {} if points is None else {"t_eval": np.linspace(0.0, T_END, points)}
    python, none = run(shockley_buck, monkeypatch, in_c=False, **options)
    in_c, taken = run(shockley_buck, monkeypatch, in_c=True, **options)
    assert none == 0 and taken > 100, taken       # nearly every edge, with two returns for full records
    assert len([e for e in in_c.events if e.cause == "time"]) == 119
    assert_same_run(in_c, python)
    assert_same_statistics(in_c, python)


def test_records_full_after_every_edge_change_nothing(shockley_buck, monkeypatch):
    python, _ = run(shockley_buck, monkeypatch, in_c=False)
    monkeypatch.setattr(compiled_time_events, "CAPACITY", 1)
    in_c, taken = run(shockley_buck, monkeypatch, in_c=True)
    assert taken > 100
    assert_same_run(in_c, python)
    assert_same_statistics(in_c, python)


@pytest.mark.parametrize("rounds", [quick_time_events.QUICK_ROUNDS, 1])
def test_edges_the_c_loop_declines_are_taken_by_python_where_the_loop_stopped(monkeypatch, rounds):
    # An ideal-diode buck: at some edges the diode's current sits in the zero band (the quick
    # course declines them, settling needs a look); with one round allowed, every edge that
    # turns the diode as well as the switch is declined too. The C loop leaves each where it
    # stands and Python takes it the general way, then the loop goes on.
    monkeypatch.setattr(quick_time_events, "QUICK_ROUNDS", rounds)
    sim = buck(IdealDiode("D1")).compile()
    sim.simulate(T_END)
    python, _ = run(sim, monkeypatch, in_c=False)
    monkeypatch.setattr(quick_time_events, "QUICK_ROUNDS", rounds)
    in_c, taken = run(sim, monkeypatch, in_c=True)
    assert 0 < taken < 119
    assert_same_run(in_c, python)
    assert_same_statistics(in_c, python)


def test_the_segments_the_c_loop_ends_count_toward_the_solver_s_c_twins(monkeypatch):
    # The solver's residual and Jacobian are built in C once a model's runs have evaluated the
    # residual HOT_EVALUATIONS times, counted at each restart; the restarts the C loop makes
    # count too (a first version left them out: a PWM run stayed on CasADi's virtual machine).
    from physlib.analysis.simulation import stepping_functions as functions_module
    monkeypatch.setattr(functions_module, "HOT_EVALUATIONS", 10 ** 9)
    sim = buck(Diode("D1", Is=1e-14, N=1.0, Rs=10e-3)).compile()
    counted, taken = run(sim, monkeypatch, in_c=True)
    assert taken > 100
    functions = functions_module.stepping_functions(sim.system, "idas")
    # every segment's evaluations, those of the segments the C loop ended included
    assert functions.evaluations == counted.stats["residual_evaluations"]


def test_the_rows_of_the_edges_the_c_loop_took_sit_among_the_interpolated_ones_in_time_order(shockley_buck,
                                                                                            monkeypatch):
    # The rows around each edge (just before it, in the old mode; just after it, in the new)
    # come back from the C loop in one piece and are put among the block's interpolated rows
    # at the positions they had: time order, two rows at each edge, the switch's mode from
    # its events on either side.
    res, taken = run(shockley_buck, monkeypatch, in_c=True)
    assert taken > 100
    assert np.all(np.diff(res.t) >= 0)
    closed = res["S1.closed"]
    for event in (e for e in res.events if e.component == "S1" and e.cause == "time"):
        at = np.flatnonzero(res.t == event.t)
        assert len(at) == 2, event
        assert [closed[at[0]], closed[at[1]]] == [event.before["closed"], event.after["closed"]]
    switchings = [e for e in res.events if e.component == "S1"]       # the first at t = 0 ("initial")
    edges = np.array([e.t for e in switchings])
    between = ~np.isin(res.t, edges)
    k = np.searchsorted(edges, res.t[between], side="right")
    # between two edges the mode is the one the earlier edge set
    assert np.array_equal(closed[between], np.array([e.after["closed"] for e in switchings])[k - 1])
