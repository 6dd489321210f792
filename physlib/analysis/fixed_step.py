"""Fixed-step integration of the compiled DAE x' = f(x, z, p, t), 0 = g(x, z, p, t).

Solvers (step ``dt``, order p of the global error):

- ``"euler"`` (explicit, p = 1) and ``"rk4"`` (classical Runge–Kutta, explicit, p = 4): the
  algebraic variables z are found by Newton (:func:`~physlib.analysis.initialization.solve_algebraic`)
  at every stage, so every stage derivative is evaluated on the constraint manifold.
- ``"backward_euler"`` (p = 1) and ``"trapezoidal"`` (p = 2), implicit: one Newton iteration on the
  step equations for the new states and algebraic variables together,

      x1 − x0 − h·(θ·f(x1, z1, t1) + (1 − θ)·f(x0, z0, t0)) = 0,   g(x1, z1, t1) = 0

  (θ = 1 backward Euler, θ = ½ trapezoidal), with the exact Jacobian from CasADi.

The step grid is ``t0, t0 + dt, t0 + 2·dt, …`` with a shorter last step ending at ``t_end``.
Time events of the model (a source's step) split the step they fall in, so no step
integrates across a discontinuity: the stages at the end of such a step see the left limit
of the inputs, and the algebraic variables are re-solved after it.

Output: without ``t_eval``, every step end (and, at a time event or where the ``step_end``
hook changed the state, the values just before and just after it at the same time stamp). With
``t_eval``, exactly those times: a time on the step grid (within 1e-9·dt) gets the step's value;
a time inside a step gets the cubic Hermite interpolant of the states through both step ends
and their derivatives (local error O(dt⁴), the order of rk4) with z solved at the
interpolated states (and, with invariants, projected onto them). The step grid does not depend
on ``t_eval``.

Invariants (ALGORITHMS.md §2): SymPy expressions of states (``sympy.Symbol("lv.x")``),
parameters (``"lv.a"``) and time (``"t"``) whose values at ``t0`` are kept by invariant
projection after every step — M-weighted by the energy matrix when that is positive definite
at the current state, Euclidean otherwise (states that store no energy) — and z re-solved.

The ``step_end(t, x, z)`` hook runs at every step end after the invariant projection and may
return new ``(x, z)`` or ``(x, z, p)`` (p: parameters, e.g. modes changed by an event) or ``None``
for no change; z is then re-solved from the returned guess.
"""
from __future__ import annotations

import difflib

import casadi as cs
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
import sympy as sp

from ..core.errors import PhyslibError, SimulationError
from .events import left_limit
from .fast_call import fast
from .initialization import damped_newton, solve_algebraic
from .options import FIXED_STEP
from .projection import energy_matrix, invariant_projection

_GRID_TOL = 1e-9          # relative to dt: times closer than this to a grid point are on it


# --- public entry points ------------------------------------------------------------------------

def simulate_fixed(model, options):
    """:func:`physlib.analysis.simulate.simulate` for the fixed-step solvers, with validated
    :class:`~physlib.analysis.options.SimulateOptions`.

    ``dt`` [s] is required. ``rtol``/``atol`` do not apply (the implicit solvers' Newton
    iterations converge to rounding level); ``max_step`` is an error (the step is ``dt``).
    Models with modes have their guards checked at step ends; an event found there is handled
    at the step end, where ``projection`` makes the overshot state consistent with the new
    modes' constraints (ALGORITHMS §1).
    """
    from .results import SimulationResult
    from .simulate import consistent_start

    t0, t_end = options.t0, options.t_end
    p = model.parameter_vector(options.params)
    x, z = consistent_start(model, p, options)
    hook, events = None, []
    if model.has_modes:
        hook, events, (x, z, p) = step_end_events(model, p, t0, t_end, x, z, projection=options.projection,
                                                  atol=options.atol, max_events=options.max_events)
    times, X, Z, P, t_values = integrate_fixed(model, options.solver, t0, t_end, options.dt, x, z, p,
                                               t_eval=options.t_eval, step_end=hook,
                                               invariants=options.invariants, return_p=True)
    return SimulationResult(model, times, X, Z, P, events, t_values=t_values)


