"""What the deck reader's paths for large decks must keep: every SPICE number form read as
before (numbers are cached by token, and their warnings still come once per element), inline
comments stripped only where there are some, and the DC-path check (terminals numbered a run
of components at a time between subcircuit instances) naming the same node and line."""
from __future__ import annotations

import warnings

import pytest

import physlib.spice as spice
from physlib.spice.numbers import parse_number

NUMBERS = [("1k", 1e3), ("1K", 1e3), ("1meg", 1e6), ("1MEG", 1e6), ("2.5Meg", 2.5e6),
           ("1.5e-3", 1.5e-3), ("1E+2", 100.0), ("10u", 1e-5), ("10U", 1e-5), ("3f", 3e-15),
           ("2mil", 2 * 25.4e-6), ("10uF", 1e-5), ("4.7p", 4.7e-12), ("1n", 1e-9),
           ("1g", 1e9), ("1t", 1e12), ("2A", 2.0), ("1.5amp", 1.5), (".5k", 500.0), ("5.", 5.0),
           ("1e3k", 1e6), ("100", 100.0), ("2.2kOhm", 2.2e3), ("-2m", -2e-3)]


def read(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spice.read(text)


@pytest.mark.parametrize("token, value", NUMBERS, ids=[t for t, _ in NUMBERS])
def test_every_number_form_reads_as_ngspice(token, value):
    for _ in range(2):                      # the second time from the cache
        number, warning = parse_number(token)
        assert number == value and warning is None
    if value > 0:
        deck = read(f"t\nV1 a 0 1\nR1 a 0 {token}\nR2 a 0 {token}\n.op\n.end\n")
        assert deck.model["r1"].R == deck.model["r2"].R == value


def test_suspicious_numbers_warn_at_every_element_that_has_them():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spice.read("t\nV1 a 0 1\nR1 a 0 1M\nR2 a 0 1M\nR3 a 0 2k7\nR4 a 0 2k7\n.op\n.end\n")
    lines = [(w.message.line, "milli" in str(w.message), "2k7" in str(w.message))
             for w in caught if isinstance(w.message, spice.SpiceWarning)]
    assert lines == [(3, True, False), (4, True, False), (5, False, True), (6, False, True)]
    assert parse_number("{2.5mil}"[1:-1], expression=True)[0] == pytest.approx(2.5e-3, rel=1e-15)
    assert parse_number("not1k") is None and parse_number("") is None


def test_a_is_no_atto_scale_as_in_ngspice():
    """ngspice-39 has no atto suffix: it reads ``2A`` (a current in amperes), ``3a`` and
    ``1e3amp`` as 2, 3 and 1000, in values, in ``.param`` expressions and in B sources (its
    ``.op`` of this deck printed v(a) = 2, v(b) = 3, v(c) = 1000, v(d) = 2). An element's
    value with a lone or leading lower-case ``a`` (``10a``, ``10aF``), which HSPICE reads as
    1e-18, is warned about; ``2A`` and ``1e3amp``, amperes, are not."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = spice.read("amps\nI1 0 a 2A\nR1 a 0 1\n.param p={3a}\nI2 0 b {p}\nR2 b 0 1\n"
                          "I3 0 c 1e3amp\nR3 c 0 1\nB1 d 0 V=2a\nR4 d 0 1\nC1 d 0 10a\n.op\n.end\n")
    op = deck.op()
    assert [op[f"v({node})"] for node in "abcd"] == pytest.approx([2.0, 3.0, 1e3, 2.0], rel=1e-12)
    assert deck.model["c1"].C == 10.0
    atto = [w.message for w in caught if "atto" in str(w.message)]
    assert [w.line for w in atto] == [11] and "10e-18" in str(atto[0])
    assert parse_number("10aF")[0] == 10.0 and "1e-18" in parse_number("10aF")[1]
    assert parse_number("2A")[1] is None and parse_number("1e3amp")[1] is None


def test_inline_comments_are_stripped_and_lines_without_them_kept_whole():
    commented = read("t\nV1 a 0 1 ; the source\nR1 a n-1 1k $ a resistor\nR2 n-1 0 3k // to ground\n"
                     "R3 a 0 2k -- another\n* a comment line\n.op\n.end\n")
    plain = read("t\nV1 a 0 1\nR1 a n-1 1k\nR2 n-1 0 3k\nR3 a 0 2k\n.op\n.end\n")
    for deck in (commented, plain):
        assert [deck.model[r].R for r in ("r1", "r2", "r3")] == [1e3, 3e3, 2e3]
        assert deck.op()["v(n-1)"] == pytest.approx(0.75, rel=1e-12)
    assert commented.elements["r2"].text == "R2 n-1 0 3k"


# Subcircuit instances between components: the DC-path check numbers the components before,
# between and after them in runs.
INTERLEAVED = """t
.subckt blk in out
R1 in mid 1k
C1 mid out 1n
R2 out 0 1k
R3 mid 0 1meg
.ends
V1 a 0 1
R0 a b 1k
X1 b c blk
C9 c d 1n
X2 d e blk
R9 e f 1k
R8 f 0 1k
.op
.end
"""
NO_DC_PATH_MESSAGE = ("node {} has no DC path to ground: only capacitors, current sources or "
                      "controlled-source outputs reach it, so its DC voltage is undefined "
                      "(ngspice: 'singular matrix'); add a resistor to ground (e.g. 1G) or a "
                      "path through a resistor, inductor or voltage source")


@pytest.mark.parametrize("change, node, line", [
    (("R8 f 0 1k", "R8 f 0 1k\nC7 f g 1n\nC6 g 0 1n"), "g", 15),        # after the instances
    (("R3 mid 0 1meg\n", ""), "d", 10),                          # through an instance's pins
    (("R8 f 0 1k", "R8 f 0 1k\nI7 f g 1m\nC6 g 0 1n"), "g", 15),        # a current source's pin
], ids=["capacitors only", "inside instances", "current source"])
def test_a_node_without_dc_path_is_named_among_subcircuit_instances(change, node, line):
    text = INTERLEAVED.replace(*change)
    with pytest.raises(spice.SpiceError) as caught:
        read(text)
    where = text.splitlines()[line - 1]
    assert str(caught.value) == f"<text>, line {line}: {where!r}: " + NO_DC_PATH_MESSAGE.format(node)
    assert caught.value.line == line


def test_interleaved_instances_are_wired_as_written():
    deck = read(INTERLEAVED)
    assert deck.nodes == {"0": None, "a": "v1.p", "b": "x1.r1.p", "c": "x1.c1.n", "d": "x2.r1.p",
                          "e": "x2.c1.n", "f": "r9.n", "x1.mid": "x1.r1.n", "x2.mid": "x2.r1.n"}
    op = deck.op()
    assert op["v(b)"] == pytest.approx(1.001e6 / 1.002e6, rel=1e-12)   # R0 over R1 + R3
    assert op["v(d)"] == op["v(f)"] == 0.0
    flat = spice.write(deck.model)
    assert "c9 x1_c1_n c9_n 1e-09" in flat and "r9 x2_c1_n r9_n 1000.0" in flat
    nested = spice.write(deck.model, subcircuits=True)
    assert "x1 r0_n x1_node1 x1" in nested and "x2 c9_n x2_node1 x1" in nested
