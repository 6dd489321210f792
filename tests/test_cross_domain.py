"""Cross-domain components (EMF, HeatingResistor, Pump) against closed forms and energy balances."""
from functools import lru_cache

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.linalg import expm

from physlib import Model
from physlib.components.electrical import (EMF, CurrentSource, Ground, HeatingResistor, Inductor,
                                           Resistor, VoltageSource)
from physlib.components.hydraulic import FixedPressure, FluidCapacitance, LaminarResistance, Pump
from physlib.components.rotational import Damper, Fixed, Inertia, Speed
from physlib.components.signals import Step
from physlib.components.thermal import HeatCapacitor

# DC motor of the issue: 12 V step into R–L–EMF, rotor inertia J with a viscous load b.
R, L, K, J, B, V = 1.0, 0.01, 0.1, 0.01, 0.001, 12.0


def motor(m: Model, damper: str):
    """Add the motor (12 V step, R–L winding, EMF, rotor with a damper to a fixed housing) to
    ``m``; returns the rotor's free flange (flange_b, shared with the damper)."""
    src = m.add(VoltageSource("src", V=Step(height=V, t0=0.0)))
    winding = m.add(Resistor("R1", R=R))
    coil = m.add(Inductor("L1", L=L))
    emf = m.add(EMF("emf", k=K))
    gnd = m.add(Ground("gnd"))
    rotor = m.add(Inertia("rotor", J=J))
    load = m.add(Damper(damper, d=B))
    fixed = m.add(Fixed("fixed"))
    m.connect(src.p, winding.p)
    m.connect(winding.n, coil.p)
    m.connect(coil.n, emf.p)
    m.connect(emf.n, src.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    m.connect(load.flange_b, fixed.flange)
    return rotor.flange_b, load.flange_a


def dc_motor() -> Model:
    m = Model("dc_motor")
    m.connect(*motor(m, "load"))
    return m


@lru_cache(maxsize=None)
def _dc_motor_sim():
    return dc_motor().compile()


def test_dc_motor_current_and_speed_match_linear_closed_form():
    # x = (i, w): x' = A·x + b·V with A = [[−R/L, −k/L], [k/J, −B/J]], b = (1/L, 0), x(0) = 0.
    # The step response is the top-right block of expm([[A, b·V], [0, 0]]·t). At rtol 1e-10
    # the solver error is ~1e-9 relative, so 1e-6 relative to the peak checks the model.
    res = _dc_motor_sim().simulate(2.0, rtol=1e-10, atol=1e-12)
    A = np.array([[-R / L, -K / L], [K / J, -B / J]])
    M = np.zeros((3, 3))
    M[:2, :2] = A
    M[0, 2] = V / L
    x = np.array([expm(M * tt)[:2, 2] for tt in res.t])
    for name, expected in (("L1.i", x[:, 0]), ("rotor.w", x[:, 1])):
        peak = np.max(np.abs(expected))
        assert np.max(np.abs(res[name] - expected)) < 1e-6 * peak, name


def test_dc_motor_settles_at_the_torque_balance_speed():
    # Steady state: k·i = B·w and V = R·i + k·w, so w = V·k/(k² + R·B) = 109.09 rad/s. The slow
    # time constant is J·R/(k² + R·B) = 0.91 s; after 25 s the transient is e^-27 ≈ 2e-12.
    res = _dc_motor_sim().simulate(25.0, t_eval=[25.0], rtol=1e-10, atol=1e-12)
    w_final = V * K / (K**2 + R * B)
    assert res["rotor.w"][-1] == pytest.approx(w_final, rel=1e-6)
    assert res["L1.i"][-1] == pytest.approx(B * w_final / K, rel=1e-6)


def test_emf_on_a_rotating_housing_sees_the_relative_speed_and_reacts_on_it():
    # v = k·(w_flange − w_support); flange.tau = −k·i and the housing takes +k·i. Current
    # source and speed sources make it all algebraic: exact to rounding (1e-12).
    k, i, w_shaft, w_housing = 0.2, 3.0, 50.0, 20.0
    m = Model("emf_housing")
    src = m.add(CurrentSource("src", I=i))
    emf = m.add(EMF("emf", k=k, use_support=True))
    gnd = m.add(Ground("gnd"))
    shaft = m.add(Speed("shaft", w=w_shaft))
    housing = m.add(Speed("housing", w=w_housing))
    m.connect(src.n, emf.p)
    m.connect(emf.n, src.p, gnd.p)
    m.connect(shaft.flange, emf.flange)
    m.connect(housing.flange, emf.support)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    assert res["emf.v"][0] == pytest.approx(k * (w_shaft - w_housing), rel=1e-12)
    assert res["emf.flange.tau"][0] == pytest.approx(-k * i, rel=1e-12)
    assert res["emf.support.tau"][0] == pytest.approx(k * i, rel=1e-12)


def test_motor_pump_energy_balance():
    # 12 V DC motor driving a pump from a tank into an accumulator (capacitance) that drains
    # back through a laminar resistance. Electrical energy delivered by the source must equal
    # the change in stored energy (inductor, rotor, accumulator) plus the losses (winding,
    # bearing damper, resistance). Simpson on 20,001 points and rtol 1e-11 put both sides
    # within ~1e-9 relative; 1e-6 checks the energy declarations and the lossless converters.
    m = Model("motor_pump")
    shaft = motor(m, "bearing")
    pump = m.add(Pump("pump", D=1e-6))
    tank = m.add(FixedPressure("tank", p=0.0))
    accumulator = m.add(FluidCapacitance("accumulator", V=1e-2, beta=1e9))
    drain = m.add(LaminarResistance("drain", R=1e10))
    m.connect(*shaft, pump.flange)
    m.connect(tank.port_a, pump.port_a, drain.port_b)
    m.connect(pump.port_b, accumulator.port_a, drain.port_a)
    t = np.linspace(0.0, 0.5, 20001)
    res = m.compile().simulate(0.5, t_eval=t, rtol=1e-11, atol=1e-12)

    delivered = simpson(-res["src.v"] * res["src.i"], x=t)
    stored = res.stored_energy()
    losses = simpson(res.dissipated_power(), x=t)
    assert set(res.model.system.energy_owner) == {"L1", "rotor", "accumulator"}
    assert set(res.model.system.dissipation_owner) == {"R1", "bearing", "drain"}
    assert res["accumulator.p"][-1] > 1e5      # the pump really pressurized the accumulator
    assert abs(delivered - (stored[-1] - stored[0] + losses)) < 1e-6 * delivered
    np.testing.assert_allclose(res.stored_energy("accumulator"),
                               0.5 * 1e-2 / 1e9 * res["accumulator.p"]**2, rtol=1e-12)


C_HEAT, R_REF, ALPHA, T0, V_HEAT = 20.0, 10.0, 4e-3, 300.0, 10.0


@lru_cache(maxsize=None)
def _heating_run():
    """A 10 V source across a heating resistor whose only heat sink is a thermal mass."""
    m = Model("self_heating")
    src = m.add(VoltageSource("src", V=V_HEAT))
    heater = m.add(HeatingResistor("R1", R_ref=R_REF, T_ref=T0, alpha=ALPHA))
    gnd = m.add(Ground("gnd"))
    mass = m.add(HeatCapacitor("mass", C=C_HEAT, T0=T0))
    m.connect(src.p, heater.p)
    m.connect(heater.n, src.n, gnd.p)
    m.connect(heater.heat_port, mass.port)
    t = np.linspace(0.0, 100.0, 20001)
    return m.compile().simulate(100.0, t_eval=t, rtol=1e-11, atol=1e-11)


def test_heating_resistor_temperature_rise_equals_integrated_loss_over_capacity():
    # All of the loss v·i leaves through the heat port into C: ΔT = ∫v·i dt / C. Simpson on
    # 20,001 points at rtol 1e-11: ~1e-10 relative; 1e-6 of the rise checks the heat path.
    res = _heating_run()
    rise = res["mass.T"] - T0
    heat = simpson(res["R1.v"] * res["R1.i"], x=res.t) / C_HEAT
    assert rise[-1] > 10.0
    assert abs(rise[-1] - heat) < 1e-6 * rise[-1]
    np.testing.assert_allclose(res.dissipated_power("R1"), res["R1.v"] * res["R1.i"], rtol=1e-12)


def test_heating_resistor_resistance_follows_its_temperature():
    # R = R_ref·(1 + alpha·(T − T_ref)) at every instant (an explicit equation: 1e-12
    # relative), so the resistance grows as the mass warms. The current solves v = R·i in the
    # DAE solver's Newton iteration (R is a variable), converged to ~1e-11: bound 1e-9.
    res = _heating_run()
    np.testing.assert_allclose(res["R1.R"], R_REF * (1 + ALPHA * (res["mass.T"] - T0)), rtol=1e-12)
    np.testing.assert_allclose(res["R1.i"], V_HEAT / res["R1.R"], rtol=1e-9)
    assert res["R1.R"][-1] > 1.04 * R_REF


def test_heating_resistor_warms_its_mass_as_the_separable_closed_form_says():
    # C·T' = V²/(R_ref·(1 + alpha·u)), u = T − T_ref, separates to
    # C·R_ref·(u + alpha·u²/2) = V²·t, i.e. u = (√(1 + 2·alpha·V²·t/(C·R_ref)) − 1)/alpha.
    # rtol 1e-11 on ~300 K: global error ~1e-8 K; bound 1e-6 K.
    res = _heating_run()
    u = (np.sqrt(1 + 2 * ALPHA * V_HEAT**2 * res.t / (C_HEAT * R_REF)) - 1) / ALPHA
    assert np.max(np.abs(res["mass.T"] - (T0 + u))) < 1e-6
