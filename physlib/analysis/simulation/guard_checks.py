"""The guard checks of a hybrid run's steps as compiled CasADi functions: whether guards
crossed zero since their reference values (with the zero band of guards masked at an event),
and the guards evaluated with that test in one call at every solver step."""
from __future__ import annotations

import casadi as cs


def crossing_function(n: int):
    """(g_ref, g, mask, zero_band, noise) -> (crossed, any crossed, watched g_ref, watched
    mask) for n guards, booleans as 0/1: the rules of :meth:`~.events.HybridStepper.crossed` and
    :meth:`~.events.HybridStepper.watch`, compiled (a step of a run tests them; NumPy on a handful
    of values costs tens of microseconds)."""
    g_ref, g, mask = cs.SX.sym("g_ref", n), cs.SX.sym("g", n), cs.SX.sym("mask", n)
    band, noise = cs.SX.sym("zero_band"), cs.SX.sym("noise")
    changed = cs.logic_or(cs.logic_and(g_ref > 0, g <= 0), cs.logic_and(g_ref < 0, g >= 0))
    same_side = cs.logic_and(cs.sign(g_ref) == cs.sign(g), cs.fabs(g_ref) > noise)
    crossed = cs.if_else(mask, cs.logic_and(cs.fabs(g) > band, cs.logic_not(same_side)), changed)
    watched = cs.logic_and(mask, cs.fabs(g) <= band)
    outputs = [crossed, cs.sum1(crossed) > 0, cs.if_else(watched, g_ref, g), watched]
    return cs.Function("crossing", [g_ref, g, mask, band, noise], [cs.densify(o) for o in outputs])


def step_check_function(system):
    """(x, z, p, t, g_ref, mask, zero_band, noise) -> (g, crossed, any crossed, watched g_ref,
    watched mask): the guards and :func:`crossing_function` in one call."""
    kind = cs.SX if system.guards.nnz_out(0) else cs.MX     # no guards: no SX symbol per variable
    x, z, p, t = system.symbols(kind)                        # (14 MB, 50 ms at 100,000 elements)
    g = system.guards(x, z, p, t)
    n = g.numel()
    g_ref, mask, band, noise = kind.sym("g_ref", n), kind.sym("mask", n), kind.sym("zero_band"), kind.sym("noise")
    return cs.Function("step_check", [x, z, p, t, g_ref, mask, band, noise],
                       [cs.densify(o) for o in (g, *crossing_function(n)(g_ref, g, mask, band, noise))])
