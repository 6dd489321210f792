"""Start values the constraints cannot honour are reported, never silently overridden; a
numerically singular system at the start or after an event is an error naming its equations,
never inf."""
import numpy as np
import pytest
import sympy as sp

from physlib import Input, InitializationError, Mode, Model, Parameter, PhyslibError
from physlib.analysis.common import start_values
from physlib.analysis.simulation import simulate as simulate_module
from physlib.analysis.common.start_values import StartValueWarning
from physlib.components.electrical import (Capacitor, CurrentSource, Ground, Inductor, OnePort, Resistor,
                                           VoltageSource)
from physlib.components.rotational import Inertia, Torque
from physlib.components.signals import Step
from test_electrical_transients import rc_model


def capacitor_across_source(**c1):
    m = Model("across")
    src = m.add(VoltageSource("src", V=1.0))
    c = m.add(Capacitor("C1", C=1e-6, **c1))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, c.p)
    m.connect(src.n, c.n, gnd.p)
    return m.compile()


def test_capacitor_given_v0_across_a_source_is_an_error_naming_it_the_value_and_the_source():
    with pytest.raises(InitializationError) as err:
        capacitor_across_source(v0=0.0).simulate(1e-3)
    message = str(err.value)
    assert "C1.v0" in message and "src" in message and "given 0 V" in message and "starts at 1 V" in message


@pytest.mark.parametrize("solver", ["idas", "rk4"])
def test_relaxed_start_warns_and_starts_from_the_consistent_value(solver):
    with pytest.warns(StartValueWarning, match="C1.v0"):
        res = capacitor_across_source(v0=0.0).simulate(1e-3, solver=solver, initial="relaxed",
                                                       **({"dt": 1e-4} if solver == "rk4" else {}))
    assert res["C1.v"][0] == pytest.approx(1.0, rel=1e-12)


def test_a_start_value_not_given_follows_the_constraints_silently():
    res = capacitor_across_source().simulate(1e-3)
    assert res["C1.v"][0] == pytest.approx(1.0, rel=1e-12)


def test_a_consistent_explicit_start_value_is_fine():
    res = capacitor_across_source(v0=1.0).simulate(1e-3)
    assert res["C1.v"][0] == pytest.approx(1.0, rel=1e-12)


def parallel_capacitors(v1, v2):
    m = Model("parallel")
    src = m.add(VoltageSource("src", V=1.0))
    r = m.add(Resistor("R1", R=1e3))
    c1 = m.add(Capacitor("C1", C=1e-6, v0=v1))
    c2 = m.add(Capacitor("C2", C=1e-6, v0=v2))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c1.p, c2.p)
    m.connect(src.n, c1.n, c2.n, gnd.p)
    return m.compile()


def test_parallel_capacitors_with_different_start_values():
    with pytest.raises(InitializationError, match=r"C[12]\.v0"):
        parallel_capacitors(0.0, 1.0).simulate(1e-3)
    res = parallel_capacitors(0.5, 0.5).simulate(1e-3)
    # Both start at 0.5 V and charge together through R1: v = 1 − 0.5·e^(−t/(R·2C)).
    assert res["C1.v"][-1] == pytest.approx(1 - 0.5 * np.exp(-1e-3 / 2e-3), rel=1e-5)


