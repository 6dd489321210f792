"""Hybrid simulation: modes, state events and event iteration (ALGORITHMS.md §4).

While the solver integrates, every mode is frozen. Guards (zero-crossing functions declared
by components) are sampled at least every ``max_step``; when one changes sign, the crossing is
located by bisection to ``event_tol`` seconds, the solver stops there, and the modes are
updated by event iteration: each hybrid component's :meth:`transition` is evaluated on the
current solution, modes change, newly active mode constraints are enforced by projecting the
state (energy-minimizing by default, ALGORITHMS.md §1), the algebraic variables are solved
again, and this repeats until no mode changes. Then the solver restarts (cold start).

Discrete variables (:class:`~physlib.core.component.Discrete`: sampled values, controller
memory) change in the same event iteration, at their component's sample instants (its time
events, and t0 when it is one), through the component's ``update``. Their changes are not
listed as events (a 1 kHz controller would add a thousand a second and trip the event-storm
check); the result rows just before and after each sample instant show them.

After every event the guards that sit at zero are looked at again a moment later (settling):
one that leaves zero on the side calling for another mode triggers that change at once, one
that crosses straight back is a new event (so chattering trips the event-storm check), and
one that stays at zero is masked until it leaves zero (anti-chattering).

Integration uses the normalized-time integrators of :mod:`physlib.analysis.integrators`,
built once per model: one with a single output (for locating crossings and short intervals),
one with 16·m outputs that runs through 16 output intervals per call on the default output
grid, sampling the guards m times per interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import casadi as cs
import numpy as np

from ..core.component import Discrete, as_real
from ..core.errors import InitializationError, PhyslibError, SimulationError
from .fast_call import fast
from .initialization import solve_algebraic
from .integrators import Integration
from .projection import constraint_jacobian, energy_matrix, energy_projection, naive_projection
from .start_values import check_finite


LEFT_LIMIT = 1e-12     # offset of left-limit evaluations, relative to the run's time scale


def left_limit(t: float, t0: float, t_end: float) -> float:
    """The time at which values "just before" a time event at ``t`` are evaluated: earlier by
    1e-12 of the run's time scale, clearly before the edge tolerance of waveforms (10⁻¹⁴ of
    |t|), so a waveform there has its pre-edge value, while continuous inputs move by a
    negligible 1e-12 relative."""
    return t - LEFT_LIMIT * max(abs(t), t_end - t0)


def snap_to_events(grid: np.ndarray, events, t0: float, t_end: float) -> np.ndarray:
    """Output times with those within two left-limit offsets of a time event moved onto it: a
    grid point a rounding error before an edge would otherwise be evaluated after the edge
    (the waveform's edge tolerance) and show the post-edge value as if before it."""
    if not len(events):
        return grid
    events = np.asarray(sorted(events))
    k = np.clip(np.searchsorted(events, grid), 1, len(events)) - 1
    nearest = np.where(np.abs(events[np.minimum(k + 1, len(events) - 1)] - grid)
                       < np.abs(events[k] - grid), events[np.minimum(k + 1, len(events) - 1)], events[k])
    close = np.abs(nearest - grid) <= 2 * LEFT_LIMIT * np.maximum(np.abs(grid), t_end - t0)
    return np.unique(np.where(close, nearest, grid))


@dataclass
class Event:
    """A mode change: time [s], component path, modes before and after, and its cause."""

    t: float
    component: str
    before: dict
    after: dict
    cause: str      # "state" (a guard crossed zero), "time" (a scheduled time) or "initial"

    def __repr__(self):
        return f"<Event t={self.t:.10g} {self.component}: {self.before} -> {self.after} ({self.cause})>"


class HybridStepper:
    """Integrates a compiled model with modes from event to event."""

    def __init__(self, model, p, *, solver, rtol, atol, event_tol, max_events, projection, step=None):
        self.model = model
        self.system = model.system
        self.p = p.copy()
        self.solver = solver
        self.rtol, self.atol = rtol, atol
        self.event_tol = event_tol
        self.max_events = max_events
        self.projection = projection
        self.events: list[Event] = []
        self.zero_band = 10 * atol         # guard values this small count as zero after an event
        self.noise = 1e-6 * self.zero_band # a probe moving a guard less than this is rounding
        self._hybrid = _hybrid_instances(model)
        self._sampled = [inst for inst in self._hybrid if inst.discrete_slot]
        self._has_states = len(self.system.state_pos) > 0
        # step(x, z, p, ta, tb) -> (x, z): the fixed-step runs' own stepper, which then does
        # the short integrations of settling (no SUNDIALS integrator in a fixed-step run).
        self._step = step
        self._integration = Integration(model, solver, rtol, atol) if step is None else None
        self._describe = lambda i: model.algebraic[i]  # noqa: E731

    # --- numerics -----------------------------------------------------------------------------

    def solve_z(self, x, z, t):
        return solve_algebraic(self.system, x, z, self.p, t, self._describe)

    def integrate(self, x, z, ta, tb):
        if tb <= ta:
            return x, z
        if not self._has_states:                # no states: the algebraic solution at tb
            return x, self.solve_z(x, z, tb)
        if self._step is not None:
            return self._step(x, z, self.p, ta, tb)
        X, Z = self._integration(x, z, self.p, ta, tb)
        return X[:, 0], Z[:, 0]

    def guards(self, x, z, t):
        return fast(self.system, "guards")(x, z, self.p, t)

    def guards_along(self, X, Z, times):
        """Guard values at several points (columns of X, Z at ``times``)."""
        n = len(times)
        along = fast(self.system, f"guards_along{n}", lambda: _along(self.system.guards, n))
        return along(X, Z, self.p, np.asarray(times)).reshape(n, -1).T

    def integrate_chunk(self, x, z, ta, tb, n):
        """States and algebraic variables at n equally spaced points of (ta, tb], one call."""
        if not self._has_states:
            times = ta + (tb - ta) * np.arange(1, n + 1) / n
            Z = np.column_stack([self.solve_z(x, z, tt) for tt in times])
            return np.empty((0, n)), Z
        return self._integration(x, z, self.p, ta, tb, _even_grid(n))

    def handle_event(self, t, x, z, fired, cause, record=None, g_before=None):
        """Event iteration at time t, then settling. Returns (t, x, z, reference guard values,
        mask) to integrate on from; t moves on if settling found another event.

        ``fired``: guards that crossed zero (none at a time event or the start), ``g_before``
        their values before the crossing. ``record(t, x, z, p)`` receives the rows just before
        and after each state event.

        Settling: a guard that is zero after the event may leave zero on the side that calls for
        another mode (a rectifier whose source starts at exactly 0 V), or cross straight back
        (chattering, which the event-storm check then stops). So the transitions are asked
        again a moment later (100·event_tol); if a mode changes there, that is a new event."""
        if record:
            record(t, x, z, self.p)
        x, z = self.iterate_modes(t, x, z, fired, cause)
        if record:
            record(t, x, z, self.p)
        return self.settle(t, x, z, fired, record, g_before)

    def settle(self, t, x, z, fired, record=None, g_before=None):
        """The settling part of :meth:`handle_event`, after the event iteration at t."""
        g_before = np.zeros(len(fired)) if g_before is None else g_before
        while True:
            g = self.guards(x, z, t)
            near = np.abs(g) <= self.zero_band
            if not np.any(near):            # nothing can leave zero: no probe needed
                return t, x, z, g, np.zeros(len(g), bool)
            g, mask, (t_d, (x_d, z_d), g_d) = self.probe(x, z, t)
            back = fired & near & (np.sign(g_d) == np.sign(g_before)) & (g_d != 0)
            count, p_old = len(self.events), self.p.copy()
            x_new, z_new = self.iterate_modes(t_d, x_d, z_d, back, "state")
            if len(self.events) == count:
                return t, x, z, g, mask
            if record:
                record(t_d, x_d, z_d, p_old)
                record(t_d, x_new, z_new, self.p)
            g_before = np.where(back, -np.sign(g_d), g_before)
            t, x, z, fired = t_d, x_new, z_new, back

    def probe(self, x, z, t):
        """Guard values to compare the next sample with, and the guards masked for now.

        A guard that is zero at an event (a clutch that just broke away starts at w_rel = 0, a
        bouncing ball at zero height) takes the sign it has a moment later, so the next
        crossing is caught even if it comes within one sampling interval; a guard still zero
        then is masked until it leaves zero (anti-chattering)."""
        g = self.guards(x, z, t)
        t_d = t + 100 * self.event_tol
        x_d, z_d = self.integrate(x, z, t, t_d)
        g_d = self.guards(x_d, z_d, t_d)
        near = np.abs(g) <= self.zero_band
        leaving = (np.abs(g_d) > np.abs(g)) & (np.abs(g_d) > self.noise)
        g = np.where(near & leaving, g_d, g)
        return g, near & ~leaving, (t_d, (x_d, z_d), g_d)

    # --- events ---------------------------------------------------------------------------------

    def crossed(self, g_ref, g, mask):
        """Guards that crossed zero since their reference values ``g_ref``.

        An unmasked guard crossed when its sign changed (or it reached zero). A masked guard
        (zero at an event, its reference the value then) crossed when it left the zero band,
        unless its reference was already clearly on that side: a ball whose bounce is too low
        to leave the band would otherwise fall through the floor unnoticed, while a clutch
        that starts slipping just moves away from zero."""
        changed = ((g_ref > 0) & (g <= 0)) | ((g_ref < 0) & (g >= 0))
        same_side = (np.sign(g_ref) == np.sign(g)) & (np.abs(g_ref) > self.noise)
        return np.where(mask, (np.abs(g) > self.zero_band) & ~same_side, changed)

    def watch(self, g_ref, g, mask):
        """Reference values and mask after a sample ``g`` without crossings: masked guards keep
        the value they were masked at until they leave the zero band."""
        mask = mask & (np.abs(g) <= self.zero_band)
        return np.where(mask, g_ref, g), mask

    def locate(self, x, z, ta, tb, g_a, mask, t_seen=None):
        """Earliest crossing in (ta, tb]: returns (t, x, z, fired, released) just past it;
        ``released``: masked guards that left the zero band (located where they crossed zero).
        ``t_seen``: the time at which the guards at tb are evaluated (the left limit when tb is
        a time event).

        The crossing is estimated on the solver's dense output: a cubic Hermite interpolant of
        the states between ta and tb (values and derivatives at both ends), the algebraic
        variables solved along it, and the Illinois method on each guard that changed sign.
        Two integrations confirm it: no crossing event_tol/2 before the estimate, a crossing
        event_tol/2 after. If the estimate is not confirmed (the interpolant is only as accurate
        as the solver), :func:`bracket` narrows it with one integration per step."""
        x_hi, z_hi = self.integrate(x, z, ta, tb)
        t_seen = tb if t_seen is None else t_seen
        z_seen = z_hi if t_seen == tb else self.solve_z(x_hi, z_hi, t_seen)
        g_hi = self.guards(x_hi, z_seen, t_seen)
        # A guard masked at zero that has left the zero band is located where it crossed zero,
        # not where it left the band: a ball whose bounce is too low to leave the band would
        # otherwise hit the floor at the band's depth, gaining m·g·band each time.
        left = mask & (np.abs(g_hi) > self.zero_band)
        g_a = np.where(left, -np.sign(g_hi), g_a)
        mask = mask & ~left
        lo, x_lo, z_lo, hi = ta, x, z, tb
        found = None if np.any(left) else self._dense_root(x, z, ta, x_hi, z_seen, t_seen, g_a, mask)
        j = None
        if found is not None:
            estimate, j = found
            t_before = max(ta, estimate - 0.5 * self.event_tol)
            t_after = min(tb, max(estimate + 0.5 * self.event_tol, t_before + self.event_tol))
            x_b, z_b = self.integrate(x, z, ta, t_before)
            g_b = self.guards(x_b, z_b, t_before)
            if t_before == ta or not np.any(self.crossed(g_a, g_b, mask)):
                lo, x_lo, z_lo = t_before, x_b, z_b
                x_c, z_c = self.integrate(x_b, z_b, t_before, t_after)
                g_c = self.guards(x_c, z_c, t_after)
                if np.any(self.crossed(g_a, g_c, mask)):
                    return t_after, x_c, z_c, self.crossed(g_a, g_c, mask), left
                lo, x_lo, z_lo, g_lo = t_after, x_c, z_c, g_c
            else:
                hi, x_hi, z_hi, g_hi = t_before, x_b, z_b, g_b
        # The estimate was not confirmed (it is only as accurate as the solver's tolerances
        # allow): regula falsi on the guard that crosses first, each value from an integration
        # out of the bracket's left end (the crossing test itself covers every guard).
        state = {"lo": (lo, x_lo, z_lo), "hi": (hi, x_hi, z_hi, g_hi)}

        def probe(t):
            t_lo, x_l, z_l = state["lo"]
            x_m, z_m = self.integrate(x_l, z_l, t_lo, t)
            g_m = self.guards(x_m, z_m, t)
            beyond = bool(np.any(self.crossed(g_a, g_m, mask)))
            if beyond:
                state["hi"] = (t, x_m, z_m, g_m)
            else:
                state["lo"] = (t, x_m, z_m)
            return beyond, (None if j is None else g_m[j])

        f_lo = None if j is None else (g_a[j] if lo == ta else g_lo[j])
        bracket(probe, lo, hi, f_lo, None if j is None else g_hi[j], self.event_tol)
        hi, x_hi, z_hi, g_hi = state["hi"]
        return hi, x_hi, z_hi, self.crossed(g_a, g_hi, mask), left

    def _dense_root(self, xa, za, ta, xb, zb, tb, g_a, mask):
        """(time, guard index) of the earliest zero in (ta, tb) of the guards that changed
        sign, on the cubic Hermite interpolant of the states (algebraic variables solved along
        it); None if it cannot be estimated (no states, or a solve fails)."""
        g_b = self.guards(xb, zb, tb)
        changed = np.flatnonzero(~mask & self.crossed(g_a, g_b, mask))
        if not self._has_states or not len(changed):
            return None
        dae = fast(self.system, "dae")
        h = tb - ta
        fa, fb = dae(xa, za, self.p, ta)[0] * h, dae(xb, zb, self.p, tb)[0] * h
        state = {"z": za}

        def guard(tau, j):
            # Hermite basis on τ ∈ [0, 1]; derivatives scaled by h.
            t2, t3 = tau * tau, tau * tau * tau
            x = ((2 * t3 - 3 * t2 + 1) * xa + (t3 - 2 * t2 + tau) * fa
                 + (-2 * t3 + 3 * t2) * xb + (t3 - t2) * fb)
            t = ta + h * tau
            state["z"] = self.solve_z(x, state["z"], t)
            return self.guards(x, state["z"], t)[j]

        tol = 0.25 * self.event_tol / h
        roots = []
        try:
            for j in changed:
                def probe(tau, j=j):
                    value = guard(tau, j)
                    return value == 0 or (value > 0) == (g_b[j] > 0), value
                lo, hi = bracket(probe, 0.0, 1.0, g_a[j], g_b[j], tol)
                roots.append(0.5 * (lo + hi))
        except PhyslibError:
            return None
        first = int(np.argmin(roots))
        return ta + h * roots[first], int(changed[first])

    def start(self, t0, t_end, x, z):
        """The event iteration at the start of a run from t0 to t_end; returns (x, z).

        Discrete variables that start from a parameter take its value, and each component with
        discrete variables gets its sample instants in [t0, t_end) (an instant at t_end, like
        any event there, changes nothing before the end); one at t0 is taken here."""
        before = self.p.copy()
        shared = {}     # equal schedules (many blocks at one rate) are stored once
        for inst in self._sampled:
            for slot, source in inst.start_slots.items():
                self.p[slot] = self.p[source]
            values = {name: float(self.p[slot]) for name, slot in inst.param_slots.items()}
            times = inst.component.time_events(values, t0, t_end)
            samples = frozenset(te for te in times if t0 <= te < t_end)
            inst.samples = shared.setdefault(samples, samples)
        if not np.array_equal(before, self.p):
            z = self.solve_z(x, z, t0)
        return self.iterate_modes(t0, x, z, _no_guards(self), "initial")

    def iterate_modes(self, t, x, z, fired, cause):
        """Event iteration at time t: update modes, and the discrete variables of components
        with a sample instant at t, until they settle; returns (x, z)."""
        pre = self.p.copy()
        due = [inst for inst in self._sampled if t in inst.samples]
        for _ in range(20 + 2 * len(self._hybrid)):
            values = fast(self.system, "outputs")(x, z, self.p, t)
            changes = []
            for inst in self._hybrid:
                new = inst.transition(values, self.p, pre, fired)
                if new:
                    changes.append((inst, new))
            updates = [(inst, new) for inst in due if (new := inst.update(values, self.p, pre, t))]
            if not changes and not updates:
                return x, z
            before_p = self.p.copy()
            for inst, new in changes:
                before = inst.modes(self.p)
                for name, code in new.items():
                    self.p[inst.mode_slot[name]] = code
                self._record(Event(t, inst.path, before, inst.modes(self.p), cause))
            for inst, new in updates:
                for name, value in new.items():
                    self.p[inst.discrete_slot[name]] = value
            x = self._project(x, z, t, before_p)
            try:
                z = self.solve_z(x, z, t)
                check_finite(self.model, x, z, self.p, t, "after the event")
            except InitializationError as err:
                names = ", ".join(f"{inst.path} -> {inst.modes(self.p) | inst.discrete(self.p)}"
                                  for inst, _ in changes + updates)
                raise PhyslibError(
                    f"at t = {t:.10g} s the modes {names} leave the equations without a solution "
                    f"(conflicting ideal elements?): {err}") from None
        names = ", ".join(sorted({inst.path for inst, _ in changes + updates}))
        raise PhyslibError(f"the modes of {names} do not settle at t = {t:.10g} s: event iteration "
                           "cycles; check the transition logic of these components")

    def _project(self, x, z, t, before_p):
        """Make the state consistent with the mode constraints now active (ALGORITHMS §1).

        A constraint that has just become active is enforced as ``expr⁺ = −e·expr⁻`` (e = 0:
        a lock or plastic contact); constraints already active with e = 0 are kept as well, so
        that one lock does not undo another."""
        if self.projection is None or not len(x) or not self.system.constraints.nnz_out(0):
            return x
        constraints = fast(self.system, "constraints")
        h, active, e = constraints(x, z, self.p, t)
        was_active = constraints(x, z, before_p, t)[1] > 0.5
        rows = np.flatnonzero((active > 0.5) & (~was_active | (e == 0)))
        target = -e[rows] * h[rows]
        if not len(rows) or np.all(np.abs(h[rows] - target) <= self.atol):
            return x
        J = constraint_jacobian(self.system, x, z, self.p, t)[rows]
        d = J @ x - h[rows] + target
        if self.projection == "naive":
            return naive_projection(x, J, d)
        return energy_projection(x, energy_matrix(self.system, x, z, self.p, t), J, d)

    def _record(self, event: Event):
        self.events.append(event)
        window = [e for e in self.events[-(self.max_events + 1):]]
        if len(window) > self.max_events and window[-1].t - window[0].t <= 1e-6 * max(1.0, abs(event.t)):
            counts = {}
            for e in window:
                counts[e.component] = counts.get(e.component, 0) + 1
            worst = max(counts, key=counts.get)
            raise PhyslibError(
                f"event storm: more than {self.max_events} events within "
                f"{window[-1].t - window[0].t:.3g} s around t = {event.t:.10g} s, most of them in "
                f"{worst}; the model chatters (raise max_events if this is intended)")


def simulate_hybrid(model, t0, t_end, grid, user_grid, p, x, z, *, solver, rtol, atol, max_step,
                    event_tol, max_events, projection, record):
    """Run from t0 to t_end with state and time events; calls ``record(t, x, z, p[, t_value])``
    (t_value: the time at which outputs are evaluated, the left limit just before a time event)."""
    stepper = HybridStepper(model, p, solver=solver, rtol=rtol, atol=atol, event_tol=event_tol,
                            max_events=max_events, projection=projection)
    step = max_step if max_step is not None else (t_end - t0) / 1000.0
    x, z = stepper.start(t0, t_end, x, z)
    if grid[0] == t0:
        record(t0, x, z, stepper.p)
    t, x, z, g, mask = stepper.settle(t0, x, z, _no_guards(stepper), None if user_grid else record)
    time_events = set(model.time_events(stepper.p, t0, t_end))
    grid = snap_to_events(grid, time_events, t0, t_end)
    stops = np.unique(np.concatenate([grid[grid > t0], list(time_events), [t_end]]))
    # On the default output grid, several output intervals are integrated in one solver call
    # (a cold restart per sampling interval costs tens of solver steps), with the guards
    # sampled at m points per output interval.
    spacing = (grid[-1] - grid[0]) / max(len(grid) - 1, 1)
    per_output = max(1, int(np.ceil(spacing / step - 1e-9)))
    chunking = not user_grid and len(grid) > 1
    # Guards are seen at the left limit of time events and of t_end (an edge exactly at t_end
    # changes nothing before it).
    timed = np.isin(stops, list(time_events)) | (stops == t_end)
    i, crossing_ahead = 0, -1     # a chunk saw a guard cross before stops[crossing_ahead]
    while i < len(stops):
        stop = stops[i]
        k_out = min(CHUNK_OUTPUTS, len(stops) - i)
        if chunking and i > crossing_ahead and t == (stops[i - 1] if i else t0) \
                and not timed[i:i + k_out].any() and stops[i + k_out - 1] < t_end \
                and k_out == CHUNK_OUTPUTS and _evenly_spaced(t, stops[i:i + k_out]):
            try:
                done, t, x, z, g, mask = _chunk(stepper, t, x, z, g, mask, stops[i:i + k_out],
                                                per_output, record)
            except SimulationError:
                # IDAS's initial-condition step can fail for a long first output interval on
                # stiff mode equations; single intervals are the robust fallback.
                crossing_ahead = i + k_out - 1
                continue
            if done < k_out:
                crossing_ahead = i + done       # step through that interval sample by sample
            i += done
            continue
        z_left = None
        while t < stop:
            # One solver call to the stop, the guards sampled every `step` on its dense output
            # (a sample a rounding error short of the stop is the stop).
            n = max(1, int(np.ceil((stop - t) / step * (1 - 1e-6))))
            X, Z = stepper.integrate_chunk(x, z, t, stop, n)
            times = t + (stop - t) * np.arange(1, n + 1) / n
            times[-1] = stop
            G = stepper.guards_along(X, Z, times)
            if timed[i]:
                # Before a time event the guards are seen at its left limit (the input that
                # steps there is a time event, not a state event); the algebraic variables the
                # solver returns at the stop already see the edge.
                t_seen = left_limit(stop, t0, t_end)
                z_left = stepper.solve_z(X[:, -1], Z[:, -1], t_seen)
                G[:, -1] = stepper.guards(X[:, -1], z_left, t_seen)
            for k in range(n):
                crossed = stepper.crossed(g, G[:, k], mask)
                if np.any(crossed):
                    seen = t_seen if timed[i] and k == n - 1 else times[k]
                    te, xe, ze, fired, released = stepper.locate(x, z, t, times[k], g, mask, seen)
                    count = len(stepper.events)
                    t, x, z, g, mask = stepper.handle_event(te, xe, ze, fired, "state",
                                                            None if user_grid else record, g_before=g)
                    if len(stepper.events) == count and np.any(released):
                        # Nothing changed: a guard just moved away from zero. Watch it from the
                        # side it went to, or it would be masked and located here again forever.
                        mask = mask & ~released
                        g = np.where(released, G[:, k], g)
                    z_left = None
                    break
                t, x, z = times[k], X[:, k], Z[:, k]
                g, mask = stepper.watch(g, G[:, k], mask)
        if timed[i] and stop < t_end:
            if not user_grid:
                left = left_limit(t, t0, t_end)
                z_left = stepper.solve_z(x, z, left) if z_left is None else z_left
                record(t, x, z_left, stepper.p, left)
            z = stepper.solve_z(x, z, t)
            x, z = stepper.iterate_modes(t, x, z, _no_guards(stepper), "time")
            if not user_grid or np.any(grid == t):
                record(t, x, z, stepper.p)
            t, x, z, g, mask = stepper.settle(t, x, z, _no_guards(stepper), None if user_grid else record)
        elif np.any(grid == stop):
            record(t, x, z, stepper.p)
        i += 1
    return stepper.events


CHUNK_OUTPUTS = 16      # output intervals integrated per solver call on the default grid


def _evenly_spaced(t, outputs) -> bool:
    """Whether t and the output times are evenly spaced, as the samples of a chunk are (after an
    event between two output times the first interval is shorter: those rows would be recorded
    at times their values do not belong to)."""
    steps = np.diff(np.concatenate([[t], outputs]))
    return bool(np.ptp(steps) <= 1e-9 * steps.mean())


def _chunk(stepper, t, x, z, g, mask, outputs, per_output, record):
    """Integrate through ``outputs`` (consecutive output times) in one call, sampling the
    guards ``per_output`` times per interval. Returns how many outputs were completed and the
    state to go on from: the last output, or the sample just before a guard crossing (the
    caller then locates it with single-interval steps)."""
    n = len(outputs) * per_output
    X, Z = stepper.integrate_chunk(x, z, t, outputs[-1], n)
    times = t + (outputs[-1] - t) * np.arange(1, n + 1) / n
    G = stepper.guards_along(X, Z, times)
    for k in range(n):
        if np.any(stepper.crossed(g, G[:, k], mask)):
            return k // per_output, t, x, z, g, mask
        t, x, z = times[k], X[:, k], Z[:, k]
        g, mask = stepper.watch(g, G[:, k], mask)
        if (k + 1) % per_output == 0:
            t = outputs[(k + 1) // per_output - 1]      # the exact output time
            record(t, x, z, stepper.p)
    return len(outputs), t, x, z, g, mask


def _no_guards(stepper):
    return np.zeros(len(stepper.system.guard_owner), bool)


class _HybridInstance:
    """One component with modes or discrete variables: reads its values and asks it for its
    next modes (``transition``) or, at its sample instants, discrete values (``update``)."""

    def __init__(self, model, group, row, guard_rows):
        self.component = group.components[row]
        self.path = group.paths[row]
        tpl = group.template
        self.local_pos = model.system.var_col[group.var_ids[row]]
        self.local_sign = model.system.var_sign[group.var_ids[row]]
        self.local_names = tpl.local_names
        self.param_slots = dict(zip(tpl.param_names, group.param_ids[row][:len(tpl.param_names)].tolist()))
        slots = dict(zip(tpl.mode_names, group.param_ids[row][len(tpl.param_names):].tolist()))
        declared = type(self.component)._modes
        self.mode_slot = {n: s for n, s in slots.items() if not isinstance(declared[n], Discrete)}
        self.discrete_slot = {n: s for n, s in slots.items() if isinstance(declared[n], Discrete)}
        # discrete slot -> slot of the parameter it starts from
        self.start_slots = {s: self.param_slots[declared[n].start_parameter]
                            for n, s in self.discrete_slot.items() if declared[n].start_parameter}
        self.samples = frozenset()      # sample instants of the run (HybridStepper.start)
        # (instant, discrete values before it) of the latest sample: pre(...) stays the value
        # before the instant however often it is iterated there (a state event that lands on
        # an instant iterates there twice, with a settling probe in between).
        self._pre = (None, {})
        self.guard_rows = guard_rows

    def modes(self, p) -> dict:
        return {name: int(p[slot]) for name, slot in self.mode_slot.items()}

    def discrete(self, p) -> dict:
        return {name: float(p[slot]) for name, slot in self.discrete_slot.items()}

    def _local(self, values, p, pre):
        local = dict(zip(self.local_names, (self.local_sign * values[self.local_pos]).tolist()))
        local.update({name: float(p[slot]) for name, slot in self.param_slots.items()})
        local.update({name: int(p[slot]) for name, slot in self.mode_slot.items()})
        local.update({f"pre({name})": int(pre[slot]) for name, slot in self.mode_slot.items()})
        local.update(self.discrete(p))
        return local

    def transition(self, values, p, pre, fired):
        local = self._local(values, p, pre)
        new = self.component.transition(local, [bool(fired[r]) for r in self.guard_rows])
        return {name: int(code) for name, code in (new or {}).items()
                if int(code) != int(p[self.mode_slot[name]])}

    def update(self, values, p, pre, t):
        """Changed discrete values at sample instant t (``pre``: the parameter vector at the
        start of this event iteration, for the modes' ``pre(...)`` as in :meth:`transition`)."""
        if self._pre[0] != t:
            self._pre = (t, self.discrete(p))
        local = self._local(values, p, pre)
        local.update({f"pre({name})": value for name, value in self._pre[1].items()})
        new = self.component.update(local, t) or {}
        bad = {name: value for name, value in new.items()
               if name not in self.discrete_slot or not math.isfinite(_real(value))}
        if bad:
            raise PhyslibError(f"{type(self.component).__name__} {self.path!r}: update() at "
                               f"t = {t:.10g} s returned {bad}; it gives finite values of its "
                               f"discrete variables ({', '.join(self.discrete_slot) or 'none'})")
        return {name: float(value) for name, value in new.items()
                if float(value) != p[self.discrete_slot[name]]}


def _real(value) -> float:
    """``value`` as a float, NaN if it is not a real number."""
    number = as_real(value)
    return math.nan if number is None else number


def _hybrid_instances(model):
    system = model.system
    rows: dict[tuple[int, int], list[int]] = {}
    for r, (gi, inst, _) in enumerate(system.guard_owner):
        rows.setdefault((gi, inst), []).append(r)
    out = []
    for gi, group in enumerate(model.component_groups):
        if group.template.mode_names:
            for row in range(len(group.paths)):
                out.append(_HybridInstance(model, group, row, rows.get((gi, row), [])))
    return out


def bracket(probe, lo: float, hi: float, f_lo, f_hi, tol: float, max_iter: int = 100):
    """Shrink [lo, hi], which holds a sign change, below ``tol``; returns (lo, hi).

    ``probe(c)`` -> (beyond, value): whether c is already past the change (on hi's side), and
    the function's value there. Steps are the Illinois variant of regula falsi (the end that
    stays put has its value halved), with a bisection step whenever two steps did not halve the
    bracket (guards may jump: a contact's gap turning into its speed); with f_lo or f_hi None,
    bisection only. Bounded: a ``tol`` below the spacing of floating-point numbers there ends
    when the trial point no longer moves."""
    widths, side = [2 * (hi - lo)] * 2, 0
    for _ in range(max_iter):
        if hi - lo <= tol:
            break
        c = 0.5 * (lo + hi)
        if f_lo is not None and f_hi is not None and hi - lo <= 0.5 * widths[-2] and f_hi != f_lo:
            c = min(max(hi - f_hi * (hi - lo) / (f_hi - f_lo), lo + 0.25 * tol), hi - 0.25 * tol)
        widths.append(hi - lo)
        if not lo < c < hi:
            break
        beyond, value = probe(c)
        if beyond:
            hi, f_hi = c, value
            if side == -1 and f_lo is not None:
                f_lo *= 0.5
            side = -1
        else:
            lo, f_lo = c, value
            if side == 1 and f_hi is not None:
                f_hi *= 0.5
            side = 1
    return lo, hi


def _along(function, n: int) -> cs.Function:
    """``function`` (x, z, p, t) evaluated at n points: (X, Z, p, T) with one column of X, Z
    and T per point and the same parameters p."""
    X, Z, T = (cs.MX.sym(name, function.size1_in(i), n) for i, name in ((0, "X"), (1, "Z"), (3, "T")))
    p = cs.MX.sym("p", function.size1_in(2))
    return cs.Function(f"{function.name()}_along", [X, Z, p, T], [function.map(n)(X, Z, p, T)])


def _even_grid(n: int) -> tuple:
    """n equally spaced output points of normalized time, (1/n, 2/n, ..., 1)."""
    return tuple((np.arange(1, n + 1) / n).tolist())
