"""The SPICE level-1 Diode against ngspice-39: operating point, AC response, noise per source and a
transient with charge storage, on the references in tests/data/spice/diode_level1 (made with
ngspice-39 from the decks stored there; tests/data/README.md). No ngspice needed here.

The circuit: V1 = 5 V → R1 = 1 kΩ → a 1N4148-like diode (IS = 2.52 nA, N = 1.752, RS = 0.568 Ω,
CJO = 4 pF, M = 0.333, VJ = 0.5 V, FC = 0.5, TT = 11.5 ns, BV = 100 V, IBV = 0.1 mA, KF = 1e-16,
AF = 1.2) → ground, at T = TNOM = 27 °C with ngspice's GMIN = 1e-12 S; I_D = 4.35 mA.

Physical constants: ngspice-39 uses CODATA 2014 (k = 1.38064852e-23 J/K, q = 1.6021766208e-19 C),
physlib the exact SI 2019 values by default. Their ratio k/q, hence the thermal voltage vt,
differs by 3.4e-7 relative, k alone by 2.6e-6, so the circuit here is built with
``constants="ngspice"`` (the diode's and the resistor's): the comparisons then go far below
that, and the tolerances below catch SI 2019's values.
"""
import csv

import numpy as np
import pytest

from physlib import Model
from physlib.components.electrical import Diode, Ground, Resistor, VoltageSource
from physlib.components.signals import Table
from physlib.core.errors import ParameterError

from reference import reference_file

MODEL = dict(IS=2.52e-9, N=1.752, RS=0.568, CJO=4e-12, M=0.333, VJ=0.5, FC=0.5, TT=11.5e-9,
             BV=100.0, IBV=1e-4, EG=1.11, XTI=3.0, KF=1e-16, AF=1.2, GMIN=1e-12)
PWL = [(0.0, 0.0), (10e-9, 0.0), (12e-9, 5.0), (60e-9, 5.0), (62e-9, -2.0), (150e-9, -2.0),
       (152e-9, 0.0), (200e-9, 0.0)]          # the PWL source of diode_level1_tran.cir


def read(name):
    """Columns of tests/data/spice/diode_level1/<name> by ngspice's vector names."""
    with open(reference_file("spice", "diode_level1", name)) as fh:
        rows = list(csv.DictReader(fh))
    return {key: np.array([float(row[key]) for row in rows]) for key in rows[0]}


def circuit(source=5.0, **diode):
    m = Model("diode_level1")
    v = m.add(VoltageSource("V1", V=source))
    r = m.add(Resistor("R1", R=1e3, constants="ngspice"))
    d = m.add(Diode("D1", **{"constants": "ngspice", **MODEL, **diode}))
    g = m.add(Ground("g"))
    m.connect(v.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, v.n, g.p)
    return m.compile()


@pytest.fixture(scope="module")
def dc():
    sim = circuit()
    return sim, sim.operating_point()


def test_operating_point_equals_ngspice(dc):
    # ngspice ran to reltol = 1e-12 (its default 1e-3 leaves v(out) 3e-7 V off), so its op is
    # exact to rounding; its own KCL holds: (5 − v(out))/1k = −i(V1) = the diode's id to 1e-13.
    # With ngspice's k and q: 1e-9 relative (measured 6.2e-14; SI 2019's vt, 3.4e-7 off, moves vd by
    # that fraction).
    sim, op = dc
    ref = {k: v[0] for k, v in read("diode_level1_op.csv").items()}
    assert (5.0 - ref["v(out)"]) / 1e3 == pytest.approx(-ref["i(V1)"], rel=1e-12)
    assert ref["id_d1"] == pytest.approx(-ref["i(V1)"], rel=1e-12)
    assert op["D1.p.v"] == pytest.approx(ref["v(out)"], rel=1e-9)
    assert op["D1.vd"] == pytest.approx(ref["vd_d1"], rel=1e-9)
    assert op["D1.i"] == pytest.approx(-ref["i(V1)"], rel=1e-9)
    assert op["D1.id"] == pytest.approx(ref["id_d1"], rel=1e-9)
    # The internal node: RS carries the diode current, v = vd + RS·i.
    assert op["D1.p.v"] - op["D1.vd"] == pytest.approx(0.568 * op["D1.i"], rel=1e-12)