def test_series_inductors_with_different_start_currents():
    m = Model("series")
    src = m.add(VoltageSource("src", V=1.0))
    l1 = m.add(Inductor("L1", L=1e-3, i0=0.0))
    l2 = m.add(Inductor("L2", L=1e-3, i0=1.0))
    r = m.add(Resistor("R1", R=1.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, l1.p)
    m.connect(l1.n, l2.p)
    m.connect(l2.n, r.p)
    m.connect(r.n, src.n, gnd.p)
    with pytest.raises(InitializationError, match=r"L[12]\.i0"):
        m.compile().simulate(1e-3)


def test_current_source_in_series_with_an_inductor_given_i0():
    m = Model("forced")
    src = m.add(CurrentSource("src", I=2.0))
    ind = m.add(Inductor("L1", L=1e-3, i0=0.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, ind.p)
    m.connect(src.n, ind.n, gnd.p)
    with pytest.raises(InitializationError, match=r"L1\.i0") as err:
        m.compile().simulate(1e-3)
    assert "src" in str(err.value)


def test_rigidly_joined_inertias_with_different_speeds():
    m = Model("rigid")
    j1 = m.add(Inertia("J1", J=1.0, w0=10.0))
    j2 = m.add(Inertia("J2", J=2.0, w0=0.0))
    tau = m.add(Torque("tau", tau=0.0))
    m.connect(tau.flange, j1.flange_a)
    m.connect(j1.flange_b, j2.flange_a)
    with pytest.raises(InitializationError, match=r"J2\.w0"):
        m.compile().simulate(1.0, solver="rk4", dt=1e-2)


class Linear(OnePort):
    """v = k·i with a coefficient of either sign (a negative resistance for the test)."""

    k = Parameter(1.0, unit="Ohm")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.k * self.i)]


def loop_of_r_and_linear():
    """A source across R1 (1 kOhm) and N1 (v = k·i) in series: singular for k = -1 kOhm."""
    m = Model("singular")
    src = m.add(VoltageSource("src", V=1.0))
    r = m.add(Resistor("R1", R=1e3))
    n = m.add(Linear("N1", k=1e3))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, n.p)
    m.connect(src.n, n.n, gnd.p)
    return m.compile()


def test_a_numerically_singular_loop_is_an_error_naming_its_equations_not_inf():
    sim = loop_of_r_and_linear()
    assert sim.simulate(1e-3)["R1.i"][-1] == pytest.approx(1.0 / 2e3, rel=1e-12)
    # k = −R: the loop resistance is zero and the current would be 1/0.
    with pytest.raises(InitializationError, match="not finite") as err:
        sim.simulate(1e-3, params={"N1.k": -1e3})
    assert "N1" in str(err.value) and "R1" in str(err.value)
    # The same for an operating point (it returned infs).
    with pytest.raises(InitializationError, match="not finite.*at the operating point"):
        sim.operating_point(params={"N1.k": -1e3})


def test_a_large_model_without_modes_lets_its_function_of_every_position_go_after_the_check(monkeypatch):
    # As if the function of every position had LARGE instructions (a million-element
    # ladder's kept 280 MB): the start's finiteness check builds it, reads it and lets it go;
    # a run from the same point is not checked again, a run from another one is, and a
    # non-finite value is reported as it is with the function kept.
    kept = loop_of_r_and_linear()
    expected = kept.simulate(1e-3)["R1.i"]
    with pytest.raises(InitializationError) as kept_error:
        kept.simulate(1e-3, params={"N1.k": -1e3})
    monkeypatch.setattr(start_values, "LARGE", 0)
    sim = loop_of_r_and_linear()
    np.testing.assert_array_equal(sim.simulate(1e-3)["R1.i"], expected)
    assert sim.system.output_function is None
    evaluations = []

    class Counted(start_values.FastFunction):
        def __call__(self, *args):
            evaluations.append(args)
            return super().__call__(*args)

    monkeypatch.setattr(start_values, "FastFunction", Counted)
    np.testing.assert_array_equal(sim.simulate(2e-3)["R1.i"][0], expected[0])
    assert not evaluations                      # the same start: checked already
    assert sim.simulate(1e-3, params={"N1.k": 3e3})["R1.i"][-1] == pytest.approx(0.25e-3, rel=1e-12)
    assert len(evaluations) == 1 and sim.system.output_function is None
    with pytest.raises(InitializationError) as err:
        sim.simulate(1e-3, params={"N1.k": -1e3})
    assert str(err.value) == str(kept_error.value)
    # An operating point's check lets it go too: the point's values are computed when first
    # read (by the function, made again and kept then), and a run from the point (as a deck's
    # .tran starts) is not checked again.
    evaluations.clear()
    op = sim.operating_point(params={"N1.k": 1e3})
    assert len(evaluations) == 1 and sim.system.output_function is None
    assert sim.simulate(1e-3, params={"N1.k": 1e3}, x0=op)["R1.i"][0] == pytest.approx(0.5e-3, rel=1e-12)
    assert len(evaluations) == 1
    # nor does a linearization at it build the function (the number of positions is known)
    assert sim.linearize(["src.V"], ["R1.i"], at=op).D[0, 0] == pytest.approx(1 / 2e3, rel=1e-12)
    assert sim.system.output_function is None
    assert op["R1.i"] == pytest.approx(0.5e-3, rel=1e-12) and op.values.shape == (sim.system.n_positions,)
    assert len(evaluations) == 1 and sim.system.output_function is not None


