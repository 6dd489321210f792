"""Issue 36's analog electrical classes (OpAmp, ZDiode, VariableResistor/Capacitor/Inductor,
SaturatingInductor, Transformer, IdealThyristor, IdealGTOThyristor, IdealTwoWaySwitch,
Thyristor): each against closed forms, in one exported FMU against ``simulate``, linearized
against finite differences of operating points, and its noise against equipartition.

Tolerances, and why:
- closed forms of algebraic circuits and steady states hold to Newton's convergence, 1e-9
  relative;
- FMU against simulate: both at rtol 1e-10, within 1e-6 of each signal's range away from the
  event instants (as tests/test_export_fmu_differential.py: a wrong mode, start or jump is off
  by a good part of the range);
- linearize against central differences of operating points with step h = 1e-4 of the input:
  the difference's truncation error is O(h²·f''') ~ 1e-8 relative, rounding ~ 1e-12/h; 1e-6;
- noise variances from a Lyapunov solve: 1e-8 relative, as tests/test_noise.py (with abs=0:
  pytest.approx's default absolute 1e-12 is more than kT/C = 4e-12 V² itself).
"""
from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components.electrical import (Capacitor, CurrentSource, Ground, IdealGTOThyristor, IdealThyristor,
                                           IdealTwoWaySwitch, Inductor, OpAmp, Resistor,
                                           SaturatingInductor, Thyristor, Transformer,
                                           VariableCapacitor, VariableInductor, VariableResistor,
                                           VoltageSource, ZDiode)
from physlib.components.signals import Pulse, Ramp, Sine
from physlib.components.thermal import FixedTemperature
from physlib.core.errors import ParameterError

T = 300.15
KT = BOLTZMANN * T
ZENER = dict(Ids=1e-6, Vt=0.04, Maxexp=30.0, R=1e8, Bv=5.1, Ibv=0.7, Nbv=0.74)


def zener_current(v, Ids=1e-6, Vt=0.04, Maxexp=30.0, R=1e8, Bv=5.1, Ibv=0.7, Nbv=0.74):
    """The MSL ZDiode's current at voltage v (its three working areas)."""
    if v > Maxexp * Vt:
        i = Ids * (math.exp(Maxexp) * (1 + v / Vt - Maxexp) - 1)
    elif v + Bv < -Maxexp * Nbv * Vt:
        i = -Ids - Ibv * math.exp(Maxexp) * (1 - (v + Bv) / (Nbv * Vt) - Maxexp)
    else:
        i = Ids * (math.exp(v / Vt) - 1) - Ibv * math.exp(-(v + Bv) / (Nbv * Vt))
    return i + v / R


def saturating_flux(i, Inom=1.0, Lnom=1.0, Lzer=2.0, Linf=0.5):
    """The MSL SaturatingInductor's flux at current i, with its Ipar solved by bisection."""
    ratio = (Lnom - Linf) / (Lzer - Linf)
    lo, hi = 1e-12, 1e6
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if mid * (math.pi / 2 - math.atan(mid)) < ratio else (lo, mid)
    Ipar = lo * Inom
    return Linf * i + (Lzer - Linf) * Ipar * math.atan(i / Ipar), Ipar


def source_through(m: Model, ground, V, R: float, name: str):
    """A voltage source V from ground through a resistor R; returns the resistor's far pin."""
    src = m.add(VoltageSource(f"{name}_V", V=V))
    r = m.add(Resistor(f"{name}_R", R=R))
    m.connect(src.p, r.p)
    m.connect(src.n, ground.p)
    return r.n


# --- closed forms ------------------------------------------------------------------------------

@pytest.mark.parametrize("V", [-12.0, -5.0, -0.3, 0.5, 3.0])
def test_zdiode_current_is_the_msl_characteristic(V):
    # 1 kΩ from V into the diode: v solves V = v + 1e3·i(v); compared at the solved v with the
    # MSL's formula (Newton to ~1e-12 of the current).
    m = Model("zener")
    ground = m.add(Ground("g"))
    d = m.add(ZDiode("D", **ZENER))
    m.connect(source_through(m, ground, V, 1e3, "in"), d.p)
    m.connect(d.n, ground.p)
    op = m.compile().operating_point()
    assert op["D.i"] == pytest.approx(zener_current(op["D.v"]), rel=1e-9, abs=1e-15)
    assert op["D.v"] + 1e3 * op["D.i"] == pytest.approx(V, rel=1e-9)
    if V < -6:       # broken through: 7 mA, two decades below the knee current Ibv at −Bv
        assert -5.1 < op["D.v"] < -4.9


