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
without algebraic variables needs no row function: its rows are the polynomial's values. A run
whose parameter vector cannot change (a model without modes) keeps no parameter vector per row:
a 10,000-element circuit's is 15,000 numbers.

On a machine with two or more processors, a small model's full blocks (up to 256 unknowns, a
row function of ROW_THREAD_INSTRUCTIONS operations or more) are completed in the row thread,
one worker beside the run, while the solver steps on: the row function and the compiled
stepping loop both run with Python's lock released. The result joins their rows at the end
of the run (:class:`~.result_rows.PendingBlock`). A Shockley-diode buck's 10,001 rows took
its run from 20 to 32 ms in the run's own thread, to 24.5 ms beside it. The rows are the same
numbers either way: the thread only evaluates; the mapped functions are made in the run's
thread (CasADi makes functions with Python's lock released, and two threads making them at
once share the reference counts of its graphs), and so are the rows the row function could
not complete (their Newton solve may make functions).
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import NamedTuple

import numpy as np

from ..common.native_functions import native_twin
from .dae_points import row_between_steps, solved_row
from .result_rows import PendingBlock, RowParameters
from .stepping_functions import buffered
from ..common.sundials_library import REAL_P

# Rows interpolated before their row function runs: each full block returns from the compiled
# stepping loop and completes its rows in one call. 512 rather than 256 took 2 ms off a
# 10,001-row run of a Shockley-diode buck (35 ms); once the rows' parameter vectors were kept
# once per run of equal ones, 1,024 took another 1.5 ms off its 21 (fewer returns from the
# loop and hand-overs to the row thread), and 0.6 ms off a rectifier's 33; 2,048 no more.
BLOCK = 1024
# Mapped row functions whose block holds at most this many numbers (a model of up to 256
# unknowns) are kept for the model's later runs: making and buffering one per chunk size cost
# a few milliseconds a run, a third of a short run's time.
KEPT_MAP_ENTRIES = 256 * BLOCK
# Rows of a model without algebraic variables (its rows are the interpolated states, nothing to
# complete) are handed over with the block's own array from this many numbers on, not copied:
# a million-element ladder's 501 default rows are 2 GB, and each copy of them took 2 GB of
# fresh pages (its run 22.6 s, 18 s of it the kernel's clearing them). Below, the copy is
# cheap and keeps no array of BLOCK columns for a few rows.
HAND_OVER_ENTRIES = 2**20
TWIN_BLOCKS = 2      # full blocks of a model's rows after which its row function is built in C
# Whether small models' rows are completed in a thread beside the solver (on two or more cores),
# where their row function has this many operations at least: handing a block over costs about
# 0.1 ms, a row of 122 operations (a rectifier's ideal diode) 0.15 µs: its run took 1.17x the
# default grid's time with 10,001 rows in its own thread, 1.2-1.26x beside it; an ideal buck's
# 505 went from 1.1x to 1.05x, a Shockley buck's 822 from 1.6x to 1.2x.
ROW_THREAD = True
ROW_THREAD_INSTRUCTIONS = 256


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
        # y' there; a model without algebraic variables reads none (its rows are the states):
        # one column takes each row's (a million-element ladder's 501 rows wrote 2 GB of it)
        self.YP = np.zeros((n, BLOCK if stepper.nz else 1), order="F")
        self.T = np.zeros(BLOCK)
        self.H = np.zeros(BLOCK)                     # the step each row lies in [s]
        self.count = 0
        # Two SUNDIALS vectors, moved onto each row's columns of Y and YP as it is interpolated:
        # a vector per column cost 1.4 ms a run to make (2·BLOCK of them) beside a 10,001-row
        # run's 33 ms.
        make, ctx = stepper.nvec.N_VMake_Serial, stepper.ctx
        self.vectors = (make(n, self.Y.ctypes.data, ctx), make(n, self.YP.ctypes.data, ctx))
        # the row function mapped over chunks of columns, buffered: kept on the model for its
        # later runs in the thread that evaluates them where their arrays are small
        # (KEPT_MAP_ENTRIES)
        self._kept = n * BLOCK <= KEPT_MAP_ENTRIES
        self._maps: dict = {}
        self._row_solves = None         # whether the row function solves at run time
        # Whether a small model's full blocks are completed in the row thread while the solver
        # steps on (see the module's notes): None until the first full block decides it by the
        # length of the row function, False where they never are.
        self.background = None if stepper.nz and self._kept and ROW_THREAD and _cores() > 1 else False
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
        yp_size = size if stepper.nz else 0     # (see YP)
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
            set_pointer(ctypes.cast(self.YP.ctypes.data + k * yp_size, REAL_P), vyp)
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
                          RowParameters.constant(p, 1), [t_value[0] if t_value else t])

    def hold_columns(self, positions, times, Y, P, t_values) -> None:
        """Keep rows given as columns (Y: [x; z], P: their parameter vectors as
        :class:`~.result_rows.RowParameters`), each after the first ``positions[k]`` pending rows
        (in the order given where positions are equal), with the times ``t_values`` at which
        their outputs are evaluated: the rows around the time events a compiled loop took, in one
        piece. The arrays are kept: pass new ones."""
        self._held.append((np.asarray(positions), np.asarray(times, dtype=float), Y, P,
                           np.asarray(t_values, dtype=float)))

    def flush(self, record_block) -> None:
        """Complete the pending rows and pass them, with the rows held among them in time
        order, to ``record_block(times, X, Z, P, t_values)`` (columns: rows; P their parameter
        vectors, None when none are kept; t_values None when they are the times). A full block
        of a small model is completed in the row thread while the run goes on: it is passed as
        ``record_block(PendingBlock)``, whose ``rows()`` gives those five when they are done.
        The rows of a model without algebraic variables are its states as interpolated: they
        are passed as they are, in pieces around the held rows (:func:`_state_pieces`)."""
        k = self.count
        if not k:
            return
        self.count = 0
        held, self._held = self._held, []
        # Only a full block goes to the row thread: the run waits for the rows of its last,
        # partial one at once.
        if self.background is None and k == BLOCK:
            self.background = row_between_steps(self.stepper.system).n_instructions() >= ROW_THREAD_INSTRUCTIONS
        background = bool(self.background) and k == BLOCK
        rows = self._take(k, background)
        if not self.stepper.nz:         # the rows are the interpolated states, in place
            for piece in _state_pieces(rows, held, self.stepper.nx):
                record_block(*piece)
            return
        # The mapped row functions are made here: CasADi builds functions with Python's lock
        # released, and two threads building at once share its graphs' reference counts.
        chunks = self._chunks(k, background)
        if background:
            job = _row_thread().submit(self._block, rows, held, chunks)
            record_block(PendingBlock(lambda: self._finished(*job.result())))
        else:
            record_block(*self._finished(*self._block(rows, held, chunks)))

    def _block(self, rows: "_Rows", held: list, chunks: list) -> tuple:
        """(times, [x; z], P, t_values, failed) of the rows, the held rows put in among them
        (P None where the run keeps no parameter vectors, t_values None when they are the
        times; failed: :meth:`_completed`). Only evaluates: may run in the row thread."""
        k = len(rows.T)
        if not held:
            out, failed = self._completed(rows, slice(0, k), None, chunks)
            return rows.T, out, rows.P, None, failed
        positions, held_times, Y, held_t = (np.concatenate([h[i] for h in held], axis=-1) for i in (0, 1, 2, 4))
        order = np.argsort(positions, kind="stable")
        positions = positions[order]
        # held row j goes after the block's first positions[j] rows and the held rows before it
        m = len(positions)
        to_held = positions + np.arange(m)
        place = np.arange(k) + np.searchsorted(positions, np.arange(k), side="right")
        T, TV = np.empty(k + m), np.empty(k + m)
        T[place], T[to_held] = rows.T, held_times[order]
        TV[place], TV[to_held] = rows.T, held_t[order]
        P = None
        if rows.P is not None:
            P = RowParameters.placed(k + m, [(place, rows.P),
                                             (to_held, RowParameters.joined([h[3] for h in held]).rows(order))])
        out, failed = self._completed(rows, place, (to_held, Y[:, order]), chunks)
        return T, out, P, TV, failed

    def _take(self, k: int, background: bool) -> "_Rows":
        """Rows 0..k−1 in arrays the block no longer writes: Y (and Y') handed over, fresh
        arrays taking their place (the rows' vectors are moved onto the columns as they come),
        where the rows are completed later (``background``: in the row thread) or need no
        completion (a model without algebraic variables) and the block is full or holds
        ``HAND_OVER_ENTRIES`` numbers (a 5,000-state model's rows are not copied once more on
        their way into the result); views where they are completed now, a copy of a smaller
        partial block without completion. Their times, steps and parameter vectors are copied
        (the compiled loop writes into the block's own)."""
        stepper = self.stepper
        if background or (not stepper.nz and (k == BLOCK or stepper.n * k >= HAND_OVER_ENTRIES)):
            Y, self.Y = self.Y[:, :k], np.empty_like(self.Y, order="F")
            YP = None
            if stepper.nz:
                YP, self.YP = self.YP[:, :k], np.empty_like(self.YP, order="F")
        elif stepper.nz:
            Y, YP = self.Y[:, :k], self.YP[:, :k]
        else:
            Y, YP = self.Y[:, :k].copy(order="F"), None
        P = RowParameters.of_columns(self.P[:, :k]) if self.P.shape[0] else None
        return _Rows(Y, YP, P, self.T[:k].copy(), self.H[:k].copy(), np.array(stepper.p, dtype=float),
                     stepper.rtol, stepper.atol)

    def _chunks(self, k: int, background: bool) -> list:
        """(first row, rows, buffered mapped row function or None) of the chunks of BLOCK,
        BLOCK/2, ... rows that complete k rows (one call each), the functions those of the
        row thread where ``background``; no function for a model without algebraic variables,
        whose rows are the interpolated states."""
        chunks, done, size = [], 0, BLOCK
        while done < k:
            while size > k - done:
                size //= 2
            chunks.append((done, size, self._map(size, background) if self.stepper.nz else None))
            done += size
        return chunks

    def _completed(self, rows: "_Rows", place, extra, chunks) -> tuple:
        """(out, failed): the rows' completed [x; z] as the columns ``place`` of a new array,
        the held rows (``extra``: their columns and [x; z]) in theirs, and the rows the row
        function could not complete as (column, y, p, t) (:meth:`_finished`). Only
        evaluates: may run in the row thread."""
        n, k = self.stepper.n, rows.Y.shape[1]
        out = np.empty((n, k + (0 if extra is None else len(extra[0]))), order="F")
        if extra is not None:
            out[:, extra[0]] = extra[1]
        failed = []
        for start, size, mapped in chunks:
            columns = slice(start, start + size) if extra is None else place[start:start + size]
            out[:, columns], failures = _complete(mapped, rows, start, size, self._row_solves)
            failed += [(columns.start + j if extra is None else columns[j], rows.Y[:, start + j],
                        rows.P.column(start + j) if rows.P is not None else rows.p, rows.T[start + j])
                       for j in failures]
        return out, failed

    def _finished(self, times, out, P, t_values, failed) -> tuple:
        """``record_block``'s (times, X, Z, P, t_values) from :meth:`_block`'s answer, the rows
        the row function could not complete (not finite, not converged, or a failed run-time
        solve) solved again from their interpolated values (:func:`~.dae_points.solved_row`),
        as :meth:`Stepper.at <physlib.analysis.simulation.sundials.Stepper.at>` does: in the
        run's thread, as the solve may build functions."""
        for column, y, p, t in failed:
            out[:, column] = solved_row(self.stepper.system, y, p, t)
        nx = self.stepper.nx
        return times, out[:nx], out[nx:], P, t_values

    def _map(self, size: int, background: bool):
        row, native = self._row_function(size)
        system = self.stepper.system
        if background:
            maps = system.cache.setdefault("row_thread_maps", {})
        else:
            maps = _thread_maps(system) if self._kept else self._maps
        mapped = maps.get((size, native))
        if mapped is None:
            # rtol and atol are shared by the columns; y, y', p, t and h are per column.
            function = row.map(f"rows_{size}", "serial", size, [5, 6], [])
            mapped = maps[size, native] = buffered(function)
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
        if self._row_solves is None:
            self._row_solves = not row.is_a("SXFunction")      # whether it can fail (SX ones cannot)
        return (row, False) if native is None else (native, True)

    def close(self, destroy) -> None:
        for vector in self.vectors:
            destroy(vector)
        self.vectors = ()


