"""A JFET card as vendors publish it, the 2N3819's (ngspice-39's temperature coefficients
Betatce, Vtotc and Xti; PSpice-only Isr, N, Nr, Alpha, Vk and M, which ngspice-39 ignores), in a
self-biased common-source amplifier against ngspice-39 (issue 37, acceptance 1): .op, .ac to
1 GHz, .noise, .tran, and .op at 70 °C.

Decks and references in tests/data/spice/jfet_vendor (made by its make_references.py).
ngspice-39 computes with CODATA-2014 constants, and so do the decks here (physlib's default,
SI 2019, has vt 3.4e-7 relative off, k 2.6e-6). The channel current does not depend on vt, the
gate diodes do (by (v/vt)·3.4e-7), the noise densities by k: the tolerances below catch SI's.
"""
import pathlib
import re
import warnings

import numpy as np
import pytest

import physlib.spice as spice

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "jfet_vendor"


def read(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)     # ISR=, ... (tested below)
        return spice.read(DATA / name)


@pytest.fixture(scope="module")
def amplifier():
    return read("cs_2n3819.cir")


def test_vendor_card_pspice_entries_warn_as_ngspice_ignores_them():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", spice.SpiceWarning)
        spice.read(DATA / "cs_2n3819.cir")
    assert any(re.search(r"ISR=, N=, NR=, ALPHA=, VK=, M= ignored: PSpice-only", str(w.message))
               for w in caught)


def test_2n3819_amplifier_op_and_ac_equal_ngspice_to_1_ghz(amplifier):
    # .op: every node and source within 1e-6 relative (acceptance 1; measured 4e-13: the gate
    # junction, reverse-biased, carries no vt); .ac 1 Hz-1 GHz through CGS, CGD at the bias, RD,
    # RS and the capacitors: within 1e-5 relative at every frequency (measured 1.7e-9).
    op, ref = amplifier.op(), spice.read_csv(DATA / "cs_2n3819_op.csv")
    for name, value in ref.items():
        assert abs(op[name] - value[0]) <= 1e-6 * abs(value[0]) + 1e-15, name
    assert 5 < op["v(d)"] < 9 and op["i(vdd)"] < -2e-3                  # biased to amplify
    ac, ref = amplifier.ac("dec", 10, 1, 1e9), spice.read_csv(DATA / "cs_2n3819_ac.csv")
    for name in (k for k in ref if k != "frequency"):
        expected, got = ref[name], np.asarray(ac[name])
        assert np.all(np.abs(got - expected) <= 1e-5 * np.abs(expected) + 1e-15), name
    assert np.abs(ref["v(out)"]).max() > 5                              # the stage's gain


def test_2n3819_amplifier_noise_equals_ngspice(amplifier):
    # Each source of J1 (rd, rs, channel 4kT·2/3·gm, flicker KF·ID^AF/f) and of the resistors,
    # the spectra 1 Hz-1 GHz and the integrated totals: within 1e-8 relative (measured 2.4e-10
    # and 4.7e-11; 1.7e-7 on both with SI 2019's Boltzmann constant; the issue asks 1e-5).
    result = amplifier.noise("v(out)", "vin", "dec", 10, 1, 1e9)
    ref = spice.read_csv(DATA / "cs_2n3819_noise.csv")
    assert {"onoise_j1_rd", "onoise_j1_rs", "onoise_j1_id", "onoise_j1_1overf"} <= set(ref)
    for name in (k for k in ref if k != "frequency"):
        expected, got = ref[name], np.asarray(result[name])
        live = expected > 0
        assert np.all((got > 0) == live), name
        assert np.all(np.abs(got[live] - expected[live]) <= 1e-8 * expected[live]), name
    for name, value in spice.read_csv(DATA / "cs_2n3819_noise_total.csv").items():
        assert result[name] == pytest.approx(value[0], rel=1e-8, abs=0), name


def test_2n3819_temperature_coefficients_at_70_c_equal_ngspice():
    # At 70 °C Vtotc moves VTO by -0.11 V and Betatce BETA by 1.01^(-21.5) = 0.81; J2's gate,
    # forward-biased by 0.45 V, carries IS·exp((T/TNOM − 1)·EG/vt)·(T/TNOM)^Xti. Every node and
    # source within 1e-9 relative (measured 3.0e-13); SI 2019's k and q would move the gate
    # currents (i(vb); J1's leakage through RG, v(g)) by 6.8e-6 and 1.3e-6: their 3.4e-7 in vt
    # times the exponent's (T/TNOM − 1)·EG/vt + v/vt = 5.4 + 15.2. J3's card has ngspice's
    # other pair, TCV and BEX: VTO − TCV·(T − TNOM), BETA·(T/TNOM)^BEX.
    op, ref = read("cs_2n3819_hot.cir").op(), spice.read_csv(DATA / "cs_2n3819_hot_op.csv")
    for name, value in ref.items():
        assert abs(op[name] - value[0]) <= 1e-9 * abs(value[0]) + 1e-15, name
    assert ref["i(vdd)"][0] < -0.015                  # J2's channel conducts (VTO and BETA at T)
    assert 10.8 < ref["v(d3)"][0] < 11                # J3's 4.1 mA (4.4 mA at 27 °C)


def test_vto_coefficient_with_b_term_is_refused():
    # ngspice-39's B term keeps VTO at TNOM while its channel takes VTO at T: physlib's JFET
    # has one VTO, so the reader refuses the pair rather than compute something else.
    text = ("t\nV1 d 0 5\nJ1 d 0 0 jb\n.model jb NJF(VTO=-2 VTOTC=-2m B=0.9)\n.op\n.end\n")
    with pytest.raises(spice.SpiceError, match="VTOTC= or TCV= with B ≠ 1 is not supported"):
        spice.read(text)


def test_2n3819_amplifier_transient_equals_ngspice():
    # 0.4 V at 10 kHz: within 1e-3 of each vector's range (acceptance 1); measured 1.9e-4 on
    # i(vin) (ngspice's own run at reltol 1e-9 and 0.02 us steps is 1.8e-4 of its range off this
    # reference after 1 us, 3.6e-3 in its first steps), 1.9e-5 at most elsewhere.
    ref = spice.read_csv(DATA / "cs_2n3819_tran_tran.csv")
    tran = read("cs_2n3819_tran.cir").tran(1e-7, 2e-4, 0.0, 1e-7)
    for name in (k for k in ref if k != "time" and np.ptp(ref[k]) > 0):
        expected = np.interp(tran["time"], ref["time"], ref[name])
        error = np.max(np.abs(np.asarray(tran[name]) - expected))
        assert error <= 1e-3 * np.ptp(ref[name]), (name, error / np.ptp(ref[name]))
    assert np.ptp(ref["v(out)"]) > 5 * np.ptp(ref["v(in)"])             # it amplifies
