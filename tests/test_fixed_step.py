"""Fixed-step solvers (euler, rk4, trapezoidal, backward_euler) and invariant projection.

Every comparison is with a closed form: the RC charge 1 − e^(−t/RC), the stability functions
of the four methods, the Shockley diode law, the Lambert-W operating point and the
Lotka–Volterra first integral H = c·(x − ln x) + a·(y − ln y), kept by invariant projection.
"""
import numpy as np
import pytest
import sympy as sp
from scipy.special import lambertw

from physlib import Component, Model, Parameter, PhyslibError, Variable, der
from physlib.analysis.simulation.fixed_step import integrate_fixed
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, Switch, VoltageSource
from physlib.components.signals import PWM, Step

K_B, Q_E = 1.380649e-23, 1.602176634e-19
TAU = 1e-3                                   # R·C = 1 kΩ · 1 µF
SOLVERS = ["euler", "rk4", "trapezoidal", "backward_euler"]


def rc(t_step=0.0):
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=t_step)))
    r = m.add(Resistor("R1", R=1e3))
    c = m.add(Capacitor("C1", C=1e-6, v0=0.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m.compile()


def charge(t, t_step=0.0, v0=0.0, tau=TAU):
    """Capacitor voltage of the RC circuit driven by a 1 V step at t_step."""
    return np.where(t < t_step, v0, 1.0 - (1.0 - v0) * np.exp(-(t - t_step) / tau))


# --- accuracy --------------------------------------------------------------------------------

@pytest.mark.parametrize("solver, order", [("euler", 1), ("backward_euler", 1), ("trapezoidal", 2),
                                           ("rk4", 4)])
def test_error_shrinks_with_the_order_of_the_method(solver, order):
    # Halving dt divides the error at 5 ms by 2^p. The next term of the error expansion is
    # O(dt/τ) ≤ 10 % relative at these steps (dt/τ = 0.1 … 0.025), which moves log2 of the
    # ratio by < 0.1 (measured: at most 0.06, for euler at the coarsest pair).
    sim = rc()
    errors = []
    for dt in (1e-4, 5e-5, 2.5e-5):
        res = sim.simulate(5e-3, solver=solver, dt=dt)
        errors.append(abs(res["C1.v"][-1] - charge(5e-3)))
    observed = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(observed - order) < 0.1), observed


STABILITY = {   # one step of each method on v' = (1 − v)/τ multiplies 1 − v by R(z), z = −dt/τ
    "euler": lambda z: 1 + z,
    "backward_euler": lambda z: 1 / (1 - z),
    "trapezoidal": lambda z: (1 + z / 2) / (1 - z / 2),
    "rk4": lambda z: 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24,
}


@pytest.mark.parametrize("solver", SOLVERS)
def test_each_step_applies_the_methods_stability_function(solver):
    # On the linear RC circuit every method is exactly v_k = 1 − R(z)^k. Newton solves the
    # linear step equations of the implicit methods exactly, so only rounding over 50 steps
    # of O(1) values remains (~1e-14); 1e-12 is the margin.
    dt = 1e-4
    res = rc().simulate(5e-3, solver=solver, dt=dt)
    k = np.round(res.t / dt)
    np.testing.assert_allclose(res["C1.v"], 1.0 - STABILITY[solver](-dt / TAU) ** k, rtol=0, atol=1e-12)


def test_backward_euler_is_stable_far_beyond_the_time_constant():
    # dt = 10·τ: explicit Euler's factor |1 − 10| = 9 would blow up; backward Euler's 1/11
    # damps, so after 10 steps the capacitor is within 11^−10 ≈ 4e-11 of the source's 1 V.
    res = rc().simulate(0.1, solver="backward_euler", dt=10 * TAU)
    assert np.all(np.diff(res["C1.v"]) >= 0)
    assert abs(res["C1.v"][-1] - 1.0) < 1e-10


def test_params_and_x0_apply_to_fixed_step_runs():
    # R = 2 kΩ (τ = 2 ms) and v(0) = 0.5 V: v = 1 − 0.5·e^(−t/τ). rk4 at dt/τ = 0.05 errs by
    # ~z⁵/120·0.5 ≈ 1e-9 per step, ~1e-8 in all; 1e-7 is the margin.
    res = rc().simulate(5e-3, solver="rk4", dt=1e-4, params={"R1.R": 2e3}, x0={"C1.v": 0.5})
    assert np.max(np.abs(res["C1.v"] - charge(res.t, v0=0.5, tau=2e-3))) < 1e-7


# --- grid, time events, output times, hook ------------------------------------------------------

def test_step_grid_ends_with_a_short_step_at_t_end():
    # dt = 0.3 ms does not divide 5 ms: steps at k·dt up to 4.8 ms, then one of 0.2 ms.
    res = rc().simulate(5e-3, solver="rk4", dt=3e-4)
    expected = np.append(3e-4 * np.arange(17), 5e-3)
    np.testing.assert_allclose(res.t, expected, rtol=0, atol=1e-18)


def test_time_event_between_grid_points_splits_the_step():
    # A step at 1.234 ms, off the 0.1 ms grid: integrating across the jump would cost an
    # O(dt/τ) = 1e-1 error; splitting keeps rk4's accuracy. Its global error here is about
    # 10 steps · z⁵/120 · e^(−1) ≈ 3e-7 (z = 0.1); 1e-6 is the bound.
    t_step = 1.234e-3
    res = rc(t_step).simulate(5e-3, solver="rk4", dt=1e-4)
    assert np.count_nonzero(res.t == t_step) == 2          # left and right limit recorded
    assert np.max(np.abs(res["C1.v"] - charge(res.t, t_step))) < 1e-6


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("t_eval", [None, [0.0, 2.5e-3, 5e-3]])
def test_an_input_edge_at_t_end_does_not_leak_into_the_last_step(solver, t_eval):
    # The step at t_end changes nothing before it: the capacitor stays at 0 exactly, as with
    # the variable-step solvers. The last step's end stages once saw the input after the edge:
    # rk4 ended at dt/(6τ) = 0.0167, trapezoidal at dt/(2τ + dt), backward Euler at dt/(τ + dt).
    res = rc(5e-3).simulate(5e-3, solver=solver, dt=1e-4, t_eval=t_eval)
    assert res.t[-1] == 5e-3 and res["C1.v"][-1] == 0.0 and not res.events


def test_rows_repeat_a_time_only_at_events():
    """A PWM switching an RC, trapezoidal at 10 µs: the rows repeat a time (left and right
    limit) at the switch's 10 edges and nowhere else. The mode checks at each step's end once
    re-solved the algebraic variables, which moved by rounding, and that counted as a change
    with a row before it: pairs of equal rows at 2.14 ms, 2.2 ms, …"""
    m = Model("switched_rc")
    src = m.add(VoltageSource("src", V=1.0))
    switch = m.add(Switch("S1", Ron=0.0, Goff=0.0, control=PWM(f=1e3, duty=0.3)))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    res = m.compile().simulate(5e-3, solver="trapezoidal", dt=1e-5)
    repeated = res.t[1:][np.diff(res.t) == 0]
    edges = sorted({e.t for e in res.events if e.cause != "initial"})
    np.testing.assert_allclose(repeated, edges, rtol=0, atol=1e-15)
    assert len(edges) == 9              # on at 1, 2, 3, 4 ms (and 0), off at 0.3 … 4.3 ms


def test_t_eval_off_the_grid_is_interpolated_to_rk4_accuracy():
    # Cubic Hermite interpolation errs by at most dt⁴/384·max|v''''| = 1e-16/384·1e12 ≈ 2.6e-7,
    # on top of rk4's ≈ 3e-7: 1e-6 bounds both.
    t_eval = np.linspace(0.0, 5e-3, 37)
    res = rc().simulate(5e-3, solver="rk4", dt=1e-4, t_eval=t_eval)
    np.testing.assert_array_equal(res.t, t_eval)
    assert np.max(np.abs(res["C1.v"] - charge(t_eval))) < 1e-6


def test_step_end_hook_can_reset_the_state():
    # A hook that discharges the capacitor at 2.5 ms: afterwards v = 1 − e^(−(t − 2.5 ms)/τ),
    # and both the value before (1 − e^(−2.5)) and after (0) are recorded at 2.5 ms.
    # Tolerance: rk4's ≈ 3e-7 at dt = 0.1 ms, as above.
    sim = rc()
    p = sim.parameter_vector(None)

    def discharge(t, x, z):
        if abs(t - 2.5e-3) < 1e-12:
            return np.zeros_like(x), z
        return None

    times, X, _ = integrate_fixed(sim, "rk4", 0.0, 5e-3, 1e-4, np.zeros(1), np.zeros(0), p,
                                  step_end=discharge)
    at = np.flatnonzero(times == times[25])
    assert times[25] == pytest.approx(2.5e-3, abs=1e-15) and at.tolist() == [25, 26]
    expected = np.where(np.arange(times.size) <= 25, charge(times), charge(times, times[25]))
    assert abs(X[0, 25] - (1 - np.exp(-2.5))) < 1e-6 and X[0, 26] == 0.0
    assert np.max(np.abs(X[0] - expected)) < 1e-6


# --- a DAE with an algebraic loop ------------------------------------------------------------------

IS, RS, R_SRC, V_SRC = 1e-14, 10.0, 1e3, 5.0
VT = K_B * 300.15 / Q_E


def diode_clamp():
    """5 V step through 1 kΩ into a capacitor clamped by a diode with 10 Ω series resistance:
    the diode current solves i = Is·(exp((v − Rs·i)/Vt) − 1), an algebraic loop."""
    m = Model("clamp")
    src = m.add(VoltageSource("src", V=Step(height=V_SRC, t0=1e-3)))
    r = m.add(Resistor("R1", R=R_SRC))
    c = m.add(Capacitor("C1", C=10e-6))
    d = m.add(Diode("D1", Is=IS, Rs=RS))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p, d.p)
    m.connect(c.n, d.n, src.n, gnd.p)
    return m.compile()


