"""Forward parameter sensitivities (``sim.sensitivity``) against closed forms and against central
differences of ``simulate``, through state events (impacts, a clutch locking, a diode switching)
and time events whose instant is a parameter (a pulse's falling edge); and the SensitivityError
where a sensitivity does not exist.

Tolerances: the runs are at rtol 1e-10 (atol 1e-12), where the states themselves are good to about
1e-10 relative; the sensitivities are integrated by the same solver with each direction θ·∂x/∂θ
held to the same weights, so errors of a few 1e-9 relative are expected and the bounds (1e-7 of
the closed forms, 1e-8 for the linear DC motor) leave a decade of margin while any wrong jump
condition (a missing ẋ·τ term is O(1) relative) fails them by far.
"""
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

from physlib import Component, Mode, Model, Parameter, SensitivityError, Variable, der
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, VoltageSource
from physlib.components.signals import Pulse, Step
from physlib.components.translational import Fixed, Force, HardStop, Mass
from half_wave_rectifier import rectifier
from test_electrical_transients import rc_model
from test_events import Relay
from test_export_c import diode_clipper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import clutch_sweep  # noqa: E402
import dc_motor  # noqa: E402

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
G = 9.81


def relative_error(value, exact):
    return np.max(np.abs(np.asarray(value) - exact)) / np.max(np.abs(exact))


@pytest.mark.parametrize("method", ["forward", "adjoint"])
@pytest.mark.parametrize("solver", ["idas", "cvodes"])
def test_rc_step_sensitivities_to_r_and_c_equal_the_closed_form(solver, method):
    # v = 1 − exp(−t/RC): ∂v/∂R = −t/(R²C)·exp(−t/RC), ∂v/∂C = −t/(RC²)·exp(−t/RC). The adjoint
    # method: one backward sweep per output and time (100 each), its integrations at the same
    # tolerances (measured: 1e-9 relative, as the forward's 4e-10..8e-10)
    R, C = 1e3, 1e-6
    t = np.linspace(5e-5, 5e-3, 100)
    sens = rc_model(R, C).compile().sensitivity(5e-3, params=["R1.R", "C1.C"], outputs=["C1.v", "R1.i"], t_eval=t,
                                                solver=solver, method=method, **TIGHT)
    decay = np.exp(-t / (R * C))
    assert relative_error(sens["C1.v", "R1.R"], -t / (R * R * C) * decay) < 1e-7
    assert relative_error(sens["C1.v", "C1.C"], -t / (R * C * C) * decay) < 1e-7
    # the resistor's current i = (1 − v)/R follows through the algebraic part
    assert relative_error(sens["R1.i", "R1.R"], -(decay / R ** 2) + t / (R ** 3 * C) * decay) < 1e-7
    assert sens.rank("C1.v")[0][0] in ("R1.R", "C1.C")
    assert np.allclose(sens.relative("C1.v", "R1.R"), sens.relative("C1.v", "C1.C"), rtol=1e-6, atol=1e-12)


