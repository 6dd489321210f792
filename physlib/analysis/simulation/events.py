"""Hybrid simulation: modes, state events and event iteration.

While the solver integrates, every mode is frozen. Guards (zero-crossing functions declared
by components) are sampled at least every ``max_step``; when one changes sign, the crossing is
located to ``event_tol`` seconds (:mod:`physlib.analysis.simulation.event_location`), the solver stops
there, and the modes are updated by event iteration: each hybrid component's
:meth:`transition` is evaluated on the current solution, modes change, newly active mode
constraints are enforced by projecting the state (by default onto the nearest state in the
metric of stored energy: a plastic lock), the algebraic variables are solved again, and this
repeats until no mode changes (Modelica's synchronous event semantics: M. Otter, H. Elmqvist,
S. E. Mattsson, "Hybrid modeling in Modelica based on the synchronous data flow principle",
CACSD 1999). Then the solver restarts (cold start). A time event whose iteration takes the
usual course of a switching circuit's edge (modes change once, nothing near zero to settle) is
taken in few compiled calls instead (:mod:`~physlib.analysis.simulation.quick_time_events`),
with the same numbers. The run from event to event is
:func:`physlib.analysis.simulation.hybrid_simulation.simulate_hybrid`; this module holds the
:class:`HybridStepper` it (and the fixed-step solvers' event hook) steps with.

Discrete variables (:class:`~physlib.core.component.Discrete`: sampled values, controller
memory) change in the same event iteration, at their component's sample instants (its time
events, and t0 when it is one), through the component's ``update``. Their changes are not
listed as events (a 1 kHz controller would add a thousand a second and trip the event-storm
check); the result rows just before and after each sample instant show them.

After every event the guards that sit at zero are looked at again a moment later (settling):
one that leaves zero on the side calling for another mode triggers that change at once, one
that crosses straight back is a new event (so chattering trips the event-storm check), and
one that stays at zero is masked until it leaves zero (anti-chattering).
"""
from __future__ import annotations

import numpy as np

from ...core.errors import InitializationError, ModeSettlingError, PhyslibError
from ...core.lazy import lazy_module
from ..common.fast_call import fast
from ..common.hybrid_components import (Event, hybrid_instances, max_mode_rounds,
                                        no_crossings, set_modes)
from ..common.hybrid_functions import impacts_first_function
from ..common.initialization import solve_algebraic
from ..common.start_values import check_finite
from .event_storms import chattering_storm, crowded_storm
from .event_trace import NO_TRACE, current_trace
from .guard_checks import crossing_function, step_check_function
from .mode_requests import ModeRequests
from .quick_time_events import QuickTimeEvents
from .run_stats import count as count_event
from .stepping_functions import buffered

projection = lazy_module("physlib.analysis.common.projection")     # for models with mode constraints


