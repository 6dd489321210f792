"""Misuses that used to pass silently: each raises a PhyslibError subclass naming the component
or port involved and saying what to do."""
import math
import pickle

import numpy as np
import pytest

from physlib import DuplicateNameError, Model, ModelError, PhyslibError, PortConnectionError
from physlib.components.electrical import (Capacitor, CurrentSource, Ground, Inductor, Resistor,
                                           VoltageSource)
from physlib.components.signals import Ramp, Sine, Step, Triangle
from physlib.core.errors import ImpulseError, SimulationError


def test_renaming_a_component_after_adding_it_is_refused():
    m = Model("m")
    c = m.add(Resistor("R1", R=1.0))
    with pytest.raises(ModelError, match=r"cannot rename Resistor 'R1' to 'R2': it is already a "
                                         r"member of model 'm'.*Resistor\('R2', \.\.\.\), then m.add"):
        c.name = "R2"
    assert c.name == "R1" and m["R1"] is c
    c.name = "R1"                                   # the same name: nothing changes
    free = Resistor("R3", R=1.0)
    free.name = "R4"                                # not in a model yet: allowed
    assert m.add(free).name == "R4"


def test_renaming_a_subsystem_after_adding_it_is_refused():
    top, sub = Model("top"), Model("sub")
    sub.add(Resistor("R1", R=1.0))
    top.add(sub)
    with pytest.raises(ModelError, match=r"cannot rename model 'sub' to 'inner'.*model 'top'"):
        sub.name = "inner"


def test_one_component_in_two_models_is_refused():
    r = Resistor("R1", R=1.0)
    first = Model("first")
    first.add(r)
    with pytest.raises(ModelError, match=r"Resistor 'R1' already belongs to model 'first'.*"
                                         r"create another one for model 'second'"):
        Model("second").add(r)
    with pytest.raises(DuplicateNameError, match=r"Resistor\('R1'\) is already a member of model "
                                                 r"'first': add each component once"):
        first.add(r)
    assert issubclass(ModelError, PhyslibError)


def test_two_models_of_the_same_name_cannot_share_a_component():
    """Only copies physlib makes itself (analysis points, noise sources) share members; a
    user's second model of the same class and name is a second model."""
    first, r = Model("m"), Resistor("R1", R=1.0)
    first.add(r)
    with pytest.raises(ModelError, match=r"Resistor 'R1' already belongs to model 'm'"):
        Model("m").add(r)


def test_a_model_pickles_and_keeps_its_members():
    m = Model("m")
    m.add(Resistor("R1", R=1.0))
    copy = pickle.loads(pickle.dumps(m))
    with pytest.raises(ModelError, match="cannot rename Resistor 'R1'"):
        copy["R1"].name = "R2"


@pytest.mark.parametrize("repeat", ["pair", "first_again", "last_again"])
def test_a_port_repeated_in_one_connect_is_refused(repeat):
    m = Model("m")
    a, b = m.add(Resistor("a", R=1.0)), m.add(Resistor("b", R=1.0))
    ports, named = {"pair": ([a.p, a.p], "a.p"), "first_again": ([a.p, b.n, a.p], "a.p"),
                    "last_again": ([a.p, b.n, b.n], "b.n")}[repeat]
    with pytest.raises(PortConnectionError, match=rf"port {named} is connected to itself: it appears "
                                                  r"more than once in connect\(.*\); list each port once"):
        m.connect(*ports)


def inductor_fed_by(current, parallel_resistor=False):
    """I1 -> L1 -> ground; with ``parallel_resistor`` R1 across the source (L1 stays a state)."""
    m = Model("m")
    i, L, g = m.add(CurrentSource("I1", I=current)), m.add(Inductor("L1", L=1e-3)), m.add(Ground("g"))
    m.connect(i.p, L.p)
    m.connect(L.n, i.n, g.p)
    if parallel_resistor:
        r = m.add(Resistor("R1", R=10.0))
        m.connect(r.p, i.p)
        m.connect(r.n, g.p)
    return m.compile()