def test_dc_motor_sensitivities_to_five_parameters_equal_the_augmented_matrix_exponential():
    # L·i' = V − R·i − k·w, J·w' = k·i − d·w: the sensitivities solve S' = A·S + A_p·x + b_p, so
    # [x; S_R; ...; S_d; 1] obeys one linear ODE whose solution is a matrix exponential
    R, L, k, J, d, V = dc_motor.R, dc_motor.L, dc_motor.K, dc_motor.J, dc_motor.B, dc_motor.V
    A = np.array([[-R / L, -k / L], [k / J, -d / J]])
    b = np.array([V / L, 0.0])
    dA = [np.array([[-1 / L, 0], [0, 0]]), np.array([[R / L ** 2, k / L ** 2], [0, 0]]),
          np.array([[0, -1 / L], [1 / J, 0]]), np.array([[0, 0], [-k / J ** 2, d / J ** 2]]),
          np.array([[0, 0], [0, -1 / J]])]
    db = [np.zeros(2), np.array([-V / L ** 2, 0]), np.zeros(2), np.zeros(2), np.zeros(2)]
    n = 2 * 6 + 1
    M = np.zeros((n, n))
    M[:2, :2], M[:2, -1] = A, b
    for j in range(5):
        rows = slice(2 + 2 * j, 4 + 2 * j)
        M[rows, rows], M[rows, :2], M[rows, -1] = A, dA[j], db[j]
    start = np.zeros(n)
    start[-1] = 1.0
    t = np.linspace(0.01, 0.5, 50)
    exact = np.array([sla.expm(M * ti) @ start for ti in t])
    names = ["R1.R", "L1.L", "emf.k", "rotor.J", "load.d"]
    sens = dc_motor.build().compile().sensitivity(0.5, params=names, t_eval=t, **TIGHT)
    for j, name in enumerate(names):
        for row, output in enumerate(["L1.i", "rotor.w"]):
            assert relative_error(sens[output, name], exact[:, 2 + 2 * j + row]) < 1e-8, (output, name)


def bouncing_ball(h0=5.0, e=0.8):
    """A ball dropped from model parameter h0 onto a HardStop with restitution e."""
    m = Model("ball")
    height = m.parameter("h0", h0, unit="m")
    floor, ball = m.add(Fixed("floor")), m.add(Mass("ball", m=1.0, s0=height))
    gravity = m.add(Force("gravity", f=-G))
    stop = m.add(HardStop("contact", e=e, s_rel_start=height, v_rest=1e-4))
    m.connect(floor.flange, stop.flange_a)
    m.connect(stop.flange_b, ball.flange_a)
    m.connect(ball.flange_b, gravity.flange)
    return m.compile()


def test_bouncing_ball_impact_times_and_height_move_with_h0_and_e_as_the_closed_form():
    # impacts at t_k = t1·(1 + 2e + ... + 2e^(k−1)), t1 = √(2·h0/g); just after the first the
    # height is 0 with speed e·√(2g·h0) upward, so ∂h/∂h0 = −(e·√(2g·h0))·∂t1/∂h0 = −e there
    h0, e = 5.0, 0.8
    sens = bouncing_ball(h0, e).sensitivity(6.0, params=["h0", "contact.e"], **TIGHT)
    t1 = np.sqrt(2 * h0 / G)
    impacts = [event for event in sens.events if event.after == {"contact": 2}]
    assert len(impacts) == 5
    for k, event in enumerate(impacts):
        t_k = t1 * (1 + 2 * sum(e ** j for j in range(1, k + 1)))
        assert event.t == pytest.approx(t_k, abs=1e-9)
        assert event.dt["h0"] == pytest.approx(t_k / (2 * h0), abs=1e-7)
        assert event.dt["contact.e"] == pytest.approx(2 * t1 * sum(j * e ** (j - 1) for j in range(1, k + 1)),
                                                      abs=1e-7)
    row = int(np.searchsorted(sens.t, impacts[0].t))        # the row just before the first impact
    assert sens["ball.s", "h0"][row] == pytest.approx(1.0, abs=1e-7)
    assert sens["ball.s", "h0"][row + 1] == pytest.approx(-e, abs=1e-7)      # just after
    # the speed after the impact, e·g·t1 − g·(t − t1): ∂v/∂h0 = (1 + e)·g·∂t1/∂h0
    assert sens["ball.v", "h0"][row + 1] == pytest.approx((1 + e) * G * t1 / (2 * h0), rel=1e-7)


