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
