"""POLY(n) on E, G, F and H (physlib.spice.poly) against ngspice-39 (issue 37, acceptance 3).

Decks and references in tests/data/spice/poly (made by its make_references.py, ngspice-39 in
batch mode): every letter with 1, 2 and 3 controlling inputs and all terms up to cubic, node
pairs not to ground, a .param coefficient, a short coefficient list. ngspice-39 evaluates a
POLY source in its spice2poly code model, exactly the polynomial: .op and .ac agree to
rounding, hence 1e-9 relative (measured 2.9e-15 .op, 5.5e-16 of the range .ac).
"""
import pathlib
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from physlib.spice.poly import monomials

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "poly"


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # the decks read without a warning
        return spice.read(DATA / f"{name}.cir")


def compared(ref):
    """The node voltages and V-source currents of a reference (not spice2poly's own vectors)."""
    return {name: value for name, value in ref.items() if "$" not in name and name != "frequency"}


@pytest.mark.parametrize("name", ["poly_vc", "poly_cc"])
def test_poly_operating_point_equals_ngspice(name):
    op, ref = deck(name).op(), compared(spice.read_csv(DATA / f"{name}_op.csv"))
    assert len(ref) >= 13
    for vector, value in ref.items():
        # 1e-9 relative: a polynomial of the sources' values, no iteration error in either
        assert abs(op[vector] - value[0]) <= 1e-9 * abs(value[0]) + 1e-15, vector


@pytest.mark.parametrize("name", ["poly_vc", "poly_cc"])
def test_poly_ac_response_equals_ngspice(name):
    ac = deck(name).ac("dec", 2, 1, 1e6)
    ref = spice.read_csv(DATA / f"{name}_ac.csv")
    for vector, value in compared(ref).items():
        # 1e-9 of the vector's range: the linearized polynomial at the operating point
        scale = np.abs(value).max() or 1.0
        assert np.abs(np.asarray(ac[vector]) - value).max() <= 1e-9 * scale, vector


def test_poly_coefficients_follow_spice2s_order():
    # SPICE2's (and spice2poly's) order for two inputs up to cubic terms
    assert monomials(2, 10) == [(), (0,), (1,), (0, 0), (0, 1), (1, 1), (0, 0, 0), (0, 0, 1),
                                (0, 1, 1), (1, 1, 1)]
    assert monomials(3, 7) == [(), (0,), (1,), (2,), (0, 0), (0, 1), (0, 2)]


def test_a_coefficient_from_a_param_follows_params_without_recompiling():
    # E2's x2 coefficient is {g2}: v(e2) − v(e1) moves by Δg2 · (v(in2) − v(in3)) exactly
    poly = deck("poly_vc")
    base, moved = poly.op(), poly.op(params={"g2": 1.3})
    x2 = base["v(in2)"] - base["v(in3)"]
    change = (moved["v(e2)"] - moved["v(e1)"]) - (base["v(e2)"] - base["v(e1)"])
    assert change == pytest.approx(1.0 * x2, rel=1e-12)
    assert poly.compiles == 1


def test_poly1_with_one_coefficient_is_ngspices_constant_with_a_warning():
    # ngspice-39 gives v(b) = 2 for this line (SPICE2 would read 2 as the gain: 1.4 V)
    text = "t\nV1 a 0 0.7\nR1 a 0 1k\nE2 b 0 POLY(1) a 0 2.0\nRb b 0 1k\n.op\n.end\n"
    with pytest.warns(spice.SpiceWarning, match="constant p0 in ngspice-39"):
        op = spice.read(text).op()
    assert op["v(b)"] == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("line, message", [
    ("E2 b 0 POLY a 0 1 2", r"POLY\(n\), n ≥ 1"),
    ("E2 b 0 POLY(2) a 0 1 2", "takes 2 controlling input"),
    ("F2 b 0 POLY(1) V1", "then its coefficients"),
])
def test_a_malformed_poly_line_is_an_error_naming_its_form(line, message):
    text = f"t\nV1 a 0 0.7\nR1 a 0 1k\n{line}\nRb b 0 1k\n.op\n.end\n"
    with pytest.raises(spice.SpiceError, match=message):
        spice.read(text)
