"""Waveforms and signal blocks against their closed forms."""
import numpy as np
import pytest
from scipy.optimize import brentq

from physlib import Model, ParameterError
from physlib.analysis.simulation.time_events import LEFT_LIMIT
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import (PID, PWM, Add, Constant, Limiter, Product, Pulse, Ramp, Relay,
                                        Sawtooth, SignalPWM, Sine, Table, Triangle)


def probe(source, block=None, t_end=1.0, **options):
    """Simulate ``source`` (optionally through ``block``); returns (t, output)."""
    m = Model("probe")
    src = m.add(source)
    out = src
    if block is not None:
        out = m.add(block)
        m.connect(src.y, out.u)
    res = m.compile().simulate(t_end, **options)
    return res, res[f"{out.name}.y"]


def test_pulse_waveform_takes_its_value_after_each_edge():
    res, y = probe(Pulse("pulse", amplitude=2.0, width=0.2, period=0.5, t0=0.1))
    phase = np.mod(res.t - 0.1 + 1e-12, 0.5)      # at an edge exactly, the value after it
    expected = np.where((res.t >= 0.1) & (phase < 0.2 - 1e-12), 2.0, 0.0)
    last = np.r_[np.diff(res.t) > 0, True]       # after each edge where a time has two rows
    np.testing.assert_array_equal(y[last], expected[last])


def test_table_interpolates_linearly_and_holds_its_ends():
    res, y = probe(Table("tab", points=[(0.2, 0.0), (0.4, 1.0), (0.8, -1.0)]))
    np.testing.assert_allclose(y, np.interp(res.t, [0.2, 0.4, 0.8], [0.0, 1.0, -1.0]), atol=1e-12)


def test_limiter_clips_a_sine():
    res, y = probe(Sine("s", amplitude=2.0, f=2.0), Limiter("lim", u_max=1.0, u_min=-0.5))
    np.testing.assert_allclose(y, np.clip(2.0 * np.sin(4 * np.pi * res.t), -0.5, 1.0), atol=1e-12)


def test_limiter_rejects_crossed_limits():
    with pytest.raises(ParameterError, match="lim"):
        Limiter("lim", u_max=0.0, u_min=1.0)


def test_pid_on_a_ramp_matches_its_closed_form():
    # u = t: y = kp·t + ki·t²/2 + kd·(1 − e^(−t/Tf)) (filtered derivative of a ramp).
    kp, ki, kd, tf = 2.0, 3.0, 0.5, 0.05
    res, y = probe(Ramp("r", height=1.0, duration=1.0), PID("pid", kp=kp, ki=ki, kd=kd, Tf=tf),
                   rtol=1e-10, atol=1e-12)
    expected = kp * res.t + ki * res.t**2 / 2 + kd * (1 - np.exp(-res.t / tf))
    np.testing.assert_allclose(y, expected, atol=1e-8)


def test_state_space_first_order_step_response():
    # dx/dt = −2x + 4u, y = 0.5x + 0.1u, u = 1 from t = 0: y = 0.1 + (1 − e^(−2t)).
    from physlib.components.signals import StateSpace, Step
    res, y = probe(Step("u"), StateSpace("ss", A=[[-2.0]], B=[4.0], C=[0.5], D=0.1),
                   t_end=3.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y, 0.1 + (1 - np.exp(-2 * res.t)), atol=1e-9)
    assert "ss.x0" in res.names


def test_transfer_function_second_order_step_response():
    # 1/(s² + 0.4s + 1): ζ = 0.2, ωn = 1.
    from physlib.components.signals import Step, TransferFunction
    res, y = probe(Step("u"), TransferFunction("G", num=[1.0], den=[1.0, 0.4, 1.0]),
                   t_end=10.0, rtol=1e-10, atol=1e-12)
    zeta, wd = 0.2, np.sqrt(1 - 0.04)
    expected = 1 - np.exp(-zeta * res.t) * (np.cos(wd * res.t) + zeta / wd * np.sin(wd * res.t))
    np.testing.assert_allclose(y, expected, atol=1e-8)


