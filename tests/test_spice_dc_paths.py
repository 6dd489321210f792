"""The DC-path check of a deck (every node needs a path to ground through elements that
conduct at DC) against an independent graph search, on random decks: the check joins the
deck's nodes as the builder records them (a flat deck) or numbers every port of the model
(a floating node, a deck with subcircuit instances), with array operations; the reference
walks the deck's cards."""
import warnings

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physlib.spice as spice
from physlib.spice import checks

CONDUCTING = {"R": "1k", "L": "1m", "V": "1"}       # conduct at DC
OPEN = {"C": "1n", "I": "1m"}                       # do not


@st.composite
def decks(draw):
    """The cards of a deck, as (element, node, node, value): 1-12 two-terminal elements
    between ground and up to six nodes, each element's pins on two different nodes, and 0-2
    instances ``Xk`` of one subcircuit ``blk`` (pins ``in``, ``out``; 2-4 elements of its own
    between its pins, its internal node ``x`` and ground; returned with its instances
    flattened, ``Xk``'s node ``x`` as ``xk.x``, for the reference) as ``(name, a, b, None)``."""
    nodes = ["0"] + [f"n{k}" for k in range(1, draw(st.integers(1, 6)) + 1)]
    elements = lambda at, count: [  # noqa: E731
        (f"{draw(st.sampled_from(sorted(CONDUCTING | OPEN)))}{k}",
         *draw(st.lists(st.sampled_from(at), min_size=2, max_size=2, unique=True))) for k in range(count)]
    cards = [(name, a, b, (CONDUCTING | OPEN)[name[0]]) for name, a, b in elements(nodes, draw(st.integers(1, 12)))]
    # each pin used inside (a subcircuit with an unused pin is refused), then 0-2 more
    inner = [(name, a, b, (CONDUCTING | OPEN)[name[0]]) for name, a, b in
             elements(["in", "out", "x", "0"], draw(st.integers(0, 2)) + 2)]
    inner[0] = (inner[0][0], "in", draw(st.sampled_from(["out", "x", "0"])), inner[0][3])
    inner[1] = (inner[1][0], "out", draw(st.sampled_from(["in", "x", "0"])), inner[1][3])
    instances = [(f"X{k}", *draw(st.lists(st.sampled_from(nodes), min_size=2, max_size=2, unique=True)), None)
                 for k in range(1, draw(st.integers(0, 2)) + 1)]
    return cards, inner, instances


def deck_text(cards, inner, instances) -> str:
    subckt = ([".subckt blk in out"] + [f"{n} {a} {b} {v}" for n, a, b, v in inner] + [".ends"]) \
        if instances else []
    lines = subckt + [f"{n} {a} {b} {v}" for n, a, b, v in cards] + [f"{n} {a} {b} blk" for n, a, b, _ in instances]
    return "random deck\n" + "\n".join(lines) + "\n.op\n.end\n"


def floating_nodes(cards, inner, instances) -> set[str]:
    """The deck's nodes that no path of conducting elements joins to ground, the instances'
    elements flattened by hand."""
    graph = nx.Graph()
    graph.add_node("0")
    flat = list(cards)
    for name, a, b, _ in instances:
        where = {"in": a, "out": b, "x": f"{name.lower()}.x", "0": "0"}
        flat += [(n, where[p], where[q], v) for n, p, q, v in inner]
    for name, a, b, _ in flat:
        graph.add_nodes_from([a, b])
        if name[0] in CONDUCTING:
            graph.add_edge(a, b)
    return set(graph) - nx.node_connected_component(graph, "0")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(decks())
def test_a_deck_reads_exactly_when_every_node_has_a_dc_path_to_ground(deck):
    floating = floating_nodes(*deck)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # nodes with one connection
        try:
            spice.read(deck_text(*deck))
        except spice.SpiceError as err:
            named = str(err).split("node ", 1)[1].split(" has no DC path")[0] \
                if "has no DC path" in str(err) else None
            assert named in floating, (str(err), floating)
            return
    assert not floating, floating


@settings(max_examples=200, deadline=None, derandomize=True)
@given(decks())
def test_a_flat_deck_whose_nodes_are_grounded_is_checked_on_its_nodes_alone(deck):
    """The general check (every port of the model numbered) runs only where the record of
    the deck's nodes cannot answer: a floating node (which it then names) or subcircuit
    instances; a flat deck with every node grounded never reaches it."""
    cards, inner, instances = deck
    general = []

    def counted(*args, **kwargs):
        general.append(True)
        return nets(*args, **kwargs)
    nets = checks.Nets
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        patch.setattr(checks, "Nets", counted)
        try:
            spice.read(deck_text(*deck))
        except spice.SpiceError:
            pass
    assert bool(general) == bool(instances or floating_nodes(*deck)), (general, instances)
