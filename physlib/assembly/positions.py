"""One integrated position per connection: which position states stay states, and how the
others follow from them.

Mechanical flanges carry speeds; components that need a position integrate a speed themselves
and say so (:mod:`physlib.core.positions`). Left alone, a spring between two masses would
integrate its deflection a second time, beside the masses' positions: a redundant state that is
uncontrollable in a linear model and drifts from the difference of the positions in a long run.

Every flange is a node of a graph whose nodes are the flanges' connection sets, merged where a
component holds flanges together (an inertia's two flanges) and with the ground where a flange
is fixed. Each position state ``x`` with ``der(x) = plus.speed − minus.speed`` is an edge from
``minus`` (the ground when absent) to ``plus``: it measures ``x − x_start = D(plus) − D(minus)``,
``D`` being a node's displacement since the start. Going through the states in order of
preference — absolute positions (bodies, sensors) first, then positions a component reads (a
spring's deflection), then the rest (a damper's relative angle) — a state whose edge joins two
trees of the spanning forest so far is integrated (Kruskal's algorithm); any other state closes
a cycle and *follows*: its value is its start plus the signed sum of the integrated states'
displacements along the forest path between its ends. A follower keeps its name and value but
is no longer a state; a small linear tie component (``<path>.<state>_position``) holds the sum,
reading the integrated states' start parameters so that changing one never recompiles.

A position that nothing reads and that no integrated positions span (a damper's relative angle
across a massless node between dampers) is not computed at all: it is *unread*, and reading it
is an error that says how to ask for it (an angle or position sensor on the flange).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ..core.component import Component, Parameter, Variable
from ..core.errors import DeclarationError
from ..core.positions import PositionState
from ..core.symbols import VariableSymbol, derivative_base

GROUND = 0


@dataclass(frozen=True)
class PositionPlan:
    """Which position states follow from others (with their ties) and which nobody reads."""

    ties: tuple
    unread: tuple[tuple[int, PositionState], ...] = ()

    def variants(self) -> dict[int, tuple[frozenset[str], frozenset[str]]]:
        """Per instance that has them: (its following states, its unread states)."""
        out: dict[int, tuple[frozenset, frozenset]] = {}
        for i, state, kind in [(t.follower, t.state, 0) for t in self.ties] + \
                [(i, s, 1) for i, s in self.unread]:
            pair = list(out.get(i, (frozenset(), frozenset())))
            pair[kind] = pair[kind] | {state.state}
            out[i] = (pair[0], pair[1])
        return out


@dataclass(frozen=True)
class Tie:
    """A follower ``x`` = its start + Σ sign·(basis state − its start): instance numbers and names."""

    follower: int
    state: PositionState
    terms: tuple[tuple[int, PositionState, int], ...]   # (instance, its position state, sign)


def declares_positions(cls) -> bool:
    return bool(getattr(cls, "position_states", ()))


def plan_positions(components, end_instance, end_port, sizes) -> PositionPlan:
    """Which position states of ``components`` follow from others and which nobody reads,
    given the connections as port ends (instance, port name) in runs of ``sizes``."""
    classes = set(map(type, components))
    if not any(declares_positions(cls) for cls in classes):
        return PositionPlan(())
    nodes = _Nodes()
    start = 0
    for size in sizes:
        first = (end_instance[start], end_port[start])
        for k in range(start + 1, start + size):
            nodes.join(first, (end_instance[k], end_port[k]))
        start += size
    edges = []
    for i, comp in enumerate(components):
        cls = type(comp)
        for group in getattr(cls, "rigid_ports", ()):
            for port in group[1:]:
                nodes.join((i, group[0]), (i, port))
        for port in getattr(cls, "fixed_ports", ()):
            nodes.join((i, port), GROUND)
        for state in getattr(cls, "position_states", ()):
            rank = 0 if state.minus is None else 1 if state.reads else 2
            edges.append((rank, i, state))
    edges.sort(key=lambda e: e[0])       # stable: walk order within a rank
    return _forest_plan(nodes, edges)


def _forest_plan(nodes: "_Nodes", edges) -> PositionPlan:
    forest = _Nodes()
    tree: dict[object, list] = {}       # node -> [(neighbour, instance, state, sign of D(nb) − D(node))]
    followers, unread = [], []
    for _, i, state in edges:
        plus = nodes.find((i, state.plus)) if state.plus else nodes.find(GROUND)
        minus = nodes.find((i, state.minus)) if state.minus else nodes.find(GROUND)
        if forest.find(plus) == forest.find(minus):
            followers.append((i, state, plus, minus))
        elif state.reads or state.minus is None:
            forest.join(plus, minus)
            tree.setdefault(minus, []).append((plus, i, state, 1))
            tree.setdefault(plus, []).append((minus, i, state, -1))
        else:
            unread.append((i, state))     # nothing needs this position: not integrated either
    if not followers:
        return PositionPlan((), tuple(unread))
    parent = _root(tree)
    ties = []
    for i, state, plus, minus in followers:
        up, down = _path(parent, plus, minus)
        # x − x0 = D(plus) − D(minus) = Σ up the plus side − Σ up the minus side.
        terms = [(j, s, sign) for j, s, sign in up] + [(j, s, -sign) for j, s, sign in down]
        ties.append(Tie(i, state, tuple(terms)))
    return PositionPlan(tuple(ties), tuple(unread))


def _root(tree):
    """Each forest node's parent: (parent node, instance, state, sign of D(node) − D(parent))."""
    parent: dict = {}
    for root in sorted(tree, key=lambda n: n != GROUND):      # the ground roots its tree
        if root in parent:
            continue
        parent[root] = None
        stack = [root]
        while stack:
            node = stack.pop()
            for nb, i, state, sign in tree[node]:
                if nb not in parent:
                    parent[nb] = (node, i, state, sign)
                    stack.append(nb)
    return parent