def test_ac_response_equals_ngspice_from_1_hz_to_10_ghz(dc):
    # v(out)/V1 = Z/(R1 + Z), Z = RS + 1/(gd + jω(TT·gd + Cj(vd))): the small-signal
    # conductance and both charges at the operating point: 1e-9 relative over 101 frequencies
    # (measured 6.1e-14; 3.7e-7 with SI 2019's k and q, through gd).
    sim, op = dc
    ac = read("diode_level1_ac.csv")
    lin = sim.linearize(["V1.V"], ["D1.p.v", "V1.i"], at=op)
    H = lin.frequency_response(ac["frequency"])
    np.testing.assert_allclose(H[0, 0], ac["real(v(out))"] + 1j * ac["imag(v(out))"], rtol=1e-9)
    np.testing.assert_allclose(H[1, 0], ac["real(i(V1))"] + 1j * ac["imag(i(V1))"], rtol=1e-9)


def test_noise_total_and_every_source_equal_ngspice(dc):
    # ngspice's diode noise: thermal 4kT/RS across RS, shot 2q·id and flicker KF·id^AF/f across the
    # junction, inside RS: 1e-9 relative at every frequency (measured 1.2e-13; with SI 2019's
    # k and q 1.1e-6: k differs by 2.6e-6, vt by 3.4e-7).
    sim, op = dc
    ref = read("diode_level1_noise.csv")
    f = ref["frequency"]
    result = sim.noise("D1.p.v", f, at=op)
    assert {s.path: s.kind for s in result.sources} == {
        "R1": "thermal", "D1.rs": "thermal", "D1.id": "shot", "D1.1overf": "flicker"}
    for path, column in [("R1", "onoise_r1"), ("D1.rs", "onoise_d1_rs"), ("D1.id", "onoise_d1_id"),
                         ("D1.1overf", "onoise_d1_1overf")]:
        np.testing.assert_allclose(result.contributions[path], ref[column], rtol=1e-9, err_msg=path)
    diode = sum(result.contributions[p] for p in ("D1.rs", "D1.id", "D1.1overf"))
    np.testing.assert_allclose(diode, ref["onoise_d1"], rtol=1e-9)
    np.testing.assert_allclose(result.psd, ref["onoise_spectrum"], rtol=1e-9)


def test_transient_with_charge_storage_equals_ngspice():
    # 0 → 5 V → −2 V → 0 through 1 kΩ: the forward current's diffusion charge TT·id is pulled
    # out at the −2 V edge (reverse recovery) and the depletion charge follows the ramps.
    # ngspice (gear, reltol = 1e-9, steps ≤ 0.1 ns) agrees with its own 0.01 ns run to 1.1e-5 V;
    # physlib at rtol = 1e-9: measured 1.2e-5 V, 4.4e-6 of the 2.65 V range, so 1e-4 of the range.
    tran = read("diode_level1_tran.csv")
    sim = circuit(source=Table(points=PWL))
    t = tran["time"]
    res = sim.simulate(200e-9, t_eval=t, rtol=1e-9, atol=1e-12)
    for name, column in [("D1.p.v", "v(out)"), ("V1.i", "i(V1)")]:
        y = np.interp(t, res.t, res[name])
        span = np.ptp(tran[column])
        assert np.max(np.abs(y - tran[column])) <= 1e-4 * span, name
    # Reverse recovery happened: after the 62 ns edge the diode conducts backwards (i < 0)
    # while its stored charge lasts, far more than the saturation current.
    recovery = (t > 62e-9) & (t < 70e-9)
    assert tran["i(V1)"][recovery].max() > 1e-3


