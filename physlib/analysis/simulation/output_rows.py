"""Output rows between solver steps, interpolated as the steps pass them and completed in
blocks.

A dense output grid (10,001 rows over a run of a few thousand steps) asks for several rows per
step. Each row is the solver's interpolating polynomial at the output time (y and y' from
``IDAGetSolution``) completed by :func:`~physlib.analysis.simulation.dae_points.
row_between_steps`, which moves the algebraic variables onto the equations. Done one row at a
time, the Python around those two calls cost three times the calls themselves. Here a row
costs one ``IDAGetSolution`` writing straight into a column of a block, beside the parameter
vector it was interpolated with (the modes change at events); the row function runs over all
the block's columns at once (CasADi ``map``) when the block is full and at the end of the
run; the rows recorded meanwhile (at events, at steps) wait among them in time order. A model
without algebraic variables needs no row function: its rows are the polynomial's values. A run whose parameter vector cannot change (a model
without modes) keeps no parameter vector per row: a 10,000-element circuit's is 15,000 numbers.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..common.native_functions import native_twin
from .dae_points import row_between_steps, solved_row
from .stepping_functions import buffered
from ..common.sundials_library import REAL_P

# Rows interpolated before their row function runs: each full block returns from the compiled
# stepping loop and completes its rows in one call; 512 rather than 256 took 2 ms off a 10,001-row
# run of a Shockley-diode buck (35 ms), 1,024 no more.
BLOCK = 512
# Mapped row functions whose block holds at most this many numbers (a model of up to 256
# unknowns) are kept for the model's later runs: making and buffering one per chunk size cost
# a few milliseconds a run, a third of a short run's time.
KEPT_MAP_ENTRIES = 131_072
TWIN_BLOCKS = 2      # full blocks of a model's rows after which its row function is built in C


class RowBlock:
    """The rows interpolated since the last :meth:`flush`, for one
    :class:`~physlib.analysis.simulation.sundials.Stepper` (IDA). ``n_p``: the length of the
    parameter vector kept per row, 0 when the run's cannot change (the stepper's then serves
    every row)."""

    def __init__(self, stepper, n_p: int):
        self.stepper = stepper
        n = stepper.n
        self.P = np.zeros((n_p, BLOCK), order="F")   # the parameter vector of each row
        self.Y = np.zeros((n, BLOCK), order="F")     # columns: y at the rows' times
        self.YP = np.zeros((n, BLOCK), order="F")    # y' there
        self.T = np.zeros(BLOCK)
        self.H = np.zeros(BLOCK)                     # the step each row lies in [s]
        self.count = 0
        # Two SUNDIALS vectors, moved onto each row's columns of Y and YP as it is interpolated:
        # a vector per column cost 1.4 ms a run to make (2·BLOCK of them) beside a 10,001-row
        # run's 33 ms.
        make, ctx = stepper.nvec.N_VMake_Serial, stepper.ctx
        self.vectors = (make(n, self.Y.ctypes.data, ctx), make(n, self.YP.ctypes.data, ctx))
        # the row function mapped over chunks of columns, buffered: kept on the model for its
        # later runs in this thread where their arrays are small (KEPT_MAP_ENTRIES)
        kept = n * BLOCK <= KEPT_MAP_ENTRIES
        self._maps: dict = _thread_maps(stepper.system) if kept else {}
        self._held: list = []           # (positions, times, [x; z], p, t_values) of rows held

    def add(self, times, h: float, p, on_full) -> None:
        """Interpolate the rows at ``times`` (within the solver's last step, of size h [s],
        with parameter vector p); ``on_full()`` is called whenever a row finds the block full
        (it :meth:`flush`-es it). The block may be full already: the compiled stepping loop
        fills it to its last column and can return for a crossing or the target before it
        asks for the next row."""
        stepper = self.stepper
        get_solution, mem, (vy, vyp) = stepper.lib.IDAGetSolution, stepper.mem, self.vectors
        set_pointer, size = stepper.core.N_VSetArrayPointer, stepper.n * self.Y.itemsize
        h = max(h, 1e-300)
        k = first = self.count      # rows first..k-1 are this call's, in step h
        for t in times.tolist():
            if k == BLOCK:
                self.H[first:k] = h
                self.count = k
                on_full()
                k = first = 0
            # (Y is a new array after a hand-over: its address is read for each row)
            set_pointer(ctypes.cast(self.Y.ctypes.data + k * size, REAL_P), vy)
            set_pointer(ctypes.cast(self.YP.ctypes.data + k * size, REAL_P), vyp)
            if get_solution(mem, t, vy, vyp) != 0:
                raise stepper.no_interpolation(t)
            self.T[k] = t
            if self.P.shape[0]:
                self.P[:, k] = p
            k += 1
        self.H[first:k] = h
        self.count = k

    def hold(self, row) -> None:
        """Keep a row (t, x, z, p[, t_value]) recorded after the pending rows (at an event, at
        a step) until they are completed: a copy, as the run goes on with its arrays and modes.
        Completing the rows costs one call of the row function whatever their number, and at
        each event of a switching converter the block holds a row or two."""
        t, x, z, p, *t_value = row
        self.hold_columns([self.count], [t], np.concatenate([x, z])[:, None],
                          np.array(p, dtype=float)[:, None], [t_value[0] if t_value else t])

    def hold_columns(self, positions, times, Y, P, t_values) -> None:
        """Keep rows given as columns (Y: [x; z], P: their parameter vectors), each after the
        first ``positions[k]`` pending rows (in the order given where positions are equal), with
        the times ``t_values`` at which their outputs are evaluated: the rows around the time
        events a compiled loop took, in one piece. The arrays are kept: pass new ones."""
        self._held.append((np.asarray(positions), np.asarray(times, dtype=float), Y, P,
                           np.asarray(t_values, dtype=float)))

    def flush(self, record_block) -> None:
        """Complete the pending rows and pass them, with the rows held among them in time
        order, to ``record_block(times, X, Z, P, t_values)`` (columns: rows; P their parameter
        vectors, None when none are kept; t_values None when they are the times)."""
        k, nx = self.count, self.stepper.nx
        if not k:
            return
        self.count = 0
        held, self._held = self._held, []
        # Completed in chunks of BLOCK, BLOCK/2, ... rows (one call of a mapped row function
        # each), then the held rows put in among them.
        chunks, done, size = [], 0, BLOCK
        while done < k:
            while size > k - done:
                size //= 2
            chunks.append((done, self._complete(done, size)))
            done += size
        keep_p = self.P.shape[0] > 0
        if not held:
            for first, X in chunks:
                b = first + X.shape[1]
                record_block(self.T[first:b].tolist(), X[:nx], X[nx:],
                             self.P[:, first:b].copy(order="F") if keep_p else None)
            return
        X = chunks[0][1] if len(chunks) == 1 else np.concatenate([X for _, X in chunks], axis=1)
        positions, times, Y, P, t_values = (np.concatenate([h[i] for h in held], axis=-1) for i in range(5))
        order = np.argsort(positions, kind="stable")
        positions, times, Y, P, t_values = positions[order], times[order], Y[:, order], P[:, order], t_values[order]
        # held row j goes after the block's first positions[j] rows and the held rows before it
        m = len(positions)
        to_held = positions + np.arange(m)
        to_block = np.arange(k) + np.searchsorted(positions, np.arange(k), side="right")
        out = np.empty((X.shape[0], k + m), order="F")
        out[:, to_block], out[:, to_held] = X, Y
        T, TV = np.empty(k + m), np.empty(k + m)
        T[to_block], T[to_held] = self.T[:k], times
        TV[to_block], TV[to_held] = self.T[:k], t_values
        rows_p = None
        if keep_p:
            rows_p = np.empty((self.P.shape[0], k + m), order="F")
            rows_p[:, to_block], rows_p[:, to_held] = self.P[:, :k], P
        record_block(T.tolist(), out[:nx], out[nx:], rows_p, TV.tolist())

    def _complete(self, start: int, size: int) -> np.ndarray:
        """Rows start..start+size−1 through the row function, mapped over the columns: the
        completed [x; z] as columns (a copy). A column the function could not complete
        (not finite, not converged, or a failed run-time solve) is solved again from its
        interpolated values (:func:`~.dae_points.solved_row`), as
        :meth:`Stepper.at <physlib.analysis.simulation.sundials.Stepper.at>` does. Without
        algebraic variables the rows are the interpolated states. Copies keep the columns
        contiguous (column-major, order="F"), as the result joins them: a row-major copy of
        a 5,000-state block made the join transpose it, 10-120 ms for a 1,001-row run."""
        stop = start + size
        if not self.stepper.nz:
            return self._hand_over() if size == BLOCK else self.Y[:, start:stop].copy(order="F")
        buffer, trigger, inputs, (out, check) = self._map(size)
        inputs[0][:] = self.Y[:, start:stop].ravel(order="F")
        inputs[1][:] = self.YP[:, start:stop].ravel(order="F")
        inputs[2][:] = self.P[:, start:stop].ravel(order="F") if self.P.shape[0] else np.tile(self.stepper.p, size)
        inputs[3][:] = self.T[start:stop]
        inputs[4][:] = self.H[start:stop]
        trigger()
        n = self.stepper.n
        X = out.reshape(size, n).T.copy(order="F")
        failed = check != 0.0
        if self.stepper.row_solves_at_run_time and buffer.ret() != 0:
            failed[:] = True
        for k in np.flatnonzero(failed):
            p = self.P[:, start + k] if self.P.shape[0] else self.stepper.p
            X[:, k] = solved_row(self.stepper.system, self.Y[:, start + k], p, self.T[start + k])
        return X

    def _hand_over(self) -> np.ndarray:
        """The full block's Y itself, a fresh one taking its place (the rows' vectors are
        moved onto its columns as they come): a 5,000-state model's rows are not copied once
        more on their way into the result."""
        full, self.Y = self.Y, np.empty_like(self.Y, order="F")
        return full

    def _map(self, size: int):
        row, native = self._row_function(size)
        mapped = self._maps.get((size, native))
        if mapped is None:
            # rtol and atol are shared by the columns; y, y', p, t and h are per column.
            function = row.map(f"rows_{size}", "serial", size, [5, 6], [])
            mapped = self._maps[size, native] = buffered(function)
        mapped[2][5][0], mapped[2][6][0] = self.stepper.rtol, self.stepper.atol
        return mapped

    def _row_function(self, size: int):
        """The row function, and whether it is its C twin (the same numbers bit for bit, 5–7×
        faster: :mod:`~physlib.analysis.common.native_functions`). The twin is asked for once
        the model's runs have filled TWIN_BLOCKS blocks (dense output grids; a few hundred rows
        are not worth a build) and serves from when it is built: at once where a run of the
        same model structure built it before, else once the background build is done."""
        system = self.stepper.system
        row = row_between_steps(system)
        twin = system.cache.get("row_between_steps_native")
        if twin is None and size == BLOCK:
            blocks = system.cache["row_blocks"] = system.cache.get("row_blocks", 0) + 1
            if blocks >= TWIN_BLOCKS:
                twin = system.cache["row_between_steps_native"] = native_twin(row, "rows") or False
        native = twin.function() if twin else None
        return (row, False) if native is None else (native, True)

    def close(self, destroy) -> None:
        for vector in self.vectors:
            destroy(vector)
        self.vectors = ()


def _thread_maps(system) -> dict:
    """The buffered mapped row functions of ``system`` kept for this thread (buffers are a
    thread's own: two runs of one model in two threads each evaluate their own)."""
    local = system.cache.get("row_maps")
    if local is None:
        local = system.cache.setdefault("row_maps", threading.local())
    maps = getattr(local, "maps", None)
    if maps is None:
        maps = local.maps = {}
    return maps
