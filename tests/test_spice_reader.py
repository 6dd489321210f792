"""physlib.spice.read against ngspice-39 references (tests/data/spice/reader, made by its
make_references.py; ngspice is not needed here) and closed forms.

Tolerances: a linear .op/.ac is one sparse linear solve in both programs, so they agree to
rounding (1e-9 relative leaves 1e5 rounding errors of room); a nonlinear .op ends a Newton
iteration in both, each converged (ngspice at the decks' reltol) and computing with ngspice's
k and q, hence 1e-9 too (measured 4.1e-15 diode_dc, 1.0e-12 include_lib; SI 2019's k and q,
3.4e-7 off ngspice's kT/q, would leave 3.3e-7 and 5.2e-6); a DC sweep 1e-6 (the issue's; measured
5.8e-8, a reverse-biased point's 2.5e-16 A; 1.9e-6 with SI 2019's k and q); a transient is
integrated by different methods (trapezoidal in ngspice, BDF in IDAS) at rtol 1e-6 and
compared at ngspice's own time points, hence 1e-4 of each signal's range (measured: 2.7e-5
rc_lowpass, 2.2e-5 rlc_sine, 1.3e-5 diode_rectifier, 2.2e-5 exp_pwl, each mostly physlib's rtol: at rtol 1e-9
physlib and a reltol 1e-9 ngspice agree to 5e-7 on the rectifier).
"""
import math
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physlib.spice as spice
from physlib.core.errors import PhyslibError
from physlib.spice.lexer import split
from physlib.spice.numbers import parse_number

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "reader"


def reference(name):
    """An ngspice reference table by column name; complex columns from their .re/.im pairs."""
    path = DATA / name
    if not path.is_file():
        raise FileNotFoundError(f"reference {path} is missing: restore it from git")
    return spice.read_csv(path)


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        return spice.read(DATA / name)


def vectors(ref, scale=None):
    return [k for k in ref if k != scale]


def assert_close(ours, ref, rel, what):
    ours, ref = np.asarray(ours), np.asarray(ref)
    scale = np.maximum(np.abs(ref), np.max(np.abs(ref)) * 1e-6 + 1e-300)
    worst = np.max(np.abs(ours - ref) / scale)
    assert worst < rel, f"{what}: relative error {worst:.3g}"


@pytest.mark.parametrize("name", ["rc_lowpass", "subckt_nested", "params_func", "controlled",
                                  "syntax", "global_nodes", "expressions"])
def test_linear_op_matches_ngspice(name):
    ref = reference(f"{name}_op.csv")
    result = deck(f"{name}.cir").op()
    for vector in vectors(ref):
        assert_close(result[vector], ref[vector], 1e-9, f"{name} {vector}")


@pytest.mark.parametrize("name", ["rc_lowpass", "subckt_nested", "controlled", "rlc_sine", "mosfet_stages"])
def test_ac_matches_ngspice_on_its_frequency_grid(name):
    ref = reference(f"{name}_ac.csv")
    d = deck(f"{name}.cir")
    kind, args = next(a for a in d.analyses if a[0] == "ac")
    result = d.ac(**args)
    assert np.allclose(result["frequency"], ref["frequency"], rtol=1e-13, atol=0)
    for vector in vectors(ref, "frequency"):
        assert_close(result[vector], ref[vector], 1e-9, f"{name} {vector}")


@pytest.mark.parametrize("name", ["diode_dc", "include_lib"])
def test_nonlinear_op_matches_ngspice(name):
    ref = reference(f"{name}_op.csv")
    result = deck(f"{name}.cir").op()
    for vector in vectors(ref):
        assert_close(result[vector], ref[vector], 1e-9, f"{name} {vector}")


@pytest.mark.parametrize("name, card, tol", [("dc_sweep_dc.csv", 0, 1e-9),
                                             ("dc_sweep_dc2.csv", 1, 1e-9),
                                             ("diode_dc_dc.csv", 0, 1e-6)])
