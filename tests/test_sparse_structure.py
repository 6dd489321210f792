"""The compiler's sparse structure (physlib.assembly.sparse, physlib.assembly.matching) against
definitions checked by brute force on small random patterns: a matching is a set of entries
with no row or column twice, and maximum when no augmenting path is left (Kuhn's algorithm
below); the Dulmage-Mendelsohn parts are the rows and columns reachable by alternating paths;
blocks are the sets of mutually reachable nodes, each after those it depends on; components
are the sets a union-find joins. Each pattern is checked with the peeling done in NumPy and
with everything left to CasADi's core, so both paths are covered."""
import numpy as np
import pytest

from physlib.assembly import matching
from physlib.assembly.alias_sets import eliminate_aliases
from physlib.assembly.matching import block_order, dulmage_mendelsohn, maximum_matching
from physlib.assembly.sparse import CSR
from physlib.core.arrays import connected_components, signed_components
from physlib.core.errors import StructuralError

SEEDS = range(300)


def random_pattern(rng, max_rows=8, max_cols=8, max_entries=20):
    n_rows, n_cols = int(rng.integers(0, max_rows + 1)), int(rng.integers(0, max_cols + 1))
    k = int(rng.integers(0, max_entries + 1)) if n_rows and n_cols else 0
    rows, cols = rng.integers(0, max(n_rows, 1), k), rng.integers(0, max(n_cols, 1), k)
    return CSR.from_entries(rows, cols, (n_rows, n_cols)), [set() for _ in range(n_rows)], rows, cols


def kuhn(adjacency, n_cols):
    """A maximum matching by augmenting paths (row -> column, -1 unmatched)."""
    owner = [-1] * n_cols

    def augment(r, seen):
        for c in sorted(adjacency[r]):
            if c not in seen:
                seen.add(c)
                if owner[c] < 0 or augment(owner[c], seen):
                    owner[c] = r
                    return True
        return False

    for r in range(len(adjacency)):
        augment(r, set())
    match = [-1] * len(adjacency)
    for c, r in enumerate(owner):
        if r >= 0:
            match[r] = c
    return match


def alternating_reach(starts, neighbours, partner):
    seen, reached, stack = set(starts), set(), list(starts)
    while stack:
        for v in neighbours[stack.pop()]:
            if v not in reached:
                reached.add(v)
                if partner[v] >= 0 and partner[v] not in seen:
                    seen.add(partner[v])
                    stack.append(partner[v])
    return sorted(seen), sorted(reached)


@pytest.fixture(params=[10 ** 9, 1], ids=["core", "peeled"])
def peel_rounds(request, monkeypatch):
    monkeypatch.setattr(matching, "PEEL_MIN", request.param)    # nodes a round must peel to go on


def test_matchings_are_maximum_and_the_decomposition_is_the_alternating_reach(peel_rounds):
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        pattern, adjacency, rows, cols = random_pattern(rng)
        for r, c in zip(rows.tolist(), cols.tolist()):
            adjacency[r].add(c)
        n_rows, n_cols = pattern.shape
        match = maximum_matching(pattern)
        matched = np.flatnonzero(match >= 0)
        assert pattern.contains(matched, match[matched]).all(), seed
        assert len(set(match[matched].tolist())) == len(matched), seed
        reference = kuhn(adjacency, n_cols)
        assert len(matched) == sum(c >= 0 for c in reference), seed

        by_col = [set() for _ in range(n_cols)]
        for r, cs in enumerate(adjacency):
            for c in cs:
                by_col[c].add(r)
        owner = [-1] * n_cols
        for r, c in enumerate(reference):
            if c >= 0:
                owner[c] = r
        over = alternating_reach([r for r in range(n_rows) if reference[r] < 0], adjacency, owner)
        under = alternating_reach([c for c in range(n_cols) if owner[c] < 0], by_col, reference)
        over_rows, over_cols, under_cols, under_rows = dulmage_mendelsohn(pattern)
        assert (over_rows.tolist(), over_cols.tolist()) == over, seed
        assert (under_cols.tolist(), under_rows.tolist()) == under, seed


def test_blocks_are_the_strong_components_each_after_its_dependencies(peel_rounds):
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 12))
        a, b = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
        a, b = a[a != b], b[a != b]
        label, n_blocks = block_order(CSR.from_entries(a, b, (n, n)))
        reach = np.eye(n, dtype=bool)
        reach[a, b] = True
        for k in range(n):                      # Floyd-Warshall: i reaches j
            reach |= reach[:, [k]] & reach[[k], :]
        np.testing.assert_array_equal(label[:, None] == label[None, :], reach & reach.T, err_msg=str(seed))
        assert np.all(label[a] >= label[b]), seed
        assert sorted(set(label.tolist())) == list(range(n_blocks)), seed


