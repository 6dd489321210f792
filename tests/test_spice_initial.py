"""``.ic`` without ``uic`` and ``.nodeset`` against ngspice-39 (tests/data/spice/reader, made by
its make_references.py; ngspice is not needed here) and closed forms.

ngspice-39 holds each ``.ic`` node at its value for the transient's operating point (its KCL row
replaced by v = value; the t = 0 row) and releases it for the transient; ``.nodeset`` nodes are
held only for the first Newton iterations of an operating point, which then goes on free from
there. Tolerances as tests/test_spice_reader.py's: a linear .op within 1e-9 relative (one linear
solve in both), a nonlinear one within 1e-5 (ngspice stops at reltol 1e-6), a transient within
1e-4 of each signal's range at ngspice's own time points (measured: 1.4e-5 ic_hold v(c),
2.1e-5 nodeset v(a)).
"""
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from test_spice_reader import DATA, assert_close, deck, reference, vectors


def tran_at_ngspice_points(name):
    ref = reference(f"{name}_tran.csv")
    d = deck(f"{name}.cir")
    result = d.tran(**next(a for kind, a in d.analyses if kind == "tran"), t_eval=ref["time"])
    for vector in vectors(ref, "time"):
        span = np.ptp(ref[vector]) or 1.0
        worst = np.max(np.abs(result[vector] - ref[vector])) / span
        assert worst < 1e-4, f"{name} {vector}: {worst:.3g} of its range"
    return result


def test_ic_holds_nodes_only_for_the_transients_operating_point():
    result = tran_at_ngspice_points("ic_hold")
    # t = 0 is the held point (closed form): a, b, e at their .ic values (.ic wins over
    # .nodeset on a), L1 carries v(a)/R4, V1 feeds R1 and R5 from 1 V
    held = {"v(a)": 0.3, "v(b)": 0.8, "v(c)": 0.0, "v(e)": 0.2, "v(d)": 0.3,
            "i(l1)": 0.3 / 500, "i(v1)": -(0.7e-3 + 0.8e-3)}
    for name, value in held.items():
        assert result[name][0] == pytest.approx(value, rel=1e-12, abs=1e-15), name
    assert result["v(e)"][1] == pytest.approx(0.5, rel=1e-12)      # released: resistive node


def test_op_ignores_ic_as_ngspice():
    ref = reference("ic_hold_op.csv")
    result = deck("ic_hold.cir").op()
    for vector in vectors(ref):
        if ref[vector][0] == 0.0:         # v(c): no DC current through R3; rounding only
            assert abs(result[vector]) < 1e-15, vector
        else:
            assert_close(result[vector], ref[vector], 1e-9, f"ic_hold {vector}")


def test_nodeset_chooses_ngspices_solution_of_three():
    d = deck("nodeset.cir")
    for kind, args in d.analyses:
        if kind == "op":
            result, ref, scale = d.op(), reference("nodeset_op.csv"), None
        elif kind == "dc":
            result, ref, scale = d.dc(**args), reference("nodeset_dc.csv"), "v-sweep"
        else:
            continue
        for vector in vectors(ref, scale):
            assert_close(result[vector], ref[vector], 1e-5, f"nodeset .{kind} {vector}")
    tran_at_ngspice_points("nodeset")