def test_a_stepped_run_without_modes_builds_no_function_of_every_position(monkeypatch):
    # A large ODE without modes runs on the stepped solver (simulate.DENSE_LIMIT states and
    # more), whose start and time events iterate no modes: nothing there reads the outputs.
    monkeypatch.setattr(start_values, "LARGE", 0)
    monkeypatch.setattr(simulate_module, "DENSE_LIMIT", 0)
    sim = rc_model(R=1e3, C=1e-7, V=Step(t0=1e-4)).compile()
    res = sim.simulate(1e-3, t_eval=[5e-4, 1e-3])
    # v = 1 - exp(-(t - t0)/RC), RC = 0.1 ms; within the default tolerances' 1e-5 V
    np.testing.assert_allclose(res["C1.v"], 1.0 - np.exp(-(res.t - 1e-4) / 1e-4), atol=1e-5)
    assert sim.system.output_function is None


def test_a_model_with_modes_keeps_its_function_of_every_position(monkeypatch):
    # Its event iteration reads every output at each event: the check uses the kept function.
    monkeypatch.setattr(start_values, "LARGE", 0)
    monkeypatch.setattr(start_values, "FastFunction", None)      # the let-go path would call it
    sim = dimmer()
    assert sim.simulate(2e-3, params={"D1.k_low": 4.0})["D1.i"][-1] == 0.25
    assert sim.system.output_function is not None


class Dimmer(OnePort):
    """i = v/k with k dropping to k_low while the control exceeds 0.5."""

    k = Parameter(1.0, unit="Ohm")
    k_low = Parameter(0.0, unit="Ohm")
    control = Input("1", "lowers the coefficient above 0.5")
    low = Mode({"no": 0, "yes": 1}, start="no")

    def equations(self):
        k = sp.Piecewise((self.k_low, sp.Eq(self.low, 1)), (self.k, True))
        return super().equations() + [sp.Eq(self.i, self.v / k)]

    def guards(self):
        return [self.control - 0.5]

    def transition(self, v, fired):
        wanted = int(v["control"] > 0.5)
        return {"low": wanted} if wanted != v["low"] else {}


def dimmer():
    m = Model("dimmer")
    src = m.add(VoltageSource("src", V=1.0))
    d = m.add(Dimmer("D1", k=2.0, control=Step(t0=1e-3)))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(src.n, d.n, gnd.p)
    return m.compile()


@pytest.mark.parametrize("solver", ["idas", "rk4"])
def test_a_mode_that_makes_the_equations_singular_is_an_error_not_inf(solver):
    # At 1 ms the coefficient drops to 0 with a 1 V source across: i = 1/0. The results held
    # inf from there on; now the event names the mode, the variables and the equation.
    options = {"dt": 1e-5} if solver == "rk4" else {}
    sim = dimmer()
    assert sim.simulate(2e-3, solver=solver, params={"D1.k_low": 4.0}, **options)["D1.i"][-1] == 0.25
    with pytest.raises(PhyslibError, match=r"t = 0\.001 s.*D1.*not finite.*after the event") as err:
        sim.simulate(2e-3, solver=solver, **options)
    assert "k_low" in str(err.value)


