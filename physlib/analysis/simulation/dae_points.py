"""Rates and algebraic variables at points the solver did not solve for: consistent rates at a
(re)start, and algebraic variables between two solver steps or at output rows."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError
from ...core.lazy import lazy_module
from ..common.fast_call import fast
from ..common.initialization import (SMALL_SOLVE_LIMIT, SOLVER_CODE, SYMBOLIC_SOLVE_LIMIT, small_solve,
                                     solve_algebraic)
from ..common.stored_functions import stored

# SciPy's sparse matrices and solvers serve large models only: imported on first use.
sps = lazy_module("scipy.sparse")
spla = lazy_module("scipy.sparse.linalg")


def _rate_parts(system):
    def build():
        xs, zs, ps, ts = system.symbols(cs.SX)
        ode, alg = system.dae(xs, zs, ps, ts)
        outputs = [ode, alg] + [cs.densify(cs.jacobian(e, v)) for e, v in
                                ((alg, xs), (alg, zs), (alg, ts), (ode, zs))]
        return cs.Function("rate_parts", [xs, zs, ps, ts], outputs)

    return fast(system, "rate_parts", build)


def unrolled_rates(system) -> cs.Function | None:
    """(x, z, p, t) -> [x'; z'] of :func:`consistent_rates` in one call, the solve for z'
    unrolled (:func:`~physlib.analysis.common.initialization.small_solve`), for models with
    1 to SMALL_SOLVE_LIMIT algebraic variables (else None): a restart at every event of a
    switching circuit asks for them. Not finite where ∂g/∂z is singular."""
    nz = len(system.z_pos)
    if not 0 < nz <= SMALL_SOLVE_LIMIT:
        return None

    def build():
        x, z, p, t = system.symbols(cs.SX)
        xdot, g = system.dae(x, z, p, t)
        g_z = cs.jacobian(g, z)
        zdot = -small_solve(g_z, cs.jtimes(g, x, xdot) + cs.jacobian(g, t))
        return cs.Function("rates", [x, z, p, t], [cs.densify(cs.vertcat(xdot, zdot))])

    return fast(system, "rates_unrolled", lambda: stored("rates", system, build, [__file__, SOLVER_CODE])).function


def _fast_rates(system):
    """:func:`unrolled_rates` as a fast function, f itself for an ODE (a function of its own
    would copy the whole model's graph: 0.46 s at 100,000 elements, for the same numbers), or
    None."""
    if not len(system.z_pos):
        dae = fast(system, "dae")
        return lambda x, z, p, t: dae(x, z, p, t)[0]
    return fast(system, "rates_unrolled") if unrolled_rates(system) is not None else None


def consistent_rates(system, x, z, p, t) -> np.ndarray:
    """y' = [x'; z'] consistent with the equations at (x, z, p, t): x' = f and, from the time
    derivative of 0 = g, z' = −(∂g/∂z)⁻¹·(∂g/∂x·x' + ∂g/∂t). IDA starts from them, so a restart
    needs no initial-condition search and its first steps no correction of the rates. Where
    ∂g/∂z is singular (an ideal element's mode leaves a variable free), z' = 0."""
    unrolled = _fast_rates(system)
    if unrolled is not None:
        rates = unrolled(x, z, p, t)
        if not np.isfinite(rates[len(x):]).all():
            rates[len(x):] = 0.0
        return rates
    xdot, _, g_x, g_z, g_t, _ = _rate_parts(system)(x, z, p, t)
    nx, nz = len(x), len(z)
    if not nz:
        return xdot
    g_x, g_z = (g_x.reshape(nx, nz).T if nx else np.zeros((nz, 0))), g_z.reshape(nz, nz).T
    try:
        zdot = -np.linalg.solve(g_z, g_x @ xdot + g_t)
    except np.linalg.LinAlgError:
        zdot = np.zeros(nz)
    return np.concatenate([xdot, zdot if np.all(np.isfinite(zdot)) else np.zeros(nz)])


RIDGE = 1e-13        # relative regularization of a row's least-squares and minimum-norm solves
ROW_ITERATIONS = 2   # Gauss–Newton steps, then projection steps, of a row between solver steps


def row_between_steps(system) -> cs.Function:
    """The row (x, z) at a time t between two solver steps, from the interpolated states x,
    their rates x' (the polynomial's derivative) and the interpolated algebraic variables z.

    IDA keeps algebraic variables out of its error test (their values at the steps are exact
    for the states there, but their own polynomial between steps is not controlled), and
    solving 0 = g(x, z) from the interpolated x alone can amplify the interpolation error:
    an ideal diode's current through its 1e-5 Ω on-resistance changes by 10⁵ A per volt of
    error. Both rows of the DAE hold at t, x' = f(x, z) and 0 = g(x, z), so z is first their
    weighted least-squares solution, each row weighted by the accuracy its interpolated inputs
    have: an x row by 1/(rtol·|x'| + (rtol·|x| + atol)/h) (the polynomial's derivative over a
    step h), a g row by 1/(Σ_j |∂g/∂x_j|·(rtol·|x_j| + atol) + atol) (Gauss–Newton). The
    diode's current then comes from the capacitor's charging rate, a resistive divider's node
    from its equation. Then (x, z) is moved the least, each variable in units of its
    tolerance (rtol·|v| + atol), onto 0 = g (minimum-norm Newton steps on [∂g/∂x ∂g/∂z]): the
    row satisfies the model's equations (a resistor's v = R·i to rounding), the correction
    lying within the interpolation's accuracy. ``ROW_ITERATIONS`` steps of each (the later
    ones chord steps on the first one's Jacobian), one where both are linear problems
    (:func:`_linear_rows`).

    Returns the CasADi function (y, y', p, t, h, rtol, atol) -> (y, 0 if y is finite and the
    projection converged (its last step within the tolerances) else NaN) of y = [x; z], y' the
    polynomial's derivative (only its x part is used), h the step, built once per model."""
    key = "row_between_steps"
    if key not in system.cache:
        system.cache[key] = stored(key, system, lambda: _row_function(system), [__file__])
    return system.cache[key]


