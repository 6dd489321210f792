"""The rows of a run as it records them (physlib.analysis.simulation.result_rows): joined in
the order recorded, rows completed elsewhere (PendingBlock) in their place, and no parameter
vector kept per row where the run's cannot change."""
import numpy as np

from physlib.analysis.simulation.result_rows import PendingBlock, ResultRows, RowParameters


def test_rows_blocks_and_pending_blocks_join_in_the_order_recorded():
    rows = ResultRows(1, 2, 1)
    rows.add(0.0, [1.0], [2.0, 3.0], [9.0])
    waited = []

    def later():
        waited.append(True)
        return [1.0, 2.0], np.array([[4.0, 5.0]]), np.array([[6.0, 7.0], [8.0, 9.0]]), np.array([[1.0, 2.0]]), None

    rows.add_block(PendingBlock(later))
    rows.add(2.5, [10.0], [11.0, 12.0], [3.0], t_value=2.4)
    rows.add_block([3.0], np.array([[13.0]]), np.array([[14.0], [15.0]]), np.array([[4.0]]), [2.9])
    assert not waited                     # read when the rows are joined, not before
    times, X, Z, P, t_values = rows.arrays()
    assert waited == [True]
    np.testing.assert_array_equal(times, [0.0, 1.0, 2.0, 2.5, 3.0])
    np.testing.assert_array_equal(t_values, [0.0, 1.0, 2.0, 2.4, 2.9])
    np.testing.assert_array_equal(X, [[1.0, 4.0, 5.0, 10.0, 13.0]])
    np.testing.assert_array_equal(Z, [[2.0, 6.0, 7.0, 11.0, 14.0], [3.0, 8.0, 9.0, 12.0, 15.0]])
    np.testing.assert_array_equal(P.columns(), [[9.0, 1.0, 2.0, 3.0, 4.0]])
    assert X.flags.f_contiguous and Z.flags.f_contiguous


def test_row_parameters_keep_each_run_of_equal_vectors_once_and_give_every_rows_back():
    # nine rows, the vector changing at events; a change of the sign of a zero is a change too
    # (kept bit for bit), a NaN after the same NaN is not
    P = np.array([[1.0, 1.0, 2.0, 2.0, 2.0, 0.0, -0.0, np.nan, np.nan],
                  [5.0, 5.0, 5.0, 5.0, 6.0, 7.0, 7.0, 8.0, 8.0]])
    rows = RowParameters.of_columns(P)
    assert rows.vectors.shape == (2, 6) and len(rows) == 9
    np.testing.assert_array_equal(rows.index, [0, 0, 1, 1, 2, 3, 4, 5, 5])
    np.testing.assert_array_equal(rows.columns(), P)
    assert np.signbit(rows.columns()[0, 6]) and not np.signbit(rows.columns()[0, 5])
    np.testing.assert_array_equal(rows.slot(1), P[1])
    np.testing.assert_array_equal(rows.column(3), P[:, 3])
    np.testing.assert_array_equal(rows.columns(2, 5), P[:, 2:5])
    np.testing.assert_array_equal(rows.rows([4, 0]).columns(), P[:, [4, 0]])
    # rows put in among others, and blocks of rows one after another
    other = RowParameters.constant(np.array([9.0, 9.0]), 2)
    placed = RowParameters.placed(11, [(np.r_[0:4, 6:11], rows), ([4, 5], other)])
    np.testing.assert_array_equal(placed.columns(), np.concatenate([P[:, :4], [[9.0, 9.0]] * 2, P[:, 4:]], axis=1))
    joined = RowParameters.joined([other, rows, other])
    np.testing.assert_array_equal(joined.columns(), np.concatenate([[[9.0, 9.0]] * 2, P.T, [[9.0, 9.0]] * 2]).T)


def test_a_run_whose_parameters_cannot_change_keeps_no_parameter_vector_per_row():
    # (a 10,000-element circuit's parameter vector is 15,000 numbers)
    rows = ResultRows(1, 0, 3, keep_p=False)
    rows.add(0.0, [1.0], [], [1.0, 2.0, 3.0])
    rows.add_block([1.0], np.array([[2.0]]), np.zeros((0, 1)), np.ones((3, 1)))
    assert all(block[3] is None for block in rows.blocks)
    assert rows.arrays()[3] is None


def test_a_state_only_blocks_rows_go_in_pieces_of_its_own_columns_around_the_held_rows():
    from physlib.analysis.simulation.output_rows import _Rows, _state_pieces
    Y = np.asfortranarray(np.arange(8.0).reshape(2, 4))      # 4 interpolated rows of 2 states
    rows = _Rows(Y, None, None, np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4), np.zeros(1), 1e-6, 1e-8)
    # held: one row after the block's first row, two after its third (the second given first)
    held = [(np.array([3, 1]), np.array([3.5, 1.5]), np.array([[90.0, 91.0], [92.0, 93.0]]), None,
             np.array([3.4, 1.4])),
            (np.array([3]), np.array([3.6]), np.array([[94.0], [95.0]]), None, np.array([3.6]))]
    pieces = list(_state_pieces(rows, held, 2))
    assert [list(p[0]) for p in pieces] == [[1.0], [1.5], [2.0, 3.0], [3.5], [3.6], [4.0]]
    assert [p[4] for p in pieces] == [None, [1.4], None, [3.4], [3.6], None]
    joined = np.concatenate([p[1] for p in pieces], axis=1)
    np.testing.assert_array_equal(joined, [[0, 91, 1, 2, 90, 94, 3], [4, 93, 5, 6, 92, 95, 7]])
    assert all(p[2].shape == (0, p[1].shape[1]) for p in pieces)
    assert np.shares_memory(pieces[2][1], Y)                  # the block's own columns


