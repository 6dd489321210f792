"""Sorted set operations on arrays, as NumPy's ``unique``, ``union1d`` and ``setdiff1d`` return
them, without the masked-array module: NumPy 2's ``unique`` asks ``np.ma.is_masked`` on its
first call, which imports ``numpy.ma`` (16 ms, a twentieth of a small deck's whole
``python -m physlib.spice`` process). Compiling and simulating need none of it. And the
connected components of a graph given as arrays of edges (the compiler's connection and alias
sets, a deck's nets), with NumPy alone: reading a deck needs no CasADi; and of a graph whose
edges carry a sign (the compiler's alias pairs x_a = ±x_b). And the positions of objects in a
list, found by identity (a netlist's connection ends among its members)."""
from __future__ import annotations

import numpy as np


def index_dtype(n: int) -> type:
    """The integer type for numbers below ``n`` (entries, variables, positions, equations):
    int32 where it holds them, int64 beyond. A million-element model's tables of such numbers
    run to millions of entries, and fresh pages cost more than the arithmetic: half the bytes
    is half the memory touched."""
    return np.int32 if n < 2**31 else np.int64


def positions_of(keys: list, wanted: list) -> np.ndarray:
    """The position in ``keys`` (distinct, hashable) of each entry of ``wanted``, as a
    dictionary ``{key: position}`` would give it (KeyError for one that is not there).

    An entry that is the very object of its key (a netlist's connection ends name each member
    with the member's own name string) is found by its address: the keys' addresses sorted and
    searched with NumPy. A dictionary of a million names, and three million lookups in it,
    took 1.0 s of a million-element ladder's flattening, in cache misses; this takes 0.6.
    The other entries (equal, not identical) are looked up by equality in a dictionary."""
    if not wanted:
        return np.zeros(0, dtype=np.int64)
    if not keys:
        raise KeyError(wanted[0])
    sought = np.fromiter(map(id, wanted), np.uint64, len(wanted))
    address = np.fromiter(map(id, keys), np.uint64, len(keys))
    order = np.argsort(address)
    address = address[order]
    at = np.minimum(np.searchsorted(address, sought), address.size - 1)
    positions = order[at]
    missed = np.flatnonzero(address[at] != sought)
    if missed.size:
        index = dict(zip(keys, range(len(keys))))
        positions[missed] = [index[wanted[i]] for i in missed.tolist()]
    return positions


def sorted_unique(values) -> np.ndarray:
    """The distinct values of ``values`` (flattened), sorted: ``np.unique(values)``."""
    ordered = np.sort(np.asarray(values).ravel())
    if ordered.size < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def union(a, b) -> np.ndarray:
    """The sorted distinct values in ``a`` or ``b``: ``np.union1d(a, b)``."""
    return sorted_unique(np.concatenate((np.ravel(a), np.ravel(b))))


def difference(a, b) -> np.ndarray:
    """The sorted distinct values of ``a`` not in ``b``: ``np.setdiff1d(a, b)``."""
    values = sorted_unique(a)
    return values[~np.isin(values, b, assume_unique=True)] if len(values) else values


def connected_components(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """The connected components of the undirected graph on ``n`` nodes with the edges
    ``(a[k], b[k])``: their number and each node's component, numbered in the order of their
    smallest nodes.

    Every node points to a smaller one of its component or to itself (a root); each round
    hooks the root of every edge's larger end onto the other end's root, then halves the
    paths to the roots until every node points at its root. A chain is joined in one round,
    and rounds only repeat while edges still join different trees: the cost stays linear in
    practice where a breadth-first search in Python would not."""
    kind = index_dtype(n)
    parent = np.arange(n, dtype=kind)
    a, b = np.asarray(a, dtype=kind), np.asarray(b, dtype=kind)
    ra, rb = a, b                   # every node its own root at first: nothing to look up
    while len(a):
        differ = ra != rb
        if not differ.all():
            if not differ.any():
                break
            a, b, ra, rb = a[differ], b[differ], ra[differ], rb[differ]
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
        ra, rb = parent[a], parent[b]
    roots = parent == np.arange(n, dtype=kind)
    label = np.cumsum(roots, dtype=kind)
    label -= 1
    return int(label[-1]) + 1 if n else 0, label[parent]


def signed_components(n: int, a: np.ndarray, b: np.ndarray, odd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The connected components of the graph on ``n`` nodes with the edges ``(a[k], b[k])``,
    where an edge with ``odd[k]`` relates its ends by a change of sign (x_a = -x_b) and the
    others by equality: each node's component (the smallest node of it) and its parity
    relative to that node (``True``: opposite sign). An edge whose ends' parities differ by
    other than its own closes a loop of odd sign; the caller checks the edges for that.

    As :func:`connected_components`, with a parity beside each parent pointer: hooking a
    root onto another sets the parity the hooking edge implies, and halving a path composes
    the parities it skips (exclusive or). One graph of ``n`` nodes, where the usual
    construction (a node per sign of each variable) would take two of ``2n``."""
    kind = index_dtype(n)
    parent = np.arange(n, dtype=kind)
    parity = np.zeros(n, dtype=bool)
    a, b, odd = np.asarray(a, dtype=kind), np.asarray(b, dtype=kind), np.asarray(odd, dtype=bool)
    ra, rb, pa, pb = a, b, np.zeros(len(a), dtype=bool), np.zeros(len(a), dtype=bool)
    while len(a):
        differ = ra != rb
        if not differ.all():
            if not differ.any():
                break
            a, b, odd, ra, rb, pa, pb = (v[differ] for v in (a, b, odd, ra, rb, pa, pb))
        high, low = np.maximum(ra, rb), np.minimum(ra, rb)
        np.minimum.at(parent, high, low)
        # The high root takes the parity of one edge that hooked it where it points now
        # (any other edge to the same root that disagrees is an odd loop, found later).
        won = parent[high] == low
        parity[high[won]] = (pa ^ pb ^ odd)[won]
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parity ^= parity[parent]
            parent = grand
        ra, rb, pa, pb = parent[a], parent[b], parity[a], parity[b]
    return parent, parity
