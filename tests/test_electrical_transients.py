"""Electrical transients against closed-form solutions and the MSL SeriesResonance reference."""
import numpy as np
import pytest
import sympy as sp
from scipy.special import lambertw

from physlib import Model
from physlib.components.electrical import (Capacitor, CurrentSensor, Diode, Ground, IdealOpAmp,
                                           IdealTransformer, Inductor, Resistor, VoltageSensor,
                                           VoltageSource)
from physlib.components.signals import Expression, Step, t

from reference import assert_in_tube, load_msl

K_B, Q_E = 1.380649e-23, 1.602176634e-19


def rc_model(R=1e3, C=1e-6, V=None):
    """The README's RC circuit: source V (default a 1 V step at t = 0) → R1 → C1 → ground."""
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=0.0) if V is None else V))
    r = m.add(Resistor("R1", R=R))
    c = m.add(Capacitor("C1", C=C, v0=0.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def test_rc_step_matches_exponential_charge():
    # 1e-6 V over 0..5 ms: the solver runs at rtol 1e-8 on a 1 V signal, so errors of a few
    # 1e-8 V are expected; 1e-6 leaves margin while catching any modelling error.
    res = rc_model().compile().simulate(5e-3, rtol=1e-8, atol=1e-10)
    expected = 1.0 - np.exp(-res.t / 1e-3)
    assert res.t[0] == 0.0 and res.t[-1] == pytest.approx(5e-3)
    assert np.max(np.abs(res["C1.v"] - expected)) < 1e-6


def series_rlc(R=10.0, L=10e-3, C=10e-6):
    m = Model("rlc")
    src = m.add(VoltageSource("src", V=Step(height=1.0)))
    r = m.add(Resistor("R1", R=R))
    ind = m.add(Inductor("L1", L=L))
    cap = m.add(Capacitor("C1", C=C))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, ind.p)
    m.connect(ind.n, cap.p)
    m.connect(cap.n, src.n, gnd.p)
    return m


def test_series_rlc_matches_underdamped_closed_form():
    R, L, C = 10.0, 10e-3, 10e-6
    res = series_rlc(R, L, C).compile().simulate(10e-3, rtol=1e-10, atol=1e-12)
    alpha, w0 = R / (2 * L), 1 / np.sqrt(L * C)
    wd = np.sqrt(w0**2 - alpha**2)
    tt = res.t
    v_c = 1 - np.exp(-alpha * tt) * (np.cos(wd * tt) + alpha / wd * np.sin(wd * tt))
    i_l = C * np.exp(-alpha * tt) * (w0**2 / wd) * np.sin(wd * tt)
    # The response is O(1 V) and O(0.03 A); rtol 1e-10 puts solver error far below 1e-6.
    assert np.max(np.abs(res["C1.v"] - v_c)) < 1e-6
    assert np.max(np.abs(res["L1.i"] - i_l)) < 1e-6


def test_series_resonance_stays_in_msl_tube():
    ref = load_msl("SeriesResonance")
    L, C, R = 0.1 / (2 * np.pi), 0.001 / (2 * np.pi), 0.5
    phase = 2 * sp.pi * 100 * t**2            # phi = ∫ 2π·200·t dt
    m = Model("SeriesResonance")
    gnd = m.add(Ground("ground"))
    for k, wave in ((1, sp.sin(phase)), (2, sp.cos(phase))):
        src = m.add(VoltageSource(f"source{k}", V=Expression(wave)))
        ind = m.add(Inductor(f"inductor{k}", L=L))
        cap = m.add(Capacitor(f"capacitor{k}", C=C))
        res_ = m.add(Resistor(f"resistor{k}", R=R))
        m.connect(src.p, ind.p)
        m.connect(ind.n, cap.p)
        m.connect(cap.n, res_.p)
        m.connect(res_.n, src.n, gnd.p)
    t_ref = ref["time"]
    times = np.unique(t_ref)
    res = m.compile().simulate(1.0, t_eval=times, rtol=1e-8, atol=1e-10)
    for name in ("capacitor1.v", "capacitor2.v", "inductor1.i", "inductor2.i"):
        y = np.interp(t_ref, res.t, res[name])
        assert_in_tube(name, t_ref, ref[name], y)


def test_diode_voltage_matches_lambert_w_solution():
    Is, R, V, T = 1e-14, 1e3, 5.0, 300.15
    m = Model("diode")
    src = m.add(VoltageSource("src", V=V))
    r = m.add(Resistor("R1", R=R))
    d = m.add(Diode("D1", Is=Is, n=1.0, Rs=0.0))           # n: the emission coefficient
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    res = m.compile().simulate(1e-3, t_eval=[0.0, 1e-3])
    # V = R·i + vd with i = Is(exp(vd/Vt) − 1) solves to vd = V + Is·R − Vt·W(Is·R/Vt·e^((V+Is·R)/Vt)).
    vt = K_B * T / Q_E
    vd = V + Is * R - vt * np.real(lambertw(Is * R / vt * np.exp((V + Is * R) / vt)))
    np.testing.assert_allclose(res["D1.v"], vd, rtol=1e-9)


def test_diode_series_resistance_shares_the_voltage():
    m = Model("diode_rs")
    src = m.add(VoltageSource("src", V=2.0))
    d = m.add(Diode("D1", Rs=10.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, src.n, gnd.p)
    op = m.compile().simulate(1.0, t_eval=[1.0])
    i, vd = op["D1.i"][0], op["D1.vd"][0]
    vt = K_B * 300.15 / Q_E
    assert i == pytest.approx(1e-14 * (np.exp(vd / vt) - 1), rel=1e-9)
    assert vd + 10.0 * i == pytest.approx(2.0, rel=1e-12)


def test_inverting_amplifier_with_ideal_opamp():
    # Gain −R2/R1 = −4: the nullor forces the inverting input to virtual ground.
    m = Model("amp")
    src = m.add(VoltageSource("src", V=0.5))
    r1 = m.add(Resistor("R1", R=1e3))
    r2 = m.add(Resistor("R2", R=4e3))
    op = m.add(IdealOpAmp("op"))
    vs = m.add(VoltageSensor("vout"))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r1.p)
    m.connect(r1.n, r2.p, op.in_n)
    m.connect(r2.n, op.out, vs.p)
    m.connect(op.in_p, src.n, vs.n, gnd.p)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    assert res["vout.v"][0] == pytest.approx(-2.0, rel=1e-12)


def test_ideal_transformer_scales_voltage_and_current():
    m = Model("xfmr")
    src = m.add(VoltageSource("src", V=10.0))
    tr = m.add(IdealTransformer("T1", ratio=5.0))
    load = m.add(Resistor("RL", R=2.0))
    amm = m.add(CurrentSensor("A1"))
    g1, g2 = m.add(Ground("g1")), m.add(Ground("g2"))
    m.connect(src.p, amm.p)
    m.connect(amm.n, tr.p1)
    m.connect(tr.n1, src.n, g1.p)
    m.connect(tr.p2, load.p)
    m.connect(tr.n2, load.n, g2.p)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    assert res["RL.v"][0] == pytest.approx(2.0, rel=1e-12)          # 10 V / 5
    assert res["A1.i"][0] == pytest.approx(1.0 / 5.0, rel=1e-12)    # 1 A secondary / 5