def _state_pieces(rows: "_Rows", held: list, nx: int):
    """``record_block``'s (times, X, Z, P, t_values) of the rows of a model without algebraic
    variables, in time order: runs of the block's rows (views of its columns, not copied) and
    the held rows between them (each after the first ``positions`` rows of the block)."""
    parts = [(position, k, h) for h in held for k, position in enumerate(h[0].tolist())]
    parts.sort(key=lambda part: part[0])            # stable: rows held at one place in order
    start, n_rows = 0, len(rows.T)

    def run(stop):
        P = rows.P.rows(slice(start, stop)) if rows.P is not None else None
        return rows.T[start:stop], rows.Y[:, start:stop], rows.Y[nx:, start:stop], P, None

    for position, k, (_, times, Y, P, t_values) in parts:
        if position > start:
            yield run(position)
            start = position
        yield ([float(times[k])], Y[:, k:k + 1], Y[nx:, k:k + 1],
               None if rows.P is None else P.rows(slice(k, k + 1)), [float(t_values[k])])
    if start < n_rows:
        yield run(n_rows)


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


def _complete(mapped, rows: "_Rows", start: int, size: int, solves: bool):
    """Rows start..start+size−1 through ``mapped`` (the row function mapped over ``size``
    columns, buffered): (their completed [x; z] as rows of the buffer's output, transposed, not
    copied; the indices among them of the rows it could not complete, not finite or not
    converged, or all where a run-time solve (``solves``) failed). The caller copies them into
    a column-major array, as the result joins its blocks: a row-major copy of a 5,000-state
    block made the join transpose it, 10-120 ms for a 1,001-row run."""
    stop = start + size
    buffer, trigger, inputs, (out, check) = mapped
    inputs[0][:] = rows.Y[:, start:stop].ravel(order="F")
    inputs[1][:] = rows.YP[:, start:stop].ravel(order="F")
    inputs[2][:] = rows.P.columns(start, stop).ravel(order="F") if rows.P is not None else np.tile(rows.p, size)
    inputs[3][:] = rows.T[start:stop]
    inputs[4][:] = rows.H[start:stop]
    inputs[5][0], inputs[6][0] = rows.rtol, rows.atol
    trigger()
    failed = check != 0.0
    if solves and buffer.ret() != 0:
        failed[:] = True
    return out.reshape(size, -1).T, np.flatnonzero(failed)


class _Rows(NamedTuple):
    """Interpolated rows taken from a block: y and y' (columns), their parameter vectors
    (:class:`~.result_rows.RowParameters`; None where the run's cannot change: then ``p``
    serves every row), times and solver steps, and the run's tolerances."""
    Y: np.ndarray
    YP: np.ndarray | None
    P: RowParameters | None
    T: np.ndarray
    H: np.ndarray
    p: np.ndarray
    rtol: float
    atol: float


def _cores() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_row_threads: dict = {}
_row_threads_lock = threading.Lock()


def _row_thread():
    """The process's row thread (a one-worker executor), started on first use; a forked
    child starts its own (a parent's worker thread does not exist in it)."""
    with _row_threads_lock:
        executor = _row_threads.get(os.getpid())
        if executor is None:
            from concurrent.futures import ThreadPoolExecutor
            executor = _row_threads[os.getpid()] = ThreadPoolExecutor(1, thread_name_prefix="physlib-rows")
        return executor
