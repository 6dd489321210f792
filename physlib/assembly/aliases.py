"""Alias elimination: variables equal up to sign (``x = ±y``) collapse onto one representative.

Connections produce most aliases (equal potentials, two-port through sums) and so do the
port bookkeeping equations of components (``i = p.i``, ``p.i + n.i = 0``). Done on sparse
graphs so the cost grows linearly with the model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import breadth_first_order, connected_components

from ..core.errors import StructuralError


@dataclass
class Aliases:
    rep: np.ndarray    # variable id -> id of its representative
    sign: np.ndarray   # x_i = sign_i * x_rep(i)


def eliminate_aliases(n: int, pairs: np.ndarray, states: np.ndarray, ders: np.ndarray, names) -> Aliases:
    """Collapse ``pairs`` (rows a, b, s meaning x_a = s·x_b) over ``n`` variables.

    ``states[k]`` has the derivative ``ders[k]``. Each alias set is represented by a state
    when it has one. States that end up in one set are rigidly tied (inertias on one shaft,
    capacitors in parallel across the same nodes): the first stays a state, the others become
    its aliases, and so do their derivatives — the simplest case of index reduction.
    """
    der_of = dict(zip(states.tolist(), ders.tolist()))
    pairs = np.asarray(pairs, dtype=float).reshape(-1, 3)
    while True:
        rep, sign = _alias_sets(n, pairs, states, names)
        extra = [(der_of[x], der_of[int(rep[x])], sign[x]) for x in states.tolist()
                 if rep[x] != x and (der_of[x], der_of[int(rep[x])]) not in _tied(pairs)]
        if not extra:
            return Aliases(rep, sign)
        pairs = np.vstack([pairs, np.array(extra, dtype=float)])


def _tied(pairs) -> set:
    return {(int(a), int(b)) for a, b in pairs[:, :2]}


def _alias_sets(n, pairs, preferred, names):
    a = pairs[:, 0].astype(np.int64)
    b = pairs[:, 1].astype(np.int64)
    s = pairs[:, 2]
    graph = sps.coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)).tocsr()
    n_sets, labels = connected_components(graph, directed=False)

    # Representative per set: a preferred variable, else the lowest id.
    priority = np.arange(n, dtype=np.int64) + n
    priority[preferred] -= n
    best = np.full(n_sets, 2 * n, dtype=np.int64)
    np.minimum.at(best, labels, priority)
    best = np.where(best >= n, best - n, best)
    rep = best[labels]

    # Signs along a spanning tree from a virtual root joined to every representative.
    root = n
    roots = np.unique(rep)
    rows = np.concatenate([a, b, np.full(len(roots), root)])
    cols = np.concatenate([b, a, roots])
    tree = sps.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n + 1, n + 1)).tocsr()
    order, pred = breadth_first_order(tree, root, directed=True, return_predecessors=True)
    edge_sign = {}
    for x, y, sg in zip(a.tolist(), b.tolist(), s.tolist()):
        edge_sign[(x, y)] = sg
        edge_sign[(y, x)] = sg
    sign = np.ones(n)
    for node in order[1:].tolist():
        parent = pred[node]
        if parent != root:
            sign[node] = sign[parent] * edge_sign[(parent, node)]
    bad = np.flatnonzero(sign[a] != s * sign[b])
    if len(bad):
        i = bad[0]
        raise StructuralError(
            f"{names[a[i]]} and {names[b[i]]} are both equal and opposite through a loop of "
            "connections, which forces them to zero; check the connections around them")
    return rep, sign
