"""Maximum matchings, Dulmage–Mendelsohn decompositions and block orders of sparse patterns.

The bulk of a large model is peeled off with whole-array NumPy operations: an equation left
with a single unknown must be matched to it, and so must an unknown left in a single
equation (in every maximum matching there is one that does so); in a dependency graph, a
node whose dependencies are all placed can come next, and one on which nothing left depends
can come last. What is left when a round peels little, the *core* (algebraic loops, long
chains, a small model whole), goes to CasADi's C++ implementation of the Dulmage–Mendelsohn decomposition
(``Sparsity.btf``, CSparse's maximum transversal) and strongly connected components
(``Sparsity.scc``). Handing an array to CasADi costs a Python list, so only the core is
handed over: the cost stays linear in the model and small where the core is.
"""
from __future__ import annotations


import numpy as np

from ..core.records import record
from .sparse import CSR, ragged_ranges

# A round of peeling costs a few hundred microseconds of NumPy calls whatever it peels, CasADi
# about a third of a microsecond per entry: peeling goes on while a round takes this many nodes.
PEEL_MIN = 256


@record
class _Side:
    """One side of a bipartite pattern while it is peeled: its adjacency to the other side,
    the number of live neighbours, whether it is still live, its partner, what to look at
    (with repeats), and room to mark nodes."""

    adjacency: CSR
    degree: np.ndarray
    live: np.ndarray
    partner: np.ndarray
    todo: np.ndarray
    mark: np.ndarray

    @classmethod
    def of(cls, adjacency: CSR) -> _Side:
        degree = np.diff(adjacency.indptr)
        n = adjacency.shape[0]
        return cls(adjacency, degree, np.ones(n, dtype=bool), np.full(n, -1, dtype=np.int64),
                   np.flatnonzero(degree == 1), np.zeros(n, dtype=np.int64))


def _once(nodes: np.ndarray, mark: np.ndarray) -> np.ndarray:
    """Where each node of ``nodes`` occurs for one of its places (one place per node, in
    order), using ``mark`` (one slot per node) rather than a sort."""
    places = np.arange(len(nodes))
    mark[nodes] = places
    return mark[nodes] == places


def _neighbours(adjacency: CSR, nodes: np.ndarray) -> np.ndarray:
    """The neighbours of all ``nodes``, node by node."""
    starts = adjacency.indptr[nodes]
    return adjacency.indices[ragged_ranges(starts, adjacency.indptr[nodes + 1] - starts)]


def _lose(side: _Side, neighbours: np.ndarray, target: int) -> None:
    """The live ``neighbours`` (with repeats) each lose one live neighbour; those left with
    ``target`` are looked at next."""
    neighbours = neighbours[side.live[neighbours]]
    np.subtract.at(side.degree, neighbours, 1)
    side.todo = np.concatenate([side.todo, neighbours[side.degree[neighbours] == target]])


def _peel_pairs(this: _Side, other: _Side) -> int:
    """Match every live node of ``this`` side left with one live neighbour to it (one node
    per neighbour); the number matched."""
    nodes = this.todo[this.live[this.todo] & (this.degree[this.todo] == 1)]
    this.todo = np.zeros(0, dtype=np.int64)
    nodes = nodes[_once(nodes, this.mark)]
    partner = _neighbours(this.adjacency, nodes)
    partner = partner[other.live[partner]]          # one per node: its only live neighbour
    first = _once(partner, other.mark)
    nodes, partner = nodes[first], partner[first]
    this.partner[nodes], other.partner[partner] = partner, nodes
    this.live[nodes] = other.live[partner] = False
    _lose(other, _neighbours(this.adjacency, nodes), 1)
    _lose(this, _neighbours(other.adjacency, partner), 1)
    return len(nodes)


def _core(pattern: CSR, live_rows: np.ndarray, live_cols: np.ndarray):
    """The pattern of the live rows and columns as a CasADi Sparsity (renumbered), with the
    rows and columns it keeps."""
    rows, cols = np.flatnonzero(live_rows), np.flatnonzero(live_cols)
    sub = pattern.rows(rows)
    keep = live_cols[sub.indices]
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.bincount(sub.row_of_entries()[keep], minlength=len(rows)), out=indptr[1:])
    core = CSR(indptr, (np.cumsum(live_cols) - 1)[sub.indices[keep]], None, (len(rows), len(cols)))
    return core.sparsity(), rows, cols


