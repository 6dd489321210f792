"""Time events taken inside the C stepping loop (``time_event`` of ``c/sundials_callbacks.c``).

A switching converter's PWM edge takes the quick course of :mod:`.quick_time_events` (the
algebraic variables solved past the edge, a round of the components' transitions, a solve in
the new modes, a round that changes nothing) and a restart of the solver from the point and
rates that course gives. Called from Python, an edge cost about 90 µs, of which the compiled
functions take a few: 36 ms of the 10 ms Shockley buck's 399 edges, more than its integration.
Where the run has taken an edge the quick way already (so its compiled functions exist) and the
solver's callbacks are compiled, the C loop takes each edge it reaches itself: the same FunctionBuffers in the same
order (:class:`~.quick_time_events.QuickTimeEvents` operation for operation), the same IDA
calls as :meth:`Stepper.restart <physlib.analysis.simulation.sundials.Stepper.restart>`, so the
run is the same bit for bit. It declines, changing nothing, wherever Python's quick course
would (a round that changes modes too often, a solve that needs the general solver, a guard to
settle) and where the restart would need more than half the planned step (no step yet, or a
step of rounding size) or an output time lies between the edge's left limit and the edge:
Python then takes the event where the loop stopped.

What Python records of each edge (its rows, its events, the solver's counters) comes back in
arrays and is recorded by :meth:`CompiledTimeEvents.take` when the loop returns: the rows
around an edge sit among the block's interpolated rows at the position they had then.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..common.sundials_library import COUNTER_GETTERS, COUNTERS
from .callbacks import array_address, buffer_address, function_address
from ..common import initialization
from . import quick_time_events
from .run_stats import count, current as current_stats
from .result_rows import RowParameters

CAPACITY = 64       # edges the C loop takes before it returns for Python to record them

P, LONG, REAL = ctypes.c_void_p, ctypes.c_long, ctypes.c_double
LONGS = np.dtype(f"i{ctypes.sizeof(LONG)}")     # arrays the C code reads as long


class Course(ctypes.Structure):
    """The C struct ``PhyslibCourse``, field for field."""
    _fields_ = [("times", P), ("left", P), ("n_events", LONG), ("next", LONG), ("run_end", REAL),
                ("user_grid", ctypes.c_int), ("reinit", P), ("set_init_step", P), ("set_stop_time", P),
                ("current_step", P), ("counter", P * len(COUNTERS)), ("counts", LONG * len(COUNTERS)),
                ("res_p", P), ("jac_p", P), ("n_p", LONG),
                ("newton", P), ("nw_z", P), ("nw_x", P), ("nw_p", P), ("nw_t", P), ("nw_z_next", P), ("nw_done", P),
                ("round", P), ("rd_x", P), ("rd_z", P), ("rd_p", P), ("rd_pre", P), ("rd_t", P), ("rd_band", P),
                ("rd_p_next", P), ("rd_g", P), ("rd_rates", P), ("rd_flags", P),
                ("slots", P), ("n_slots", LONG), ("zero_band", REAL), ("quick_rounds", LONG),
                ("unrolled_calls", LONG), ("p_now", P),
                ("capacity", LONG), ("taken", LONG), ("ev_t", P), ("ev_rows", P), ("ev_rounds", P),
                ("ev_codes", P), ("ev_y", P), ("ev_z", P), ("ev_row_after", P),
                ("start_t", REAL), ("start_h", REAL), ("start_y", P), ("start_yp", P)]


class CompiledTimeEvents:
    """The time events of one run (``run``: a ``_HybridRun``) that its C loop may take, and
    the recording of those it took."""

    def __init__(self, run):
        self.run = run
        self.c = None               # the Course, made when the run can first use it
        self._functions = None      # the buffers of the quick course's functions it points at

    def prepare(self):
        """The Course for this call of the C loop (a pointer), or None where the loop is to stop
        at every time event: no quick course made yet, the solver's callbacks in Python (or a
        linear model's), or no time event ahead."""
        run = self.run
        quick, inputs = run.stepper.quick_course, run.solver.parameter_inputs()
        if quick is None or inputs is None or run.event_index >= len(run.time_events):
            return None
        if self.c is None:
            self._make(quick, inputs)
        functions = (quick.newton.buffers(), quick.event_round.buffers())
        if self._functions is None or any(a is not b for a, b in zip(functions, self._functions)):
            self._point_at(*functions)
        self.c.next = run.event_index
        return ctypes.pointer(self.c)

    def _make(self, quick, parameter_inputs) -> None:
        run, solver = self.run, self.run.solver
        n, nx, n_p, n_slots = solver.n, solver.nx, len(run.stepper.p), len(quick.slots)
        self.times = np.ascontiguousarray(run.time_events, dtype=float)
        self.left = np.ascontiguousarray(run.lefts, dtype=float)
        self.slots = np.ascontiguousarray(quick.slots, dtype=LONGS)
        self.p_now = np.zeros(n_p)
        self.ev_t, self.ev_rows, self.ev_rounds = np.zeros(CAPACITY), np.zeros(CAPACITY, LONGS), \
            np.zeros(CAPACITY, LONGS)
        rounds = quick_time_events.QUICK_ROUNDS
        self.ev_codes = np.zeros((CAPACITY, rounds, n_slots))
        self.ev_y, self.ev_z = np.zeros((CAPACITY, n)), np.zeros((CAPACITY, n - nx))
        self.ev_row_after = np.zeros(CAPACITY, LONGS)
        self.start_y, self.start_yp = np.zeros(n), np.zeros(n)
        ida = solver.lib
        c = self.c = Course(times=array_address(self.times), left=array_address(self.left), n_events=len(self.times),
                            run_end=run.run_end, user_grid=int(run.user_grid),
                            reinit=function_address(ida.IDAReInit), set_init_step=function_address(ida.IDASetInitStep),
                            set_stop_time=function_address(ida.IDASetStopTime),
                            current_step=function_address(ida.IDAGetCurrentStep),
                            res_p=array_address(parameter_inputs[0]), jac_p=array_address(parameter_inputs[1]), n_p=n_p,
                            slots=array_address(self.slots), n_slots=n_slots, zero_band=run.stepper.zero_band,
                            quick_rounds=rounds, unrolled_calls=initialization.UNROLLED_CALLS,
                            p_now=array_address(self.p_now), capacity=CAPACITY)
        for k, name in enumerate(COUNTER_GETTERS["idas"]):
            c.counter[k] = function_address(getattr(ida, name))
        for name in ("ev_t", "ev_rows", "ev_rounds", "ev_codes", "ev_y", "ev_z", "ev_row_after",
                     "start_y", "start_yp"):
            setattr(c, name, array_address(getattr(self, name)))

    def _point_at(self, newton, event_round) -> None:
        """The C loop's pointers at the functions' current buffers (new once a C twin serves)."""
        c = self.c
        self._functions = (newton, event_round)
        c.newton = buffer_address(newton[0])
        c.nw_z, c.nw_x, c.nw_p, c.nw_t = (array_address(a) for a in newton[2])
        c.nw_z_next, c.nw_done = (array_address(a) for a in newton[3])
        c.round = buffer_address(event_round[0])
        c.rd_x, c.rd_z, c.rd_p, c.rd_pre, c.rd_t, c.rd_band = (array_address(a) for a in event_round[2])
        c.rd_p_next, c.rd_g, c.rd_rates, c.rd_flags = (array_address(a) for a in event_round[3])

    def take(self) -> bool:
        """Record the time events the last call of the C loop took, as Python's course records
        them (:meth:`_HybridRun._time_event <physlib.analysis.simulation.hybrid_simulation.
        _HybridRun>`): the rows just before and after each, its mode changes, the solver's
        restarts and their counters. Returns whether it took any."""
        c, run = self.c, self.run
        taken = c.taken
        if not taken:
            return False
        c.taken = 0
        stepper, solver, nx = run.stepper, run.solver, run.solver.nx
        # each event's mode changes, and the parameter vectors before and after it
        p_after = np.empty((len(stepper.p), taken + 1), order="F")
        p_after[:, 0] = stepper.p
        for e in range(taken):
            rounds = []
            for codes in self.ev_codes[e, :self.ev_rounds[e]]:
                p_round = stepper.p.copy()
                p_round[self.slots] = codes
                rounds.append(p_round)
            stepper.take_rounds(float(self.ev_t[e]), rounds)
            p_after[:, e + 1] = stepper.p
        count("events", "time", n=taken)
        # the rows just before each (default grid) and after it, in that order, each event's
        # among the interpolated rows where it was taken
        first = c.next - taken
        left = self.ev_y[:taken].T
        after = np.concatenate([left[:nx], self.ev_z[:taken].T])
        before_rows = np.zeros(taken, bool) if run.user_grid else np.ones(taken, bool)
        take_rows = np.column_stack([before_rows, self.ev_row_after[:taken] != 0]).ravel()
        Y = np.stack([left, after], axis=2).reshape(left.shape[0], 2 * taken)[:, take_rows]
        P = RowParameters(p_after, np.column_stack([np.arange(taken), np.arange(1, taken + 1)]).ravel()[take_rows])
        times = np.repeat(self.ev_t[:taken], 2)[take_rows]
        t_values = np.column_stack([self.left[first:c.next], self.ev_t[:taken]]).ravel()[take_rows]
        if take_rows.any():
            if solver.row_block.count:
                solver.row_block.hold_columns(np.repeat(self.ev_rows[:taken], 2)[take_rows], times, Y, P, t_values)
            else:
                run.record_block(times, Y[:nx], Y[nx:], P, t_values)
        count("solver_starts", n=taken)
        counters = dict(zip(COUNTERS, c.counts))
        if (stats := current_stats()) is not None:
            stats.add_solver_counters(counters)
        for k in range(len(COUNTERS)):
            c.counts[k] = 0
        # the run as _HybridRun._restart leaves it, at the last event taken
        run.event_index = c.next
        run.next_stop = run.time_events[c.next] if c.next < len(run.time_events) else run.t_end
        run.t, run.x, run.z = c.start_t, self.start_y[:nx].copy(), self.start_y[nx:].copy()
        run.x_peak, run.started = np.maximum(run.x_peak, np.abs(run.x)), (run.t, run.x.tobytes(), stepper.p.tobytes())
        solver.restarted(c.start_t, self.start_y, self.start_yp, c.start_h, run.target(), counters["nfevals"])
        return True
