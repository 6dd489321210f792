"""Structural analysis on sparse incidence matrices: matching and block-lower-triangular order.

Equations are rows and unknowns columns of a sparse incidence matrix. A perfect matching
assigns each equation the unknown it determines; the strongly connected components of the
resulting dependency graph are the blocks that must be solved together, in dependency order.
When no perfect matching exists, the Dulmage–Mendelsohn reachability sets name the equations
that over-determine, or the unknowns left undetermined.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from ..core.errors import StructuralError


@dataclass
class BlockOrder:
    match: np.ndarray        # equation -> unknown (column) it is solved for
    block: np.ndarray        # equation -> block number, blocks numbered in evaluation order
    n_blocks: int


def match_and_order(incidence: sps.csr_matrix, preferred: sps.csr_matrix,
                    describe_eq, describe_var) -> BlockOrder:
    """Match equations to unknowns (trying ``preferred`` edges first) and order the blocks."""
    n_eq, n_var = incidence.shape
    if n_eq != n_var:
        diagnose(incidence, describe_eq, describe_var)
    match = maximum_bipartite_matching(preferred, perm_type="column") if n_eq else np.zeros(0, int)
    if np.any(match < 0):
        match = maximum_bipartite_matching(incidence, perm_type="column")
        if np.any(match < 0):
            diagnose(incidence, describe_eq, describe_var)

    # Equation e depends on equation f when e contains the unknown f is solved for.
    owner = np.empty(n_var, dtype=np.int64)
    owner[match] = np.arange(n_eq)
    coo = incidence.tocoo()
    dep = owner[coo.col]
    keep = dep != coo.row
    graph = sps.csr_matrix((np.ones(keep.sum()), (coo.row[keep], dep[keep])), shape=(n_eq, n_eq))
    n_blocks, labels = connected_components(graph, directed=True, connection="strong")
    # SciPy numbers strong components so that dependencies get lower labels; verify, since
    # this is not a documented promise, and fall back to an explicit topological sort.
    src, dst = coo.row[keep], dep[keep]
    if np.any(labels[src] < labels[dst]):
        labels = _topological_labels(labels, src, dst, n_blocks)
    return BlockOrder(match, labels, n_blocks)


def _topological_labels(labels, src, dst, n_blocks):
    cond = nx.DiGraph()
    cond.add_nodes_from(range(n_blocks))
    cond.add_edges_from((int(b), int(a)) for a, b in zip(labels[src], labels[dst]) if a != b)
    rank = np.empty(n_blocks, dtype=np.int64)
    rank[list(nx.topological_sort(cond))] = np.arange(n_blocks)
    return rank[labels]


def diagnose(incidence, describe_eq, describe_var):
    """Raise a StructuralError naming the over-determined equations or undetermined unknowns."""
    n_eq, n_var = incidence.shape
    match = maximum_bipartite_matching(incidence, perm_type="column") if n_eq and n_var \
        else np.full(n_eq, -1)
    csr = incidence.tocsr()
    csc = incidence.tocsc()
    var_owner = np.full(n_var, -1, dtype=np.int64)
    var_owner[match[match >= 0]] = np.flatnonzero(match >= 0)

    free_eqs = np.flatnonzero(match < 0)
    if len(free_eqs):
        # Over-determined part: equations reachable from an unmatched one by alternating paths.
        seen_eq, seen_var, stack = set(free_eqs.tolist()), set(), list(free_eqs.tolist())
        while stack:
            e = stack.pop()
            for v in csr.indices[csr.indptr[e]:csr.indptr[e + 1]].tolist():
                if v not in seen_var:
                    seen_var.add(v)
                    f = var_owner[v]
                    if f >= 0 and f not in seen_eq:
                        seen_eq.add(f)
                        stack.append(f)
        eqs = sorted(seen_eq)
        raise StructuralError(
            "the system is over-determined: these equations constrain the same unknowns "
            f"({_names(sorted(seen_var), describe_var)}) more than once:\n  "
            + "\n  ".join(describe_eq(e) for e in eqs[:12])
            + ("\n  ..." if len(eqs) > 12 else "")
            + "\n(e.g. two ideal voltage sources in parallel, or a current source in series with "
            "another; remove one or put a resistance between them)")

    free_vars = np.setdiff1d(np.arange(n_var), match[match >= 0])
    seen_var, seen_eq, stack = set(free_vars.tolist()), set(), list(free_vars.tolist())
    while stack:
        v = stack.pop()
        for e in csc.indices[csc.indptr[v]:csc.indptr[v + 1]].tolist():
            if e not in seen_eq:
                seen_eq.add(e)
                w = match[e]
                if w >= 0 and w not in seen_var:
                    seen_var.add(w)
                    stack.append(w)
    raise StructuralError(
        "the system is under-determined: nothing fixes "
        f"{_names(sorted(seen_var), describe_var)}"
        + (f" (equations involved: {'; '.join(describe_eq(e) for e in sorted(seen_eq)[:6])})"
           if seen_eq else "")
        + ". Is a component missing a connection to a reference (Fixed, Ground, a source)?")


def _names(ids, describe_var, limit=12):
    names = [describe_var(i) for i in ids[:limit]]
    return ", ".join(names) + (", ..." if len(ids) > limit else "")
