"""Alias elimination: variables equal up to sign (``x = ±y``) collapse onto one representative.

Connections produce most aliases (equal potentials, two-port through sums) and so do the
port bookkeeping equations of components (``i = p.i``, ``p.i + n.i = 0``). Done on whole
arrays (connected components of a graph) so the cost grows linearly with the model.
"""
from __future__ import annotations


import numpy as np

from ..core.arrays import connected_components
from ..core.errors import StructuralError
from ..core.records import record


@record
class Aliases:
    """The alias sets found by :func:`eliminate_aliases`: each variable's representative and sign."""

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
    """Representative and sign of every variable. Each variable x is two nodes, +x (2x) and
    −x (2x + 1); a pair x_a = s·x_b joins +a to s·b and −a to −s·b. A set of aliases is two
    mirror-image components of that graph, one holding +x for the variables of the same
    sign as its representative and −x for the others; a set in which +x and −x meet forces
    its variables to zero."""
    a = pairs[:, 0].astype(np.int64)
    b = pairs[:, 1].astype(np.int64)
    s = pairs[:, 2]
    flip = (s < 0).astype(np.int64)
    _, node = connected_components(2 * n, np.concatenate([2 * a, 2 * a + 1]),
                                   np.concatenate([2 * b + flip, 2 * b + 1 - flip]))
    plus, minus = node[0::2], node[1::2]
    if np.any(plus == minus):
        raise _opposite_loop(names, a, b, s, plus, minus)
    group = np.minimum(plus, minus)            # the same for both components of a set
    used = np.zeros(2 * n, dtype=bool)
    used[group] = True
    labels = np.cumsum(used, dtype=group.dtype)       # int32 where the numbers fit
    n_sets = int(labels[-1]) if n else 0
    labels = (labels - 1)[group]

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
    # signs as int8: a million-element model has 6.5 million variables (52 MB as floats)
    return rep, np.where(plus == plus[rep], 1, -1).astype(np.int8)


def _opposite_loop(names, a, b, s, plus, minus) -> StructuralError:
    """The error for the first set in which a variable equals its own negative, naming a pair
    of it that closes a loop of odd sign: signs are spread from one variable of the set along
    a breadth-first tree of its pairs, and the first pair that disagrees with them is one."""
    bad = plus[np.flatnonzero(plus == minus)[0]]
    in_set = plus[a] == bad                 # every node of the set is in one component
    pairs = list(zip(a[in_set].tolist(), b[in_set].tolist(), s[in_set].tolist()))
    neighbours: dict[int, list] = {}
    for x, y, sign in pairs:
        neighbours.setdefault(x, []).append((y, sign))
        neighbours.setdefault(y, []).append((x, sign))
    start = pairs[0][0]
    sign_of, queue = {start: 1.0}, [start]
    for x in queue:
        for y, sign in neighbours[x]:
            if y not in sign_of:
                sign_of[y] = sign * sign_of[x]
                queue.append(y)
    x, y, _ = next(p for p in pairs if sign_of[p[0]] != p[2] * sign_of[p[1]])
    return StructuralError(
        f"{names[x]} and {names[y]} are both equal and opposite through a loop of "
        "connections, which forces them to zero; check the connections around them")