def solved_row(system, y, p, t) -> np.ndarray:
    """The row y = [x; z] whose reconstruction failed (:func:`row_between_steps`: not finite,
    or its projection not converged), with z solved from the interpolated states by damped
    Newton (:func:`~physlib.analysis.common.initialization.solve_algebraic`) from the
    interpolated z; the interpolated row if that fails too."""
    nx = len(system.state_pos)
    names = system.position_names.take(system.z_pos)
    try:
        z = solve_algebraic(system, y[:nx], y[nx:], p, t, lambda i: names[i])
    except PhyslibError:
        return np.array(y, dtype=float)
    return np.concatenate([y[:nx], z])


def _least_squares(J, r, kind):
    """The least-squares solution d of J·d ≈ r, of least norm where J is rank-deficient.

    J's columns are scaled to unit norm first, and δ = RIDGE is a ridge relative to them: d
    minimizes |J·d − r|² + δ·|d|², so that a rank-deficient J (the variables of an ideal switch
    at Ron = 0) gives the least-squares answer of least norm instead of NaN. Solved without
    forming JᵀJ, whose condition is the square of J's (a capacitor's current balance on rates
    of 1e8 V/s beside a constraint in volts made JᵀJ singular to working precision: the rows of
    a CMOS gate's transition came out 1e3 V/s off in their rates and 2e-4 V off in their gate
    voltage): see :func:`_ridge_solve`."""
    columns = 1.0 / (cs.sqrt(cs.sum1(J * J)).T + 1e-300)
    return columns * _ridge_solve(J @ cs.diag(columns), r, kind)