def test_a_wide_layer_is_peeled_and_a_chain_after_it_goes_to_the_core_in_order():
    # Nodes 0..w-1 depend on nothing (one wide layer, peeled); node w + i depends on node
    # w + i - 1 and on node i (a chain, one node a layer: the core); w + 5 and w + 6 form a loop.
    w = 2 * matching.PEEL_MIN
    chain = np.arange(w + 1, 2 * w)
    a = np.concatenate([chain, chain, [w + 5]])
    b = np.concatenate([chain - 1, chain - w, [w + 6]])
    label, n_blocks = block_order(CSR.from_entries(a, b, (2 * w, 2 * w)))
    assert n_blocks == 2 * w - 1 and label[w + 5] == label[w + 6]
    assert np.all(label[a] >= label[b]) and label[:w].max() < label[w:].min()


def test_components_are_those_of_a_union_find():
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 30))
        a, b = rng.integers(0, n, n // 2), rng.integers(0, n, n // 2)
        root = list(range(n))

        def find(x):
            while root[x] != x:
                x = root[x]
            return x

        for x, y in zip(a.tolist(), b.tolist()):
            root[find(x)] = find(y)
        n_sets, label = connected_components(n, a, b)
        roots = [find(x) for x in range(n)]
        same = np.array([[p == q for q in roots] for p in roots])
        np.testing.assert_array_equal(label[:, None] == label[None, :], same, err_msg=str(seed))
        first = [int(np.flatnonzero(label == k)[0]) for k in range(n_sets)]
        assert first == sorted(first), seed           # numbered by their smallest nodes


def test_signed_components_are_a_breadth_first_search_of_the_signs():
    # Sparse random graphs (forests and few loops) and dense ones (odd loops in most): each
    # node's root is the smallest node of its component, and every edge that a breadth-first
    # search from that root takes agrees with the parities; an edge disagrees exactly when
    # the search finds its component holds a loop of odd sign.
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 30))
        k = int(rng.integers(0, 2 * n))
        a, b, odd = rng.integers(0, n, k), rng.integers(0, n, k), rng.random(k) < 0.5
        root, parity = signed_components(n, a, b, odd)
        neighbours = [[] for _ in range(n)]
        for x, y, o in zip(a.tolist(), b.tolist(), odd.tolist()):
            neighbours[x].append((y, o))
            neighbours[y].append((x, o))
        sign, component, odd_loop = {}, {}, set()
        for start in range(n):
            if start in sign:
                continue
            sign[start], component[start], queue = False, start, [start]
            for x in queue:
                for y, o in neighbours[x]:
                    if y not in sign:
                        sign[y], component[y] = sign[x] ^ o, start
                        queue.append(y)
                    elif sign[y] != sign[x] ^ o:
                        odd_loop.add(start)
        assert root.tolist() == [component[x] for x in range(n)], seed
        consistent = [x for x in range(n) if component[x] not in odd_loop]
        assert [bool(parity[x]) for x in consistent] == [sign[x] for x in consistent], seed
        disagree = parity[a] ^ parity[b] ^ odd
        assert {component[x] for x in a[disagree].tolist()} == odd_loop, seed


def test_sparse_rows_sum_repeated_entries_drop_zeros_and_transpose():
    m = CSR.from_entries([1, 0, 1, 1, 2], [2, 1, 2, 0, 1], (3, 3), [1.0, 2.0, 3.0, 5.0, 0.0])
    dense = np.zeros((3, 3))
    dense[0, 1], dense[1, 2], dense[1, 0] = 2.0, 4.0, 5.0
    np.testing.assert_array_equal(np.array(m.to_dm()), dense)
    np.testing.assert_array_equal(np.array(m.transpose().to_dm()), dense.T)
    np.testing.assert_array_equal(np.array(m.rows([1, 0]).to_dm()), dense[[1, 0]])
    assert m.nnz == 3 and m.row(1).tolist() == [0, 2]
    assert m.contains([1, 1, 2, 0], [2, 1, 1, 1]).tolist() == [True, False, False, True]


def test_alias_signs_follow_the_pairs_and_an_odd_loop_is_named():
    # x1 = -x0, x2 = -x1, x3 = x2: relative to x0 the signs are +, -, +, +.
    names = ["x0", "x1", "x2", "x3", "y"]
    none = np.zeros(0, dtype=np.int64)
    aliases = eliminate_aliases(5, np.array([[1, 0, -1], [2, 1, -1], [3, 2, 1]]), none, none, names)
    assert aliases.rep.tolist() == [0, 0, 0, 0, 4]
    assert aliases.sign.tolist() == [1, -1, 1, 1, 1]
    # x0 = x1 = x2 and x2 = -x0: a loop of odd sign forces them to zero, and y hangs off it.
    pairs = np.array([[4, 0, 1], [0, 1, 1], [1, 2, 1], [2, 0, -1]])
    with pytest.raises(StructuralError, match="equal and opposite") as err:
        eliminate_aliases(5, pairs, none, none, names)
    assert "y" not in str(err.value)