def integrate_fixed(model, solver: str, t0: float, t_end: float, dt: float, x, z, p, t_eval=None,
                    step_end=None, invariants=None, *, return_p: bool = False):
    """Integrate from consistent ``(x, z)`` at ``t0`` to ``t_end`` with the fixed step ``dt``.

    Returns ``(times, X, Z)`` with X (nx, k) and Z (nz, k) the states and algebraic variables
    at ``times`` (k,) — see the module docstring for which times; with ``return_p=True`` also the
    parameter vectors P (np, k) in force at those times (the ``step_end`` hook may change modes)
    and the times at which to evaluate outputs (the left limit for a row just before a time event). ``invariants`` is a list
    of SymPy expressions or an :class:`Invariants`. Raises :class:`SimulationError` when a step
    fails (Newton does not converge, the solution is no longer finite).
    """
    if solver not in FIXED_STEP:
        raise PhyslibError(f"unknown fixed-step solver {solver!r}; choose one of {', '.join(FIXED_STEP)}")
    system = model.system
    names = list(model.states) + list(model.algebraic)
    x = np.array(x, dtype=float).ravel()
    z = np.array(z, dtype=float).ravel()
    p = np.array(p, dtype=float).ravel()
    nx, nz = x.size, z.size
    describe = lambda i: model.algebraic[i]  # noqa: E731
    stepper = _Stepper(system, solver, names, describe)
    if invariants is not None and not isinstance(invariants, Invariants):
        invariants = Invariants(model, invariants)
    if invariants is not None and invariants.size == 0:
        invariants = None
    target = invariants.values(x, p, t0) if invariants is not None else None

    events = model.time_events(p, t0, t_end)
    points, is_event = _step_points(t0, t_end, dt, events)
    user_grid = t_eval is not None
    if user_grid:
        t_eval = np.asarray(t_eval, dtype=float).ravel()
        if t_eval.size and (t_eval[0] < t0 - _GRID_TOL * dt or t_eval[-1] > t_end + _GRID_TOL * dt):
            raise PhyslibError(f"t_eval must lie within [t0, t_end] = [{t0}, {t_end}]")

    times, xs, zs, ps, t_values = [], [], [], [], []

    def record(tt, xx, zz, pp=None, t_value=None):
        times.append(float(tt)), xs.append(np.array(xx)), zs.append(np.array(zz))
        ps.append(np.array(p if pp is None else pp))
        t_values.append(float(tt if t_value is None else t_value))

    k_eval = 0                              # next t_eval point to place
    tol = _GRID_TOL * dt
    if user_grid:
        while k_eval < t_eval.size and t_eval[k_eval] <= t0 + tol:
            record(t_eval[k_eval], x, z)
            k_eval += 1
    else:
        record(t0, x, z)

    for k in range(len(points) - 1):
        a, b = points[k], points[k + 1]
        # At a time event the stages at the end of the step see the input's left limit.
        b_eval = left_limit(b, t0, t_end) if is_event[k + 1] else b
        xa, za = x, z
        x, z = stepper.step(xa, za, p, a, b, b_eval)
        if invariants is not None:
            x = invariants.project(x, target, p, b_eval, system, z)
            z = solve_algebraic(system, x, z, p, b_eval, describe) if nz else z
        if user_grid:                       # interpolated points strictly inside the step
            inner = []
            while k_eval < t_eval.size and t_eval[k_eval] < b - tol:
                inner.append(t_eval[k_eval])
                k_eval += 1
            if inner:
                for tt, xi, zi in stepper.interpolate(xa, za, a, x, z, b, b_eval, p, inner):
                    if invariants is not None:      # the interpolant keeps them only to O(dt⁴)
                        xi = invariants.project(xi, target, p, tt, system, zi)
                        zi = solve_algebraic(system, xi, zi, p, tt, describe) if nz else zi
                    record(tt, xi, zi)
        if is_event[k + 1]:
            if not user_grid:
                record(b, x, z, t_value=b_eval)     # left limit
            z = solve_algebraic(system, x, z, p, b, describe) if nz else z
        if step_end is not None:
            x_before, z_before, p_before = x, z, p
            x, z, p = _apply_hook(step_end, b, x, z, p, system, describe)
            changed = not (np.array_equal(x, x_before) and np.array_equal(z, z_before)
                           and np.array_equal(p, p_before))
            if changed and not user_grid and not is_event[k + 1]:
                record(b, x_before, z_before, p_before)
        if user_grid:
            while k_eval < t_eval.size and t_eval[k_eval] <= b + tol:
                record(t_eval[k_eval], x, z)
                k_eval += 1
        else:
            record(b, x, z)
    X = np.array(xs).reshape(len(xs), nx).T
    Z = np.array(zs).reshape(len(zs), nz).T
    out = (np.array(times), X, Z)
    return out + (np.array(ps).T.reshape(p.size, len(ps)), np.array(t_values)) if return_p else out