def test_saturating_inductor_flux_and_inductance_are_the_msl_curve():
    # A current source ramps the current to 5 A in 1 s: the flux Psi(i) and Lact = Psi/i at
    # every row (the flux is the state: the integrator's error is far below 1e-9).
    m = Model("saturation")
    ground = m.add(Ground("g"))
    src = m.add(CurrentSource("I", I=Ramp(height=5.0, duration=1.0)))
    ind = m.add(SaturatingInductor("L", Inom=1.0, Lnom=1.0, Lzer=2.0, Linf=0.5))
    m.connect(src.p, ind.n, ground.p)
    m.connect(src.n, ind.p)
    res = m.compile().simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-10, atol=1e-12)
    flux = np.array([saturating_flux(i)[0] for i in res["L.i"]])
    np.testing.assert_allclose(res["L.Psi"], flux, rtol=1e-9, atol=1e-12)
    assert res["L.Ipar"][0] == pytest.approx(saturating_flux(0.0)[1], rel=1e-9)
    np.testing.assert_allclose(res["L.Lact"][1:], flux[1:] / res["L.i"][1:], rtol=1e-9)
    assert res["L.Lact"][0] == pytest.approx(2.0)                 # Lzer at zero current
    at_nominal = np.interp(1.0, np.abs(res["L.i"]), res["L.Lact"])
    assert at_nominal == pytest.approx(1.0, rel=1e-3)             # Lnom at Inom (interpolated)


@cache
def thyristor_across_capacitors(use_heat_port: bool):
    """A Thyristor (the MSL's defaults; T = 300.15 K, or its heat port at 300.15 K) fed
    through 1 kΩ (``src_V.V``), 1 nF across anode–cathode (C) and gate–cathode (Cg), and a
    gate current source ``gate.I``; compiled."""
    m = Model("thyristor_static")
    g = m.add(Ground("g"))
    device = m.add(Thyristor("thyristor", **(dict(use_heat_port=True) if use_heat_port else dict(T=T))))
    c, c_gate = m.add(Capacitor("C", C=1e-9)), m.add(Capacitor("Cg", C=1e-9))
    gate = m.add(CurrentSource("gate", I=0.0))
    m.connect(source_through(m, g, 3.0, 1e3, "src"), device.Anode, c.p)
    m.connect(device.Gate, c_gate.p, gate.n)
    m.connect(g.p, device.Cathode, c.n, c_gate.n, gate.p)
    if use_heat_port:
        m.connect(device.heat_port, m.add(FixedTemperature("ambient", T=T)).port)
    return m.compile()


@pytest.mark.parametrize("regime, V, Ig", [("blocking", 3.0, 0.0), ("breakthrough", -150.0, 0.0),
                                           ("blocking", 3.0, 3e-3), ("passage", 3.0, 6e-3)])
def test_thyristor_steady_state_is_the_msl_characteristic(regime, V, Ig):
    # The MSL's equations at its defaults (Ron = 1 V/25 A, Roff = VDRM²/(VTM·IH)), V through
    # 1 kΩ: blocking, Anode.i = vAK/Roff; below −VRRM the breakthrough. A gate current of
    # 6 mA (above 0.95·IGT + 1 mA) gives vContot = vConmain + 10·vAK: from 3 V the current
    # stays below IH (released), and vControl = 10·vAK settles inside the passage from Roff to
    # Ron. The gate: vGK = VGT/IGT·iGK below the knee (3 mA), vRef²/VGT + (VGT − vRef)/IGT·iGK
    # above it (6 mA). All to Newton's 1e-9. (Conducting with Ron is what the corpus example
    # ThyristorBehaviourTest and the catalog FMU run through; a conducting steady state takes
    # the steady-state solver through the passage's exponential, 15 s of continuation.)
    op = thyristor_across_capacitors(False).operating_point(inputs={"src_V.V": V, "gate.I": Ig})
    Ron, Roff = 1.0 / 25.0, 100.0**2 / 1.7 / 6e-3
    vAK, i, vControl = op["thyristor.vAK"], op["thyristor.Anode.i"], op["thyristor.vControl"]
    assert op["thyristor.hold"] == 0
    assert vControl == pytest.approx(10 * vAK if Ig > 5e-3 else 0.0, rel=1e-9, abs=1e-12)
    x = (2 * vControl - 6.5) / 7.0
    resistance = {"blocking": Roff,
                  "passage": math.sqrt(Ron * Roff) * (Ron / Roff) ** ((3 * x - 4 * x**3) / 2)}
    if regime == "breakthrough":
        assert vAK < -100.0
        expected = -100.0 / Roff * math.exp(-(vAK + 100.0) / (0.74 * 0.04))
    else:
        assert (1.5 < vControl < 5.0) == (regime == "passage")
        expected = vAK / resistance[regime]
    assert i == pytest.approx(expected, rel=1e-9)
    assert vAK + 1e3 * i == pytest.approx(V, rel=1e-9)
    gate = 0.7 / 5e-3 * Ig if Ig < 0.65 * 5e-3 / 0.7 else 0.65**2 / 0.7 + Ig * 0.05 / 5e-3
    assert op["thyristor.vGK"] == pytest.approx(gate, rel=1e-9, abs=1e-12)


