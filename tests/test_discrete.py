"""Discrete-time blocks (ZeroOrderHold, UnitDelay, DiscretePID) against closed forms.

The sample instants t_k = k·Ts with Ts = 0.1 are the floats nearest to the decimals k/10,
as the blocks compute them, so a row stamped at an instant compares equal to INSTANTS[k];
floor(t/Ts)·Ts itself would misplace rows such as t = 0.3 (0.3/0.1 = 2.9999999999999996).
"""
import numpy as np
import pytest
import sympy as sp

from physlib import DeclarationError, Input, Model, Output, ParameterError, PhyslibError, Variable
from physlib.components.discrete import Discrete, DiscretePID, Sampled, UnitDelay, ZeroOrderHold
from physlib.components.electrical import Capacitor, CurrentSource, Ground, Resistor, VoltageSensor
from physlib.components.signals import Add, Constant, Expression, Ramp, Relay, Step, t

TS = 0.1
INSTANTS = np.arange(12) / 10      # k/10 is correctly rounded: the float nearest to k·0.1
SOLVERS = [("idas", {}), ("cvodes", {}), ("rk4", {"dt": 0.01}), ("euler", {"dt": 0.03})]


def ramp_through(*blocks, t_end=1.05, **options):
    """u = t into each block; returns the result."""
    m = Model("ramp")
    src = m.add(Expression(t, name="u"))
    for block in blocks:
        m.add(block)
        m.connect(src.y, block.u)
    return m.compile().simulate(t_end, **options)


def latest_instant(res):
    """Per row, the index of the latest sample instant in force: at an instant the first of its
    two rows is the value just before it (the previous instant), the second the value after."""
    before = np.r_[np.diff(res.t) == 0, False]
    return np.searchsorted(INSTANTS, res.t, side="right") - 1 - before


@pytest.mark.parametrize("solver, options", SOLVERS)
def test_zero_order_hold_of_a_ramp_is_the_staircase(solver, options):
    # y = u(t_k) = t_k on [t_k, t_(k+1)), i.e. floor(t/Ts)·Ts: the held value comes from the
    # waveform at the instant, not from integration, so it is exact up to rounding (1e-12)
    # for every solver, on both rows at each instant. euler's dt = 0.03 does not divide Ts:
    # the instants split its steps.
    res = ramp_through(ZeroOrderHold("zoh", Ts=TS), solver=solver, **options)
    k = latest_instant(res)
    np.testing.assert_allclose(res["zoh.y"], INSTANTS[k], rtol=0, atol=1e-12)
    assert np.count_nonzero(np.isin(res.t, INSTANTS[1:11])) == 2 * 10   # both rows at each instant
    assert res.events == []          # sample updates are not mode changes (module docstring)


def test_an_instant_at_t_end_changes_nothing_before_the_end():
    res = ramp_through(ZeroOrderHold("zoh", Ts=TS), t_end=1.0)
    assert res.t[-1] == 1.0 and res.t[-2] < 1.0
    assert res["zoh.y"][-1] == pytest.approx(0.9, abs=1e-12)


@pytest.mark.parametrize("solver, options", SOLVERS[::2])
def test_unit_delay_of_a_ramp_is_one_sample_behind(solver, options):
    # y = u(t_(k−1)) = t_k − Ts on [t_k, t_(k+1)) for k >= 1, y0 until t_1; y0 is a parameter
    # the start value is copied from, so it changes without recompiling.
    res = ramp_through(UnitDelay("delay", Ts=TS, y0=-1.0), solver=solver, **options)
    k = latest_instant(res)
    expected = np.where(k >= 1, INSTANTS[np.maximum(k - 1, 0)], -1.0)
    np.testing.assert_allclose(res["delay.y"], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["delay.last"], INSTANTS[k], rtol=0, atol=1e-12)