def test_without_nodeset_the_operating_point_is_the_middle_solution():
    # From its default start (0 V) ngspice-39 and physlib find the root near 0 of
    # 1m·(v − v³) + (1 − v)/20k − v/2k = 0 (closed form: the middle root of the cubic).
    text = "\n".join(line for line in (DATA / "nodeset.cir").read_text().splitlines()
                     if not line.lower().startswith(".nodeset"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        v = spice.read(text).op()["v(a)"]
    roots = np.sort(np.roots([-1e-3, 0.0, 1e-3 - 1 / 20e3 - 1 / 2e3, 1 / 20e3]).real)
    assert v == pytest.approx(roots[1], rel=1e-9)


@pytest.mark.parametrize("card", [".ic v(nowhere)=1", ".nodeset v(nowhere)=1"])
def test_an_unknown_node_names_the_line(card):
    text = f"t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1n\n{card}\n.tran 1u 10u\n.end\n"
    d = spice.read(text)
    with pytest.raises(spice.SpiceError, match="no node 'nowhere'") as caught:
        d.tran(1e-6, 1e-5)
    assert caught.value.line == 5 and caught.value.text == card


def test_nodeset_and_ic_on_a_node_a_source_fixes_leave_it_to_the_source():
    """A fuzzed deck's .nodeset named a node a V source drives: held as well, the point was
    over-determined and .op failed ("no steady state found"); ngspice-39 runs it (its held row,
    1e10·v beside the source's branch current, yields to the source) and prints v(2) = 0.5,
    i(v1) = -5e-4. Held through an inductor, an E output or from an earlier held node, the same.
    Closed forms: the divider; .ic v(2) = 0.2 held at t = 0 then relaxing with
    tau = (R1 || R2)·C1 = 0.5 ms toward 0.5 V (tolerance: physlib's transient rtol 1e-6)."""
    ladder = ("V1 1 0 DC 1\nR1 1 2 1k\nR2 2 0 1k\nL1 1 3 1m\nR3 3 0 2k\n"
              "E1 4 0 2 0 2\nR4 4 0 1k\nVs 5 4 DC 0.5\nR5 5 0 1k\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        op = spice.read("nodeset on driven nodes\n" + ladder +
                        ".nodeset v(1)=0.3 v(2)=0.2 v(3)=0.1 v(4)=2 v(5)=-1\n.op\n.end\n").op()
        tran = spice.read("ic on a driven node\n" + ladder + "C1 2 0 1u\n"
                          ".ic v(1)=0.3 v(2)=0.2 v(3)=0.7\n.tran 0.1m 2m\n.end\n").tran(1e-4, 2e-3)
    expected = {"v(1)": 1.0, "v(2)": 0.5, "v(3)": 1.0, "v(4)": 1.0, "v(5)": 1.5,
                "i(v1)": -(0.5e-3 + 0.5e-3)}
    for name, value in expected.items():
        assert op[name] == pytest.approx(value, rel=1e-12), name
    t = np.asarray(tran["time"])
    assert tran["v(2)"][0] == pytest.approx(0.2, rel=1e-12)
    assert tran["v(1)"][0] == pytest.approx(1.0, rel=1e-12)
    assert_close(tran["v(2)"][1:], 0.5 - 0.3 * np.exp(-t[1:] / 0.5e-3), 1e-5, "v(2)")


def test_nodeset_beside_a_capacitor_that_an_e_output_fixes():
    """A fuzzed deck (reduced): C1 sits across E1's output, so the free model has dummy
    derivatives (der(d1.vd)) that the copy with held .nodeset nodes does not; reading its point
    as the free model's guess raised UnknownNameError. Closed form: no source drives the
    circuit, so every node is at 0 V (ngspice-39: |v| <= 8.2e-13 V, its rounding); 1e-9 V."""
    text = ("nodeset beside a capacitor across an E output\nV1 1 0 DC 0\nR5 5 4 62.1328\n"
            "R6 6 2 26649.2\nR7 7 1 17.9812\nC1 2 3 1.27543e-08\nE1 3 2 6 5 -2.89989\n"
            "D1 5 7 dm0\nD2 4 2 dm1\n.model dm0 D(IS=5.82103e-16 N=1.22081 BV=6.80772)\n"
            ".model dm1 D(IS=9.72476e-15 N=1.83346 CJO=1.35386e-11)\n"
            ".nodeset v(2)=-3.2 v(4)=-2.05\n.op\n.end\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        op = spice.read(text).op()
    for node in "234567":
        assert abs(op[f"v({node})"]) < 1e-9, node