def test_dc_sweeps_match_ngspice(name, card, tol):
    ref = reference(name)
    d = deck(name.rsplit("_dc", 1)[0] + ".cir")
    args = [a for kind, a in d.analyses if kind == "dc"][card]
    result = d.dc(**args)
    scale = "v-sweep" if "v-sweep" in ref else "i-sweep"
    assert np.allclose(result[scale], ref[scale], rtol=0, atol=1e-12)
    for vector in vectors(ref, scale):
        assert_close(result[vector], ref[vector], tol, f"{name} {vector}")


def test_the_diode_sweep_reference_obeys_kirchhoff():
    # ngspice-39 can return wrong sweep points after another analysis in one run; the
    # reference was made alone, and its source current is the resistor's at every point.
    ref = reference("diode_dc_dc.csv")
    assert np.allclose(-ref["i(v1)"], (ref["v(in)"] - ref["v(a)"]) / 1e3, rtol=1e-9, atol=1e-15)


def test_tran_of_mosfet_stages_whose_gate_capacitance_vanishes_matches_ngspice():
    """mosfet_stages.cir's three stages driven by SIN(2 0.1 10meg): Meyer's gate-bulk and
    gate-drain capacitances stay 0 in saturation (the transient's start once stopped there:
    'nothing fixes der(m1.vgb)'). Node voltages within 2e-4 of their range of ngspice-39's at
    reltol 1e-6 (measured 1.5e-4 on v(d3), where ngspice's own run at reltol 1e-9 is 1.4e-4
    from it and 1.2e-5 from physlib's). The currents from 2 ns on, within 3e-4 (measured
    1.8e-4 on i(vin), the 0.3 µA that charges the gates): in its first nanosecond ngspice's
    gate charging starts otherwise (a stage of this deck with its channel off has its gate
    jump toward the drain's 5 V for 30 ps in ngspice's first steps), while physlib's follows
    the closed form (test_an_off_mosfet_gate_charges_as_its_overlap_capacitance)."""
    ref = reference("mosfet_stages_tran.csv")
    d = deck("mosfet_stages.cir")
    result = d.tran(**next(a for kind, a in d.analyses if kind == "tran"), t_eval=ref["time"])
    settled = ref["time"] >= 2e-9
    for vector in vectors(ref, "time"):
        keep = settled if vector.startswith("i(") else slice(None)
        span = np.ptp(ref[vector][keep]) or 1.0
        worst = np.max(np.abs(result[vector][keep] - ref[vector][keep])) / span
        assert worst < (3e-4 if vector.startswith("i(") else 2e-4), f"{vector}: {worst:.3g}"


def test_an_off_mosfet_gate_charges_as_its_overlap_capacitance():
    # VTO = 10 V: the channel is off, Meyer's capacitances absent (level 1 without TOX); the
    # gate is CGSO·W = 1 fF behind 10 kΩ, driven by 0.1 V at 10 MHz: the current's amplitude
    # is ω·C·0.1/√(1 + (ωRC)²) = 6.2832e-9 A from the first period on (ngspice-39's gate
    # jumped to 5 V in its first 30 ps); 1e-5 of it asked at reltol 1e-9 (a current of nA
    # through 10 kΩ is a µV of difference between 2 V nodes: at reltol 1e-6, 2e-3 off)
    d = spice.read("off\nVdd vdd 0 5\nVin in 0 DC 2 SIN(2 0.1 10meg)\nRg in g 10k\n"
                   "M1 d g 0 0 n W=10u L=2u\nRd vdd d 10k\n.model n NMOS(level=1 VTO=10 KP=50u CGSO=1e-10)\n"
                   ".options reltol=1e-9 vntol=1e-12\n.tran 1n 100n\n.end\n")
    current = d.tran(1e-9, 100e-9, t_eval=np.linspace(0.0, 100e-9, 2001))["i(vin)"]
    omega, c = 2 * np.pi * 1e7, 1e-15
    assert np.ptp(current) / 2 == pytest.approx(omega * c * 0.1 / np.hypot(1, omega * 1e4 * c), rel=1e-5)