def test_thyristor_conducts_from_its_firing_to_the_current_zero():
    # A 50 Hz sine of 10 V on a 10 Ω load through the thyristor, fired by 1 ms pulses every
    # 10 ms from 2 ms on: in each positive half-wave it conducts from 2 ms (the pulse) to 10 ms
    # (the current's zero), and a GTO fired by the same pulses only during them.
    m = Model("thyristors")
    ground = m.add(Ground("g"))
    fire = Pulse(amplitude=1.0, width=1e-3, period=10e-3, t0=2e-3)
    for cls in (IdealThyristor, IdealGTOThyristor):
        name = cls.__name__
        device = m.add(cls(name, fire=fire))
        m.connect(source_through(m, ground, Sine(amplitude=10.0, f=50.0), 10.0, name), device.p)
        m.connect(device.n, ground.p)
    res = m.compile().simulate(20e-3, t_eval=np.linspace(0, 20e-3, 201), rtol=1e-10, atol=1e-12)
    t = res.t
    on = lambda name: res[f"{name}.on"] == 1                         # noqa: E731
    inside = lambda a, b: (t > a + 1e-6) & (t < b - 1e-6)             # noqa: E731
    assert np.all(on("IdealThyristor")[inside(2e-3, 10e-3)])
    assert not np.any(on("IdealThyristor")[inside(10e-3, 20e-3)])    # negative: 12 ms fires nothing
    assert np.all(on("IdealGTOThyristor")[inside(2e-3, 3e-3)])
    assert not np.any(on("IdealGTOThyristor")[inside(3e-3, 20e-3)])
    # conducting, i = V/(R + Ron) (Ron = 1e-5 Ω)
    conducting = inside(2e-3, 10e-3)
    np.testing.assert_allclose(res["IdealThyristor.i"][conducting],
                               10.0 * np.sin(2 * np.pi * 50.0 * t[conducting]) / (10.0 + 1e-5), rtol=1e-9)
    events = [(round(e.t, 9), e.after) for e in res.events if e.component == "IdealThyristor"]
    assert events == [(0.002, {"on": 1}), (0.01, {"on": 0})]


def test_op_amp_with_swapped_supplies_is_refused():
    # Vps = -15 V, Vns = +15 V clipped every large input, either sign, to Vps: a follower of
    # +0.5 V put out -15 V (mode "upper") without a word. Refused at construction and in params=.
    with pytest.raises(ParameterError, match=r"OpAmp 'op'.*Vps \(-15 V\).*Vns \(15 V\)"):
        OpAmp("op", Vps=-15.0, Vns=15.0)
    m = Model("follower")
    g, src, op = m.add(Ground("g")), m.add(VoltageSource("src", V=0.5)), m.add(OpAmp("op"))
    m.connect(src.p, op.in_p)
    m.connect(op.out, op.in_n)
    m.connect(src.n, g.p)
    sim = m.compile()
    assert sim.simulate(1e-3)["op.v_out"][-1] == pytest.approx(0.5 * 15000 / 15001, rel=1e-9)
    with pytest.raises(ParameterError, match="Vps"):
        sim.simulate(1e-3, params={"op.Vps": -20.0})


def test_two_way_switch_connects_p_to_n2_while_the_control_is_high():
    m = Model("two_way")
    ground = m.add(Ground("g"))
    switch = m.add(IdealTwoWaySwitch("S", control=Pulse(amplitude=1.0, width=0.5, period=1.0, t0=0.25)))
    r1, r2 = m.add(Resistor("R1", R=2.0)), m.add(Resistor("R2", R=4.0))
    m.connect(source_through(m, ground, 12.0, 1.0, "in"), switch.p)
    m.connect(switch.n1, r1.p)
    m.connect(switch.n2, r2.p)
    m.connect(ground.p, r1.n, r2.n)
    res = m.compile().simulate(1.0, t_eval=np.array([0.1, 0.5, 0.9]), rtol=1e-10, atol=1e-12)
    Ron, Goff = 1e-5, 1e-5
    # closed path Ron in series with its load; the open path leaks Goff into the other load
    np.testing.assert_allclose(res["S.closed"], [0, 1, 0])
    low = 12.0 / (1.0 + 1 / (1 / (2.0 + Ron) + 1 / (4.0 + 1 / Goff)))
    high = 12.0 / (1.0 + 1 / (1 / (4.0 + Ron) + 1 / (2.0 + 1 / Goff)))
    np.testing.assert_allclose(-res["S.n1.i"][[0, 2]] - res["S.n2.i"][[0, 2]], [low, low], rtol=1e-9)
    np.testing.assert_allclose(-res["S.n1.i"][1] - res["S.n2.i"][1], high, rtol=1e-9)


# --- one FMU for every class ---------------------------------------------------------------------

