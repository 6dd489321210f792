"""A guard that crosses zero and comes back within one output interval is two events.

The source 10·sin(2π·1 kHz·t) − 9.9 V is positive only while sin > 0.99, for 45 µs around each
peak; an IdealDiode into 1 kΩ conducts exactly then (its current and its blocking voltage both
cross zero where the source does: v = v_src/(1 + Goff·R) blocking, i = v_src/(R + Ron)
conducting). A separate R–C branch on the same source gives the run a state. With two output
times, 0 and 3 ms, each 45 µs pulse lies inside the one output interval; the guards are looked
at on every solver step, so all six switchings are found, at the times of the closed form
t = (asin(0.99) + 2πk)/ω and (π − asin(0.99) + 2πk)/ω, and at the same times as on a grid that
resolves every pulse.
"""
import numpy as np

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
from physlib.components.signals import Sine

F, T_END = 1e3, 3e-3


def pulses():
    m = Model("pulses")
    src = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=F, offset=-9.9)))
    d, r = m.add(IdealDiode("D1")), m.add(Resistor("R1", R=1e3))
    r2, c2, gnd = m.add(Resistor("R2", R=1e3)), m.add(Capacitor("C2", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, d.p, r2.p)
    m.connect(d.n, r.p)
    m.connect(r2.n, c2.p)
    m.connect(r.n, c2.n, src.n, gnd.p)
    return m.compile()


def closed_form_switchings():
    w, a = 2 * np.pi * F, np.arcsin(0.99)
    return np.sort([(a + 2 * np.pi * k) / w for k in range(3)] +
                   [(np.pi - a + 2 * np.pi * k) / w for k in range(3)])


def switchings(res):
    return np.array([e.t for e in res.events if e.component == "D1"])


def test_a_pulse_inside_one_output_interval_is_two_events_at_the_resolved_times():
    sim = pulses()
    coarse = sim.simulate(T_END, t_eval=[0.0, T_END])
    fine = sim.simulate(T_END, t_eval=np.linspace(0.0, T_END, 30_001))   # 0.1 µs apart
    assert len(coarse.t) == 2
    on_off = [e.after["on"] for e in coarse.events if e.component == "D1"]
    assert on_off == [1, 0] * 3
    # The same instants as the resolving grid, within the event tolerance (1e-10 s): the
    # output grid does not change the solver's steps.
    np.testing.assert_allclose(switchings(coarse), switchings(fine), rtol=0, atol=1e-10)
    # The closed form within 1e-9 s: event_tol plus the guard's interpolation error over a
    # step (the source's slope at the crossings is 8.9 V/ms; 1e-9 s is 8.9e-9 V of guard).
    np.testing.assert_allclose(switchings(coarse), closed_form_switchings(), rtol=0, atol=1e-9)
    # The diode's current during a pulse is the closed form's (checked at the fine grid's
    # rows inside the pulses, where i = v_src/(R + Ron) to the solver's tolerance).
    v_src = 10 * np.sin(2 * np.pi * F * fine.t) - 9.9
    inside = (v_src > 1e-3) & (fine["D1.on"] == 1)
    assert inside.sum() > 1000
    np.testing.assert_allclose(fine["D1.i"][inside], v_src[inside] / (1e3 + 1e-5), rtol=1e-5, atol=1e-12)