@pytest.mark.parametrize("name", ["rc_lowpass", "rlc_sine", "diode_rectifier", "exp_pwl"])
def test_tran_matches_ngspice(name):
    # At ngspice's own time points (its uic run has no t = 0 row): interpolating ngspice's
    # points linearly onto physlib's grid was itself up to 4e-3 of the range off: EXP's td2
    # sets no breakpoint in ngspice-39, so its corner falls between two points (exp_pwl), and
    # on a PULSE edge v(out) curves by h²·v''/8 = 1e-4 between points 0.4 µs apart (rc_lowpass).
    ref = reference(f"{name}_tran.csv")
    d = deck(f"{name}.cir")
    args = next(a for kind, a in d.analyses if kind == "tran")
    result = d.tran(**args, t_eval=ref["time"])
    assert np.allclose(result["time"], ref["time"], rtol=1e-14, atol=0)   # edges: 1 ulp
    for vector in vectors(ref, "time"):
        span = np.ptp(ref[vector]) or 1.0
        worst = np.max(np.abs(result[vector] - ref[vector])) / span
        assert worst < 1e-4, f"{name} {vector}: {worst:.3g} of its range"


def test_param_change_needs_no_recompile_and_matches_the_closed_form():
    d = deck("params_func.cir")
    first = d.op()["v(out)"]
    for rbase in (500.0, 2e3, 4e3):
        rtop, rbot = rbase * 2.0, math.sqrt(rbase * 4e3)
        rp = rtop * rbot / (rtop + rbot)
        big = 1e4 if rbase > 500 else 1.0
        r_right = rp + big
        mid = 3.0 * (rbot * r_right / (rbot + r_right)) / (rtop + rbot * r_right / (rbot + r_right))
        assert d.op(params={"rbase": rbase})["v(out)"] == pytest.approx(mid * big / r_right, rel=1e-12)
    assert d.compiles == 1 and d.op()["v(out)"] == first
    assert d.params["rtop"] == 2e3 and d.params["big"] == 1e4


@pytest.mark.parametrize("token, value", [("1MOhm", 1e-3), ("1meg", 1e6), ("2.5mil", 63.5e-6),
                                          ("10uF", 1e-5), ("1k", 1e3), ("3.3n", 3.3e-9),
                                          ("1e3", 1e3), ("2G", 2e9), ("1t", 1e12), ("5f", 5e-15)])
def test_suffixes_read_as_ngspice(token, value):
    assert parse_number(token)[0] == pytest.approx(value, rel=1e-15)


def test_capital_m_warns_that_it_is_milli():
    text = "t\nV1 a 0 1\nR1 a 0 1M\n.op\n.end\n"
    with pytest.warns(spice.SpiceWarning, match="milli") as caught:
        d = spice.read(text)
    assert caught[0].message.line == 3 and any("line 3" in w for w in d.warnings)
    assert d.op()["i(v1)"] == pytest.approx(-1e3)


BAD = [
    ("duplicate", "t\nV1 a 0 1\nR1 a 0 1k\nr1 a 0 2k\n.end\n", 4, "duplicate element name r1"),
    # in a run of plain cards (made at once), the card that sets the run apart is named
    ("duplicate of an earlier run", "t\nV1 a 0 1\nR1 a 0 1k\nV2 b 0 1\nR2 b 0 1k\nr1 b 0 1k\n.end\n", 6,
     "duplicate element name r1"),
    ("element name", "t\nV1 a 0 1\nR1 a 0 1k\nR-2 a 0 1k\nR3 a 0 1k\n.end\n", 4, "physlib needs letters"),
    ("value in a run", "t\nV1 a 0 1\nR1 a 0 1k\nC2 a 0 -1n\nR3 a 0 1k\n.end\n", 4, "C of c2 must be > 0"),
    ("name in a run", "t\nV1 a 0 1\nR1 a 0 1k\nR2 a 0 nosuch\nR3 a 0 1k\n.end\n", 4, "unknown parameter"),
    ("unknown subckt", "t\nV1 a 0 1\nX1 a 0 nosuch\n.end\n", 3, "unknown subcircuit"),
    ("subckt recursion", "t\n.subckt s a b\nX1 a b s\n.ends\nV1 a 0 1\nX9 a 0 s\n.end\n", 3,
     "subcircuit recursion"),
    ("param recursion", "t\n.param a={b+1}\n.param b={a*2}\nV1 x 0 {a}\nR1 x 0 1\n.end\n", 2,
     "parameter recursion"),
    ("unsupported element", "t\nV1 a 0 1\nZ1 a b 0 zmod\n.end\n", 3, "MESFETs"),
    ("unknown letter", "t\nV1 a 0 1\nR1 a 0 1k\n\u00dfR a 0 1\n.end\n", 4, "unknown element letter"),
    ("unsupported card", "t\nV1 a 0 1\nR1 a 0 1\n.disto dec 10 1k 1meg\n.end\n", 4, ".disto"),
    ("unsupported diode parameter", "t\nV1 a 0 1\nD1 a 0 dm\n.model dm D(IS=1n JSW=1m)\n.end\n",
     4, "JSW"),
    ("unsupported resistor option", "t\nV1 a 0 1\nR1 a 0 1k tce=0.01\n.end\n", 3, "tce"),
]