def test_a_current_step_through_an_inductor_is_an_impulse_not_zero():
    sim = inductor_fed_by(Step(height=1.0, t0=1e-3))
    with pytest.raises(ImpulseError, match=r"Step I1.I jumps from 0 to 1 at t = 0.001 s.*the state "
                                           r"L1.i of Inductor L1.*der\(L1.i\) is an impulse.*add a "
                                           r"resistance.*Ramp instead of a Step") as caught:
        sim.simulate(2e-3)
    assert isinstance(caught.value, SimulationError)
    with pytest.raises(ImpulseError, match="L1.i"):
        sim.simulate(2e-3, solver="rk4", dt=1e-5)
    # Runs that hold no jump are simulated: before the step, from the step on, or without it.
    assert np.all(sim.simulate(0.9e-3)["L1.v"] == 0.0)
    assert abs(sim.simulate(3e-3, t0=1e-3)["L1.i"][-1]) == pytest.approx(1.0)
    assert np.all(sim.simulate(2e-3, params={"I1.I.height": 0.0})["L1.i"] == 0.0)


def test_a_voltage_step_directly_across_a_capacitor_is_an_impulse():
    m = Model("m")
    v, c, g = m.add(VoltageSource("V1", V=Step(height=1.0, t0=1e-3))), m.add(Capacitor("C1", C=1e-6)), \
        m.add(Ground("g"))
    m.connect(v.p, c.p)
    m.connect(c.n, v.n, g.p)
    with pytest.raises(ImpulseError, match=r"Step V1.V jumps from 0 to 1 at t = 0.001 s.*the state "
                                           r"C1.v of Capacitor C1.*der\(C1.v\) is an impulse"):
        m.compile().simulate(2e-3)


@pytest.mark.parametrize("current, L1_v", [
    (Ramp(height=1.0, duration=1e-4, t0=1e-3), 1e-3 * 1.0 / 1e-4),     # L·slope during the ramp
    (Sine(amplitude=1.0, f=1e3, t0=1e-3), 1e-3 * 2 * math.pi * 1e3),    # L·ω·amplitude
    (1.0, 0.0),
])
def test_continuous_or_constant_currents_through_an_inductor_still_simulate(current, L1_v):
    res = inductor_fed_by(current).simulate(2e-3, rtol=1e-9, atol=1e-12)
    assert np.max(np.abs(res["L1.v"])) == pytest.approx(L1_v, rel=1e-3)


def test_a_triangle_current_through_an_inductor_gives_its_slopes_even_at_the_corners():
    """v = L·di/dt is ±L·2·amplitude/period, piecewise constant (was: a compile error, the
    derivative of floor having no form). At each corner the row holds the slope after it, as
    every row at a time event holds the values after it (0 before t0 = 0.1 ms)."""
    wave = Triangle(amplitude=2.0, period=1e-3, t0=0.1e-3, offset=0.5)
    times = np.linspace(0.0, 2e-3, 9)
    res = inductor_fed_by(wave).simulate(2e-3, t_eval=times)
    slope = 1e-3 * 2 * 2.0 / 1e-3                    # L · 2·amplitude/period = 4 V
    rising = ((times - 0.1e-3) % 1e-3) < 0.5e-3 - 1e-12
    want = np.where(times < 0.1e-3, 0.0, np.where(rising, slope, -slope))
    np.testing.assert_allclose(np.abs(res["L1.v"]), np.abs(want), atol=1e-9)
    assert len(set(np.sign(res["L1.v"][times > 0.1e-3]))) == 2     # both slopes, no half ones


def test_a_step_into_an_inductor_that_stays_a_state_still_simulates():
    res = inductor_fed_by(Step(height=1.0, t0=1e-3), parallel_resistor=True).simulate(2e-3)
    assert np.max(np.abs(res["L1.v"])) == pytest.approx(10.0, rel=1e-6)   # R1·1 A just after the step
