"""E and G TABLE sources (physlib.spice.behavioural.table_source) against ngspice-39.

Deck and references in tests/data/spice/table (made by its make_references.py, ngspice-39 in
batch mode): uneven segments, an input across two nodes, a .param point, pairs written with
and without commas, a single pair, the G form and a table inside a subcircuit, swept by .dc
across every corner and both ends, its .op inside a rounded corner and its .ac there.
ngspice-39 evaluates a TABLE in its XSPICE pwl code model; physlib writes the same function
(lines, constant ends, each corner's parabola over ±10 % of its shorter segment), so with the
deck's tight tolerances (reltol 1e-10) the two agree to 1e-9 of each vector's range
(measured 1.0e-14 V on the sweep, 5.5e-17 V at the operating point).
"""
import pathlib
import warnings

import numpy as np
import pytest

import physlib.spice as spice

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "table"
LINES = "t\nV1 a 0 0.7\nR1 a 0 1k\n{}\nRb b 0 1k\n.op\n.end\n"


def deck():
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # the deck reads without a warning
        return spice.read(DATA / "table.cir")


def compared(ref):
    """The deck's own node voltages and source currents: not the vectors of the helper nodes,
    B sources and code models ngspice-39 makes of each TABLE (e1_int1, i(be1), ae1#branch…)."""
    helpers = ("_int", "#branch_", "i(b", "i(ve")
    return {name: value for name, value in ref.items()
            if name not in ("frequency", "v-sweep") and not any(h in name for h in helpers)}


def test_table_sweep_equals_ngspice_through_every_corner_and_beyond_both_ends():
    ref = spice.read_csv(DATA / "table_dc.csv")
    swept = deck().dc("V1", -1.5, 1.5, 0.01)
    assert len(ref["v-sweep"]) == 301
    vectors = compared(ref)
    assert {"v(e1)", "v(e2)", "v(g1)", "v(e3)", "v(x1)", "i(e1)"} <= set(vectors)
    for vector, value in vectors.items():
        # 1e-9 of the vector's range: the same piecewise function of the same input
        scale = np.abs(value).max() or 1.0
        assert np.abs(np.asarray(swept[vector]) - value).max() <= 1e-9 * scale, vector


def test_table_operating_point_and_small_signal_gain_inside_a_rounded_corner_equal_ngspice():
    net = deck()
    op, ref = net.op(), compared(spice.read_csv(DATA / "table_op.csv"))
    for vector, value in ref.items():
        assert abs(op[vector] - value[0]) <= 1e-9 * abs(value[0]) + 1e-15, vector
    # E1 at v(in) = 0.26, in the parabola about its point (0.25, 0.8): the segments either side
    # are 0.25 and 0.75 long, so it spans ±0.025; slopes 3.2 and 1.6 V/V
    d, below, above = 0.025, 3.2, 1.6
    assert op["v(e1)"] == pytest.approx(0.8 + below * 0.01 + (above - below) * (0.01 + d) ** 2 / (4 * d),
                                        rel=1e-12)
    ac = net.ac("lin", 1, 1e3, 1e3)
    for vector, value in compared(spice.read_csv(DATA / "table_ac.csv")).items():
        scale = np.abs(value).max() or 1.0
        assert np.abs(np.asarray(ac[vector]) - value).max() <= 1e-9 * scale, vector
    # the gain there is the parabola's slope: 3.2 + (1.6 − 3.2)·(0.035)/(0.05)
    assert np.real(ac["v(e1)"][0]) == pytest.approx(below + (above - below) * (0.01 + d) / (2 * d), rel=1e-12)


def test_a_table_point_from_a_param_follows_params_without_recompiling():
    # E2's middle point is ({xa}, {ya}); at xa = 0.6 its input 2·(0.26 + 0.2) − 0.1 = 0.82
    # lies on the straight part after it: 2 + (−1 − 2)/(1.5 − 0.6)·(0.82 − 0.6)
    net = deck()
    moved = net.op(params={"xa": 0.6})
    assert moved["v(e2)"] - moved["v(e1)"] == pytest.approx(2 - 3 / 0.9 * 0.22, rel=1e-12)
    assert net.compiles == 1


@pytest.mark.parametrize("line, message", [
    ("E2 b 0 TABLE V(a) = (0, 0) (1, 1)", "input in braces"),
    ("E2 b 0 TABLE {V(a)} = (0, 0) (1)", r"\(x, y\) pairs .* got 3 number"),
    ("E2 b 0 TABLE {V(a)}", r"\(x, y\) pairs .* got 0 number"),
    ("G2 b 0 TABLE {V(a)} = (0, 0) (1, 1m) (0.5, 2m)", "x values must increase, got 0, 1, 0.5"),
    ("F2 b 0 TABLE {I(V1)} = (0, 0) (1, 1)", "TABLE on F is not supported"),
])
def test_a_malformed_table_is_an_error_naming_its_form(line, message):
    # (ngspice-39 reads the last three as garbage: a missing token or an x out of order gives 0 V)
    with pytest.raises(spice.SpiceError, match=message):
        spice.read(LINES.format(line))
