"""Build the physlib model of a sorted deck: one component per element, one subsystem per
subcircuit instance (``x1``, whose ``r1`` is ``x1.r1``), ground components for ``0``/``gnd``.

Names are lower case (SPICE is case-insensitive; ngspice prints lower-case vector names).
Every numeric value is a *binding* (:mod:`physlib.spice.bindings`), parameter path → value
function of the ``.param`` scope, so :class:`physlib.spice.SpiceDeck` can recompute the
parameter vector for new ``.param`` values without recompiling.
"""
from __future__ import annotations

from array import array
from collections import deque
from itertools import chain, repeat
from operator import add, and_, attrgetter, itemgetter

import numpy as np

from ..api import Model
from ..assembly.model import ExposedPort
from ..components import electrical as el
from ..core.component import Component
from ..core.errors import DuplicateNameError
from .bindings import Bindings
from .cardstore import ElementCards
from .checks import GROUND_NAMES, DcJoins
from .devices import TWO_PINS, couple, make_component, member_named, sensed_sources
from .errors import SpiceError
from .expressions import Scope, evaluate, parse
from .numbers import Constant, parse_number
from .plain_cards import Columns, PlainCards, duplicate_name, element_name, made_at

__all__ = ["Builder", "GROUND_NAMES"]

# plain cards made at once at most: their tokens are held until then (a million cards' would
# be 300 MB)
PLAIN_RUN = 4096

PINS = {"R": 2, "C": 2, "L": 2, "V": 2, "I": 2, "D": 2, "E": 4, "G": 4, "F": 2, "H": 2, "B": 2,
        "S": 4, "W": 2, "Q": 3, "M": 4, "J": 3}


