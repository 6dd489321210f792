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
    demoted: np.ndarray  # rows (a, b, s): x_a = s·x_b kept as an equation, not an alias


def eliminate_aliases(n: int, pairs: np.ndarray, states: np.ndarray, ders: np.ndarray, names,
                      started: np.ndarray | None = None) -> Aliases:
    """Collapse ``pairs`` (rows a, b, s meaning x_a = s·x_b) over ``n`` variables.

    ``states[k]`` has the derivative ``ders[k]``. Each alias set is represented by a state
    when it has one. States that end up in one set are rigidly tied (inertias on one shaft,
    capacitors in parallel across the same nodes): the first stays a state, the others become
    its aliases, and so do their derivatives — the simplest case of index reduction. "First"
    prefers the ``started`` states (those whose component declares a start value: an
    inertia's w0) to states that are only differentiated (a brake's shaft speed in its
    stuck equation): the representative's start value is the set's, so the declared one
    must win whatever the order the components were added in.

    A state's derivative is read from the position of its representative, so it may join an
    alias set only as itself (sign +1) and not in its own state's set: ``der(x) = -y`` or
    ``der(x) = -x`` are ordinary equations, not aliases. Pairs that would break this are
    returned in ``demoted`` and kept as equations.
    """
    der_of = dict(zip(states.tolist(), ders.tolist()))
    pairs = np.asarray(pairs, dtype=float).reshape(-1, 3)
    demoted = np.zeros((0, 3))
    while True:
        rep, sign = _alias_sets(n, pairs, states, ders, names, started)
        merged = states[rep[states] != states].tolist()
        tied = _tied(pairs) if merged else set()
        extra = [(der_of[x], der_of[int(rep[x])], sign[x]) for x in merged
                 if (der_of[x], der_of[int(rep[x])]) not in tied]
        if extra:
            pairs = np.vstack([pairs, np.array(extra, dtype=float)])
            continue
        kept = states[rep[states] == states]
        d = ders[rep[states] == states]
        bad = d[(sign[d] != 1) | (rep[d] == kept)]
        if not len(bad):
            return Aliases(rep, sign, demoted)
        # Only pairs with a bad derivative itself are demoted: it becomes its own
        # representative, and the rest of its set stays aliased through other pairs.
        touches = np.isin(pairs[:, 0], bad) | np.isin(pairs[:, 1], bad)
        demoted = np.vstack([demoted, pairs[touches]])
        pairs = pairs[~touches]


def _tied(pairs) -> set:
    return {(int(a), int(b)) for a, b in pairs[:, :2]}


def _alias_sets(n, pairs, states, ders, names, started):
    a = pairs[:, 0].astype(np.int64)
    b = pairs[:, 1].astype(np.int64)
    s = pairs[:, 2]
    # The pairs both ways round: the alias sets are its components (weak and strong alike, the
    # graph being symmetric; "strong" needs no transposed copy), and with a virtual root joined
    # to every representative it is the graph whose spanning tree the signs follow.
    graph = sps.coo_matrix((np.ones(2 * len(a)), (np.concatenate([a, b]), np.concatenate([b, a]))),
                           shape=(n, n)).tocsr()
    graph.sum_duplicates()     # sorted neighbours: the tree does not depend on the pairs' order
    n_sets, labels = connected_components(graph, directed=True, connection="strong")

    # Representative per set: a state with a declared start value, else a state, else a
    # state's derivative, else the lowest id.
    priority = np.arange(n, dtype=np.int64) + 3 * n
    priority[ders] -= n
    priority[states] -= 2 * n
    if started is not None:
        priority[started] -= n
    best = np.full(n_sets, 4 * n, dtype=np.int64)
    np.minimum.at(best, labels, priority)
    rep = (best % n)[labels]

    root = n
    roots = np.flatnonzero(rep == np.arange(n))    # (np.unique hashes: 0.5 s at 10⁶ variables)
    tree = sps.csr_matrix((np.ones(graph.nnz + len(roots)), np.concatenate([graph.indices, roots]),
                           np.append(graph.indptr, graph.nnz + len(roots))), shape=(n + 1, n + 1))
    _, pred = breadth_first_order(tree, root, directed=True, return_predecessors=True)
    sign = _signs_to_root(n, pred[:n].astype(np.int64), a, b, s)
    bad = np.flatnonzero(sign[a] != s * sign[b])
    if len(bad):
        i = bad[0]
        raise StructuralError(
            f"{names[a[i]]} and {names[b[i]]} are both equal and opposite through a loop of "
            "connections, which forces them to zero; check the connections around them")
    return rep, sign


def _signs_to_root(n, parent, a, b, s):
    """Product of the pair signs along each variable's tree path to its representative.

    ``parent[x]`` is x's tree predecessor (``n`` for a representative); the sign of the tree
    edge (parent, x) is the last pair given for it, either way round (found by comparing each
    pair with the tree rather than by sorting the pairs). Pointer jumping: each step doubles
    the length of path already folded into ``sign``."""
    pair = np.arange(len(a))
    down_to_b, down_to_a = parent[b] == a, parent[a] == b    # pairs that are tree edges
    edge = np.full(n, -1, dtype=np.int64)                    # per variable: its tree edge's pair
    np.maximum.at(edge, np.concatenate([b[down_to_b], a[down_to_a]]),
                  np.concatenate([pair[down_to_b], pair[down_to_a]]))
    sign = np.ones(n)
    tree = edge >= 0
    sign[tree] = s[edge[tree]]
    up = np.where(tree, parent, np.arange(n))   # representatives point at themselves
    while True:
        nxt = up[up]
        if np.array_equal(nxt, up):
            return sign
        sign = sign * sign[up]
        up = nxt
