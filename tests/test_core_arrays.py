"""physlib.core.arrays against the NumPy set functions it stands in for (without numpy.ma), and
``positions_of`` against a dictionary."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from physlib.core.arrays import difference, positions_of, sorted_unique, union

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


@given(st.lists(st.text(min_size=1, max_size=3), unique=True, max_size=30), st.data())
def test_positions_of_is_a_dictionarys(keys, data):
    # The same objects as the keys (found by address) mixed with equal copies (by equality):
    # both give the dictionary's answer.
    picks = data.draw(st.lists(st.tuples(st.integers(0, max(len(keys) - 1, 0)), st.booleans()),
                               max_size=60 if keys else 0))
    wanted = [keys[i] if same else "".join(list(keys[i])) + "" for i, same in picks]
    wanted = [w if same else w.encode().decode() for w, (_, same) in zip(wanted, picks)]
    index = {k: i for i, k in enumerate(keys)}
    assert positions_of(keys, wanted).tolist() == [index[w] for w in wanted]


def test_positions_of_finds_equal_copies_and_refuses_strangers():
    keys = [f"R{k}" for k in range(1000)]
    copies = [f"R{k}" for k in (5, 999, 0)]          # equal strings, other objects
    assert not any(c is keys[int(c[1:])] for c in copies)
    assert positions_of(keys, [keys[7], *copies, keys[7]]).tolist() == [7, 5, 999, 0, 7]
    with pytest.raises(KeyError):
        positions_of(keys, [keys[1], "C1"])
    with pytest.raises(KeyError):
        positions_of([], ["R1"])
    assert positions_of(keys, []).size == 0