class LevelNodes(dict):
    """A level's nodes (lower case) → their numbers, given in the order the nodes first come
    (the DC-path record, :class:`~physlib.spice.checks.DcJoins`, joins nodes by them, not by
    their names looked up again), and the pins they join in card order: each pin's owner (a
    component or a subcircuit instance), its port's name and its node's number, in three flat
    sequences. Not a list of pins per node, nor port objects: a million-element deck's half a
    million lists and two million port objects, kept until the level was wired and freed
    then, left 130 MB of free blocks among the model's objects that the compiler's arrays
    could not use. :meth:`Builder._wire` connects them by name."""

    def __init__(self):
        super().__init__()
        self.owners: list = []
        self.ports: list[str] = []
        self.numbers = array("i")

    def __missing__(self, node: str) -> int:
        number = self[node] = len(self)
        return number

    def add(self, node: str, owner, port: str) -> None:
        """The pin ``port`` of ``owner`` on ``node``."""
        self.numbers.append(self[node])
        self.owners.append(owner)
        self.ports.append(port)

    def add_two_pins(self, components: list, numbers: list[int]) -> None:
        """The two pins of each of two-pin ``components``, in their order, on the nodes numbered
        ``numbers`` (two a component)."""
        self.owners.extend(chain.from_iterable(zip(components, components)))
        self.ports.extend(TWO_PINS * len(components))
        self.numbers.extend(numbers)

    def by_node(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the pins' owners, their port names, each node's number of pins), NumPy arrays (of
        objects, of objects, of integers): the pins node after node in the nodes' order, each
        node's in card order. Gathered as arrays: a million-element deck's two million pins got
        one list item at a time, at a list of two million positions, took a quarter of a
        second."""
        numbers = np.frombuffer(self.numbers, dtype=np.int32)
        order = np.argsort(numbers, kind="stable")
        return (np.fromiter(self.owners, object, len(self.owners))[order],
                np.fromiter(self.ports, object, len(self.ports))[order], np.bincount(numbers, minlength=len(self)))

    def replace(self, path: str, owner, port: str):
        """Put the pin ``port`` of ``owner`` in the place of the pin at ``path`` (``"l1.n"``);
        the port object of the pin it replaced, None if there is none."""
        for k, (old, name) in enumerate(zip(self.owners, self.ports)):
            if f"{old.name}.{name}" == path:
                self.owners[k], self.ports[k] = owner, port
                return getattr(old, name)
        return None


class Builder:
    """Builds ``model`` from ``netlist``; afterwards ``bindings`` (path → value function),
    ``nodes`` (node name as ngspice prints it → a pin path, None for ground), ``sources``
    (name → (path, spec)) and ``elements`` (element path → its card) describe it, and
    ``dc_joins`` what the deck's own level joins at DC (:class:`~physlib.spice.checks.DcJoins`)."""

    def __init__(self, netlist, name: str, ctx):
        self.netlist, self.ctx = netlist, ctx
        self.elements = ElementCards()    # path -> card
        self.constants: dict[str, Constant] = {}      # number token -> its value (see value)
        self.bindings = Bindings(self.elements, self.constants)
        self.nodes: dict[str, str | None] = {"0": None}
        self.sources: dict = {}
        self.scopes: list[Scope] = []
        self.port_names: dict = {}        # (prefix, local node) -> node name outside
        # what the element being made records, until level takes it: the (input name,
        # controlling V source) pairs of F, H, W, B and POLY sources, the (sense pin, node)
        # pairs of B and POLY sources and BJTs
        self.controls: list = []
        self.senses: list = []
        self.coupled: dict = {}           # inductor path -> pin its winding's current leaves by
        self.warned: set = set()          # ids of .model cards already warned about
        self.excess_phase: list = []      # paths of the BJTs whose card gives PTF
        # R, C, L value path -> the factor its options (m, tc1, …) apply to the card's value:
        # what alter and .dc apply to a new value, as ngspice-39 does
        self.factors: dict = {}
        self.dc_joins = DcJoins()
        top_scope = Scope(label="deck")
        top_scope.body = netlist.top
        netlist.top.fill(top_scope)
        self.scope = top_scope
        self.scopes.append(top_scope)
        self.model = self.level(netlist.top, top_scope, "", name, {}, [])[0]

    # --- values ---------------------------------------------------------------------------

    def is_value(self, token: str) -> bool:
        return token[:1] in "{'" or parse_number(token) is not None

    def number(self, token: str) -> Constant | None:
        """The shared value function of a number token that reads without a warning (a large
        deck repeats its values, a million-element ladder's 1k and 1n: one :class:`Constant`
        per token, made when first asked for); None for any other token."""
        constant = self.constants.get(token)
        if constant is None and token[:1] not in "{'":
            number = parse_number(token)
            if number is not None and not number[1]:
                constant = self.constants[token] = Constant(number[0])
        return constant

    def value(self, token: str, scope: Scope, where):
        """A function giving the token's value in ``scope`` (numbers warn once here); a number
        without a warning gives its shared value function (:meth:`number`)."""
        constant = self.number(token)
        if constant is not None:
            return constant
        if token[:1] in "{'":
            tree = parse(token, where)
            return lambda: evaluate(tree, scope, where)
        number = parse_number(token)
        if number is None:
            if token.replace("_", "a").isalnum() and token[0].isalpha():
                tree = ("name", token.lower())     # ngspice accepts a bare .param name
                return lambda: evaluate(tree, scope, where)
            raise SpiceError(f"{token!r} is not a number or an expression", where)
        self.ctx.warn(where, number[1])      # a number that warns has a function of its own
        return Constant(number[0])

    def node_name(self, prefix: str, node: str) -> str:
        """The name ngspice prints for local node ``node`` of the instance at ``prefix``
        (a port's outer name, a global node's own, else ``x1.node``); "0" for ground."""
        node = node.lower()
        if node in GROUND_NAMES:
            return "0"
        outer = self.port_names.get((prefix, node))
        if outer is None:
            outer = node if node in self.netlist.globals_ else prefix + node
        return "0" if outer in GROUND_NAMES else outer

    def start_voltage(self, prefix: str, nodes: list[str]):
        """With ``uic``, ngspice-39 starts a capacitor without ``ic=``, and a semiconductor's
        junctions, at the difference of the nodes' ``.ic`` values [V] (``.nodeset`` values
        where a node has no ``.ic``; 0 for other nodes): a value function, or None when no
        node has either."""
        if not (self.netlist.nodeset or self.netlist.ic):
            return None
        given = {**self.netlist.nodeset, **self.netlist.ic}
        names = [self.node_name(prefix, n) for n in nodes]
        if not any(n in given for n in names):
            return None
        parts = [self.value(given[n][0], self.scope, given[n][1].where) if n in given
                 else (lambda: 0.0) for n in names]
        return lambda: parts[0]() - parts[1]()

    def start_voltages(self, prefix: str, pairs: dict) -> dict:
        """{parameter: value function} of the ``pairs`` ({parameter: (node, node)}, a
        semiconductor's pin pairs) whose nodes a ``.ic`` or ``.nodeset`` names: the voltages
        its junctions start from with ``uic``, as ngspice-39's getic routines take them."""
        starts = {param: self.start_voltage(prefix, list(nodes)) for param, nodes in pairs.items()}
        return {param: start for param, start in starts.items() if start is not None}

    def bind(self, path: str, function, where) -> float:
        """Bind the value ``function()`` (of the deck's parameters) to the component parameter
        ``path`` and return it, evaluated once now: a value that cannot be computed is an error
        at its card (``where``), not at the first run, and the component is made with it."""
        value = function()
        self.bindings.record(path, function, where)
        return value

    # --- one level: the deck or a subcircuit instance -------------------------------------

    def level(self, body, scope, prefix, name, ports: dict, parents: list):
        """(Model, exposed) of one body. ``ports``: local node → node name outside (for a
        subcircuit, its port and global nodes); ``exposed``: local node → exposed port name."""
        model, controls, couplings = Model(name), [], []
        nets = LevelNodes()               # local node -> its number; the pins, in card order
        self.port_names.update({(prefix, node): outer for node, outer in ports.items()})
        sensed = sensed_sources(body)
        dc = self.dc_joins if not prefix else None     # recorded for the deck's own level
        plain = PlainCards(self, model, nets, dc, scope, prefix)

        def other(card, tokens, letter):
            """A card that is not plain (a K or X card, a source, a semiconductor, ...)."""
            if letter in "KX" and dc is not None:
                dc.complete = False
            if letter == "K":             # after the inductors it couples (they may come later)
                couplings.append((card, tokens))
                return
            if letter == "X":
                child, exposed = self._instance(card, tokens, body, scope, prefix, parents)
                self.add_member(model, child, card, prefix)
                for node, port in exposed:
                    nets.add(node, child, port)
                return
            comp, pins = self._component(card, tokens, letter, body, scope, prefix, sensed)
            self.add_member(model, comp, card, prefix)
            # what the element recorded, taken and emptied for the next one (most record nothing)
            if self.controls:
                controls.extend((getattr(comp, port), source, card) for port, source in self.controls)
                self.controls = []
            ends = list(zip(pins, tokens[1:]))
            if self.senses:               # pins on nodes of the card's expressions, after its own
                ends += self.senses
                self.senses = []
            for pin, node in ends:
                nets.add(node.lower(), comp, pin)
            if dc is not None:
                dc.component(comp, ends, nets)

        _build_cards(body, plain, other)
        for card, tokens in couplings:
            couple(self, card, tokens, scope, prefix, nets, model)
        if couplings:
            self._check_inductance_matrix(couplings, prefix)
        if dc is not None:
            dc.set_nodes(nets)
        for port, source, card in controls:
            sensor = member_named(model, source)
            if not isinstance(sensor, el.SensingVoltageSource):
                raise SpiceError(f"controlling source {source} is not a voltage source of the "
                                 "same (sub)circuit", card.where)
            model.connect(sensor.i_sense, port)
        return model, self._wire(model, nets, prefix, ports, body)

    def _check_inductance_matrix(self, couplings, prefix):
        """Warn when the coupled inductors of one (sub)circuit have an inductance matrix that
        is not positive semi-definite (k12 = k13 = 0.98 with k23 = -0.3, say): their stored
        energy ½·iᵀ·L·i is then negative for some currents, and a transient grows without bound
        in ngspice as in physlib, although each K card's |k| < 1."""
        import numpy as np

        cards = [(card, [t.lower() for t in tokens[:3]]) for card, tokens in couplings]
        windings = sorted({name for _, (_, *pair) in cards for name in pair})
        index = {name: i for i, name in enumerate(windings)}
        matrix = np.diag([self.bindings[f"{prefix}{name}.L"][0]() for name in windings])
        for _, (kname, first, second) in cards:
            i, j = index[first], index[second]
            matrix[i, j] += self.bindings[f"{prefix}{kname}.M"][0]()
            matrix[j, i] = matrix[i, j]
        scale = np.sqrt(np.diag(matrix))
        smallest = np.linalg.eigvalsh(matrix / np.outer(scale, scale))[0]
        if smallest < -1e-12:
            names = ", ".join(prefix + kname for _, (kname, *_) in cards)
            self.ctx.warn(cards[0][0].where, f"the inductance matrix of {', '.join(prefix + w for w in windings)} "
                          f"coupled by {names} is not positive semi-definite (smallest eigenvalue of the "
                          f"normalized matrix {smallest:.3g}): the windings' energy is negative for some "
                          "currents and transients grow without bound; check the coupling coefficients")

    def add_member(self, model, member, card, prefix, element=True):
        """Add ``member`` to ``model``; ``element``: it is an element with a current (every
        card but K, which couples two inductors and has none)."""
        try:
            model.add(member)
        except DuplicateNameError:
            raise duplicate_name(member.name, card) from None
        if element:
            self.elements[prefix + member.name] = card

    def _wire(self, model, nets, prefix, ports, body) -> dict:
        """Connect the level's nodes, all at once (Model.connect_groups: no port object per
        pin), and name them in ``nodes``; the local nodes exposed as ports (a subcircuit's
        ports and global nodes) → their exposed names. Ground nodes, exposed ones and nodes
        of one pin are taken one by one (:meth:`_special_node`), the others in runs: a large
        deck's half a million nodes are arrays sliced, not a loop over them."""
        owners, pins, counts = nets.by_node()
        nodes = list(nets)
        starts = np.concatenate([[0], np.cumsum(counts)])
        special = {nets[node] for node in (*GROUND_NAMES, *ports, *(self.netlist.globals_ or ()))
                   if node in nets}
        special = sorted(special.union(np.flatnonzero(counts < 2).tolist()))
        groups = ([], [], [])           # pieces of the owners, ports and sizes connect_groups takes
        state = {"ground": None, "exposed": {}}
        done = 0
        for k in [*special, len(nodes)]:
            first = starts[done:k]      # the nodes done..k-1: two pins or more, nothing special
            names = nodes[done:k]
            paths = _pin_paths(owners[first].tolist(), pins[first].tolist())
            deque(map(self.nodes.setdefault, map(prefix.__add__, names) if prefix else names,
                      map(prefix.__add__, paths) if prefix else paths), maxlen=0)
            for group, piece in zip(groups, (owners[starts[done]:starts[k]], pins[starts[done]:starts[k]],
                                             counts[done:k])):
                group.append(piece)
            if k < len(nodes):
                self._special_node(model, nodes[k], owners[starts[k]:starts[k + 1]].tolist(),
                                   pins[starts[k]:starts[k + 1]].tolist(), prefix, ports, body, groups, state)
            done = k + 1
        model.connect_groups(*(np.concatenate(list(map(_objects, group))).tolist() for group in groups[:2]),
                             np.concatenate(groups[2]).tolist())
        return state["exposed"]

    def _special_node(self, model, node, owners, pins, prefix, ports, body, groups, state):
        """Add to ``groups`` the connection of a ground node (to the level's ground), an exposed
        one (exposed as ``node<k>``, into ``state["exposed"]``) or one of a single pin (a
        warning, and a 0 A source to ground ends it, as ngspice does); name it in ``nodes``."""
        if node in GROUND_NAMES:
            owners, pins = [self._ground(model, state), *owners], ["p", *pins]
        else:
            outer = ports.get(node)
            if outer is None and node in (self.netlist.globals_ or ()):
                outer = node
            self.nodes.setdefault(outer if outer is not None else prefix + node,
                                  prefix + _pin_path(owners[0], pins[0]))
            if outer is not None and prefix:
                name = state["exposed"][node] = f"node{len(state['exposed'])}"
                model.expose(getattr(owners[0], pins[0]), name)
            elif len(pins) < 2:
                # a subcircuit's port alone on its node is an output left open (X1 in out amp),
                # connected inside: only an element's lone pin looks like a missing connection
                if isinstance(owners[0], Component):
                    self.ctx.warn(_first_card(body, node), f"node {prefix + node} has only one "
                                  "connection: no current flows into it (is a connection missing?)")
                ground = self._ground(model, state)      # first: it counts in the source's name
                end = model.add(el.CurrentSource(f"_open{len(model.components)}", I=0.0))
                for group, piece in zip(groups, ([end, ground], ["n", "p"], [2])):
                    group.append(piece)
                owners, pins = [*owners, end], [*pins, "p"]
        if len(pins) > 1:
            for group, piece in zip(groups, (owners, pins, [len(pins)])):
                group.append(piece)

    @staticmethod
    def _ground(model, state):
        """The level's ground component, added on first use."""
        if state["ground"] is None:
            state["ground"] = model.add(el.Ground("_gnd"))
        return state["ground"]

    # --- elements ---------------------------------------------------------------------------

    def _component(self, card, tokens, letter, body, scope, prefix, sensed):
        if len(tokens) < PINS[letter] + 1:
            raise SpiceError(f"{letter} needs {PINS[letter]} nodes", card.where)
        return made_at(card, make_component, self, letter, element_name(card, tokens), tokens, card,
                        body, scope, prefix, sensed)

    def _instance(self, card, tokens, body, scope, prefix, parents):
        from .subcircuits import instantiate
        return instantiate(self, card, tokens, body, scope, prefix, parents)


