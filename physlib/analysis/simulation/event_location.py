"""Locating a state event: the earliest time in a sampling interval at which a guard crosses zero.

The crossing is first estimated on the solver's dense output: a cubic Hermite interpolant of
the states between the interval's ends (values and derivatives at both), the algebraic
variables solved along it, and the Illinois variant of regula falsi on each guard that changed
sign (:func:`dense_root`). Two integrations confirm the estimate: no crossing ``event_tol``/2
before it, a crossing ``event_tol``/2 after. The interpolant is only as accurate as the
solver's tolerances allow, so an estimate that is not confirmed is narrowed by
:func:`bracket` with one integration per step from the bracket's left end, until the
bracket is shorter than ``event_tol``; the run goes on from just past the crossing.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import PhyslibError
from ..common.fast_call import fast
from ..common.interpolation import hermite


def locate(stepper, x, z, ta, tb, g_a, mask, t_seen=None):
    """Earliest crossing in (ta, tb] for a :class:`~physlib.analysis.simulation.events.HybridStepper`
    that holds (x, z) at ta with guard reference values ``g_a`` and ``mask``.

    Returns (t, x, z, fired, released) just past the crossing; ``released``: masked guards
    that left the zero band (located where they crossed zero). ``t_seen``: the time at which
    the guards at tb are evaluated (the left limit when tb is a time event)."""
    x_hi, z_hi = stepper.integrate(x, z, ta, tb)
    t_seen = tb if t_seen is None else t_seen
    z_seen = z_hi if t_seen == tb else stepper.solve_z(x_hi, z_hi, t_seen)
    g_hi = stepper.guards(x_hi, z_seen, t_seen)
    # A guard masked at zero that has left the zero band is located where it crossed zero,
    # not where it left the band: a ball whose bounce is too low to leave the band would
    # otherwise hit the floor at the band's depth, gaining m·g·band each time.
    left = mask & (np.abs(g_hi) > stepper.zero_band)
    g_a = np.where(left, -np.sign(g_hi), g_a)
    mask = mask & ~left
    # The bracket's ends, (t, x, z, guards); the guards at the left end start as the reference.
    ends = {"lo": (ta, x, z, g_a), "hi": (tb, x_hi, z_hi, g_hi)}
    found = None if np.any(left) else dense_root(stepper, x, z, ta, x_hi, z_seen, t_seen, g_a, mask)
    j = None
    if found is not None:
        estimate, j = found
        confirmed = _confirm(stepper, ends, estimate, g_a, mask)
        if confirmed is not None:
            return confirmed + (left,)
    t_hi, x_hi, z_hi, g_hi = _narrow(stepper, ends, g_a, mask, j)
    return t_hi, x_hi, z_hi, stepper.crossed(g_a, g_hi, mask), left


def _confirm(stepper, ends, estimate, g_a, mask):
    """(t, x, z, fired) event_tol/2 past ``estimate`` if the guards cross between event_tol/2
    before and after it; otherwise None, with ``ends`` moved to what the two integrations
    showed."""
    ta, x, z, _ = ends["lo"]
    tb = ends["hi"][0]
    t_before = max(ta, estimate - 0.5 * stepper.event_tol)
    t_after = min(tb, max(estimate + 0.5 * stepper.event_tol, t_before + stepper.event_tol))
    x_b, z_b = stepper.integrate(x, z, ta, t_before)
    g_b = stepper.guards(x_b, z_b, t_before)
    if t_before > ta and np.any(stepper.crossed(g_a, g_b, mask)):
        ends["hi"] = (t_before, x_b, z_b, g_b)
        return None
    x_c, z_c = stepper.integrate(x_b, z_b, t_before, t_after)
    g_c = stepper.guards(x_c, z_c, t_after)
    fired = stepper.crossed(g_a, g_c, mask)
    if np.any(fired):
        return t_after, x_c, z_c, fired
    ends["lo"] = (t_after, x_c, z_c, g_c)
    return None


def _narrow(stepper, ends, g_a, mask, j):
    """Regula falsi on guard ``j`` (the one that crosses first; bisection when None), each
    value from an integration out of the bracket's left end (the crossing test itself covers
    every guard). Returns the bracket's right end (t, x, z, guards), just past the crossing."""
    def probe(t):
        t_lo, x_lo, z_lo, _ = ends["lo"]
        x_m, z_m = stepper.integrate(x_lo, z_lo, t_lo, t)
        g_m = stepper.guards(x_m, z_m, t)
        beyond = bool(np.any(stepper.crossed(g_a, g_m, mask)))
        ends["hi" if beyond else "lo"] = (t, x_m, z_m, g_m)
        return beyond, (None if j is None else g_m[j])

    (lo, _, _, g_lo), (hi, _, _, g_hi) = ends["lo"], ends["hi"]
    bracket(probe, lo, hi, None if j is None else g_lo[j], None if j is None else g_hi[j],
            stepper.event_tol)
    return ends["hi"]


def dense_root(stepper, xa, za, ta, xb, zb, tb, g_a, mask):
    """(time, guard index) of the earliest zero in (ta, tb) of the guards that changed
    sign, on the cubic Hermite interpolant of the states (algebraic variables solved along
    it); None if it cannot be estimated (no states, or a solve fails)."""
    g_b = stepper.guards(xb, zb, tb)
    changed = np.flatnonzero(~mask & stepper.crossed(g_a, g_b, mask))
    if not stepper.has_states or not len(changed):
        return None
    dae = fast(stepper.system, "dae")
    h = tb - ta
    # Derivatives scaled by h: the interpolant's parameter runs over [0, 1].
    fa, fb = dae(xa, za, stepper.p, ta)[0] * h, dae(xb, zb, stepper.p, tb)[0] * h
    state = {"z": za}

    def guard(tau, j):
        t = ta + h * tau
        x = hermite(tau, xa, fa, xb, fb)
        state["z"] = stepper.solve_z(x, state["z"], t)
        return stepper.guards(x, state["z"], t)[j]

    tol = 0.25 * stepper.event_tol / h
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