def test_unit_delay_start_value_and_schedule_change_without_recompiling():
    m = Model("ramp")
    src = m.add(Expression(t, name="u"))
    delay = m.add(UnitDelay("delay", Ts=TS))
    m.connect(src.y, delay.u)
    res = m.compile().simulate(1.0, params={"delay.y0": 2.5, "delay.Ts": 0.25, "delay.t0": 0.05})
    y = res["delay.y"]
    assert np.all(y[res.t < 0.3] == 2.5)                 # until the second instant, 0.05 + 0.25
    after = np.r_[np.diff(res.t) > 0, True]
    assert y[after & (res.t == 0.3)] == pytest.approx(0.05, abs=1e-12)
    assert y[after & (res.t == 0.8)] == pytest.approx(0.55, abs=1e-12)


def test_an_instant_reads_the_input_at_the_instant_as_modelica_and_simulink_do():
    # A step exactly at an instant is sampled after it; a hold behind a hold at the same rate
    # adds no delay (the second one reads the first one's new value at the instant), whereas
    # a unit delay is one sample behind.
    m = Model("timing")
    step = m.add(Step("u", height=1.0, t0=0.3))
    first, second = m.add(ZeroOrderHold("first", Ts=TS)), m.add(ZeroOrderHold("second", Ts=TS))
    delay = m.add(UnitDelay("delay", Ts=TS))
    m.connect(step.y, first.u)
    m.connect(first.y, second.u, delay.u)
    res = m.compile().simulate(1.0)
    rows = np.flatnonzero(np.isclose(res.t, 0.3, rtol=0, atol=1e-12))
    assert len(rows) == 2
    np.testing.assert_array_equal(res["first.y"][rows], [0.0, 1.0])
    np.testing.assert_array_equal(res["second.y"][rows], [0.0, 1.0])
    after_delay = np.flatnonzero(np.isclose(res.t, 0.4, rtol=0, atol=1e-12))
    np.testing.assert_array_equal(res["delay.y"][after_delay], [0.0, 1.0])


class Counter(Sampled):
    """Counts its sample instants: a user-written sampled block."""

    y = Output(description="number of instants so far")
    count = Discrete(description="instants so far")

    def equations(self):
        return [sp.Eq(self.y, self.count)]

    def update(self, values, t):
        return {"count": values["pre(count)"] + 1}


def test_each_instant_counts_once_however_long_the_event_iteration():
    # At each instant the hold changes, then the relay it drives switches, which takes more
    # passes of the event iteration; the counter reads pre(count), the value before the
    # instant, in every pass, so it advances by exactly one.
    m = Model("count")
    src = m.add(Expression(t, name="u"))
    zoh, counter = m.add(ZeroOrderHold("zoh", Ts=TS)), m.add(Counter("counter", Ts=TS))
    relay = m.add(Relay("relay", u_on=0.45, u_off=0.25))
    m.connect(src.y, zoh.u)
    m.connect(zoh.y, relay.u)
    res = m.compile().simulate(1.05)
    np.testing.assert_array_equal(res["counter.y"], latest_instant(res) + 1)
    assert [(round(e.t, 12), e.after) for e in res.events] == [(0.0, {"on": 0}), (0.5, {"on": 1})]


def test_a_state_event_that_lands_on_an_instant_samples_once():
    # The relay's level is crossed 1e-11 s before the instant 0.5, closer than event_tol
    # (1e-10 s): the crossing is located at the instant itself, the event iteration runs
    # there for the state event, the settling probe (the other level sits 1e-11 away, within
    # the zero band) iterates 1e-8 s later, and the instant's own iteration follows.
    m = Model("coincide")
    src = m.add(Expression(t, name="u"))
    counter = m.add(Counter("counter", Ts=TS))
    relay = m.add(Relay("relay", u_on=0.5 - 1e-11, u_off=0.5 - 2e-11))
    m.connect(src.y, relay.u)
    res = m.compile().simulate(1.05)
    assert [(e.t, e.cause) for e in res.events[1:]] == [(0.5, "state")]
    assert res["counter.y"][-1] == 11                   # instants 0, 0.1, ..., 1.0
    assert set(res["counter.y"][res.t == 0.5]) == {5.0, 6.0}


def test_many_blocks_at_one_rate_do_not_fill_events_or_trip_the_storm_check():
    # 150 holds change at every instant: as events they would exceed max_events = 100 within
    # a microsecond (an event storm); sample updates are not events.
    blocks = [ZeroOrderHold(f"zoh{i}", Ts=TS) for i in range(150)]
    res = ramp_through(*blocks, t_end=0.55)
    assert res.events == []
    assert res["zoh149.y"][-1] == pytest.approx(0.5, abs=1e-12)


