"""Time events in few compiled calls (physlib.analysis.simulation.quick_time_events) against
the general event iteration: the same run bit for bit, events and every row, on switching
converters whose PWM edges take the quick course (a Shockley-diode buck) and whose edges it
declines in part (an ideal-diode buck, whose diode current sits in the zero band at edges).
Both courses compute the same operations, so any difference at all is a defect."""
from __future__ import annotations

import numpy as np
import pytest

from physlib import Model
from physlib.analysis.simulation import quick_time_events
from physlib.analysis.simulation.compiled_time_events import CompiledTimeEvents
from physlib.analysis.simulation.quick_time_events import QuickTimeEvents
from physlib.components.electrical import (Capacitor, Diode, Ground, IdealDiode, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import PWM

F_SW = 20e3


def buck(diode) -> Model:
    m = Model("buck")
    src = m.add(VoltageSource("Vin", V=24.0))
    switch = m.add(Switch("S1", control=PWM(f=F_SW, duty=0.5), Ron=10e-3, Goff=1e-6))
    choke, cap, load = m.add(Inductor("L1", L=100e-6)), m.add(Capacitor("C1", C=100e-6)), m.add(Resistor("R1", R=5.0))
    gnd, diode = m.add(Ground("gnd")), m.add(diode)
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m


def run(model, monkeypatch, quick: bool, **options):
    """The run with time events taken quickly where they can be (``quick``) or always the
    general way, and how many events the quick course took: in Python, the C stepping loop
    taking none itself (test_compiled_time_events compares the two)."""
    taken = []
    monkeypatch.setattr(CompiledTimeEvents, "prepare", lambda self: None)
    if quick:
        call = QuickTimeEvents.__call__

        def counted(self, *args):
            answer = call(self, *args)
            taken.append(answer is not None)
            return answer
        monkeypatch.setattr(QuickTimeEvents, "__call__", counted)
    else:
        monkeypatch.setattr(QuickTimeEvents, "for_model", staticmethod(lambda *args: None))
    result = model.compile().simulate(60 / F_SW, **options)
    monkeypatch.undo()
    return result, sum(taken)


def assert_same_run(a, b):
    assert [(e.t, e.component, e.before, e.after, e.cause) for e in a.events] == \
        [(e.t, e.component, e.before, e.after, e.cause) for e in b.events]
    np.testing.assert_array_equal(a.t, b.t)
    for name in ("C1.v", "L1.i", "S1.i", "D1.v"):
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("grid", [False, True], ids=["default grid", "dense grid"])
def test_a_shockley_buck_takes_its_pwm_edges_quickly_with_the_same_numbers(monkeypatch, grid):
    # 60 periods: 119 PWM edges before the end, the last ~90 after the transitions run compiled (64 rounds)
    options = {"t_eval": np.linspace(0.0, 60 / F_SW, 3001)} if grid else {}
    model = buck(Diode("D1", Is=1e-14, N=1.0, Rs=10e-3))
    general, _ = run(model, monkeypatch, quick=False, **options)
    quick, taken = run(model, monkeypatch, quick=True, **options)
    assert taken > 80, "the quick course was not taken"
    assert len([e for e in general.events if e.cause == "time"]) == 119     # the edge at t_end changes nothing before the end
    assert_same_run(quick, general)


def test_an_ideal_diode_buck_takes_its_edges_in_three_rounds_with_the_same_numbers(monkeypatch):
    # The switch opens, then the freewheeling diode turns on (a round each), then nothing
    # changes: each round's events as the general iteration records them
    model = buck(IdealDiode("D1"))
    general, _ = run(model, monkeypatch, quick=False)
    quick, taken = run(model, monkeypatch, quick=True)
    assert taken > 80, "the quick course was not taken"
    assert_same_run(quick, general)


def test_an_edge_that_takes_more_rounds_than_the_quick_course_is_iterated_the_general_way(monkeypatch):
    monkeypatch.setattr(quick_time_events, "QUICK_ROUNDS", 1)
    model = buck(IdealDiode("D1"))
    quick, taken = run(model, monkeypatch, quick=True)
    monkeypatch.setattr(quick_time_events, "QUICK_ROUNDS", 1)
    general, _ = run(model, monkeypatch, quick=False)
    assert taken < 20            # the few edges that change one mode only
    assert_same_run(quick, general)


def test_the_event_round_is_the_outputs_transitions_guards_and_rates_of_its_point():
    # One round's function against the model's own functions at a point after the transitions
    # run compiled, with the switch asked to change (its PWM is on at t) and not
    sim = buck(Diode("D1", Is=1e-14, N=1.0, Rs=10e-3)).compile()
    sim.simulate(60 / F_SW)
    system, slot = sim.system, sim.mode_slot("S1.closed")
    transitions = system.cache["compiled_transitions"].function
    rates = quick_time_events.unrolled_rates(system)
    event_round = quick_time_events.event_round_function(system, transitions, rates, [slot])
    rng = np.random.default_rng(1)
    x, z = rng.normal(size=len(system.state_pos)), rng.normal(size=len(system.z_pos))
    t = 0.1 / F_SW                                      # the PWM is on
    for closed in (0.0, 1.0):
        p = sim.parameter_vector(None)
        p[slot] = closed
        for band in (1e-9, 1e9):
            p_next, g, y_rates, flags = (np.asarray(v).ravel() for v in event_round(x, z, p, p, t, band))
            values = np.asarray(system.outputs(x, z, p, t)).ravel()
            np.testing.assert_array_equal(g, np.asarray(system.guards(x, z, p, t)).ravel())
            np.testing.assert_array_equal(p_next, np.asarray(transitions(values, p, p, np.zeros(len(g)))).ravel())
            np.testing.assert_array_equal(y_rates, np.asarray(rates(x, z, p, t)).ravel())
            assert p_next[slot] == 1.0
            assert list(flags) == [closed == 0.0, True, np.isfinite(values).all(), (np.abs(g) <= band).any(),
                                   np.isfinite(y_rates).all()]
