"""Charge, flux and hydraulic flow states under the solvers' tolerances (issue 40's trust work, found checking
a deck's transient against ngspice-39 at tighter tolerances).

The BJT integrates its junction charges (picocoulombs) as states. Under simulate's default
atol = 1e-8, meant for volts, a charge's error test was rtol·|q| + 1e-8 C: a charge a thousand
times larger than the junction's whole was still "within tolerance", and the steps were sized
by the node voltages alone. A saturating NPN inverter's turn-off (its stored base charge)
came out 11 % of the collector swing off ngspice-39. Charge states now declare a nominal size
of 1e-8 C (SPICE's chgtol/vntol), which scales their absolute tolerance to 1e-16 C.

Reference: tests/data/spice/bjt/switch_npn.cir run by ngspice-39 at reltol 1e-8 (its
make_references.py), 1.0e-4 of the collector swing from its own reltol 1e-6 run. The circuit
is built in Python and run at simulate's defaults, started from its operating point as
ngspice's transient is: v(c) and v(b) within 1e-3 of their ranges (measured 5.4e-5 and
6.1e-5; 0.11 and 0.15 before).

Flux states likewise (SPICE tests an inductor's flux against its charge tolerance): a
microhenry carrying 10 mA holds 1e-8 Wb. An R-L circuit under a sine, through a
VariableInductor held at 1 µH, against its closed form: within 1e-4 of the current's amplitude
at the default tolerances (measured 8.3e-6; 1.3e-3 before flux states declared 1e-8 Wb).

Hydraulic flows declare a litre a second: a 10 mL/s flow through an inertance (a pressure
step through a laminar resistance) within 1e-5 of its final value of the closed form at the
default tolerances (measured 2.7e-6; 8.3e-4 under atol 1e-8 m³/s itself).
"""
import pathlib

import numpy as np
import pytest

import physlib.spice as spice
from physlib import Model
from physlib.components.electrical import BJT, Ground, Inductor, Resistor, VariableInductor, VoltageSource
from physlib.components.hydraulic import FixedPressure, Inertance, LaminarResistance, PressureSource
from physlib.components.signals import Constant, Sine, Step, Trapezoid
from physlib.core import Variable
from physlib.core.errors import DeclarationError
from physlib.domains.electrical import CHARGE_NOMINAL, CURRENT_NOMINAL, FLUX_NOMINAL
from physlib.domains.hydraulic import FLOW_NOMINAL

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "bjt"


def inverter() -> Model:
    """switch_npn.cir built in Python: a 5 V, 1 µs pulse through 10 kΩ into the base, 1 kΩ
    from 5 V to the collector."""
    m = Model("inverter")
    vcc = m.add(VoltageSource("VCC", V=5.0))
    vin = m.add(VoltageSource("VIN", V=Trapezoid(amplitude=5.0, t0=0.2e-6, rising=1e-9, width=1e-6,
                                                 falling=1e-9, period=2e-6)))
    rb, rc = m.add(Resistor("RB", R=10e3)), m.add(Resistor("RC", R=1e3))
    q = m.add(BJT("Q1", IS=1e-15, BF=100, TF=0.3e-9, TR=100e-9, CJE=5e-12, CJC=3e-12, RB=10))
    gnd = m.add(Ground("gnd"))
    m.connect(vin.p, rb.p)
    m.connect(rb.n, q.b)
    m.connect(vcc.p, rc.p)
    m.connect(rc.n, q.c)
    m.connect(q.e, vin.n, vcc.n, gnd.p)
    return m


def test_a_saturating_bjt_switches_as_ngspice_at_the_default_tolerances():
    reference = spice.read_csv(DATA / "switch_npn_tran.csv")
    sim = inverter().compile()
    start = sim.operating_point()
    t = np.asarray(reference["time"])
    res = sim.simulate(t[-1], t_eval=t, x0={name: start[name] for name in sim.states})
    for ours, theirs in (("Q1.c.v", "v(c)"), ("Q1.b.v", "v(b)")):
        error = np.max(np.abs(res[ours] - reference[theirs]))
        assert error <= 1e-3 * np.ptp(reference[theirs]), (ours, error / np.ptp(reference[theirs]))


def test_charge_states_carry_their_nominal_size_into_the_absolute_tolerances():
    from physlib.analysis.simulation.tolerances import absolute_tolerances
    sim = inverter().compile()
    atol = absolute_tolerances(sim.system, 1e-8, 1.0)
    for k, name in enumerate(sim.states):
        expected = 1e-8 * (CHARGE_NOMINAL if name.split(".")[-1].startswith("q") else 1.0)
        assert atol[k] == pytest.approx(expected, rel=1e-12), name


