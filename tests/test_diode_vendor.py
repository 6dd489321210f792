"""Vendor diode cards with ngspice-39's IKF, IKR, ISR, NR, NBV (IBVL, NBVL, TBV1 read) against
ngspice-39 (issue 37, build 6 and acceptance 1).

Decks and references in tests/data/spice/diode_vendor (made by its make_references.py): the
1N4148, 1N4007, 1N5819 and 1N750 cards as the vendors publish them (but for their PSpice-only
entries), each behind a resistor from one source (.op, .dc from -10 V to 10 V through forward
conduction, high injection and the Zener's breakdown, .ac), and rectifiers under a 10 V sine.
A deck computes with ngspice-39's k and q (CODATA 2014), as ngspice; both Newton iterations
converge, so the DC results agree to 1e-9 (SI 2019's kT/q, 3.4e-7 relative off, would move them
by up to 4.8e-7).
"""
import pathlib
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from physlib.constants import CONSTANT_SETS
from reference import assert_within_range

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "diode_vendor"


def read(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)       # .options method=gear, ignored
        return spice.read(DATA / name)


@pytest.fixture(scope="module")
def diodes():
    return read("diodes.cir")


def test_vendor_diodes_operating_point_equals_ngspice(diodes):
    op, ref = diodes.op(), spice.read_csv(DATA / "diodes_op.csv")
    for name, value in ref.items():
        # 1e-9 relative (measured 4.6e-15; 3.3e-7 with SI 2019's k and q; the issue asks 1e-6)
        assert abs(op[name] - value[0]) <= 1e-9 * abs(value[0]), name
    assert op["v(z)"] == pytest.approx(4.7, abs=0.3)          # the Zener regulates


def test_vendor_diodes_dc_sweep_equals_ngspice_through_every_branch(diodes):
    dc, ref = diodes.dc("vin", -10.0, 10.0, 0.05), spice.read_csv(DATA / "diodes_dc.csv")
    # the reference obeys Kirchhoff (ngspice-39 can return wrong sweep points after another
    # analysis; this one ran alone): the source delivers the four branches' currents
    branches = sum((ref["v-sweep"] - ref[f"v({node})"]) / r
                   for node, r in (("a", 1e3), ("b", 100.0), ("c", 10.0), ("z", 220.0)))
    assert np.allclose(-ref["i(vin)"], branches, rtol=1e-9, atol=1e-15)
    for name, expected in ref.items():
        if name == "v-sweep":
            continue
        # 1e-9 of each point, or 1e-9 of the vector's range where it crosses zero (measured:
        # within the latter everywhere; 4.8e-7 of a point with SI 2019's k and q)
        floor = 1e-9 * np.ptp(expected)
        assert np.all(np.abs(np.asarray(dc[name]) - expected) <= 1e-9 * np.abs(expected) + floor), name


def test_vendor_diodes_ac_equals_ngspice_but_for_its_isr_conductance(diodes):
    ac, ref = diodes.ac("dec", 5, 1, 100e6), spice.read_csv(DATA / "diodes_ac.csv")
    for name in ("v(b)", "v(c)", "v(z)"):
        # 1e-5 relative at every frequency (measured 7.1e-7, v(c), the 1N5819 at high current; 9.5e-7
        # with SI 2019's k and q)
        assert np.all(np.abs(np.asarray(ac[name]) - ref[name]) <= 1e-5 * np.abs(ref[name])), name
    # The 1N4148 (ISR) at 4.3 mA: ngspice-39's small-signal conductance is not the derivative of
    # its own DC current (the recombination term's generation factor is differentiated without
    # its 1/VJ and with the factor applied twice), so its .ac gain is 0.56 % off its .op; physlib
    # takes the derivative. Shown: the 1 Hz gain equals the divider with the exact slope of
    # ngspice-39's DC current (closed form, at physlib's operating point) ...
    op = diodes.op()
    current = (5.0 - op["v(a)"]) / 1e3
    vd = op["v(a)"] - 0.5664 * current
    vt = CONSTANT_SETS["ngspice"].thermal_voltage(300.15)     # the deck's (ngspice's k and q)

    def dc_current(v):
        raw = 2.682e-9 * np.expm1(v / (1.836 * vt)) + \
            1.565e-9 * np.expm1(v / (2 * vt)) * ((1 - v / 0.5)**2 + 0.005)**(0.3333 / 2)
        return raw / (1 + np.sqrt(raw / 44.17e-3)) + 1e-12 * v

    assert dc_current(vd) == pytest.approx(current, rel=1e-9)      # the DC current itself
    step = 1e-6
    slope = (dc_current(vd + step) - dc_current(vd - step)) / (2 * step)
    divider = (1 / slope + 0.5664) / (1e3 + 1 / slope + 0.5664)
    assert abs(ac["v(a)"][0]) == pytest.approx(divider, rel=1e-6)
    # ... and ngspice's is 0.56 % above it
    assert abs(ref["v(a)"][0]) / divider == pytest.approx(1.0056, abs=2e-4)


def test_vendor_rectifiers_transient_equals_ngspice():
    ref = spice.read_csv(DATA / "rectifiers_tran.csv")
    tran = read("rectifiers.cir").tran(2e-6, 2e-3, t_eval=ref["time"])       # ngspice's times
    assert_within_range(tran, ref)



def test_the_writer_keeps_the_new_diode_parameters():
    # a netlist that dropped ISR or IKF would simulate another diode without a word
    from physlib import Model
    from physlib.components import electrical as el
    model = Model("m")
    source = model.add(el.VoltageSource("v1", V=1.0))
    diode = model.add(el.Diode("d1", ISR=1e-10, NR=1.9, IKF=0.05, IKR=1e-3, NBV=1.5, TRS=2e-3))
    ground = model.add(el.Ground("g"))
    model.connect(source.p, diode.p)
    model.connect(source.n, diode.n, ground.p)
    text = spice.write(model)
    for entry in ("ISR=1e-10", "NR=1.9", "IKF=0.05", "IKR=0.001", "NBV=1.5", "TRS=0.002"):
        assert entry in text, entry
