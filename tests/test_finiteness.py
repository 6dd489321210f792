"""The finiteness guard: a large model's start is known finite from its parameters (no function
of every variable built), and wherever the guard cannot say so the full check decides, with
the same error. Its soundness is a property: where its conditions hold, the value is finite."""
import casadi as cs
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sympy as sp

from physlib import InitializationError, Model, Parameter
from physlib.components.electrical import Ground, OnePort, VoltageSource
from physlib.analysis.common import start_values
from physlib.assembly.finiteness import finite_conditions
from test_results import rc_ladder
from test_start_values import loop_of_r_and_linear

V, P, T = cs.SX.sym("v", 2), cs.SX.sym("p", 2), cs.SX.sym("t")


def conditions_at(expr, p=(1.0, 2.0), t=0.5):
    """The guard's conditions of ``expr`` evaluated at (p, t), or None if it has none that vouch."""
    function = finite_conditions(cs.SX(expr), [V], P, T)
    return None if function is None else np.asarray(function(cs.DM(p), t)).ravel()


def test_a_division_by_parameters_is_vouched_for_by_its_reciprocal():
    np.testing.assert_array_equal(conditions_at((V[0] - V[1]) / P[0], p=(4.0, 1.0)), [0.25])
    assert np.isinf(conditions_at(V[0] / P[0], p=(0.0, 1.0))).all()       # R = 0
    # an expression of parameters and time alone (a ramp's) must itself be finite, whatever
    # it divides by inside: fmax(0, -inf) is 0
    ramp = cs.fmin(1, cs.fmax(0, (T - P[0]) / P[1]))
    assert conditions_at(V[0] * P[1] + ramp, p=(0.0, 2.0)).tolist() == [0.25]
    assert conditions_at(V[0] * P[1] + ramp, p=(1.0, 0.0)).tolist() == [0.0]
    # bounded functions of unknowns need no condition, parameters and time as they are given
    assert conditions_at(cs.sin(V[0]) * P[0] + cs.fabs(V[1]) - T).size == 0
    # an operation of parameters alone that may fail: its value must be finite
    assert np.isnan(conditions_at(V[0] * cs.sqrt(P[0]), p=(-1.0, 1.0))).all()


@pytest.mark.parametrize("expr", [cs.exp(V[0]), cs.log(V[0]), cs.sqrt(V[1]), P[0] / V[0],
                                  V[0] / (V[1] + P[0]), V[0] ** P[0], 1 / V[0], V[0] * np.inf])
def test_operations_that_may_fail_on_the_unknowns_are_left_to_the_full_check(expr):
    assert conditions_at(expr) is None


_VALUES = st.sampled_from([0.0, -0.0, 1e-6, -3.0, 0.5, 2.0, 1e3, -1e6])
_PARAMS = st.sampled_from([0.0, 0.0, -0.0, 1e-6, -2.0, 1.0])       # zero as often as not
_DIVIDE = lambda a, b: a / b      # noqa: E731 (the operation the guard's conditions are about)
_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: cs.fmin(a, b),
        lambda a, b: cs.if_else(a > b, a, b), lambda a, b: cs.atan2(a, b),
        lambda a, b: cs.sqrt(a) + b, lambda a, b: cs.exp(a) * b, lambda a, b: cs.log(a) - b,
        lambda a, b: cs.sin(a) / cs.cos(b), _DIVIDE, _DIVIDE, _DIVIDE]


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or (depth < 3 and draw(st.booleans())):
        return draw(st.sampled_from([V[0], V[1], P[0], P[1], P[0], P[1], T, cs.SX(2.5)]))
    op = draw(st.sampled_from(_OPS))
    return op(draw(expressions(depth=depth - 1)), draw(expressions(depth=depth - 1)))


@settings(max_examples=400, deadline=None)
@given(expressions(), st.tuples(_VALUES, _VALUES), st.tuples(_PARAMS, _PARAMS), _VALUES)
def test_where_the_conditions_hold_the_value_is_finite(expr, v, p, t):
    # Inputs up to 1e6 and expressions three operations deep cannot overflow: the property is
    # exact here (the guard's caveat is overflow beyond 1.8e308 alone).
    function = finite_conditions(cs.SX(expr), [V], P, T)
    if function is None:
        return
    if np.isfinite(np.asarray(function(cs.DM(p), t))).all():
        value = float(cs.Function("f", [V, P, T], [expr])(cs.DM(v), cs.DM(p), t))
        assert np.isfinite(value), (str(expr), v, p, t)


class _Counted:
    """start_values.FastFunction counting the functions of every position evaluated."""

    def __init__(self, real):
        self.real, self.calls = real, 0

    def __call__(self, function):
        self.calls += 1
        return self.real(function)


@pytest.fixture
def guarded(monkeypatch):
    """Every model checked as a large one: through its guard, the full check where that fails."""
    monkeypatch.setattr(start_values, "GUARDED_FROM", 0)
    monkeypatch.setattr(start_values, "LARGE", 0)
    counted = _Counted(start_values.FastFunction)
    monkeypatch.setattr(start_values, "FastFunction", counted)
    return counted


