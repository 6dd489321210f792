"""physlib.analysis.common.sparse_lu: the Newton steps of large operating points and consistent
starts solved with SUNDIALS' SuperLU_MT or, banded, its band LU (no SciPy import), checked
against NumPy's dense LU,
against SciPy's SuperLU (the fallback where SUNDIALS' libraries cannot be loaded) and through a
large nonlinear operating point."""
import casadi as cs
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from physlib.analysis.common import sparse_lu
from physlib.analysis.common.sundials_library import SundialsUnavailable
from physlib.analysis.linear import direct_newton

from test_tearing_density import diode_ladder


def _random_sparse(seed: int, n: int, density: float) -> np.ndarray:
    """A random sparse n×n matrix made diagonally dominant (so well conditioned, nonsingular),
    its rows and columns permuted so that the pivots are not on the diagonal."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n)) * (rng.random((n, n)) < density)
    a += np.diag(np.abs(a).sum(axis=1) + 1.0)
    return a[rng.permutation(n)][:, rng.permutation(n)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 80), density=st.floats(0.0, 0.3))
def test_sparse_solves_match_numpys_dense_lu(seed, n, density):
    a = _random_sparse(seed, n, density)
    b = np.random.default_rng(seed + 1).normal(size=n)
    x = sparse_lu.sparse_solve(cs.DM(cs.sparsify(cs.DM(a))), b)
    # both are backward stable on a matrix of condition number ~10: 1e-12 of the solution
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=0, atol=1e-12 * np.max(np.abs(x)))
    w = np.random.default_rng(seed + 2).normal(size=n)
    J = cs.DM(cs.sparsify(cs.DM(a)))
    np.testing.assert_allclose(sparse_lu.csc_product(J, w), a @ w, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(sparse_lu.csc_product(J, w, absolute=True), np.abs(a) @ w,
                               rtol=1e-13, atol=1e-13)
    # the same matrix by its compressed columns (an affine model's Jacobian): the same answers
    pattern = J.sparsity()
    columns = sparse_lu.SparseColumns(np.array(pattern.colind()), np.array(pattern.row()),
                                      np.array(J.nonzeros()))
    assert np.array_equal(columns.dense(), np.array(J))
    assert np.array_equal(sparse_lu.sparse_solve(columns, b), x)
    assert np.array_equal(sparse_lu.solve_step(columns, b), sparse_lu.solve_step(J, b))
    assert np.array_equal(sparse_lu.csc_product(columns, w, absolute=True),
                          sparse_lu.csc_product(J, w, absolute=True))


def test_a_large_grid_matches_scipys_superlu(monkeypatch):
    # a 60×60 resistive grid's Laplacian plus a small leak (2D: COLAMD's ordering matters)
    m = 60
    n = m * m
    a = np.zeros((n, n))
    for i in range(m):
        for j in range(m):
            k = i * m + j
            a[k, k] = 4.001
            for ii, jj in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if 0 <= ii < m and 0 <= jj < m:
                    a[k, ii * m + jj] = -1.0
    J = cs.DM(cs.sparsify(cs.DM(a)))
    b = np.random.default_rng(3).normal(size=n)
    x = sparse_lu.sparse_solve(J, b)

    def unavailable():
        raise SundialsUnavailable("test: no SUNDIALS")
    monkeypatch.setattr(sparse_lu, "sparse_libraries", unavailable)
    reference = sparse_lu.sparse_solve(J, b)              # SciPy's SuperLU
    # the grid's condition number is ~4e3: both solutions agree to 1e-12 of their size
    np.testing.assert_allclose(x, reference, rtol=0, atol=1e-12 * np.max(np.abs(reference)))
    np.testing.assert_allclose(a @ x, b, rtol=0, atol=1e-12 * np.max(np.abs(b)))


def test_a_singular_matrix_gives_nan():
    a = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])     # rank 2
    x = sparse_lu.sparse_solve(cs.DM(cs.sparsify(cs.DM(a))), np.ones(3))
    assert np.all(np.isnan(x))
    empty_column = cs.DM(cs.Sparsity.diag(2), [1.0, 0.0])               # a structural zero pivot
    assert np.all(np.isnan(sparse_lu.sparse_solve(cs.sparsify(empty_column), np.ones(2))))


def test_a_large_nonlinear_operating_point_agrees_with_scipys_solves(monkeypatch):
    # 150 unknowns, over a compiled-Newton size lowered to 100: every step is a sparse solve
    monkeypatch.setattr(direct_newton, "COMPILED_NEWTON_SIZE", 100)
    sim = diode_ladder(150).compile()
    calls = []
    solve = sparse_lu.sparse_solve
    monkeypatch.setattr(sparse_lu, "sparse_solve", lambda J, rhs: calls.append(sparse_lu.as_columns(J).n) or solve(J, rhs))
    op = sim.operating_point()
    assert calls and min(calls) > direct_newton.COMPILED_NEWTON_SIZE
    v = np.array([op[f"D{k}.v"] for k in (1, 2, 50, 150)])

    def unavailable():
        raise SundialsUnavailable("test: no SUNDIALS")
    monkeypatch.setattr(sparse_lu, "sparse_libraries", unavailable)
    reference = sim.operating_point()
    # both Newton runs end at rounding (full steps to |step| <= 1e-8 of the values)
    np.testing.assert_allclose(v, [reference[f"D{k}.v"] for k in (1, 2, 50, 150)], rtol=0, atol=1e-9)
    # KCL at the first node, from the solution's own branch currents: R1 feeds D1 and R2
    assert op["R1.i"] == pytest.approx(op["D1.i"] + op["R2.i"], abs=1e-12)
    assert 0.5 < v[0] < 0.8 and v[3] < v[2] < v[1] < v[0]       # forward-biased, falling along


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 600), lower=st.integers(0, 4), upper=st.integers(0, 4))
def test_banded_systems_take_the_band_lu_and_match_numpys(seed, n, lower, upper):
    # A ladder's or a chain's Jacobian is banded in the order of its unknowns: SUNDIALS' band
    # LU (partial pivoting) solves it, as the stepped solvers do, to the same 1e-12.
    rng = np.random.default_rng(seed)
    a = sum(np.diag(rng.normal(size=n - abs(d)), d) for d in range(-lower, upper + 1) if abs(d) < n)
    a = a + np.diag(np.abs(a).sum(axis=1) + 1.0)
    b = rng.normal(size=n)
    banded = []
    with pytest.MonkeyPatch.context() as patch:
        band_lu = sparse_lu._band_lu
        patch.setattr(sparse_lu, "_band_lu", lambda *args: banded.append(1) or band_lu(*args))
        x = sparse_lu.sparse_solve(cs.DM(cs.sparsify(cs.DM(a))), b)
    assert banded
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=0, atol=1e-12 * np.max(np.abs(x)))


def test_a_singular_banded_system_gives_nan():
    a = np.eye(40)
    a[7, 7], a[7, 8] = 0.0, 1.0              # column 7 empty: singular, tridiagonal
    assert np.isnan(sparse_lu.sparse_solve(cs.DM(cs.sparsify(cs.DM(a))), np.ones(40))).all()
