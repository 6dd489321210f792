"""Continuation for steady states that Newton's method does not reach from the guess.

:func:`continuation` is tried by :mod:`physlib.analysis.linear.steady_state` when a plain
(compiled, then damped) Newton solve fails. In order, as SPICE's operating point (ngspice's
``CKTop``) tries them, each solve warm-started from the one before:

1. **gmin stepping** — every junction conductance parameter (``GMIN`` [S] of the Diode, BJT
   and MOSFET, a run-time parameter: ``.options gmin`` in a SPICE deck) raised to
   ``GMIN_START`` = 1e-2 S and stepped down to its own value, as ngspice's dynamic gmin stepping
   steps its conductances: the first step to 1e-3 S, each later one by a factor that grows
   (×factor^½, up to ``GMIN_FACTOR`` = 10) after a success, and after a failure the step is
   retried from the last solved value with the factor's fourth root, until the factor is
   below 1.00005 (failure). Below ``GMIN_FLOOR`` = 1e-12 S (ngspice's default gmin) the last
   step goes to the components' own values (zero for a physlib Diode by default). Here the
   conductance is across every junction (as SPICE3 stepped its device gmin), not from every
   node to ground as ngspice's diagonal gmin: the compiled equations are not node equations.
   The paths differ: junction conductances pull a CMOS output toward mid-supply, where the next
   inverter's gain is highest, and the solution can fold back in gmin (the 30-inverter chain of
   tests/data/spice/mosfet at VIN = 2.475 V folds at 5.8e-4 S and is not solved; at 2.45 V,
   ngspice's gmin-stepping deck, it is, to 2e-14 V). Models without such a parameter skip this
   stage.
2. **source stepping** — every source value (:func:`~physlib.analysis.linear.model_inputs.source_slots`)
   scaled by λ from 0 to 1, first in large steps (0.25, doubled after a success up to 0.5,
   quartered after a failure), and where that fails as ngspice's Gillespie source stepping
   (``gillespie_src``) raises them: the first step to λ = 0.001, each step ×1.5 after a
   success, after a failure retried from the last solved λ with a tenth of the step (at most
   0.01), until the step is below ``SOURCE_STEP_MIN`` = 1e-7 (failure). Small first steps keep
   the path on the branch that grows from the all-zero circuit: a TL072 follower at −1 V,
   stepped from λ = 0 straight to 0.0625, landed on a second solution of the scaled circuit
   (its output latched at −1.27 V below a −0.94 V supply), which folds back at λ = 0.098. The
   large steps come first because ngspice's schedule costs hundreds of solves where they
   succeed (a hydraulic drive's steady state: 4 s against 220 s).
3. **Newton homotopy** — F(w) − (1 − λ)·F(w₀) = 0 (exact at the guess for λ = 0) for λ from 0 to
   1, the step in λ doubled after a success (up to 0.5) and quartered after a failure, until it
   is below 1e-6.

There is no junction-voltage limiting (ngspice's ``pnjlim``): the damped Newton's line search
and the devices' linearized exponentials above their EXP_LIMIT keep the iterates finite, and
gmin stepping reaches what limiting would.

The result says which stage solved it (:data:`NEWTON`, :data:`GMIN_STEPPING`,
:data:`SOURCE_STEPPING`, :data:`HOMOTOPY`) and in how many solves: ``op.method``, ``op.steps``.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import InitializationError
from .model_inputs import source_slots

__all__ = ["GMIN_FACTOR", "GMIN_FLOOR", "GMIN_START", "GMIN_STEPPING", "HOMOTOPY", "NEWTON",
           "NotConverged", "SOURCE_STEPPING", "continuation", "gmin_slots"]

NEWTON, GMIN_STEPPING, SOURCE_STEPPING, HOMOTOPY = "newton", "gmin stepping", "source stepping", "homotopy"
GMIN_START = 1e-2       # S: ngspice's dynamic gmin stepping never goes above it
GMIN_FACTOR = 10.0      # ngspice's default gminfactor
GMIN_FLOOR = 1e-12      # S: ngspice's default .options gmin
FACTOR_LIMIT = 1.00005  # ngspice gives up when the gmin factor falls below this
SOURCE_STEP_FIRST = 1e-3    # ngspice's gillespie_src: first raise of the source factor
SOURCE_STEP_GROWTH = 1.5    # ... its growth after a success
SOURCE_STEP_RETRY = 1e-2    # ... at most this after a failure (a tenth of the failed one)
SOURCE_STEP_MIN = 1e-7      # ... gives up below it


class NotConverged(Exception):
    """A Newton solve that did not converge; args: (w, F, reason) at its last iterate."""


def gmin_slots(model) -> np.ndarray:
    """Parameter slots of the junction conductances (parameters named ``<component>.GMIN``)."""
    return np.array([model.parameter_slot(name) for name in model.parameters
                     if name.rpartition(".")[2] == "GMIN"], dtype=int)


def continuation(model, problem, p, newton):
    """``(w, method, steps)``: the steady state by gmin stepping, source stepping or a Newton
    homotopy (the first that succeeds; see the module docstring), ``steps`` the number of
    converged solves it took; None when all fail.

    ``problem``: the steady-state problem (``w0`` the guess, ``evaluator(p, offset=None)`` →
    ``evaluate(w) -> (F − offset, J)``, ``residual(w, p)``); ``newton(evaluate, w)`` → the
    solution from w, raising :class:`NotConverged` or :class:`InitializationError`."""
    for method, attempt in ((GMIN_STEPPING, _gmin_stepping), (SOURCE_STEPPING, _source_stepping),
                            (HOMOTOPY, _newton_homotopy)):
        found = attempt(model, problem, p, newton)
        if found is not None:
            return found[0], method, found[1]
    return None


def _gmin_stepping(model, problem, p, newton):
    """(w, steps) with the junction conductances stepped down from GMIN_START; None if it
    fails or the model has none."""
    slots = gmin_slots(model)
    if not slots.size:
        return None
    own = p[slots]
    target = max(GMIN_FLOOR, float(own.max()))

    def solve_at(g, w):
        pp = p.copy()
        pp[slots] = np.maximum(own, g)
        return newton(problem.evaluator(pp), w)

    w, steps, factor = problem.w0, 0, GMIN_FACTOR
    solved_g, g = GMIN_START, GMIN_START / GMIN_FACTOR
    while True:
        try:
            w = solve_at(g, w)
        except (NotConverged, InitializationError):
            if factor < FACTOR_LIMIT:
                return None
            factor = factor ** 0.25
            g = solved_g / factor
            continue
        steps += 1
        if g <= target:
            break
        factor = min(factor * np.sqrt(factor), GMIN_FACTOR)
        solved_g = g
        if g < factor * target:
            g = target
        else:
            g /= factor
    if np.any(own < target):       # the components' own values, below the floor
        try:
            w = newton(problem.evaluator(p), w)
        except (NotConverged, InitializationError):
            return None
        steps += 1
    return w, steps


def _source_stepping(model, problem, p, newton):
    """(w, steps) with every source value scaled by λ from 0 to 1 on ngspice's schedule (see
    the module docstring); None if it fails."""
    slots = source_slots(model)
    if not slots.size:
        return None

    def solve_at(lam, w):
        pp = p.copy()
        pp[slots] = lam * p[slots]
        return newton(problem.evaluator(pp), w)
    return _march(solve_at, problem.w0, 0.25) or _gillespie(solve_at, problem.w0)


def _gillespie(solve_at, w):
    """(w, steps): ``solve_at(λ, w)`` for λ from 0 to 1 on ngspice's gillespie_src schedule
    (the module docstring); None when the step falls below SOURCE_STEP_MIN."""
    lam, steps, step = 0.0, 0, SOURCE_STEP_FIRST
    while lam < 1.0:
        trial = min(1.0, lam + step)
        try:
            w = solve_at(trial, w)
        except (NotConverged, InitializationError):
            step = min(step / 10, SOURCE_STEP_RETRY)
            if step < SOURCE_STEP_MIN:
                return None
            continue
        lam, steps, step = trial, steps + 1, step * SOURCE_STEP_GROWTH
    return w, steps


def _newton_homotopy(model, problem, p, newton):
    """(w, steps) solving F(w) − (1 − λ)·F(w0) = 0 for λ from 0 to 1; None if it fails."""
    F0 = problem.residual(problem.w0, p)
    if not np.all(np.isfinite(F0)):
        return None
    return _march(lambda lam, w: newton(problem.evaluator(p, (1 - lam) * F0), w), problem.w0, 0.1)


def _march(solve_at, w, step):
    """(w, steps): ``solve_at(λ, w)`` from the previous solution w for λ from 0 to 1, the step
    in λ doubled after a success (up to 0.5) and quartered after a failure. None when the step
    falls below 1e-6."""
    lam, steps = 0.0, 0
    while lam < 1.0:
        trial = min(1.0, lam + step)
        try:
            w = solve_at(trial, w)
            lam, step, steps = trial, min(step * 2, 0.5), steps + 1
        except (NotConverged, InitializationError):
            step /= 4
            if step < 1e-6:
                return None
    return w, steps
