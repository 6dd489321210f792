"""Property: random linear ODE/DAE systems written as custom components simulate to expm.

The coefficients are small integers and fractions of both signs, and every coefficient is
written in one of the many ways SymPy allows (``-y``, ``-1*y``, ``0 - y``, ``y*(-2)``,
``Rational(-1, 2)*y``, ``y/(-4)``, an unevaluated ``Mul``...), and every equation in one of
several equivalent forms (``Eq(der(x), rhs)``, ``Eq(rhs, der(x))``, a bare residual, both
sides negated). A lost sign anywhere between the user's equation and the integrator (the
SymPy→CasADi translation, alias elimination, explicit solving, emission) makes the result
differ from ``expm(A t) x0`` by the order of the solution itself.

Some systems route derivatives through algebraic variables (``der(x) = -z``, ``z = ...``,
small algebraic loops), which exercises aliases of derivatives and the algebraic solver.
"""
import os

import numpy as np
import pytest
import scipy.linalg
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physlib import Component, Model, Variable, der

EXAMPLES = 25 if os.environ.get("CI") else 200
T_END = 1.0

# Coefficients: nonzero small integers and simple fractions of both signs.
COEFFS = [sp.Integer(k) for k in (-3, -2, -1, 1, 2, 3)] + \
    [sp.Rational(p, q) for p, q in ((1, 2), (-1, 2), (1, 3), (-2, 3), (-1, 4), (3, 4))]


def _term(coeff: sp.Rational, y: sp.Symbol, style: int):
    """``coeff * y`` written in one of the ways a user might write it."""
    c = coeff
    if c == 1:
        return [y, 1 * y, sp.Integer(1) * y, sp.Mul(1, y, evaluate=False), y / 1][style % 5]
    if c == -1:
        return [-y, -1 * y, 0 - y, y * (-1), sp.Mul(-1, y, evaluate=False), sp.Integer(-1) * y,
                -(1 * y), sp.Add(0, -y, evaluate=False)][style % 8]
    if c.is_Integer:
        return [c * y, y * int(c), int(c) * y, sp.Mul(y, c, evaluate=False), -(-c) * y,
                0 - (-c) * y][style % 6]
    p, q = int(c.p), int(c.q)
    return [c * y, y * c, sp.Rational(p, q) * y, p * y / q, y * p / sp.Integer(q),
            sp.Mul(sp.Rational(p, q), y, evaluate=False), y / sp.Rational(q, p),
            sp.Float(p / q, 17) * y][style % 8]


def _equation(lhs, rhs, style: int):
    """``lhs = rhs`` in one of several equivalent forms."""
    return [sp.Eq(lhs, rhs), sp.Eq(rhs, lhs), lhs - rhs, sp.Eq(-lhs, -rhs), rhs - lhs,
            sp.Eq(0, rhs - lhs), sp.Eq(lhs - rhs, 0)][style % 7]


@st.composite
def linear_systems(draw):
    """(A, x0, builder): a random dx/dt = A x and a function writing it as a component."""
    n = draw(st.integers(1, 4))
    A = np.zeros((n, n))
    terms = []                      # per row: list of (coefficient, column, style)
    for i in range(n):
        row = []
        for j in range(n):
            if draw(st.booleans()) or (i == j and not row and j == n - 1):
                c = draw(st.sampled_from(COEFFS))
                row.append((c, j, draw(st.integers(0, 100))))
                A[i, j] = float(c)
        terms.append(row)
    x0 = [draw(st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5])) for _ in range(n)]
    # How each row is written: directly, through an algebraic variable z_i = ±rhs, or
    # through a two-variable algebraic loop.
    routes = [draw(st.sampled_from(["direct", "alias", "negated", "loop"])) for _ in range(n)]
    eq_styles = [draw(st.integers(0, 100)) for _ in range(3 * n)]
    return A, np.array(x0), _writer(n, terms, x0, routes, eq_styles)


