"""Invariants kept by projection during fixed-step runs (Gear's invariant projection, see
:mod:`physlib.analysis.common.projection`).

An invariant is a SymPy expression of states (``sympy.Symbol("lv.x")``), parameters
(``"lv.a"``) and time (``"t"``) whose value at ``t0`` the fixed-step solvers keep after every
step: the state is moved back onto g(x, p, t) = g(x₀, p, t₀) by invariant projection,
M-weighted by the energy matrix when that is positive definite at the current state (the
smallest change of stored energy), Euclidean otherwise (states that store no energy).
"""
from __future__ import annotations

import difflib

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError
from ..common.projection import energy_matrix, invariant_projection


class Invariants:
    """Invariant functions g(x, p, t) of a compiled model, from SymPy expressions.

    Symbols are matched by name: a variable path that is a state (or an alias of one, with its
    sign), a parameter path, or ``t``. Unknown names, and variables that are not states, are a
    :class:`PhyslibError` naming them.
    """

    def __init__(self, model, expressions):
        import sympy as sp
        from ...assembly.sympy_to_casadi import to_casadi
        if isinstance(expressions, sp.Basic) or isinstance(expressions, str):
            expressions = [expressions]
        exprs = [sp.sympify(e) for e in expressions]
        system = model.system
        xs, _, ps, ts = system.symbols()
        state_of = {int(pos): i for i, pos in enumerate(system.state_pos)}
        param_index = {name: i for i, name in enumerate(model.parameters)}
        symbols, unknown, not_states = {}, [], []
        for sym in sorted(set().union(*(e.free_symbols for e in exprs)) if exprs else [], key=str):
            name = sym.name
            if name == "t":
                symbols[sym] = ts
            elif name in param_index:
                symbols[sym] = ps[param_index[name]]
            elif model.has_variable(name):
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
        g = cs.vertcat(*[to_casadi(e, symbols) for e in exprs]) if exprs else cs.SX(0, 1)
        self.size = len(exprs)
        self.expressions = exprs
        self._fun = cs.Function("invariants", [xs, ps, ts], [g, cs.jacobian(g, xs)])

    def values(self, x, p, t) -> np.ndarray:
        return np.asarray(self._fun(x, p, t)[0]).ravel()

    def project(self, x, target, p, t, system=None, z=None) -> np.ndarray:
        """x moved back onto ``g(x) = target`` (M-weighted when the energy matrix is definite)."""
        M = None
        if system is not None and x.size and system.energy_owner:
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