@pytest.mark.parametrize("method", ["forward", "adjoint"])
def test_a_model_parameter_moves_the_entries_computed_from_it_also_when_one_is_named_itself(method):
    # R1.R = tau/cv, C1.C = cv: v = 1 − exp(−t/tau) whatever cv, so ∂v/∂tau = −t/tau²·exp(−t/tau)
    # and ∂v/∂cv = 0, while ∂v/∂R1.R is the partial −t·C/tau²·exp(−t/tau). A column must not
    # depend on which other columns are asked for: naming R1.R beside tau made ∂v/∂tau zero
    # (R1.R's own unit column replaced tau's derivative) and ∂v/∂cv the partial by C1.C alone,
    # −t/(R·C²)·exp(−t/tau), of order 4e5 V/F. Tolerances as above: 1e-7 of the closed forms,
    # and ∂v/∂cv below 1e-5 V/F (the five-point difference of the expressions: ~1e-12 of 4e5)
    m = Model("rc")
    tau, cv = m.parameter("tau", 1e-3, unit="s"), m.parameter("cv", 1e-6, unit="F")
    src, gnd = m.add(VoltageSource("src", V=Step(height=1.0))), m.add(Ground("gnd"))
    r, c = m.add(Resistor("R1", R=tau / cv)), m.add(Capacitor("C1", C=cv))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    t = np.linspace(1e-4, 5e-3, 20)
    sens = m.compile().sensitivity(5e-3, params=["tau", "cv", "R1.R"], outputs=["C1.v"], t_eval=t,
                                   method=method, **TIGHT)
    decay = np.exp(-t / 1e-3)
    assert relative_error(sens["C1.v", "tau"], -t / 1e-6 * decay) < 1e-7
    assert np.max(np.abs(sens["C1.v", "cv"])) < 1e-5
    assert relative_error(sens["C1.v", "R1.R"], -t * 1e-6 / 1e-6 * decay) < 1e-7


def test_clutch_lock_time_moves_with_the_normal_force_and_the_locked_speed_does_not():
    # slip speed w0 + tau·t0/J1 at engagement falls at T·(1/J1 + 1/J2) − tau/J1 with T = mu·cgeo·fn
    # (examples/clutch_sweep.py); once locked, J2 turns at (J1·w0 + tau·t)/(J1 + J2): the momentum
    # the engine gave, whatever fn
    c = clutch_sweep
    fn, J2 = 1000.0, 2.0
    sens = c.build().compile().sensitivity(2.0, params=["clutch.fn_max", "J2.J"], **TIGHT)
    lock = [event for event in sens.events if event.component == "clutch" and event.after["mode"] == 0]
    assert len(lock) == 1
    rate = c.MU * c.CGEO * fn * (1 / c.J1 + 1 / J2) - c.TAU / c.J1
    t_lock = (c.W0 + c.TAU * c.T0 / c.J1) / rate
    assert lock[0].t == pytest.approx(c.T0 + t_lock, rel=1e-9)
    dt_dfn = -t_lock / rate * c.MU * c.CGEO * (1 / c.J1 + 1 / J2)
    assert lock[0].dt["clutch.fn_max"] == pytest.approx(dt_dfn, rel=1e-7)
    dt_dJ2 = t_lock / rate * c.MU * c.CGEO * fn / J2 ** 2
    assert lock[0].dt["J2.J"] == pytest.approx(dt_dJ2, rel=1e-7)
    after = sens.t > lock[0].t
    assert np.max(np.abs(sens["J2.w", "clutch.fn_max"][after])) < 1e-9
    exact = -(c.J1 * c.W0 + c.TAU * sens.t[after]) / (c.J1 + J2) ** 2
    assert relative_error(sens["J2.w", "J2.J"][after], exact) < 1e-7
    # while it slips, J2 speeds up at T/J2: ∂w/∂fn = mu·cgeo·(t − t0)/J2
    slipping = (sens.t > c.T0 + 0.1) & (sens.t < lock[0].t)
    assert relative_error(sens["J2.w", "clutch.fn_max"][slipping],
                          c.MU * c.CGEO * (sens.t[slipping] - c.T0) / J2) < 1e-7


