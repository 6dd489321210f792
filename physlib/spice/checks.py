"""Checks of a deck once its model is built: every node needs a DC path to ground.

At DC a capacitor is open and a current source (also a G or F output, or the control pins of
E and G) passes a fixed current whatever its voltage, so a node reached only through them has
no defined voltage: ngspice stops at the operating point with "singular matrix". Here that is
a :class:`SpiceError` naming the node and the first line that uses it, before any analysis.
Decks whose analyses are all ``.tran ... uic`` are exempt, as in ngspice (no operating point
is computed). Every other component conducts between its pins (unknown kinds too, so this
check never refuses a deck that could be solved).

A flat deck (no subcircuit instances or K cards) is checked on its nodes alone: the builder
records which nodes each element joins at DC (:class:`DcJoins`), and the nodes' connected
components say whether every node reaches ground. Only a deck that fails that, or one the
record cannot follow, takes the general check on every pin of the model, which names the
node and the first card on it (reading a million-element ladder: 2.7 s against 0.5 s).
"""
from __future__ import annotations

from itertools import compress

import numpy as np

from ..components import electrical as el
from ..core.arrays import connected_components
from ..core.component import Component
from ..domains import electrical
from .errors import SpiceError
from .topology import Nets

__all__ = ["check_dc_paths", "DcJoins", "dc_groups", "GROUND_NAMES", "holdable"]

GROUND_NAMES = ("0", "gnd")     # the nodes ground stands for

# class -> the groups of pins joined at DC (absent: all electrical pins of the component)
DC_GROUPS = {el.Capacitor: (), el.CurrentSource: (), el.VCCS: (), el.CCCS: (),
             el.VCVS: (("p", "n"),), el.CCVS: (("p", "n"),)}

# class -> the groups of pins whose voltage difference the component fixes at DC: a source's
# value, a controlled source's output, an inductor's (and a coupling's) zero
FIXED_GROUPS = ((el.VoltageSource, (("p", "n"),)), (el.VCVS, (("p", "n"),)),
                (el.CCVS, (("p", "n"),)), (el.Inductor, (("p", "n"),)),
                (el.MutualInductance, (("p1", "n1"), ("p2", "n2"))))


class DcJoins:
    """The nodes of a deck's own level that its elements join at DC, recorded as the builder
    makes the elements: ``first[k]`` and ``second[k]`` are joined, nodes given by their numbers
    (:class:`~physlib.spice.elements.LevelNodes`: a large deck's nodes are not looked up by name
    again); ``size`` is the level's number of nodes and ``grounds`` the numbers of its ground
    nodes, once the level is built (:meth:`set_nodes`). ``complete`` is False once an element
    the record cannot follow comes: a subcircuit instance, a K card, an element made as a
    subsystem."""

    def __init__(self):
        self.first: list[int] = []
        self.second: list[int] = []
        self.size = 0
        self.grounds: list[int] = []
        self.complete = True
        self._groups = dc_groups()

    def passives(self, numbers: list[int], conducting) -> None:
        """R, C and L cards, each between two nodes given by their numbers (``numbers``, two a
        card); ``conducting``: whether each joins its nodes at DC (R and L do, C does not), a
        truth value each."""
        self.first.extend(compress(numbers[0::2], conducting))
        self.second.extend(compress(numbers[1::2], conducting))

    def component(self, component, ends, nets) -> None:
        """``component``, its pins on the nodes ``ends`` ((pin, node) pairs, as the card
        gives them; ``nets``: node in lower case → its number): the nodes of each group of pins
        conducting at DC are joined. (A join left out can only make a node seem floating,
        which the general check then settles.)"""
        if not isinstance(component, Component):
            self.complete = False
            return
        node_of = {pin: nets[node.lower()] for pin, node in ends}
        for group in self._groups(component):
            nodes = [node_of[pin] for pin in group if pin in node_of]
            self.first += nodes[:1] * (len(nodes) - 1)
            self.second += nodes[1:]

    def set_nodes(self, nets) -> None:
        """Take the level's nodes (``nets``: node → its number) once it is built: how many
        there are and the numbers of the ground nodes."""
        self.size = len(nets)
        self.grounds = [nets[node] for node in GROUND_NAMES if node in nets]

    def all_grounded(self) -> bool:
        """Whether the record is complete and every node reaches ground ("0" or "gnd")
        through the joins."""
        if not self.complete:
            return False
        ends = [np.array(numbers, dtype=np.int64) for numbers in (self.first, self.second)]
        _, label = connected_components(self.size, *ends)
        grounds = label[self.grounds]
        return bool(len(grounds)) and bool(np.isin(label, grounds).all())


def check_dc_paths(deck, joins: DcJoins | None = None):
    """Raise :class:`SpiceError` for the first node of ``deck`` (in deck order) without a DC
    path to ground. ``joins``: the builder's record of the deck's own level, which answers
    for a flat deck whose every node is grounded."""
    if deck.analyses and all(kind == "tran" and args.get("uic") for kind, args in deck.analyses):
        return
    if joins is not None and joins.all_grounded():
        return
    nets = Nets(deck.model, joins=dc_groups())
    pins = [(node, pin) for node, pin in deck.nodes.items() if pin is not None]
    grounded = nets.grounded
    floating = next((k for k, net in enumerate(nets.nets_of([pin for _, pin in pins]).tolist())
                     if net not in grounded), None)
    if floating is not None:
        node, pin = pins[floating]
        cards = deck.elements
        users = [t.rpartition(".")[0] for t in nets.members(nets.net(pin))]   # along DC paths
        where = next((cards[u].where for u in users if u in cards), None)
        raise SpiceError(f"node {node} has no DC path to ground: only capacitors, current "
                         "sources or controlled-source outputs reach it, so its DC voltage is "
                         "undefined (ngspice: 'singular matrix'); add a resistor to ground "
                         "(e.g. 1G) or a path through a resistor, inductor or voltage source",
                         where)


def dc_groups():
    """A function giving the groups of a component's pins joined at DC, remembering those of
    each class whose pins do not depend on its parameters (one deck's classes)."""
    known = dict(DC_GROUPS)

    def groups_of(component):
        groups = known.get(type(component))
        if groups is None:
            groups = (tuple(p for p, port in component.ports().items() if port.domain is electrical),)
            if all(port.condition is None for port in component._ports.values()):
                known[type(component)] = groups
        return groups
    return groups_of


def _fixed_groups(component):
    return next((groups for cls, groups in FIXED_GROUPS if isinstance(component, cls)), ())


def holdable(deck, held: dict) -> dict:
    """The entries of ``held`` ({pin path of a node: value}, in deck order: ``.ic`` or
    ``.nodeset`` values) that an operating point can hold: not those whose node voltage
    sources, E and H outputs and inductors already fix from ground or from an earlier entry's
    node. Holding such a node too over-determines the point (no steady state: the injected
    current and the source's are not both defined); ngspice's held row yields there (its
    1e10·v beside the source's branch current), so the source's value stands."""
    if not held:
        return held
    nets = Nets(deck.model, joins=_fixed_groups)
    taken = set(nets.grounded)
    out = {}
    for pin, net in zip(held, nets.nets_of(list(held)).tolist()):
        if net not in taken:
            taken.add(net)
            out[pin] = held[pin]
    return out
