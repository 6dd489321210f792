"""Consistent initialization: solve 0 = g(x, z, p, t) for the algebraic variables z.

A damped Newton method with exact sparse Jacobians from CasADi. It is also the whole
"simulation" of models without states (static networks), evaluated at each output time.
:func:`consistent_start` gives the state a simulation starts from: the start values with
``x0`` applied, the algebraic variables solved, and the checks of
:mod:`physlib.analysis.common.start_values` passed.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import InitializationError
from .fast_call import fast
from .solver_output import solver_messages
from .sparse_lu import as_columns, csc_product, solve_step
from .start_values import apply_x0, check_initial_state, guessed_algebraic
from .stored_functions import stored


def algebraic_jacobian(system) -> cs.Function:
    """(x, z, p, t) -> (g, dg/dz), built once per compiled model."""
    if "g_jac" not in system.cache:
        x, z, p, t = system.symbols()
        g = system.dae(x, z, p, t)[1]
        system.cache["g_jac"] = cs.Function("g_jac", [x, z, p, t], [g, cs.jacobian(g, z)])
    return system.cache["g_jac"]


def term_sizes(g, w):
    """Σ_j |∂g_i/∂w_j|·|w_j| + |g_i − Σ_j ∂g_i/∂w_j·w_j| (CasADi expressions of g and w): the
    size of the terms of each equation of g in w, the second part what no entry of w multiplies
    (a source's value as a function of time, a constant), whose rounding the residual carries
    as well. The one definition of an equation's rounding scale for physlib's solvers and for
    the C they are exported as.

    Infinite entries of w (a BJT's IKF or a diode's IKR left at ``inf``: no knee) count as 0:
    their equations depend on them through 1/w only, whose derivative is 0 there, and 0·inf
    made the size NaN, so no residual of that equation counted as rounding."""
    jac = cs.jacobian(g, w)
    finite = cs.if_else(cs.fabs(w) < np.inf, w, 0)
    return cs.mtimes(cs.fabs(jac), cs.fabs(finite)) + cs.fabs(g - cs.mtimes(jac, finite))


def equation_terms(system) -> cs.Function:
    """(x, z, p, t) -> Σ_j |∂g_i/∂w_j|·|w_j| + |g_i − Σ_j ∂g_i/∂w_j·w_j| over all of
    w = (x, z, p): the size of the terms of each algebraic equation, whose rounding no solution
    can beat (a branch current computed from a 48 V node voltage that is a state carries that
    voltage's rounding). Built once per compiled model."""
    if "g_terms" not in system.cache:
        x, z, p, t = system.symbols()
        size = term_sizes(system.dae(x, z, p, t)[1], cs.vertcat(x, z, p))
        system.cache["g_terms"] = cs.Function("g_terms", [x, z, p, t], [cs.densify(size)])
    return system.cache["g_terms"]


def compiled_newton(system) -> cs.Function:
    """(z guess, x, p, t) -> (z, last Newton step): CasADi's compiled Newton solver for
    0 = g(x, z, p, t), followed by one more Newton step whose size tells whether it converged
    (relative to the values, which the solver's absolute tolerances cannot tell). Built once
    per compiled model.

    Its linear solves are CasADi's sparse LU ("csparse", the rootfinder's default) up to
    :data:`QR_ABOVE` algebraic variables and its sparse QR ("qr") above: the LU filled in on a
    400-stage diode ladder's 2,400 algebraic variables, 50 ms a solve growing as n³ (0.55 s at
    800 stages), where the QR took 2.2 ms and grew as n; every output row of such a model is
    solved here. (The QR reports a singular matrix as a failed evaluation, where the LU's
    pivoting went on to NaN, which small transistor circuits' first guesses met; both end in
    the damped Newton of :func:`solve_algebraic`.)"""
    if "g_root" not in system.cache:
        x, z, p, t = system.symbols()
        residual = cs.Function("g", [z, x, p, t], [system.dae(x, z, p, t)[1]])
        linear_solver = "qr" if len(system.z_pos) > QR_ABOVE else "csparse"
        newton = cs.rootfinder("newton", "newton", residual,
                               {"abstol": 1e-12, "abstolStep": 1e-12, "max_iter": 30,
                                "error_on_fail": False, "show_eval_warnings": False,
                                "linear_solver": linear_solver})
        xm, zm, pm, tm = system.symbols(cs.MX)
        solved = newton(zm, xm, pm, tm)
        g, jac = algebraic_jacobian(system)(xm, solved, pm, tm)
        step = cs.solve(jac, -g, linear_solver)
        system.cache["g_root"] = cs.Function("g_root", [zm, xm, pm, tm], [solved + step, step])
    return system.cache["g_root"]


QR_ABOVE = 500
"""Above this many algebraic variables, :func:`compiled_newton` solves with CasADi's sparse QR
rather than its LU, which fills in on long nonlinear chains."""

SYMBOLIC_SOLVE_LIMIT = 40
"""Up to this many algebraic variables, linear solves inside compiled functions are unrolled
(CasADi ``SX``: a symbolic QR on the sparsity, evaluated without call overhead); beyond it
they are sparse LU factorizations at run time."""

SMALL_SOLVE_LIMIT = 8
"""Up to this many algebraic variables, the event iteration's Newton steps and a restart's
rates are solved by :func:`small_solve` (Gaussian elimination with partial pivoting written
out: a few hundred operations at n = 8); beyond it by CasADi's compiled Newton and NumPy."""

UNROLLED_CALLS = 10  # calls of the unrolled Newton (two steps each) before the general solver

SOLVER_CODE = __file__
"""This module's file: the unrolled solves made here are stored on disk keyed by its text
(:mod:`~physlib.analysis.common.stored_functions`)."""


def unrolled_newton(system) -> cs.Function | None:
    """(z, x, p, t) -> (z after two Newton steps on 0 = g(x, z, p, t), 1 if they converged
    else 0), unrolled (``SX``) for models with at most :data:`SYMBOLIC_SOLVE_LIMIT` algebraic
    variables, else None. Built once per compiled model.

    Converged: the second step, taken, is below 1e-8 of each value (no absolute floor: a
    junction charge of 1e-13 C is a value like any other), so quadratic convergence leaves the
    result at rounding, and every residual there is rounding (:func:`at_rounding`). A variable
    at exactly zero whose step is not exactly zero sends the solve to the general path.

    An event iteration solves the algebraic variables a few times per event, each solve of a
    handful of variables costing 15–30 µs through CasADi's general root finder (an ``MX``
    function with a sparse factorization) and about 4 µs unrolled. Where g is linear in z
    (the modes fixed), the first step is the solution and the second its refinement."""
    key = "g_newton_unrolled"
    if key not in system.cache:
        nz = len(system.z_pos)
        system.cache[key] = stored(key, system, lambda: _unrolled_newton(system), [SOLVER_CODE]) \
            if 0 < nz <= SMALL_SOLVE_LIMIT else None
    return system.cache[key]


def _unrolled_newton(system) -> cs.Function:
    nz = len(system.z_pos)
    x, z, p, t = system.symbols(cs.SX)
    g = system.dae(x, z, p, t)[1]
    step = cs.Function("newton_step", [z, x, p, t], [-small_solve(cs.jacobian(g, z), g)])
    residual = cs.Function("g", [z, x, p, t], [
        cs.fabs(g) - ROUNDING_ULPS * np.finfo(float).eps * term_sizes(g, cs.vertcat(x, z, p))])
    first = z + step(z, x, p, t)
    second = step(first, x, p, t)
    solved = first + second
    # The tests compiled; NaN and inf fail every comparison.
    small = cs.le(cs.fabs(second), 1e-8 * cs.fabs(solved))
    rounding = cs.le(residual(solved, x, p, t), 0)
    converged = cs.logic_and(cs.sum1(small) == nz, cs.sum1(rounding) == nz)
    return cs.Function("g_newton_unrolled", [z, x, p, t], [cs.densify(solved), converged])


def small_solve(A: cs.SX, b: cs.SX) -> cs.SX:
    """A⁻¹·b for a small square A, unrolled (``SX``): Gaussian elimination with partial
    pivoting, each row first scaled by its largest entry, the pivot choices written as
    conditional swaps (``if_else``). About n³ operations and as many comparisons: a few
    hundred at n = 8.

    CasADi's own symbolic solve (QR without pivoting) is not stable enough for circuits: on a
    MOSFET's algebraic Jacobian (junction capacitances of 1e-10 F beside unit entries,
    condition 1.7e12) it returned derivatives off by 30 %, and a Householder QR after scaling
    still left residuals a million times LU's on matrices scaled over 15 decades. A singular
    A gives inf or NaN (the callers then take their general path)."""
    n = A.size1()
    A = cs.densify(A)
    scale = [1.0 / cs.mmax(cs.fabs(A[i, :])) for i in range(n)]
    M = [[A[i, j] * scale[i] for j in range(n)] + [b[i] * scale[i]] for i in range(n)]
    for k in range(n):
        for i in range(k + 1, n):
            swap = cs.fabs(M[i][k]) > cs.fabs(M[k][k])
            for j in range(k, n + 1):
                M[k][j], M[i][j] = cs.if_else(swap, M[i][j], M[k][j]), cs.if_else(swap, M[k][j], M[i][j])
        for i in range(k + 1, n):
            factor = M[i][k] / M[k][k]
            for j in range(k + 1, n + 1):
                M[i][j] = M[i][j] - factor * M[k][j]
    x = [None] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return cs.vertcat(*x)


def _converged(solved, step) -> bool:
    """A Newton solution whose last step (included in it) is below 1e-8 of the values: accurate
    to rounding for the quadratic convergence near the root."""
    return bool(np.all(np.isfinite(solved)) and np.all(np.abs(step) <= 1e-8 * (1.0 + np.abs(solved))))


def solve_algebraic(system, x, z_guess, p, t, describe, *, tol=1e-12, max_iter=60) -> np.ndarray:
    """Solve 0 = g(x, z, p, t) for z from ``z_guess``; ``describe(i)`` names algebraic variable
    i in error messages.

    Fast paths, each accepted when its last Newton step is below 1e-8 of the values (the
    returned values include that step, so they are accurate to rounding for the quadratic
    convergence near the root): the unrolled Newton steps of :func:`unrolled_newton` on
    small systems (undamped, a few calls from the guess); then CasADi's compiled Newton
    (undamped), also accepted when its residuals are at rounding level (:func:`at_rounding`).
    Otherwise the damped Newton below starts again from the guess: it converges from farther
    away, and when it fails too its error names the equation with the largest residual."""
    z = np.array(z_guess, dtype=float)
    if z.size == 0:
        return z
    newton = unrolled_newton(system)
    if newton is not None:
        solved, converged = fast(system, "g_newton_unrolled", lambda: newton).iterate(UNROLLED_CALLS, z, x, p, t)
        if converged[0]:
            return solved
    fun = algebraic_jacobian(system)

    def terms(zz, jac=None):
        return np.asarray(fast(system, "g_terms", lambda: equation_terms(system))(x, zz, p, t)).ravel()

    try:
        with solver_messages():         # a singular Jacobian's failure: CasADi prints its inputs
            solved, step = fast(system, "g_root", lambda: compiled_newton(system))(z, x, p, t)
        if np.all(np.isfinite(solved)):
            if _converged(solved, step):
                return solved
            # A femtofarad's charging rate asks for steps far above 1e-8 of the values from a
            # residual that is rounding already: no Newton step can do better.
            g = np.asarray(fun(x, solved, p, t)[0]).ravel()
            if at_rounding(g, terms(solved)):
                return solved
    except (RuntimeError, FloatingPointError):   # a singular Jacobian: the damped Newton below explains it
        pass
    # A guess that solves the equations to rounding already (a point carried over to a copy
    # of the model: the noise analysis's, with its sources at zero) needs no step, even where
    # the Jacobian is singular (a derivative that a zero capacitance leaves out).
    if at_rounding(np.asarray(fun(x, z, p, t)[0]).ravel(), terms(z)):
        return z

    def evaluate(zz):
        g, jac = fun(x, zz, p, t)
        return np.asarray(g).ravel(), jac

    return damped_newton(evaluate, lambda jac, rhs: _solve(jac, rhs, describe), z, tol=tol,
                         max_iter=max_iter, fail=lambda zz, g, why: _failure(zz, g, describe, why),
                         terms=terms)


def consistent_start(model, p: np.ndarray, options):
    """States and algebraic variables at t0 of a run with
    :class:`~physlib.analysis.common.options.SimulateOptions` ``options``: start values and ``x0``,
    the algebraic equations solved from ``z_guess`` (else their start values), derivatives and
    explicitly given start values checked."""
    system = model.system
    x, z_start = fast(system, "start")(p, options.t0)
    if options.x0:
        x = apply_x0(model, x, options.x0)
    if options.z_guess:
        z_start = guessed_algebraic(model, z_start, options.z_guess)
    z = solve_algebraic(system, x, z_start, p, options.t0, lambda i: model.algebraic[i])
    check_derivatives(model, x, z, p, options.t0)
    check_initial_state(model, x, z, p, options.t0, initial=options.initial)
    return x, z


ROUNDING_ULPS = 1024
"""A residual within this many ulps (2.3e-13 relative) of its equation's terms is rounding.
The terms' sizes are an estimate (a transistor's channel current, the difference of two
large exponentials, rounds beyond its derivative's share: 136 ulps of Σ|J|·|w| measured), so
the margin is generous; a residual that matters is many orders above it (a junction charge
8e-14 C off is 1e10 ulps of its row)."""


def damped_newton(evaluate, solve, w, *, tol, max_iter, fail, terms=None):
    """Newton's method with a backtracking line search on the residuals weighted row by row
    (:func:`_row_weights`, fixed at the start).

    ``evaluate(w) -> (F, J)``; ``solve(J, rhs) -> step``; ``fail(w, F, reason)`` builds the
    exception raised when it does not converge; ``terms(w, J)`` gives the size of each
    equation's terms (default Σ_j |J_ij|·|w_j|; a caller whose equations also hold fixed
    values passes their share too), by which a residual counts as rounding. Converged when a
    full step is below ``tol`` relative to ``1 + |w|``, or when no decrease is possible any
    more and the residuals are at rounding level.
    """
    if terms is None:
        terms = _own_terms
    F, J = evaluate(w)
    weights = _row_weights(J, F.size)
    norm = np.linalg.norm(weights * F)
    for _ in range(max_iter):
        if not np.all(np.isfinite(F)):
            break
        step = solve(J, -F)
        scale = 1.0 + np.abs(w)
        if np.all(np.abs(step) <= tol * scale):
            return w + step
        lam = 1.0
        while True:
            trial = w + lam * step
            F_trial, J_trial = evaluate(trial)
            n_trial = np.linalg.norm(weights * F_trial)
            if np.isfinite(n_trial) and n_trial <= (1 - 1e-4 * lam) * norm:
                break
            lam *= 0.5
            if lam < 1e-10:
                if np.all(np.abs(step) <= 1e-8 * scale) or at_rounding(F, terms(w, J)):
                    return w
                raise fail(w, F, "the line search stalled")
        w, F, J, norm = trial, F_trial, J_trial, n_trial
    raise fail(w, F, f"Newton did not converge in {max_iter} iterations")


def _row_weights(J, n) -> np.ndarray:
    """1 / Σ_j |J_ij| per equation, at the start of a solve: the equations in the units of the
    unknowns, so that the merit weighs a junction charge's row (coulombs per volt ~1e-12) as a
    node's current balance (siemens, ~1e-3). On the plain max-norm an ampere row at its
    rounding (6e-16 A) outweighed a coulomb row 2e-5 V from its root (3e-17 C), and the line
    search stalled on every step that fixed the latter."""
    sums = _absolute_product(J, np.ones(n))
    return 1.0 / np.where(sums > 0, sums, 1.0)


def _own_terms(w, J) -> np.ndarray:
    """Σ_j |J_ij|·|w_j|: the size of each equation's terms in the unknowns."""
    return _absolute_product(J, np.abs(w))


def _absolute_product(J, v) -> np.ndarray:
    """|J|·v for a dense array or a sparse CasADi DM J, without making the DM dense (NumPy's
    ``@`` on a DM did: 0.35 s for a 1,800-unknown Jacobian)."""
    if isinstance(J, np.ndarray):
        return np.abs(J) @ v
    return csc_product(J, v, absolute=True)


def at_rounding(F, terms) -> bool:
    """Whether each residual is within the rounding of its own equation's terms (``terms``:
    their sizes, e.g. Σ_j |∂F_i/∂w_j|·|w_j|): no step can lower them, however large the step
    they ask for (a femtofarad junction charge turns a 2e-16 A residual into a volt-sized step).
    Row by row: an equation in coulombs (terms ~1e-12 C) beside one in volts has rounding 1e-13
    times smaller; measured against the largest row, a 8e-14 C residual (2.3 mV of junction
    voltage) passed as rounding and a PNP stage's transient started from it. A residual of
    exactly 0 is solved whatever its terms (0, or NaN where an infinite derivative such as √'s
    at 0 meets an unknown at 0); a nonzero one beside terms of size 0 is not."""
    F = np.abs(np.asarray(F).ravel())
    return bool(np.all((F == 0) | (F <= ROUNDING_ULPS * np.finfo(float).eps * terms)))


def _solve(jac, rhs, describe):
    step = solve_step(jac, rhs)
    if step is None:
        raise _singular(as_columns(jac).dense(), describe)
    return step


def null_space_members(a, describe) -> list[str]:
    """The unknowns (named by ``describe(i)``, up to eight, largest first) that a singular
    matrix ``a`` leaves free: the entries of its null vector (the last right singular vector)
    above 1e-6."""
    _, _, vt = np.linalg.svd(a)
    null = np.abs(vt[-1])
    return [describe(i) for i in np.argsort(-null)[:8] if null[i] > 1e-6]


def _singular(a, describe):
    free = null_space_members(a, describe)
    derivative = next((name for name in free if name.startswith("der(")), None)
    hint = (f"; or {derivative} enters only through a coefficient that is zero here, a "
            "capacitance of zero (a MOSFET's Meyer gate capacitances in saturation or cutoff "
            "without overlap capacitances: give it CGSO, CGDO and CGBO, or put a capacitor at "
            "the node)" if derivative else "")
    return InitializationError(
        "the algebraic equations are singular: nothing fixes " + ", ".join(free)
        + " (is a reference missing, e.g. a rotational network with nothing fixing its "
        f"speed, or are ideal elements in a loop or cut-set?{hint})")


def _failure(z, g, describe, reason):
    worst = int(np.nanargmax(np.abs(np.nan_to_num(g, nan=np.inf))))
    return InitializationError(
        f"no consistent values for the algebraic variables: {reason}; the largest residual "
        f"({g[worst]:.3g}) is in the equation solved for {describe(worst)}. Give better start "
        "values or check the model")


def check_derivatives(model, x, z, p, t) -> None:
    """Raise if some state derivative is not finite at the start.

    That happens when equations that are structurally fine are numerically dependent in a way
    the compiler could not reduce (its numeric check covers linear loops whose dependency does
    not change with the parameters)."""
    if not len(x):
        return
    f = fast(model.system, "dae")(x, z, p, t)[0]
    bad = np.flatnonzero(~np.isfinite(f))
    if len(bad):
        names = ", ".join(model.states[i] for i in bad[:8])
        raise InitializationError(
            f"the derivatives of {names} are not finite at t = {t:g}: the equations that determine "
            "them are numerically dependent, with constraints between states that the compiler "
            "could not reduce (e.g. ideal elements in parallel or in a loop whose coupling depends "
            "on parameter values). Merge such elements, or add a small series resistance")