def test_rc_charged_by_a_pulse_moves_with_its_width_as_the_closed_form():
    # v(T) = (exp(W/τ) − 1)·exp(−T/τ) after a pulse of width W < T: ∂v(T)/∂W = exp((W − T)/τ)/τ
    # (the falling edge at W is a time event whose instant is the parameter)
    tau, W, T = 1e-3, 0.4e-3, 2e-3
    sim = rc_model(V=Pulse(amplitude=1.0, width=W, period=10e-3)).compile()
    sens = sim.sensitivity(T, params=["src.V.width"], t_eval=[0.0, 1e-3, T], **TIGHT)
    assert sens["C1.v"][-1] == pytest.approx((np.exp(W / tau) - 1) * np.exp(-T / tau), rel=1e-8)
    assert sens["C1.v", "src.V.width"][-1] == pytest.approx(np.exp((W - T) / tau) / tau, rel=1e-8)


def central_differences(sim, output, names, t_end, t_eval, step=1e-4, **options):
    """∂output/∂θ by central differences of simulate, θ·(1 ± step) (O(step²) = 1e-8 truncation,
    rtol/step = 1e-6 from the runs' own error)."""
    columns = []
    for name in names:
        value = sim.parameters[name]
        runs = [sim.simulate(t_end, t_eval=t_eval, params={name: value * (1 + s * step)}, **options)[output]
                for s in (1, -1)]
        columns.append((runs[0] - runs[1]) / (2 * step * value))
    return columns


def test_ideal_diode_rectifier_sensitivities_equal_central_differences():
    # six diode switchings in 60 ms; the sensitivities carry across each (the turn-off instant from
    # the current's guard, the turn-on from the voltage's)
    sim = rectifier(10.0, 50.0, 1e3, 1e-4)
    t = np.linspace(1e-3, 0.06, 60)
    names = ["R1.R", "C1.C", "src.V.amplitude"]
    sens = sim.sensitivity(0.06, params=names, t_eval=t, **TIGHT)
    assert sum(event.component == "D1" for event in sens.events) >= 5
    for name, difference in zip(names, central_differences(sim, "C1.v", names, 0.06, t, **TIGHT)):
        assert relative_error(sens["C1.v", name], difference) < 1e-4, name


def test_coupled_clutches_sensitivities_equal_central_differences():
    # MSL's CoupledClutches to 1.3 s: two time events and six stick/slip changes, clutch 1 locking
    # and breaking away twice. Compared in relative units θ·∂y/∂θ against the largest of them for
    # that output: some are zero by physics (once clutch 2 sticks, J2 and J3 share the momentum
    # its internal torque never changed, whatever mu2) and central differences at step 1e-3 (a
    # truncation of ~1e-6; the runs' own error over the step, ~1e-7) show them at ~1e-5.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import coupled_clutches
    sim = coupled_clutches.build().compile()
    t = np.linspace(0.05, 1.3, 26)
    names = ["clutch1.fn_max", "clutch2.mu", "J2.J"]
    sens = sim.sensitivity(1.3, params=names, t_eval=t, **TIGHT)
    assert sum(event.cause == "state" for event in sens.events) >= 5
    for output in ["J1.w", "J3.w"]:
        differences = central_differences(sim, output, names, 1.3, t, step=1e-3, **TIGHT)
        scale = max(np.max(np.abs(d)) * sim.parameters[n] for n, d in zip(names, differences))
        for name, difference in zip(names, differences):
            error = np.max(np.abs(sens[output, name] - difference)) * sim.parameters[name]
            assert error < 1e-4 * scale, (output, name)