@pytest.mark.parametrize("case, text, line, message", BAD, ids=[b[0] for b in BAD])
def test_bad_decks_name_the_line(case, text, line, message):
    with pytest.raises(spice.SpiceError, match=message) as caught:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", spice.SpiceWarning)
            spice.read(text)
    assert caught.value.line == line and isinstance(caught.value, PhyslibError)
    assert caught.value.text == text.splitlines()[line - 1].strip()


def test_ignored_options_warn_and_supported_ones_are_read():
    with pytest.warns(spice.SpiceWarning, match="method"):
        d = spice.read("t\nV1 a 0 1\nR1 a 0 1\n.options reltol=1e-5 method=gear\n.temp 35\n.end\n")
    assert d.options["reltol"] == 1e-5 and d.options["temp"] == 35.0


def test_guide_spice_example_runs_and_matches_the_closed_form():
    from doc_pages import code_block
    block = code_block("docs/guide/spice.md", "physlib.spice")
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        exec(block, namespace)
    wrc = 2 * np.pi * 1e4 * 1e3 * 100e-9
    assert namespace["corner"] == pytest.approx(1 / math.sqrt(1 + wrc**2), rel=1e-9)
    assert namespace["op"]["v(out)"] == pytest.approx(1.0, rel=1e-12)
    assert set(namespace["results"]) == {"ac", "tran"} and namespace["deck"].compiles == 1


def test_an_element_inside_subcircuits_answers_to_ngspice_s_branch_name():
    # ngspice-39 names the branch of E1 inside instance xa "e.xa.e1": both names read it.
    op = deck("global_nodes.cir").op()
    assert op["i(e.xa.e1)"] == op["i(xa.e1)"]
    with pytest.raises(PhyslibError, match="no element"):
        op["i(r.xa.e1)"]


def test_a_result_reads_like_a_dict_of_its_vectors():
    """``dict(result)`` and ``for name in result`` give the vector names (the sequence protocol
    fed integers to the name lookup and raised AttributeError); a non-name key says so."""
    op = spice.read("divider\nv1 a 0 dc 3\nr1 a b 1k\nr2 b 0 2k\n.op\n.end\n").op()
    values = dict(op)
    assert list(values) == op.names == list(op.keys()) and len(op) == len(values)
    assert values["v(b)"] == pytest.approx(2.0, rel=1e-12) and values["i(v1)"] == pytest.approx(-1e-3, rel=1e-12)
    with pytest.raises(TypeError, match="read by name"):
        op[0]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("rR1n.k \t\u00a0\u2003=(),-+e")), max_size=40))
def test_a_card_splits_into_the_tokens_of_its_grammar_with_or_without_punctuation(text):
    # Cards of words alone ("R1 a b 1k", most of a large deck) split on blanks; the others by
    # the grammar's expression: blanks and ( ) , separate, = is a token. Both give these.
    import re
    grammar = re.findall(r"=|[^\s(),=]+", text)
    assert split(text, None) == grammar
