"""physlib.spice's elements and devices (D with its .model, K, B, S/W, source options, .ic,
.nodeset, .temp) against ngspice-39 references (tests/data/spice, made by the scripts there;
ngspice is not needed here) and closed forms.

Tolerances, as tests/test_spice_reader.py states them: a linear .op/.ac agrees to rounding
(1e-9 relative); a nonlinear .op ends a Newton iteration in both programs, and ngspice-39 uses
CODATA 2014 constants (kT/q 3.4e-7 relative off SI 2019's), hence 1e-5; a transient is
integrated by different methods (trapezoidal or gear in ngspice, BDF in IDAS) and compared after
interpolating ngspice's points onto physlib's, hence 1e-4 of each signal's range.
"""
import csv
import math
import pathlib
import warnings

import numpy as np
import pytest

import physlib
import physlib.spice as spice

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice"
BOLTZMANN, CHARGE = 1.380649e-23, 1.602176634e-19


def table(path):
    """Columns of a reference CSV; ``x.re``/``x.im`` pairs joined into complex ``x``."""
    with open(path) as handle:
        rows = list(csv.reader(handle))
    out = {key: np.array([float(r[k]) for r in rows[1:]]) for k, key in enumerate(rows[0])}
    for key in [k for k in out if k.endswith(".re")]:
        out[key[:-3]] = out.pop(key) + 1j * out.pop(key[:-3] + ".im")
    return out


def read(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        return spice.read(source)


def relative_error(ours, ref):
    """Largest |ours − ref| / |ref|, with a floor of 1e-6 of the largest |ref| (a node near 0)."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    return float(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), np.max(np.abs(ref)) * 1e-6 + 1e-300)))


# --- D: the level-1 diode from its .model card ------------------------------------------------

def test_the_1n4148_deck_read_by_the_reader_equals_ngspice():
    # tests/data/spice/diode_level1/diode_level1.cir (CJO, M, VJ, FC, TT, BV, IBV, EG, XTI, KF,
    # AF in its .model; gmin = 1e-12) read as a deck: .op and .ac 1 Hz–10 GHz against the
    # ngspice-39 tables of tests/test_diode_level1.py. Its .control block is skipped; the
    # analyses are called as its commands are. 1e-5: the constants' 3.4e-7 is the floor.
    deck = read(DATA / "diode_level1" / "diode_level1.cir")
    op = table(DATA / "diode_level1" / "diode_level1_op.csv")
    result = deck.op()
    for ours, theirs in [("v(out)", "v(out)"), ("i(v1)", "i(V1)")]:
        assert relative_error(result[ours], op[theirs]) < 1e-5, ours
    ac = table(DATA / "diode_level1" / "diode_level1_ac.csv")
    result = deck.ac("dec", 10, 1, 10e9)
    assert np.allclose(result["frequency"], ac["frequency"], rtol=1e-12, atol=0)
    for ours, re, im in [("v(out)", "real(v(out))", "imag(v(out))"),
                         ("i(v1)", "real(i(V1))", "imag(i(V1))")]:
        assert relative_error(result[ours], ac[re] + 1j * ac[im]) < 1e-5, ours


def test_gmin_sits_across_the_junction_as_ngspice_s():
    # ngspice's dioload adds GMIN·vd to the junction current (default 1e-12 S, `.options gmin`).
    # A source straight across a reverse-biased diode: i = −IS·(1 + (3·vt/(e·vd))³) + GMIN·vd,
    # closed form to rounding.
    vt = BOLTZMANN * 300.15 / CHARGE
    for options, gmin in [("", 1e-12), (".options gmin=1e-9\n", 1e-9)]:
        deck = read(f"gmin\nV1 a 0 -2\nD1 a 0 dm\n.model dm D(IS=1f)\n{options}.end\n")
        expected = -1e-15 * (1 + (3 * vt / (math.e * -2.0)) ** 3) + gmin * -2.0
        assert -deck.op()["i(v1)"] == pytest.approx(expected, rel=1e-12)


def test_a_diode_param_that_would_add_charge_after_compile_is_named():
    deck = read("cj\n.param cj=0\nV1 a 0 1\nR1 a b 1k\nD1 b 0 dm\n.model dm D(IS=1f CJO={cj})\n.end\n")
    deck.op()
    with pytest.raises(physlib.StructureChangeError, match="d1.*CJO"):
        deck.op(params={"cj": 1e-12})
