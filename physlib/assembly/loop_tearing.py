"""Tearing of algebraic loops: make the nonlinear system solved per step as small as possible.

Inside a block of equations that must be solved together, pick a few *tearing variables*;
with them known, the other equations can be solved one after another, each explicitly for one
variable. Only the leftover *residual equations* (as many as tearing variables) remain for
Newton's method. A diode–resistor loop becomes one equation in the diode voltage; a resistor
network becomes nodal analysis.

Greedy (Cellier's heuristic): solve any equation left with a single unknown it can be solved
for explicitly; when none is left, tear the unknown that occurs in the most open equations.

Tearing trades size for density. Along a chain of nonlinear elements with no state between
them (a string of diodes fed through resistors), each explicitly solved node voltage carries
every tearing variable before it, so the residuals depend on all of them: a lower-triangular
dense Jacobian, n² entries, whose every Newton step cost O(n³) (a 1,100-stage diode ladder's
operating point took 37 s). Where some residual or solved unknown would depend on more than
:data:`WIDE_COUPLING` tearing variables, the block is solved whole instead, as large linear
loops are: all its unknowns and equations go to Newton's method, whose Jacobian keeps the
circuit's own sparsity.
"""
from __future__ import annotations

import heapq
from collections import deque

from .sparse import CSR

WIDE_COUPLING = 32      # tearing variables a solved unknown or residual may depend on



def tear_block(eqs: list[int], unknowns: list[int], incidence: CSR, explicit: CSR):
    """Tear the block of equations ``eqs`` in ``unknowns`` (the rest is known by now).

    ``incidence``/``explicit`` are equation × unknown matrices (CSR).

    Returns ``(solved, tears, residuals)``: ``solved`` lists (equation, unknown) pairs in
    evaluation order, ``tears`` the tearing variables, ``residuals`` the equations left over;
    for a block whose tearing couples widely (see the module docstring), nothing solved, every
    unknown torn and every equation a residual.
    """
    members = set(eqs)
    block_vars = set(unknowns)
    vars_of, explicit_of, eqs_of = _block_graph(eqs, block_vars, incidence, explicit)
    open_vars = {e: set(vs) for e, vs in vars_of.items()}   # unknowns not yet solved or torn
    solved, tears = [], []
    used: set[int] = set()
    queue = deque(e for e in eqs if len(open_vars[e]) == 1)

    def settle(v):
        for e in eqs_of[v]:
            if e in members and e not in used:
                open_vars[e].discard(v)
                if len(open_vars[e]) == 1:
                    queue.append(e)

    def open_count(u):
        return sum(1 for e in eqs_of[u] if e not in used)

    # Lazy max-heap on the number of open equations of each unknown (counts only decrease).
    heap = [(-open_count(v), v) for v in sorted(block_vars)]
    heapq.heapify(heap)
    unresolved = set(block_vars)
    while True:
        while queue:
            e = queue.popleft()
            if e in used or len(open_vars[e]) != 1:
                continue
            (v,) = open_vars[e]
            if v in explicit_of[e]:
                used.add(e)
                solved.append((e, v))
                unresolved.discard(v)
                settle(v)
        if not unresolved:
            break
        while True:
            count, v = heapq.heappop(heap)
            if v not in unresolved:
                continue
            actual = open_count(v)
            if actual == -count:
                break
            heapq.heappush(heap, (-actual, v))
        tears.append(v)
        unresolved.discard(v)
        settle(v)
    residuals = [e for e in eqs if e not in used]
    if len(tears) > WIDE_COUPLING and _couples_widely(solved, tears, residuals, vars_of):
        return [], list(unknowns), list(eqs)
    return solved, tears, residuals


def _couples_widely(solved, tears, residuals, vars_of) -> bool:
    """Whether a solved unknown or a residual depends, through the explicit solutions before
    it, on more than :data:`WIDE_COUPLING` tearing variables. The sets stop growing there, so
    the check costs O(block size · WIDE_COUPLING)."""
    depends = {v: frozenset((v,)) for v in tears}

    def reached(e, skip=None):
        found: set[int] = set()
        for u in vars_of[e]:
            if u != skip:
                found |= depends[u]
                if len(found) > WIDE_COUPLING:
                    return None
        return found
    for e, v in solved:
        found = reached(e, v)
        if found is None:
            return True
        depends[v] = frozenset(found)
    return any(reached(e) is None for e in residuals)


def _block_graph(eqs, block_vars, incidence, explicit):
    """Per equation its block unknowns and those it is explicit in; per unknown its equations."""
    vars_of = {e: set(incidence.row(e).tolist()) & block_vars for e in eqs}
    explicit_of = {e: set(explicit.row(e).tolist()) & vars_of[e] for e in eqs}
    eqs_of: dict[int, set[int]] = {v: set() for v in block_vars}
    for e, vs in vars_of.items():
        for v in vs:
            eqs_of[v].add(e)
    return vars_of, explicit_of, eqs_of