def schmitt_trigger(m, g, sine):
    """OpAmp as an inverting Schmitt trigger (±2.4 V), supplied through its pins by ±12 V."""
    op = m.add(OpAmp("opAmp", use_supply=True, homotopy_type="upper_limit"))
    vp, vn = m.add(VoltageSource("Vps", V=12.0)), m.add(VoltageSource("Vns", V=-12.0))
    r1, r2 = m.add(Resistor("r1", R=1e3)), m.add(Resistor("r2", R=4e3))
    m.connect(vp.p, op.s_p)
    m.connect(vn.p, op.s_n)
    m.connect(op.in_n, source_through(m, g, sine, 1.0, "trigger"))
    m.connect(op.out, r2.p)
    m.connect(r2.n, r1.p, op.in_p)
    m.connect(g.p, vp.n, vn.n, r1.n)


def zener_clipper(m, g, sine):
    """A ZDiode clipping the sine through 1 kΩ at −4.95 V and +0.37 V, with 1 nF across it (a
    junction capacitance, which also makes its voltage a state; with the voltage algebraic the
    clipper's own test is tests/test_algebraic_consistency.py)."""
    zd = m.add(ZDiode("zDiode", **ZENER))
    cj = m.add(Capacitor("zDiode_C", C=1e-9))
    m.connect(source_through(m, g, sine, 1e3, "zener"), zd.p, cj.p)
    m.connect(g.p, zd.n, cj.n)


def variable_rc(m, g, sine):
    """R ramping 1 → 3 Ω in series with C ramping 1 → 0.5 mF, over 12 ms."""
    vr = m.add(VariableResistor("varR", R=Ramp(height=2.0, offset=1.0, duration=12e-3)))
    vc = m.add(VariableCapacitor("varC", C=Ramp(height=-0.5e-3, offset=1e-3, duration=12e-3)))
    m.connect(source_through(m, g, sine, 1e-3, "rc"), vr.p)
    m.connect(vr.n, vc.p)
    m.connect(g.p, vc.n)


def variable_rl(m, g, sine):
    """L ramping 1 → 2 mH over 12 ms, in series with 1 Ω."""
    vl = m.add(VariableInductor("varL", L=Ramp(height=1e-3, offset=1e-3, duration=12e-3)))
    m.connect(source_through(m, g, sine, 1.0, "rl"), vl.p)
    m.connect(g.p, vl.n)


def saturating_rl(m, g, sine):
    """10 V at 100 Hz through 1 Ω over Lzer = 20 mH: about ±0.8 A, near Inom = 1 A."""
    sat = m.add(SaturatingInductor("satL", Inom=1.0, Lnom=10e-3, Lzer=20e-3, Linf=5e-3))
    m.connect(source_through(m, g, sine, 1.0, "sat"), sat.p)
    m.connect(sat.n, g.p)


def transformer_load(m, g, sine):
    tr = m.add(Transformer("transformer", L1=10e-3, L2=2.5e-3, M=4.5e-3))
    load = m.add(Resistor("load", R=2.0))
    m.connect(source_through(m, g, sine, 0.5, "primary"), tr.p1)
    m.connect(tr.p2, load.p)
    m.connect(g.p, tr.n1, tr.n2, load.n)


def fired(cls):
    """A thyristor of class ``cls`` on a 10 Ω load, fired 1 ms after each zero of the sine."""
    def part(m, g, sine):
        device = m.add(cls(cls.__name__, fire=Pulse(amplitude=1.0, width=1e-3, period=5e-3, t0=1e-3)))
        m.connect(source_through(m, g, sine, 10.0, cls.__name__), device.p)
        m.connect(device.n, g.p)
    return part


def two_way(m, g, sine):
    """A two-way switch between 2 Ω and 4 Ω."""
    sw = m.add(IdealTwoWaySwitch("twoWay", control=Pulse(amplitude=1.0, width=4e-3, period=8e-3, t0=2e-3)))
    ra, rb = m.add(Resistor("ra", R=2.0)), m.add(Resistor("rb", R=4.0))
    m.connect(source_through(m, g, sine, 1.0, "twoWay"), sw.p)
    m.connect(sw.n1, ra.p)
    m.connect(sw.n2, rb.p)
    m.connect(g.p, ra.n, rb.n)


def gate_fired(m, g, sine):
    """A Thyristor on a 10 Ω load, a 10 mA gate current (vContot = 10·vAK) for 0.5 ms from
    1 ms into each half-wave: fired in the positive one, it holds until its current falls below
    IH near 5 ms; the pulse in the negative one drives vControl negative. TON = TOFF = 100 µs
    (the MSL's 1 µs and 15 µs make the firing a transient of a few µs, for which FMPy's CVode
    at rtol 1e-10 needs more than its 500 steps per output interval; at 1e-8 it runs them)."""
    device = m.add(Thyristor("thyristor", TON=1e-4, TOFF=1e-4))
    gate = m.add(CurrentSource("gate", I=Pulse(amplitude=10e-3, width=0.5e-3, period=5e-3, t0=1e-3)))
    m.connect(source_through(m, g, sine, 10.0, "thyristor"), device.Anode)
    m.connect(gate.n, device.Gate)
    m.connect(g.p, device.Cathode, gate.p)