def maximum_matching(pattern: CSR) -> np.ndarray:
    """A maximum matching of the rows of ``pattern`` to its columns: per row its column, -1
    for a row left unmatched."""
    rows, cols = _Side.of(pattern), _Side.of(pattern.transpose())
    if min(pattern.shape) >= PEEL_MIN:
        while _peel_pairs(rows, cols) + _peel_pairs(cols, rows) >= PEEL_MIN:
            pass
    if rows.live.any() and cols.live.any():
        sparsity, core_rows, core_cols = _core(pattern, rows.live, cols.live)
        _, rowperm, colperm, _, _, row_parts, col_parts = sparsity.btf()
        # Rows row_parts[1]:row_parts[4] are matched, in order, to columns col_parts[0]:col_parts[3].
        matched = core_rows[np.asarray(rowperm[row_parts[1]:row_parts[4]], dtype=np.int64)]
        rows.partner[matched] = core_cols[np.asarray(colperm[col_parts[0]:col_parts[3]], dtype=np.int64)]
    return rows.partner


def dulmage_mendelsohn(pattern: CSR) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The over-determined part of ``pattern`` (its rows, its columns: rows reachable from an
    unmatched row by alternating paths of any maximum matching) and the under-determined
    part (its columns, its rows: likewise from an unmatched column); each sorted."""
    if not pattern.shape[0] or not pattern.shape[1]:
        return (np.arange(pattern.shape[0]), np.zeros(0, np.int64), np.arange(pattern.shape[1]),
                np.zeros(0, np.int64))
    _, rowperm, colperm, _, _, row_parts, col_parts = pattern.sparsity().btf()
    rowperm, colperm = np.asarray(rowperm, dtype=np.int64), np.asarray(colperm, dtype=np.int64)
    return (np.sort(rowperm[:row_parts[2]]), np.sort(colperm[:col_parts[1]]),
            np.sort(colperm[col_parts[2]:]), np.sort(rowperm[row_parts[3]:]))


def _trim(needs: CSR, needed_by: CSR, live: np.ndarray) -> list[np.ndarray]:
    """Layers of live nodes none of whose ``needs`` is live, each layer removed before the
    next is found, while they hold :data:`PEEL_MIN` nodes."""
    degree = np.diff(needs.indptr).copy()
    todo, layers, mark = np.flatnonzero(degree == 0), [], np.zeros(len(degree), dtype=np.int64)
    while True:
        nodes = todo[live[todo] & (degree[todo] == 0)]
        nodes = np.sort(nodes[_once(nodes, mark)])
        if len(nodes) < PEEL_MIN:
            break
        layers.append(nodes)
        live[nodes] = False
        waiting = _neighbours(needed_by, nodes)
        waiting = waiting[live[waiting]]
        np.subtract.at(degree, waiting, 1)
        todo = waiting[degree[waiting] == 0]
    return layers


def block_order(depends: CSR) -> tuple[np.ndarray, int]:
    """The strongly connected components of the graph in which node ``i`` depends on the
    nodes ``depends.row(i)`` (no node on itself), numbered so that every node's dependencies
    are in its own block or an earlier one: each node's block, and the number of blocks."""
    n = depends.shape[0]
    live = np.ones(n, dtype=bool)
    dependents = depends.transpose()
    first = _trim(depends, dependents, live)           # nothing left to wait for
    last = _trim(dependents, depends, live)            # nothing left waits for them
    label = np.full(n, -1, dtype=np.int64)
    placed = np.concatenate(first) if first else np.zeros(0, np.int64)
    label[placed] = np.arange(len(placed))
    n_blocks = len(placed)
    if live.any():
        sparsity, members, _ = _core(depends, live, live)
        # A(p, p) is block upper triangular for CasADi's order; on the transpose (the
        # dependents' pattern) that puts every block after the blocks it depends on.
        n_core, order, bounds = sparsity.T.scc()
        sizes = np.diff(np.asarray(bounds, dtype=np.int64))
        label[members[np.asarray(order, dtype=np.int64)]] = n_blocks + np.repeat(np.arange(n_core), sizes)
        n_blocks += n_core
    placed = np.concatenate(last[::-1]) if last else np.zeros(0, np.int64)
    label[placed] = n_blocks + np.arange(len(placed))
    return label, n_blocks + len(placed)
