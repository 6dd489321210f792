"""Hybrid models that must work at their defaults: a clutch engaging from zero normal force
under a fixed step, a mass lifting off a stop, a switch closed from the start, an ideal-diode
bridge restarting after every commutation."""
import numpy as np
import pytest

from physlib import Model, PhyslibError
from physlib.components.electrical import (Capacitor, Ground, IdealDiode, Inductor, Resistor,
                                           Switch, VoltageSource)
from physlib.components.rotational import Clutch, Inertia
from physlib.components.signals import Constant, Ramp, Sine, Step
from physlib.components.translational import Fixed, Force, HardStop, Mass

G = 9.81


@pytest.fixture(scope="module")
def engaging_clutch():
    # 0.2 kg·m² at 150 rad/s coupled to 1.35 kg·m² at rest; the normal force ramps from 0 at
    # t = 1 s to 2000 N at 1.5 s.
    m = Model("engaging")
    j1 = m.add(Inertia("J1", J=0.2, w0=150.0))
    j2 = m.add(Inertia("J2", J=1.35))
    clutch = m.add(Clutch("clutch", mu=0.3, cgeo=0.15, fn_max=2000.0,
                          f_normalized=Ramp(height=1.0, duration=0.5, t0=1.0)))
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    sim = m.compile()
    return sim.simulate(2.0, rtol=1e-8, atol=1e-10), sim.simulate(2.0, solver="rk4", dt=1e-3)


def test_clutch_engaging_from_zero_normal_force_slips_at_once_under_a_fixed_step(engaging_clutch):
    # Regression: the normal force leaves zero at the ramp's start; rk4 saw the guard already
    # positive one step later, found no crossing and kept the clutch free until the ramp's end
    # (1.5 s), returning wrong speeds silently.
    variable, fixed = engaging_clutch
    for res in engaging_clutch:
        first = res.events[0]
        assert first.after == {"mode": Clutch.BACKWARD} and first.t == pytest.approx(1.0, abs=1e-6)
    lock = [e.t for e in variable.events if e.after == {"mode": Clutch.STUCK}]
    lock_fixed = [e.t for e in fixed.events if e.after == {"mode": Clutch.STUCK}]
    # Slipping, J2 gains mu·cgeo·fn = 90·(t − 1)/0.5 N·m: w2 = 90·(t − 1)²/(2·0.5·1.35).
    assert variable.at(1.4)["J2.w"] == pytest.approx(90 * 0.4**2 / 1.35, rel=1e-6)
    assert len(lock) == len(lock_fixed) == 1 and abs(lock_fixed[0] - lock[0]) <= 2e-3   # one step
    row = int(np.argmin(np.abs(fixed.t - 1.4)))
    assert fixed["J2.w"][row] == pytest.approx(variable.at(1.4)["J2.w"], rel=1e-2)


def test_fixed_step_hybrid_runs_build_no_sundials_integrator():
    # Fixed-step runs of hybrid models settle events with their own stepper: no IDAS/CVODES
    # integrator is built (they would make a fixed-step run depend on SUNDIALS).
    m = Model("engaging")
    j1, j2 = m.add(Inertia("J1", J=0.2, w0=150.0)), m.add(Inertia("J2", J=1.35))
    clutch = m.add(Clutch("clutch", mu=0.3, cgeo=0.15, fn_max=2000.0,
                          f_normalized=Ramp(height=1.0, duration=0.5, t0=1.0)))
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    sim = m.compile()
    res = sim.simulate(2.0, solver="rk4", dt=1e-3)
    assert any(e.after == {"mode": Clutch.STUCK} for e in res.events)
    built = [key for key in sim.system.cache if isinstance(key, tuple) and key[0] == "scaled"]
    assert built == []


def lifting_mass():
    # 500 kg resting on the floor (e = 0), pushed up by a force ramping to 2·m·g over 50 ms.
    m = Model("lift")
    floor = m.add(Fixed("floor"))
    mass = m.add(Mass("M", m=500.0))
    weight = m.add(Force("weight", f=-500.0 * G))
    push = m.add(Force("push", f=Ramp(height=2 * 500.0 * G, duration=0.05)))
    stop = m.add(HardStop("stop", e=0.0))
    m.connect(floor.flange, stop.flange_a)
    m.connect(stop.flange_b, mass.flange_a)
    m.connect(mass.flange_b, weight.flange, push.flange)
    return m.compile()