PARTS = {"OpAmp": schmitt_trigger, "ZDiode": zener_clipper, "VariableResistor": variable_rc,
         "VariableCapacitor": variable_rc, "VariableInductor": variable_rl,
         "SaturatingInductor": saturating_rl, "Transformer": transformer_load,
         "IdealThyristor": fired(IdealThyristor), "IdealGTOThyristor": fired(IdealGTOThyristor),
         "IdealTwoWaySwitch": two_way, "Thyristor": gate_fired}


def catalog_circuit(classes=tuple(PARTS)) -> Model:
    """The parts of ``classes`` in one model (one ground), each on a 10 V, 100 Hz sine, each
    with its signals moving within 10 ms."""
    m = Model("catalog")
    g = m.add(Ground("g"))
    sine = Sine(amplitude=10.0, f=100.0)
    for part in dict.fromkeys(PARTS[c] for c in classes):
        part(m, g, sine)
    return m


CATALOG_SIGNALS = {
    "OpAmp": ["opAmp.v_out", "opAmp.out.i", "opAmp.mode"],
    "ZDiode": ["zDiode.v", "zDiode.i"],
    "VariableResistor": ["varR.v", "varR.R_actual"],
    "VariableCapacitor": ["varC.Q", "varC.v"],
    "VariableInductor": ["varL.Psi", "varL.i"],
    "SaturatingInductor": ["satL.Psi", "satL.i", "satL.Lact"],
    "Transformer": ["transformer.i1", "transformer.i2"],
    "IdealThyristor": ["IdealThyristor.i", "IdealThyristor.on"],
    "IdealGTOThyristor": ["IdealGTOThyristor.i", "IdealGTOThyristor.on"],
    "IdealTwoWaySwitch": ["twoWay.n1.i", "twoWay.n2.i", "twoWay.closed"],
    "Thyristor": ["thyristor.Anode.i", "thyristor.vControl", "thyristor.vGK", "thyristor.hold"],
}


@pytest.fixture(scope="module")
def catalog_fmu_run(tmp_path_factory):
    fmpy = pytest.importorskip("fmpy")
    from fmu_runs import away_from_events
    sim = catalog_circuit().compile()
    signals = [s for group in CATALOG_SIGNALS.values() for s in group]
    path = sim.export_fmu(tmp_path_factory.mktemp("fmu") / "catalog",
                          outputs=[s for s in signals if s not in sim.modes])    # modes are in anyway
    t_end = 10e-3
    fmu = fmpy.simulate_fmu(str(path), stop_time=t_end, relative_tolerance=1e-10, solver="CVode",
                            output=signals, output_interval=t_end / 200, record_events=True)
    rows = away_from_events(fmu["time"])
    res = sim.simulate(t_end, t_eval=fmu["time"][rows], rtol=1e-10, atol=1e-12)
    return fmu, rows, res


@pytest.mark.parametrize("cls", list(CATALOG_SIGNALS))
def test_catalog_fmu_agrees_with_simulate(cls, catalog_fmu_run):
    fmu, rows, res = catalog_fmu_run
    for signal in CATALOG_SIGNALS[cls]:
        span = np.ptp(res[signal])
        assert span > 0, f"{signal} does not move: the case tests nothing"
        error = np.max(np.abs(fmu[signal][rows] - res[signal])) / span
        assert error < 1e-6, f"{signal}: {error:.2g} of its range off simulate"


# --- linearize against finite differences ----------------------------------------------------------

def one_part(build) -> Model:
    """A model of one part: ``build(m, ground)`` adds it."""
    m = Model("part")
    build(m, m.add(Ground("g")))
    return m


def non_inverting(m, g):
    """OpAmp (linear) amplifying 1 V by 1 + R2/R1 = 3, finite gain V0 = 15000."""
    op = m.add(OpAmp("opAmp"))
    r1, r2 = m.add(Resistor("r1", R=1e3)), m.add(Resistor("r2", R=2e3))
    src = m.add(VoltageSource("src", V=1.0))
    m.connect(src.p, op.in_p)
    m.connect(op.out, r2.p)
    m.connect(r2.n, r1.p, op.in_n)
    m.connect(g.p, src.n, r1.n)


def zener_in_breakdown(m, g):
    d = m.add(ZDiode("zDiode", **ZENER))
    m.connect(source_through(m, g, -8.0, 1e3, "src"), d.p)
    m.connect(d.n, g.p)


def series_load(device, V=5.0, R=10.0):
    """``device()`` between a source V (through R) and ground."""
    def build(m, g):
        part = m.add(device())
        m.connect(source_through(m, g, V, R, "src"), part.p)
        m.connect(part.n, g.p)
    return build


def two_way_to_n2(m, g):
    """The two-way switch on p–n2 (control 1): 5 V through 10 Ω into n2, n1 over 4 Ω."""
    sw = m.add(IdealTwoWaySwitch("twoWay", control=1.0))
    r = m.add(Resistor("r", R=4.0))
    m.connect(source_through(m, g, 5.0, 10.0, "src"), sw.p)
    m.connect(sw.n1, r.p)
    m.connect(g.p, sw.n2, r.n)


