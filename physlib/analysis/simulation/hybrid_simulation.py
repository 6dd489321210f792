"""Variable-step simulation of a model with modes: from the start through every state and time
event to the end (the method is described in :mod:`physlib.analysis.simulation.events`).

The run goes from stop to stop: the output times, the time events and ``t_end``. Between
stops the guards are sampled every ``max_step`` on the solver's output, so one solver call
reaches the next stop (a cold restart per sampling interval would cost tens of solver steps).
On an evenly spaced output grid (the default one, or a ``t_eval`` from ``linspace``), 16
output intervals are integrated in one call with the guards sampled m times per interval (an
integrator with 16·m outputs, built once per model), the algebraic variables solved again from
the interpolated states at each output; after a crossing, or where a chunk fails, the run goes
interval by interval. A crossing is located
(:mod:`physlib.analysis.simulation.event_location`) and handled (:meth:`HybridStepper.handle_event`)
where it happens; before a time event the guards are seen at its left limit, so an input that
steps there is a time event, not a state event.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import SimulationError
from .event_location import locate
from .run_stats import count, phase
from .events import HybridStepper
from .time_events import left_limit, snap_to_events

CHUNK_OUTPUTS = 16      # output intervals integrated per solver call on the default grid


def simulate_hybrid(model, t0, t_end, grid, user_grid, p, x, z, *, solver, rtol, atol, max_step,
                    event_tol, max_events, projection, record):
    """Run from t0 to t_end with state and time events; calls ``record(t, x, z, p[, t_value])``
    (t_value: the time at which outputs are evaluated, the left limit just before a time event).
    Returns the list of events."""
    stepper = HybridStepper(model, p, solver=solver, rtol=rtol, atol=atol, event_tol=event_tol,
                            max_events=max_events, projection=projection)
    with phase("initialization"):
        x, z = stepper.start(t0, t_end, x, z)
        if grid[0] == t0:
            record(t0, x, z, stepper.p)
        state = stepper.settle(t0, x, z, stepper.no_guards(), None if user_grid else record)
    _HybridRun(stepper, t0, t_end, grid, user_grid, max_step, record, state).run()
    return stepper.events


class _HybridRun:
    """One run of :func:`simulate_hybrid`: its stops, and where it is — time t, states x,
    algebraic variables z, and the guards' reference values g and mask (see
    :meth:`HybridStepper.crossed`)."""

    def __init__(self, stepper, t0, t_end, grid, user_grid, max_step, record, state):
        self.stepper, self.t0, self.t_end, self.user_grid = stepper, t0, t_end, user_grid
        self.record = record
        # Rows around events go into the result only on the default output grid.
        self.event_record = None if user_grid else record
        self.step = max_step if max_step is not None else (t_end - t0) / 1000.0
        self.t, self.x, self.z, self.g, self.mask = state
        time_events = set(stepper.model.time_events(stepper.p, t0, t_end))
        self.grid = snap_to_events(grid, time_events, t0, t_end)
        self.stops = np.unique(np.concatenate([self.grid[self.grid > t0], list(time_events), [t_end]]))
        spacing = (self.grid[-1] - self.grid[0]) / max(len(self.grid) - 1, 1)
        self.per_output = max(1, int(np.ceil(spacing / self.step - 1e-9)))
        self.chunking = len(self.grid) > 1
        # Guards are seen at the left limit of time events and of t_end (an edge exactly at t_end
        # changes nothing before it).
        self.timed = np.isin(self.stops, list(time_events)) | (self.stops == t_end)
        self.crossing_ahead = -1     # a chunk saw a guard cross before stops[crossing_ahead]

    def run(self) -> None:
        i = 0
        while i < len(self.stops):
            if self._may_chunk(i):
                i += self._chunk(i)
                continue
            z_left = self._run_to_stop(i)
            if self.timed[i] and self.stops[i] < self.t_end:
                self._time_event(z_left)
            elif np.any(self.grid == self.stops[i]):
                self.record(self.t, self.x, self.z, self.stepper.p)
            i += 1

    # --- several output intervals per solver call ---------------------------------------------

    def _may_chunk(self, i) -> bool:
        """Whether the next CHUNK_OUTPUTS stops can be integrated in one call: default grid,
        evenly spaced outputs from here, no time event among them, the end not among them, and
        no crossing seen ahead."""
        k_out = min(CHUNK_OUTPUTS, len(self.stops) - i)
        outputs = self.stops[i:i + k_out]
        return (self.chunking and i > self.crossing_ahead and self.t == (self.stops[i - 1] if i else self.t0)
                and not self.timed[i:i + k_out].any() and outputs[-1] < self.t_end
                and k_out == CHUNK_OUTPUTS and _evenly_spaced(self.t, outputs))

    def _chunk(self, i) -> int:
        """Integrate through the CHUNK_OUTPUTS stops from i in one call, sampling the guards
        ``per_output`` times per interval; returns how many outputs were completed. The run
        stops at the sample just before a guard crossing (the intervals from there are then
        stepped through one by one, which locates it)."""
        outputs = self.stops[i:i + CHUNK_OUTPUTS]
        stepper, t = self.stepper, self.t
        n = len(outputs) * self.per_output
        try:
            X, Z = stepper.integrate_chunk(self.x, self.z, t, outputs[-1], n)
        except SimulationError:
            # IDAS's initial-condition step can fail for a long first output interval on
            # stiff mode equations; single intervals are the robust fallback.
            self.crossing_ahead = i + len(outputs) - 1
            return 0
        times = t + (outputs[-1] - t) * np.arange(1, n + 1) / n
        G = stepper.guards_along(X, Z, times)

        def at_output(k):
            if (k + 1) % self.per_output == 0:
                self.t = outputs[(k + 1) // self.per_output - 1]      # the exact output time
                if len(self.z):
                    # The solver interpolates the algebraic variables between its steps (and
                    # keeps them out of its error test); solved from the interpolated states,
                    # every output row satisfies the model's equations, as at a call's end.
                    self.z = stepper.solve_z(self.x, self.z, self.t)
                self.record(self.t, self.x, self.z, stepper.p)

        k = self._advance(X, Z, times, G, at_output)
        if k is None:
            return len(outputs)
        self.crossing_ahead = i + k // self.per_output      # step through that interval sample by sample
        return k // self.per_output

    # --- one stop at a time ---------------------------------------------------------------------

    def _run_to_stop(self, i):
        """Integrate to stops[i], handling the state events on the way. Returns the algebraic
        variables at the stop's left limit if the last solver call computed them (a time event's
        stop), else None."""
        stepper, stop, z_left = self.stepper, self.stops[i], None
        while self.t < stop:
            # One solver call to the stop, the guards sampled every `step` on its dense output
            # (a sample a rounding error short of the stop is the stop).
            n = max(1, int(np.ceil((stop - self.t) / self.step * (1 - 1e-6))))
            X, Z = stepper.integrate_chunk(self.x, self.z, self.t, stop, n)
            times = self.t + (stop - self.t) * np.arange(1, n + 1) / n
            times[-1] = stop
            G = stepper.guards_along(X, Z, times)
            t_seen = stop
            if self.timed[i]:
                # Before a time event the guards are seen at its left limit (the input that
                # steps there is a time event, not a state event); the algebraic variables the
                # solver returns at the stop already see the edge.
                t_seen = left_limit(stop, self.t0, self.t_end)
                z_left = stepper.solve_z(X[:, -1], Z[:, -1], t_seen)
                G[:, -1] = stepper.guards(X[:, -1], z_left, t_seen)
            k = self._advance(X, Z, times, G)
            if k is not None:
                self._state_event(times[k], t_seen if k == n - 1 else times[k], G[:, k])
                z_left = None
        return z_left

    def _advance(self, X, Z, times, G, after_sample=None):
        """Move along the samples (columns of X, Z and G at ``times``) up to the first whose
        guards crossed; returns its index, None if none did. ``after_sample(k)`` runs once
        sample k is the current state."""
        for k in range(len(times)):
            if np.any(self.stepper.crossed(self.g, G[:, k], self.mask)):
                return k
            self.t, self.x, self.z = times[k], X[:, k], Z[:, k]
            self.g, self.mask = self.stepper.watch(self.g, G[:, k], self.mask)
            if after_sample is not None:
                after_sample(k)
        return None

    def _state_event(self, t_sample, t_seen, g_sample) -> None:
        """Locate the crossing between t and the sample at ``t_sample`` whose guards
        ``g_sample`` (seen at ``t_seen``) crossed, and handle it."""
        stepper = self.stepper
        count("events", "state")
        with phase("events"):
            te, xe, ze, fired, released = locate(stepper, self.x, self.z, self.t, t_sample, self.g,
                                                 self.mask, t_seen)
            before = len(stepper.events)
            self.t, self.x, self.z, g, self.mask = stepper.handle_event(te, xe, ze, fired, "state",
                                                                        self.event_record, g_before=self.g)
        self.g = g
        if len(stepper.events) == before and np.any(released):
            # Nothing changed: a guard just moved away from zero. Watch it from the side it
            # went to, or it would be masked and located here again forever.
            self.mask = self.mask & ~released
            self.g = np.where(released, g_sample, self.g)

    def _time_event(self, z_left) -> None:
        """The time event at the current stop: the rows just before (at the left limit) and
        after it, with the event iteration and settling in between."""
        stepper, t = self.stepper, self.t
        count("events", "time")
        with phase("events"):
            if not self.user_grid:
                left = left_limit(t, self.t0, self.t_end)
                z_left = stepper.solve_z(self.x, self.z, left) if z_left is None else z_left
                self.record(t, self.x, z_left, stepper.p, left)
            z = stepper.solve_z(self.x, self.z, t)
            x, z = stepper.iterate_modes(t, self.x, z, stepper.no_guards(), "time")
            if not self.user_grid or np.any(self.grid == t):
                self.record(t, x, z, stepper.p)
            self.t, self.x, self.z, self.g, self.mask = stepper.settle(t, x, z, stepper.no_guards(),
                                                                       self.event_record)


def _evenly_spaced(t, outputs) -> bool:
    """Whether t and the output times are evenly spaced, as the samples of a chunk are (after an
    event between two output times the first interval is shorter: those rows would be recorded
    at times their values do not belong to)."""
    steps = np.diff(np.concatenate([[t], outputs]))
    return bool(np.ptp(steps) <= 1e-9 * steps.mean())