def test_defaults_are_the_shockley_diode():
    # No new parameter given: no charge, no breakdown, GMIN = 0, T = TNOM, one noise source
    # across the diode (its junction, Rs = 0): the diode physlib had, v = vd and
    # i = Is·(exp(v/(N·vt)) − 1) forward.
    m = Model("plain")
    v, r, d, g = VoltageSource("V", V=5.0), Resistor("R", R=1e4), Diode("D"), Ground("g")
    for part in (v, r, d, g):
        m.add(part)
    m.connect(v.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, v.n, g.p)
    sim = m.compile()
    assert sim.states == []
    op = sim.operating_point()
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    assert op["D.i"] == pytest.approx(1e-14 * np.expm1(op["D.v"] / vt), rel=1e-12)
    result = sim.noise("D.v", [10.0], at=op)
    assert {s.path: s.kind for s in result.sources} == {"R": "thermal", "D": "shot"}


def test_reverse_and_breakdown_branches_are_ngspice_s():
    # Below −3·N·vt ngspice's diode current is −IS·(1 + (3·N·vt/(e·vd))³), not Shockley's; below
    # −BVeff it breaks down: −IS·exp(−(BVeff + vd)/(N·vt)), BVeff the root of ngspice's
    # continuity condition IS·(exp((BV − x)/vt) − 1 + x/vt) = IBV (its fixed point, solved here
    # by bracketing). A voltage source straight across the diode sets vd; the closed forms hold
    # to rounding (1e-9 relative).
    from scipy.optimize import brentq
    IS, BV, IBV = 1e-9, 50.0, 1e-4
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    bv_eff = brentq(lambda x: IS * (np.exp((BV - x) / vt) - 1 + x / vt) - IBV, BV - 1.0, BV, xtol=1e-14)
    for vd, expect in [(-1.0, -IS * (1 + (3 * vt / (np.e * -1.0)) ** 3)),
                       (-50.0, -IS * np.exp(-(bv_eff - 50.0) / vt)),
                       (-2 * vt, IS * np.expm1(-2.0))]:
        m = Model("reverse")
        src, d, g = VoltageSource("V", V=vd), Diode("D", IS=IS, BV=BV, IBV=IBV), Ground("g")
        for part in (src, d, g):
            m.add(part)
        m.connect(src.p, d.p)
        m.connect(src.n, d.n, g.p)
        op = m.compile().operating_point()
        assert op["D.i"] == pytest.approx(expect, rel=1e-9), vd


def test_bad_parameters_are_named():
    for values, words in [(dict(M=0.95), ["M", "D1", "0.9"]), (dict(FC=1.0), ["FC", "D1"]),
                          (dict(BV=-5.0), ["BV", "D1"]), (dict(CJO=-1e-12), ["CJO", "D1"]),
                          (dict(TT=-1e-9), ["TT", "D1"]), (dict(VJ=0.0), ["VJ", "D1"]),
                          (dict(GMIN=-1e-12), ["GMIN", "D1"]), (dict(CJ0=1e-12, CJO=1e-12), ["CJO", "D1"]),
                          (dict(IS=1e-9, Is=1e-9), ["Is", "D1"]), (dict(BV="high"), ["BV", "D1"])]:
        with pytest.raises(ParameterError) as info:
            Diode("D1", **values)
        assert all(w in str(info.value) for w in words), (values, str(info.value))
    assert Diode("D2", CJ0=2e-12).CJO == 2e-12 and Diode("D3", RS=1.5).Rs == 1.5