class HybridStepper:
    """Integrates a compiled model with modes from event to event."""

    def __init__(self, model, p, *, solver, rtol, atol, event_tol, max_events, projection, step,
                 probe_stops=(), time_events: int = 0):
        self.model = model
        self.system = model.system
        self.p = p.copy()
        self.solver, self.rtol, self.atol, self.event_tol = solver, rtol, atol, event_tol
        self.max_events, self.projection = max_events, projection
        self.events: list[Event] = []
        self.trace = current_trace()        # who follows the events (event_trace)
        self.zero_band = 10 * atol         # guard values this small count as zero after an event
        self.noise = 1e-6 * self.zero_band # a probe moving a guard less than this is rounding
        self._check = None                 # the buffers of step_check, made on first use
        self._hybrid = hybrid_instances(model)
        self._sampled = [inst for inst in self._hybrid if inst.discrete_slot]
        self._requests = ModeRequests(model, self._hybrid, expected_rounds=time_events)
        self._quick = None                 # see quick_time_event
        self.chattering: list[float] = []  # times of the released-guard events in a row
        self.has_states = len(self.system.state_pos) > 0
        # step(x, z, p, ta, tb, watch) -> (t, x, z): the run's own solver, which does the short
        # integrations of settling (:meth:`integrate`).
        self._step = step
        self.probe_stops = np.asarray(probe_stops, dtype=float)   # see probe()
        self._describe = lambda i: model.algebraic[i]  # noqa: E731

    # --- numerics -----------------------------------------------------------------------------

    def solve_z(self, x, z, t):
        return solve_algebraic(self.system, x, z, self.p, t, self._describe)

    def integrate(self, x, z, ta, tb, watch):
        """(t, x, z) at tb from (x, z) at ta, or just past the first crossing of a guard before
        tb, watched from references ``watch`` = (g_ref, mask), where the step can tell."""
        if tb <= ta:
            return ta, x, z
        if not self.has_states:                # no states: the algebraic solution at tb
            return tb, x, self.solve_z(x, z, tb)
        return self._step(x, z, self.p, ta, tb, watch)

    def no_guards(self) -> np.ndarray:
        """The guards' "fired" flags at a time event or the start: none."""
        return no_crossings(self.model)

    def guards(self, x, z, t):
        return fast(self.system, "guards")(x, z, self.p, t)

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
            if not near.any():              # nothing can leave zero: no probe needed
                return t, x, z, g, np.zeros(len(g), bool)
            g, mask, (t_d, (x_d, z_d), g_d), crossing = self.probe(x, z, t)
            back = fired & near & (np.sign(g_d) == np.sign(g_before)) & (g_d != 0)
            count, p_old = len(self.events), self.p.copy()
            self.trace.settling(t)
            x_new, z_new = self.iterate_modes(t_d, x_d, z_d, back | crossing, "state")
            if len(self.events) == count:
                return t, x, z, g, mask
            count_event("events", "state")      # a mode changed a moment later: a new event
            if record:
                record(t_d, x_d, z_d, p_old)
                record(t_d, x_new, z_new, self.p)
            g_before = np.where(back, -np.sign(g_d), np.where(crossing, g, g_before))
            t, x, z, fired = t_d, x_new, z_new, back | crossing

    def probe(self, x, z, t):
        """Guard values to compare the next sample with, the guards masked for now, the look a
        moment later (t_d, (x, z), guards there) and the guards that crossed zero before it.

        A guard that is zero at an event (a clutch that just broke away starts at w_rel = 0, a
        bouncing ball at zero height) takes the sign it has a moment later, so the next
        crossing is caught even if it comes within one sampling interval; a guard still zero
        then is masked until it leaves zero (anti-chattering). A guard away from zero at t that
        crosses within that moment (a diode whose node the event set swinging at 5e5 V/s) ends
        the look just past its crossing, located as any other: the look would otherwise see it
        up to 100·event_tol late, and a diode behind it decided on a state moved that far."""
        g = self.guards(x, z, t)
        near = np.abs(g) <= self.zero_band
        no_crossing = np.zeros(len(g), bool)
        # Not past the next time event's left limit: the probe runs in the modes of t (an ideal
        # diode turned on by rounding carried 1e5 A backwards through a step 2 ns later).
        stops = self.probe_stops[self.probe_stops > t]
        t_d = min(t + 100 * self.event_tol, stops[0] if len(stops) else np.inf)
        if t_d - t <= 1e3 * np.finfo(float).eps * max(1.0, abs(t)):   # a stop within rounding: nothing to probe
            return g, near, (t, (x, z), g), no_crossing
        # The guards away from zero, watched for a sign change (a reference of 0 never changes).
        watch = (np.where(near, 0.0, g), no_crossing)
        t_d, x_d, z_d = self.integrate(x, z, t, t_d, watch)
        g_d = self.guards(x_d, z_d, t_d)
        crossing = self.crossed(watch[0], g_d, watch[1])
        leaving = (np.abs(g_d) > np.abs(g)) & (np.abs(g_d) > self.noise)
        g = np.where(near & leaving, g_d, g)
        return g, near & ~leaving, (t_d, (x_d, z_d), g_d), crossing

    # --- events ---------------------------------------------------------------------------------

    def crossed(self, g_ref, g, mask):
        """Guards that crossed zero since their reference values ``g_ref``.

        An unmasked guard crossed when its sign changed (or it reached zero). A masked guard
        (zero at an event, its reference the value then) crossed when it left the zero band,
        unless its reference was already clearly on that side: a ball whose bounce is too low
        to leave the band would otherwise fall through the floor unnoticed, while a clutch
        that starts slipping just moves away from zero."""
        return self._crossing(g_ref, g, mask, self.zero_band, self.noise)[0] > 0.5

    def watch(self, g_ref, g, mask):
        """Reference values and mask after a sample ``g`` without crossings: masked guards keep
        the value they were masked at until they leave the zero band."""
        _, _, g_ref, mask = self._crossing(g_ref, g, mask, self.zero_band, self.noise)
        return g_ref, mask > 0.5

    def step_check(self, x, z, t, g_ref, mask):
        """The guards at a solver step and what they mean, in one compiled call: (g, whether
        any guard crossed (:meth:`crossed`), and the reference values and mask to watch them
        with from here (:meth:`watch`) if none did). Called at every solver step, so its
        buffers are this run's own (a run is one thread) and only what changes is copied in."""
        _, trigger, inputs, (g, _, any_crossed, watched, watched_mask) = self.check_buffers()
        inputs[0][:], inputs[1][:], inputs[2][:], inputs[3][0] = x, z, self.p, t
        inputs[4][:], inputs[5][:] = g_ref, mask
        trigger()
        return g.copy(), any_crossed[0] > 0.5, watched.copy(), watched_mask > 0.5

    def check_chattering(self, te, released) -> None:
        """Stop a sliding mode that the events chase (a relay whose x' flips sign at its guard).
        An event at te whose guards ``released`` had stayed within the zero band since the
        previous event (masked there, now released on the other side) is chattering; more
        than ``max_events`` of them in a row are an event storm, however far apart the band
        lets them be."""
        if not np.any(released):
            self.chattering = []
            return
        self.chattering.append(te)
        if len(self.chattering) > self.max_events:
            raise chattering_storm([e.component for e in self.events[-len(self.chattering):]],
                                   len(self.chattering), self.chattering[0], te, self.zero_band,
                                   self.rtol, self.atol)

    def check_buffers(self):
        """The buffered step-check function of :meth:`step_check` (this run's own): (buffer,
        trigger, inputs (x, z, p, t, g_ref, mask, zero_band, noise), outputs (g, crossed, any
        crossed, watched g_ref, watched mask)), for a compiled stepping loop to evaluate."""
        if self._check is None:
            self._check = buffered(fast(self.system, "step_check", lambda: step_check_function(self.system)).function)
            self._check[2][6][0], self._check[2][7][0] = self.zero_band, self.noise
        return self._check

    @property
    def _crossing(self):
        return fast(self.system, "crossing", lambda: crossing_function(self.system.guards.size1_out(0)))

    # --- event iteration ------------------------------------------------------------------------

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
        return self.iterate_modes(t0, x, z, self.no_guards(), "initial")

    def iterate_modes(self, t, x, z, fired, cause):
        """Event iteration at time t: update modes, and the discrete variables of components
        with a sample instant at t, until they settle; returns (x, z)."""
        pre = self.p.copy()
        self.trace.begin(t, x, z, pre, fired, cause)
        if not self._hybrid:        # no modes to update, no outputs to read (nor to build)
            self.trace.end(x, z, self.p)
            return x, z
        due = [inst for inst in self._sampled if t in inst.samples]
        outputs = fast(self.system, "outputs")
        values = outputs(x, z, self.p, t)
        for _ in range(max_mode_rounds(self._hybrid)):
            changes = self._impacts_first(self._requests(values, self.p, pre, fired), x, z, t)
            updates = [(inst, new) for inst in due if (new := inst.update(values, self.p, pre, t))]
            if not changes and not updates:
                self.trace.end(x, z, self.p)
                return x, z
            count_event("event_iterations")
            before_p = self.p.copy()
            for event in set_modes(changes, self.p, t, cause):
                self._record(event)
            for inst, new in updates:
                for name, value in new.items():
                    self.p[inst.discrete_slot[name]] = value
            try:
                x_in, z_in = x, z
                x = self._project(x, z, t, before_p)
                z = self.solve_z(x, z, t)
                self.trace.round(t, before_p, self.p, x_in, z_in, x, z)
                values = outputs(x, z, self.p, t)
                if not np.isfinite(values).all():
                    check_finite(self.model, x, z, self.p, t, "after the event")
            except (InitializationError, np.linalg.LinAlgError) as err:
                raise self._no_solution(t, x, z, changes + updates, err) from None
        names = ", ".join(sorted({inst.path for inst, _ in changes + updates}))
        raise ModeSettlingError(f"the modes of {names} do not settle at t = {t:.10g} s: event iteration "
                                "cycles; check the transition logic of these components")

    def quick_time_event(self, t, x, z):
        """The time event at t from (x, z) at its left limit in few compiled calls, where the
        model's transitions are compiled and the event takes its usual course
        (:mod:`.quick_time_events`): (z, guards) after it and the rates to restart from, the
        modes and events as :meth:`iterate_modes` then :meth:`settle` leave them; else None."""
        compiled = self._requests.compiled
        if self._quick is None and compiled:
            self._quick = (not self._sampled and self.trace is NO_TRACE and QuickTimeEvents.for_model(
                self.system, compiled[0], compiled[1], self._describe)) or False
        answer = self._quick(x, z, self.p, t, self.zero_band) if self._quick else None
        if answer is None:
            return None
        z, rounds, g, rates = answer
        self.take_rounds(t, rounds)
        return z, g, rates

    @property
    def quick_course(self) -> QuickTimeEvents | None:
        """The quick course of time events (:meth:`quick_time_event`) once made, else None."""
        return self._quick or None

    def take_rounds(self, t, rounds) -> None:
        """The mode changes of a time event at t taken in the quick course, each round's as
        :meth:`iterate_modes` makes them: ``rounds``, the parameter vector after each round
        (its mode slots read)."""
        for p_round in rounds:
            count_event("event_iterations")
            for event in set_modes(self._requests.among(p_round, self.p), self.p, t, "time"):
                self._record(event)

    def _no_solution(self, t, x, z, changed, err) -> PhyslibError:
        """The error for modes whose equations have no (unique) solution: the components that
        changed and every component whose mode constraint is active (two locks on one motion,
        a clutch stuck beside a locked freewheel, leave the torque between them undetermined)."""
        names = ", ".join(f"{inst.path} -> {inst.modes(self.p) | inst.discrete(self.p)}" for inst, _ in changed)
        active = fast(self.system, "constraints")(x, z, self.p, t)[1] > 0.5 if self.system.constraints.nnz_out(0) \
            else np.zeros(0, bool)
        locked = [inst.path for inst in self._hybrid if any(active[r] for r in inst.constraint_rows)]
        detail = "singular equations" if isinstance(err, np.linalg.LinAlgError) else str(err)
        # Without an active lock the usual cause is an ideal switching element cutting a
        # state that cannot jump (the MSL's ideal elements are meant to run with Goff, Ron > 0).
        hint = (f"Constraints active: {', '.join(locked)}. Two locks on one motion leave the force "
                "between them undetermined" if locked else
                "an ideal element switched where a state would have to jump: an inductor's current "
                "cut by a switch or diode opened with Goff = 0, a capacitor shorted by one closed "
                "with Ron = 0; give it Goff > 0 or Ron > 0, or the current another path")
        return PhyslibError(
            f"at t = {t:.10g} s the modes {names} leave the equations without a unique solution "
            f"(conflicting ideal elements? {hint}): {detail}")

    def _impacts_first(self, changes, x, z, t) -> list:
        """``changes`` without those that release a mode constraint while others in the same
        round impose one (:func:`~physlib.analysis.common.hybrid_functions.
        impacts_first_function`, the definition the exported model runs too): the releases
        wait a round and are decided again on the state projected onto the new constraints."""
        if len(changes) < 2 or not self.system.constraints.nnz_out(0):
            return changes
        p_next = self.p.copy()
        set_modes(changes, p_next, t, "trial")
        kept = fast(self.system, "impacts_first", lambda: impacts_first_function(self.model))(
            x, z, self.p, p_next, t)
        return [(inst, new) for inst, new in changes
                if any(kept[inst.mode_slot[name]] == code for name, code in new.items())]

    def _project(self, x, z, t, before_p):
        """Make the state consistent with the mode constraints now active: the nearest state
        in the metric of stored energy (``projection="energy"``), or the naive rule.

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
        # Even a violation within the tolerances is projected away: a lock or a resting contact
        # keeps its velocity for good, so 1e-10 m/s left at the event is a drift for ever.
        if not len(rows) or np.all(h[rows] == target):
            return x
        J = projection.constraint_jacobian(self.system, x, z, self.p, t)[rows]
        d = J @ x - h[rows] + target
        if self.projection == "naive":
            return projection.naive_projection(x, J, d)
        return projection.energy_projection(x, projection.energy_matrix(self.system, x, z, self.p, t), J, d)

    def _record(self, event: Event):
        events, most = self.events, self.max_events
        events.append(event)
        # more than max_events events within 1e-6 of the latest's time (relative): a storm
        if len(events) > most and event.t - events[-most - 1].t <= 1e-6 * max(1.0, abs(event.t)):
            window = events[-most - 1:]
            raise crowded_storm([e.component for e in window], most, event.t - window[0].t, event.t,
                                self.rtol, self.atol)
