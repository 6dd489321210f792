"""Linear/nonlinear partitioning of a model (ALGORITHMS.md §5).

Components whose equations are all affine in their variables are linear; the others are
nonlinear. Linear components joined through connections form one maximal linear portion;
nonlinear ones likewise. Energy-storing linear elements (capacitor and inductor networks,
masses, springs) are linear, so they stay on the linear side and a nonlinear portion is
memoryless unless a nonlinear component itself stores energy. Noise analysis computes a
linear portion's noise once and re-linearizes only the nonlinear portions.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx


@dataclass
class Partition:
    """One portion of a model: linear or not, its components, equations and boundary nodes."""

    linear: bool
    components: list[str]
    equations: list[str]
    memoryless: bool            # no component of the portion has states
    boundary: list[tuple[str, ...]]  # connections shared with other portions (component paths)
    connections: list[tuple[str, ...]]  # the portion's own port paths at each physical node it touches
    ports: list[str]            # one port path of the portion per node shared with other portions

    def __repr__(self):
        kind = "linear" if self.linear else "nonlinear"
        return f"<{kind} partition: {', '.join(self.components)}>"


def partition(flat) -> list[Partition]:
    kind, equations, stateful = {}, {}, {}
    for group in flat.groups:
        tpl = group.template
        for path in group.paths:
            kind[path] = tpl.linear
            stateful[path] = bool(tpl.der_of)
            equations[path] = [f"{path}: {r} = 0" for r in tpl.residuals] + \
                [f"{path}: {tpl.local_names[a]} = {s:+g}·{tpl.local_names[b]}" for a, b, s in tpl.aliases]
    graph = nx.Graph()
    graph.add_nodes_from(kind)
    for members in flat.nodes:
        for a in members:
            for b in members:
                if a < b and kind[a] == kind[b]:
                    graph.add_edge(a, b)
    physical = _physical_nodes(flat)
    parts = []
    for group in sorted(nx.connected_components(graph), key=lambda g: (not kind[next(iter(g))], sorted(g))):
        comps = sorted(group)
        boundary = [tuple(m) for m in flat.nodes if set(m) & group and set(m) - group]
        connections, ports = [], []
        for node in physical:
            own = tuple(port for port in node if port.rsplit(".", 1)[0] in group)
            if own:
                connections.append(own)
                if len(own) < len(node):
                    ports.append(own[0])
        parts.append(Partition(kind[comps[0]], comps, [e for c in comps for e in equations[c]],
                               not any(stateful[c] for c in comps), boundary, connections, ports))
    return parts


def _physical_nodes(flat) -> list[tuple[str, ...]]:
    """The port paths joined at each physical node: one through-sum (Kirchhoff's current law)
    per node, its members named ``<component path>.<port>.<through>``."""
    return [tuple(flat.var_names[i].rsplit(".", 1)[0] for i in ids) for ids in flat.through_sums]
