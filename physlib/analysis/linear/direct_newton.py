"""The first attempt at a steady state: Newton's method with full steps on the square system of
:mod:`physlib.analysis.linear.steady_state` (``problem.FJ(w, args) -> (F, dF/dw)``, the guess
``problem.w0``), accepted only when its result is at rounding; the damped and continuation
methods take over when it returns None."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..common.initialization import at_rounding
from ..common.sparse_lu import as_columns, csc_product, solve_step

NEWTON_STEPS = 60           # full Newton steps before the continuation methods take over
COMPILED_NEWTON_SIZE = 1000     # unknowns up to which CasADi's compiled Newton solves
NEWTON_TOL = 1e-14          # a residual or step this small (absolute) ends them


def direct_newton(problem, arg):
    """Newton's method with full steps from ``problem.w0`` (at most :data:`NEWTON_STEPS`);
    None when it does not converge.

    Up to :data:`COMPILED_NEWTON_SIZE` unknowns, and whenever the Jacobian is singular on the
    way (a consistent singular system, such as a locked brake's, that it solves), CasADi's
    compiled Newton rootfinder; above, Newton written out here with SuperLU solves, because
    building the rootfinder differentiated the residual a second time (50 ms of a
    10 000-element circuit's 150 ms operating point), with SuperLU_MT's sparse LU
    (:func:`physlib.analysis.common.sparse_lu.solve_step`).

    Both stop as CasADi's does (residual or step at most 1e-14 absolute), which a junction
    charge's row (in coulombs, ~1e-12) meets while its voltage is still 0.3 mV off; so the
    solution counts only when the step after it is below 1e-8 of the values (and that step is
    taken: quadratic convergence leaves the result at rounding), or when every residual is at
    the rounding of its own equation's terms (a femtofarad's row, whose steps are not small)."""
    w = problem.w0
    if w.size <= COMPILED_NEWTON_SIZE:
        return _rootfinder(problem, w, arg)
    for _ in range(NEWTON_STEPS):
        res, J, step = _newton_step(problem, w, arg)
        if res is None:
            return None
        if step is None:
            return _rootfinder(problem, w, arg)
        if np.max(np.abs(res), initial=0.0) <= NEWTON_TOL or \
                np.max(np.abs(step), initial=0.0) <= NEWTON_TOL:
            return _accepted(w, res, J, step)
        w = w + step
    return None


def _accepted(w, res, J, step):
    """w where Newton stopped, with its next step taken if that is below 1e-8 of the values,
    or w alone if its residuals are at rounding; None otherwise."""
    if step is not None and np.all(np.abs(step) <= 1e-8 * (1.0 + np.abs(w))):
        return w + step
    return w if _at_rounding(w, res, J) else None


def _newton_step(problem, w, arg):
    """(F, J, the Newton step) at w; F None when w or F is not finite, the step None when J is
    singular."""
    res, J = problem.FJ(w, arg)
    res = np.asarray(res).ravel()
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(res))):
        return None, None, None
    J = as_columns(J)
    return res, J, solve_step(J, -res)      # None when J is singular


def _at_rounding(w, res, J) -> bool:
    """Whether every residual is at the rounding of its equation's terms, Σ_j |J_ij·w_j|."""
    terms, value = csc_product(J, np.abs(w), absolute=True), csc_product(J, w)
    return at_rounding(res, terms + np.abs(res - value))


def _rootfinder(problem, w, arg):
    """CasADi's Newton rootfinder from w, accepted as :func:`direct_newton` accepts its own; None
    when it does not converge."""
    w_symbol, args_symbol, residual = problem.symbolic
    F = cs.Function("steady", [w_symbol, args_symbol], [residual])
    try:
        solver = cs.rootfinder("steady_rf", "newton", F,
                               {"abstol": NEWTON_TOL, "abstolStep": NEWTON_TOL,
                                "max_iter": NEWTON_STEPS, "error_on_fail": True,
                                # full steps, as documented: CasADi's default backtracking on
                                # the unweighted residual stalls at steps of 1e-4 on an op-amp
                                # macromodel's 2e7 A/A output loop, which full steps solve
                                "line_search": False,
                                "show_eval_warnings": False})
        w = np.asarray(solver(w, arg)).ravel()
    except RuntimeError:
        return None
    res, J, step = _newton_step(problem, w, arg)
    return None if res is None else _accepted(w, res, J, step)
