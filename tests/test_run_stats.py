"""res.stats: what a run did (solver steps, evaluations, starts, events, time per phase)."""
import pickle

import numpy as np
import pytest

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
from physlib.components.signals import Sine, Step
from test_electrical_transients import rc_model


def rc(t_step: float):
    return rc_model(V=Step(height=1.0, t0=t_step)).compile()


def rectifier():
    m = Model("rectifier")
    src, d = m.add(VoltageSource("src", V=Sine(amplitude=10, f=1e3))), m.add(IdealDiode("D1"))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    return m.compile()


KEYS = {"steps", "residual_evaluations", "jacobian_evaluations", "error_test_failures",
        "nonlinear_iterations", "solver_starts", "events", "event_iterations", "seconds"}


@pytest.mark.parametrize("solver", ["idas", "cvodes"])
def test_a_run_without_events_is_one_solver_start_and_a_time_event_is_one_more(solver):
    sim = rc(t_step=0.0)
    stats = sim.simulate(5e-3, solver=solver).stats
    assert set(stats) == KEYS
    # One segment, all outputs from one integrator call.
    assert stats["solver_starts"] == 1 and stats["events"] == {"state": 0, "time": 0}
    assert stats["steps"] > 0 and stats["residual_evaluations"] >= stats["steps"]
    assert stats["jacobian_evaluations"] > 0
    seconds = stats["seconds"]
    assert set(seconds) == {"initialization", "integration", "events", "total"}
    assert 0 < seconds["integration"] <= seconds["total"]
    # A step at 1 ms splits the run in two segments.
    stepped = rc(t_step=1e-3).simulate(5e-3, solver=solver).stats
    assert stepped["solver_starts"] == 2 and stepped["events"] == {"state": 0, "time": 1}


def test_a_fixed_step_run_counts_its_steps():
    stats = rc(t_step=1e-3).simulate(5e-3, solver="rk4", dt=1e-5).stats
    assert stats["steps"] == 500                       # 5 ms / 10 µs; the event falls on a step
    assert stats["residual_evaluations"] is None       # compiled stages: not counted
    assert stats["events"] == {"state": 0, "time": 1} and stats["solver_starts"] == 2


def test_the_rectifier_reports_its_state_events_and_survives_pickling():
    res = rectifier().simulate(0.05)
    stats = res.stats
    state_instants = {e.t for e in res.events if e.cause == "state"}
    # 50 periods, on and off, the first turn-on a moment after the start (the sine starts at 0 V)
    assert stats["events"]["state"] == len(state_instants) == 100
    assert stats["event_iterations"] >= len(res.events)
    # The solver starts at t0 and once after each event instant: never per output.
    assert stats["solver_starts"] == 1 + len({e.t for e in res.events})
    assert pickle.loads(pickle.dumps(res)).stats == stats
    # A continuation outside a run (res.at) counts nowhere.
    res.at(0.0101)
    assert res.stats == stats


def test_output_points_cost_no_solver_starts():
    """10,001 output points on the rectifier, evenly or unevenly spaced: the solver starts at
    t0 and after each of the 100 switchings as on the default grid (it used to restart at
    every output: 10,930 starts), its steps are the same, and every row still satisfies the
    equations."""
    sim = rectifier()
    default = sim.simulate(0.05).stats
    for t_eval in (np.linspace(0.0, 0.05, 10_001), np.sort(np.random.default_rng(1).uniform(0, 0.05, 10_001))):
        res = sim.simulate(0.05, t_eval=np.r_[0.0, t_eval[1:-1], 0.05])
        assert res.stats["solver_starts"] == default["solver_starts"] == 1 + len({e.t for e in res.events})
        assert res.stats["steps"] == default["steps"]
    on = res["D1.on"] == 1
    # Blocking, the diode's current is Goff·v to rounding: rows between solver steps are moved
    # within the tolerances onto the algebraic equations (interpolated, they were 1.7e-8 off).
    np.testing.assert_allclose(res["D1.i"][~on], 1e-5 * res["D1.v"][~on], rtol=1e-6, atol=1e-18)
