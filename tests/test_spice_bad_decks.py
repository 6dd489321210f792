"""Bad decks (issue 24, build item 9): likely mistakes ngspice accepts warn with their line,
what physlib cannot read or solve is a SpiceError naming file, line and text. The cases
tests/test_spice_reader.py already covers (duplicate names, unknown subcircuit, recursion in
subcircuits and .param, M read as milli, unsupported elements, cards, model parameters and
options) are not repeated here."""
import warnings

import pytest

import physlib.spice as spice
from physlib.core.errors import PhyslibError


def read_warning(text):
    """(deck, the one SpiceWarning reading ``text`` gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", spice.SpiceWarning)
        deck = spice.read(text)
    found = [w.message for w in caught if isinstance(w.message, spice.SpiceWarning)]
    assert len(found) == 1, [str(w) for w in found]
    return deck, found[0]


def test_2k7_style_value_warns_with_its_line_and_reads_as_ngspice():
    deck, warning = read_warning("t\nV1 a 0 1\nR1 a 0 2K7\n.op\n.end\n")
    assert warning.line == 3 and "2k7" in str(warning).lower() and "ignored" in str(warning)
    assert deck.op()["i(v1)"] == pytest.approx(-1 / 2e3, rel=1e-12)     # ngspice: 2 kΩ


def test_trailing_f_warns_that_it_is_femto():
    deck, warning = read_warning("t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 10F\n.op\n.end\n")
    assert warning.line == 4 and "femto" in str(warning)
    assert deck.model["c1"].C == pytest.approx(10e-15, rel=1e-12)


def test_femto_written_as_femto_reads_without_a_word():
    """A capacitor's ``10f`` (the usual way to write 10 fF) and a model parameter's
    ``IS=14.34F`` are femto as meant: only a capacitor's lone upper-case ``F``, which reads
    as farads, is warned about, on its own card (the large decks' path included)."""
    stages = "".join(f"R{k} b{k} b{k + 1} 1k\nC{k} b{k + 1} 0 10f\n" for k in range(40))
    text = (f"t\nV1 b0 0 1\n{stages}C99 b40 0 2F\n.model dm d is=14.34F\nD1 b40 0 dm\n"
            ".op\n.end\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = spice.read(text)
    found = [w.message for w in caught if isinstance(w.message, spice.SpiceWarning)]
    assert [w.line for w in found] == [83] and "'2F'" in str(found[0])
    assert deck.model["c0"].C == deck.model["c39"].C == pytest.approx(10e-15, rel=1e-15)
    assert deck.model["c99"].C == pytest.approx(2e-15, rel=1e-15)


def test_node_with_one_connection_warns_and_carries_no_current():
    deck, warning = read_warning("t\nV1 a 0 1\nR1 a 0 1k\nR2 a dangling 5k\n.op\n.end\n")
    assert warning.line == 4 and "node dangling has only one connection" in str(warning)
    op = deck.op()
    assert op["v(dangling)"] == pytest.approx(1.0, rel=1e-12)
    assert op["i(v1)"] == pytest.approx(-1e-3, rel=1e-12)


def test_a_subcircuit_output_left_open_reads_without_a_warning():
    """``X1 a o div`` with o connected to nothing else at the top: the subcircuit's port is
    connected inside (a divider of two 1 kΩ), so o is an output to look at, not a missing
    connection; a lone pin of an element inside still warns."""
    text = ("t\nV1 a 0 1\n.subckt div x y\nR1 x y 1k\nR2 y 0 1k\nR3 y stub 1k\n.ends\n"
            "X1 a o div\n.op\n.end\n")
    deck, warning = read_warning(text)
    assert warning.line == 6 and "node x1.stub has only one connection" in str(warning)
    assert deck.op()["v(o)"] == pytest.approx(0.5, rel=1e-12)


NO_DC_PATH = [
    ("series capacitors", "t\nV1 a 0 1\nR1 a b 1k\nC1 b mid 1n\nC2 mid 0 1n\n.op\n.end\n", 4, "mid"),
    ("current source into a capacitor", "t\nI1 0 a 1m\nC1 a 0 1n\n.op\n.end\n", 2, "a"),
    ("inside a subcircuit",
     "t\n.subckt blk in\nC1 in x 1n\nR1 x y 1k\nC2 y 0 1n\n.ends\nV1 a 0 1\nX1 a blk\n.ac dec 1 1 10\n.end\n",
     3, "x1.x"),
]


@pytest.mark.parametrize("case, text, line, node", NO_DC_PATH, ids=[c[0] for c in NO_DC_PATH])
def test_node_without_dc_path_to_ground_is_named(case, text, line, node):
    with pytest.raises(spice.SpiceError, match=rf"node {node} has no DC path to ground") as caught:
        spice.read(text)
    assert caught.value.line == line and caught.value.text == text.splitlines()[line - 1]
    assert isinstance(caught.value, PhyslibError) and "singular matrix" in str(caught.value)


def test_floating_capacitors_are_fine_in_a_uic_transient_as_in_ngspice():
    deck = spice.read("t\nV1 a 0 1\nR1 a b 1k\nC1 b mid 1n ic=0\nC2 mid 0 1n ic=0\n"
                      ".tran 1u 10u uic\n.end\n")
    tran = deck.run()["tran"]
    assert tran["v(b)"][-1] == pytest.approx(tran["v(mid)"][-1] * 2, rel=1e-6)  # equal C in series


@pytest.mark.parametrize("line_text, what", [
    ("A1 a b amp", "XSPICE code models"),
    ("T1 a 0 b 0 Z0=50 TD=1n", "lossless transmission lines"),
])
def test_unsupported_xspice_and_transmission_lines_are_named(line_text, what):
    text = f"t\nV1 a 0 1\nR1 a 0 1k\n{line_text}\nR2 b 0 1k\n.op\n.end\n"
    with pytest.raises(spice.SpiceError, match=what) as caught:
        spice.read(text)
    assert caught.value.line == 4 and caught.value.text == line_text
    assert "supported:" in str(caught.value)