def _minimum_norm(J, g, kind):
    """The least-norm d with J·d = −g: d = −Jᵀ·λ with (J·Jᵀ + δI)·λ = g, δ = RIDGE (the d
    minimizing |J·d + g|² + δ·|d|²), with J's rows scaled to unit norm first (the same
    solution; δ then a ridge relative to every equation alike, so that dependent equations are
    met in the least-squares sense instead of giving NaN).

    Small systems (SX): λ through R of the QR factorization of Jᵀ stacked on √δ·I (RᵀR = J·Jᵀ +
    δI; the seminormal equations, stable for least-norm problems), so that d lies in J's row
    space by construction; factorizing the m + n columns' ridge problem instead left d's
    component across that space 1e-3 off on well-conditioned rows. Larger systems (MX): the
    augmented system [I Jᵀ; J −δI]·[d; λ] = [0; −g], sparse like J, by CasADi's sparse LU."""
    rows = 1.0 / (cs.sqrt(cs.sum2(J * J)) + 1e-300)
    scaled = cs.diag(rows) @ J
    m, n = J.size1(), J.size2()
    if kind is cs.SX:
        _, r = cs.qr(cs.vertcat(scaled.T, np.sqrt(RIDGE) * kind.eye(m)))
        return -cs.mtimes(scaled.T, cs.solve(r, cs.solve(r.T, rows * g)))
    augmented = cs.blockcat([[kind.eye(n), scaled.T], [scaled, -RIDGE * kind.eye(m)]])
    return cs.solve(augmented, cs.vertcat(kind(n, 1), -rows * g), "csparse")[:n]


def _ridge_solve(A, b, kind):
    """The d minimizing |A·d − b|² + δ·|d|² (δ = RIDGE).

    Small systems (SX): the QR factorization of A stacked on √δ·I, unrolled (no call
    overhead), whose condition is that of A bounded by the ridge. It takes a quarter of the
    operations of the equivalent augmented system [I A; Aᵀ −δI] of size m + n, and keeps its
    accuracy where that one's unrolled solve lost it (residuals 100x the least squares' on a
    matrix of condition 1e8): the row function runs once per output row. Larger systems
    (MX): the augmented system [I A; Aᵀ −δI]·[s; d] = [b; 0], sparse like A, by CasADi's
    sparse LU at run time (its sparse QR fails on these systems)."""
    m, n = A.size1(), A.size2()
    if kind is cs.SX:
        q, r = cs.qr(cs.vertcat(A, np.sqrt(RIDGE) * kind.eye(n)))
        return cs.solve(r, cs.mtimes(q.T, cs.vertcat(b, kind(n, 1))))
    augmented = cs.blockcat([[kind.eye(m), A], [A.T, -RIDGE * kind.eye(n)]])
    return cs.solve(augmented, cs.vertcat(b, kind(n, 1)), "csparse")[m:]


def _row_function(system) -> cs.Function:
    parts = _rate_parts(system).function
    nx, nz = system.dae.size1_in(0), system.dae.size1_in(1)
    kind = cs.SX if nz <= SYMBOLIC_SOLVE_LIMIT else cs.MX
    y_in, yp, p, t = kind.sym("y", nx + nz), kind.sym("yp", nx + nz), kind.sym("p", system.dae.size1_in(2)), \
        kind.sym("t")
    h, rtol, atol = kind.sym("h"), kind.sym("rtol"), kind.sym("atol")
    x, z, x_rate = y_in[:nx], y_in[nx:], yp[:nx]
    dx = rtol * cs.fabs(x) + atol
    iterations = 1 if _linear_rows(system) else ROW_ITERATIONS
    # Each stage's later steps keep its first step's Jacobian and weights (chord steps from a
    # start within the interpolation's accuracy): they re-evaluate only f and g, and the
    # factorization is shared (merged as a common subexpression): a quarter fewer operations
    # on a Shockley buck's rows; the convergence test below catches a row they would not settle.
    f, g, g_x, g_z, _, f_z = parts(x, z, p, t)
    w_x = 1.0 / (rtol * cs.fabs(x_rate) + dx / h)
    w_g = 1.0 / (cs.mtimes(cs.fabs(g_x), dx) + atol)
    J = cs.vertcat(cs.diag(w_x) @ f_z, cs.diag(w_g) @ g_z)
    for k in range(iterations):
        if k:
            f, g = parts(x, z, p, t)[:2]
        r = cs.vertcat(w_x * (x_rate - f), -w_g * g)
        z = z + _least_squares(J, r, kind)
    _, g, g_x, g_z, _, _ = parts(x, z, p, t)
    scale = cs.vertcat(rtol * cs.fabs(x) + atol, rtol * cs.fabs(z) + atol)
    J = cs.horzcat(g_x, g_z) @ cs.diag(scale)
    for k in range(iterations):
        if k:
            g = parts(x, z, p, t)[1]
        step = scale * _minimum_norm(J, g, kind)
        x, z = x + step[:nx], z + step[nx:]
    y = cs.vertcat(x, z)
    total = cs.sum1(y)
    if iterations > 1:
        # Not converged where an equation is still off by more than its variables'
        # tolerances can make up (from a start far down an exponential the steps are tiny
        # and the equation far from met): the row counts as failed, like one that is not
        # finite, and is solved again from the interpolated values.
        _, g, g_x, g_z, _, _ = parts(x, z, p, t)
        reach = cs.mtimes(cs.fabs(cs.horzcat(g_x, g_z)), cs.vertcat(rtol * cs.fabs(x) + atol, rtol * cs.fabs(z) + atol))
        total = total + cs.if_else(cs.mmax(cs.fabs(g) - reach) <= 0.0, 0.0, cs.inf)
    check = cs.if_else(cs.fabs(total) < cs.inf, 0.0, float("nan"))   # (total - total folds to 0)
    # Common subexpressions merged: the iterations repeat parts of one another (18 % fewer
    # operations on a Shockley buck, evaluated once per output row).
    options = {"cse": True} if kind is cs.SX else {}
    return cs.Function("row_between_steps", [y_in, yp, p, t, h, rtol, atol], [y, check], options)


