"""Variable-step simulation of a model with modes: from the start through every state and time
event to the end (the event method is described in :mod:`physlib.analysis.simulation.events`).

One SUNDIALS run (:class:`~physlib.analysis.simulation.sundials.Stepper`) goes from event to
event, stepped one internal step at a time (in C where available: :mod:`.compiled_stepping`):

* **Every crossing found.** The guards are evaluated at every internal step; a crossing is
  located to ``event_tol`` on the step's interpolating polynomial
  (:func:`~physlib.analysis.simulation.event_location.locate_in_step`), as SUNDIALS' own root
  finding does, and the event is handled there.
* **Outputs cost interpolation.** Output times are served from the same polynomial as the
  steps pass them; the output grid never changes the steps, so any ``t_eval`` — uneven,
  dense, a single point — gives the same solution.
* **Starts only at events.** The solver starts at t0, at each event instant and at each time
  event (``IDAReInit`` from a consistent state with consistent rates), never per output.
* **Time events.** The run integrates to the left limit of a time event (the input is still on
  its old side), sees the guards there, then handles the edge at the event time.

Models without states (:mod:`.algebraic_sampler`) are solved at samples ``max_step`` apart
(default (t_end − t0)/1000) and at the output times.
"""
from __future__ import annotations

import time

import numpy as np

from ...core.errors import SimulationError
from ...core.memory import LARGE, release_free_memory
from .event_location import crossing_in_last_step, estimate_in_step, released_guards
from .integrators import MAX_STEPS_PER_OUTPUT, TOO_MANY_STEPS, stopped
from .algebraic_sampler import AlgebraicSampler
from .compiled_stepping import (BLOCK_FULL, CROSSED, EVENTS_FULL, NO_INTERPOLATION, REACHED, ROW_AT_STEP,
                                STALLED, YIELD, CompiledStepping)
from .events import HybridStepper
from .run_stats import count, current as current_stats, phase
from .dae_points import consistent_rates
from .sundials import Stepper
from .time_events import left_limit, run_events
from .tolerances import absolute_tolerances

EPS = float(np.finfo(float).eps)


def simulate_hybrid(model, t0, t_end, grid, user_grid, p, x, z, *, solver, rtol, atol, max_step,
                    event_tol, max_events, projection, record, record_block):
    """Run from t0 to t_end with state and time events, with output rows at ``grid`` (its times
    a rounding error from a time event already moved onto it:
    :func:`~.time_events.snap_to_events`); calls ``record(t, x, z, p[, t_value])`` (t_value:
    the time at which outputs are evaluated, the left limit just before a time event) and, for
    rows interpolated between solver steps and rows held among them,
    ``record_block(times, X, Z, P[, t_values])`` (one column per row; P None for a model without
    modes, whose parameter vector is p throughout).
    Returns the list of events."""
    run = _HybridRun(model, p, t0, t_end, grid, user_grid, (record, record_block), solver=solver, rtol=rtol,
                     atol=atol, max_step=max_step, event_tol=event_tol, max_events=max_events,
                     projection=projection, start=(x, z))
    try:
        run.start(x, z)
        if len(x) + len(z) >= LARGE // 10:     # the solver's set-up freed as much as it keeps
            release_free_memory()
        run.run()
    finally:
        run.finish()
    return run.stepper.events


