"""The rows of a simulation result as a run produces them, joined once at the end into the
arrays of a :class:`~physlib.analysis.simulation.results.SimulationResult`."""
from __future__ import annotations

import numpy as np


class ResultRows:
    """The rows of a simulation result, collected as a run produces them: the states,
    algebraic variables and parameter vectors in column blocks (one column per row), joined
    once at the end. ``keep_p`` False: the run's parameter vector cannot change (a model
    without modes), and the rows' are not kept."""

    def __init__(self, nx: int, nz: int, n_p: int = 0, keep_p: bool = True):
        self.sizes = (nx, nz, n_p)
        self.keep_p = keep_p
        self.times, self.xs, self.zs, self.ps, self.t_values = [], [], [], [], []

    def add(self, t, x, z, p=None, t_value=None) -> None:
        """A row at time stamp ``t``. ``p``: the parameter vector in force (runs whose modes or
        discrete variables change it keep one per row); ``t_value``: when to evaluate
        time-dependent outputs, if not at ``t`` (just before a time event it is the left limit,
        although the row carries the event's time stamp)."""
        self.times.append(t)
        self.xs.append(np.array(x, dtype=float).reshape(-1, 1))
        self.zs.append(np.array(z, dtype=float).reshape(-1, 1))
        if p is not None and self.keep_p:
            self.ps.append(np.array(p, dtype=float).reshape(-1, 1))
        self.t_values.append(t if t_value is None else t_value)

    def add_block(self, times, X, Z, P=None, t_values=None) -> None:
        """Rows at ``times``, the columns of X (states), Z (algebraic variables) and P (their
        parameter vectors, where the run keeps them), their outputs evaluated at ``t_values``
        (default: the times). The rows keep X, Z and P: pass arrays nothing changes afterwards."""
        self.times.extend(times)
        self.t_values.extend(times if t_values is None else t_values)
        self.xs.append(X)
        self.zs.append(Z)
        if P is not None and self.keep_p:
            self.ps.append(P)

    def arrays(self):
        """(times, X, Z, P, t_values): X, Z and P with one column per row."""
        nx, nz, n_p = self.sizes
        return (np.array(self.times), _join(self.xs, nx), _join(self.zs, nz), _join(self.ps, n_p),
                np.array(self.t_values))


def _join(blocks, n):
    """The column blocks side by side, in column-major order: the blocks are (each column a
    row of the solver's, contiguous), so joining them copies memory straight instead of
    transposing 40 MB for a 5,000-state run of 1,001 rows."""
    if not blocks:
        return np.empty((n, 0))
    out = np.empty((n, sum(b.shape[1] for b in blocks)), order="F")
    return np.concatenate(blocks, axis=1, out=out)