def _linear_rows(system) -> bool:
    """Whether both stages of a row's reconstruction are linear problems: f and g linear in z
    and g linear in x (their Jacobians free of x and z). One step of each is then exact (to
    the ridge of the solves, 1e-13 relative), and the row function is half as long."""
    x, z, p, t = system.symbols(cs.SX)
    f, g = system.dae(x, z, p, t)
    jacobians = cs.vertcat(cs.vec(cs.jacobian(cs.vertcat(f, g), z)), cs.vec(cs.jacobian(g, x)))
    return not cs.depends_on(jacobians, cs.vertcat(x, z))


def algebraic_rows(system, X, Z, p, times, describe) -> np.ndarray:
    """The algebraic variables solved at many output rows: 0 = g(X[:, i], z, p, times[i]) for
    each column, from the guesses Z (the solver's interpolation).

    Where g is linear in z (∂g/∂z constant: resistive networks, linear sources), one Newton
    step from any guess is the solution, and ∂g/∂z is factorized once (sparse LU) for all
    rows: the residuals of every row in one vectorized call, one solve with a right-hand side
    per row. Otherwise each row is solved by Newton (:func:`solve_algebraic`)."""
    if not Z.shape[0] or not Z.shape[1]:
        return Z
    if not _linear_in_z(system):
        return np.column_stack([solve_algebraic(system, X[:, i], Z[:, i], p, t, describe)
                                for i, t in enumerate(times)])
    residual, jacobian = system.cache["rows_linear"]
    G = np.asarray(residual(X, Z, p, np.asarray(times)[None, :]))
    lu = spla.splu(sps.csc_matrix(jacobian(X[:, 0], Z[:, 0], p, times[0]).sparse()))
    return Z - lu.solve(G)


def _linear_in_z(system) -> bool:
    """Whether ∂g/∂z is constant (depends on neither x, z nor t); caches the functions
    :func:`algebraic_rows` evaluates then."""
    if "rows_linear" not in system.cache:
        x, z, p, t = system.symbols(cs.SX)
        g = system.dae(x, z, p, t)[1]
        g_z = cs.jacobian(g, z)
        linear = not cs.depends_on(g_z, cs.vertcat(x, z, t))
        system.cache["rows_linear"] = (cs.Function("g_rows", [x, z, p, t], [g]),
                                       cs.Function("g_z", [x, z, p, t], [g_z])) if linear else None
    return system.cache["rows_linear"] is not None