class _HybridRun:
    """One run of :func:`simulate_hybrid`: the event logic (``stepper``), the solver stepping
    between events (``solver``), and where the run is — time t, states x, algebraic variables
    z, and the guards' reference values g and mask (see :meth:`HybridStepper.crossed`)."""

    def __init__(self, model, p, t0, t_end, grid, user_grid, record, *, solver, rtol, atol, max_step,
                 event_tol, max_events, projection, start):
        self.t0, self.t_end, self.user_grid = t0, t_end, user_grid
        # Rows interpolated between steps wait in the solver's row block; a row recorded
        # meanwhile waits there too, and they reach ``record`` in time order.
        self.record_row, self.record_block = record
        # Rows around events go into the result only on the default output grid.
        self.event_record = None if user_grid else self.record
        self.time_events, self.run_end = run_events(model, p, t0, t_end)
        self.lefts, self.event_index = [left_limit(te, t0, t_end) for te in self.time_events], 0
        self.stepper = HybridStepper(model, p, solver=solver, rtol=rtol, atol=atol, event_tol=event_tol,
                                     max_events=max_events, projection=projection, step=self._probe,
                                     probe_stops=self.lefts + [self.run_end], time_events=len(self.lefts))
        system = model.system
        if len(system.state_pos):
            # time derivatives among the algebraic variables get their own atol, and no
            # algebraic variable one below its rounding at the start (:mod:`.tolerances`)
            bound = max_step if max_step is not None else t_end - t0
            self.solver = Stepper(system, solver, rtol, atol, max_step, rows_keep_p=model.has_modes,
                                  atols=absolute_tolerances(system, atol, bound, start=(*start, p, t0)))
        else:
            sample = max_step if max_step is not None else (t_end - t0) / 1000.0
            self.solver = AlgebraicSampler(self.stepper, sample)
        self.grid = grid
        self.next_output = 0                # index of the first output time not yet recorded
        self.next_stop = t_end              # the next time event (or the end)
        self.started = None                 # (t, x, p) the solver last started from
        self.stats = current_stats()
        self.steps = 0                      # solver steps since the last start or output
        self.x_peak = np.abs(start[0])      # each state's largest |x| at the run's starts and returns
        self.solver_seconds = 0.0
        self.compiled = CompiledStepping.for_run(self)     # the steps in C, where available

    # --- the run ----------------------------------------------------------------------------------

    def start(self, x, z) -> None:
        stepper, t0 = self.stepper, self.t0
        with phase("initialization"):
            x, z = stepper.start(t0, self.t_end, x, z)
            self._output_through(t0, lambda t: (x, z))
            self.t, self.x, self.z, self.g, self.mask = stepper.settle(t0, x, z, stepper.no_guards(),
                                                                       self.event_record)
        self._restart_unless_running()

    def run(self) -> None:
        events = self.time_events
        while self.event_index < len(events):
            self.next_stop = events[self.event_index]
            self._run_to(self.target())     # the C loop may take time events on the way
            if self.event_index < len(events):
                self._time_event(events[self.event_index])
                self.event_index += 1
        self.next_stop = self.t_end
        self._run_to(self.run_end)
        if self.run_end < self.t_end:
            # An input's edge at t_end: no step crosses it (the run stopped at its left limit);
            # the rows at t_end have the states there and the algebraic variables solved at
            # t_end, the inputs past the edge, the modes (decided before the edge) kept.
            self.z = self.stepper.solve_z(self.x, self.z, self.t_end)
        self._output_through(self.t_end, lambda t: (self.x, self.z))
        self._flush_rows()

    def record(self, *row) -> None:
        """Record a row (t, x, z, p[, t_value]) after the interpolated rows still pending
        (:meth:`RowBlock.hold <.output_rows.RowBlock.hold>`)."""
        if (block := getattr(self.solver, "row_block", None)) is not None and block.count:
            block.hold(row)
        else:
            self.record_row(*row)

    def target(self) -> float:
        """Where the run goes next: the left limit of the time event ahead, or its end."""
        return self.lefts[self.event_index] if self.event_index < len(self.lefts) else self.run_end

    def _flush_rows(self) -> None:
        """Complete and record the rows waiting in the solver's row block, with the rows held
        among them: when the block is full, and at the end."""
        if (block := getattr(self.solver, "row_block", None)) is not None and block.count:
            block.flush(self.record_block)

    def finish(self) -> None:
        self._count_solver()
        if self.stats is not None:
            self.stats.seconds["integration"] += self.solver_seconds
        if (close := getattr(self.solver, "close", None)) is not None:
            close()

    def _run_to(self, target: float) -> None:
        """Step to ``target``, handling the state events on the way."""
        if self.compiled is not None:
            self._run_to_compiled(target)
            return
        solver = self.solver
        while self.t < target:
            t_prev = self.t
            self.steps += 1
            if self.steps > MAX_STEPS_PER_OUTPUT:
                raise self._stuck(TOO_MANY_STEPS)
            started = time.perf_counter()
            try:
                t_n = solver.step(target)
            except SimulationError as err:
                raise self._stuck(str(err)) from None
            self.solver_seconds += time.perf_counter() - started
            if t_n < target and t_n - t_prev <= 4 * EPS * abs(t_n):
                raise self._stuck("the solver's steps no longer move the time (a singularity?)")
            self._after_step(t_prev, t_n, target)

    def _after_step(self, t_prev, t_n, target) -> None:
        """A step from t_prev to t_n: its guards, then the event it crossed or the outputs it
        passed."""
        x_n, z_n = self.solver.current()
        g_n, crossed, g_watch, mask_watch = self.stepper.step_check(x_n, z_n, t_n, self.g, self.mask)
        if crossed:
            self._state_event(t_prev, t_n, x_n, z_n, g_n)
            return
        self._output_interpolated(t_n if t_n < target else target, below=target)
        self.t, self.x, self.z = t_n, x_n, z_n
        self.g, self.mask = g_watch, mask_watch
        if self.stats is not None:
            self.stats.reached(t_n)

    def _run_to_compiled(self, target: float) -> None:
        """:meth:`_run_to` with the steps, guard checks and output rows in C
        (:mod:`.compiled_stepping`); events, full row blocks and rows at a step come back here."""
        compiled, solver = self.compiled, self.solver
        while self.t < target:
            status = compiled.call(target)
            target = self.target()          # a later one where the loop took time events
            if self.steps > MAX_STEPS_PER_OUTPUT:
                raise self._stuck(TOO_MANY_STEPS)
            if status in (REACHED, YIELD, EVENTS_FULL):
                self.t, (self.x, self.z) = solver.t_now, solver.current()
                self.x_peak = np.maximum(self.x_peak, np.abs(self.x))
                if self.stats is not None:
                    self.stats.reached(self.t)
            elif status == BLOCK_FULL:
                self._flush_rows()
            elif status == ROW_AT_STEP:
                self.record(self.grid[self.next_output], *solver.current(), self.stepper.p)
                self.next_output, self.steps = self.next_output + 1, 0
            elif status == CROSSED:
                t_n = solver.t_now
                self._state_event(compiled.c.t_prev, t_n, *solver.current(), compiled.guards_now())
            elif status == STALLED:
                raise self._stuck("the solver's steps no longer move the time (a singularity?)")
            elif status == NO_INTERPOLATION:
                raise solver.no_interpolation(self.grid[self.next_output])
            else:
                try:
                    solver.recover(status, solver.t_now)
                except SimulationError as err:
                    raise self._stuck(str(err)) from None

    def _stuck(self, reason: str) -> SimulationError:
        """The error for a run that cannot go on (:func:`~.integrators.stopped`)."""
        return stopped(self.stepper.solver, self.solver.t_now, reason, self.x_peak, self.solver.current()[0],
                       self.stepper.model.states)

    def _state_event(self, t_prev, t_n, x_n, z_n, g_n) -> None:
        """A guard crossed within the last step (t_prev, t_n]: locate the crossing on the step's
        interpolating polynomial and handle the event there.

        The event's state is the polynomial's, moved within the tolerances onto the algebraic
        equations (:meth:`Stepper.at`), as SUNDIALS' own root finding returns the interpolated
        state at a root. Its algebraic variables come from both DAE rows, so a just-blocked
        ideal diode's voltage Ron·i has the sign of the current that crossed zero, not of the
        interpolation error of the capacitor voltage behind it."""
        stepper, solver = self.stepper, self.solver
        with phase("events"):
            released, g_ref, mask = released_guards(stepper, g_n, self.g, self.mask)
            te = estimate_in_step(stepper, solver, t_prev, t_n, g_n, g_ref, mask)
            xe, ze = solver.at(te)
            self._handle_state_event(te, xe, ze, g_ref, mask, released)

    def _handle_state_event(self, te, xe, ze, g_ref, mask, released) -> None:
        """The event iteration and settling at te, just past a crossing, then a restart."""
        stepper = self.stepper
        count("events", "state")
        if te >= self.next_stop - stepper.event_tol and self.next_stop < self.t_end:
            # Within event_tol of a time event: the crossing is located at it (the state
            # event first, then the time event's own iteration).
            te = self.next_stop
        self._output_before(te)
        stepper.check_chattering(te, released)
        g_e = stepper.guards(xe, ze, te)
        fired = stepper.crossed(g_ref, g_e, mask)
        before = len(stepper.events)
        self.t, self.x, self.z, g, self.mask = stepper.handle_event(te, xe, ze, fired, "state",
                                                                    self.event_record, g_before=g_ref)
        if len(stepper.events) == before and np.any(released):
            # Nothing changed: a guard just moved away from zero. Watch it from the side it
            # went to, or it would be masked and located here again forever.
            self.mask = self.mask & ~released
            g = np.where(released, g_e, g)
        self.g = g
        self._restart_unless_running()

    def _time_event(self, stop: float) -> None:
        """The time event at ``stop`` (the run stands at its left limit): the rows just before
        and after it, the event iteration and settling in between, then a restart."""
        stepper = self.stepper
        count("events", "time")
        with phase("events"):
            self._output_before(stop)
            if not self.user_grid:
                self.record(stop, self.x, self.z, stepper.p, left_limit(stop, self.t0, self.t_end))
            # in few compiled calls where the event takes its usual course, else the general way
            quick = stepper.quick_time_event(stop, self.x, self.z)
            x, z = (self.x, quick[0]) if quick else stepper.iterate_modes(
                stop, self.x, stepper.solve_z(self.x, self.z, stop), stepper.no_guards(), "time")
            if self.next_output < len(self.grid) and self.grid[self.next_output] == stop:
                self._output_through(stop, lambda t: (x, z))
            elif not self.user_grid:
                self.record(stop, x, z, stepper.p)
            self.t, self.x, self.z, self.g, self.mask = (stop, x, z, quick[1], np.zeros(len(quick[1]), bool)) \
                if quick else stepper.settle(stop, x, z, stepper.no_guards(), self.event_record)
        if quick:       # no guard in the zero band (nothing to settle), its rates made
            self._restart(stop, x, z, quick[2])
        else:
            self._restart_unless_running()

    # --- the solver -------------------------------------------------------------------------------

    def _restart_unless_running(self) -> None:
        """Start the solver from the run's point, unless it already runs from there: settling
        probed the guards a moment after the event with the solver started at this very point
        and these modes, and that run goes on as it is."""
        key, k = (self.t, self.x.tobytes(), self.stepper.p.tobytes()), self.next_output
        outputs_passed = k < len(self.grid) and self.grid[k] <= self.solver.t_now
        if self.started == key and not outputs_passed:
            self.t, (self.x, self.z) = self.solver.t_now, self.solver.current()
            return
        self._restart(self.t, self.x, self.z)

    def _restart(self, t, x, z, rates=None) -> None:
        # Output times the last run passed without recording (between an event and the
        # settling probe 100·event_tol later) take the values the run restarts from.
        self._output_through(t, lambda _: (x, z))
        self._count_solver()
        count("solver_starts")
        self.steps = 0
        rates = consistent_rates(self.stepper.system, x, z, self.stepper.p, t) if rates is None else rates
        # The first step after an event: half the one planned before it (fewer error-test
        # failures than the whole on the buck converter; the state is consistent in the new
        # modes, their fast dynamics at rest), else (a planned step of rounding size, cut
        # short to land on a stop) the solver's own, to which it falls back if this one fails.
        first = 0.5 * self.solver.h_next
        self.solver.restart(t, x, z, self.stepper.p, rates,
                            first_step=first if first > 1e3 * EPS * abs(t) else 0.0)
        self.x_peak, self.started = np.maximum(self.x_peak, np.abs(x)), (t, x.tobytes(), self.stepper.p.tobytes())

    def _count_solver(self) -> None:
        """Add the solver's counters since its last start to the run's statistics."""
        if self.stats is not None and self.started is not None:
            self.stats.add_solver_counters(self.solver.counters())

    def _probe(self, x, z, p, ta, tb, watch):
        """(t, x, z) at tb from (x, z) at ta: the short integration of settling, by the solver
        started at ta (the run goes on from it if nothing changes there); or just past where a
        guard first crosses from its reference in ``watch`` = (g_ref, mask)."""
        solver = self.solver
        self._restart(ta, x, z)
        for _ in range(MAX_STEPS_PER_OUTPUT):
            if solver.t_now >= tb:
                return (tb, *solver.current())
            started, t_prev = time.perf_counter(), solver.t_now
            solver.step(tb)
            self.solver_seconds += time.perf_counter() - started
            if (te := crossing_in_last_step(self.stepper, solver, t_prev, *watch)) is not None:
                return (te, *solver.at(te))
        # A probe of a few ulps' length whose steps no longer move the time ran on for ever
        # (found by a random draw of the grid differential test): a named stop instead.
        raise self._stuck(f"settling after the event at t = {ta:.6g} s took more than {MAX_STEPS_PER_OUTPUT} "
                          f"solver steps without reaching {tb:.6g} s (the model chatters or is singular there)")

    # --- outputs ----------------------------------------------------------------------------------

    def _output_through(self, t, values, below=None) -> None:
        """Record the output times up to and including t (those below ``below`` only, if given)
        with ``values(time) -> (x, z)``."""
        grid, k = self.grid, self.next_output
        while k < len(grid) and grid[k] <= t and (below is None or grid[k] < below):
            x, z = values(grid[k])
            self.record(grid[k], x, z, self.stepper.p)
            k += 1
            self.steps = 0
        self.next_output = k

    def _output_interpolated(self, t, below) -> None:
        """Record the output times up to t (and below ``below``) that the solver's last step
        covers: into its row block where it has one, else one by one (:meth:`Stepper.at
        <physlib.analysis.simulation.sundials.Stepper.at>`). A time at the step itself takes
        the solver's own solution there."""
        solver = self.solver
        block = getattr(solver, "row_block", None)
        if block is None:
            self._output_through(t, solver.at, below=below)
            return
        grid, first = self.grid, self.next_output
        k = first
        while k < len(grid) and grid[k] <= t and grid[k] < below:
            k += 1
        if k == first:
            return
        self.next_output, self.steps = k, 0
        at_step = grid[k - 1] == solver.t_now
        block.add(grid[first:k - 1] if at_step else grid[first:k], solver.h_last, self.stepper.p,
                  self._flush_rows)
        if at_step:
            x, z = solver.current()
            self.record(grid[k - 1], x, z, self.stepper.p)

    def _output_before(self, te) -> None:
        """Record the output times before te that the solver's last step covers (into its row
        block where it has one)."""
        solver, grid, k = self.solver, self.grid, self.next_output
        block = getattr(solver, "row_block", None)
        if block is not None and k < len(grid) and self.t < grid[k] < te:
            end = k + int(np.searchsorted(grid[k:], te))
            block.add(grid[k:end], solver.h_last, self.stepper.p, self._flush_rows)
            self.next_output = end
            return
        while k < len(grid) and grid[k] < te:
            x, z = solver.at(grid[k]) if grid[k] > self.t else (self.x, self.z)
            self.record(grid[k], x, z, self.stepper.p)
            k += 1
        self.next_output = k