def rl_circuit_error(amplitude, f, R, L, variable) -> float:
    """max |i − closed form| / the current's amplitude for an R-L circuit under a sine from rest
    at simulate's default tolerances; ``variable``: a VariableInductor held at L (its state is
    the flux), else an Inductor (its state is the current)."""
    m = Model("rl")
    src, r = m.add(VoltageSource("V1", V=Sine(amplitude=amplitude, f=f))), m.add(Resistor("R1", R=R))
    gnd = m.add(Ground("g"))
    if variable:
        inductor, value = m.add(VariableInductor("L1")), m.add(Constant("Lval", k=L))
        m.connect(value.y, inductor.L)
    else:
        inductor = m.add(Inductor("L1", L=L))
    m.connect(src.p, r.p)
    m.connect(r.n, inductor.p)
    m.connect(inductor.n, src.n, gnd.p)
    sim = m.compile()
    t = np.linspace(0.0, 5 / f, 2001)
    res = sim.simulate(t[-1], t_eval=t)
    # i = A/|Z|·(sin(ωt − φ) + sin φ·exp(−R·t/L)) from rest, |Z| = √(R² + (ωL)²), φ = atan(ωL/R)
    w = 2 * np.pi * f
    Z, phi = np.hypot(R, w * L), np.arctan2(w * L, R)
    exact = amplitude / Z * (np.sin(w * t - phi) + np.sin(phi) * np.exp(-t * R / L))
    return float(np.max(np.abs(res["R1.i"] - exact)) / (amplitude / Z))


def test_a_microhenry_follows_its_closed_form_at_the_default_tolerances():
    assert rl_circuit_error(0.01, 1e6, 1.0, 1e-6, variable=True) <= 1e-4


def test_a_microampere_inductor_current_follows_its_closed_form_at_the_default_tolerances():
    """1 mV through 1 kΩ and 1 mH at 100 kHz: 7.4e-6 of the current's amplitude off (8.6e-3
    under the volts' atol of 1e-8, before inductor currents declared 1e-4 A)."""
    assert rl_circuit_error(1e-3, 1e5, 1e3, 1e-3, variable=False) <= 1e-4


def test_inductor_and_transformer_currents_are_held_to_spices_abstol():
    from physlib.analysis.simulation.tolerances import absolute_tolerances
    from physlib.components.electrical import Capacitor, Transformer
    m = Model("coupled")
    src, gnd = m.add(VoltageSource("V1", V=1.0)), m.add(Ground("gnd"))
    r1, r2, r3 = (m.add(Resistor(f"R{k}", R=1.0)) for k in (1, 2, 3))
    t1, l1, c1 = m.add(Transformer("T1", L1=1e-3, L2=1e-3, M=5e-4)), m.add(Inductor("L1", L=1e-3)), \
        m.add(Capacitor("C1", C=1e-6))
    m.connect(src.p, r1.p, r3.p)
    m.connect(r1.n, t1.p1)
    m.connect(t1.p2, r2.p)
    m.connect(r2.n, c1.p)
    m.connect(r3.n, l1.p)
    m.connect(src.n, t1.n1, t1.n2, c1.n, l1.n, gnd.p)
    sim = m.compile()
    atol = dict(zip(sim.states, absolute_tolerances(sim.system, 1e-8, 1.0)))
    assert CURRENT_NOMINAL == 1e-4
    assert atol == pytest.approx({"T1.i1": 1e-12, "T1.i2": 1e-12, "L1.i": 1e-12, "C1.v": 1e-8}, rel=1e-12)


def test_a_ten_millilitre_flow_follows_its_closed_form_at_the_default_tolerances():
    P, R, rho, length, area = 1e5, 1e10, 850.0, 1.0, 1e-4
    m = Model("line")
    src, resistance = m.add(PressureSource("src", P=Step(height=P))), m.add(LaminarResistance("R1", R=R))
    line, tank = m.add(Inertance("I1", rho=rho, L=length, A=area)), m.add(FixedPressure("tank"))
    m.connect(tank.port_a, src.port_a, line.port_b)
    m.connect(src.port_b, resistance.port_a)
    m.connect(resistance.port_b, line.port_a)
    sim = m.compile()
    assert sim.states == ["I1.q"] and sim.system.nominal[0] == FLOW_NOMINAL
    tau = rho * length / area / R                       # I/R
    t = np.linspace(0.0, 5 * tau, 2001)
    res = sim.simulate(t[-1], t_eval=t)
    exact = P / R * (1 - np.exp(-t / tau))
    assert np.max(np.abs(res["I1.q"] - exact)) <= 1e-5 * P / R


@pytest.mark.parametrize("nominal", [0.0, -1.0, float("inf"), float("nan"), "1e-8"])
def test_a_nominal_size_must_be_a_positive_number(nominal):
    with pytest.raises(DeclarationError, match="nominal"):
        Variable("C", "charge", nominal=nominal)
