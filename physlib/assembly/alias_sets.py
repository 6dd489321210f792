"""Alias elimination: variables equal up to sign (``x = ±y``) collapse onto one representative.

Connections produce most aliases (equal potentials, two-port through sums) and so do the
port bookkeeping equations of components (``i = p.i``, ``p.i + n.i = 0``). Done on whole
arrays (connected components of a graph) so the cost grows linearly with the model.
"""
from __future__ import annotations


import numpy as np

from ..core.arrays import signed_components
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
    """Representative and sign of every variable. A pair x_a = s·x_b is an edge of a graph on
    the variables, odd where s < 0; a set of aliases is a connected component, and a
    variable's sign is the parity of its path to the representative. A set with an odd loop
    (x = -x through its pairs) forces its variables to zero."""
    a = pairs[:, 0].astype(np.int64)
    b = pairs[:, 1].astype(np.int64)
    s = pairs[:, 2]
    root, parity = signed_components(n, a, b, s < 0)
    odd_loop = parity[a] ^ parity[b] ^ (s < 0)
    if odd_loop.any():
        raise _opposite_loop(names, a, b, s, root, root[a[np.argmax(odd_loop)]])

    # Representative per set: a state with a declared start value, else a state, else a
    # state's derivative, else the lowest id.
    priority = np.arange(n, dtype=np.int64) + 3 * n
    priority[ders] -= n
    priority[states] -= 2 * n
    if started is not None:
        priority[started] -= n
    best = np.full(n, 4 * n, dtype=np.int64)
    np.minimum.at(best, root, priority)
    rep = (best % n)[root]
    # signs as int8: a million-element model has 6.5 million variables (52 MB as floats)
    return rep, np.where(parity == parity[rep], 1, -1).astype(np.int8)


def _opposite_loop(names, a, b, s, root, bad) -> StructuralError:
    """The error for the set ``bad`` (its root) in which a variable equals its own negative,
    naming a pair of it that closes a loop of odd sign: signs are spread from one variable of
    the set along a breadth-first tree of its pairs, and the first pair that disagrees with
    them is one."""
    in_set = root[a] == bad
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