# --- invariants ---------------------------------------------------------------------------------

class Invariants:
    """Invariant functions g(x, p, t) of a compiled model, from SymPy expressions.

    Symbols are matched by name: a variable path that is a state (or an alias of one, with its
    sign), a parameter path, or ``t``. Unknown names, and variables that are not states, are a
    :class:`PhyslibError` naming them.
    """

    def __init__(self, model, expressions):
        if isinstance(expressions, sp.Basic) or isinstance(expressions, str):
            expressions = [expressions]
        exprs = [sp.sympify(e) for e in expressions]
        system = model.system
        nx, np_ = len(system.state_pos), system.dae.size1_in(2)
        xs, ps, ts = cs.SX.sym("x", nx), cs.SX.sym("p", np_), cs.SX.sym("t")
        state_of = {int(pos): i for i, pos in enumerate(system.state_pos)}
        param_index = {name: i for i, name in enumerate(model.parameters)}
        symbols, unknown, not_states = {}, [], []
        for sym in sorted(set().union(*(e.free_symbols for e in exprs)) if exprs else [], key=str):
            name = sym.name
            if name == "t":
                symbols[sym] = ts
            elif name in param_index:
                symbols[sym] = ps[param_index[name]]
            elif name in model.variables:
                pos, sign = model.variable(name)
                if pos in state_of:
                    symbols[sym] = sign * xs[state_of[pos]]
                else:
                    not_states.append(name)
            else:
                unknown.append(name)
        if unknown or not_states:
            parts = []
            if unknown:
                hints = [f"{n} (did you mean {', '.join(c)}?)" if (c := difflib.get_close_matches(
                    n, list(model.variables) + list(param_index), n=2)) else n for n in unknown]
                parts.append("unknown names " + ", ".join(hints))
            if not_states:
                parts.append("variables that are not states " + ", ".join(not_states)
                             + f" (states: {', '.join(model.states[:10])})")
            raise PhyslibError("invariants: " + "; ".join(parts)
                               + ". Invariants are expressions of state paths, parameter paths and t")
        from ..assembly.sympy_to_casadi import to_casadi
        g = cs.vertcat(*[to_casadi(e, symbols) for e in exprs]) if exprs else cs.SX(0, 1)
        self.size = len(exprs)
        self.expressions = exprs
        self._fun = cs.Function("invariants", [xs, ps, ts], [g, cs.jacobian(g, xs)])

    def values(self, x, p, t) -> np.ndarray:
        return np.asarray(self._fun(x, p, t)[0]).ravel()

    def project(self, x, target, p, t, system=None, z=None) -> np.ndarray:
        """x moved back onto ``g(x) = target`` (M-weighted when the energy matrix is definite)."""
        M = None
        if system is not None and x.size and system.energy.size1_out(0):
            M = energy_matrix(system, x, z, p, t)
            try:
                np.linalg.cholesky(M)
            except np.linalg.LinAlgError:
                M = None

        def residual(xx):
            return target - self.values(xx, p, t)

        def jacobian(xx):
            return np.array(cs.DM(self._fun(xx, p, t)[1]))

        return invariant_projection(x, residual, jacobian, M)


# --- steps --------------------------------------------------------------------------------------