def test_improper_transfer_function_is_rejected():
    from physlib.components.signals import TransferFunction
    with pytest.raises(ParameterError, match="proper"):
        TransferFunction("G", num=[1.0, 0.0, 0.0], den=[1.0, 1.0])


# --- periodic waveforms ---------------------------------------------------------------------------

def rc_circuit(wave, R=5e3, C=1e-6):
    """A source driven by ``wave`` charging C1 through R1; returns the compiled model."""
    m = Model("rc")
    src = m.add(VoltageSource("src", V=wave))
    r, c, gnd = m.add(Resistor("R1", R=R)), m.add(Capacitor("C1", C=C)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m.compile()


def edge_rows(res, edges):
    """For each edge time, the indices of its two rows (just before, just after); checks that
    the edges are the only times with two rows."""
    pairs = np.flatnonzero(np.diff(res.t) == 0)
    np.testing.assert_allclose(res.t[pairs], edges, rtol=1e-14, atol=0)
    return pairs, pairs + 1


# A PWM signal at 1 kHz, 30 % duty, 5 V, starting at 0.1 ms: as PWM and as Pulse. 0.3 ms is not
# a binary fraction, so the falling edges are computed with rounding.
A, F, DUTY, T0 = 5.0, 1e3, 0.3, 1e-4


@pytest.mark.parametrize("wave", [PWM(amplitude=A, f=F, duty=DUTY, t0=T0),
                                  Pulse(amplitude=A, width=DUTY / F, period=1 / F, t0=T0)],
                         ids=["PWM", "Pulse"])
def test_rows_at_each_edge_hold_the_pre_and_post_edge_source_values(wave):
    # Acceptance item 7: in a PWM-driven RC result on the default output grid, at every edge
    # (a time event) the first of the two rows is the left limit, with the source value before
    # the edge and the resistor current from it; the second has the value after the edge.
    sim = rc_circuit(wave)
    t_end = 10e-3
    res = sim.simulate(t_end)
    edges = np.array(sim.time_events(sim.parameter_vector(None), 0.0, t_end))
    k = np.round((edges - T0) * F, 6)                  # periods since t0: whole at rising edges
    rising = k == np.round(k)
    assert rising.sum() == 10 and (~rising).sum() == 10
    before, after = edge_rows(res, edges)
    expected_before, expected_after = np.where(rising, 0.0, A), np.where(rising, A, 0.0)
    for name in ("src.V.y", "src.v"):
        np.testing.assert_array_equal(res[name][before], expected_before)
        np.testing.assert_array_equal(res[name][after], expected_after)
    # The capacitor voltage is continuous; the current jumps with the source, exactly
    # (both rows are solved from the same state, rounding aside).
    v_c = res["C1.v"]
    np.testing.assert_array_equal(v_c[before], v_c[after])
    np.testing.assert_allclose(res["R1.i"][before], (expected_before - v_c[before]) / 5e3, rtol=0, atol=1e-15)
    np.testing.assert_allclose(res["R1.i"][after], (expected_after - v_c[after]) / 5e3, rtol=0, atol=1e-15)


def test_pwm_driven_rc_low_pass_settles_at_the_mean_within_the_closed_form_ripple():
    R, C, T = 5e3, 1e-6, 1 / F
    tau = R * C
    t_end = 12 * tau
    res = rc_circuit(PWM(amplitude=A, f=F, duty=DUTY), R, C).simulate(t_end, rtol=1e-8, atol=1e-12)
    # Closed form: between edges v relaxes exponentially towards the source value.
    knots = np.arange(0.0, t_end + T, T)[:, None] + np.array([0.0, DUTY * T])
    knots = knots.ravel()
    v_knot = [0.0]
    for i in range(len(knots) - 1):
        u = A if i % 2 == 0 else 0.0
        v_knot.append(u + (v_knot[-1] - u) * np.exp(-(knots[i + 1] - knots[i]) / tau))
    i = np.searchsorted(knots, res.t, side="right") - 1
    u = np.where(i % 2 == 0, A, 0.0)
    exact = u + (np.array(v_knot)[i] - u) * np.exp(-(res.t - knots[i]) / tau)
    # rtol 1e-8 per step, accumulated over 120 restarts at the edges: 4e-7 V measured.
    np.testing.assert_allclose(res["C1.v"], exact, rtol=0, atol=1e-6)
    # Periodic steady state: v swings between these, around the mean duty·A.
    v_high = A * (1 - np.exp(-DUTY * T / tau)) / (1 - np.exp(-T / tau))
    v_low = v_high * np.exp(-(1 - DUTY) * T / tau)
    assert v_low < DUTY * A < v_high
    last = res.t >= t_end - T
    # Over the last period the start-up transient has decayed to e^-11·duty·A = 2.5e-5 V.
    v_last = res["C1.v"][last]
    assert np.all(v_last >= v_low - 1e-4) and np.all(v_last <= v_high + 1e-4)
    assert np.all(np.abs(v_last - DUTY * A) <= v_high - v_low)


def test_pwm_waveform_matches_its_closed_form_at_every_row():
    wave = PWM("pwm", amplitude=2.0, offset=-1.0, f=250.0, duty=0.6, t0=0.01)
    res, y = probe(wave, t_end=0.05)
    # Output times fall on edges here; within 1e-15 s (rounding) an edge counts as reached.
    phase = np.mod(res.t - 0.01 + 1e-15, 4e-3)
    on = (res.t >= 0.01) & (phase < 0.6 * 4e-3 - 1e-15)
    last = np.r_[np.diff(res.t) > 0, True]          # after each edge where a time has two rows
    np.testing.assert_array_equal(y[last], np.where(on, 1.0, -1.0)[last])


@pytest.mark.parametrize("duty, events, level", [(0.0, [], 0.0), (1.0, [0.01], 3.0)])
def test_pwm_at_duty_zero_or_one_is_constant_and_has_no_edges_in_between(duty, events, level):
    wave = PWM("pwm", amplitude=3.0, f=1e3, duty=duty, t0=0.01)
    m = Model("probe")
    m.add(wave)
    sim = m.compile()
    assert sim.time_events(sim.parameter_vector(None), 0.0, 0.05) == events
    res = sim.simulate(0.05)
    after = res.t >= 0.01
    after[np.flatnonzero(np.diff(res.t) == 0)] = False  # the row just before t0
    np.testing.assert_array_equal(res["pwm.y"][after], level)
    np.testing.assert_array_equal(res["pwm.y"][~after], 0.0)


def test_pwm_rejects_duty_outside_zero_to_one_naming_the_component():
    with pytest.raises(ParameterError, match="duty of pwm1"):
        PWM("pwm1", f=1e3, duty=1.5)
    m = Model("probe")
    m.add(PWM("pwm2", f=1e3, duty=0.5))
    with pytest.raises(ParameterError, match="duty of pwm2"):
        m.compile().simulate(1e-2, params={"pwm2.duty": -0.1})


def test_pwm_with_more_periods_than_a_run_can_stop_at_is_refused_naming_it():
    m = Model("probe")
    m.add(PWM("fast", f=1e9, duty=0.5))
    with pytest.raises(ParameterError, match="fast"):
        m.compile().simulate(1.0)


# Sawtooth and Triangle: amplitude 2, offset −1, period 3 ms from t0 = 1 ms, over 40 ms.
SAW = dict(amplitude=2.0, offset=-1.0, period=3e-3, t0=1e-3)
TIMES = np.array([0.5e-3, 1.3e-3, 2.2e-3, 4.9e-3, 7.7e-3, 11.1e-3, 17.3e-3, 23.45e-3, 31.7e-3, 39.99e-3])


def closed_saw(t):
    phase = np.mod(t - 1e-3, 3e-3) / 3e-3
    return np.where(t < 1e-3, -1.0, -1.0 + 2.0 * phase)


def closed_triangle(t):
    phase = np.mod(t - 1e-3, 3e-3) / 3e-3
    return np.where(t < 1e-3, -1.0, -1.0 + 2.0 * (1 - np.abs(1 - 2 * phase)))


@pytest.mark.parametrize("wave, closed", [(Sawtooth("w", **SAW), closed_saw),
                                          (Triangle("w", **SAW), closed_triangle)],
                         ids=["Sawtooth", "Triangle"])
def test_sawtooth_and_triangle_match_their_closed_forms(wave, closed):
    # Only rounding separates them: t − t0 − k·period loses ~1e-16·t, i.e. 1e-15·amplitude here.
    res, y = probe(wave, t_end=40e-3, t_eval=TIMES)
    np.testing.assert_allclose(y, closed(TIMES), rtol=0, atol=1e-12)


def test_sawtooth_drops_are_time_events_with_the_top_just_before_and_offset_at_the_drop():
    t_end = 40e-3
    res, y = probe(Sawtooth("w", **SAW), t_end=t_end)
    starts = 1e-3 + 3e-3 * np.arange(0, 13)      # t0, then the drops (one at t_end changes nothing)
    before, after = edge_rows(res, starts)
    # Just before a drop: the left limit, 1e-12 of the run earlier, short of the top by
    # slope·that (4e-11 here).
    np.testing.assert_allclose(y[before[1:]], 1.0, rtol=0, atol=2.0 / 3e-3 * 2 * LEFT_LIMIT * t_end)
    assert np.all(y[before[1:]] < 1.0) and y[before[0]] == -1.0
    np.testing.assert_array_equal(y[after], -1.0)


def test_triangle_corners_are_time_events_and_the_wave_is_continuous_there():
    t_end = 40e-3
    res, y = probe(Triangle("w", **SAW), t_end=t_end)
    k = np.arange(0, 26)                          # t0 and every half period after it
    before, after = edge_rows(res, 1e-3 + 1.5e-3 * k)
    # The left limit is 1e-12 of the run before the corner: the slope moves y by 2·A/period times that.
    np.testing.assert_allclose(y[before], y[after], rtol=0, atol=2 * 2.0 / 3e-3 * 2 * LEFT_LIMIT * t_end)
    np.testing.assert_allclose(y[after], np.where(k % 2 == 1, 1.0, -1.0), rtol=0, atol=1e-12)


# --- operators ------------------------------------------------------------------------------------

def test_add_with_n_signed_inputs_matches_its_closed_form_and_its_gains_are_parameters():
    m = Model("sum")
    c, s, r = m.add(Constant("c", k=2.0)), m.add(Sine("s", f=3.0)), m.add(Ramp("r", duration=1.0))
    add = m.add(Add("a", k=[1, -1, 0.5]))
    m.connect(c.y, add.u1)
    m.connect(s.y, add.u2)
    m.connect(r.y, add.u3)
    sim = m.compile()
    res = sim.simulate(1.0)
    sine, ramp = np.sin(6 * np.pi * res.t), res.t
    # Exact up to the rounding of sin and of the sum.
    np.testing.assert_allclose(res["a.y"], 2.0 - sine + 0.5 * ramp, rtol=0, atol=1e-12)
    res = sim.simulate(1.0, params={"a.k3": -4.0})
    np.testing.assert_allclose(res["a.y"], 2.0 - sine - 4.0 * ramp, rtol=0, atol=1e-12)
    assert sorted(add.parameters) == ["k1", "k2", "k3"] and isinstance(add, Add)


def test_add_keeps_its_two_input_interface():
    m = Model("sum")
    c, s = m.add(Constant("c", k=2.0)), m.add(Sine("s", f=3.0))
    add = m.add(Add("a", k1=2.0, k2=-1.0))
    m.connect(c.y, add.u1)
    m.connect(s.y, add.u2)
    sim = m.compile()
    res = sim.simulate(1.0, params={"a.k1": 3.0})
    np.testing.assert_allclose(res["a.y"], 6.0 - np.sin(6 * np.pi * res.t), rtol=0, atol=1e-12)
    assert type(Add("b", k=[1.0, 1.0])) is Add


@pytest.mark.parametrize("values, message", [
    (dict(k=[1.0]), "at least two gains"), (dict(k="+-"), "at least two gains"),
    (dict(k=3.0), "at least two gains"), (dict(k=[1.0, "x", 2.0]), "k2 of adder"),
    (dict(k=[1.0, -1.0], k1=2.0), "not both")])
def test_add_rejects_bad_gains_naming_the_component(values, message):
    with pytest.raises(ParameterError, match="adder") as err:
        Add("adder", **values)
    assert message in str(err.value)


def test_product_of_a_sine_and_a_ramp():
    m = Model("prod")
    s, r, p = m.add(Sine("s", f=2.0)), m.add(Ramp("r", height=3.0, duration=1.0)), m.add(Product("p"))
    m.connect(s.y, p.u1)
    m.connect(r.y, p.u2)
    res = m.compile().simulate(1.0)
    np.testing.assert_allclose(res["p.y"], 3.0 * res.t * np.sin(4 * np.pi * res.t), rtol=0, atol=1e-12)


# --- hybrid blocks --------------------------------------------------------------------------------

def test_relay_switches_where_a_sine_crosses_its_levels():
    m = Model("relay")
    s, r = m.add(Sine("s", f=50.0)), m.add(Relay("relay", u_on=0.5, u_off=-0.3, y_on=2.0, y_off=-1.0))
    m.connect(s.y, r.u)
    res = m.compile().simulate(0.1)
    w = 2 * np.pi * 50.0
    k = np.arange(5)
    t_on = np.arcsin(0.5) / w + k / 50.0               # rising through u_on
    t_off = (np.pi + np.arcsin(0.3)) / w + k / 50.0     # falling through u_off
    switches = [e for e in res.events if e.cause == "state"]
    assert [e.after["on"] for e in switches] == [1, 0] * 5
    # Events are located by bisection to event_tol = 1e-10 s; 3e-11 s measured.
    np.testing.assert_allclose([e.t for e in switches], np.ravel(np.c_[t_on, t_off]), rtol=0, atol=1e-8)
    # The output between events, and at each event the rows before and after.
    i = np.searchsorted(np.ravel(np.c_[t_on, t_off]), res.t, side="right")
    on = i % 2 == 1
    before = np.r_[np.diff(res.t) == 0, False]
    on[before] = ~on[before]
    np.testing.assert_array_equal(res["relay.y"], np.where(on, 2.0, -1.0))
    # The sine starts at 0, between the levels: the relay starts off (initially_on=False).
    assert res.events[0].cause == "initial" and res.events[0].after == {"on": 0}


@pytest.mark.parametrize("u0, initially_on, on", [(0.7, False, 1), (0.5, False, 1), (-0.3, True, 0),
                                                  (-0.5, True, 0), (0.0, True, 1), (0.0, False, 0)])
def test_relay_starts_in_the_state_its_input_at_t0_calls_for(u0, initially_on, on):
    m = Model("relay")
    m.add(Relay("relay", u=u0, u_on=0.5, u_off=-0.3, initially_on=initially_on))
    res = m.compile().simulate(1.0)
    np.testing.assert_array_equal(res["relay.on"], on)
    np.testing.assert_array_equal(res["relay.y"], float(on))


def test_relay_rejects_levels_in_the_wrong_order_naming_it():
    with pytest.raises(ParameterError, match="rly"):
        Relay("rly", u_on=0.0, u_off=0.0)


def test_signal_pwm_switches_off_where_the_carrier_reaches_a_sine_duty():
    m = Model("spwm")
    d, p = m.add(Sine("d", amplitude=0.3, f=100.0, offset=0.5)), m.add(SignalPWM("pwm", f=1e3, amplitude=2.0))
    m.connect(d.y, p.duty)
    res = m.compile().simulate(0.01)
    # Closed form: in period k the carrier (t − k·T)/T meets duty(t) = 0.5 + 0.3·sin(2π·100·t)
    # once (the duty changes 5× slower than the carrier).
    T = 1e-3
    duty = lambda tt: 0.5 + 0.3 * np.sin(2 * np.pi * 100 * tt)     # noqa: E731
    t_off = [brentq(lambda tt: duty(tt) - (tt - k * T) / T, k * T, (k + 1) * T, xtol=1e-15) for k in range(10)]
    offs = [e for e in res.events if e.after == {"on": 0}]
    ons = [e for e in res.events if e.after == {"on": 1}]
    # State events are located to event_tol = 1e-10 s.
    np.testing.assert_allclose([e.t for e in offs], t_off, rtol=0, atol=1e-8)
    assert [e.cause for e in ons] == ["initial"] + ["time"] * 9
    np.testing.assert_allclose([e.t for e in ons], T * np.arange(10), rtol=0, atol=1e-15)
    # At every event the first row has the output before it, the second the output after.
    before = np.flatnonzero(np.diff(res.t) == 0)
    assert len(before) == 19
    y = res["pwm.y"]
    starts = np.isin(res.t[before], T * np.arange(10))
    np.testing.assert_array_equal(y[before], np.where(starts, 0.0, 2.0))
    np.testing.assert_array_equal(y[before + 1], np.where(starts, 2.0, 0.0))


def test_pulse_as_wide_as_its_period_has_one_edge():
    # width == period is on from t0 for good; its falling edges would coincide (to rounding)
    # with the next rising ones: 41 stops 2e-16 s apart on [0, 10] s before.
    from physlib.components.electrical import Ground, Resistor, VoltageSource
    m = Model("always_on")
    src = m.add(VoltageSource("V", V=Pulse(width=0.5, period=0.5, t0=0.25)))
    r, gnd = m.add(Resistor("R", R=1.0)), m.add(Ground("g"))
    m.connect(src.p, r.p)
    m.connect(r.n, src.n, gnd.p)
    sim = m.compile()
    assert sim.time_events(sim.parameter_vector(None), 0.0, 10.0) == [0.25]
    res = sim.simulate(10.0)
    np.testing.assert_array_equal(res["R.i"][res.t > 0.25], 1.0)


def test_expression_takes_constants_with_units_so_a_time_scale_passes_the_unit_check():
    """tanh((t − t0)/0.005) takes tanh of seconds (a bare number is a scale): a UnitWarning on a
    valid model (the press circuit's spool), and strict compiles refused it; a
    physlib.constants.Constant in s was refused by Expression itself. It is taken now, as the
    number it is: the pressure follows the closed form to rounding."""
    import sympy
    import warnings
    from physlib import UnitWarning
    from physlib.components.hydraulic import FixedPressure, LaminarResistance, PressureSource
    from physlib.components.signals import Expression, t
    from physlib.constants import Constant as UnitConstant
    m = Model("spool")
    tank = m.add(FixedPressure("tank"))
    source = m.add(PressureSource("source", P=Expression(1e5 * sympy.tanh((t - 0.075) / UnitConstant(5e-3, "s")))))
    line = m.add(LaminarResistance("line", R=1e10))
    m.connect(tank.port_a, source.port_a, line.port_b)
    m.connect(source.port_b, line.port_a)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnitWarning)
        sim = m.compile(units="strict")
    times = np.array([0.05, 0.075, 0.08, 0.1])
    res = sim.simulate(0.1, t_eval=times)
    np.testing.assert_allclose(res["line.dp"], 1e5 * np.tanh((times - 0.075) / 5e-3), rtol=1e-14, atol=1e-9)
    with pytest.raises(ParameterError, match=r"only t may appear, found \['x'\]"):
        Expression(sympy.Symbol("x") * t)
