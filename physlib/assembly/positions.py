"""One integrated position per connection: which position states stay states, and how the
others follow from them.

Mechanical flanges carry speeds; components that need a position integrate a speed themselves
and say so (:mod:`physlib.core.positions`). Left alone, a spring between two masses would
integrate its deflection a second time, beside the masses' positions: a redundant state that is
uncontrollable in a linear model and drifts from the difference of the positions in a long run.

Every flange is a node of a graph whose nodes are the flanges' connection sets, merged where a
component holds flanges together (an inertia's two flanges) and with the ground where a flange
is fixed. Each position state ``x`` with ``der(x) = plus.speed − minus.speed`` is an edge from
``minus`` (the ground when absent, or a conditional port the component does not have: a
housing that is fixed) to ``plus``: it measures ``x − x_start = D(plus) − D(minus)``,
``D`` being a node's displacement since the start. Going through the states in order of
preference, a state whose edge joins two trees of the spanning forest so far is integrated
(Kruskal's algorithm); any other state closes a cycle and *follows*: its value is its start
plus the displacement between its ends, read off the forest. The preference is that of the
Modelica Standard Library's state selection: first positions a component reads (a spring's
deflection, a stop's gap), so that the solver's error test weighs them on their own scale and
they stay accurate however far the bodies turn (the difference of two angles of 1e4 rad loses
digits of a 5e-7 rad deflection: 4e-6 of a stiff spring's torque, measured); then absolute
positions (bodies, sensors); a position nothing reads (a damper's relative angle) is never
integrated: it follows, or, if nothing spans it, is *unread* and not computed at all (reading
it is an error that says to put a sensor on the flange).

A follower keeps its name and value but is no longer a state. Small linear components hold the
forest: one per forest node a follower needs, ``D = D(parent) ± (b − b_start)`` with ``b`` the
integrated state of the edge to its parent, and one per follower, ``x = x_start + D(plus) −
D(minus)`` (named ``<path>.<state>_position``); they read the start parameters of the states
they name, so changing one with ``params=`` never recompiles. Their number and size grow
linearly with the model, whatever the depth of the forest.
"""
from __future__ import annotations

from ..core.component import Component, Parameter, Variable
from ..core.errors import DeclarationError
from ..core.positions import PositionState
from ..core.records import record
from ..core.symbols import derivative_base

GROUND = 0


@record(frozen=True)
class Synthetic:
    """A small linear component of the position forest, and what its variables and start
    parameters stand for: ``(local, instance, variable)`` and ``(local parameter, instance,
    parameter)``, where an instance is a component's number or ``("new", k)`` for the k-th
    synthetic component."""

    path: str
    component: Component
    variables: tuple
    parameters: tuple = ()


@record(frozen=True)
class PositionPlan:
    """Which position states follow from others, which nobody reads, and the components that
    compute the followers."""

    followers: tuple[tuple[int, PositionState], ...] = ()
    unread: tuple[tuple[int, PositionState], ...] = ()
    synthetic: tuple[Synthetic, ...] = ()

    def variants(self) -> dict[int, tuple[frozenset[str], frozenset[str]]]:
        """Per instance that has them: (its following states, its unread states)."""
        out: dict[int, tuple[frozenset, frozenset]] = {}
        for kind, entries in enumerate((self.followers, self.unread)):
            for i, state in entries:
                pair = list(out.get(i, (frozenset(), frozenset())))
                pair[kind] = pair[kind] | {state.state}
                out[i] = (pair[0], pair[1])
        return out


def declares_positions(cls) -> bool:
    return bool(getattr(cls, "position_states", ()))


def plan_positions(components, paths, end_instance, end_port, sizes) -> PositionPlan:
    """Which position states of ``components`` (at ``paths``) follow from others and which
    nobody reads, given the connections as port ends (instance, port name) in runs of ``sizes``."""
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
        present = comp.ports()
        for state in getattr(cls, "position_states", ()):
            ends = [(i, port) if port in present else GROUND for port in (state.plus, state.minus)]
            rank = 2 if not state.reads else 0 if state.minus else 1
            edges.append((rank, i, state, *ends))
    edges.sort(key=lambda e: e[0])       # stable: walk order within a rank
    return _forest_plan(nodes, edges, paths)


