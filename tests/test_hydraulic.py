"""Hydraulic components against closed forms, and bad input."""
import numpy as np
import pytest

from physlib import DomainMismatchError, Model, ParameterError
from physlib.components.hydraulic import (Cylinder, FixedPressure, FlowSensor, FluidCapacitance,
                                          Inertance, LaminarResistance, Orifice, PressureSensor,
                                          PressureSource, Pump)
from physlib.components.rotational import Speed
from physlib.components.signals import Ramp
from physlib.components.thermal import HeatCapacitor
from physlib.components.translational import Damper, Fixed

V, BETA, P0 = 1e-3, 1e9, 1e7          # 1 l of oil at 100 bar: capacitance V/beta = 1e-12 m³/Pa


def discharge(restriction) -> Model:
    """A charged volume emptying through ``restriction`` into a tank at p = 0."""
    m = Model("discharge")
    volume = m.add(FluidCapacitance("volume", V=V, beta=BETA, p0=P0))
    tank = m.add(FixedPressure("tank", p=0.0))
    m.add(restriction)
    m.connect(volume.port_a, restriction.port_a)
    m.connect(restriction.port_b, tank.port_a)
    return m


def test_capacitance_discharges_through_laminar_resistance_exponentially():
    # (V/beta)·p' = −p/R: p = p0·exp(−t/τ), τ = R·V/beta = 0.1 s. Over 5τ at rtol 1e-10 the
    # error is ~1e-10 relative; 1e-6 of p0 checks the model, not the solver.
    R = 1e11
    res = discharge(LaminarResistance("R1", R=R)).compile().simulate(0.5, rtol=1e-10, atol=1e-6)
    expected = P0 * np.exp(-res.t / (R * V / BETA))
    assert np.max(np.abs(res["volume.p"] - expected)) < 1e-6 * P0
    np.testing.assert_allclose(res["R1.q"], res["volume.p"] / R, rtol=1e-12)


def test_capacitance_drains_through_orifice_with_sqrt_p_falling_linearly():
    # Turbulent orifice q = Cd·A·√(2p/rho): (V/beta)·p' = −q gives d√p/dt = −Cd·A·√(2/rho)/(2V/beta),
    # a straight line in √p, valid while p stays above the transition pressure (here to p0/4,
    # far above dp_tr = 1e3 Pa). rtol 1e-10: the line holds to 1e-6 relative.
    Cd, A, rho = 0.7, 1e-6, 850.0
    orifice = Orifice("orifice", Cd=Cd, A=A, rho=rho, dp_tr=1e3)
    slope = Cd * A * np.sqrt(2 / rho) / (2 * V / BETA)
    t_end = 0.5 * np.sqrt(P0) / slope          # √p halves
    res = discharge(orifice).compile().simulate(t_end, rtol=1e-10, atol=1e-6)
    assert res["volume.p"][-1] > 1e3 * orifice.dp_tr
    expected = np.sqrt(P0) - slope * res.t
    assert np.max(np.abs(np.sqrt(res["volume.p"]) - expected)) < 1e-6 * np.sqrt(P0)


def test_orifice_follows_square_root_law_above_transition_and_stays_finite_slope_below():
    # Sweep the pressure drop from −4·dp_tr to +4·dp_tr: outside ±dp_tr the flow is the
    # turbulent law; inside it the odd cubic q_tr·(5x − x³)/4, which meets the law with the
    # same value and slope at ±dp_tr. Algebraic evaluations: exact to 1e-12 relative.
    Cd, A, rho, dp_tr = 0.6, 2e-6, 900.0, 2e3
    m = Model("sweep")
    src = m.add(PressureSource("src", P=Ramp(height=8 * dp_tr, offset=-4 * dp_tr, duration=1.0)))
    orifice = m.add(Orifice("orifice", Cd=Cd, A=A, rho=rho, dp_tr=dp_tr))
    tank = m.add(FixedPressure("tank"))
    m.connect(tank.port_a, src.port_a)
    m.connect(src.port_b, orifice.port_a)
    m.connect(orifice.port_b, tank.port_a)
    t = np.linspace(0.0, 1.0, 801)
    res = m.compile().simulate(1.0, t_eval=t)
    dp = res["orifice.dp"]
    np.testing.assert_allclose(dp, -4 * dp_tr + 8 * dp_tr * t, rtol=1e-12, atol=1e-9)
    k = Cd * A * np.sqrt(2 / rho)
    x = dp / dp_tr
    expected = np.where(np.abs(x) < 1, k * np.sqrt(dp_tr) * (5 * x - x**3) / 4,
                        k * np.sign(dp) * np.sqrt(np.abs(dp)))
    np.testing.assert_allclose(res["orifice.q"], expected, rtol=1e-12, atol=1e-18)
    # Continuity of value and slope across the transition, and a finite slope at zero.
    slope = np.gradient(res["orifice.q"], dp)
    assert np.max(np.abs(np.diff(slope))) < 0.02 * np.max(slope)
    assert np.max(slope) == pytest.approx(1.25 * k / np.sqrt(dp_tr), rel=1e-3)


