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
consistent rates). :class:`QuickTimeEvents` takes an event in at most two rounds with the
solves between them, when that is its whole course: the outputs finite, the second round asks
for nothing more and no guard is in the zero band (settling has nothing to look at). Otherwise
the general event iteration runs from the start; both give the same numbers, computed by the
same operations.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import InitializationError
from ..common.fast_call import fast
from ..common.initialization import solve_algebraic, unrolled_newton
from .dae_points import unrolled_rates


def event_round_function(system, transitions: cs.Function, rates: cs.Function) -> cs.Function:
    """``event_round(x, z, p, pre, t) -> (values, p_next, g, rates)`` at a time event t, with the
    algebraic variables z solved in the modes p: the outputs there, the modes the components
    ask for (``pre``: the parameter vector from before the instant), the guards and [x'; z']
    (not finite where ∂g/∂z is singular).

    ``transitions``: the components' compiled transitions (values, p, pre, fired) -> p_next;
    ``rates``: (x, z, p, t) -> [x'; z'] (:func:`~.dae_points.unrolled_rates`)."""
    x, z, p, t = system.symbols(cs.SX)
    pre = cs.SX.sym("pre", p.size1())
    values = system.outputs(x, z, p, t)
    p_next = transitions(values, p, pre, cs.DM.zeros(system.guards.size1_out(0)))
    return cs.Function("event_round", [x, z, p, pre, t],
                       [cs.densify(e) for e in (values, p_next, system.guards(x, z, p, t), rates(x, z, p, t))])


class QuickTimeEvents:
    """Time events of one run in few calls each (see the module's notes)."""

    @staticmethod
    def for_model(system, transitions, describe):
        """The quick course for a model with states, a few algebraic variables and modes, none
        of them constrained (no projection) or sampled, whose transitions compile
        (``transitions``: their fast function; ``describe(i)`` names algebraic variable i);
        else None."""
        if (unrolled_newton(system) is None or unrolled_rates(system) is None
                or system.constraints.nnz_out(0) or not len(system.state_pos)):
            return None
        return QuickTimeEvents(system, fast(system, "event_round", lambda: event_round_function(
            system, transitions.function, unrolled_rates(system))), describe)

    def __init__(self, system, event_round, describe):
        self.system, self.event_round, self.describe = system, event_round, describe

    def __call__(self, x, z, p, t, zero_band: float, slots):
        """(z, p, g, rates) after the time event at t from (x, z) at its left limit with the
        parameter vector p, or None where its course is not the usual one."""
        try:
            z = solve_algebraic(self.system, x, z, p, t, self.describe)
            values, p_next, g, rates = self.event_round(x, z, p, p, t)
            codes = np.rint(p_next[slots])
            if not np.array_equal(codes, p[slots]):
                p_new = p.copy()
                p_new[slots] = codes
                z = solve_algebraic(self.system, x, z, p_new, t, self.describe)
                values, p_next, g, rates = self.event_round(x, z, p_new, p, t)
                if not np.array_equal(np.rint(p_next[slots]), codes):
                    return None
                p = p_new
        except (InitializationError, np.linalg.LinAlgError):
            return None
        if not np.isfinite(values).all() or (np.abs(g) <= zero_band).any():
            return None
        nx = len(x)
        if not np.isfinite(rates[nx:]).all():       # as consistent_rates: z' = 0
            rates[nx:] = 0.0
        return z, p, g, rates
