"""Noise at ports: thermal and shot noise of the dissipative elements, spectra and variances,
against ngspice, closed forms and equipartition."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN, ELEMENTARY_CHARGE, NoiseWarning
from physlib.components.electrical import (Capacitor, Diode, Ground, Inductor, Resistor,
                                           VoltageSource)
from physlib.components.thermal import FixedTemperature, HeatCapacitor, ThermalConductor
from physlib.components.translational import Damper, Fixed, Mass, Spring
from physlib.core.errors import PhyslibError, UnknownNameError

from passive_networks import build_network, draw_network
from reference import reference_file

T = 300.15                   # K, ngspice's temp = 27 °C
K_NGSPICE = 1.38064852e-23   # J/K: ngspice-39's Boltzmann constant (CODATA 2014; physlib: SI 2019)


def rc(R=1e3, C=1e-9):
    m = Model("rc")
    src, r, c, gnd = VoltageSource("V1", V=0.0), Resistor("R1", R=R), Capacitor("C1", C=C), Ground("g")
    for part in (src, r, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m.compile()


def read(name, *columns):
    """Columns of tests/data/spice/rc_noise/<name>, from ngspice-39 (tests/data/README.md)."""
    with open(reference_file("spice", "rc_noise", name)) as f:
        rows = list(csv.DictReader(f))
    return [np.array([float(row[c]) for row in rows]) for c in columns]


def test_rc_noise_equals_ngspice_and_its_variance_is_kt_over_c():
    f, spectrum = read("rc_noise_spectrum_sqr.csv", "frequency", "onoise_spectrum")
    (total,) = read("rc_noise_total.csv", "onoise_total")
    result = rc().noise("C1.v", f, T=T)
    # ngspice uses k = 1.38064852e-23 J/K, physlib the exact SI value 1.380649e-23 (2.6e-6
    # apart): the spectra are compared with physlib's rescaled to ngspice's constant. Measured:
    # 1.4e-15 relative, i.e. the same 4kTR/(1 + (2πfRC)²).
    scale = K_NGSPICE / BOLTZMANN
    np.testing.assert_allclose(result.psd * scale, spectrum, rtol=1e-6)
    # ngspice integrates its 50-points-per-decade spectrum itself; physlib integrates the
    # transfer function on a fine grid: 4.4e-5 apart (the acceptance bound is 1e-4).
    assert result.rms(1.0, 1e8) * np.sqrt(scale) == pytest.approx(total[0], rel=1e-4)
    # Against the closed form of the band integral: 4kTR·fc·(atan(f2/fc) − atan(f1/fc)).
    fc = 1 / (2 * np.pi * 1e3 * 1e-9)
    band = 4 * BOLTZMANN * T * 1e3 * fc * (np.arctan(1e8 / fc) - np.arctan(1 / fc))
    assert result.rms(1.0, 1e8) ** 2 == pytest.approx(band, rel=1e-9)
    # The variance over all frequencies comes from a Lyapunov equation, not a quadrature.
    assert result.variance == pytest.approx(BOLTZMANN * T / 1e-9, rel=1e-9, abs=0)
    assert [s.path for s in result.sources] == ["R1"]


def test_contributions_sum_to_the_total_psd():
    m = Model("two_r")
    src, r1, r2, c, gnd = (VoltageSource("V", V=1.0), Resistor("R1", R=1e3), Resistor("R2", R=4.7e3),
                           Capacitor("C1", C=1e-8), Ground("g"))
    for part in (src, r1, r2, c, gnd):
        m.add(part)
    m.connect(src.p, r1.p)
    m.connect(r1.n, r2.p, c.p)
    m.connect(r2.n, c.n, src.n, gnd.p)
    f = np.geomspace(1, 1e7, 60)
    result = m.compile().noise("C1.v", f)
    parts = sum(result.contributions.values())
    np.testing.assert_allclose(parts, result.psd, rtol=1e-12)
    # R1 ∥ R2 seen by C1: the two Johnson currents 4kT/R1 + 4kT/R2 through Z = R/(1 + jωRC).
    R = 1e3 * 4.7e3 / 5.7e3
    closed = 4 * BOLTZMANN * 300.15 * (1 / 1e3 + 1 / 4.7e3) * R**2 / (1 + (2 * np.pi * f * R * 1e-8) ** 2)
    np.testing.assert_allclose(result.psd, closed, rtol=1e-10)
    summary = result.summary()
    assert summary.index("R1") < summary.index("R2")          # R1 contributes 4.7 times more
    assert result.variance == pytest.approx(BOLTZMANN * 300.15 / 1e-8, rel=1e-9, abs=0)


def test_an_elements_own_through_variables_are_taken_at_its_terminals():
    """The source beside an element is part of it: R1's current in the series RC is the loop's
    current, C1's (KCL), 4kT/R·(ωτ)²/(1 + (ωτ)²) with τ = RC; alone across an ideal source, 4kT/R
    at every frequency. A damper's force in series with a mass is the mass's, 4kT·d·(ωm)²/(d² +
    (ωm)²). White noise reaching the output directly makes each variance infinite."""
    f = np.array([1e3, 1e5, 1.6e5, 1e6, 1e7, 1e9])
    kT = BOLTZMANN * T
    sim = rc()
    wt = 2 * np.pi * f * 1e3 * 1e-9
    loop = 4 * kT / 1e3 * wt**2 / (1 + wt**2)
    for output in ("R1.i", "R1.p.i", "R1.n.i", "C1.i"):
        result = sim.noise(output, f, T=T)
        np.testing.assert_allclose(result.psd, loop, rtol=1e-9, err_msg=output)
        assert result.variance == np.inf
    np.testing.assert_allclose(sim.noise("R1.v", f, T=T).psd, 4 * kT * 1e3 / (1 + wt**2), rtol=1e-9)

    m = Model("vr")
    src, r, gnd = m.add(VoltageSource("V1", V=1.0)), m.add(Resistor("R1", R=2e3)), m.add(Ground("g"))
    m.connect(src.p, r.p)
    m.connect(r.n, src.n, gnd.p)
    np.testing.assert_allclose(m.compile().noise("R1.i", f, T=T).psd, 4 * kT / 2e3, rtol=1e-12)

    m = Model("dm")
    fixed, damper, mass = m.add(Fixed("fx")), m.add(Damper("D", d=3.0)), m.add(Mass("M", m=2.0))
    m.connect(fixed.flange, damper.flange_a)
    m.connect(damper.flange_b, mass.flange_a)
    sim = m.compile()
    wm = 2 * np.pi * f * 2.0
    for output in ("D.f", "M.flange_a.f"):
        np.testing.assert_allclose(sim.noise(output, f).psd, 4 * kT * 3.0 * wm**2 / (9.0 + wm**2), rtol=1e-9)


def test_mass_spring_damper_and_heat_capacitor_equipartition():
    m = Model("msd")
    fixed, mass, spring, damper = Fixed("fx"), Mass("M", m=2.0), Spring("S", c=50.0), Damper("D", d=3.0)
    for part in (fixed, mass, spring, damper):
        m.add(part)
    m.connect(fixed.flange, spring.flange_a, damper.flange_a)
    m.connect(spring.flange_b, damper.flange_b, mass.flange_a)
    sim = m.compile()
    kT = BOLTZMANN * 300.15
    # Force noise 4kT·d of the damper; ⟨v²⟩ = kT/m and ⟨x²⟩ = kT/c whatever d is. The mass's
    # absolute position is a free integral: it is left out, not infinite.
    assert sim.noise("M.v").variance == pytest.approx(kT / 2.0, rel=1e-10, abs=0)
    assert sim.noise("S.s_rel").variance == pytest.approx(kT / 50.0, rel=1e-10, abs=0)

    m = Model("thermal")
    cap, cond, amb = HeatCapacitor("Cth", C=10.0, T0=350.0), ThermalConductor("G", G=0.5), FixedTemperature("amb", T=350.0)
    for part in (cap, cond, amb):
        m.add(part)
    m.connect(cap.port, cond.port_a)
    m.connect(cond.port_b, amb.port)
    # Heat-flow noise 4kT²G at the conductor's temperature (350 K, not the analysis T).
    assert m.compile().noise("Cth.T").variance == pytest.approx(BOLTZMANN * 350.0**2 / 10.0, rel=1e-10, abs=0)



def test_equipartition_holds_between_states_of_very_different_scales():
    # A pump at rest between a 1e-13 m³/Pa volume (leaking through 1e12 Pa·s/m³) and a shaft
    # on a bearing: A's entries span 1e-3..1e7. The Lyapunov solve on the unbalanced matrix
    # gave −0.99·kT/C and −1.01·kT/J; balanced, both are kT/C and kT/J to rounding.
    from physlib.components.hydraulic import FixedPressure, FluidCapacitance, LaminarResistance, Pump
    from physlib.components.rotational import Damper as RotationalDamper
    from physlib.components.rotational import Fixed as RotationalFixed
    from physlib.components.rotational import Inertia

    m = Model("pump_at_rest")
    tank, vol = m.add(FixedPressure("tank")), m.add(FluidCapacitance("vol", V=1e-4, beta=1e9))
    leak, pump = m.add(LaminarResistance("leak", R=1e12)), m.add(Pump("pump", D=1e-6))
    shaft, bearing = m.add(Inertia("J", J=1e-3)), m.add(RotationalDamper("d", d=1e-3))
    frame = m.add(RotationalFixed("frame"))
    m.connect(tank.port_a, pump.port_a, leak.port_b)
    m.connect(pump.port_b, vol.port_a, leak.port_a)
    m.connect(pump.flange, shaft.flange_a)
    m.connect(shaft.flange_b, bearing.flange_a)
    m.connect(bearing.flange_b, frame.flange)
    sim = m.compile()
    op = sim.simulate(1e-6).at(0.0)         # at rest; the shaft's angle is a free integral
    kT = BOLTZMANN * 300.15
    assert sim.noise("vol.p", at=op).variance == pytest.approx(kT * 1e9 / 1e-4, rel=1e-10, abs=0)
    assert sim.noise("J.w", at=op).variance == pytest.approx(kT / 1e-3, rel=1e-10, abs=0)

@st.composite
def passive_networks(draw):
    return draw_network(draw)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passive_networks(), st.floats(50.0, 1000.0))
def test_equipartition_on_random_passive_networks(network, temperature):
    n, elements = network
    sim, _ = build_network(n, elements)
    kT = BOLTZMANN * temperature
    for j, (kind, _, _, value) in enumerate(elements):
        # Each capacitor's voltage and each inductor's current holds kT/2 of energy on average,
        # whatever the resistors (they only set the spectrum): 1e-8 covers the Lyapunov solve's
        # rounding for time constants spread over seven decades.
        if kind == "C":
            assert sim.noise(f"C{j}.v", T=temperature).variance == pytest.approx(kT / value, rel=1e-8, abs=0)
        elif kind == "L":
            assert sim.noise(f"L{j}.i", T=temperature).variance == pytest.approx(kT / value, rel=1e-8, abs=0)


def biased_diode(**diode):
    """5 V through 10 kΩ into a diode (parameters ``diode``) with 10 nF across it."""
    m = Model("diode")
    src, r, d, c, gnd = (VoltageSource("V", V=5.0), Resistor("R", R=1e4), Diode("D1", **diode),
                         Capacitor("C", C=1e-8), Ground("g"))
    for part in (src, r, d, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, d.p, c.p)
    m.connect(d.n, c.n, src.n, gnd.p)
    return m.compile()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_noise_currents_into_every_node_sum_to_zero(data):
    # Kirchhoff's current law for every source's part: the transfer functions from each source
    # to the terminal currents of the elements on a node add up to zero at every frequency. A
    # through variable taken inside an element (without its own source) breaks it by O(1).
    n, elements = draw_network(data.draw, min_nodes=3, max_nodes=5)
    sim, _ = build_network(n, elements)
    node = data.draw(st.integers(1, n - 1))
    f = np.array([1.0, 1e3, 1e6])
    total, size = 0.0, 0.0
    for j, (kind, a, b, _) in enumerate(elements):
        for end, pin in ((a, "p"), (b, "n")):
            if end == node:
                H = sim.noise(f"{kind}{j}.{pin}.i", f).linear_model.frequency_response(f)[0]
                total, size = total + H, max(size, np.max(np.abs(H)))
    assert np.max(np.abs(total)) <= 1e-9 * size


def test_diode_shot_noise_through_its_small_signal_conductance():
    # 5 V through 10 kΩ into a diode with 10 nF across it: I ≈ 0.43 mA. Output: the diode voltage.
    # Shot noise 2qI of the diode and Johnson noise 4kT/R of the resistor, both currents into the
    # node, seen through Z = 1/(g_d + 1/R + jωC) with g_d = I/(N·Vt) (Is·e^(v/NVt)/(N·Vt)).
    sim = biased_diode()
    op = sim.operating_point()
    f = np.geomspace(10, 1e8, 40)
    result = sim.noise("C.v", f, at=op)
    vt = BOLTZMANN * 300.15 / ELEMENTARY_CHARGE
    current = op["D1.i"]
    g_d = (current + 1e-14) / vt
    Z2 = 1 / np.abs(g_d + 1 / 1e4 + 2j * np.pi * f * 1e-8) ** 2
    np.testing.assert_allclose(result.contributions["D1"], 2 * ELEMENTARY_CHARGE * current * Z2, rtol=1e-9)
    np.testing.assert_allclose(result.contributions["R"], 4 * BOLTZMANN * 300.15 / 1e4 * Z2, rtol=1e-9)
    assert {s.path: s.kind for s in result.sources} == {"R": "thermal", "D1": "shot"}


def test_bad_input_is_named():
    sim = rc()
    with pytest.raises(UnknownNameError, match="C1.v"):
        sim.noise("C1.vv")
    with pytest.raises(PhyslibError, match="temperature"):
        sim.noise("C1.v", T=-3.0)
    m = Model("lc")
    src, l, c, gnd = VoltageSource("V", V=0.0), Inductor("L1", L=1e-3), Capacitor("C1", C=1e-6), Ground("g")
    for part in (src, l, c, gnd):
        m.add(part)
    m.connect(src.p, l.p)
    m.connect(l.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    with pytest.warns(NoiseWarning, match="no dissipative elements"):
        result = m.compile().noise("C1.v", [1.0, 10.0])
    assert result.variance == 0.0 and np.all(result.psd == 0.0)


def test_transient_noise_of_an_rc_charged_from_zero():
    # The capacitor starts deterministic (variance 0) and relaxes to kT/C with twice the circuit's
    # rate: σ(t) = √(kT/C·(1 − e^(−2t/RC))). Van Loan's exponential is exact for a linear circuit:
    # 1e-6 relative (measured 2e-15).
    m = Model("rc_charge")
    src, r, c, gnd = VoltageSource("V1", V=1.0), Resistor("R1", R=1e3), Capacitor("C1", C=1e-9), Ground("g")
    for part in (src, r, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    res = m.compile().simulate(5e-6, noise=["C1.v"], rtol=1e-10, atol=1e-14)
    closed = np.sqrt(BOLTZMANN * 300.15 / 1e-9 * (1 - np.exp(-2 * res.t / 1e-6)))
    std = res.noise_std("C1.v")
    assert std[0] == 0.0
    np.testing.assert_allclose(std[1:], closed[1:], rtol=1e-6)
    fig = res.plot_noise("C1.v")
    assert fig.axes[0].get_ylabel() == "C1.v [V]"
    with pytest.raises(PhyslibError, match="noise=\\['R1.i'\\]"):
        res.noise_std("R1.i")


def test_transient_noise_of_a_current_a_source_reaches_directly_is_infinite():
    # R1's white source drives the loop current directly: its variance is infinite, as the
    # stationary analysis says (noise("C1.i").variance); the capacitor's voltage stays finite.
    sim = rc()
    with pytest.warns(NoiseWarning, match="reaches C1.i, R1.i directly"):
        res = sim.simulate(5e-6, noise=["C1.v", "C1.i", "R1.i"])
    assert np.all(res.noise_std("C1.i") == np.inf) and np.all(res.noise_std("R1.i") == np.inf)
    assert sim.noise("C1.i").variance == np.inf
    assert np.all(np.isfinite(res.noise_std("C1.v"))) and res.noise_std("C1.v")[-1] > 0
    # The ensemble draws R1's source each step: at its terminals R1's current is C1's, run by run.
    from physlib.analysis.noise.transient import simulate_stochastic
    ensemble = simulate_stochastic(sim, 2e-6, dt=1e-8, runs=20, names=["C1.i", "R1.i", "R1.n.i"], seed=3,
                                   t_eval=[1e-6, 2e-6])
    np.testing.assert_allclose(ensemble.samples["R1.i"], ensemble.samples["C1.i"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ensemble.samples["R1.n.i"], -ensemble.samples["C1.i"], rtol=1e-9, atol=1e-15)


def test_transient_noise_of_a_diode_under_a_ramp_agrees_with_a_stochastic_ensemble():
    # A ramp from 0 to 5 V over 20 ms through 10 kΩ into a diode with 1 µF across it: the diode
    # turns on around 7 ms, its shot noise 2qI grows and its conductance shortens the time
    # constant from 10 ms to 65 µs. Propagated σ against 400 Euler–Maruyama runs (dt = 2 µs,
    # seed 7) at 10 times: within 3 standard errors of the ensemble's σ (≈ 3.5 % each; measured
    # at most 1.8). The Euler–Maruyama step biases the ensemble's variance by dt/(2τ) ≤ 1.5 %.
    import importlib.util

    from physlib.analysis.noise.transient import simulate_stochastic

    path = Path(__file__).resolve().parents[1] / "examples" / "noise_transient.py"
    spec = importlib.util.spec_from_file_location("noise_transient", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    sim = example.build().compile()              # the circuit of examples/noise_transient.py
    times = np.linspace(2e-3, 20e-3, 10)
    res = sim.simulate(20e-3, noise=["C.v"], t_eval=np.r_[0.0, times], rtol=1e-10, atol=1e-14)
    ensemble = simulate_stochastic(sim, 20e-3, dt=2e-6, runs=400, names=["C.v"], seed=7, t_eval=times)
    deviation = (ensemble.std("C.v") - res.noise_std("C.v")[1:]) / ensemble.std_error("C.v")
    assert np.all(np.abs(deviation) <= 3.0), deviation


def test_transient_noise_options_are_checked():
    sim = rc()
    with pytest.raises(UnknownNameError, match="C1.v"):
        sim.simulate(1e-6, noise=["C1.vv"])
    with pytest.raises(PhyslibError, match="noise_T"):
        sim.simulate(1e-6, noise=["C1.v"], noise_T=-1.0)


def test_flicker_noise_of_a_diode_and_external_noise_at_a_port():
    # Diode with KF = 1e-12 (AF = 1): its source is 2qI + KF·I/f. Against the small-signal
    # closed form as in the shot-noise test; the variance over all frequencies is infinite
    # (∫ df/f), a band's rms is finite.
    sim = biased_diode(KF=1e-12)
    op = sim.operating_point()
    f = np.geomspace(1, 1e6, 30)
    result = sim.noise("C.v", f, at=op)
    current = op["D1.i"]
    g_d = (current + 1e-14) / (BOLTZMANN * 300.15 / ELEMENTARY_CHARGE)
    Z2 = 1 / np.abs(g_d + 1 / 1e4 + 2j * np.pi * f * 1e-8) ** 2
    expected = (2 * ELEMENTARY_CHARGE * current + 1e-12 * current / f) * Z2
    np.testing.assert_allclose(result.contributions["D1"], expected, rtol=1e-9)
    assert result.variance == float("inf") and np.isfinite(result.rms(1.0, 1e6))
    with pytest.raises(PhyslibError, match="f = 0"):
        sim.noise("C.v", [0.0, 1.0], at=op)

    # A white force noise S_F on a damped mass (no spring): v = F/(jωm + d), so the external
    # source adds S_F/|jωm + d|² to the damper's own 4kTd/|jωm + d|², and the variance
    # (S_F + 4kTd)/(4·d·m) (for white force PSD S one-sided: ⟨v²⟩ = S/(4dm)).
    m = Model("pushed_mass")
    fixed, mass, damper = Fixed("fx"), Mass("M", m=2.0), Damper("D", d=3.0)
    for part in (fixed, mass, damper):
        m.add(part)
    m.connect(fixed.flange, damper.flange_a)
    m.connect(damper.flange_b, mass.flange_a)
    sim = m.compile()
    S_F = 1e-18
    f = np.geomspace(1e-3, 10, 20)
    result = sim.noise("M.v", f, external={"M.flange_b": S_F})
    H2 = 1 / np.abs(2j * np.pi * f * 2.0 + 3.0) ** 2
    np.testing.assert_allclose(result.contributions["external(M.flange_b)"], S_F * H2, rtol=1e-10)
    thermal = 4 * BOLTZMANN * 300.15 * 3.0
    assert result.variance == pytest.approx((S_F + thermal) / (4 * 3.0 * 2.0), rel=1e-10, abs=0)
    with pytest.raises(PhyslibError, match="densities >= 0"):
        sim.noise("M.v", external={"M.flange_b": -1.0})


def test_a_clutch_is_no_noise_source_and_the_shafts_keep_equipartition():
    """An engine torque on J1 (0.2 kg·m², damper 0.1 to ground) driving J2 (0.5 kg·m², damper
    0.05) through a clutch that slides, then locks (at 1.59 s). Dry friction makes no thermal
    noise (its force does not depend on the slip speed; stuck it dissipates nothing): it is
    left out with a NoiseWarning, and the dampers' noise gives equipartition, kT/J2 for J2's
    speed while the clutch slides and kT/(J1 + J2) once it holds (1e-9). Any model with a
    clutch was once an error ("its conductance cannot be derived")."""
    from physlib.components.rotational import Clutch, Damper as RotationalDamper, Fixed as RotationalFixed
    from physlib.components.rotational import Inertia, Torque
    m = Model("clutch_noise")
    engine, j1 = m.add(Torque("engine", tau=5.0)), m.add(Inertia("J1", J=0.2, w0=50.0))
    clutch = m.add(Clutch("clutch", mu=0.3, peak=1.1, cgeo=0.15, fn_max=300.0, f_normalized=1.0))
    j2, d1, d2 = m.add(Inertia("J2", J=0.5)), m.add(RotationalDamper("D1", d=0.1)), m.add(RotationalDamper("D2", d=0.05))
    fixed = m.add(RotationalFixed("F"))
    m.connect(engine.flange, j1.flange_a)
    m.connect(j1.flange_b, clutch.flange_a, d1.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    m.connect(j2.flange_b, d2.flange_a)
    m.connect(d1.flange_b, d2.flange_b, fixed.flange)
    sim = m.compile()
    res = sim.simulate(5.0)
    lock = next(e.t for e in res.events if e.component == "clutch" and e.after.get("mode") == 0)
    kT = BOLTZMANN * 300.0
    for t, inertia in ((lock / 2, 0.5), (lock + 1.0, 0.7)):
        with pytest.warns(NoiseWarning, match=r"dry friction \(clutch\)"):
            variance = sim.noise("J2.w", at=res.at(t), T=300.0).variance
        assert variance == pytest.approx(kT / inertia, rel=1e-9)
