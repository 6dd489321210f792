"""physlib.core.arrays against the NumPy set functions it stands in for (without numpy.ma)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from physlib.core.arrays import difference, sorted_unique, union

INTEGERS = st.lists(st.integers(-50, 50), max_size=40)
TIMES = st.lists(st.floats(0.0, 1.0, allow_nan=False), max_size=40)


@given(INTEGERS, INTEGERS)
def test_integer_sets_are_numpys(a, b):
    a, b = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    assert np.array_equal(sorted_unique(a), np.unique(a))
    assert np.array_equal(union(a, b), np.union1d(a, b))
    assert np.array_equal(difference(a, b), np.setdiff1d(a, b))


@given(TIMES)
def test_sorted_unique_times_are_numpys(times):
    # -0.0 and 0.0 are one value for both (equal under ==)
    assert np.array_equal(sorted_unique(times), np.unique(np.array(times, dtype=float)))
