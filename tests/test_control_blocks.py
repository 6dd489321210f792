"""Blocks for closing control loops against closed forms and independent computations: the PID
with output limits and back-calculation anti-windup, the MIMO StateSpace and Table1D."""
import math

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq

from physlib import Model, ParameterError
from physlib.components.signals import (PID, Add, Integrator, Limiter, Ramp, Sine, StateSpace, Step,
                                        Table1D, TransferFunction)

# Variable-step runs at rtol 1e-10, atol 1e-12 come out within 3e-9 of the closed forms (the
# largest error measured is noted at each check); the tolerances of 1e-8 and 3e-8 leave a
# margin of at least four over that.
TIGHT = dict(rtol=1e-10, atol=1e-12)


# --- PID: limits and anti-windup ------------------------------------------------------------------

def ramp_into(block, t_end=1.0):
    m = Model("probe")
    src = m.add(Ramp("r", height=1.0, duration=1.0))
    m.add(block)
    m.connect(src.y, block.u)
    return m.compile().simulate(t_end, **TIGHT)


def test_pid_without_limits_is_the_plain_pid():
    for values in ({}, dict(y_max=math.inf), dict(y_min=-math.inf), dict(y_max=np.inf, y_min=-np.inf)):
        pid = PID("pid", kp=2.0, **values)
        assert type(pid) is PID
        assert sorted(pid.parameters) == ["Tf", "kd", "ki", "kp", "xi0"]
    # u = t: y = kp·t + ki·t²/2 + kd·(1 − e^(−t/Tf)) (as in test_signals; 7e-10 measured).
    kp, ki, kd, tf = 2.0, 3.0, 0.5, 0.05
    res = ramp_into(PID("pid", kp=kp, ki=ki, kd=kd, Tf=tf))
    np.testing.assert_allclose(res["pid.y"], kp * res.t + ki * res.t**2 / 2 + kd * (1 - np.exp(-res.t / tf)),
                               rtol=0, atol=1e-8)


def test_limited_pid_within_its_limits_is_the_plain_pid():
    # The same ramp; the output stays below 4.1, so the limits never act: y = v, and the
    # tracking term (y − v)/(ki·Tt) is zero. 7e-10 measured.
    kp, ki, kd, tf = 2.0, 3.0, 0.5, 0.05
    res = ramp_into(PID("pid", kp=kp, ki=ki, kd=kd, Tf=tf, y_max=5.0, y_min=-5.0))
    expected = kp * res.t + ki * res.t**2 / 2 + kd * (1 - np.exp(-res.t / tf))
    np.testing.assert_allclose(res["pid.y"], expected, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(res["pid.y"], res["pid.v"])
    np.testing.assert_allclose(res["pid.xi"], res.t**2 / 2, rtol=0, atol=1e-8)


def saturated(pid, e0, t_eval, x0=None, params=None):
    """PID ``pid`` with the constant input e0; the result at ``t_eval``."""
    m = Model("open")
    m.add(pid)
    pid.u = e0
    return m.compile().simulate(t_eval[-1], t_eval=t_eval, x0=x0, params=params, **TIGHT)


def tracking(t, kp, ki, Tt, e0, y_max, xi0=0.0):
    """xi(t) while the output sits at y_max with constant error e0 and no D-part:
    der(xi) = e0 + (y_max − kp·e0 − ki·xi)/(ki·Tt), a first-order lag with time constant Tt
    towards xi∞ = (y_max − kp·e0)/ki + Tt·e0 (where v = y_max + ki·Tt·e0)."""
    xi_inf = (y_max - kp * e0) / ki + Tt * e0
    return xi_inf + (xi0 - xi_inf) * np.exp(-t / Tt)


TIMES = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 3.7, 6.0, 10.0])


