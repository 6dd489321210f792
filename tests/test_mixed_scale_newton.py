"""Newton solves of equations in very different units (junction charges of 1e-12 C beside
node voltages of volts): each residual is measured against its own equation's terms.

A charge equation q = C0·Vt·(exp(v/Vt) − 1) with C0 = 1e-13 F, beside an equation in volts,
u = 10 − v. Solved to the charge row's own rounding, v is exact to 1e-12 V; measured against
the volt row's terms (~10), a residual of 1e-13 C — v off by millivolts — passed as rounding."""
import numpy as np
import pytest

from physlib.analysis.common.initialization import at_rounding, _own_terms, damped_newton

C0, VT, Q = 1e-13, 0.025, 6e-12
V_EXACT = VT * np.log1p(Q / (C0 * VT))


def evaluate(w):
    v, u = w
    F = np.array([C0 * VT * np.expm1(v / VT) - Q, u - (10.0 - v)])
    J = np.array([[C0 * np.exp(v / VT), 0.0], [1.0, 1.0]])
    return F, J


def test_a_coulomb_residual_beside_a_volt_row_is_not_rounding():
    v_off = V_EXACT + 3e-4                   # 0.3 mV: 1.2 % of the charge
    F, J = evaluate(np.array([v_off, 10.0 - v_off]))
    assert 1e-14 < abs(F[0]) < 64 * np.finfo(float).eps * 10.0   # below 64 ulps of the volt row
    assert not at_rounding(F, _own_terms(np.array([v_off, 10.0 - v_off]), J))


def test_damped_newton_solves_the_coulomb_row_to_its_own_rounding():
    w = damped_newton(evaluate, np.linalg.solve, np.array([0.3, 0.0]), tol=1e-12, max_iter=60,
                      fail=lambda w, F, why: AssertionError(why))
    assert w[0] == pytest.approx(V_EXACT, abs=1e-12)
    assert w[1] == pytest.approx(10.0 - V_EXACT, abs=1e-12)


def test_a_residual_of_exactly_zero_is_rounding_whatever_the_size_of_its_terms():
    # Terms of size 0 (every unknown of the row at 0) or NaN (an infinite derivative, such as
    # sqrt's at 0, times an unknown at 0): a residual of exactly 0 is solved, a nonzero one
    # beside terms of size 0 is not, and a nonzero one beside NaN terms is not either.
    with np.errstate(invalid="ignore"):
        terms = _own_terms(np.array([0.0, 1.0]), np.array([[np.inf, 0.0], [0.0, 1.0]]))
    assert np.isnan(terms[0])
    assert at_rounding(np.array([0.0, 0.0]), terms)
    assert at_rounding(np.array([0.0, 1e-17]), np.array([0.0, 1.0]))
    assert not at_rounding(np.array([1e-300, 0.0]), np.array([0.0, 1.0]))
    assert not at_rounding(np.array([1e-300, 0.0]), terms)