def pid_loop(R=2.0, C=0.5, **pid):
    """A DiscretePID holding the voltage of an RC circuit at 1 V through a current source:
    C·dv/dt = i − v/R, i = the controller's output, error = 1 − v."""
    m = Model("loop")
    src, res_, cap = m.add(CurrentSource("src")), m.add(Resistor("R", R=R)), m.add(Capacitor("C", C=C))
    gnd, sensor = m.add(Ground("gnd")), m.add(VoltageSensor("vs"))
    ref, err = m.add(Constant("ref", k=1.0)), m.add(Add("err", k1=1.0, k2=-1.0))
    controller = m.add(DiscretePID("pid", **pid))
    m.connect(gnd.p, src.p, res_.n, cap.n, sensor.n)      # the source drives i into the top node
    m.connect(src.n, res_.p, cap.p, sensor.p)
    m.connect(ref.y, err.u1)
    m.connect(sensor.v, err.u2)
    m.connect(err.y, controller.u)
    m.connect(controller.y, src.I)
    return m.compile()


PID = dict(Ts=TS, kp=0.8, ki=1.5, kd=0.05, y_min=0.0, y_max=1.2)


def pid_recursion(n, R=2.0, C=0.5, Ts=TS, kp=0.8, ki=1.5, kd=0.05, y_min=0.0, y_max=1.2):
    """The sampled loop by hand: the plant x' = a·x + b·y with y constant over each period
    has the exact discretization x(k+1) = e^(a·Ts)·x(k) + (e^(a·Ts) − 1)/a·b·y(k); the
    controller is the textbook recursion with clamping. Returns x(k), y(k), k = 0 … n−1."""
    a, b = -1 / (R * C), 1 / C
    phi = np.exp(a * Ts)
    x, xi, e_last, xs, ys = 0.0, 0.0, 0.0, [], []
    for _ in range(n):
        e = 1.0 - x
        derivative = kd * (e - e_last) / Ts
        xi_next = xi + Ts * e
        v = kp * e + ki * xi_next + derivative
        if (v > y_max and ki * e > 0) or (v < y_min and ki * e < 0):
            xi_next = xi
            v = kp * e + ki * xi + derivative
        y = min(max(v, y_min), y_max)
        xs.append(x), ys.append(y)
        x, xi, e_last = phi * x + (phi - 1) / a * b * y, xi_next, e
    return np.array(xs), np.array(ys)


def at_instants(res, n, name):
    """Values of ``name`` on the row just after each instant k·Ts, k = 0 … n−1."""
    after = np.r_[np.diff(res.t) > 0, True]
    rows = [np.flatnonzero(after & np.isclose(res.t, k * TS, rtol=0, atol=1e-12))[0] for k in range(n)]
    return res[name][rows]


N = 30


