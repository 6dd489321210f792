"""The uA741 Boyle macromodel (its POLY(2) E and POLY(5) F sources, limiter diodes, NPN input
pair) in an inverting amplifier of gain -10, the TL072 in a Sallen-Key low-pass (.op, .ac and a
square wave's .tran) and the LM358 in a single-supply band-pass and amplifier, against ngspice-39
(issue 37, acceptance 1).

Decks and references in tests/data/spice/opamp (made by its make_references.py). A deck
computes with ngspice-39's k and q (CODATA 2014), as ngspice does; with SI 2019's the uA741's
operating point moves by up to 1.1e-6 relative (the inverting input).
"""
import pathlib
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from reference import assert_within_range

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "opamp"
# The output-limiter diodes dlp, dln sit at 39.5 V reverse: their 4e-11 A (GMIN·vd) differs
# from ngspice's by up to 2.8e-15 A in .op and their sum i(h.x1.hlim) by 1.7e-15 A in .ac
LEAKAGE = 1e-14


def read(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # the decks read without a warning ...
        # ... but for method=gear and interp (ngspice's output rows on the .tran grid)
        warnings.filterwarnings("ignore", ".*option (method|interp) is ignored")
        return spice.read(DATA / name)


def compared(ref):
    """The reference's vectors but spice2poly's own (a$poly$...)."""
    return {name: value for name, value in ref.items() if "$" not in name}


@pytest.fixture(scope="module")
def amplifier():
    return read("ua741_inverting.cir")


# The clamp diodes whose anodes hang on a source at -40 V (dln) and -14 V (de), each through its
# 1-ohm RS: ngspice solves the current through RS as the difference of two node voltages there,
# which rounds to a few ulp(40 V) / 1 ohm ~ 1e-14 A; the POLY(5) F source multiplies these
# currents by 1e7 into the output stage, where they make an input-referred offset of 1.6e-11 V.
# diode: (its source's current, its sign as the diode's, anode and cathode as vectors and as
# the subcircuit's nodes)
CLAMPS = {"dln": ("i(v.x1.vln)", 1.0, "v(x1.92)", "v(x1.90)", "92 90"),
          "de": ("i(v.x1.ve)", -1.0, "v(x1.54)", "v(out)", "54 5")}
IS, GMIN = 800e-18, 1e-12           # the card's IS; ngspice's default GMIN across a junction


def reverse_current(anode, cathode):
    """A reverse-biased junction's current, anode to cathode (deep reverse: -IS + GMIN·vd; the
    cubic tail IS·(3vt/(e·vd))^3 is below 1e-9 of IS here)."""
    return -IS + GMIN * (anode - cathode)


def test_ua741_clamp_currents_are_closed_form_and_ngspice_rounds_them():
    op = read("ua741_inverting.cir").op()
    ref = spice.read_csv(DATA / "ua741_inverting_op.csv")
    for source, sign, anode, cathode, _ in CLAMPS.values():
        exact = reverse_current(ref[anode][0], ref[cathode][0])
        # physlib's current is the closed form's to 1e-9 relative (the RS drop, 4e-11 V, moves
        # GMIN·vd by 4e-23 A) ...
        assert sign * op[source] == pytest.approx(exact, rel=1e-9), source
        # ... ngspice's is off by rounding: more than 1e-15 A, within 4 ulp of the anode's
        # voltage through 1 ohm
        off = abs(sign * ref[source][0] - exact)
        assert 1e-16 < off <= 4 * np.spacing(abs(ref[anode][0])), source


def test_ua741_inverting_amplifier_operating_point_equals_ngspice(tmp_path):
    """Every vector within 1e-6 relative of ngspice's, with ngspice's rounding of the two clamp
    currents (above) put back as current sources across the diodes: without them node 6, the
    differential stage's 1e-4 V output (and vb's current, v(6)/R2) differs by 3.0e-6, all of it
    the 1e7 gain of those rounded currents (with them, 3.5e-10)."""
    ref = compared(spice.read_csv(DATA / "ua741_inverting_op.csv"))
    injected = "".join(
        f"  i{diode}_rounding {nodes} dc "
        f"{sign * ref[source][0] - reverse_current(ref[anode][0], ref[cathode][0]):.17g}\n"
        for diode, (source, sign, anode, cathode, nodes) in CLAMPS.items())
    library = (DATA / "ua741.lib").read_text().replace(".model dx", injected + ".model dx")
    (tmp_path / "ua741.lib").write_text(library)
    (tmp_path / "deck.cir").write_text((DATA / "ua741_inverting.cir").read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        op = spice.read(tmp_path / "deck.cir").op()
    for name, value in ref.items():
        # 1e-6 relative (acceptance 1; measured 3.5e-10, 1.1e-6 with SI 2019's k and q)
        assert abs(op[name] - value[0]) <= 1e-6 * abs(value[0]) + LEAKAGE, name
    assert op["v(out)"] == pytest.approx(-0.99175, rel=1e-4)     # -10 · 0.1 V, less the offset


def test_ua741_inverting_amplifier_ac_equals_ngspice(amplifier):
    ac = amplifier.ac("dec", 5, 1, 10e6)
    ref = compared(spice.read_csv(DATA / "ua741_inverting_ac.csv"))
    for name, expected in ref.items():
        if name != "frequency":
            # 1e-5 relative at every frequency (measured 5.5e-9; 9.3e-7 with SI 2019's k and q)
            got = np.asarray(ac[name])
            assert np.all(np.abs(got - expected) <= 1e-5 * np.abs(expected) + LEAKAGE), name
    gain = np.abs(ref["v(out)"])
    assert gain[0] == pytest.approx(10, rel=1e-3) and gain[-1] < 1      # the closed loop rolls off


def test_ua741_inverting_amplifier_transient_equals_ngspice():
    ref = compared(spice.read_csv(DATA / "ua741_inverting_tran_tran.csv"))
    tran = read("ua741_inverting_tran.cir").tran(5e-6, 2e-3, t_eval=ref["time"])
    # after ngspice's first steps (its first, 50 ns, puts the input pair's collectors 1.7e-3
    # of their 5 mV swing off)
    late = ref["time"] >= 10e-6
    for name, expected in ref.items():
        if name == "time" or np.ptp(expected) == 0:
            continue
        error = np.max(np.abs(np.asarray(tran[name])[late] - expected[late]))
        # 1e-3 of each vector's range (measured 5.4e-4 at most, i(v.x1.vln); 1.9e-4 v(inv))
        assert error <= 1e-3 * np.ptp(expected), (name, error / np.ptp(expected))
    assert np.ptp(ref["v(out)"]) > 9.9                     # ±5 V out of ±0.5 V in


def test_tl072_sallen_key_low_pass_op_and_ac_equal_ngspice():
    # The TL072 macromodel as TI publishes it (a PJF input pair, POLY(2) E, POLY(5) F, limiter
    # diodes) in a unity-gain Sallen-Key low-pass: .op within 1e-6 relative (measured 6e-14 V;
    # the PJF input pair's gate diodes, at −14.5 V reverse, carry no vt), .ac 1 Hz–10 MHz within
    # 1e-5 relative at every frequency (measured 7e-12), both by acceptance 1.
    deck = read("tl072_sallen_key.cir")
    op, ref = deck.op(), compared(spice.read_csv(DATA / "tl072_sallen_key_op.csv"))
    for name, value in ref.items():
        assert abs(op[name] - value[0]) <= 1e-6 * abs(value[0]) + LEAKAGE, name
    assert op["v(out)"] == pytest.approx(0.5, abs=1e-2)          # the follower's 0.5 V
    ac, ref = deck.ac("dec", 10, 1, 10e6), compared(spice.read_csv(DATA / "tl072_sallen_key_ac.csv"))
    for name, expected in ((k, v) for k, v in ref.items() if k != "frequency"):
        got = np.asarray(ac[name])
        assert np.all(np.abs(got - expected) <= 1e-5 * np.abs(expected) + LEAKAGE), name
    gain = np.abs(ref["v(out)"])
    assert gain[0] == pytest.approx(1, rel=1e-3) and gain[40] < 0.03    # −40 dB/decade past f0


def test_tl072_sallen_key_square_wave_transient_equals_ngspice():
    # A 1 kHz square wave of 0 to 1 V (10 us edges) through the Sallen-Key low-pass: each edge
    # rings (Q = 0.74: 2.8 % overshoot). Within 1e-3 of each vector's range (acceptance 1);
    # measured 9.9e-6 at most (i(vcc), whose whole range is the 1e-12 A of the limiter diodes'
    # leakage), 4.7e-6 on v(a); ngspice's own run at reltol 1e-9 and 0.1 us steps is as far
    # (9.9e-6, 4.5e-6) from this reference.
    ref = compared(spice.read_csv(DATA / "tl072_sallen_key_tran_tran.csv"))
    tran = read("tl072_sallen_key_tran.cir").tran(5e-6, 3e-3, 0, 0.5e-6, t_eval=ref["time"])
    assert_within_range(tran, ref)
    assert 1.02 < ref["v(out)"].max() < 1.04                   # the step response's overshoot


@pytest.fixture(scope="module")
def lm358_bandpass():
    return read("lm358_bandpass.cir")


def test_lm358_single_supply_bandpass_op_is_newtons_and_equals_ngspice(lm358_bandpass):
    # The LM358 macromodel as National publishes it (PNP input pair, POLY(2) E, POLY(5) F)
    # in a 12 V single-supply multiple-feedback band-pass and a non-inverting amplifier:
    # .op within 1e-6 relative (measured 2.0e-9; 3.0e-8 with SI 2019's k and q). Full Newton steps reach it
    # from the start values, as ngspice's Newton does; CasADi's default line search stalled on
    # the macromodel's 2e7 A/A output loop and left it to 59 gmin steps (15 s).
    op = lm358_bandpass.op()
    assert op.raw.method == "newton"
    ref = compared(spice.read_csv(DATA / "lm358_bandpass_op.csv"))
    for name, value in ref.items():
        assert abs(op[name] - value[0]) <= 1e-6 * abs(value[0]) + LEAKAGE, name
    assert op["v(out1)"] == pytest.approx(6, abs=0.01)              # both on the 6 V mid-rail
    assert op["v(out2)"] == pytest.approx(6, abs=0.01)


def test_lm358_single_supply_bandpass_ac_equals_ngspice(lm358_bandpass):
    ac = lm358_bandpass.ac("dec", 10, 10, 10e6)
    ref = compared(spice.read_csv(DATA / "lm358_bandpass_ac.csv"))
    for name, expected in ((k, v) for k, v in ref.items() if k != "frequency"):
        # 1e-5 relative at every frequency (acceptance 1; measured 5.5e-8, 7.1e-6 at v(a) with
        # SI 2019's k and q)
        got = np.asarray(ac[name])
        assert np.all(np.abs(got - expected) <= 1e-5 * np.abs(expected) + LEAKAGE), name
    gain = np.abs(ref["v(out1)"])
    assert ref["frequency"][gain.argmax()] == pytest.approx(1e3) and gain.max() > 9.5   # f0, -10


def test_lm358_bandpass_clipping_transient_equals_ngspice():
    ref = compared(spice.read_csv(DATA / "lm358_bandpass_tran_tran.csv"))
    tran = read("lm358_bandpass_tran.cir").tran(5e-6, 3e-3, 0, 0.5e-6, t_eval=ref["time"])
    # 1e-3 of each vector's range (acceptance 1; measured 1.5e-4, the second stage's
    # internal node 6 while it clips; 1.1e-5 on the outputs)
    assert_within_range(tran, ref)
    assert ref["v(out2)"].max() < 10.6 < 6 + 5.7 * 0.94          # the second stage clips