def test_inertance_flow_ramps_under_constant_pressure():
    # dp = (rho·L/A)·q': under a constant 2 bar the flow grows linearly, q = dp·A/(rho·L)·t.
    rho, L, A, dp = 850.0, 2.0, 1e-4, 2e5
    m = Model("pipe")
    src = m.add(PressureSource("src", P=dp))
    pipe = m.add(Inertance("pipe", rho=rho, L=L, A=A))
    meter = m.add(FlowSensor("meter"))
    tank = m.add(FixedPressure("tank"))
    m.connect(tank.port_a, src.port_a)
    m.connect(src.port_b, pipe.port_a)
    m.connect(pipe.port_b, meter.port_a)
    m.connect(meter.port_b, tank.port_a)
    res = m.compile().simulate(0.1, rtol=1e-10, atol=1e-12)
    # Linear in t: rounding-level agreement.
    np.testing.assert_allclose(res["meter.q"], dp * A / (rho * L) * res.t, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(res.stored_energy("pipe"),
                               0.5 * rho * L / A * res["pipe.q"]**2, rtol=1e-12, atol=1e-15)


def test_pump_drives_cylinder_at_displacement_over_area():
    # A speed-driven pump delivers q = D·w into a cylinder, which moves at v = q/A against a
    # damper (force d·v); the chamber pressure is d·v/A and the pump shaft needs D·Δp.
    # All algebraic and linear: 1e-12 relative.
    D, w, A, d = 2e-6, 100.0, 5e-4, 2e4
    m = Model("press")
    motor = m.add(Speed("motor", w=w))
    pump = m.add(Pump("pump", D=D))
    tank = m.add(FixedPressure("tank"))
    cylinder = m.add(Cylinder("cylinder", A=A))
    load = m.add(Damper("load", d=d))
    fixed = m.add(Fixed("fixed"))
    gauge = m.add(PressureSensor("gauge"))
    m.connect(motor.flange, pump.flange)
    m.connect(tank.port_a, pump.port_a, cylinder.port_b)
    m.connect(pump.port_b, cylinder.port_a, gauge.port_a)
    m.connect(cylinder.flange, load.flange_a)
    m.connect(load.flange_b, fixed.flange)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    v = D * w / A
    assert res["load.v_rel"][0] == pytest.approx(-v, rel=1e-12)
    assert res["gauge.p"][0] == pytest.approx(d * v / A, rel=1e-12)
    assert res["pump.flange.tau"][0] == pytest.approx(D * d * v / A, rel=1e-12)
    # Lossless conversions: shaft power in = damper power.
    assert w * res["pump.flange.tau"][0] == pytest.approx(d * v**2, rel=1e-12)


def test_hydraulic_port_cannot_meet_a_thermal_port():
    m = Model("m")
    volume = m.add(FluidCapacitance("volume", V=1e-3))
    body = m.add(HeatCapacitor("body", C=10.0))
    with pytest.raises(DomainMismatchError,
                       match=r"volume\.port_a \(hydraulic\).*body\.port \(thermal\)"):
        m.connect(volume.port_a, body.port)


@pytest.mark.parametrize("cls, values, bad", [
    (FluidCapacitance, {"V": 1e-3, "beta": 0.0}, "beta"),
    (FluidCapacitance, {"V": 1e-3, "beta": -1e9}, "beta"),
    (FluidCapacitance, {"V": 0.0}, "V"),
    (LaminarResistance, {"R": -1.0}, "R"),
    (Orifice, {"A": 0.0}, "A"), (Orifice, {"A": 1e-6, "rho": 0.0}, "rho"),
    (Orifice, {"A": 1e-6, "dp_tr": 0.0}, "dp_tr"),
    (Inertance, {"L": 1.0, "A": -1e-4}, "A"),
    (Pump, {"D": 0.0}, "D"), (Cylinder, {"A": -1.0}, "A"),
])
def test_non_physical_hydraulic_parameters_are_rejected(cls, values, bad):
    with pytest.raises(ParameterError, match=f"parameter {bad} of X1"):
        cls("X1", **values)
