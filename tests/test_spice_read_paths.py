"""What the reader's paths for large flat decks must keep.

A plain R, C or L card (``R1 a b 1k``) is built by a path of its own, its pins numbered by
node for the DC-path record; the same cards with their values given by name (``R1 a b r=1k``)
take the general path. Both must make the same deck, in subcircuits and around K, .ic,
.global, ground named gnd and a node of one connection too; the nodes of any flat deck join
exactly the pins its cards name (a property test). The record of DC joins must answer
as the general check does for every kind of element. Cards are split when built, except those
with braces or quotes, split (and refused when malformed) when sorted. The lexer reads lines
in one pass: comments, continuations, CRLF and .end as before."""
from __future__ import annotations

import pickle
import warnings

import pytest
from hypothesis import example, given, settings, strategies as st

import physlib.spice as spice
from physlib.api import Model
from physlib.spice import checks, elements, plain_cards
from physlib.spice.cardstore import CardStore
from physlib.spice.lexer import Card, read_cards

LADDER = """ladder ; with a marker in its title
.param rr=2k
.global vg
.subckt cell in out
R1 in mid {{rr}}
L1 mid out 1u
C1 out 0 1p
{cell}
.ends
V1 n0 0 DC 1
Vg vg 0 1
R0 vg 0 1k
{stages}
X1 n{last} top cell
La top gnd 1m
Lb n1 gnd 2m
K1 la lb 0.5
Rdangling n1 dangling 1k
Cic n2 0 1n
.ic v(n2)=0.5
.tran 1n 1u uic
.end
"""


def ladder(named: bool, stages: int = 12, ic: bool = True) -> str:
    """A deck of ``stages`` R-C stages among the elements above; ``named``: the stages' values
    given by name (``r=1k``), the general path; ``ic``: with the .ic card (with which the
    plain capacitors are made card by card, as they may start at its values)."""
    lines = []
    for k in range(1, stages + 1):
        r, c = ("r=", "c=") if named else ("", "")
        lines += [f"R{k} n{k - 1} N{k} {r}1k", f"C{k} n{k} 0 {c}1n"]
        if k % 4 == 0:
            lines.append(f"L{k} n{k} vg {'l=' if named else ''}1m")
    cell = f"R2 out Tail {r}2k\nC2 tail 0 {c}2p"     # plain cards inside the subcircuit too
    text = LADDER.format(stages="\n".join(lines), last=stages, cell=cell)
    return text if ic else text.replace(".ic v(n2)=0.5\n", "")


def structure(model, prefix: str = "") -> list:
    """Every member of ``model`` (depth first): its path and class, its parameters or, for a
    subsystem, its exposed ports; then each level's connections."""
    out = []
    for name, member in model.components.items():
        if isinstance(member, Model):
            out.append((prefix + name, "subsystem", sorted(member.exposed_ports)))
            out += structure(member, f"{prefix}{name}.")
        else:
            out.append((prefix + name, type(member).__name__, member.parameters))
    return out + [(prefix, model.connections)]