def transformer_into_load(m, g):
    tr = m.add(Transformer("transformer", L1=10e-3, L2=2.5e-3, M=4.5e-3))
    load = m.add(Resistor("load", R=2.0))
    m.connect(source_through(m, g, 1.0, 0.5, "src"), tr.p1)
    m.connect(tr.p2, load.p)
    m.connect(g.p, tr.n1, tr.n2, load.n)


def thyristor_half_fired(m, g):
    """A Thyristor on 1.25 V through 1 kΩ, its gate fed 0.95·IGT + 0.2 mA, so vContot = 2·vAK
    and vControl settles at 2.45 V, inside the passage from Roff to Ron (hold released, 27 µA):
    the small-signal gain goes through the passage's slope and vControl's dependence on vAK."""
    device = m.add(Thyristor("thyristor"))
    gate = m.add(CurrentSource("gate", I=0.95 * 5e-3 + 0.2e-3))
    m.connect(source_through(m, g, 1.25, 1e3, "src"), device.Anode)
    m.connect(gate.n, device.Gate)
    m.connect(g.p, device.Cathode, gate.p)


LINEARIZED = {   # class: (model builder, input, output)
    "OpAmp": (non_inverting, "src.V", "opAmp.v_out"),
    "ZDiode": (zener_in_breakdown, "src_V.V", "zDiode.v"),
    "VariableResistor": (series_load(lambda: VariableResistor("varR", R=2.0)), "varR.R", "varR.i"),
    "VariableCapacitor": (series_load(lambda: VariableCapacitor("varC", C=1e-3), V=2.0, R=1.0),
                          "varC.C", "varC.Q"),
    "VariableInductor": (series_load(lambda: VariableInductor("varL", L=1e-3), V=2.0, R=1.0),
                         "varL.L", "varL.Psi"),
    "SaturatingInductor": (series_load(lambda: SaturatingInductor("satL"), V=1.5, R=1.0),
                           "src_V.V", "satL.Psi"),
    "Transformer": (transformer_into_load, "src_V.V", "transformer.i1"),
    "IdealThyristor": (series_load(lambda: IdealThyristor("thyristor", fire=1.0)), "src_V.V",
                       "thyristor.i"),
    "IdealGTOThyristor": (series_load(lambda: IdealGTOThyristor("gto", fire=1.0)), "src_V.V", "gto.i"),
    "IdealTwoWaySwitch": (two_way_to_n2, "src_V.V", "twoWay.n2.i"),
    "Thyristor": (thyristor_half_fired, "src_V.V", "thyristor.Anode.i"),
}


MODES_AT_THE_POINT = {"OpAmp": ("opAmp.mode", 0), "IdealThyristor": ("thyristor.on", 1),
                      "IdealGTOThyristor": ("gto.on", 1), "IdealTwoWaySwitch": ("twoWay.closed", 1),
                      "Thyristor": ("thyristor.hold", 0)}
"""The hybrid parts are linearized in their non-trivial mode: linear, conducting, p–n2 (the
Thyristor in its passage, where its mode is released)."""


@pytest.mark.parametrize("cls", list(LINEARIZED))
def test_linearize_agrees_with_finite_differences(cls):
    build, u, y = LINEARIZED[cls]
    sim = one_part(build).compile()
    op = sim.operating_point()
    if cls in MODES_AT_THE_POINT:
        mode, code = MODES_AT_THE_POINT[cls]
        assert op[mode] == code
    u0 = op[u]
    lin = sim.linearize([u], [y], at=op)
    gain = lin.D - (lin.C @ np.linalg.solve(lin.A, lin.B) if len(lin.states) else 0.0)
    h = 1e-4 * abs(u0)
    plus, minus = (sim.operating_point(inputs={u: u0 + d}) for d in (h, -h))
    difference = (plus[y] - minus[y]) / (2 * h)
    assert difference != 0.0
    assert gain[0, 0] == pytest.approx(difference, rel=1e-6)


def test_saturating_inductor_small_signal_inductance_is_dpsi_di():
    # 1.5 A through it (1.5 V over 1 Ω): the linearized flux per volt is dPsi/di / R with
    # dPsi/di = Linf + (Lzer − Linf)/(1 + (i/Ipar)²) (closed form, to Newton's 1e-9).
    build, u, y = LINEARIZED["SaturatingInductor"]
    sim = one_part(build).compile()
    lin = sim.linearize([u], [y], at=sim.operating_point())
    _, Ipar = saturating_flux(1.5)
    dpsi_di = 0.5 + 1.5 / (1 + (1.5 / Ipar) ** 2)
    gain = lin.D - lin.C @ np.linalg.solve(lin.A, lin.B)
    assert gain[0, 0] == pytest.approx(dpsi_di / 1.0, rel=1e-9)


