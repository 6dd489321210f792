"""The rows of a run as it records them (physlib.analysis.simulation.result_rows): joined in
the order recorded, rows completed elsewhere (PendingBlock) in their place, and no parameter
vector kept per row where the run's cannot change."""
import numpy as np

from physlib.analysis.simulation.result_rows import PendingBlock, ResultRows


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
    np.testing.assert_array_equal(P, [[9.0, 1.0, 2.0, 3.0, 4.0]])
    assert X.flags.f_contiguous and Z.flags.f_contiguous


def test_a_run_whose_parameters_cannot_change_keeps_no_parameter_vector_per_row():
    # (a 10,000-element circuit's parameter vector is 15,000 numbers)
    rows = ResultRows(1, 0, 3, keep_p=False)
    rows.add(0.0, [1.0], [], [1.0, 2.0, 3.0])
    rows.add_block([1.0], np.array([[2.0]]), np.zeros((0, 1)), np.ones((3, 1)))
    assert all(block[3] is None for block in rows.blocks)
    assert rows.arrays()[3].shape == (3, 0)
