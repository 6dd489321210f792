"""Linear/nonlinear partitioning of a model, for noise analysis.

Components whose equations are all affine in their variables are linear; the others are
nonlinear. Linear components joined through connections form one maximal linear portion;
nonlinear ones likewise. Energy-storing linear elements (capacitor and inductor networks,
masses, springs) are linear, so they stay on the linear side and a nonlinear portion is
memoryless unless a nonlinear component itself stores energy. Noise analysis computes a
linear portion's noise once and re-linearizes only the nonlinear portions (the scheme of
US Patent 11,636,238, "Estimating noise characteristics in physical system simulations",
The MathWorks, 2023).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.arrays import connected_components


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
    """The maximal linear and nonlinear portions of ``flat`` (a FlatSystem): linear ones first,
    each kind in the order of its sorted component paths. Linear in the size of the model."""
    kind, stateful, equations = _component_facts(flat)
    index = {c: i for i, c in enumerate(kind)}
    pairs = []
    for members in flat.nodes:
        first: dict[bool, int] = {}     # joining each member to the node's first of its kind
        for a in members:
            i = index[a]
            head = first.setdefault(kind[a], i)
            if head != i:
                pairs.append((head, i))
    rows, cols = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    _, of = connected_components(len(index), rows, cols)
    portions: dict[int, list[str]] = {}
    for c, k in zip(kind, of.tolist()):
        portions.setdefault(k, []).append(c)
    groups = sorted((sorted(g) for g in portions.values()), key=lambda g: (not kind[g[0]], g))
    label = {c: k for k, comps in enumerate(groups) for c in comps}
    boundary = [[] for _ in groups]
    for members in flat.nodes:
        touched = {label[c] for c in members}
        if len(touched) > 1:
            for k in touched:
                boundary[k].append(tuple(members))
    connections, ports = [[] for _ in groups], [[] for _ in groups]
    for node in _physical_nodes(flat):
        own: dict[int, list[str]] = {}
        for port in node:
            own.setdefault(label[port.rsplit(".", 1)[0]], []).append(port)
        for k, mine in own.items():
            connections[k].append(tuple(mine))
            if len(mine) < len(node):
                ports[k].append(mine[0])
    return [Partition(kind[comps[0]], comps, [f"{c}: {text}" for c in comps for text in equations[c]],
                      not any(stateful[c] for c in comps), boundary[k], connections[k], ports[k])
            for k, comps in enumerate(groups)]


def _component_facts(flat):
    """Per component path: linear or not, has states, its class's equations as text (one list
    shared by the class; a portion prefixes them with the path)."""
    kind, stateful, equations = {}, {}, {}
    for group in flat.groups:
        tpl = group.template
        names = tpl.local_names
        texts = [f"{r} = 0" for r in tpl.residuals] + \
            [f"{names[a]} = {s:+g}·{names[b]}" for a, b, s in tpl.aliases]
        kind.update(dict.fromkeys(group.paths, tpl.linear))
        stateful.update(dict.fromkeys(group.paths, bool(tpl.der_of)))
        equations.update(dict.fromkeys(group.paths, texts))
    return kind, stateful, equations


def _physical_nodes(flat) -> list[tuple[str, ...]]:
    """The port paths joined at each physical node: one through-sum (Kirchhoff's current law)
    per node, its members named ``<component path>.<port>.<through>``."""
    sums = flat.through_sums
    ports = [name.rsplit(".", 1)[0] for name in flat.var_names.take(sums.values)]
    bounds = sums.offsets.tolist()
    return [tuple(ports[start:end]) for start, end in zip(bounds, bounds[1:])]