def test_structure_deciding_parameters_after_compile_are_an_error_not_ignored():
    # CJO, TT > 0 make vd a state and a finite BV adds the breakdown branch, decided at compile;
    # params= of a compiled model used to drop such values without a word (CJO = 1 nF on a
    # diode compiled without charge simulated the diode without charge).
    from physlib import StructureChangeError
    plain = circuit(CJO=0.0, TT=0.0, BV=np.inf)
    for params, words in [({"D1.CJO": 1e-9}, ["D1", "CJO", "compile again"]),
                          ({"D1.TT": 1e-9}, ["D1", "TT", "compile again"]),
                          ({"D1.BV": 5.0}, ["D1", "BV", "compile again"])]:
        with pytest.raises(StructureChangeError) as info:
            plain.simulate(1e-9, params=params)
        assert all(w in str(info.value) for w in words), str(info.value)
        with pytest.raises(StructureChangeError):
            plain.operating_point(params=params)
    charged = circuit()              # CJO, TT > 0 and BV = 100 V compiled in
    with pytest.raises(StructureChangeError, match="remove"):
        charged.operating_point(params={"D1.CJO": 0.0, "D1.TT": 0.0})
    with pytest.raises(StructureChangeError, match="BV"):
        charged.operating_point(params={"D1.BV": np.inf})
    # Within the compiled structure the values are used: TT alone keeps the charge.
    op = charged.operating_point(params={"D1.CJO": 0.0, "D1.BV": 50.0, "D1.Is": 3e-9})
    assert op.p[charged.parameter_slot("D1.Is")] == 3e-9
    assert issubclass(StructureChangeError, ParameterError)


def _vd_q_energy(vd, cjo, vj, m, fc):
    """Depletion charge energy ∫₀^vd v·C(v) dv [J] by quadrature of ngspice's C(v) (T = TNOM)."""
    from scipy.integrate import quad
    f1, f2, f3 = vj * (1 - (1 - fc) ** (1 - m)) / (1 - m), (1 - fc) ** (1 + m), 1 - fc * (1 + m)

    def cap(v):
        return cjo * (1 - v / vj) ** -m if v < fc * vj else cjo / f2 * (f3 + m * v / vj)
    return quad(lambda v: v * cap(v), 0.0, vd, epsabs=0, epsrel=1e-12, points=[fc * vj])[0]


def test_charge_energy_is_stored_not_dissipated():
    # 0 → −5 V through 1 kΩ (a 100 ns ramp): the depletion capacitance charges; once settled
    # the diode stores ∫₀^vd v·C(v) dv (quadrature of ngspice's C(v)) and has dissipated only
    # in RS and its reverse leakage. It used to book vd·dQ/dt, the charging power, as
    # dissipation and store nothing.
    from scipy.integrate import simpson
    plain = dict(IS=1e-14, N=1.0, RS=10.0, CJO=10e-12, M=0.4, VJ=0.7, FC=0.5, TT=0.0,
                 BV=np.inf, GMIN=0.0, KF=0.0)
    m = Model("charging")
    v = m.add(VoltageSource("V1", V=Table(points=[(0.0, 0.0), (100e-9, -5.0), (1e-6, -5.0)])))
    r, d, g = m.add(Resistor("R1", R=1e3)), m.add(Diode("D1", **plain)), m.add(Ground("g"))
    m.connect(v.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, v.n, g.p)
    t = np.linspace(0.0, 1e-6, 4001)
    res = m.compile().simulate(1e-6, t_eval=t, rtol=1e-10, atol=1e-14)
    vd = res["D1.vd"][-1]
    expected = _vd_q_energy(vd, 10e-12, 0.7, 0.4, 0.5)
    # Closed form to rounding (the energy is an expression of vd); 1e-9 relative.
    assert res.stored_energy("D1")[-1] == pytest.approx(expected, rel=1e-9)
    # Dissipated: RS's Rs·i² (86 fJ) and the leakage (1e-14 A·5 V·1 µs = 5e-20 J, 6e-7 of it),
    # not the 64 pJ of charging power it used to book.
    rs_losses = simpson(10.0 * res["D1.i"] ** 2, x=t)
    assert simpson(res.dissipated_power("D1"), x=t) == pytest.approx(rs_losses, rel=1e-5)
    assert rs_losses < 2e-3 * expected