def _build_cards(body, plain: PlainCards, other) -> None:
    """Build the element cards of ``body`` a chunk at a time: the runs of plain cards ("R1 a b
    1k", most cards of a large deck) made at once by ``plain``, told apart from the others
    (made by ``other(card, tokens, letter)``) in one pass over the chunk."""
    for cards, texts, tokens in body.element_chunks(PLAIN_RUN):
        columns = Columns.of_texts(texts) if tokens is None else None
        if columns is not None:           # plain cards alone (a large deck's chunks, most often)
            plain.run(cards, columns)
            continue
        if tokens is None:
            tokens = list(map(str.split, texts))
        letters = "".join(map(itemgetter(0), texts)).upper()
        is_plain = np.fromiter(map(and_, map((4).__eq__, map(len, tokens)), map("RCL".__contains__, letters)),
                               bool, len(cards))
        edges = np.flatnonzero(np.diff(np.concatenate([[False], is_plain, [False]]))).tolist()
        done = 0
        for start, end in zip(edges[::2], edges[1::2]):
            for k in range(done, start):
                other(cards[k], tokens[k], letters[k])
            plain.run(cards[start:end], Columns.of_tokens(tokens[start:end]))
            done = end
        for k in range(done, len(cards)):
            other(cards[k], tokens[k], letters[k])


