"""Structural index reduction: Pantelides' algorithm and dummy-derivative state selection.

When constraints tie states together (a gear between two inertias, capacitors in parallel,
an inertia driven by a prescribed speed), some equations contain no unknown that they could
determine. Pantelides' algorithm finds the minimal sets of such equations and differentiates
them; each differentiated constraint then demotes one of the states it contains to an
algebraic variable (a "dummy derivative"), so the remaining states are independent and the
system has index one. Everything here is structural (sparse incidence, augmenting paths); the
symbolic derivative of an equation is its class template's derivative, formed once per class.

Runs only when the plain matching fails, and only from the equations left unmatched.
"""
from __future__ import annotations

from dataclasses import field

from ..core.errors import StructuralError
from ..core.records import record


@record
class IndexReduction:
    """What :func:`reduce_index` added: derivative variables and equations, and dummy states."""

    var_derivative: dict[int, int]                      # variable -> its derivative variable
    new_vars: list[int] = field(default_factory=list)   # base variable of each new derivative
    new_eqs: list[int] = field(default_factory=list)    # base equation of each new derivative equation
    new_adjacency: list[list[int]] = field(default_factory=list)  # variables of each new equation
    dummies: list[int] = field(default_factory=list)    # states demoted to algebraic variables


def reduce_index(adjacency: list[list[int]], n_var: int, derivative: dict[int, int],
                 states: set[int], match: list[int], describe_eq) -> IndexReduction:
    """Differentiate structurally singular equation sets and choose dummy states.

    The caller has checked that the system is structurally nonsingular once each state is
    identified with its derivative, which guarantees that this terminates.
    ``adjacency[e]`` lists the variables of equation e; ``derivative`` maps a variable to its
    derivative variable (states to their der variables); ``match`` is an initial matching
    (equation -> variable or -1) over variables without derivative. Appends derivative
    variables (ids from ``n_var`` on) and equations (ids from ``len(adjacency)`` on).
    """
    adj = [list(a) for a in adjacency]
    der = dict(derivative)
    base_of_eq: dict[int, int] = {}
    assign: dict[int, int] = {v: e for e, v in enumerate(match) if v >= 0}   # var -> equation
    eq_var: dict[int, int] = {e: v for e, v in enumerate(match) if v >= 0}   # equation -> var
    result = IndexReduction(der)

    for start in [e for e, v in enumerate(match) if v < 0]:
        eq = start
        while True:
            found, colored_eqs, colored_vars = _augment(eq, adj, lambda v: v not in der, assign, eq_var)
            if found:
                break
            for v in colored_vars:
                der[v] = n_var
                result.new_vars.append(v)
                n_var += 1
            for e in colored_eqs:
                if e in base_of_eq:
                    raise StructuralError(
                        "index reduction would need second derivatives of "
                        f"{describe_eq(base_of_eq[e])}; models of index above two (position-level "
                        "constraints) are not supported yet. A position prescribed on a body (a "
                        "Position source with exact=True on an inertia or mass) is one: drive the body "
                        "with Move, which takes the speed and acceleration as signals, or with "
                        "exact=False")
                d = len(adj)
                adj.append(sorted(set(adj[e]) | {der[v] for v in adj[e] if v in der}))
                base_of_eq[d] = e
                result.new_eqs.append(e)
                if e == eq:
                    next_eq = d
            derived = {base: d for d, base in base_of_eq.items()}
            for v in colored_vars:
                d = derived[assign[v]]
                assign[der[v]], eq_var[d] = d, der[v]
            eq = next_eq

    result.var_derivative = der
    result.new_adjacency = adj[len(adjacency):]
    n_dummies = len(set(base_of_eq.values())) - len(result.new_vars)
    result.dummies = _choose_dummies(adj, states, n_var, n_dummies)
    return result


def _augment(eq, adj, allowed, assign, eq_var):
    """Augmenting path from equation ``eq`` over variables for which ``allowed(v)`` holds
    (iterative DFS); updates the matching ``assign`` (var -> eq) / ``eq_var`` (eq -> var) when
    one is found. Returns (found, equations visited, variables visited)."""
    colored_eqs, colored_vars = [eq], []
    seen_eq, seen_var = {eq}, set()
    stack = [(eq, iter(adj[eq]))]
    parent = {}
    while stack:
        e, it = stack[-1]
        advanced = False
        for v in it:
            if v in seen_var or not allowed(v):
                continue
            seen_var.add(v)
            colored_vars.append(v)
            parent[v] = e
            owner = assign.get(v)
            if owner is None:
                while True:            # flip the path back to the start
                    e_prev = parent[v]
                    old = eq_var.get(e_prev)
                    assign[v], eq_var[e_prev] = e_prev, v
                    if e_prev == eq:
                        return True, colored_eqs, colored_vars
                    v = old
            if owner not in seen_eq:
                seen_eq.add(owner)
                colored_eqs.append(owner)
                stack.append((owner, iter(adj[owner])))
                advanced = True
                break
        if not advanced:
            stack.pop()
    return False, colored_eqs, colored_vars


def _choose_dummies(adj, states, n_var, n_dummies):
    """States to demote so that every equation gets its own unknown (augmenting paths)."""
    if n_dummies <= 0:
        return []
    unknown = set(range(n_var)) - set(states)
    assign: dict[int, int] = {}     # var -> eq
    eq_var: dict[int, int] = {}
    # Unknowns first: a maximum matching of equations to non-state variables.
    for e in range(len(adj)):
        _augment(e, adj, unknown.__contains__, assign, eq_var)
    free_eqs = [e for e in range(len(adj)) if e not in eq_var]
    allowed = unknown | set(states)
    for e in free_eqs:
        if not _augment(e, adj, allowed.__contains__, assign, eq_var)[0]:
            raise StructuralError("no choice of states makes the constrained system solvable; "
                                  "check for conflicting constraints")
    dummies = sorted(v for v in assign if v in states)
    if len(dummies) != n_dummies:
        raise StructuralError("index reduction found no consistent set of states; check for "
                              "conflicting constraints")
    return dummies