def test_energy_books_balance_through_forward_reverse_and_breakdown():
    # A 5 V sine through 100 Ω into a diode with TT, CJO, BV = 3 V and GMIN: forward conduction,
    # reverse, breakdown. Delivered energy = ΔW (charge energy) + ∫ dissipation, over a
    # non-periodic window (ends at 0.8 µs, mid-swing), each branch's charge integral in play.
    # Simpson on 16,001 points and rtol 1e-10: quadrature error ~1e-9 relative; 1e-6 checks the
    # declarations.
    from scipy.integrate import simpson
    from physlib.components.signals import Sine
    m = Model("books")
    v = m.add(VoltageSource("V1", V=Sine(amplitude=5.0, f=2e6)))
    r = m.add(Resistor("R1", R=100.0))
    d = m.add(Diode("D1", IS=1e-12, N=1.5, RS=2.0, CJO=20e-12, M=0.45, VJ=0.6, FC=0.5, TT=5e-9,
                    BV=3.0, IBV=1e-3, GMIN=1e-9))
    g = m.add(Ground("g"))
    m.connect(v.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, v.n, g.p)
    t = np.linspace(0.0, 0.8e-6, 16001)
    res = m.compile().simulate(0.8e-6, t_eval=t, rtol=1e-10, atol=1e-14)
    assert res["D1.vd"].min() < -3.0 and res["D1.vd"].max() > 0.6      # breakdown and forward
    delivered = simpson(-res["V1.v"] * res["V1.i"], x=t)
    stored = res.stored_energy()
    losses = simpson(res.dissipated_power(), x=t)
    assert abs(delivered - (stored[-1] - stored[0] + losses)) < 1e-6 * abs(delivered)
    assert abs(stored[-1] - stored[0]) > 1e-4 * abs(delivered)      # the check sees ΔW


def test_a_femtofarad_junction_starts_and_follows_the_quasi_static_solution():
    # A Diode with CJO = 0.1 pF behind 10 kΩ, driven by 0.5 + sin(2π·1 kHz·t) V, failed at its
    # start ("IDACalcIC ... IDA_NO_RECOVERY"; its consistent-start Newton stalled at a 1e-15 A
    # residual). Its RC time (1 ns) is 1e-6 of the period, so after the first nanoseconds (the
    # junction charging from 0 V: the row at t = 0 is left out) the current is the
    # quasi-static solution of (V − v)/R = IS·(exp(v/(N·vt)) − 1) to within the junction's
    # charging current Cj·dv/dt <= CJO/sqrt(1 − 0.5)·2π·1 kHz·1 V = 9e-10 A (measured 8.6e-10 A
    # where the source is steepest), so 2e-9 A: 1.3e-5 of the 0.15 mA peak.
    from scipy.optimize import brentq
    from physlib.components.signals import Sine
    m = Model("small_junction")
    v = m.add(VoltageSource("V1", V=Sine(amplitude=1.0, f=1e3, offset=0.5)))
    r = m.add(Resistor("R1", R=1e4))
    d = m.add(Diode("D1", IS=1e-14, CJO=1e-13))
    g = m.add(Ground("g"))
    m.connect(v.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, v.n, g.p)
    res = m.compile().simulate(2e-3, rtol=1e-9, atol=1e-12)
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    source = 0.5 + np.sin(2 * np.pi * 1e3 * res.t)
    vd = np.array([brentq(lambda x, s=s: (s - x) / 1e4 - 1e-14 * np.expm1(x / vt), -2.0, 2.0, xtol=1e-15)
                   for s in source])
    np.testing.assert_allclose(res["R1.i"][1:], ((source - vd) / 1e4)[1:], rtol=0, atol=2e-9)