def test_mass_lifts_off_when_the_contact_force_would_pull():
    # Net force m·g·(t/0.025 − 1) from the lift-off at t = 25 ms (push = weight) to 50 ms, m·g
    # after: v = g·((t² − 0.025²)/0.05 − (t − 0.025)) up to 50 ms, then + g·(t − 0.05).
    # Regression: the release and a new impact alternated until "event iteration cycles".
    res = lifting_mass().simulate(0.1, rtol=1e-10, atol=1e-12)
    lift_off = [e.t for e in res.events if e.after == {"contact": HardStop.APART}]
    assert len(lift_off) == 1 and lift_off[0] == pytest.approx(0.025, abs=1e-6)

    def v(t):
        ramp = G * ((np.minimum(t, 0.05)**2 - 0.025**2) / 0.05 - (np.minimum(t, 0.05) - 0.025))
        return np.where(t < 0.025, 0.0, ramp + G * np.maximum(t - 0.05, 0.0))
    after = res.t > 0.026
    assert np.max(np.abs(res["M.v"][after] - v(res.t[after]))) <= 1e-6 * v(0.1)
    # At rest on the stop until then. The gap guard starts at zero and leaves it downwards, so
    # settling at t0 lets the mass fall for 100·event_tol (1 ns): v ≈ −g·1e-8 before contact.
    assert np.max(np.abs(res["M.v"][res.t < 0.025])) <= 1e-6


def test_switch_closed_from_the_start_discharges_the_capacitor_from_t0():
    # Control 1 at t0: the initial modes come from the inputs, so S1 starts closed.
    m = Model("discharge")
    switch = m.add(Switch("S1", control=Constant(k=1.0)))
    r = m.add(Resistor("R1", R=1e3))
    c = m.add(Capacitor("C1", C=1e-6, v0=5.0))
    gnd = m.add(Ground("gnd"))
    m.connect(c.p, switch.p)
    m.connect(switch.n, r.p)
    m.connect(r.n, c.n, gnd.p)
    res = m.compile().simulate(3e-3, rtol=1e-10, atol=1e-13)
    # Ron = 1e-5 Ω in series with 1 kΩ changes τ by 1e-8 relative, below the tolerance.
    assert np.max(np.abs(res["C1.v"] / (5.0 * np.exp(-res.t / 1e-3)) - 1)) <= 1e-6


@pytest.mark.parametrize("opening", [True, False])
def test_a_perfect_switch_cutting_an_inductor_or_shorting_a_capacitor_says_what_to_give_it(opening, capsys):
    # Goff = 0 opening on an inductor's current, or Ron = 0 closing on a charged capacitor: the
    # state would have to jump, the equations have no solution after the event. The error
    # names the switch and what to give it (it spoke of locks on one motion before).
    m = Model("cut")
    gnd, r = m.add(Ground("gnd")), m.add(Resistor("R1", R=10.0))
    if opening:
        src, coil = m.add(VoltageSource("V1", V=10.0)), m.add(Inductor("L1", L=1e-3))
        switch = m.add(Switch("S1", control=Step(height=-1.0, offset=1.0, t0=1e-3), Goff=0.0))
        m.connect(src.p, r.p)
        m.connect(r.n, coil.p)
        m.connect(coil.n, switch.p)
        m.connect(switch.n, src.n, gnd.p)
    else:
        cap = m.add(Capacitor("C1", C=1e-6, v0=5.0))
        switch = m.add(Switch("S1", control=Step(height=1.0, t0=1e-3), Ron=0.0))
        m.connect(cap.p, r.p, switch.p)
        m.connect(cap.n, r.n, switch.n, gnd.p)
    with pytest.raises(PhyslibError, match=r"S1 -> \{'closed': %d\}.*Goff = 0.*Ron = 0.*Goff > 0 or Ron > 0"
                       % (0 if opening else 1)) as caught:
        m.compile().simulate(2e-3)
    assert "locks" not in str(caught.value)
    # and nothing else on the console: CasADi's dump of the failed Newton's inputs went there
    assert "Input 0" not in capsys.readouterr().err