@pytest.mark.parametrize("Tt", [0.5, 3.0])
def test_saturated_pi_integral_tracks_the_limit_with_time_constant_tt(Tt):
    # u = 1 from the start: v(0) = kp = 2 > y_max = 1, and v only falls towards y_max + ki·Tt·u,
    # so the output is at y_max throughout.
    kp, ki, e0, y_max = 2.0, 0.5, 1.0, 1.0
    res = saturated(PID("pid", kp=kp, ki=ki, y_max=y_max, y_min=-1.0, Tt=Tt), e0, TIMES)
    np.testing.assert_array_equal(res["pid.y"], y_max)           # min(v, y_max) is y_max exactly
    # 7e-10 measured.
    np.testing.assert_allclose(res["pid.xi"], tracking(TIMES, kp, ki, Tt, e0, y_max), rtol=0, atol=1e-8)
    assert np.all(res["pid.v"] > y_max)
    np.testing.assert_allclose(res["pid.v"][-1], y_max + ki * Tt * e0 * (1 - np.exp(-10 / Tt))
                               + (kp * e0 - y_max) * np.exp(-10 / Tt), rtol=0, atol=1e-8)


def test_default_tracking_time_constants_are_ti_for_a_pi_and_the_geometric_mean_with_kd():
    kp, ki, kd, e0, y_max = 2.0, 0.5, 0.8, 1.0, 1.0
    # PI: Tt = Ti = kp/ki = 4 s. (4e-10 measured in this test.)
    res = saturated(PID("pi", kp=kp, ki=ki, y_max=y_max), e0, TIMES)
    np.testing.assert_allclose(res["pi.xi"], tracking(TIMES, kp, ki, kp / ki, e0, y_max), rtol=0, atol=1e-8)
    # PID: Tt = √(Ti·Td) = √(kd/ki) = 1.265 s. The filter starts settled (xd = u), so the
    # D-part kd·(u − xd)/Tf is zero throughout.
    res = saturated(PID("pid", kp=kp, ki=ki, kd=kd, y_max=y_max), e0, TIMES, x0={"pid.xd": e0})
    np.testing.assert_allclose(res["pid.xi"], tracking(TIMES, kp, ki, math.sqrt(kd / ki), e0, y_max),
                               rtol=0, atol=1e-8)
    # The default follows gains changed without compiling again: ki = 2 makes Ti = 1 s.
    res = saturated(PID("pi", kp=kp, ki=ki, y_max=y_max), e0, TIMES, params={"pi.ki": 2.0})
    np.testing.assert_allclose(res["pi.xi"], tracking(TIMES, kp, 2.0, kp / 2.0, e0, y_max), rtol=0, atol=1e-8)


def test_limits_are_parameters_changeable_without_compiling_and_one_sided_limits_work():
    m = Model("open")
    pid = m.add(PID("pid", kp=2.0, ki=0.5, y_max=1.0, u=1.0))
    sim = m.compile()
    np.testing.assert_array_equal(sim.simulate(1.0, params={"pid.y_max": 1.5})["pid.y"], 1.5)
    assert sorted(pid.parameters) == ["Tf", "Tt", "kd", "ki", "kp", "xi0", "y_max"]
    # A lower limit only: with u = −1 the output sits at y_min; the other way it is unlimited.
    m = Model("open")
    m.add(PID("low", kp=2.0, ki=0.5, y_min=-1.0, y_max=math.inf, u=-1.0))
    sim = m.compile()
    np.testing.assert_array_equal(sim.simulate(1.0)["low.y"], -1.0)
    res = sim.simulate(1.0, params={"low.u": 1.0}, **TIGHT)
    np.testing.assert_allclose(res["low.y"], 2.0 + 0.5 * res.t, rtol=0, atol=1e-8)   # kp·u + ki·u·t