def _path(parent, a, b):
    """The forest edges from ``a`` and from ``b`` up to their common ancestor, each as
    (instance, state, sign of D(child) − D(parent))."""
    def chain(node):
        out = [node]
        while parent.get(node) is not None:
            node = parent[node][0]
            out.append(node)
        return out
    ca, cb = chain(a), chain(b)
    common = set(ca) & set(cb)
    up = [parent[n][1:] for n in ca if n not in common]
    down = [parent[n][1:] for n in cb if n not in common]
    return up, down


class _Nodes:
    """Union-find over hashable keys."""

    def __init__(self):
        self.up: dict = {}

    def find(self, key):
        up = self.up
        root = key
        while up.get(root, root) != root:
            root = up[root]
        while key != root:
            key, up[key] = up[key], root
        return root

    def join(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if rb == GROUND:          # the ground stays its own set's root
                ra, rb = rb, ra
            self.up[rb] = ra


@lru_cache(maxsize=None)
def tie_class(signs: tuple[int, ...]) -> type:
    """The class of ties with these signs: ``x − x_start = Σ signs[k]·(b_k − b_k_start)``."""
    attrs = {"__doc__": "How a position that is not integrated follows from those that are.",
             "__module__": __name__,
             "x": Variable(description="the following position"),
             "x_start": Parameter(0.0, description="its start (the follower's parameter)")}
    for k in range(len(signs)):
        attrs[f"b{k}"] = Variable(description="an integrated position")
        attrs[f"b{k}_start"] = Parameter(0.0, description="its start (its owner's parameter)")

    def equations(self):
        total = sum((s * (getattr(self, f"b{k}") - getattr(self, f"b{k}_start"))
                     for k, s in enumerate(signs)), sp.Integer(0))
        return [self.x - self.x_start - total]

    attrs["equations"] = equations
    name = _TIE_PREFIX + "".join("p" if s > 0 else "m" for s in signs)
    return type(name, (Component,), attrs)


_TIE_PREFIX = "_PositionTie_"


def __getattr__(name: str):
    """A tie class by name, so that pickle finds one made in another process."""
    signs = name[len(_TIE_PREFIX):]
    if name.startswith(_TIE_PREFIX) and set(signs) <= {"p", "m"}:
        return tie_class(tuple(1 if s == "p" else -1 for s in signs))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tie_component(tie: Tie) -> Component:
    return tie_class(tuple(sign for _, _, sign in tie.terms))()


def tie_links(tie: Tie) -> list[tuple[str, int, str, str]]:
    """(tie local, instance, its variable, its start parameter) for each variable of the tie."""
    links = [("x", tie.follower, tie.state.state, tie.state.start)]
    links += [(f"b{k}", i, s.state, s.start) for k, (i, s, _) in enumerate(tie.terms)]
    return links


def without_integration(raw, initial, followers, label):
    """``raw`` without the equations that integrate the ``followers`` (position states that
    are not integrated), ``initial`` without their start values."""
    def integrates(expr):
        return any(isinstance(s, VariableSymbol) and derivative_base(s.name) in followers
                   for s in expr.free_symbols)
    kept = [e for e in raw if not integrates(e)]
    if len(raw) - len(kept) != len(followers):
        raise DeclarationError(f"{label}: each of the position states {sorted(followers)} must appear "
                               "differentiated in exactly one equation, der(x) = speed")
    return kept, {s: v for s, v in initial.items() if getattr(s, "name", None) not in followers}