@pytest.mark.parametrize("t_close", [1e-5, 1e-3, 0.1])
def test_a_switch_closing_a_source_onto_a_capacitor_charges_it_at_once(t_close):
    # 8.8 V through the switch onto 1 uF || 100 Ohm. Closed, the capacitor charges through
    # Ron = 1e-5 Ohm within Ron·C = 1e-11 s from dv/dt = 8.8 V / (Ron·C) ~ 9e11 V/s: IDA's own
    # first step after the event, 0.5/||y'|| ~ 1e-20 s, did not move a time of 1e-5 s or more,
    # and the run stopped there ("steps no longer move the time").
    V, R, C, ron, goff = 8.8, 100.0, 1e-6, 1e-5, 1e-5
    m = Model("closing")
    src = m.add(VoltageSource("src", V=V))
    switch = m.add(Switch("S1", control=Step(t0=t_close)))
    r, c, gnd = m.add(Resistor("R1", R=R)), m.add(Capacitor("C1", C=C)), m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    times = np.array([0.5, 1.5, 2.0]) * t_close
    res = m.compile().simulate(2 * t_close, t_eval=times)
    # Open: V through Goff charges C || R towards V·Goff·R/(1 + Goff·R) with τ = C/(Goff + 1/R);
    # closed: V·R/(R + Ron) after a few Ron·C.
    tau_open = C / (goff + 1 / R)
    open_v = V * goff * R / (1 + goff * R) * (1 - np.exp(-times[0] / tau_open))
    expected = [open_v, V * R / (R + ron), V * R / (R + ron)]
    # 1e-6 of the source voltage: the solver's rtol
    np.testing.assert_allclose(res["C1.v"], expected, rtol=0, atol=1e-6 * V)
    assert [e.t for e in res.events if e.cause == "time"] == [t_close]


def diode_bridge():
    """Two 326.6 V, 50 Hz sources 120° apart, each through 60 µH into a two-leg ideal-diode
    bridge, feeding a DC link of two 30 mF capacitors (282.8 V each) grounded at the midpoint."""
    m = Model("bridge")
    gnd = m.add(Ground("gnd"))
    upper = m.add(Capacitor("Cp", C=30e-3, v0=282.8))
    lower = m.add(Capacitor("Cn", C=30e-3, v0=282.8))
    load = m.add(Resistor("Rload", R=10.0))
    m.connect(upper.n, lower.p, gnd.p)
    sources = []
    for k in range(2):
        src = m.add(VoltageSource(f"V{k}", V=Sine(amplitude=326.6, f=50.0, phase=-2 * np.pi / 3 * k)))
        choke = m.add(Inductor(f"L{k}", L=60e-6))
        high, low = m.add(IdealDiode(f"Dh{k}")), m.add(IdealDiode(f"Dl{k}"))
        m.connect(src.p, choke.p)
        m.connect(choke.n, high.p, low.n)
        m.connect(high.n, upper.p, load.p)
        m.connect(low.p, lower.n, load.n)
        sources.append(src)
    m.connect(sources[0].n, sources[1].n, gnd.p)
    return m.compile()


def test_ideal_diode_bridge_runs_at_default_settings():
    # Regression: the restart after a commutation failed in IDAS's own initial-condition search.
    sim = diode_bridge()
    res = sim.simulate(0.02)
    assert len(res.events) >= 4
    distinct = np.r_[True, np.diff(res.t) > 0]
    tight = sim.simulate(0.02, rtol=1e-9, atol=1e-9, t_eval=res.t[distinct])
    # Default tolerances (rtol 1e-6) against rtol 1e-9: 1e-4 of the range allows for the
    # event-time error of the default run moving the ripple by that much.
    for name in ("Cp.v", "Cn.v"):
        assert np.max(np.abs(res[name][distinct] - tight[name])) <= 1e-4 * np.ptp(tight[name])


def test_buck_converter_at_defaults_matches_the_textbook_and_switches_at_time_events():
    # Acceptance: 48 V, 50 kHz, D = 0.3, 47 µH, 220 µF, 2 Ω, Switch and IdealDiode at their
    # defaults. In continuous conduction Vout = D·Vin = 14.4 V (Ron = Goff = 1e-5 shift it by
    # about 1e-5 relative) and the ripple is (1 − D)·Vout/(L·f); 1.5 % and 2 % as specified
    # (measured: 0.09 % and 0.16 %, the output still settling at 30 ms and the capacitor's
    # ripple moving Vout within the period).
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "buck_converter.py"
    spec = importlib.util.spec_from_file_location("buck_converter", path)
    buck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(buck)
    res = buck.build().compile().simulate(30e-3)
    v_avg = buck.average(*buck.last_period(res, "C1.v"))
    assert v_avg == pytest.approx(buck.DUTY * buck.VIN, rel=0.015)
    ripple = np.ptp(buck.last_period(res, "L1.i")[1])
    assert ripple == pytest.approx((1 - buck.DUTY) * v_avg / (buck.L * buck.F_SW), rel=0.02)
    # No PWM edge is located by bisection: every switch event is a time event, at an edge.
    switch_events = [e for e in res.events if e.component == "S1" and e.cause != "initial"]
    assert len(switch_events) == 2 * 30e-3 * buck.F_SW - 1          # edges inside (0, 30 ms)
    assert all(e.cause == "time" for e in switch_events)
    phase = np.array([e.t for e in switch_events]) * buck.F_SW % 1.0
    assert np.all(np.minimum(np.abs(phase - np.round(phase)), np.abs(phase - buck.DUTY)) < 1e-9)