def test_limited_pd_is_a_pd_followed_by_a_limiter():
    # ki = 0: no integral action, no tracking term (and no division by zero): y = clip(kp·u)
    # to rounding, xi the plain integral of u = sin(2πt): (1 − cos 2πt)/2π (1e-10 measured).
    m = Model("pd")
    s = m.add(Sine("s", f=1.0))
    pid = m.add(PID("pid", kp=3.0, y_max=1.0, y_min=-2.0))
    m.connect(s.y, pid.u)
    res = m.compile().simulate(2.0, **TIGHT)
    u = res["s.y"]
    np.testing.assert_allclose(res["pid.y"], np.clip(3.0 * u, -2.0, 1.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(res["pid.xi"], (1 - np.cos(2 * np.pi * res.t)) / (2 * np.pi),
                               rtol=0, atol=1e-8)


# Closed loop: PI (kp = 1, ki = 1 1/s, Ti = 1 s) on the plant x' = y (an integrator), a
# setpoint step to r = 3 at t = 0, output limits ±1. At the start v = kp·r = 3: saturated.
KP, KI, R, Y_MAX = 1.0, 1.0, 3.0, 1.0


def integrator_loop(anti_windup: bool):
    """The loop with the limited PID (back-calculation, default Tt = Ti), or with the plain PID
    and a Limiter after it (windup)."""
    m = Model("loop")
    r = m.add(Step("r", height=R))
    e = m.add(Add("e", k1=1.0, k2=-1.0))
    plant = m.add(Integrator("plant"))
    m.connect(r.y, e.u1)
    m.connect(plant.y, e.u2)
    if anti_windup:
        pid = m.add(PID("pid", kp=KP, ki=KI, y_max=Y_MAX, y_min=-Y_MAX))
        m.connect(pid.y, plant.u)
    else:
        pid = m.add(PID("pid", kp=KP, ki=KI))
        lim = m.add(Limiter("lim", u_max=Y_MAX, u_min=-Y_MAX))
        m.connect(pid.y, lim.u)
        m.connect(lim.y, plant.u)
    m.connect(e.y, pid.u)
    return m.compile()


def loop_closed_form(anti_windup: bool):
    """(t1, t_peak, x(t), xi(t)): saturated until t1, where v comes down to y_max; from then on
    the linear loop x' = kp·(r − x) + ki·xi, xi' = r − x (matrix exponential), whose x peaks
    where v = y = 0."""
    # Saturated: x = y_max·t = t, e = r − t. With back-calculation and Tt = Ti (ki·Tt = kp):
    # xi' = e + (y_max − kp·e − ki·xi)/kp = 1 − xi, so xi = 1 − e^(−t) and v = 4 − t − e^(−t).
    # Without: xi = ∫e = 3t − t²/2 and v = 3 + 2t − t²/2 = 1 at t = 2 + √8.
    if anti_windup:
        xi_sat = lambda t: 1 - np.exp(-t)                   # noqa: E731
        t1 = brentq(lambda t: 4 - t - np.exp(-t) - Y_MAX, 1.0, 4.0, xtol=1e-15)
    else:
        xi_sat = lambda t: R * t - t**2 / 2                 # noqa: E731
        t1 = 2 + math.sqrt(8)
    M = np.array([[-KP, KI, KP * R], [-1.0, 0.0, R], [0.0, 0.0, 0.0]])

    def state(t):
        t = np.atleast_1d(t)
        linear = np.array([expm(M * (tt - t1)) @ [t1, xi_sat(t1), 1.0] for tt in np.maximum(t, t1)])
        x = np.where(t < t1, Y_MAX * t, linear[:, 0])
        return x, np.where(t < t1, xi_sat(t), linear[:, 1])

    def v(t):
        x, xi = state(t)
        return KP * (R - x) + KI * xi
    t_peak = brentq(lambda t: v(t)[0], t1, t1 + 3, xtol=1e-14)
    return t1, t_peak, state, v


@pytest.mark.parametrize("anti_windup", [True, False], ids=["back-calculation", "windup"])
def test_pi_on_an_integrator_follows_the_closed_form_through_saturation(anti_windup):
    t1, t_peak, state, v = loop_closed_form(anti_windup)
    # Without anti-windup v reaches −y_max again at 6.04 s (the closed form ends there).
    t_end = 10.0 if anti_windup else 6.0
    t_eval = np.unique(np.r_[np.linspace(0, t_end, 401), t1, t_peak])
    res = integrator_loop(anti_windup).simulate(t_end, t_eval=t_eval, **TIGHT)
    x, xi = state(res.t)
    assert np.all(np.abs(v(res.t[res.t >= t1])) <= Y_MAX + 1e-12)     # the closed form's premise
    # The solver steps over the kink at t1 like any other point; 1.9e-9 measured.
    np.testing.assert_allclose(res["plant.y"], x, rtol=0, atol=3e-8)
    np.testing.assert_allclose(res["pid.xi"], xi, rtol=0, atol=3e-8)
    y = res["pid.y"] if anti_windup else res["lim.y"]
    np.testing.assert_array_equal(y[res.t < t1 - 1e-6], Y_MAX)     # saturated: y_max exactly
    peak = np.flatnonzero(res.t == t_peak)[0]
    np.testing.assert_allclose(res["plant.y"][peak], state(t_peak)[0][0], rtol=0, atol=3e-8)
    assert res["plant.y"].max() <= state(t_peak)[0][0] + 3e-8


def test_back_calculation_cuts_the_overshoot_and_the_wound_up_integral():
    overshoot, integral = {}, {}
    for anti_windup in (True, False):
        t1, t_peak, state, _ = loop_closed_form(anti_windup)
        overshoot[anti_windup] = state(t_peak)[0][0] - R
        integral[anti_windup] = state(t1)[1][0]
    # Closed form: 0.518 against 2.023, and the integral when the output leaves the limit
    # 0.948 against 2.828.
    assert overshoot[True] == pytest.approx(0.5184, abs=1e-4)
    assert overshoot[False] == pytest.approx(2.0226, abs=1e-4)
    assert overshoot[False] > 3.5 * overshoot[True]
    assert integral[False] > 2.5 * integral[True]


@pytest.mark.parametrize("make, message", [
    (lambda: PID("ctl", y_max=1.0, y_min=1.0), ["PID 'ctl'", "y_min (1.0) must be below y_max (1.0)"]),
    (lambda: PID("ctl", kp=0.0, ki=1.0, y_max=1.0), ["PID 'ctl'", "pure integral", "Tt"]),
    (lambda: PID("ctl", kp=1.0, ki=1.0, Tt=2.0), ["PID 'ctl'", "Tt", "only with output limits"]),
    (lambda: PID("ctl", y_max=1.0, Tt=-1.0), ["parameter Tt of ctl", ">= 0"]),
    (lambda: PID("ctl", y_max=-math.inf), ["parameter y_max of ctl", "-inf"]),
    (lambda: PID("ctl", y_max="1"), ["parameter y_max of ctl", "'1'"]),
    (lambda: setattr(PID("ctl", kp=1.0), "y_max", 1.0), ["PID 'ctl'", "without y_max", "build a new one"]),
])
def test_pid_rejects_bad_limits_naming_the_component(make, message):
    with pytest.raises(ParameterError) as err:
        make()
    for part in message:
        assert part in str(err.value)


def test_limits_crossed_after_construction_are_caught_at_compile():
    pid = PID("ctl", y_max=1.0, y_min=-1.0, u=0.0)
    pid.y_min = 2.0
    m = Model("m")
    m.add(pid)
    with pytest.raises(ParameterError, match="ctl"):
        m.compile()


# --- StateSpace with several inputs and outputs ---------------------------------------------------

A2 = np.array([[-1.0, 0.5], [-0.3, -2.0]])
B2 = np.array([[1.0, 0.0], [0.5, 2.0]])
C2 = np.array([[1.0, 0.0], [0.2, 1.0]])
D2 = np.array([[0.0, 0.1], [0.3, 0.0]])


def step_state(A, b, tau):
    """∫₀^τ e^(As) ds·b for τ >= 0 (0 before): the state after a unit step on input column b,
    as the corner of the matrix exponential of [[A, b], [0, 0]]."""
    n = len(A)
    M = np.zeros((n + 1, n + 1))
    M[:n, :n], M[:n, n] = A, b
    return np.array([expm(M * max(tt, 0.0))[:n, n] for tt in np.atleast_1d(tau)])


def test_two_by_two_state_space_step_responses_match_the_matrix_exponential():
    m = Model("mimo")
    ss = m.add(StateSpace("ss", A=A2.tolist(), B=B2.tolist(), C=C2.tolist(), D=D2.tolist(),
                          u1=Step(height=1.0), u2=Step(height=-2.0, t0=0.5)))
    assert sorted(ss.ports()) == ["u1", "u2", "y1", "y2"] and isinstance(ss, StateSpace)
    res = m.compile().simulate(5.0, **TIGHT)
    x = step_state(A2, B2[:, 0], res.t) - 2.0 * step_state(A2, B2[:, 1], res.t - 0.5)
    # The inputs as simulated: at t0 = 0.5 the result has a row before the step and one after.
    u = np.c_[res["ss.u1"], res["ss.u2"]]
    expected = x @ C2.T + u @ D2.T
    # 6e-10 measured.
    np.testing.assert_allclose(np.c_[res["ss.y1"], res["ss.y2"]], expected, rtol=0, atol=1e-8)
    np.testing.assert_allclose(np.c_[res["ss.x0"], res["ss.x1"]], x, rtol=0, atol=1e-8)


def test_linearizing_a_mimo_state_space_block_returns_its_matrices():
    m = Model("mimo")
    m.add(StateSpace("ss", A=A2.tolist(), B=B2.tolist(), C=C2.tolist(), D=D2.tolist(), u1=0.0, u2=0.0))
    lin = m.compile().linearize(["ss.u1", "ss.u2"], ["ss.y1", "ss.y2"])
    order = [lin.states.index(f"ss.x{i}") for i in range(2)]
    # Exact Jacobians of linear equations: equal up to rounding.
    np.testing.assert_allclose(lin.A[np.ix_(order, order)], A2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lin.B[order], B2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lin.C[:, order], C2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lin.D, D2, rtol=0, atol=1e-14)


def test_one_input_two_outputs_and_the_siso_interface():
    # A vector B is one input (u1 when there are several outputs), a vector C one output.
    ss = StateSpace("ss", A=[[-1.0]], B=[2.0], C=[[1.0], [3.0]])
    assert sorted(ss.ports()) == ["u1", "y1", "y2"]
    assert ss.parameters["D"] == ((0.0,), (0.0,))
    for B, C in (([2.0], [1.0]), ([[2.0]], [[1.0]]), (2.0, 1.0)):
        siso = StateSpace("siso", A=[[-1.0]], B=B, C=C, D=0.5)
        assert sorted(siso.ports()) == ["u", "y"]
        assert (siso.parameters["B"], siso.parameters["C"], siso.parameters["D"]) == ((2.0,), (1.0,), 0.5)
    assert sorted(TransferFunction("G", num=[1.0], den=[1.0, 1.0]).ports()) == ["u", "y"]
    m = Model("m")
    s = m.add(Step("s"))
    ss = m.add(StateSpace("ss", A=[[-1.0]], B=[2.0], C=[[1.0], [3.0]]))
    m.connect(s.y, ss.u1)
    res = m.compile().simulate(2.0, **TIGHT)
    x = 2.0 * (1 - np.exp(-res.t))
    # 2.4e-9 measured on y2 (about 5): the solver's relative tolerance.
    np.testing.assert_allclose(res["ss.y1"], x, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["ss.y2"], 3.0 * x, rtol=0, atol=1e-8)


@pytest.mark.parametrize("values, message", [
    (dict(A=[[1.0, 2.0]], B=[1.0], C=[1.0]), "A must be a square matrix (n×n), got shape (1, 2)"),
    (dict(A=A2, B=np.ones((3, 2)), C=C2), "B must have shape (2, 2), got (3, 2)"),
    (dict(A=A2, B=B2, C=np.ones((2, 3))), "C must have shape (2, 2), got (2, 3)"),
    (dict(A=A2, B=B2, C=C2, D=np.ones((2, 1))), "D must have shape (2, 2), got (2, 1)"),
    (dict(A=A2, B=B2, C=C2, D=0.5), "D must have shape (2, 2), got ()"),
    (dict(A=A2, B=B2, C=C2, x_start=[1.0]), "x_start must have shape (2,), got (1,)"),
    (dict(A=A2, B=[1.0, 2.0, 3.0], C=[1.0, 0.0]), "B must have shape (2, 1), got (3,)"),
    (dict(A=A2, B=B2, C=[[1.0, np.nan]]), "C has entries that are not finite"),
    (dict(A=A2, B="ab", C=C2), "must be numbers, vectors or matrices"),
])
def test_state_space_rejects_mismatched_shapes_naming_the_component_and_the_shapes(values, message):
    with pytest.raises(ParameterError) as err:
        StateSpace("plant", **values)
    assert "StateSpace 'plant'" in str(err.value) and message in str(err.value)


# --- Table1D --------------------------------------------------------------------------------------

POINTS = [(0.0, 0.0), (1.0, 2.0), (1.5, 1.0), (3.0, 2.5)]
U, Y = np.array(POINTS).T


def table_on_a_ramp(extrapolate):
    # u runs from −1 to 4 over 1 s: below, through and beyond the table.
    m = Model("lut")
    r = m.add(Ramp("r", offset=-1.0, height=5.0, duration=1.0))
    tab = m.add(Table1D("tab", points=POINTS, extrapolate=extrapolate))
    m.connect(r.y, tab.u)
    return m.compile().simulate(1.0, t_eval=np.linspace(0.0, 1.0, 50))


def test_table1d_interpolates_like_numpy_and_holds_its_ends():
    res = table_on_a_ramp("hold")
    u = res["r.y"]
    assert u.min() < U[0] and u.max() > U[-1]
    # The same interpolation formula up to the order of operations: rounding only.
    np.testing.assert_allclose(res["tab.y"], np.interp(u, U, Y), rtol=0, atol=1e-12)


def test_table1d_linear_extrapolation_continues_the_end_segments():
    res = table_on_a_ramp("linear")
    u = res["r.y"]
    first, last = (Y[1] - Y[0]) / (U[1] - U[0]), (Y[-1] - Y[-2]) / (U[-1] - U[-2])
    expected = np.where(u < U[0], Y[0] + first * (u - U[0]),
                        np.where(u > U[-1], Y[-1] + last * (u - U[-1]), np.interp(u, U, Y)))
    np.testing.assert_allclose(res["tab.y"], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("extrapolate, u0, slope", [
    ("hold", 0.4, 2.0), ("hold", 1.2, -2.0), ("hold", 2.0, 1.0), ("hold", 1.0, -2.0),
    ("hold", -0.5, 0.0), ("hold", 3.5, 0.0), ("linear", -0.5, 2.0), ("linear", 3.5, 1.0)])
def test_table1d_linearizes_to_the_local_slope(extrapolate, u0, slope):
    # At a breakpoint (u0 = 1) the segment above it counts.
    m = Model("lut")
    m.add(Table1D("tab", points=POINTS, extrapolate=extrapolate, u=u0))
    lin = m.compile().linearize(["tab.u"], ["tab.y"])
    np.testing.assert_allclose(lin.D, [[slope]], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("values, message", [
    (dict(points=[(0.0, 1.0)]), "at least two"),
    (dict(points=[(0.0, 1.0), (0.0, 2.0)]), "strictly increasing"),
    (dict(points=[(1.0, 1.0), (0.0, 2.0)]), "strictly increasing"),
    (dict(points=[(0.0, 1.0), (1.0, math.inf)]), "finite"),
    (dict(points=[(0.0, "a"), (1.0, 2.0)]), "pairs of numbers"),
    (dict(points=[0.0, 1.0]), "pairs of numbers"),
    (dict(points=POINTS, extrapolate="clip"), '"hold" or "linear"'),
])
def test_table1d_rejects_bad_points_naming_the_component(values, message):
    with pytest.raises(ParameterError) as err:
        Table1D("lut1", **values)
    assert "Table1D 'lut1'" in str(err.value) and message in str(err.value)