def test_x0_of_every_state_in_order_equals_the_same_values_by_name():
    # x0 naming every state in the model's order is applied as one vector (no name lookups);
    # the same values in another order go name by name: the runs are the same.
    from physlib import Model
    from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
    m = Model("ladder3")
    src, gnd = m.add(VoltageSource("V1", V=1.0)), m.add(Ground("gnd"))
    node = src.p
    for k in range(1, 4):
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-6 * k))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    m.connect(src.n, gnd.p)
    sim = m.compile()
    values = {name: 0.1 * (k + 1) for k, name in enumerate(sim.states)}
    in_order = sim.simulate(5e-3, x0=values)
    by_name = sim.simulate(5e-3, x0=dict(reversed(list(values.items()))))
    for name in sim.states:
        assert in_order[name][0] == values[name]
        assert np.array_equal(in_order[name], by_name[name])


@pytest.mark.parametrize("brake_first", [True, False])
def test_an_inertias_start_speed_holds_whichever_component_on_its_shaft_was_added_first(brake_first):
    # A brake's stuck equation differentiates its shaft speed, so the shaft has two states
    # that are one variable: the inertia's w (start value w0) and the brake's flange speed
    # (none). The start value must be the inertia's whatever the order of m.add; with the
    # brake added first, a 90 rad/s shaft used to start at rest (an InitializationError).
    from physlib.components.rotational import Brake

    m = Model("braked_shaft")
    parts = [Brake("brake", fn_max=100.0, f_normalized=Step(t0=0.5)), Inertia("J", J=2.0, w0=90.0)]
    brake, inertia = (m.add(p) for p in (parts if brake_first else parts[::-1]))
    m.connect(brake.flange_b, inertia.flange_a)
    drive = m.add(Torque("drive", tau=0.0))
    m.connect(drive.flange, brake.flange_a)
    res = m.compile().simulate(0.4)
    np.testing.assert_allclose(res["J.w"], 90.0, rtol=0, atol=1e-12)     # free, nothing acts


def test_z_guess_starts_the_solve_of_the_algebraic_variables_and_names_what_it_cannot_take():
    # The algebraic variables at t0 are solved from z_guess (an operating point's, by name in
    # the model's order or any subset by name): the same consistent start as from the start
    # values on a linear circuit. A state or an unknown name is an error naming it.
    from physlib.components.electrical import Diode
    m = Model("diode_rc")
    src, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Ground("gnd"))
    r1, d1 = m.add(Resistor("R1", R=1e3)), m.add(Diode("D1", IS=1e-14))
    r2, c1 = m.add(Resistor("R2", R=1e3)), m.add(Capacitor("C1", C=1e-6))
    m.connect(src.p, r1.p, r2.p)
    m.connect(r1.n, d1.p)
    m.connect(r2.n, c1.p)
    m.connect(src.n, d1.n, c1.n, gnd.p)
    sim = m.compile()
    plain = sim.simulate(1e-3)
    assert sim.algebraic and sim.states == ["C1.v"]
    guess = {name: 5.0 for name in sim.algebraic}
    for given in (guess, dict(list(guess.items())[:1])):
        run = sim.simulate(1e-3, z_guess=given)
        for name in sim.algebraic:
            assert run[name][0] == pytest.approx(plain[name][0], rel=1e-12, abs=1e-15)
    with pytest.raises(PhyslibError, match=r"z_guess: C1\.v is not an algebraic variable"):
        sim.simulate(1e-3, z_guess={"C1.v": 1.0})
    with pytest.raises(PhyslibError, match="z_guess"):
        sim.simulate(1e-3, z_guess=[1.0])