def test_a_diode_turned_on_with_no_current_stays_on_as_its_current_grows():
    # Source 3.185·sin(2π·5 kHz·t) → L2 10 mH → node 2 (C2 5.656 µF ∥ R2 245 Ω) → ideal diode
    # → node 3 (R3 688 Ω ∥ L3 81.2 mH). The diode turns on at once with no current, which then
    # grows from zero as t³: its guard, masked at zero, left the zero band on the conducting
    # side and was taken for a crossing; the diode switched off with current flowing and
    # stayed off until 777 µs, C2.v 22 % off at 0.5 ms. It conducts throughout (checked
    # below), so the reference is the linear circuit with the diode's Ron, solved by SciPy.
    from scipy.integrate import solve_ivp

    L2, C2, R2, Ron, R3, L3 = 0.01, 5.656e-6, 245.0, 1e-5, 688.0, 0.0812
    m = Model("diode_from_zero")
    src = m.add(VoltageSource("src", V=Sine(amplitude=3.185, f=5e3)))
    l2, c2, r2 = m.add(Inductor("L2", L=L2)), m.add(Capacitor("C2", C=C2)), m.add(Resistor("R2", R=R2))
    d, r3, l3 = m.add(IdealDiode("D3")), m.add(Resistor("R3", R=R3)), m.add(Inductor("L3", L=L3))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, l2.p)
    m.connect(l2.n, c2.p, r2.p, d.p)
    m.connect(d.n, r3.p, l3.p)
    m.connect(src.n, c2.n, r2.n, r3.n, l3.n, gnd.p)
    times = np.linspace(1e-4, 1e-3, 10)
    res = m.compile().simulate(1e-3, t_eval=times)      # the default tolerances

    def rates(t, y):
        i2, v2, i3 = y
        v3 = (v2 - Ron * i3) / (1 + Ron / R3)           # the conducting diode: v2 − v3 = Ron·iD
        i_d = v3 / R3 + i3
        return [(3.185 * np.sin(2 * np.pi * 5e3 * t) - v2) / L2, (i2 - v2 / R2 - i_d) / C2, v3 / L3]
    ref = solve_ivp(rates, (0.0, 1e-3), [0.0, 0.0, 0.0], method="Radau", rtol=1e-11, atol=1e-14,
                    dense_output=True)
    dense = np.linspace(1e-6, 1e-3, 2000)
    i2, v2, i3 = ref.sol(dense)
    assert np.all((v2 - Ron * i3) / (1 + Ron / R3) / R3 + i3 > 0)     # it does conduct throughout
    assert [e.after["on"] for e in res.events] == [1]
    # rtol 1e-6 on a signal of 0.3 V: 1e-5 V is ten times the integration error, a fifth of
    # a percent of what the spurious turn-off cost.
    np.testing.assert_allclose(res["C2.v"], ref.sol(times)[1], rtol=0, atol=1e-5)


def test_a_diode_opening_in_discontinuous_conduction_runs_at_tight_tolerances():
    # A buck's freewheeling diode opens when the inductor current has fallen to zero with the
    # switch open: the inductor's last microamperes then decay through the two open elements'
    # leakage in a nanosecond. The first step after that event, tried at half the step planned
    # before it, needs a dozen cuts of the error test at rtol 1e-9; SUNDIALS gives a step up
    # after ten, and the solver's own first step that followed did not move the time at
    # t = 0.35 ms: the run stopped ("the solver's steps no longer move the time"). Each run
    # must go through, and tightening the tolerances must converge (output within 1e-7).
    from physlib.components.signals import PWM
    m = Model("dcm_buck")
    src, gnd = m.add(VoltageSource("Vin", V=24.0)), m.add(Ground("gnd"))
    switch = m.add(Switch("S1", control=PWM(f=33e3, duty=0.3), Ron=0.01, Goff=1e-6))
    diode, choke = m.add(IdealDiode("D1")), m.add(Inductor("L1", L=1e-4))
    cap, load = m.add(Capacitor("C1", C=1e-4)), m.add(Resistor("R1", R=5.0))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    sim = m.compile()
    finals = []
    for rtol, atol in ((1e-9, 1e-11), (1e-10, 1e-12)):
        res = sim.simulate(1e-3, rtol=rtol, atol=atol)
        assert len([e for e in res.events if e.component == "D1"]) >= 20          # it opens every period
        finals.append(res["C1.v"][-1])
    assert finals[0] == pytest.approx(finals[1], rel=1e-7)