def read_all(text: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = spice.read(text)
    heard = [(w.message.line, str(w.message).split("': ", 1)[-1]) for w in caught
             if isinstance(w.message, spice.SpiceWarning)]
    return deck, heard


@pytest.mark.parametrize("ic, run", [(True, elements.PLAIN_RUN), (False, elements.PLAIN_RUN), (False, 3)])
def test_plain_cards_build_the_deck_their_named_values_build(ic, run, monkeypatch):
    monkeypatch.setattr(elements, "PLAIN_RUN", run)       # runs of plain cards cut every `run` cards
    plain, plain_heard = read_all(ladder(named=False, ic=ic))
    named, named_heard = read_all(ladder(named=True, ic=ic))
    assert structure(plain.model) == structure(named.model)
    assert plain.nodes == named.nodes and "dangling" in plain.nodes
    assert {path: card.where.line for path, card in plain.elements.items()} == \
        {path: card.where.line for path, card in named.elements.items()}
    assert plain.parameter_values({"rr": 3e3}, tran=(1e-9, 1e-6)) == \
        named.parameter_values({"rr": 3e3}, tran=(1e-9, 1e-6))
    assert plain_heard == named_heard and any("one connection" in m for _, m in plain_heard)
    assert plain.model["cic"].v0 == pytest.approx(0.5 if ic else 0.0) and plain.model["c1"].v0 == 0.0


def test_values_on_plain_cards_are_read_from_them_and_give_the_bindings_a_record_gives(monkeypatch):
    # The same deck with every value recorded (as before numbers on plain cards were read
    # from their cards): the same bindings, paths, functions' values and cards, in lookups
    # (the K card's reads its plain inductors'), iteration and membership.
    text = ladder(named=False)
    read, _ = read_all(text)
    bindings = read._builder.bindings
    with monkeypatch.context() as patch:
        patch.setattr(type(bindings), "on_card", lambda self, tokens, function: False)
        patch.setattr(plain_cards, "plain_passive", lambda letter, constants: None)   # through passive()
        patch.setattr(plain_cards.PlainCards, "run", lambda self, cards, columns: [
            self.one(card, columns.tokens(k)) for k, card in enumerate(cards)])   # card by card
        everything = read_all(text)[0]._builder.bindings.recorded
    assert "r1.R" in everything and "r1.R" not in bindings.recorded and "c3.C" not in bindings.recorded
    assert "x1.r1.R" in bindings.recorded                        # {rr}: a function of .param rr
    assert len(bindings) == len(everything) and set(bindings) == set(everything)
    for path, (function, where) in everything.items():
        assert bindings[path][0]() == function() and bindings[path][1].line == where.line, path
        assert bindings.get(path) is not None and path in bindings
    assert dict(bindings.items()).keys() == everything.keys()
    for missing in ("r1.C", "r1", "nothing.R", "v1.R", "k1.R"):
        assert missing not in bindings and bindings.get(missing) is None
        with pytest.raises(KeyError):
            bindings[missing]


@pytest.mark.parametrize("cards, floating", [
    ("E1 a 0 b 0 2\nRb b 0 1k\nRa a c 1k\nCc c 0 1n", None),       # E's output conducts
    ("G1 a 0 b 0 1m\nRb b 0 1k\nCa a 0 1n", "a"),                   # a G's output does not
    ("E1 a 0 b c 2\nRa a 0 1k\nCb b c 1n", "b"),                    # nor E's control pins
    ("F1 a 0 vs 2\nVs b 0 1\nRa a c 1k\nRc c gnd 1k", None),
    ("H1 a b vs 2\nVs c 0 1\nRc c 0 1k\nRb b 0 1k\nCa a d 1n\nRd d 0 1k", None),
    ("R1 a gnd 1k\nL1 a b 1m\nC1 b c 1n\nI1 c 0 1m\nRc c 0 1k", None),
    ("R1 a gnd 1k\nC1 a b 1n\nL1 b c 1m", "b"),
])
def test_the_record_of_dc_joins_answers_as_the_general_check(cards, floating):
    """Nodes numbered by the builder, joined by pins' groups: the general check runs exactly
    where a node floats, and names it."""
    general = []
    nets = checks.Nets

    def counted(*args, **kwargs):
        general.append(True)
        return nets(*args, **kwargs)
    text = f"t\nV0 in 0 1\nRin in 0 1k\n{cards}\n.op\n.end\n"
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        patch.setattr(checks, "Nets", counted)
        if floating is None:
            spice.read(text)
        else:
            with pytest.raises(spice.SpiceError, match=f"node {floating} has no DC path"):
                spice.read(text)
    assert bool(general) == (floating is not None)


def test_a_malformed_card_is_refused_when_sorted_before_any_is_built():
    # R0's value is an error only when built; R1's brace when the deck is sorted, first
    with pytest.raises(spice.SpiceError, match="unbalanced braces") as caught:
        spice.read("t\nV1 a 0 1\nR0 a 0 xyz\nR1 a 0 {1k\n.op\n.end\n")
    assert caught.value.line == 4
    with pytest.raises(spice.SpiceError, match="unknown parameter 'xyz'") as caught:
        spice.read("t\nV1 a 0 1\nR0 a 0 xyz\nR1 a 0 {1k}\n.op\n.end\n")
    assert caught.value.line == 3


def test_cards_with_braces_build_again_once_read():
    """The tokens kept for cards with braces or quotes are dropped once the deck is built; a
    compiled deck loaded from a pickle builds its value functions again from the cards."""
    text = ("t\n.param rr=1k\nV1 a 0 SIN(0 1 1meg)\nC1 a b {rr*1p}\nL2 b 0 'rr*3n'\n"
            "F1 c 0 v1 {2}\nC3 c 0 1n\nL3 c 0 1u\n.op\n.end\n")
    deck, _ = read_all(text)
    assert deck.model["c1"].C == 1e-9 and deck.model["f1"].gain == 2.0
    values = deck.parameter_values({"rr": 2e3}, tran=(1e-9, 1e-6))
    assert values["c1.C"] == 2e-9 and values["l2.L"] == 6e-6
    compiled = deck.compile()
    loaded = pickle.loads(pickle.dumps(compiled))
    runs = [sim.simulate(params={"rr": 3e3}, t_end=1e-6) for sim in (compiled, loaded)]
    assert list(runs[0]["l2.i"]) == list(runs[1]["l2.i"]) and max(abs(runs[0]["l2.i"])) > 0


def test_the_lexer_joins_continuations_strips_comments_and_stops_at_end():
    text = ("title -- with markers ;\r\nR1 a b\r\n* a comment between\r\n\r\n+ 1k ; inline\r\n"
            "  C1 b 0 1n $ farads\r\n+ ic=0\r\nL1 b 0 1m // henries\r\n.end\r\nR9 x y 1\r\n")
    title, cards = read_cards(text)
    assert title == "title -- with markers ;"
    assert [(c.where.line, c.text, c.where.text) for c in cards] == [
        (2, "R1 a b  1k", "R1 a b  1k"), (6, "C1 b 0 1n  ic=0", "C1 b 0 1n  ic=0"),
        (8, "L1 b 0 1m", "L1 b 0 1m")]
    title, cards = read_cards("t ; no comment below\nR1 a b\n+ 1k--x\n.end\n")
    assert [c.text for c in cards] == ["R1 a b  1k--x"]
    with pytest.raises(spice.SpiceError, match="continuation line") as caught:
        read_cards("t\n* only a comment\n  + 1k ; x\nR1 a b 1k\n")
    assert (caught.value.line, caught.value.text) == (3, "  + 1k")


def test_a_card_is_its_own_location_and_survives_pickling():
    # (a million-element deck kept a million Location objects beside its cards)
    _, cards = read_cards("t\nR1 a b 1k\n.control\ntran 1u 1m\n.endc\n.end\n")
    card, block = cards
    assert card.where is card and str(card.where) == "<text>, line 2: 'R1 a b 1k'"
    assert (block.where.line, block.text, [c.text for c in block.cards]) == (3, ".control", ["tran 1u 1m"])
    again = pickle.loads(pickle.dumps(card))
    assert (again.file, again.line, again.text) == (card.file, card.line, card.text)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_flat_deck_s_nodes_join_the_pins_its_cards_name(data):
    # The builder connects a level's nodes in runs and its ground, one-pin and global nodes
    # one by one. Against the cards themselves: every node joins exactly the pins the cards put
    # on it (0 and gnd one node with the ground), each node is named after its first pin in card
    # order, and a node of one pin gets a warning and a 0 A source to ground.
    pool = ["0", "gnd", "a", "b", "c", "d", "e", "vg"]
    count = data.draw(st.integers(1, 12), label="cards")
    cards, pins = [], {}                 # node -> pin paths in card order
    for k in range(count):
        letter = data.draw(st.sampled_from("RCL"), label="letter")
        first, second = data.draw(st.lists(st.sampled_from(pool), min_size=2, max_size=2, unique=True))
        value = {"R": "1k", "C": "1n", "L": "1m"}[letter]
        cards.append(f"{letter}{k} {first} {second} {value}")
        for node, pin in ((first, "p"), (second, "n")):
            pins.setdefault(node, []).append(f"{letter.lower()}{k}.{pin}")
    uses_global = data.draw(st.booleans(), label=".global vg")
    text = "deck\n" + (".global vg\n" if uses_global else "") + "\n".join(cards) + "\n.tran 1n 1u uic\n.end\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = spice.read(text)
    model = deck.model
    # the model's nodes: connections merged where they share a pin
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    for connection in model.connections:
        ends = [f"{member}.{port}" for member, port in connection]
        for end in ends[1:]:
            parent[find(end)] = find(ends[0])
    groups: dict = {}
    for end in list(parent):
        groups.setdefault(find(end), set()).add(end)
    node_of = {end: root for root, members in groups.items() for end in members}
    ground = {p for n in ("0", "gnd") for p in pins.get(n, [])}
    for node, node_pins in pins.items():
        if node in ("0", "gnd"):
            assert {node_of[p] for p in node_pins} == {node_of["_gnd.p"]}
            continue
        assert deck.nodes[node] == node_pins[0]               # named after its first pin
        joined = groups[node_of[node_pins[0]]] if node_pins[0] in node_of else {node_pins[0]}
        own = {p for p in joined if not p.startswith("_open")}
        assert own == set(node_pins), node
        one_pin = len(node_pins) == 1
        assert any(f"node {node} has only one connection" in str(w.message) for w in caught) == one_pin
        if one_pin:                      # ended by a 0 A source, its other pin on the ground
            source = next(p for p in joined if p.startswith("_open")).split(".")[0]
            assert node_of[f"{source}.n"] == node_of["_gnd.p"]
    assert not ground or "_gnd" in model.components


def test_a_built_deck_keeps_its_own_cards_as_one_text_and_reads_each_back():
    # (a million-element deck's card objects, texts and line numbers held 155 MB through its
    # compile and runs; one text with where each card starts and its line, 35 MB)
    text = ladder(False)
    deck, _ = read_all(text)
    _, cards = read_cards(text)
    ends = next(k for k, c in enumerate(cards) if c.text.lower().startswith(".ends"))
    lexed = {c.text.split()[0].lower(): c for c in cards[ends + 1:] if c.text[0] != "."}
    own = [path for path in deck.elements if "." not in path]
    assert own == [name for name in lexed if name[0] != "k"]        # K couples, has no current
    for path in own:
        card = deck.elements[path]
        assert (card.file, card.line, card.text) == (lexed[path].file, lexed[path].line, lexed[path].text)
        assert card.where is card and deck.elements[path] is not card   # made when read
    assert [(path, card.line) for path, card in deck.elements.items() if "." not in path] == \
        [(path, lexed[path].line) for path in own]
    # a flat deck without K cards: its elements are its cards, one for one
    flat = spice.read("t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1n\nR2 b c 2k\nC2 c 0 1n\n.tran 1n 1u\n.end\n")
    assert [(path, card.line, card.text) for path, card in flat.elements.items()] == [
        ("v1", 2, "V1 a 0 1"), ("r1", 3, "R1 a b 1k"), ("c1", 4, "C1 b 0 1n"), ("r2", 5, "R2 b c 2k"),
        ("c2", 6, "C2 c 0 1n")]
    assert flat.elements["c2"].line == 6 and [c.line for c in flat.elements.values()] == [2, 3, 4, 5, 6]
    # an instance's elements share their subcircuit's cards
    assert deck.elements["x1.r1"] is deck.elements["x1.r1"] and deck.elements["x1.r1"].text == "R1 in mid {rr}"
    assert "k1" not in deck.elements and len(deck.elements) == len(own) + 5     # x1: R1, L1, C1, R2, C2
    with pytest.raises(TypeError, match="read only"):
        deck.elements.setter()
    # cards from several files, as .include gives them
    store = CardStore([Card("a.cir", 3, "R1 a b 1"), Card("lib/b.inc", 10, "C1 b 0 1n"),
                       Card("a.cir", 4, "L1 b 0 1m")])
    assert [(c.file, c.line, c.text) for c in store] == [
        ("a.cir", 3, "R1 a b 1"), ("lib/b.inc", 10, "C1 b 0 1n"), ("a.cir", 4, "L1 b 0 1m")]
    assert [c.text for c in store[1:]] == ["C1 b 0 1n", "L1 b 0 1m"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["R1", "c2", "L3", "V1", "a", "0", "1k", "x\0", "\0", "\x1c"]),
                         min_size=1, max_size=6).flatmap(
    lambda words: st.sampled_from([" ", "  ", "\t", " \t "]).map(lambda blank: blank.join(words))),
    min_size=1, max_size=5))