@pytest.mark.parametrize("solver", ["rk4", "trapezoidal"])
def test_algebraic_loop_is_satisfied_at_every_step(solver):
    # Shockley's law with the series resistor must hold at every output. Newton stops at a
    # relative step of 1e-12 (and converges quadratically), rounding in exp() is ~1e-16·i:
    # a residual below 1e-12·max|i| (≈ 4e-15 A) leaves a margin of ~100.
    sim = diode_clamp()
    assert sim.algebraic                    # the loop is really solved by Newton
    res = sim.simulate(20e-3, solver=solver, dt=1e-4)
    v, i = res["C1.v"], res["D1.i"]
    residual = i - IS * (np.exp((v - RS * i) / VT) - 1)
    assert len(res.t) == 202                # every step plus both sides of the 1 ms event
    assert np.max(np.abs(residual)) <= 1e-12 * np.max(np.abs(i))


def test_diode_clamp_settles_at_the_lambert_w_operating_point():
    # Once the capacitor current has died out (the clamped time constant C·(Rs + Vt/i) ≈ 0.16 ms,
    # 19 ms ≈ 100 of them), V = (R + Rs)·i + vd with i = Is·(e^(vd/Vt) − 1), whose solution is
    # vd = V + Is·Rt − Vt·W(Is·Rt/Vt·e^((V + Is·Rt)/Vt)), Rt = R + Rs. A steady state is a fixed
    # point of the trapezoidal step, so the only error is Newton's (1e-12 relative).
    res = diode_clamp().simulate(20e-3, solver="trapezoidal", dt=1e-4)
    rt = R_SRC + RS
    vd = V_SRC + IS * rt - VT * np.real(lambertw(IS * rt / VT * np.exp((V_SRC + IS * rt) / VT)))
    i = (V_SRC - vd) / rt
    assert res["C1.v"][-1] == pytest.approx(vd + RS * i, rel=1e-9)


