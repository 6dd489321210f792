"""Sorted set operations on arrays, as NumPy's ``unique``, ``union1d`` and ``setdiff1d`` return
them, without the masked-array module: NumPy 2's ``unique`` asks ``np.ma.is_masked`` on its
first call, which imports ``numpy.ma`` (16 ms, a twentieth of a small deck's whole
``python -m physlib.spice`` process). Compiling and simulating need none of it."""
from __future__ import annotations

import numpy as np


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