@example(["R1 a 0 1k", "c2\t0 a  1k"])
@example(["R1 a 0", "c2 0 a 1k 1k"])     # three words and five: eight
def test_the_columns_of_plain_cards_texts_are_their_words(texts):
    """A chunk of cards split at once (Columns.of_texts) gives each card's words, as a split
    of each card would, where every card is plain (four words, an R, C or L name), else none;
    a NUL character in a card (the split's own separator) leaves the chunk to the other path."""
    words = [text.split() for text in texts]
    plain = all(len(w) == 4 and w[0][0] in "RCLrcl" for w in words)
    columns = plain_cards.Columns.of_texts(texts)
    if columns is None:
        assert not plain or any("\0" in text for text in texts)
    else:
        assert plain and columns == plain_cards.Columns.of_tokens(words)
        assert [columns.tokens(k) for k in range(len(texts))] == words


@pytest.mark.parametrize("extra", ["", ".model dm d is=1e-14\nD1 n3 0 dm\nR9 n3 0 1k\n",     # two runs
                                   "R1 n5 0 1k\n", "Rx7 n5 0 1k tc1=0.1\n"])     # a name taken; a card not plain
def test_lines_each_a_card_read_as_a_run_build_what_cards_one_by_one_build(extra):
    # a deck whose lines are each a card of their own passes from the lexer to the card store
    # as a run of lines (CardLines), its cards made when read; an inline comment anywhere makes
    # the lexer read it line by line into card objects: the same deck, or the same error
    text = ladder(named=False, ic=False).replace("Rdangling n1 dangling 1k\n", "Rdangling n1 dangling 1k\n" + extra)
    assert not isinstance(read_cards(text)[1], list)
    commented = text.replace("R0 vg 0 1k\n", "R0 vg 0 1k ; a comment\n")
    assert isinstance(read_cards(commented)[1], list)
    try:
        run, run_heard = read_all(text)
    except spice.SpiceError as err:
        with pytest.raises(spice.SpiceError) as caught:
            read_all(commented)
        assert str(caught.value) == str(err)
        return
    cards, cards_heard = read_all(commented)
    assert structure(run.model) == structure(cards.model) and run.nodes == cards.nodes
    assert run_heard == cards_heard
    assert [(path, card.file, card.line, card.text) for path, card in run.elements.items()] == \
        [(path, card.file, card.line, card.text) for path, card in cards.elements.items()]
    assert [card.text for card in run._netlist.top.elements] == [card.text for card in cards._netlist.top.elements]


def test_a_flat_deck_read_as_lines_is_stored_without_places_though_cards_were_made_between():
    # the cards of elements made one by one (V1, D1) are made from the deck's lines when read;
    # the store still finds them its own lines one for one (no place kept per element)
    deck = spice.read("t\nV1 a 0 1\nR1 a b 1k\nD1 b 0 dm\nR2 b c 1k\nC2 c 0 1n\nR3 c 0 1k\n"
                      ".model dm d\n.tran 1n 1u\n.end\n")
    store = deck._builder.elements
    assert store._places is None
    assert [(path, card.line, card.text) for path, card in deck.elements.items()] == [
        ("v1", 2, "V1 a 0 1"), ("r1", 3, "R1 a b 1k"), ("d1", 4, "D1 b 0 dm"), ("r2", 5, "R2 b c 1k"),
        ("c2", 6, "C2 c 0 1n"), ("r3", 7, "R3 c 0 1k")]
