"""Tearing of algebraic loops: make the nonlinear system solved per step as small as possible.

Inside a block of equations that must be solved together, pick a few *tearing variables*;
with them known, the other equations can be solved one after another, each explicitly for one
variable. Only the leftover *residual equations* (as many as tearing variables) remain for
Newton's method. A diode–resistor loop becomes one equation in the diode voltage; a resistor
network becomes nodal analysis.

Greedy (Cellier's heuristic): solve any equation left with a single unknown it can be solved
for explicitly; when none is left, tear the unknown that occurs in the most open equations.
"""
from __future__ import annotations

import heapq
from collections import deque

from .sparse import CSR


def tear_block(eqs: list[int], unknowns: list[int], incidence: CSR, explicit: CSR):
    """Tear the block of equations ``eqs`` in ``unknowns`` (the rest is known by now).

    ``incidence``/``explicit`` are equation × unknown matrices (CSR).

    Returns ``(solved, tears, residuals)``: ``solved`` lists (equation, unknown) pairs in
    evaluation order, ``tears`` the tearing variables, ``residuals`` the equations left over.
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
    return solved, tears, residuals


def _block_graph(eqs, block_vars, incidence, explicit):
    """Per equation its block unknowns and those it is explicit in; per unknown its equations."""
    vars_of = {e: set(incidence.row(e).tolist()) & block_vars for e in eqs}
    explicit_of = {e: set(explicit.row(e).tolist()) & vars_of[e] for e in eqs}
    eqs_of: dict[int, set[int]] = {v: set() for v in block_vars}
    for e, vs in vars_of.items():
        for v in vs:
            eqs_of[v].add(e)
    return vars_of, explicit_of, eqs_of
