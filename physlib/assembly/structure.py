"""Structural analysis on sparse incidence matrices: matching and block-lower-triangular order.

Equations are rows and unknowns columns of a sparse incidence matrix. A perfect matching
assigns each equation the unknown it determines; the strongly connected components of the
resulting dependency graph are the blocks that must be solved together, in dependency order.
When no perfect matching exists, the Dulmage–Mendelsohn reachability sets name the equations
that over-determine, or the unknowns left undetermined.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from ..core.errors import StructuralError
from .ir import BlockOrder


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
    import networkx as nx
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
        seen_eq, seen_var = _alternating_reach(free_eqs, csr, var_owner)
        eqs = sorted(seen_eq)
        raise StructuralError(
            "the system is over-determined: these equations constrain the same unknowns "
            f"({_names(sorted(seen_var), describe_var)}) more than once:\n  "
            + "\n  ".join(describe_eq(e) for e in eqs[:12])
            + ("\n  ..." if len(eqs) > 12 else "")
            + "\n(e.g. two ideal voltage sources in parallel, or a current source in series with "
            "another; remove one or put a resistance between them)")

    # Under-determined part: unknowns reachable from an unmatched one by alternating paths.
    free_vars = np.setdiff1d(np.arange(n_var), match[match >= 0])
    seen_var, seen_eq = _alternating_reach(free_vars, csc, match)
    raise StructuralError(
        "the system is under-determined: nothing fixes "
        f"{_names(sorted(seen_var), describe_var)}"
        + (f" (equations involved: {'; '.join(describe_eq(e) for e in sorted(seen_eq)[:6])})"
           if seen_eq else "")
        + ". Is a component missing a connection to a reference (Fixed, Ground, a source)?")


def _alternating_reach(starts, adjacency, partner):
    """Nodes reachable from the unmatched ``starts`` by alternating paths: from a node along
    ``adjacency`` (CSR/CSC index arrays) to its neighbours, and from a neighbour through
    the matching (``partner[neighbour]``, -1 if unmatched) to the next node. Returns the
    nodes (with the starts) and the neighbours reached."""
    seen, neighbours, stack = set(starts.tolist()), set(), list(starts.tolist())
    while stack:
        node = stack.pop()
        for v in adjacency.indices[adjacency.indptr[node]:adjacency.indptr[node + 1]].tolist():
            if v not in neighbours:
                neighbours.add(v)
                nxt = int(partner[v])
                if nxt >= 0 and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return seen, neighbours


def _names(ids, describe_var, limit=12):
    names = [describe_var(i) for i in ids[:limit]]
    return ", ".join(names) + (", ..." if len(ids) > limit else "")