def _objects(items) -> np.ndarray:
    """``items`` (a list, or an array of objects) as an array of objects."""
    return items if isinstance(items, np.ndarray) else np.fromiter(items, object, len(items))


def _pin_path(owner, port: str) -> str:
    """'r1.p' for the pin ``port`` of a component ``owner``; for an exposed port of a
    subcircuit instance, the pin it stands for ('x1.r1.p')."""
    if isinstance(owner, Component):
        return f"{owner.name}.{port}"
    return _path(getattr(owner, port))


def _pin_paths(owners: list, ports: list[str]) -> list[str]:
    """:func:`_pin_path` of each owner and port; of components' ports (most), formatted in one
    pass."""
    if all(issubclass(cls, Component) for cls in set(map(type, owners))):
        return list(map(add, map(add, map(attrgetter("name"), owners), repeat(".")), ports))
    return list(map(_pin_path, owners, ports))


def _path(ref) -> str:
    """The path of a port object: 'r1.p'; for a subsystem's exposed port, the pin it stands
    for ('x1.r1.p')."""
    if isinstance(ref, ExposedPort):
        return f"{ref.owner.name}.{_path(ref.target)}"
    return ref.path


def _first_card(body, node):
    for card, tokens in body.element_cards():
        if node in (t.lower() for t in tokens[1:]):
            return card.where
    return None