def _forest_plan(nodes: "_Nodes", edges, paths) -> PositionPlan:
    forest = _Nodes()
    tree: dict[object, list] = {}       # node -> [(neighbour, instance, state, sign of D(nb) − D(node))]
    followers, unread = [], []
    for _, i, state, plus_end, minus_end in edges:
        plus, minus = nodes.find(plus_end), nodes.find(minus_end)
        if forest.find(plus) == forest.find(minus):
            followers.append((i, state, plus, minus))
        elif state.reads:
            forest.join(plus, minus)
            tree.setdefault(minus, []).append((plus, i, state, 1))
            tree.setdefault(plus, []).append((minus, i, state, -1))
        else:
            unread.append((i, state))     # nothing needs this position: not integrated either
    if not followers:
        return PositionPlan((), tuple(unread))
    parent = _root(tree)
    synthetic: list[Synthetic] = []
    displacement: dict = {}             # forest node -> its synthetic component's number (D)

    def node(v):
        """The number of the component computing D(v), made (with its ancestors') on first
        use; None for a root (D = 0)."""
        chain = []
        while parent.get(v) is not None and v not in displacement:
            chain.append(v)
            v = parent[v][0]
        for v in reversed(chain):
            up, i, state, sign = parent[v]
            above = displacement.get(up)
            variables = [("b", i, state.state)]
            if above is not None:
                variables.append(("D_parent", ("new", above), "D"))
            synthetic.append(Synthetic(f"{paths[i]}.{state.state}_end", _NODE[sign, above is not None](),
                                       tuple(variables), (("b_start", i, state.start),)))
            displacement[v] = len(synthetic) - 1
        return displacement.get(v)

    for i, state, plus, minus in followers:
        ends = [node(plus), node(minus)]
        variables = [("x", i, state.state)] + [(local, ("new", k), "D") for local, k in
                                               zip(("D_plus", "D_minus"), ends) if k is not None]
        synthetic.append(Synthetic(f"{paths[i]}.{state.state}_position",
                                   _FOLLOW[tuple(k is not None for k in ends)](), tuple(variables),
                                   (("x_start", i, state.start),)))
    return PositionPlan(tuple((i, s) for i, s, _, _ in followers), tuple(unread), tuple(synthetic))


def _root(tree):
    """Each forest node's parent: (parent node, instance, state, sign of D(node) − D(parent))."""
    parent: dict = {}
    for root in sorted(tree, key=lambda n: n != GROUND):      # the ground roots its tree
        if root in parent:
            continue
        parent[root] = None
        stack = [root]
        while stack:
            v = stack.pop()
            for nb, i, state, sign in tree[v]:
                if nb not in parent:
                    parent[nb] = (v, i, state, sign)
                    stack.append(nb)
    return parent


class _Nodes:
    """Union-find over hashable keys (union by size, path compression); the ground, once in a
    set, is its root."""

    def __init__(self):
        self.up: dict = {}
        self.size: dict = {}

    def find(self, key):
        up = self.up
        root = key
        while root in up:
            root = up[root]
        while key != root:
            up[key], key = root, up[key]
        return root

    def join(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        size = self.size
        if rb == GROUND or (ra != GROUND and size.get(ra, 1) < size.get(rb, 1)):
            ra, rb = rb, ra
        self.up[rb] = ra
        size[ra] = size.get(ra, 1) + size.get(rb, 1)


def _linear_class(name: str, doc: str, variables: tuple[str, ...], starts: tuple[str, ...], residual):
    """A component class with the given variables and start parameters whose one equation is
    ``residual(self) = 0``; defined in this module under ``name``, so that pickle finds it."""
    attrs = {"__doc__": doc, "__module__": __name__,
             "equations": lambda self: [residual(self)]}
    attrs.update({v: Variable(description="a displacement or position") for v in variables})
    attrs.update({p: Parameter(0.0, description="a start value (its owner's parameter)") for p in starts})
    cls = type(name, (Component,), attrs)
    globals()[name] = cls
    return cls


# D = [D_parent] + sign·(b − b_start): the displacement of a forest node since the start.
_NODE = {(sign, chained): _linear_class(
    f"_PositionNode{'Plus' if sign > 0 else 'Minus'}{'Chained' if chained else ''}",
    "The displacement of a node of the position forest.",
    ("D", "b", "D_parent") if chained else ("D", "b"), ("b_start",),
    (lambda self, s=sign, c=chained: self.D - (self.D_parent if c else 0) - s * (self.b - self.b_start)))
    for sign in (1, -1) for chained in (False, True)}

# x = x_start + [D_plus] − [D_minus]: a position that follows from the forest.
_FOLLOW = {(p, m): _linear_class(
    f"_PositionTie{'Plus' if p else ''}{'Minus' if m else ''}",
    "A position that follows from the integrated ones.",
    ("x",) + (("D_plus",) if p else ()) + (("D_minus",) if m else ()), ("x_start",),
    (lambda self, p=p, m=m: self.x - self.x_start - (self.D_plus if p else 0) + (self.D_minus if m else 0)))
    for p in (False, True) for m in (False, True)}


def without_integration(raw, initial, followers, label):
    """``raw`` without the equations that integrate the ``followers`` (position states that
    are not integrated), ``initial`` without their start values (while deriving, in SymPy)."""
    from ..core.symbolic import VariableSymbol

    def integrates(expr):
        return any(isinstance(s, VariableSymbol) and derivative_base(s.name) in followers
                   for s in expr.free_symbols)
    kept = [e for e in raw if not integrates(e)]
    if len(raw) - len(kept) != len(followers):
        raise DeclarationError(f"{label}: each of the position states {sorted(followers)} must appear "
                               "differentiated in exactly one equation, der(x) = speed")
    return kept, {s: v for s, v in initial.items() if getattr(s, "name", None) not in followers}