# --- invariant projection: Lotka–Volterra -------------------------------------------------------

class LotkaVolterra(Component):
    """Predator–prey populations without ports: x' = a·x·(1 − y), y' = −c·y·(1 − x)."""

    a = Parameter(1.0)
    c = Parameter(2.0)
    x = Variable(start=2.0)
    y = Variable(start=2.0)

    def equations(self):
        return [sp.Eq(der(self.x), self.a * self.x * (1 - self.y)),
                sp.Eq(der(self.y), -self.c * self.y * (1 - self.x))]


X, Y = sp.symbols("lv.x lv.y")
H = 2 * (X - sp.log(X)) + 1 * (Y - sp.log(Y))          # c·(x − ln x) + a·(y − ln y), a = 1, c = 2


def lotka_volterra():
    m = Model("lv")
    m.add(LotkaVolterra("lv"))
    return m.compile()


def drift(res):
    h = 2 * (res["lv.x"] - np.log(res["lv.x"])) + (res["lv.y"] - np.log(res["lv.y"]))
    return np.max(np.abs(h - h[0]))


def test_invariant_projection_keeps_lotka_volterra_first_integral():
    # The projection is iterated to rounding level after every step: H ≈ 3.9 keeps its value
    # to a few ulp (measured 9e-16) over 100 time units; 1e-10 is the required bound.
    res = lotka_volterra().simulate(100.0, solver="rk4", dt=0.1, invariants=[H])
    assert res.t[-1] == pytest.approx(100.0) and len(res.t) == 1001
    assert drift(res) < 1e-10