def test_discrete_pid_matches_the_exact_discretization_of_the_loop():
    # The first output, kp + ki·Ts + kd/Ts = 1.45, is clamped to 1.2 with the integral frozen,
    # so the anti-windup is part of the comparison. The solver integrates the plant between
    # instants to rtol 1e-10: samples agree within 1e-8 (measured: 7e-10 in v, 1.3e-9 in y).
    xs, ys = pid_recursion(N)
    assert ys[0] == 1.2 and ys[1] < 1.2
    sim = pid_loop(**PID)
    for solver in ("idas", "cvodes"):
        res = sim.simulate((N - 0.5) * TS, solver=solver, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(at_instants(res, N, "C.v"), xs, rtol=0, atol=1e-8)
        np.testing.assert_allclose(at_instants(res, N, "pid.y"), ys, rtol=0, atol=1e-8)
        assert res.events == []


def test_discrete_pid_at_fixed_step_rk4_has_rk4s_error():
    # With dt dividing Ts the instants are step ends and the only error is rk4's truncation
    # error, O(dt⁴): 2e-11 at dt = Ts/10, and 16 times more at twice the step.
    xs, _ = pid_recursion(N)
    sim = pid_loop(**PID)
    errors = [np.abs(at_instants(sim.simulate((N - 0.5) * TS, solver="rk4", dt=dt), N, "C.v") - xs).max()
              for dt in (TS / 10, TS / 5)]
    assert errors[0] < 1e-10
    assert 12 < errors[1] / errors[0] < 20


def test_discrete_pid_without_limits_is_the_plain_recursion():
    xs, ys = pid_recursion(N, y_min=-np.inf, y_max=np.inf)
    res = pid_loop(Ts=TS, kp=0.8, ki=1.5, kd=0.05).simulate((N - 0.5) * TS, rtol=1e-10, atol=1e-12)
    assert ys[0] == pytest.approx(1.45)
    np.testing.assert_allclose(at_instants(res, N, "pid.y"), ys, rtol=0, atol=1e-8)


@pytest.mark.parametrize("make", [lambda ts: ZeroOrderHold("zoh", Ts=ts), lambda ts: UnitDelay("zoh", Ts=ts),
                                  lambda ts: DiscretePID("zoh", Ts=ts)])
@pytest.mark.parametrize("ts", [0.0, -0.1])
def test_a_sample_period_that_is_not_positive_names_the_block(make, ts):
    with pytest.raises(ParameterError, match=r"Ts of zoh must be > 0 s"):
        make(ts)


def test_bad_parameters_at_simulate_and_crossed_limits_name_the_block():
    m = Model("ramp")
    src = m.add(Expression(t, name="u"))
    zoh = m.add(ZeroOrderHold("zoh", Ts=TS))
    m.connect(src.y, zoh.u)
    with pytest.raises(ParameterError, match=r"Ts of zoh must be > 0 s"):
        m.compile().simulate(1.0, params={"zoh.Ts": 0.0})
    with pytest.raises(ParameterError, match="pid.*y_min"):
        DiscretePID("pid", Ts=TS, y_min=1.0, y_max=0.0)
    with pytest.raises(ParameterError, match="zoh.*sample instants"):
        m.compile().simulate(1.0, params={"zoh.Ts": 1e-6})


def test_discrete_declarations_and_updates_are_checked():
    with pytest.raises(DeclarationError, match="discrete variable held of Bad.*'k0'"):
        type("Bad", (Sampled,), {"held": Discrete(start="k0")})

    class Wrong(Sampled):
        u = Input()
        held = Discrete()

        def update(self, values, t):
            return {"hold": values["u"]}

    m = Model("wrong")
    src = m.add(Expression(t, name="u"))
    wrong = m.add(Wrong("w", Ts=TS))
    m.connect(src.y, wrong.u)
    with pytest.raises(PhyslibError, match=r"Wrong 'w': update\(\) at t = 0 s returned \{'hold'"):
        m.compile().simulate(1.0)


def test_held_values_are_read_like_variables():
    res = ramp_through(ZeroOrderHold("zoh", Ts=TS), t_end=0.35)
    assert "zoh.held" in res.names
    np.testing.assert_array_equal(res["zoh.held"], res["zoh.y"])


def test_a_discrete_value_is_real_inside_equations():
    # Regression: Discrete values were integer symbols in equations, so SymPy decided
    # Eq(held, 0.5) was False and floor(held) was held. Here y = floor(2·held)/2 of a hold of
    # the ramp u = t sampled every 0.25 s: floor(2·0.75)/2 = 0.5 at t = 0.8 s, floor(0.5)/2 = 0
    # at t = 0.3 s.
    import sympy as sp

    from physlib.components.discrete import ZeroOrderHold

    class HalfSteps(ZeroOrderHold):
        z = Variable(description="held value rounded down to halves")

        def equations(self):
            return super().equations() + [sp.Eq(self.z, sp.floor(2 * self.held) / 2)]

    m = Model("halves")
    ramp = m.add(Ramp("u", height=1.0, duration=1.0))
    hold = m.add(HalfSteps("h", Ts=0.25))
    m.connect(ramp.y, hold.u)
    res = m.compile().simulate(0.9)
    assert res.at(0.8)["h.z"] == 0.5 and res.at(0.3)["h.z"] == 0.0