def test_ideal_buck_sensitivities_to_the_duty_and_the_choke_equal_central_differences():
    # five 50-kHz periods of the ideal buck: every PWM edge a time event (the falling one at
    # duty/f moves with the duty), the switch and the diode changing modes together at each
    import buck_converter
    sim = buck_converter.build().compile()
    t = np.linspace(1e-5, 1e-4, 10)
    names = ["L1.L", "S1.control.duty"]
    sens = sim.sensitivity(1e-4, params=names, t_eval=t, max_events=10_000, **TIGHT)
    assert len(sens.events) >= 10
    for output in ["C1.v", "L1.i"]:
        for name, difference in zip(names, central_differences(sim, output, names, 1e-4, t, max_events=10_000,
                                                               **TIGHT)):
            assert relative_error(sens[output, name], difference) < 1e-4, (output, name)


def test_a_saturation_current_of_1e_14_is_a_parameter_like_any_other():
    # directions are integrated as θ·∂x/∂θ, so a parameter of 1e-14 A sits at the states' scale
    m = Model("diode_rc")
    src = m.add(VoltageSource("src", V=Step(height=2.0, t0=0.0)))
    r, d = m.add(Resistor("R1", R=1e3)), m.add(Diode("D1", Is=1e-14))
    c, gnd = m.add(Capacitor("C1", C=1e-6, v0=0.0)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    sim = m.compile()
    t = np.linspace(1e-4, 3e-3, 30)
    sens = sim.sensitivity(3e-3, params=["D1.Is"], t_eval=t, **TIGHT)
    difference, = central_differences(sim, "C1.v", ["D1.Is"], 3e-3, t, **TIGHT)
    assert np.max(np.abs(difference)) > 1e9          # V per A: a sizeable effect of a tiny parameter
    assert relative_error(sens["C1.v", "D1.Is"], difference) < 1e-4


class Grazer(Component):
    """An oscillator x = cos t whose guard x + a reaches zero near t = π: with a a hair under 1 it
    dips below zero by 1 − a only, grazing (its rate at the crossing is √(2·(1 − a)))."""

    x = Variable("1", "state")
    v = Variable("1", "state")
    a = Parameter(1.0, unit="1")
    touched = Mode({"no": 0, "yes": 1}, start="no")

    def equations(self):
        import sympy as sp
        return [sp.Eq(der(self.x), self.v), sp.Eq(der(self.v), -self.x)]

    def guards(self):
        return [self.x + self.a]

    def transition(self, values, fired):
        return {"touched": 1} if fired[0] else {}


def test_a_grazing_guard_is_a_sensitivity_error_naming_it():
    m = Model("graze")
    # a dip of 5e-8 below zero, within the zero band 10·atol = 1e-7 the simulator treats as zero
    # after an event: the crossing is seen, but a change of a by 5e-8 makes it vanish
    m.add(Grazer("osc", a=1.0 - 5e-8))
    with pytest.raises(SensitivityError, match=r"osc.*t = 3\.14.*grazing"):
        m.compile().sensitivity(4.0, params=["osc.a"], x0={"osc.x": 1.0, "osc.v": 0.0}, max_step=1e-3)


def test_a_clean_crossing_of_the_same_guard_has_the_closed_form_time_sensitivity():
    # cos t = −a first at t = π − acos(a): for a = 0.5 t = 2π/3, and ∂t/∂a = 1/sin t
    m = Model("cross")
    m.add(Grazer("osc", a=0.5))
    sens = m.compile().sensitivity(4.0, params=["osc.a"], x0={"osc.x": 1.0, "osc.v": 0.0}, **TIGHT)
    event, = sens.events
    assert event.t == pytest.approx(2 * np.pi / 3, rel=1e-9)
    assert event.dt["osc.a"] == pytest.approx(1 / np.sin(2 * np.pi / 3), rel=1e-7)


def test_an_event_storm_and_a_fixed_step_run_are_sensitivity_errors():
    m = Model("storm")
    m.add(Relay("relay"))
    sim = m.compile()
    with pytest.raises(SensitivityError, match=r"chase each other.*event storm.*relay"):
        sim.sensitivity(2.0, params=["relay.x"], max_events=20)
    with pytest.raises(SensitivityError, match=r"variable-step solver.*'rk4'"):
        rc_model().compile().sensitivity(1e-3, params=["R1.R"], solver="rk4")


def test_an_unknown_parameter_is_named_with_the_close_ones():
    with pytest.raises(SensitivityError, match=r"'R1.RR'.*did you mean R1.R"):
        rc_model().compile().sensitivity(1e-3, params=["R1.RR"])


# --- the adjoint gradient (sim.gradient) ---------------------------------------------------------

def weighted_sum(path, weights):
    """The objective Σ w_i·y(t_i), whose gradient is Σ w_i·∂y(t_i)/∂θ: every sample's sensitivity
    weighs in, so an error at any one of them shows."""
    def objective(values):
        return float(weights @ values[path]), {path: weights}
    objective.paths = [path]
    return objective


def test_rc_adjoint_gradient_equals_the_closed_form():
    R, C = 1e3, 1e-6
    t = np.linspace(5e-5, 5e-3, 100)
    weights = np.cos(np.arange(t.size))            # signs that change: no cancellation hides an error
    result = rc_model(R, C).compile().gradient(weighted_sum("C1.v", weights), ["R1.R", "C1.C"], 5e-3, t_eval=t,
                                               **TIGHT)
    decay = np.exp(-t / (R * C))
    assert result.value == pytest.approx(weights @ (1 - decay), rel=1e-8)
    assert result["R1.R"] == pytest.approx(weights @ (-t / (R * R * C) * decay), rel=1e-7)
    assert result["C1.C"] == pytest.approx(weights @ (-t / (R * C * C) * decay), rel=1e-7)


@pytest.mark.parametrize("case", ["dc_motor", "ball", "clutch"])
def test_adjoint_gradient_equals_the_forward_sensitivities_through_events(case):
    # the same jump conditions, transposed; the DC motor has no events, the ball five impacts (its
    # jump maps depend on h0 and e), the clutch a parameter-dependent time event and a lock
    sim, params, path, t_end = {
        "dc_motor": (dc_motor.build().compile(), ["R1.R", "L1.L", "emf.k", "rotor.J", "load.d"], "rotor.w", 0.5),
        "ball": (bouncing_ball(), ["h0", "contact.e"], "ball.s", 6.0),
        "clutch": (clutch_sweep.build().compile(), ["clutch.fn_max", "J2.J", "clutch.f_normalized.t0"], "J2.w",
                   2.0),
    }[case]
    t = np.linspace(t_end / 40, t_end, 40)
    weights = np.cos(np.arange(t.size))
    result = sim.gradient(weighted_sum(path, weights), params, t_end, t_eval=t, **TIGHT)
    sens = sim.sensitivity(t_end, params=params, t_eval=t, **TIGHT)
    for name in params:
        assert result[name] == pytest.approx(weights @ sens[path, name], rel=1e-7), name


def test_adjoint_sensitivities_equal_the_forward_ones_through_impacts():
    # the ball's five impacts: each backward sweep crosses the jump maps the forward run applies
    sim = bouncing_ball()
    t = np.linspace(0.15, 6.0, 40)
    params = ["h0", "contact.e"]
    adjoint = sim.sensitivity(6.0, params=params, outputs=["ball.s", "ball.v"], t_eval=t, method="adjoint", **TIGHT)
    forward = sim.sensitivity(6.0, params=params, t_eval=t, **TIGHT)
    assert [event.t for event in adjoint.events] == [event.t for event in forward.events]
    for output in ["ball.s", "ball.v"]:
        assert np.allclose(adjoint[output], forward[output], rtol=1e-8, atol=1e-9)
        for name in params:
            assert relative_error(adjoint[output, name], forward[output, name]) < 1e-7, (output, name)


def test_auto_takes_the_adjoint_for_few_outputs_and_times_and_its_result_names_what_it_holds():
    sim = rc_model().compile()
    names = ["R1.R", "C1.C", "C1.v"]                # the last: the capacitor's initial voltage
    few = sim.sensitivity(1e-3, params=names, outputs=["C1.v"], t_eval=[1e-3])
    assert few.outputs == ["C1.v"]                  # 1 output × 1 time < 3 parameters: the adjoint
    # v = v0·e + (1 − e) with e = exp(−t/RC): ∂v/∂v0 = e
    assert few["C1.v", "C1.v"][-1] == pytest.approx(np.exp(-1.0), rel=1e-5)
    with pytest.raises(SensitivityError, match=r"holds the sensitivities of C1.v only.*method='forward'"):
        few["R1.i", "R1.R"]
    assert sim.sensitivity(1e-3, params=names, outputs=["C1.v"], t_eval=[2e-4, 5e-4, 1e-3]).outputs is None
    with pytest.raises(SensitivityError, match=r"method='adjoint'\) needs outputs"):
        sim.sensitivity(1e-3, params=names, method="adjoint")


def test_sum_of_squares_gradient_matches_its_definition():
    from physlib.analysis.sensitivity import sum_of_squares
    t = np.linspace(1e-4, 5e-3, 20)
    sim = rc_model().compile()
    data = {"C1.v": 0.9 * (1 - np.exp(-t / 1.2e-3))}
    result = sim.gradient(sum_of_squares(data), ["R1.R"], 5e-3, t_eval=t, **TIGHT)
    sens = sim.sensitivity(5e-3, params=["R1.R"], t_eval=t, **TIGHT)
    error = sens["C1.v"] - data["C1.v"]
    assert result.value == pytest.approx(np.sum(error ** 2), rel=1e-7)
    assert result["R1.R"] == pytest.approx(np.sum(2 * error * sens["C1.v", "R1.R"]), rel=1e-7)


def test_gradient_of_an_integral_equals_the_closed_form():
    # ∫₀ᵀ i² dt of the RC step, i = exp(−t/RC)/R: C/(2R)·(1 − E), E = exp(−2T/RC); the integral is
    # a quadrature of the forward sweep held to atol 1e-12 on 5e-10 A²s (measured 2e-8 relative),
    # its gradient from a backward sweep scaled to the integral's size (measured 1e-9)
    from physlib.analysis.sensitivity import integral
    R, C, T = 1e3, 1e-6, 3e-3
    energy = integral(lambda y: y["R1.i"] ** 2, ["R1.i"])
    result = rc_model(R, C).compile().gradient(energy, ["R1.R", "C1.C"], T, **TIGHT)
    E = np.exp(-2 * T / (R * C))
    assert result.value == pytest.approx(C / (2 * R) * (1 - E), rel=1e-7, abs=0)
    assert result["R1.R"] == pytest.approx(-C / (2 * R ** 2) * (1 - E) - E * T / R ** 3, rel=1e-7, abs=0)
    assert result["C1.C"] == pytest.approx((1 - E) / (2 * R) - E * T / (R ** 2 * C), rel=1e-7, abs=0)


def test_gradient_of_an_integral_through_a_moving_edge_counts_the_integrands_jump():
    # ∫ i dt is the charge C·v(T) of the pulse-charged RC: ∂/∂W = C·exp((W − T)/τ)/τ. The current
    # jumps by −1/R at the falling edge t = W, which moves with W: without the jump term the
    # gradient is off by 1/R = 1e-3 A (measured: −8.0e-4 instead of 2.0e-4)
    from physlib.analysis.sensitivity import integral
    tau, W, T, C = 1e-3, 0.4e-3, 2e-3, 1e-6
    sim = rc_model(V=Pulse(amplitude=1.0, width=W, period=10e-3)).compile()
    result = sim.gradient(integral(lambda y: y["R1.i"], ["R1.i"]), ["src.V.width"], T, **TIGHT)
    assert result.value == pytest.approx(C * (np.exp(W / tau) - 1) * np.exp(-T / tau), rel=1e-8, abs=0)
    assert result["src.V.width"] == pytest.approx(C * np.exp((W - T) / tau) / tau, rel=1e-8, abs=0)


def test_gradient_of_the_clutch_lock_time_and_of_the_speed_at_the_lock_equal_the_closed_form():
    # the lock (the clutch's second mode change, after the engagement at t0) at t0 + t_lock as in
    # the forward test above; the locked speed (J1·w0 + tau·t)/(J1 + J2) taken at the lock moves
    # with it: ∂w/∂fn = tau/(J1 + J2)·∂t_lock/∂fn
    from physlib.analysis.sensitivity import at_event
    c = clutch_sweep
    fn, J2 = 1000.0, 2.0
    sim = c.build().compile()
    rate = c.MU * c.CGEO * fn * (1 / c.J1 + 1 / J2) - c.TAU / c.J1
    t_lock = (c.W0 + c.TAU * c.T0 / c.J1) / rate
    dt_dfn = -t_lock / rate * c.MU * c.CGEO * (1 / c.J1 + 1 / J2)
    lock = sim.gradient(at_event("clutch", 2), ["clutch.fn_max", "J2.J"], 2.0, **TIGHT)
    assert lock.value == pytest.approx(c.T0 + t_lock, rel=1e-9)
    assert lock["clutch.fn_max"] == pytest.approx(dt_dfn, rel=1e-7)
    assert lock["J2.J"] == pytest.approx(t_lock / rate * c.MU * c.CGEO * fn / J2 ** 2, rel=1e-7)
    speed = sim.gradient(at_event("clutch", 2, "J2.w"), ["clutch.fn_max"], 2.0, **TIGHT)
    assert speed.value == pytest.approx((c.J1 * c.W0 + c.TAU * (c.T0 + t_lock)) / (c.J1 + J2), rel=1e-9)
    assert speed["clutch.fn_max"] == pytest.approx(c.TAU / (c.J1 + J2) * dt_dfn, rel=1e-7)
    with pytest.raises(SensitivityError, match=r"'clutch' changes mode 2 times.*number 3"):
        sim.gradient(at_event("clutch", 3), ["clutch.fn_max"], 2.0)


@pytest.mark.parametrize("method", ["forward", "adjoint"])
def test_a_circuit_without_states_has_sensitivities_at_every_output_time(method):
    # A sine through R into a diode: no state, one algebraic unknown, solved at each output
    # time. Against simulate's central differences in R (h = 1e-4: O(h²) = 1e-8 relative, the
    # runs good to 1e-10), to 1e-6; a missing row or an unsolved one is wrong by O(1).
    from physlib.analysis.sensitivity.objectives import sum_of_squares

    sim = diode_clipper().compile()
    assert not sim.states
    t = np.linspace(0.0, 1e-3, 11)
    sens = sim.sensitivity(1e-3, params=["R1.R"], outputs=["R1.i"], t_eval=t, method=method, **TIGHT)
    h = 1e-4
    low, high = (sim.simulate(1e-3, t_eval=t, params={"R1.R": 1e3 * (1 + s * h)}, **TIGHT)["R1.i"] for s in (-1, 1))
    central = (high - low) / (2e3 * h)
    np.testing.assert_array_equal(sens.t, t)
    assert relative_error(sens.derivative("R1.i", "R1.R"), central) < 1e-6
    # the gradient of a sampled objective likewise (its value from the same rows)
    objective = sum_of_squares({"R1.i": np.zeros(len(t))})
    g = sim.gradient(objective, ["R1.R"], 1e-3, t_eval=t, **TIGHT)
    assert g.value == pytest.approx(np.sum(sens["R1.i"] ** 2), rel=1e-12)
    assert g["R1.R"] == pytest.approx(np.sum(2 * sens["R1.i"] * central), rel=1e-6)
