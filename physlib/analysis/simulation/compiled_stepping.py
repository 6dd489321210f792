"""The stepping loop of a hybrid run between events in C (``physlib_advance`` of
``c/sundials_callbacks.c``), for IDA runs with algebraic variables.

Between two events a run takes IDA's internal steps one at a time; after each it evaluates the
guards and their crossing test and interpolates the output rows the step passed
(:meth:`_HybridRun._run_to <physlib.analysis.simulation.hybrid_simulation._HybridRun>`). In
Python each step cost about 10 µs around 3 µs of SUNDIALS' own work. The C loop does the same
steps with the same compiled functions (the guards' step check as a CasADi FunctionBuffer, the
rows by ``IDAGetSolution`` into the columns of the run's
:class:`~physlib.analysis.simulation.output_rows.RowBlock`) and comes back to Python only for
what needs it: a crossing (the event is located and handled in Python), the target, a full
row block, an output time exactly at a step, a failed step, or every YIELD_STEPS steps (the
progress line, the step limit). A time event it reaches it takes itself where the event takes
its quick course (:mod:`.compiled_time_events`), and runs on to the next.
Where the C library is unavailable (see :mod:`.callbacks`) the Python loop runs instead.
"""
from __future__ import annotations

import ctypes
import time

import numpy as np

from .callbacks import buffer_address, function_address, library
from .compiled_time_events import CompiledTimeEvents, Course

YIELD_STEPS = 1000       # steps the C loop takes before it reports back

# physlib_advance's answers (enum in c/sundials_callbacks.c)
REACHED, CROSSED, BLOCK_FULL, ROW_AT_STEP, STALLED, YIELD, NO_INTERPOLATION, EVENTS_FULL = range(8)

P = ctypes.c_void_p


class Run(ctypes.Structure):
    """The C struct ``PhyslibRun``, field for field."""
    _fields_ = [("eval", P), ("array", P), ("mem", P), ("solve", P), ("get_solution", P),
                ("get_last_step", P), ("y", P), ("yp", P), ("n", ctypes.c_long), ("nx", ctypes.c_long),
                ("check", P), ("check_x", P), ("check_z", P), ("check_t", P), ("g_ref", P), ("mask", P),
                ("any", P), ("watched", P), ("watched_mask", P), ("n_guards", ctypes.c_long),
                ("grid", P), ("n_grid", ctypes.c_long), ("next_output", ctypes.c_long), ("set_array", P),
                ("row_vy", P), ("row_vyp", P), ("row_y", P), ("row_yp", P), ("row_t", P), ("row_h", P),
                ("row_p", P), ("p", P),
                ("n_p", ctypes.c_long), ("rows", ctypes.c_long), ("row_capacity", ctypes.c_long),
                ("target", ctypes.c_double), ("below", ctypes.c_double), ("t_prev", ctypes.c_double),
                ("t_now", ctypes.c_double), ("pending", ctypes.c_int),
                ("steps", ctypes.c_long), ("steps_since_output", ctypes.c_long),
                ("yield_steps", ctypes.c_long), ("stepped", ctypes.c_int), ("course", ctypes.POINTER(Course))]


class CompiledStepping:
    """physlib_advance bound to one run: its solver, step check, output grid and row block."""

    @staticmethod
    def for_run(run):
        """The compiled loop for ``run`` (a ``_HybridRun``), or None where it does not apply
        (CVODE, a model without states, no C library)."""
        solver = run.solver
        if getattr(solver, "row_block", None) is None or not solver.ida:
            return None
        loaded = library()
        return None if loaded is None else CompiledStepping(run, *loaded)

    def __init__(self, run, lib, evaluate):
        self.run, self.advance = run, lib.physlib_advance
        self.advance.restype, self.advance.argtypes = ctypes.c_int, [ctypes.POINTER(Run)]
        solver, block = run.solver, run.solver.row_block
        self.check = run.stepper.check_buffers()
        buffer, _, inputs, outputs = self.check
        self.grid = np.ascontiguousarray(run.grid, dtype=float)
        ida = solver.lib
        c = self.c = Run(eval=evaluate, array=function_address(solver.core.N_VGetArrayPointer), mem=solver.mem,
                         solve=function_address(ida.IDASolve), get_solution=function_address(ida.IDAGetSolution),
                         get_last_step=function_address(ida.IDAGetLastStep), y=solver.y, yp=solver.yp,
                         n=solver.n, nx=solver.nx, check=buffer_address(buffer),
                         n_guards=len(outputs[0]), grid=self.grid.ctypes.data, n_grid=len(self.grid),
                         yield_steps=YIELD_STEPS)
        c.check_x, c.check_z, c.check_t, c.g_ref, c.mask = (inputs[k].ctypes.data for k in (0, 1, 3, 4, 5))
        c.any, c.watched, c.watched_mask = (outputs[k].ctypes.data for k in (2, 3, 4))
        c.set_array = function_address(solver.core.N_VSetArrayPointer)
        c.row_vy, c.row_vyp = block.vectors
        c.row_t, c.row_h, c.row_p = block.T.ctypes.data, block.H.ctypes.data, block.P.ctypes.data
        # the check's p (the run's modes), copied per row where the block keeps one per row
        c.p, c.n_p = inputs[2].ctypes.data, block.P.shape[0]
        self._ref = ctypes.byref(c)
        # the time events the loop may take itself
        self.time_events = CompiledTimeEvents(run) if run.time_events else None

    def call(self, target: float) -> int:
        """One call of the C loop towards ``target`` from the run's current state; the run's
        output index, rows, step count, guard references and the solver's time are brought
        up to date after it. Returns its answer (negative: a failed step's flag)."""
        run, c, solver = self.run, self.c, self.run.solver
        block, (_, _, inputs, _) = solver.row_block, self.check
        inputs[2][:] = run.stepper.p
        inputs[4][:], inputs[5][:] = run.g, run.mask
        solver.set_stop(target)
        c.target, c.below = target, target
        c.t_now, c.next_output, c.steps = solver.t_now, run.next_output, 0
        c.rows, c.row_capacity = block.count, block.Y.shape[1]
        c.row_y, c.row_yp = block.Y.ctypes.data, block.YP.ctypes.data     # (Y: handed over when full)
        c.steps_since_output, c.stepped = run.steps, solver.stepped
        c.course = self.time_events.prepare() if self.time_events is not None else None
        started = time.perf_counter()
        status = self.advance(self._ref)
        run.solver_seconds += time.perf_counter() - started
        run.next_output, block.count, run.steps = c.next_output, c.rows, c.steps_since_output
        restarted = c.course and self.time_events.take()        # time events the loop took
        # The references the last step's guards were checked against (updated after every
        # step without a crossing), as the Python loop keeps them.
        run.g, run.mask = inputs[4].copy(), inputs[5] > 0.5
        solver.advanced(c.t_now, stepped=c.stepped if restarted else c.steps > 0)
        return status

    def guards_now(self):
        """The guards at the last step the C loop evaluated (a copy)."""
        return self.check[3][0].copy()