class _Stepper:
    def __init__(self, system, solver, names, describe):
        self.system = system
        self.solver = solver
        self.names = names
        self.describe = describe
        self.nx = len(system.state_pos)
        self.nz = len(system.z_pos)

    # f and z at a stage
    def f(self, x, z, p, t):
        return fast(self.system, "dae")(x, z, p, t)[0]

    def consistent(self, x, z_guess, p, t):
        if not self.nz:
            return z_guess
        return solve_algebraic(self.system, x, z_guess, p, t, self.describe)

    def step(self, xa, za, p, a, b, b_eval):
        h = b - a
        if self.solver == "euler":
            x = xa + h * self.f(xa, za, p, a)
            self._check_finite(x, a, h)
            return x, self.consistent(x, za, p, b_eval)
        if self.solver == "rk4":
            tm = a + h / 2
            k1 = self.f(xa, za, p, a)
            x2 = xa + h / 2 * k1
            z2 = self.consistent(x2, za, p, tm)
            k2 = self.f(x2, z2, p, tm)
            x3 = xa + h / 2 * k2
            z3 = self.consistent(x3, z2, p, tm)
            k3 = self.f(x3, z3, p, tm)
            x4 = xa + h * k3
            z4 = self.consistent(x4, z3, p, b_eval)
            k4 = self.f(x4, z4, p, b_eval)
            x = xa + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            self._check_finite(x, a, h)
            return x, self.consistent(x, z4, p, b_eval)
        theta = 1.0 if self.solver == "backward_euler" else 0.5
        return self._implicit(xa, za, p, a, h, b_eval, theta)

    def _implicit(self, xa, za, p, a, h, t1, theta, max_iter=50):
        fun = self._implicit_function()
        fa = self.f(xa, za, p, a)
        w = np.concatenate([xa + h * fa, za])      # explicit Euler predictor
        args = (xa, fa, p, t1, h, theta)

        def evaluate(ww):
            F, J = fun(ww, *args)
            return np.asarray(F).ravel(), J

        w = damped_newton(evaluate, lambda J, rhs: self._solve(J, rhs, a, h), w, tol=1e-12,
                          max_iter=max_iter, fail=lambda ww, F, why: self._failure(a, h, F, why))
        return w[:self.nx], w[self.nx:]

    def _implicit_function(self):
        key = "fixed_step_implicit"
        fun = self.system.cache.get(key)
        if fun is None:
            dae = self.system.dae
            nx, nz, np_ = self.nx, self.nz, dae.size1_in(2)
            w, x0, f0 = cs.SX.sym("w", nx + nz), cs.SX.sym("x0", nx), cs.SX.sym("f0", nx)
            p, t1, h, theta = cs.SX.sym("p", np_), cs.SX.sym("t1"), cs.SX.sym("h"), cs.SX.sym("theta")
            x1, z1 = w[:nx], w[nx:]
            f1, g1 = dae(x1, z1, p, t1)
            F = cs.vertcat(x1 - x0 - h * (theta * f1 + (1 - theta) * f0), g1)
            fun = cs.Function("implicit_step", [w, x0, f0, p, t1, h, theta], [F, cs.jacobian(F, w)])
            self.system.cache[key] = fun
        return fun

    def _solve(self, jac, rhs, a, h):
        n = jac.size1()
        if n <= 200:
            try:
                step = np.linalg.solve(np.array(cs.DM(jac)), rhs)
            except np.linalg.LinAlgError:
                step = np.full(n, np.nan)
        else:
            step = spla.spsolve(sps.csc_matrix(cs.DM(jac).sparse()), rhs)
        if not np.all(np.isfinite(step)):
            raise SimulationError(
                f"{self.solver}: the step equations are singular at t = {a:g} s (dt = {h:g} s); "
                "the algebraic equations may have lost index 1 (ideal elements in a loop or cut-set)")
        return step

    def interpolate(self, xa, za, a, xb, zb, b, b_eval, p, times):
        """Cubic Hermite interpolation of the states inside [a, b]; z solved at each point."""
        h = b - a
        fa, fb = self.f(xa, za, p, a), self.f(xb, zb, p, b_eval)
        z = za
        for tt in times:
            s = (tt - a) / h
            h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
            h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
            x = h00 * xa + h10 * h * fa + h01 * xb + h11 * h * fb
            z = self.consistent(x, z, p, tt)
            yield tt, x, z

    def _check_finite(self, x, a, h):
        if not np.all(np.isfinite(x)):
            bad = [self.names[i] for i in np.flatnonzero(~np.isfinite(x))[:5]]
            raise SimulationError(
                f"{self.solver} diverged in the step from t = {a:g} s (dt = {h:g} s): "
                f"{', '.join(bad)} became infinite or NaN: either the solution itself grows without "
                "bound (check the signs and parameters of the equations that drive it) or the "
                "explicit solver is unstable at this step (reduce dt or use solver='backward_euler' "
                "or 'trapezoidal')")

    def _failure(self, a, h, F, reason):
        F = np.nan_to_num(np.asarray(F, dtype=float), nan=np.inf)
        worst = [self.names[i] for i in np.argsort(-np.abs(F))[:3] if F[i] != 0]
        return SimulationError(
            f"{self.solver} failed in the step from t = {a:g} s (dt = {h:g} s): {reason}; largest "
            f"residuals in the equations for {', '.join(worst) or '?'}. Reduce dt or check the model")


