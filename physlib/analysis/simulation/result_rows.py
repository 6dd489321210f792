"""The rows of a simulation result as a run produces them, joined once at the end into the
arrays of a :class:`~physlib.analysis.simulation.results.SimulationResult`."""
from __future__ import annotations

import ctypes

import numpy as np


class RowParameters:
    """The parameter vectors of a result's rows, each run of equal ones kept once: ``vectors``
    (one column each) and ``index`` (each row's column). The vector changes only at events, and
    one per row was 38 numbers a row for a Shockley-diode buck: 10,001 rows wrote 3 MB of fresh
    memory three times on their way into the result, 2 ms of its 17 ms run."""

    __slots__ = ("vectors", "index")

    def __init__(self, vectors: np.ndarray, index: np.ndarray):
        self.vectors, self.index = vectors, index

    @classmethod
    def of_columns(cls, P: np.ndarray) -> "RowParameters":
        """The columns of P (a copy of each run of bitwise equal neighbours: -0.0 and NaN are
        kept as they are)."""
        k = P.shape[1]
        if k <= 1:
            return cls(np.array(P, dtype=float, order="F"), np.zeros(k, dtype=np.intp))
        bits = np.asarray(P, dtype=float).view(np.int64)     # (the same itemsize: no copy)
        new = np.empty(k, dtype=bool)
        new[0] = True
        # (a column's count of differing slots: twice as fast as np.any over a column's 38)
        differ = (bits[:, 1:] != bits[:, :-1]).view(np.int8)
        np.not_equal(np.einsum("ij->j", differ, dtype=np.int32, casting="unsafe"), 0, out=new[1:])
        index = np.cumsum(new, dtype=np.intp)
        index -= 1
        return cls(np.asfortranarray(P[:, new]), index)

    @classmethod
    def constant(cls, p: np.ndarray, n: int) -> "RowParameters":
        """``n`` rows sharing the vector p (a copy: a run goes on with its own)."""
        return cls(np.array(p, dtype=float).reshape(-1, 1), np.zeros(n, dtype=np.intp))

    @classmethod
    def placed(cls, n: int, parts) -> "RowParameters":
        """``n`` rows from ``parts`` ((positions, RowParameters) pairs, covering the rows)."""
        index, vectors, offset = np.empty(n, dtype=np.intp), [], 0
        for positions, part in parts:
            index[positions] = part.index + offset
            vectors.append(part.vectors)
            offset += part.vectors.shape[1]
        return cls(np.concatenate(vectors, axis=1) if len(vectors) > 1 else vectors[0], index)

    @classmethod
    def joined(cls, parts) -> "RowParameters":
        """The rows of ``parts`` one after the other."""
        if len(parts) == 1:
            return parts[0]
        ends = np.cumsum([len(part) for part in parts]).tolist()
        return cls.placed(ends[-1], [(slice(end - len(part), end), part) for end, part in zip(ends, parts)])

    def __len__(self) -> int:
        return len(self.index)

    def rows(self, selection) -> "RowParameters":
        """The rows ``selection`` (a slice or indices), sharing the vectors."""
        return RowParameters(self.vectors, self.index[selection])

    def column(self, row: int) -> np.ndarray:
        """Row ``row``'s parameter vector (a view)."""
        return self.vectors[:, self.index[row]]

    def slot(self, slot: int) -> np.ndarray:
        """The value of one parameter slot at every row."""
        return self.vectors[slot, self.index]

    def columns(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The parameter vectors of rows start..stop−1 as columns (a new array)."""
        return self.vectors[:, self.index[start:stop]]


class PendingBlock:
    """Rows being completed elsewhere (in a thread beside the solver): ``rows()`` waits for
    them and gives (times, X, Z, P, t_values) as :meth:`ResultRows.add_block` takes them."""

    def __init__(self, rows):
        self.rows = rows


class ResultRows:
    """The rows of a simulation result, collected as a run produces them: the states,
    algebraic variables and parameter vectors in column blocks (one column per row), joined
    once at the end. ``keep_p`` False: the run's parameter vector cannot change (a model
    without modes), and the rows' are not kept."""

    def __init__(self, nx: int, nz: int, n_p: int = 0, keep_p: bool = True):
        self.sizes = (nx, nz, n_p)
        self.keep_p = keep_p
        # (times, X, Z, P, t_values) blocks in time order (P None where not kept), or
        # PendingBlocks in their place
        self.blocks: list = []
        self._joined = None             # arrays(), once joined

    def add(self, t, x, z, p=None, t_value=None) -> None:
        """A row at time stamp ``t``. ``p``: the parameter vector in force (runs whose modes or
        discrete variables change it keep one per row); ``t_value``: when to evaluate
        time-dependent outputs, if not at ``t`` (just before a time event it is the left limit,
        although the row carries the event's time stamp)."""
        P = RowParameters.constant(p, 1) if p is not None and self.keep_p else None
        self.blocks.append(([t], np.array(x, dtype=float).reshape(-1, 1), np.array(z, dtype=float).reshape(-1, 1),
                            P, [t if t_value is None else t_value]))

    def add_block(self, times, X=None, Z=None, P=None, t_values=None) -> None:
        """Rows at ``times`` (a list or an array), the columns of X (states), Z (algebraic
        variables) and P (their parameter vectors where the run keeps them: columns, or
        :class:`RowParameters`), their outputs evaluated at ``t_values`` (default: the times);
        or a :class:`PendingBlock` alone, read when the rows are joined. The rows keep X, Z and
        P: pass arrays nothing changes afterwards."""
        self.blocks.append(times if isinstance(times, PendingBlock) else
                           (times, X, Z, P if self.keep_p else None, t_values))

    def arrays(self):
        """(times, X, Z, P, t_values): X and Z with one column per row, P the rows'
        :class:`RowParameters` (None where the run keeps none). Joined once (the
        blocks may be joined inside their own arrays, which moves them): later calls give the
        same arrays."""
        if self._joined is None:
            nx, nz, n_p = self.sizes
            blocks = [block.rows() if isinstance(block, PendingBlock) else block for block in self.blocks]
            times = _numbers([block[0] for block in blocks])
            t_values = _numbers([block[0] if block[4] is None else block[4] for block in blocks])
            P = None
            if self.keep_p:
                P = RowParameters.joined([RowParameters.of_columns(b[3]) if isinstance(b[3], np.ndarray) else b[3]
                                          for b in blocks if b[3] is not None] or
                                         [RowParameters(np.empty((n_p, 0)), np.zeros(0, dtype=np.intp))])
            self._joined = (times, _join([b[1] for b in blocks], nx), _join([b[2] for b in blocks], nz),
                            P, t_values)
            self.blocks = []
        return self._joined