def _writer(n, terms, x0, routes, eq_styles):
    def equations(self):
        xs = [getattr(self, f"x{i}") for i in range(n)]
        out = []
        for i in range(n):
            rhs = sp.Integer(0)
            for c, j, style in terms[i]:
                rhs = rhs + _term(c, xs[j], style)
            z = getattr(self, f"z{i}")
            w = getattr(self, f"w{i}")
            style = eq_styles[3 * i]
            if routes[i] == "direct":
                out.append(_equation(der(xs[i]), rhs, style))
            elif routes[i] == "alias":          # der(x) = z, z = rhs
                out += [_equation(der(xs[i]), z, style), _equation(z, rhs, eq_styles[3 * i + 1])]
            elif routes[i] == "negated":        # der(x) = -z, z = -rhs
                out += [_equation(der(xs[i]), -z, style), _equation(z, -rhs, eq_styles[3 * i + 1])]
            else:                               # z - w/2 = rhs, w + z = 0 (so z = 2/3 rhs)
                out += [_equation(der(xs[i]), sp.Rational(3, 2) * z, style),
                        _equation(z - w / 2, rhs, eq_styles[3 * i + 1]),
                        _equation(w, -z, eq_styles[3 * i + 2])]
            if routes[i] in ("direct", "alias", "negated"):
                out.append(_equation(w, 0 - z if routes[i] != "direct" else sp.Integer(0),
                                     eq_styles[3 * i + 2]))
            if routes[i] == "direct":
                out.append(_equation(z, xs[i], eq_styles[3 * i + 1]))
        return out

    attrs = {"equations": equations}
    for i in range(n):
        attrs[f"x{i}"] = Variable(start=x0[i])
        attrs[f"z{i}"] = Variable()
        attrs[f"w{i}"] = Variable()

    def build():
        cls = type("RandomLinear", (Component,), attrs)
        m = Model("lin")
        m.add(cls("sys"))
        return m
    return build


@pytest.mark.parametrize("solver", ["idas", "cvodes", "rk4"])
@settings(max_examples=EXAMPLES // 3 + 1, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(system=linear_systems())
def test_random_linear_systems_match_expm(solver, system):
    A, x0, build = system
    sim = build().compile()
    if solver == "cvodes" and sim.algebraic:
        solver = "idas"             # loops keep algebraic variables: an ODE solver cannot run them
    options = {"dt": 1e-3} if solver == "rk4" else {"rtol": 1e-10, "atol": 1e-12}
    res = sim.simulate(T_END, solver=solver, t_eval=[0.0, 0.5, T_END], **options)
    for k, tt in enumerate([0.0, 0.5, T_END]):
        exact = scipy.linalg.expm(A * tt) @ x0
        got = np.array([res[f"sys.x{i}"][k] for i in range(len(x0))])
        # rtol 1e-10 (or rk4's O(dt⁴) ≈ 1e-12 per unit time) keeps the error near 1e-8 of the
        # solution's scale (|A| ≤ 12, so growth is at most e^12); a lost sign is O(1).
        scale = 1.0 + np.abs(exact).max()
        assert np.abs(got - exact).max() <= 1e-7 * scale, (A, x0, got, exact)


def _oscillator(minus):
    class Oscillator(Component):
        x = Variable(start=1.0)
        y = Variable(start=0.0)

        def equations(self):
            return [sp.Eq(der(self.x), minus(self.y)), sp.Eq(der(self.y), self.x)]
    m = Model("osc")
    m.add(Oscillator("o"))
    return m.compile()


@pytest.mark.parametrize("minus", [lambda y: -y, lambda y: -1.0 * y, lambda y: 0 - y,
                                   lambda y: y * (-1), lambda y: sp.Rational(-1) * y],
                         ids=["-y", "-1.0*y", "0-y", "y*(-1)", "Rational(-1)*y"])
@pytest.mark.parametrize("solver,options", [("idas", {"rtol": 1e-10, "atol": 1e-12}),
                                            ("cvodes", {"rtol": 1e-10, "atol": 1e-12}),
                                            ("rk4", {"dt": 1e-3})])
def test_oscillator_written_with_minus_signs(minus, solver, options):
    """x' = -y, y' = x from (1, 0): x(1) = cos 1 (was cosh 1 when -y lost its sign)."""
    res = _oscillator(minus).simulate(1.0, solver=solver, **options)
    assert abs(res["o.x"][-1] - np.cos(1.0)) < 1e-7
    assert abs(res["o.y"][-1] - np.sin(1.0)) < 1e-7


@pytest.mark.parametrize("solver", ["idas", "cvodes", "rk4"])
def test_decay_whose_derivative_is_minus_its_state(solver):
    """x' = -x is an equation, not an alias of der(x) to its own state."""
    class Decay(Component):
        x = Variable(start=1.0)

        def equations(self):
            return [sp.Eq(der(self.x), -self.x)]
    m = Model("decay")
    m.add(Decay("d"))
    options = {"dt": 1e-3} if solver == "rk4" else {"rtol": 1e-10, "atol": 1e-12}
    res = m.compile().simulate(1.0, solver=solver, **options)
    assert abs(res["d.x"][-1] - np.exp(-1.0)) < 1e-8