# --- helpers ------------------------------------------------------------------------------------

def _step_points(t0, t_end, dt, events):
    """Step ends t0 + k·dt (last one t_end), with time events inserted; and which are events."""
    n = int(np.ceil((t_end - t0) / dt - _GRID_TOL))
    points = t0 + dt * np.arange(n + 1)
    points[-1] = t_end
    is_event = np.zeros(points.size, dtype=bool)
    extra = []
    for te in events:
        k = int(np.argmin(np.abs(points - te)))
        if abs(points[k] - te) <= _GRID_TOL * dt:
            points[k] = te
            is_event[k] = 0 < k < points.size - 1
        else:
            extra.append(te)
    if extra:
        points = np.concatenate([points, extra])
        is_event = np.concatenate([is_event, np.ones(len(extra), dtype=bool)])
        order = np.argsort(points, kind="stable")
        points, is_event = points[order], is_event[order]
    return points.tolist(), is_event.tolist()


def step_end_events(model, p, t0, t_end, x, z, *, projection, atol, max_events):
    """A ``step_end`` hook that checks guards at step ends and handles events there. Returns the
    hook, the list it fills with events, and the initial (x, z, p) with consistent modes."""
    from .events import HybridStepper, _no_guards

    # Settling looks 100·event_tol (1e-8 s) ahead: one rk4 step, far more accurate there than
    # the sign it is asked for needs.
    rk4 = _Stepper(model.system, "rk4", model.states + model.algebraic, lambda i: model.algebraic[i])
    stepper = HybridStepper(model, p, solver="idas", rtol=1e-8, atol=atol, event_tol=1e-10,
                            max_events=max_events, projection=projection,
                            step=lambda x, z, pp, ta, tb: rk4.step(x, z, pp, ta, tb, tb))
    x, z = stepper.start(t0, t_end, x, z)
    _, x, z, g, mask = stepper.settle(t0, x, z, _no_guards(stepper))
    time_events = set(model.time_events(stepper.p, t0, t_end))
    state = {"g": g, "mask": mask}

    def hook(t, x, z):
        g = stepper.guards(x, z, t)
        fired = stepper.crossed(state["g"], g, state["mask"])
        if np.any(fired) or t in time_events:
            # Events are handled at the step end. A guard that is zero there and leaves zero
            # (a normal force ramping up from 0) calls for another mode a moment later
            # (100·event_tol): settling takes the state from then, but the step clock stays.
            x, z = stepper.iterate_modes(t, x, z, fired, "state" if np.any(fired) else "time")
            _, x, z, g_ref, mask = stepper.settle(t, x, z, fired, g_before=state["g"])
            state["g"], state["mask"] = g_ref, mask
        else:
            state["g"], state["mask"] = stepper.watch(state["g"], g, state["mask"])
        return x, z, stepper.p.copy()

    return hook, stepper.events, (x, z, stepper.p.copy())


def _apply_hook(step_end, t, x, z, p, system, describe):
    out = step_end(t, x, z)
    if out is None:
        return x, z, p
    if len(out) == 3:
        x_new, z_new, p_new = out
        p = np.array(p_new, dtype=float).ravel()
    else:
        x_new, z_new = out
    x_new = np.array(x_new, dtype=float).ravel()
    z_new = np.array(z_new, dtype=float).ravel()
    if z_new.size:
        z_new = solve_algebraic(system, x_new, z_new, p, t, describe)
    return x_new, z_new, p
