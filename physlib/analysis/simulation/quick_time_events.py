"""A time event of a switching circuit in few compiled calls.

At a time event (a PWM edge) the event iteration of
:meth:`~physlib.analysis.simulation.events.HybridStepper.iterate_modes` solves the algebraic
variables with the input past its edge, evaluates the outputs, asks the components for their
modes, solves again in the new modes, evaluates the outputs and asks again (nothing more
changes); settling evaluates the guards, and the solver restarts from rates consistent with
the new modes. Each of these is a small compiled function called from Python: about 140 µs an
event, where a 10 ms buck converter has 400 events.

:func:`event_round_function` is one round of that course after a solve, as one function of the
same definitions (the outputs, the components' compiled transitions, the guards, the unrolled
consistent rates) with flags for what the course needs. :class:`QuickTimeEvents` takes an
event in rounds of a solve and that call, up to :data:`QUICK_ROUNDS` rounds that change modes
(an ideal-diode buck's edge: the switch, then the diode) and the one that changes nothing,
when that is its whole course: the mode codes whole, the outputs finite, and no guard in the
zero band (settling has nothing to look at). Otherwise the general event iteration runs from
the start; both give the same numbers, computed by the same operations. The C stepping loop
takes the same course itself at the edges it reaches, with the same functions
(:mod:`.compiled_time_events`); Python takes it at the edges the loop leaves to it.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import InitializationError
from ..common.fast_call import fast
from ..common.initialization import UNROLLED_CALLS, solve_algebraic, unrolled_newton
from .dae_points import unrolled_rates


QUICK_ROUNDS = 4
"""Rounds of mode changes a time event may take in the quick course (a PWM edge: the switch,
then the freewheeling diode); an event that takes more is iterated the general way."""


def event_round_function(system, transitions: cs.Function, rates: cs.Function, slots) -> cs.Function:
    """``event_round(x, z, p, pre, t, band) -> (p_next, g, rates, flags)`` at a time event t,
    with the algebraic variables z solved in the modes p: the parameter vector with the modes
    the components ask for (``pre``: the one from before the instant), the guards, [x'; z']
    and five flags: the modes changed, their codes are whole numbers, the outputs are finite,
    a guard is within ``band`` of zero, the rates are finite (not where ∂g/∂z is singular).

    ``transitions``: the components' compiled transitions (values, p, pre, fired) -> p_next;
    ``rates``: (x, z, p, t) -> [x'; z'] (:func:`~.dae_points.unrolled_rates`); ``slots``: the
    mode slots of p."""
    x, z, p, t = system.symbols(cs.SX)
    pre, band = cs.SX.sym("pre", p.size1()), cs.SX.sym("band")
    values = system.outputs(x, z, p, t)
    p_next = transitions(values, p, pre, cs.DM.zeros(system.guards.size1_out(0)))
    g, y_rates = system.guards(x, z, p, t), rates(x, z, p, t)
    codes, slots = p_next[slots], list(map(int, slots))

    def finite(e):
        """1 where every entry of e is finite (NaN and inf fail the comparison)."""
        return cs.sum1(cs.fabs(e) < cs.inf) == e.size1()

    flags = cs.vertcat(cs.sum1(codes != p[slots]) > 0, cs.sum1(cs.floor(codes) != codes) == 0, finite(values),
                       cs.sum1(cs.fabs(g) <= band) > 0, finite(y_rates[len(system.state_pos):]))
    return cs.Function("event_round", [x, z, p, pre, t, band],
                       [cs.densify(e) for e in (p_next, g, y_rates, flags)])


class QuickTimeEvents:
    """Time events of one run in few calls each (see the module's notes)."""

    @staticmethod
    def for_model(system, transitions, slots, describe):
        """The quick course for a model with states, a few algebraic variables and modes (in
        ``slots``), none of them constrained (no projection) or sampled, whose transitions
        compile (``transitions``: their fast function; ``describe(i)`` names algebraic
        variable i); else None."""
        if (unrolled_newton(system) is None or unrolled_rates(system) is None
                or system.constraints.nnz_out(0) or not len(system.state_pos)):
            return None
        return QuickTimeEvents(system, fast(system, "event_round", lambda: event_round_function(
            system, transitions.function, unrolled_rates(system), slots)), slots, describe)

    def __init__(self, system, event_round, slots, describe):
        self.system, self.event_round, self.slots, self.describe = system, event_round, slots, describe
        self.newton = fast(system, "g_newton_unrolled", lambda: unrolled_newton(system))
        # a model that takes this course has many time events: their functions in C at once
        event_round.prefer_native()
        self.newton.prefer_native()

    def __call__(self, x, z, p, t, zero_band: float):
        """(z, the parameter vector after each round that changed modes, g, rates) after the
        time event at t from (x, z) at its left limit with the parameter vector p, or None where
        its course is not the usual one."""
        rounds, p_now = [], p
        try:
            z = self._solve(x, z, p, t)
            while True:
                p_next, g, rates, flags = self.event_round(x, z, p_now, p, t, zero_band)
                if not flags[2]:                        # outputs not finite: the general way names them
                    return None
                if not flags[0]:                        # nothing more changes
                    break
                if not flags[1] or len(rounds) == QUICK_ROUNDS:
                    return None
                p_now = p_now.copy()
                p_now[self.slots] = p_next[self.slots]
                rounds.append(p_now)
                z = self._solve(x, z, p_now, t)
        except (InitializationError, np.linalg.LinAlgError):
            return None
        if flags[3]:                                    # a guard to settle
            return None
        if not flags[4]:                                # as consistent_rates: z' = 0
            rates[len(x):] = 0.0
        return z, rounds, g, rates

    def _solve(self, x, z, p, t):
        """The algebraic variables as :func:`~physlib.analysis.common.initialization.
        solve_algebraic` solves them, its first way (unrolled Newton steps) called directly."""
        solved, converged = self.newton.iterate(UNROLLED_CALLS, z, x, p, t)
        return solved if converged[0] else solve_algebraic(self.system, x, z, p, t, self.describe)
