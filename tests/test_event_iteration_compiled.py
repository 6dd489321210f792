"""The event iteration's compiled parts: after COMPILED_AFTER_ROUNDS rounds a model's
transitions run as one traced CasADi function, small algebraic systems are solved by unrolled
Newton steps, and restart rates by an unrolled solve. Each must give what the definitions say,
in every run of a compiled model (the compiled transitions are cached on it), and a component
whose transition cannot be traced keeps its Python calls."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from physlib import Model
from physlib.analysis.common.initialization import unrolled_newton
from physlib.analysis.simulation import mode_requests as event_module
from physlib.analysis.simulation.dae_points import consistent_rates
from physlib.components.electrical import (Capacitor, Diode, Ground, IdealDiode, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import PWM, Sine
from physlib.core.logic import is_symbolic

F_SW, DUTY = 50e3, 0.3          # Hz, 1


def buck(vin=48.0, f=F_SW, duty=DUTY, L=47e-6, C=220e-6, R=2.0, switch_options=None, diode=None) -> Model:
    """A buck converter: source, PWM-driven Switch, freewheeling diode (default the catalog's
    IdealDiode), L, C ∥ R load."""
    m = Model("buck")
    src = m.add(VoltageSource("Vin", V=vin))
    switch = m.add(Switch("S1", control=PWM(f=f, duty=duty), **(switch_options or {})))
    diode, choke = m.add(diode or IdealDiode("D1")), m.add(Inductor("L1", L=L))
    cap, load, gnd = m.add(Capacitor("C1", C=C)), m.add(Resistor("R1", R=R)), m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m


def switch_times(res, closed: int) -> np.ndarray:
    return np.array([e.t for e in res.events if e.component == "S1" and e.cause == "time"
                     and e.after["closed"] == closed])


def test_a_run_with_as_many_time_events_as_rounds_compiles_its_transitions_at_its_first():
    # 100 periods: 199 PWM edges ahead, each at least a round: traced at the first round (the
    # start's iteration), not after 64 rounds taken the general way. A run of 3 edges does not
    # pay for the tracing.
    short = buck().compile()
    short.simulate(2 / F_SW)
    assert "compiled_transitions" not in short.system.cache
    assert short.system.cache["transition_rounds"] >= 3
    sim = buck().compile()
    sim.simulate(100 / F_SW)
    assert sim.system.cache.get("compiled_transitions")
    assert sim.system.cache["transition_rounds"] == 1


@pytest.mark.parametrize("run", [1, 2])
def test_every_run_of_a_compiled_model_switches_at_every_pwm_edge(run):
    # 100 periods: 200 switch events, far past the rounds after which the transitions run
    # compiled. The second run uses them from its first event: a cache that kept the first
    # run's component objects once made that run switch nothing at all.
    sim = buck().compile()
    periods = 100
    t_end = periods / F_SW
    for _ in range(run):
        res = sim.simulate(t_end, t_eval=np.linspace(0.0, t_end, 20001))
    assert sim.system.cache.get("compiled_transitions"), "the transitions never ran compiled"
    k = np.arange(1, periods)
    np.testing.assert_allclose(switch_times(res, 1), k / F_SW, rtol=0, atol=1e-12)
    np.testing.assert_allclose(switch_times(res, 0), np.arange(periods) / F_SW + DUTY / F_SW,
                               rtol=0, atol=1e-12)
    # Between edges the inductor current rises at (Vin - v)/L and falls at -v/L (the diode
    # conducting): its slopes on either side of the last turn-off edge give the output voltage.
    t_off = switch_times(res, 0)[-1]
    v = float(np.interp(t_off, res.t, res["C1.v"]))
    on = (res.t > t_off - 0.5 * DUTY / F_SW) & (res.t < t_off)
    off = (res.t > t_off) & (res.t < t_off + 0.5 * (1 - DUTY) / F_SW)
    rise = np.polyfit(res.t[on] - t_off, res["L1.i"][on], 1)[0]
    fall = np.polyfit(res.t[off] - t_off, res["L1.i"][off], 1)[0]
    # The capacitor voltage moves by well under 0.1 % within half a period.
    assert rise == pytest.approx((48.0 - v) / 47e-6, rel=2e-3)
    assert fall == pytest.approx(-v / 47e-6, rel=2e-3)


class PythonDiode(IdealDiode):
    """The catalog's ideal diode with its transition in plain Python (``if`` on values), which
    cannot be traced to a CasADi function."""

    def transition(self, v, fired):
        if fired[0]:
            return {"on": 1 - v["pre(on)"]}
        if v["on"] and v["s"] < 0:
            return {"on": 0}
        if not v["on"] and v["s"] > 0:
            return {"on": 1}
        return {"on": v["on"]}


def rectifier(diode_class=IdealDiode) -> Model:
    """The half-wave rectifier of the engine issue: 10 V, 1 kHz sine, 1 kOhm parallel 1 uF."""
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=1e3)))
    d, r = m.add(diode_class("D1")), m.add(Resistor("R1", R=1e3))
    c, gnd = m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    return m


def test_a_transition_that_cannot_be_traced_keeps_its_python_calls():
    # 80 ms: 160 diode events, past COMPILED_AFTER_ROUNDS; the untraceable transition falls
    # back to Python for good and switches as the catalog diode does.
    traced = rectifier(IdealDiode).compile().simulate(80e-3)
    python_sim = rectifier(PythonDiode).compile()
    plain = python_sim.simulate(80e-3)
    assert python_sim.system.cache.get("compiled_transitions") is False
    assert len(traced.events) == len(plain.events) > 2 * event_module.COMPILED_AFTER_ROUNDS
    for a, b in zip(traced.events, plain.events):
        assert (a.component, a.after) == (b.component, b.after)
        assert a.t == pytest.approx(b.t, abs=1e-12)
    np.testing.assert_allclose(plain["C1.v"], traced["C1.v"], rtol=0, atol=1e-9)


def test_python_diode_is_really_untraceable():
    # The fallback test above means something only if tracing this class fails.
    import casadi as cs
    v = {"on": cs.SX.sym("on"), "s": cs.SX.sym("s"), "pre(on)": cs.SX.sym("pre")}
    assert is_symbolic(v["on"])
    with pytest.raises(Exception):
        PythonDiode("D").transition(v, [cs.SX.sym("fired")])


def test_unrolled_newton_solves_a_diode_behind_a_resistor():
    # No states: the algebraic variables are solved at each output time, here by the unrolled
    # Newton steps (4 variables). The diode current against the scalar equation
    # i = Is·(exp((V − R·i)/vt) − 1) solved by bracketing, to 1e-12 relative.
    m = Model("diode_r")
    src = m.add(VoltageSource("V1", V=Sine(amplitude=5.0, f=1.0, offset=5.0)))
    d, r, gnd = m.add(Diode("D1", Is=1e-14)), m.add(Resistor("R1", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    sim = m.compile()
    assert unrolled_newton(sim.system) is not None
    times = np.linspace(0.0, 1.0, 9)
    res = sim.simulate(1.0, t_eval=times)
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    for t, current in zip(res.t, res["D1.i"]):
        v = 5.0 + 5.0 * math.sin(2 * math.pi * t)
        exact = brentq(lambda i: i - 1e-14 * math.expm1((v - 1e3 * i) / vt), -1e-12, v / 1e3 + 1e-12,
                       xtol=1e-18, rtol=1e-15)
        assert current == pytest.approx(exact, rel=1e-12, abs=1e-20)


def test_unrolled_rates_equal_the_derivative_of_the_solution():
    # A divider R1–R2 with C across R2, driven by a sine: the node voltage is the state, the
    # source current algebraic; its rate from the unrolled solve equals the time derivative
    # of i = (V(t) − v)/R1 with v' from the same point.
    m = Model("divider")
    src = m.add(VoltageSource("V1", V=Sine(amplitude=2.0, f=50.0)))
    r1, r2 = m.add(Resistor("R1", R=1e3)), m.add(Resistor("R2", R=2e3))
    c, gnd = m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r1.p)
    m.connect(r1.n, r2.p, c.p)
    m.connect(r2.n, c.n, src.n, gnd.p)
    sim = m.compile()
    system = sim.system
    p = sim.parameter_vector({})
    res = sim.simulate(3e-3, t_eval=[3e-3])
    x = np.array([res["C1.v"][-1]])
    z = np.asarray(system.start(p, 3e-3)[1]).ravel()
    from physlib.analysis.common.initialization import solve_algebraic
    z = solve_algebraic(system, x, z, p, 3e-3, str)
    rates = consistent_rates(system, x, z, p, 3e-3)
    t, w = 3e-3, 2 * math.pi * 50.0
    v, vdot = x[0], rates[0]
    assert vdot == pytest.approx(((2.0 * math.sin(w * t) - v) / 1e3 - v / 2e3) / 1e-6, rel=1e-12)
    # Every algebraic variable's rate against central differences of its solved value.
    h = 1e-7
    plus = solve_algebraic(system, x + h * vdot, z, p, t + h, str)
    minus = solve_algebraic(system, x - h * vdot, z, p, t - h, str)
    np.testing.assert_allclose(rates[1:], (plus - minus) / (2 * h), rtol=1e-6, atol=1e-9)


def test_unrolled_solves_are_accurate_on_a_badly_scaled_system():
    # A MOSFET buck at t = 0: junction capacitances of 1e-10 F beside unit entries make the
    # algebraic Jacobian's condition 1.7e12. The unrolled Newton and the restart rates must
    # agree with NumPy's pivoted LU (Newton iterated to convergence); with CasADi's symbolic
    # solve the derivatives were 3.6e-9 off and IDA failed at the next edge of a finer grid.
    import casadi as cs
    import physlib.spice
    from physlib.analysis.common.initialization import algebraic_jacobian, solve_algebraic
    from reference import reference_file
    sim = physlib.spice.read(reference_file("spice", "mosfet", "buck.cir")).model.compile()
    system = sim.system
    assert unrolled_newton(system) is not None
    p = sim.parameter_vector({})
    x, z0 = (np.asarray(v).ravel() for v in system.start(p, 0.0))
    z = solve_algebraic(system, x, z0, p, 0.0, str)
    reference = z0.copy()
    jacobian = algebraic_jacobian(system)
    for _ in range(8):
        g, J = jacobian(x, reference, p, 0.0)
        reference = reference - np.linalg.solve(np.array(cs.DM(J)), np.asarray(g).ravel())
    # Two backward-stable solves of a system of condition 3.5e9 (after scaling) may differ by
    # up to cond·eps ≈ 1e-6; measured 1.8e-12, so 1e-10 of each value, above a floor of 1e-15
    # of the largest for the currents that are rounding (1e-22 A beside 24 V). CasADi's own
    # symbolic solve was 3.6e-9 off here, and 30 % off on the rates below.
    np.testing.assert_allclose(z, reference, rtol=1e-10, atol=1e-15 * np.max(np.abs(reference)))
    # z' = −(∂g/∂z)⁻¹·(∂g/∂x·x' + ∂g/∂t) by NumPy on the same point.
    rates = consistent_rates(system, x, z, p, 0.0)
    xs, zs, ps, ts = system.symbols(cs.SX)
    xdot, g = system.dae(xs, zs, ps, ts)
    parts = cs.Function("parts", [xs, zs, ps, ts], [xdot, cs.jacobian(g, xs), cs.jacobian(g, zs), cs.jacobian(g, ts)])
    f, g_x, g_z, g_t = (np.array(cs.DM(v)) for v in parts(x, z, p, 0.0))
    f = f.ravel()
    zdot = -np.linalg.solve(g_z, g_x @ f + g_t.ravel())
    np.testing.assert_allclose(rates[:len(x)], f, rtol=1e-14, atol=0)
    np.testing.assert_allclose(rates[len(x):], zdot, rtol=1e-10, atol=1e-12 * np.max(np.abs(zdot)))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_small_solve_is_backward_stable_on_badly_scaled_matrices(n, seed):
    # A well-conditioned matrix with its rows and columns scaled over 15 decades (the units of
    # a circuit's equations and unknowns) and some entries zeroed: each row's residual is at
    # the rounding of that row, max_j |A_ij|·max|x| + |b_i| (row scaling, then partial
    # pivoting). Measured on 3000 such systems: at most 0.62 ulp; NumPy's LU (no row
    # scaling) reaches 6e8 ulp on the same; 10·n ulp leaves room.
    import casadi as cs
    from physlib.analysis.common.initialization import small_solve
    rng = np.random.default_rng(seed)
    core = rng.normal(size=(n, n)) + 3 * np.eye(n)
    core[rng.random((n, n)) < 0.3] = 0.0
    np.fill_diagonal(core, np.where(np.diag(core) == 0, 1.0, np.diag(core)))
    A = 10.0 ** rng.uniform(-12, 3, n)[:, None] * core * 10.0 ** rng.uniform(-12, 3, n)[None, :]
    b = rng.normal(size=n) * 10.0 ** rng.uniform(-12, 3, n)
    As, bs = cs.SX.sym("A", n, n), cs.SX.sym("b", n)
    x = np.asarray(cs.Function("solve", [As, bs], [small_solve(As, bs)])(A, b)).ravel()
    row_rounding = np.max(np.abs(A), axis=1) * np.max(np.abs(x)) + np.abs(b)
    assert np.all(np.abs(A @ x - b) <= 10 * n * np.finfo(float).eps * row_rounding)
