"""Exact first derivatives of a compiled model's functions at a point, as the event jumps of the
sensitivities need them: the DAE's (f, g) with respect to x, z, the varying parameters p_V and
t; the guards'; the outputs'; the next time event's; the discrete updates'. Each is a CasADi
function derived once per compiled model (and set V), evaluated through a buffer
(:func:`~physlib.analysis.common.fast_call.fast`) for models of up to DENSE_LIMIT unknowns and
as sparse matrices beyond.
"""
from __future__ import annotations

import casadi as cs
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..common.fast_call import fast

DENSE_LIMIT = 400       # unknowns (states + algebraic variables) up to which matrices are dense


class PointDerivatives:
    """Derivatives of the model's functions at points, for the varying entries ``varying``."""

    def __init__(self, model, varying: np.ndarray):
        self.model, self.system = model, model.system
        self.varying = varying
        self.nx, self.nz = len(model.system.state_pos), len(model.system.z_pos)
        self.dense = self.nx + self.nz <= DENSE_LIMIT
        self._key = tuple(varying.tolist())

    # --- building and evaluating ---------------------------------------------------------------

    def _function(self, name, build):
        """The function ``name`` (made by ``build(x, z, p, t, p_V)`` as a list of outputs)."""
        system, key = self.system, ("sensitivity", name, self._key)

        def make():
            x, z, p, t = system.symbols(cs.SX)
            pv = p[self.varying.tolist()] if len(self.varying) else cs.SX(0, 1)
            outputs = build(x, z, p, t, pv)
            return cs.Function(name, [x, z, p, t], [cs.densify(o) for o in outputs] if self.dense else outputs)
        if self.dense:
            return fast(system, key, make)
        if key not in system.cache:
            system.cache[key] = make()
        return system.cache[key]

    def _evaluate(self, name, build, shapes, x, z, p, t):
        """The outputs of ``name`` at (x, z, p, t) as arrays of ``shapes`` (dense), or dense
        vectors and scipy sparse matrices (large models)."""
        function = self._function(name, build)
        if self.dense:
            values = function(x, z, p, t)
            values = values if isinstance(values, tuple) else (values,)
            return [v.reshape(shape[::-1]).T if len(shape) == 2 else v for v, shape in zip(values, shapes)]
        out = []
        for value, shape in zip(function(x, z, p, t), shapes):
            out.append(value.sparse() if len(shape) == 2 else np.array(value).ravel())
        return out

    # --- the DAE ---------------------------------------------------------------------------------

    def dae(self, x, z, p, t):
        """(f, g, [f; g]_w with w = [x; z], [f; g]_pV, [f; g]_t) at the point."""
        def build(x, z, p, t, pv):
            ode, alg = self.system.dae(x, z, p, t)
            F = cs.vertcat(ode, alg)
            return [ode, alg, cs.jacobian(F, cs.vertcat(x, z)), cs.jacobian(F, pv), cs.jacobian(F, t)]
        n = self.nx + self.nz
        return self._evaluate("dae", build, [(self.nx,), (self.nz,), (n, n), (n, len(self.varying)), (n,)],
                              x, z, p, t)

    def rates(self, parts):
        """(x', z') at a point from its :meth:`dae` parts: z' from the time derivative of 0 = g."""
        f, _, Jw, _, Jt = parts
        if not self.nz:
            return f, np.zeros(0)
        g_x, g_z = Jw[self.nx:, :self.nx], Jw[self.nx:, self.nx:]
        return f, -self.solve_gz(g_z, g_x @ f + Jt[self.nx:])

    def algebraic_sensitivity(self, parts, S, P, tau=None):
        """dz/dθ = −g_z⁻¹·(g_x·S + g_pV·P [+ (g_x·x' + g_t)·τ]) at the point: the sensitivities of
        the algebraic variables that go with state sensitivities S (at fixed time; with τ, along
        the event's instant as it moves)."""
        if not self.nz:
            return np.zeros((0, S.shape[1]))
        _, _, Jw, Jp, Jt = parts
        g_x, g_z = Jw[self.nx:, :self.nx], Jw[self.nx:, self.nx:]
        rhs = g_x @ S + (Jp[self.nx:] @ P if P.shape[0] else 0.0)
        if tau is not None:
            rhs = rhs + np.outer(np.asarray(Jt[self.nx:]).ravel(), tau)
        return -self.solve_gz(g_z, np.asarray(rhs))

    def solve_gz(self, g_z, rhs):
        if sps.issparse(g_z):
            return spla.splu(sps.csc_matrix(g_z)).solve(np.asarray(rhs, dtype=float))
        return np.linalg.solve(g_z, rhs)

    # --- guards, outputs, time events, discrete updates ---------------------------------------------

    def guards(self, x, z, p, t):
        """(g, g_x, g_z, g_pV, g_t) of all guards, dense."""
        def build(x, z, p, t, pv):
            g = self.system.guards(x, z, p, t)
            return [g, cs.jacobian(g, x), cs.jacobian(g, z), cs.jacobian(g, pv), cs.jacobian(g, t)]
        n = len(self.system.guard_owner)
        values = self._evaluate("guards", build, [(n,), (n, self.nx), (n, self.nz), (n, len(self.varying)),
                                                  (n,)], x, z, p, t)
        return [v.toarray() if sps.issparse(v) else v for v in values]

    def outputs(self, x, z, p, t):
        """(values, values_x, values_z, values_pV, values_t) of the model's outputs."""
        def build(x, z, p, t, pv):
            y = self.system.outputs(x, z, p, t)
            return [y, cs.jacobian(y, x), cs.jacobian(y, z), cs.jacobian(y, pv), cs.jacobian(y, t)]
        n = self.system.outputs.size1_out(0)
        return self._evaluate("outputs", build, [(n,), (n, self.nx), (n, self.nz), (n, len(self.varying)),
                                                 (n,)], x, z, p, t)

    def next_time(self, function, p, t):
        """(t_next, ∂t_next/∂p_V) of the model's next-time-event function at (p, t)."""
        key = ("sensitivity", "next_time", self._key)

        def make():
            ps, ts = cs.SX.sym("p", self.system.dae.size1_in(2)), cs.SX.sym("t")
            t_next = function(ps, ts)
            pv = ps[self.varying.tolist()] if len(self.varying) else cs.SX(0, 1)
            return cs.Function("next_time", [ps, ts], [t_next, cs.densify(cs.jacobian(t_next, pv))])
        t_next, gradient = fast(self.system, key, make)(p, t)
        return float(t_next[0]), gradient

    def update(self, function, values, p, pre, t):
        """(p_next, ∂p_next/∂values, ∂p_next/∂p_V, ∂p_next/∂pre_V, ∂p_next/∂t) of the discrete
        updates, rows of the varying entries."""
        key = ("sensitivity", "update", self._key)

        def make():
            names = ("values", "p", "pre", "t")
            symbols = [cs.SX.sym(n, function.size1_in(i)) for i, n in enumerate(names)]
            rows = self.varying.tolist()
            new = function(*symbols)[rows]
            jacobians = [cs.jacobian(new, symbols[0]), cs.jacobian(new, symbols[1][rows]),
                         cs.jacobian(new, symbols[2][rows]), cs.jacobian(new, symbols[3])]
            return cs.Function("update_jacobian", symbols, [cs.densify(o) for o in [new, *jacobians]])
        out = fast(self.system, key, make)(values, p, pre, t)
        nv = len(self.varying)
        shapes = [(nv,), (nv, len(values)), (nv, nv), (nv, nv), (nv,)]
        return [v.reshape(s[::-1]).T if len(s) == 2 else v for v, s in zip(out, shapes)]