def test_without_projection_lotka_volterra_first_integral_drifts():
    # rk4 at dt = 0.1 does not conserve H: it drifts by ~3e-4 over 100 time units (about 18
    # periods), far above 100 × the 1e-10 bound met with projection.
    res = lotka_volterra().simulate(100.0, solver="rk4", dt=0.1)
    assert drift(res) > 100 * 1e-10


def test_invariants_may_use_parameter_paths():
    # The same H written with the parameters lv.a and lv.c instead of their values.
    a, c = sp.symbols("lv.a lv.c")
    H_params = c * (X - sp.log(X)) + a * (Y - sp.log(Y))
    res = lotka_volterra().simulate(20.0, solver="rk4", dt=0.1, invariants=[H_params])
    assert drift(res) < 1e-10


# --- errors -------------------------------------------------------------------------------------

def test_fixed_step_solver_needs_dt():
    with pytest.raises(PhyslibError, match="dt"):
        rc().simulate(1e-3, solver="rk4")


@pytest.mark.parametrize("dt", [0.0, -1e-4, float("nan")])
def test_dt_must_be_positive(dt):
    with pytest.raises(PhyslibError, match="dt must be a positive"):
        rc().simulate(1e-3, solver="euler", dt=dt)


def test_dt_with_variable_step_solver_is_an_error():
    with pytest.raises(PhyslibError, match="max_step"):
        rc().simulate(1e-3, solver="idas", dt=1e-4)


def test_invariants_need_a_fixed_step_solver():
    with pytest.raises(PhyslibError, match="fixed-step"):
        lotka_volterra().simulate(1.0, invariants=[H])


def test_unknown_invariant_symbols_are_named():
    bad = H + sp.Symbol("lv.z") + sp.Symbol("der(lv.x)")
    with pytest.raises(PhyslibError, match=r"lv\.z.*der\(lv\.x\)"):
        lotka_volterra().simulate(1.0, solver="rk4", dt=0.1, invariants=[bad])
