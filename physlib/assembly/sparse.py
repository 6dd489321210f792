"""Sparse matrices as plain NumPy arrays, for the compiler.

The compiler's sparse work is structural: incidence patterns of equations over unknowns, a few
linear rows with coefficients (connection sums), connected components of connection and alias
graphs (:func:`physlib.core.arrays.connected_components`). :class:`CSR` holds a matrix in
compressed rows and does what the passes ask of it with whole-array NumPy operations, so
compiling a model loads nothing beyond NumPy and CasADi
(SciPy's sparse package costs a third of a second to import, more than a small model's whole
compile); :mod:`physlib.assembly.matching` does the matching and the block order on it.
"""
from __future__ import annotations

import casadi as cs
import numpy as np


def ragged_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])`` without a loop."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(np.asarray(starts, dtype=np.int64) - offsets, lengths) + np.arange(total)


def in_order(rows, cols) -> bool:
    """Whether the entries (rows[k], cols[k]) are sorted by row, then column, each once."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    if len(rows) < 2:
        return True
    later = rows[1:] > rows[:-1]
    later |= (rows[1:] == rows[:-1]) & (cols[1:] > cols[:-1])
    return bool(later.all())


def entry_order(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The order that sorts the entries (rows[k], cols[k]) by row, then column (stable)."""
    rows = np.asarray(rows, dtype=np.int64)
    return np.argsort(rows * (int(np.max(cols, initial=-1)) + 1) + cols, kind="stable")


class CSR:
    """A sparse matrix in compressed rows: row ``i`` holds the columns
    ``indices[indptr[i]:indptr[i + 1]]`` (ascending, each once) with the values ``data`` at
    the same places; ``data`` is None for a pattern (an incidence matrix)."""

    __slots__ = ("indptr", "indices", "data", "shape")

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data, shape: tuple[int, int]):
        self.indptr, self.indices, self.data, self.shape = indptr, indices, data, (int(shape[0]), int(shape[1]))

    @classmethod
    def from_entries(cls, rows, cols, shape, data=None) -> CSR:
        """The matrix with ``data[k]`` at ``(rows[k], cols[k])``: values at the same place are
        summed and entries that sum to zero dropped (a pattern, ``data`` None, keeps every
        place once)."""
        n_rows, n_cols = int(shape[0]), int(shape[1])
        if data is None and in_order(rows, cols):
            # a pattern given in order (the passes make them): its rows' lengths are all there
            # is to compute (no keys: a million-element model's patterns have 7 million entries)
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            if len(rows):
                np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
            return cls(indptr, np.asarray(cols, dtype=np.int64), None, (n_rows, n_cols))
        key = np.asarray(rows, dtype=np.int64) * n_cols + np.asarray(cols, dtype=np.int64)
        order = np.argsort(key, kind="stable")      # runs of sorted keys: the passes make them
        key = key[order]
        first = np.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        if data is not None:
            data = np.add.reduceat(np.asarray(data, dtype=float)[order], np.flatnonzero(first)) \
                if len(key) else np.zeros(0)
            key = key[first][data != 0]
            data = data[data != 0]
        else:
            key = key[first]
        row = key // max(n_cols, 1)
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=n_rows), out=indptr[1:])
        return cls(indptr, key - row * n_cols, data, (n_rows, n_cols))

    @property
    def nnz(self) -> int:
        return len(self.indices)

    def row_of_entries(self) -> np.ndarray:
        """The row of each stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))

    def row(self, i: int) -> np.ndarray:
        """The columns of row ``i``."""
        return self.indices[self.indptr[i]:self.indptr[i + 1]]

    def rows(self, selection) -> CSR:
        """The rows ``selection`` (in that order) as a matrix of their own."""
        selection = np.asarray(selection, dtype=np.int64).reshape(-1)
        starts = self.indptr[selection]
        lengths = self.indptr[selection + 1] - starts
        at = ragged_ranges(starts, lengths)
        indptr = np.zeros(len(selection) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return CSR(indptr, self.indices[at], None if self.data is None else self.data[at],
                   (len(selection), self.shape[1]))

    def transpose(self) -> CSR:
        """The transposed matrix (its rows in ascending order of this one's)."""
        order = np.argsort(self.indices, kind="stable")
        indptr = np.zeros(self.shape[1] + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.indices, minlength=self.shape[1]), out=indptr[1:])
        return CSR(indptr, self.row_of_entries()[order], None if self.data is None else self.data[order],
                   (self.shape[1], self.shape[0]))

    def contains(self, rows, cols) -> np.ndarray:
        """Whether ``(rows[k], cols[k])`` is an entry, for each k."""
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        keys = self.row_of_entries() * self.shape[1] + self.indices     # ascending
        wanted = rows * self.shape[1] + cols
        at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
        return (keys[at] == wanted) if len(keys) else np.zeros(len(wanted), dtype=bool)

    def sparsity(self) -> cs.Sparsity:
        """The pattern as a CasADi Sparsity (CasADi stores columns: built as the transpose's)."""
        return cs.Sparsity(self.shape[1], self.shape[0], self.indptr.tolist(), self.indices.tolist()).T

    def to_dm(self) -> cs.DM:
        """The matrix as a CasADi DM (from the arrays: ``casadi.DM`` of a list of lists or of
        triplets takes ten times longer)."""
        columns = self.transpose()
        pattern = cs.Sparsity(self.shape[0], self.shape[1], columns.indptr.tolist(), columns.indices.tolist())
        return cs.DM(pattern, columns.data.tolist())


def dm_to_csr(matrix: cs.DM) -> CSR:
    """A CasADi DM as a :class:`CSR` (its stored entries, zeros dropped)."""
    rows, cols = matrix.sparsity().get_triplet()
    return CSR.from_entries(rows, cols, matrix.shape, np.array(matrix.nonzeros(), dtype=float))