def test_transformer_poles_are_those_of_its_inductance_matrix():
    # Primary through 0.5 Ω, secondary into 2 Ω: L·di/dt = −diag(0.5, 2)·i, poles eig(−L⁻¹·R).
    sim = one_part(transformer_into_load).compile()
    lin = sim.linearize(["src_V.V"], ["transformer.i1"], at=sim.operating_point())
    L = np.array([[10e-3, 4.5e-3], [4.5e-3, 2.5e-3]])
    expected = np.linalg.eigvals(-np.linalg.solve(L, np.diag([0.5, 2.0])))
    np.testing.assert_allclose(np.sort(lin.poles().real), np.sort(expected.real), rtol=1e-9)


# --- noise: equipartition ---------------------------------------------------------------------

def across_capacitor(device, C=1e-9, V=3.0, R=1e3):
    """``device()`` from a source V (through R) into a capacitor C to ground."""
    def build(m, g):
        part, cap = m.add(device()), m.add(Capacitor("C", C=C))
        m.connect(source_through(m, g, V, R, "src"), part.p)
        m.connect(part.n, cap.p)
        m.connect(g.p, cap.n)
    return build


def zener_with_capacitance(m, g):
    d, cap = m.add(ZDiode("zDiode", **ZENER)), m.add(Capacitor("C", C=1e-9))
    m.connect(source_through(m, g, -8.0, 1e3, "src"), d.p, cap.p)
    m.connect(g.p, d.n, cap.n)


DISSIPATIVE = {   # class: (model whose capacitor C gets the part's and resistor's noise, part)
    "ZDiode": (zener_with_capacitance, "zDiode"),          # in breakdown: G ≈ 0.2 S beside 1 kΩ
    "VariableResistor": (across_capacitor(lambda: VariableResistor("varR", R=50.0)), "varR"),
    "IdealThyristor": (across_capacitor(lambda: IdealThyristor("thyristor", fire=1.0), V=-3.0),
                       "thyristor"),                          # blocking: Goff
    "IdealGTOThyristor": (across_capacitor(lambda: IdealGTOThyristor("gto", fire=1.0)), "gto"),
}
"""The dissipative new classes that are noise sources. The OpAmp dissipates nothing it declares
(it is active); IdealTwoWaySwitch has three pins, which physlib's noise sources (two ports of
one domain) do not cover."""


@pytest.mark.parametrize("cls", list(DISSIPATIVE))
def test_dissipative_part_gives_equipartition(cls):
    # Whatever the conductances (the part's small-signal G at its point, 4kT·G; the resistor's
    # 4kT/R), the capacitor holds kT/2: ⟨v²⟩ = kT/C.
    build, part = DISSIPATIVE[cls]
    sim = one_part(build).compile()
    result = sim.noise("C.v", f=np.geomspace(1.0, 1e9, 5), T=T)
    assert result.variance == pytest.approx(KT / 1e-9, rel=1e-8, abs=0)
    assert np.all(result.contributions[part] > 0)      # the part is a source of its own


@pytest.mark.parametrize("use_heat_port", [False, True])
def test_thyristor_noise_gives_equipartition_on_its_anode_and_gate(use_heat_port):
    # Capacitors across anode–cathode (fed through 1 kΩ) and gate–cathode (the gate's current
    # source set to 0) each hold kT/2 from the thyristor's sources "ak" and "gk": forward
    # blocking at 3 V (1/Roff beside 1 mS) and in reverse breakthrough at −150 V (the
    # exponential's slope, 1.7 S, alone); the gate capacitor's only source is "gk". With no
    # gate current vControl does not follow vAK, so the device is a plain conductance at each
    # point. Its noise is at its T, or with the heat port at heat_port.T (T then left at its
    # 293.15 K), which takes the loss: heat_port.Q = −(V·i − R·i²), the source's power less
    # the resistor's.
    sim = thyristor_across_capacitors(use_heat_port)
    for V in (3.0, -150.0):
        op = sim.operating_point(inputs={"src_V.V": V, "gate.I": 0.0})
        for output, source in (("C.v", "thyristor.ak"), ("Cg.v", "thyristor.gk")):
            result = sim.noise(output, f=np.geomspace(1.0, 1e9, 5), T=T, at=op)
            assert result.variance == pytest.approx(KT / 1e-9, rel=1e-8, abs=0), (V, output)
            assert np.all(result.contributions[source] > 0), (V, output)
        if use_heat_port:
            i = op["src_R.i"]
            assert op["thyristor.heat_port.Q"] == pytest.approx(-(V * i - 1e3 * i**2), rel=1e-9)


def test_storage_parts_hold_kt_over_two_per_degree_of_freedom():
    # The stores in thermal equilibrium with their resistors: ⟨Q²⟩ = kT·C of the variable
    # capacitor, ⟨Psi²⟩ = kT·L of the variable inductor, ⟨δi²⟩ = kT/(dPsi/di) of the
    # saturating inductor at 1.5 A, ⟨i1²⟩ = kT·(L⁻¹)₁₁ of the transformer.
    cases = [(LINEARIZED["VariableCapacitor"][0], "varC.Q", KT * 1e-3),
             (LINEARIZED["VariableInductor"][0], "varL.Psi", KT * 1e-3),
             (transformer_into_load, "transformer.i1",
              KT * np.linalg.inv([[10e-3, 4.5e-3], [4.5e-3, 2.5e-3]])[0, 0])]
    _, Ipar = saturating_flux(1.5)
    cases.append((LINEARIZED["SaturatingInductor"][0], "satL.i", KT / (0.5 + 1.5 / (1 + (1.5 / Ipar) ** 2))))
    for build, output, expected in cases:
        assert one_part(build).compile().noise(output, T=T).variance == pytest.approx(expected, rel=1e-8, abs=0), output