def _numbers(parts) -> np.ndarray:
    """The numbers of ``parts`` (lists, and arrays: a block's times) one after the other: the
    lists' gathered in Python (a row at each event), the arrays' joined by NumPy (a 10,001-row
    grid's times, 0.5 ms as Python numbers)."""
    pieces, numbers = [], []
    for part in parts:
        if isinstance(part, np.ndarray):
            if numbers:
                pieces.append(np.array(numbers, dtype=float))
                numbers = []
            pieces.append(part)
        else:
            numbers.extend(part)
    if numbers or not pieces:
        pieces.append(np.array(numbers, dtype=float))
    return np.concatenate(pieces) if len(pieces) > 1 else np.asarray(pieces[0], dtype=float)


def _join(blocks, n):
    """The column blocks side by side, in column-major order: the blocks are (each column a
    row of the solver's, contiguous), so joining them copies memory straight instead of
    transposing 40 MB for a 5,000-state run of 1,001 rows."""
    if not blocks:
        return np.empty((n, 0))
    if len(blocks) == 1 and blocks[0].flags.f_contiguous:     # one block (a run's own array)
        return blocks[0]
    joined = _joined_in_place(blocks, n)
    if joined is not None:
        return joined
    out = np.empty((n, sum(b.shape[1] for b in blocks)), order="F")
    return np.concatenate(blocks, axis=1, out=out)


def _joined_in_place(blocks, n):
    """The blocks joined inside the array the widest of them is a view of, where the others
    fit in its columns beyond and its own views lie in it in their order: a large run's rows
    handed over in the block's array (views of it between the rows held around events, and the
    initial row before them) move right by a few columns there, instead of all going to a new
    array (a million-element ladder's 501 rows: 2 GB of fresh pages, 4.6 of its 11.7 s). None
    where they do not."""
    base = max(blocks, key=lambda b: b.shape[1]).base
    total = sum(b.shape[1] for b in blocks)
    if not (isinstance(base, np.ndarray) and base.ndim == 2 and base.shape[0] == n and n
            and base.flags.f_contiguous and base.dtype == np.float64 and total <= base.shape[1]):
        return None
    column = n * base.itemsize
    moves, at, source_end = [], 0, 0
    for b in blocks:
        if b.base is base:
            start, rest = divmod(b.ctypes.data - base.ctypes.data, column)
            if rest or not b.flags.f_contiguous or start < source_end or start > at:
                return None          # (rows move right only, in their order)
            moves.append((at, start, b.shape[1]))
            source_end = start + b.shape[1]
        at += b.shape[1]
    address = base.ctypes.data
    for to, start, width in reversed(moves):    # the last first: no source is overwritten
        ctypes.memmove(address + to * column, address + start * column, width * column)
    at = 0
    for b in blocks:
        if b.base is not base:
            base[:, at:at + b.shape[1]] = b
        at += b.shape[1]
    return base[:, :total]
