"""One step of the fixed-step solvers on the compiled DAE x' = f(x, z, p, t), 0 = g(x, z, p, t).

- ``"euler"`` (explicit, order 1) and ``"rk4"`` (classical Runge–Kutta, explicit, order 4): the
  algebraic variables z are found by Newton (:func:`~physlib.analysis.common.initialization.solve_algebraic`)
  at every stage, so every stage derivative is evaluated on the constraint manifold.
- ``"backward_euler"`` (order 1) and ``"trapezoidal"`` (order 2), implicit: the step equations for the new
  states and algebraic variables together, solved by a damped Newton method from the explicit
  Euler predictor (until the step is below 1e-12 of the unknowns),

      x1 − x0 − h·(θ·f(x1, z1, t1) + (1 − θ)·f(x0, z0, t0)) = 0,   g(x1, z1, t1) = 0

  (θ = 1 backward Euler, θ = ½ trapezoidal), with the exact sparse Jacobian from CasADi.

Between two step ends, :meth:`StepMethod.interpolate` gives each method's own interpolant of
the states (:data:`INTERPOLANT`), with z solved at the interpolated states:

- ``"euler"``, ``"backward_euler"``, ``"trapezoidal"``: linear between the two step values,
  which never leaves their range. For explicit Euler it is the method's own continuous
  extension x0 + s·h·f(x0); for backward Euler, the collocation polynomial of the one-stage
  Radau IIA method; for the trapezoidal rule (order 2) it errs by O(h²) on a smooth solution,
  the method's own order. Interpolants through the derivatives (the cubic Hermite, the
  trapezoidal rule's quadratic extension) overshoot on a stiff state (|h·λ| ≫ 1), which the
  implicit methods step over stably: h·f at the step's start is the fast transient's,
  |h·λ| times the state's range (a 1 V step charging 1 pF through 1 Ω, h = 1e3 s: the cubic
  Hermite gave 9.8e12 V at 10 s between step values 0 and 1 V).
- ``"rk4"``: the cubic Hermite interpolant through both ends and their derivatives, local
  error O(h⁴), the method's order. rk4 is explicit: a stable run has |h·λ| ≲ 2.8, so h·f
  stays of the order of the state's change over the step.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import SimulationError
from ...core.lazy import lazy_module
from ..common.fast_call import fast
from ..common.initialization import damped_newton, solve_algebraic
from ..common.interpolation import hermite, linear

# SciPy's sparse matrices and solvers serve large models only: imported on first use.
sps = lazy_module("scipy.sparse")
spla = lazy_module("scipy.sparse.linalg")

# How each solver interpolates between its step ends (see the module docstring):
# SimulationResult.at(t) after a fixed-step run uses the same choice between its rows.
INTERPOLANT = {"euler": "linear", "rk4": "hermite", "trapezoidal": "linear", "backward_euler": "linear"}


class StepMethod:
    """The steps of one fixed-step solver on a compiled model's system; ``names`` name the
    states and then the algebraic variables in error messages, ``describe(i)`` algebraic
    variable i."""

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
        """(x, z) at b from (xa, za) at a; the stages at the step's end are evaluated at
        ``b_eval`` (the left limit when b is a time event)."""
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
            x1, z1 = cs.vertsplit(w, [0, nx, nx + nz])   # (a slice of a 1×1 w would be a row)
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
        """The states inside [a, b] by the method's interpolant (:data:`INTERPOLANT`: cubic
        Hermite for rk4, linear otherwise); z solved at each point."""
        h = b - a
        use_hermite = INTERPOLANT[self.solver] == "hermite"
        if use_hermite:
            fa, fb = self.f(xa, za, p, a), self.f(xb, zb, p, b_eval)
        z = za
        for tt in times:
            s = (tt - a) / h
            x = hermite(s, xa, h * fa, xb, h * fb) if use_hermite else linear(s, xa, xb)
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