def test_a_large_ladders_start_builds_no_function_of_every_variable(guarded):
    sim = rc_ladder(30).compile()
    res = sim.simulate(0.5)
    assert guarded.calls == 0 and sim.system.output_function is None
    assert sim.operating_point()["C30.v"] == pytest.approx(1.0, rel=1e-9)
    assert guarded.calls == 0
    # R·C = 1 s per stage: the first capacitor after 0.5 s lies between the single stage's
    # 1 - exp(-0.5) and 0 (the ladder behind it draws current)
    assert 0.0 < res["C1.v"][-1] < 1.0 - np.exp(-0.5)
    # a run from an operating point (a deck's .tran) is not checked again there
    sim = rc_ladder(30).compile()
    guard, asked = sim.system.finite_guard, []
    holds = guard.holds
    guard.holds = lambda *point: asked.append(point) or holds(*point)
    op = sim.operating_point(params={"R1.R": 2e3})
    assert sim.simulate(0.1, x0=op, params={"R1.R": 2e3})["C30.v"][0] == pytest.approx(1.0, rel=1e-9)
    assert len(asked) == 1 and guarded.calls == 0


class Exponential(OnePort):
    """i = I0·exp(v/V0): explicit in i where v is given, and not finite for large v."""

    I0 = Parameter(1e-3, unit="A")
    V0 = Parameter(1.0, unit="V")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.I0 * sp.exp(self.v / self.V0))]


def exponential_across_a_source():
    m = Model("exponential")
    src, e, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Exponential("E1")), m.add(Ground("gnd"))
    m.connect(src.p, e.p)
    m.connect(src.n, e.n, gnd.p)
    return m.compile()


def test_an_exponential_of_an_unknown_is_left_to_the_full_check(guarded):
    sim = exponential_across_a_source()
    assert sim.simulate(1e-3)["E1.i"][-1] == pytest.approx(1e-3 * np.e, rel=1e-12)
    assert guarded.calls == 1
    with pytest.raises(InitializationError, match="not finite.*First failing: Exponential E1"):
        sim.simulate(1e-3, params={"src.V": 1e3})        # exp(1000) overflows


def test_a_singular_loop_is_reported_as_without_the_guard(monkeypatch, guarded):
    monkeypatch.setattr(start_values, "GUARDED_FROM", 10**12)
    with pytest.raises(InitializationError) as unguarded:
        loop_of_r_and_linear().simulate(1e-3, params={"N1.k": -1e3})
    monkeypatch.setattr(start_values, "GUARDED_FROM", 0)
    sim = loop_of_r_and_linear()
    assert sim.system.finite_guard is None          # a loop solved by elimination: its pivots
    calls = guarded.calls
    with pytest.raises(InitializationError) as err:
        sim.simulate(1e-3, params={"N1.k": -1e3})
    assert str(err.value) == str(unguarded.value) and guarded.calls == calls + 1


_CONDITION_OPS = [lambda a, b: a / b, lambda a, b: cs.sqrt(a) * b, lambda a, b: cs.log(a) + cs.exp(b),
                  lambda a, b: a ** b, lambda a, b: cs.fmin(cs.sqrt(a), b) - cs.fmax(cs.log(a), T),
                  lambda a, b: cs.atan2(a, b),
                  lambda a, b: cs.if_else(a < b, cs.tan(a), cs.asin(b)), lambda a, b: 1 / a + cs.sinh(b),
                  lambda a, b: cs.copysign(a, b) * cs.sign(b) + cs.floor(a) / cs.ceil(b),
                  lambda a, b: cs.logic_and(a > 0, b != 0) + cs.logic_or(a <= 0, cs.logic_not(b == 1)),
                  lambda a, b: cs.acos(a) * cs.cosh(b) * cs.tanh(a) / cs.fabs(b) + 2 * a * a]


@pytest.mark.parametrize("op", range(len(_CONDITION_OPS)))
def test_conditions_evaluated_on_numpy_rows_are_casadis_values(op):
    # The guard runs a condition's algorithm on NumPy rows of instances; CasADi's own map is
    # the reference, for values that make each operation fail or not (0, -0, ±1, 0.5, 2).
    from physlib.assembly.finiteness import _by_numpy
    expr = _CONDITION_OPS[op](P[0], P[1])
    function = cs.Function("c", [P, T], [cs.vertcat(expr, P[0] * 3.0, cs.SX(1.5))])
    grid = np.array([[a, b] for a in (0.0, -0.0, 1.0, -1.0, 0.5, 2.0) for b in (0.0, -1.0, 0.5, 2.0)]).T
    with np.errstate(all="ignore"):
        mine = _by_numpy(function, grid, 0.25)
    expected = np.asarray(function.map(grid.shape[1])(grid, 0.25))
    np.testing.assert_allclose(mine, expected, rtol=1e-15, atol=0, equal_nan=True)


def test_a_condition_with_an_operation_numpy_is_not_given_is_evaluated_by_casadi():
    from physlib.assembly.finiteness import _by_numpy, _finite_everywhere
    function = cs.Function("c", [P, T], [1 / cs.erf(P[0])])
    assert _by_numpy(function, np.ones((2, 3)), 0.0) is None
    assert _finite_everywhere(function, np.array([[1.0, 2.0], [0.0, 0.0]]), 0.0)
    assert not _finite_everywhere(function, np.array([[1.0, 0.0], [0.0, 0.0]]), 0.0)     # 1/erf(0)


def test_an_expression_too_deep_to_read_is_left_to_the_full_check():
    deep = V[0]
    for _ in range(5000):        # (Python's recursion limit is 1,000 frames)
        deep = deep * 1.0001 + P[0]
    assert finite_conditions(deep, [V], P, T) is None