def test_a_large_state_only_run_gives_the_rows_the_copied_block_gives(monkeypatch):
    # A model without algebraic variables (an RC ladder behind a PWM source: time events,
    # rows held around them) on the stepped solver: its rows handed over in the block's own
    # array, each row's y' into one column, give the numbers the copied block gave, bit for bit.
    import physlib.analysis.simulation.output_rows as output_rows
    from physlib.analysis.simulation import simulate as simulate_module
    from physlib.components.signals import PWM
    from test_results import rc_ladder
    monkeypatch.setattr(simulate_module, "DENSE_LIMIT", 0)
    sim = rc_ladder(6, V=PWM(f=2.0, duty=0.3)).compile()
    assert not sim.system.z_pos.size
    runs = {}
    for hand_over in (10**12, 0):
        monkeypatch.setattr(output_rows, "HAND_OVER_ENTRIES", hand_over)
        runs[hand_over] = [sim.simulate(2.0), sim.simulate(2.0, t_eval=np.linspace(0.0, 2.0, 1201))]
    for copied, handed in zip(runs[10**12], runs[0]):
        np.testing.assert_array_equal(handed.t, copied.t)
        for k in range(1, 7):
            np.testing.assert_array_equal(handed[f"C{k}.v"], copied[f"C{k}.v"])
        # an output evaluated over the rows (states, algebraic variables: none, parameters)
        np.testing.assert_array_equal(handed["R3.i"], copied["R3.i"])
    # and the numbers the dense solver gives (CVODES on the whole ODE), within the tolerances
    # (default rtol 1e-6, atol 1e-8 on states below 0.3 V: 1e-6 V apart at most)
    monkeypatch.setattr(simulate_module, "DENSE_LIMIT", 10**9)
    dense = sim.simulate(2.0, t_eval=np.linspace(0.0, 2.0, 1201))
    for k in range(1, 7):
        np.testing.assert_allclose(runs[0][1][f"C{k}.v"], dense[f"C{k}.v"], rtol=0, atol=1e-6)
    # eight edges in 2 s, each with rows on both sides at its time (held around the block's);
    # C1 charges towards the 30 % duty's 0.3 V (R·C = 1 s)
    assert np.count_nonzero(np.diff(runs[0][0].t) == 0) >= 7 and 0.05 < runs[0][1]["C1.v"][-1] < 0.3


def test_blocks_of_one_array_join_inside_it_and_others_as_before():
    from physlib.analysis.simulation.result_rows import _join
    def setup():
        base = np.empty((2, 8), order="F")        # an array of its own, as a run's block is
        base[:] = np.arange(16.0).reshape(8, 2).T              # column k: [2k, 2k + 1]
        return base, np.array([[-1.0], [-2.0]]), np.array([[-3.0], [-4.0]])
    # the initial row, the block's first two rows, a held row, its next three: 7 of 8 columns
    base, first, held = setup()
    joined = _join([first, base[:, 0:2], held, base[:, 2:5]], 2)
    np.testing.assert_array_equal(joined, [[-1, 0, 2, -3, 4, 6, 8], [-2, 1, 3, -4, 5, 7, 9]])
    assert np.shares_memory(joined, base) and joined.flags.f_contiguous
    # a run's rows so, asked for twice: the same arrays (the blocks moved once)
    base, first, held = setup()
    rows = ResultRows(2, 0)
    rows.add(0.0, [-1.0, -2.0], [])
    rows.add_block([0.5, 1.0], base[:, 0:2], base[:0, 0:2])
    rows.add_block([1.0], held, base[:0, 2:3], None, [0.99])
    rows.add_block([1.5, 2.0, 2.5], base[:, 2:5], base[:0, 2:5])
    once, again = rows.arrays(), rows.arrays()
    np.testing.assert_array_equal(once[1], [[-1, 0, 2, -3, 4, 6, 8], [-2, 1, 3, -4, 5, 7, 9]])
    assert all(a is b for a, b in zip(once, again)) and np.shares_memory(once[1], base)
    # more rows than the array has columns, views out of their order: joined in a new array
    for blocks, expected in [
            (lambda b, f, h: [f, h, b[:, 0:7]], [[-1, -3, 0, 2, 4, 6, 8, 10, 12], [-2, -4, 1, 3, 5, 7, 9, 11, 13]]),
            (lambda b, f, h: [f, b[:, 3:5], b[:, 0:2]], [[-1, 6, 8, 0, 2], [-2, 7, 9, 1, 3]])]:
        base, first, held = setup()
        joined = _join(blocks(base, first, held), 2)
        np.testing.assert_array_equal(joined, expected)
        assert not np.shares_memory(joined, base)