def linear_response(A, b_dc, b_ac, omega, t):
    """x(t) of x' = A·x + b_dc + Re(b_ac·e^{jωt}), x(0) = 0: the DC and the sinusoidal steady
    states plus the decaying transient, e^{At} by eigendecomposition."""
    x_dc = -np.linalg.solve(A, b_dc)
    X = np.linalg.solve(1j * omega * np.eye(len(A)) - A, b_ac)
    w, V = np.linalg.eig(A)
    c = np.linalg.solve(V, -(x_dc + X.real))
    transient = (V @ (c[:, None] * np.exp(np.outer(w, t)))).real
    return x_dc[:, None] + (X[:, None] * np.exp(1j * omega * t)).real + transient


def test_compare_transformers_follows_the_closed_form():
    # The MSL's CompareTransformers (its MAP-LIB reference is not available here). Basic
    # transformer: L·(i1, i2)' = (V − R1·i1, −(R2 + RL)·i2), L = [[L1, M], [M, L2]]; ideal one
    # without magnetization: i2 = −n·i1, so (L1sigma + n²·L2sigma)·i1' = V − (R1 + n²·(R2 +
    # RL))·i1 and inductor22 carries n·i1. V = Vdc + Vpeak·cos(ωt). The first 5 s of the MSL's
    # 50 s: 50 periods, and a sixth of the time constant L1/R1 = 32 s of the DC magnetization
    # (the rest takes 2 s more to run, not more checking); 1e-6 of each signal's range (physlib
    # at rtol 1e-8).
    import msl_corpus  # noqa: F401  (loads msl_corpus_electrical after the Example it imports)
    from msl_corpus_electrical import TRANSFORMERS as p, compare_transformers
    t = np.linspace(0.0, 5.0, 1001)
    res = compare_transformers().compile().simulate(5.0, t_eval=t, rtol=1e-8, atol=1e-12)
    n, omega, M = p["n"], 2 * np.pi * p["f"], p["Lm1"] / p["n"]
    L = np.array([[p["L1sigma"] + M * n, M], [M, p["L2sigma"] + M / n]])
    A = -np.linalg.solve(L, np.diag([p["R1"], p["R2"] + p["RL"]]))
    unit = np.linalg.solve(L, [1.0, 0.0])
    basic = linear_response(A, p["Vdc"] * unit, p["Vpeak"] * unit, omega, t)
    L_ideal = p["L1sigma"] + n**2 * p["L2sigma"]
    a = -(p["R1"] + n**2 * (p["R2"] + p["RL"])) / L_ideal
    ideal = n * linear_response(np.array([[a]]), np.array([p["Vdc"] / L_ideal]),
                                np.array([p["Vpeak"] / L_ideal]), omega, t)[0]
    for signal, expected in (("basicTransformer.i1", basic[0]), ("basicTransformer.i2", basic[1]),
                             ("inductor22.i", ideal)):
        assert np.max(np.abs(res[signal] - expected)) < 1e-6 * np.ptp(expected), signal


def test_power_sensor_reads_the_power_its_current_path_carries_into_the_load():
    # A sine source into a series R–C load, the wattmeter's current path between them and its
    # voltage path across the load: power = v_load·i, and over the run its integral is the
    # load's dissipation plus its stored energy's change (energy conservation, Simpson's rule
    # on 2,001 rows of a smooth signal: 1e-6 relative); the sensor takes no power itself.
    from scipy.integrate import simpson
    from physlib.components.electrical import PowerSensor, Resistor, VoltageSource
    m = Model("watt")
    src, gnd = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=50.0))), m.add(Ground("gnd"))
    meter = m.add(PowerSensor("meter"))
    r, c = m.add(Resistor("R", R=20.0)), m.add(Capacitor("C", C=1e-4))
    m.connect(src.p, meter.pc)
    m.connect(meter.nc, meter.pv, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, meter.nv, src.n, gnd.p)
    res = m.compile().simulate(0.1, t_eval=np.linspace(0.0, 0.1, 2001), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["meter.power"], res["R.p.v"] * res["R.i"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res["meter.power"], res["src.v"] * -res["src.i"], rtol=1e-9, atol=1e-9)
    stored = 0.5 * 1e-4 * res["C.v"] ** 2
    delivered = simpson(res["meter.power"], x=res.t)
    assert delivered == pytest.approx(simpson(20.0 * res["R.i"] ** 2, x=res.t) + stored[-1] - stored[0], rel=1e-6)
