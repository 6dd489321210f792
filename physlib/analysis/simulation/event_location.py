"""Locating a state event within one solver step: the earliest time at which a guard crosses zero.

The solver's step from t_prev to t_n carries an interpolating polynomial of the states
(SUNDIALS' ``IDAGetDky``; the algebraic variables are reconstructed on it). The guards are
evaluated on it and the crossing is bracketed (:func:`bracket`: the Illinois variant of regula
falsi on the guard that crosses first, with bisection steps) until the bracket is shorter than
``event_tol`` and the states change across it by less than the solver's tolerance
(rtol·|x| + atol, :func:`estimate_in_step`), with physlib's crossing test (masked guards, zero
band) deciding which side of the bracket a point is on. The event is handled at the estimate
(see :mod:`physlib.analysis.simulation.hybrid_simulation`).

Why both: a fixed time tolerance alone leaves the event's state as far off as the states move
in that time. A 1.6 A inductor current discharging 2.8 µF moves its node 5.6e5 V/s, 5.6e-5 V
in 1e-10 s — thousands of the volts' tolerance 1e-8 — and a diode behind that node then decided
on the wrong side (it opened instead of equalizing its capacitor, which ended 5e-3 of its range
off). SUNDIALS' own root finding locates to rounding in time for the same reason.
"""
from __future__ import annotations

import numpy as np


def released_guards(stepper, g_n, g_ref, mask):
    """(released, reference, mask) for locating a crossing: masked guards that left the zero
    band by the step's end are located where they crossed zero, not where they left the band
    (a ball whose bounce is too low to leave the band would otherwise hit the floor at the
    band's depth, gaining m·g·band each time), so they take the reference −sign(g) unmasked."""
    released = mask & (np.abs(g_n) > stepper.zero_band)
    return released, np.where(released, -np.sign(g_n), g_ref), mask & ~released


def estimate_in_step(stepper, solver, t_lo, t_hi, g_hi, g_ref, mask) -> float:
    """The time just past the earliest crossing in (t_lo, t_hi] on the solver's interpolating
    polynomial of its last step (guards ``g_hi`` at t_hi crossed from their references
    ``g_ref``), to within ``event_tol`` and closer where the states move faster: until no state
    changes across the bracket by more than its error weight (``solver.state_weights``)."""
    crossing = np.flatnonzero(stepper.crossed(g_ref, g_hi, mask))
    # The guard whose straight-line crossing comes first leads the regula falsi.
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(g_ref[crossing] != g_hi[crossing],
                            g_ref[crossing] / (g_ref[crossing] - g_hi[crossing]), 1.0)
    j = int(crossing[np.argmin(fraction)])

    states = {}         # the states at the points probed

    def probe(t):
        x, z = solver.at(t)
        states[t] = x
        g = stepper.guards(x, z, t)
        return bool(np.any(stepper.crossed(g_ref, g, mask))), g[j]

    def tolerance(lo, hi):
        # The time in which the states, at their mean rate across the bracket, move by their
        # error weights (looked at once the bracket is within event_tol).
        if hi - lo > stepper.event_tol:
            return stepper.event_tol
        for t in (lo, hi):
            if t not in states:
                states[t] = solver.states_at(t)
        x_lo, x_hi = states[lo], states[hi]
        moved = np.max(np.abs(x_hi - x_lo) / solver.state_weights(x_hi), initial=0.0)
        return stepper.event_tol if moved <= 1.0 else (hi - lo) / moved

    return bracket(probe, t_lo, t_hi, g_ref[j], g_hi[j], tolerance)[1]


def crossing_in_last_step(stepper, solver, t_prev, g_ref, mask) -> float | None:
    """The time just past the earliest crossing of a guard from its reference ``g_ref`` within
    the solver's last step (t_prev, t_now] (:func:`estimate_in_step`); None if none crossed."""
    x, z = solver.current()
    g, crossed, _, _ = stepper.step_check(x, z, solver.t_now, g_ref, mask)
    if not crossed:
        return None
    return estimate_in_step(stepper, solver, t_prev, solver.t_now, g, g_ref, mask)


def bracket(probe, lo: float, hi: float, f_lo, f_hi, tol, max_iter: int = 100):
    """Shrink [lo, hi], which holds a sign change, below ``tol`` (a number, or a function of
    the bracket (lo, hi) giving one); returns (lo, hi).

    ``probe(c)`` -> (beyond, value): whether c is already past the change (on hi's side), and
    the function's value there. Steps are the Illinois variant of regula falsi (the end that
    stays put has its value halved), with a bisection step whenever two steps did not halve the
    bracket (guards may jump: a contact's gap turning into its speed); with f_lo or f_hi None,
    bisection only. Bounded: a ``tol`` below the spacing of floating-point numbers there ends
    when the trial point no longer moves."""
    tolerance = tol if callable(tol) else lambda _lo, _hi: tol
    widths, side = [2 * (hi - lo)] * 2, 0
    for _ in range(max_iter):
        tol = tolerance(lo, hi)
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

