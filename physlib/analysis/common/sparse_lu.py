"""Solves of large square sparse systems — the Newton steps of an operating point and of the
consistent start of a large model — with SuperLU_MT, the sparse direct solver that
scikit-sundae's wheels ship for SUNDIALS (LU with partial pivoting, its columns in approximate
minimum degree order, COLAMD; the stepped solvers factor their Jacobians with it too), or,
for a matrix banded in the order of its unknowns (a ladder's, a chain's), with SUNDIALS' own
band LU, as the stepped solvers do too.

SciPy's SuperLU did this before; importing ``scipy.sparse`` and ``scipy.sparse.linalg`` took
0.26 s of the 0.41 s a 10,000-element circuit's first operating point and transient cost in a
fresh process. Where SUNDIALS' libraries cannot be loaded, SciPy solves.
"""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import casadi as cs
import numpy as np

from .sundials_library import (BAND_WORK, COLAMD_ORDERING, CSC_MAT, POINTER, REAL_P, SundialsUnavailable,
                               check_flag, libraries, sparse_libraries)

__all__ = ["SparseColumns", "as_columns", "solve_step", "sparse_solve", "csc_product"]

DENSE_SOLVE_LIMIT = 100     # unknowns up to which :func:`solve_step` factors densely (NumPy's LU)


class SparseColumns(NamedTuple):
    """A square sparse matrix by its compressed columns, NumPy arrays: ``colind`` (where each
    column's entries start, n + 1), ``row`` and ``values`` (one per stored entry). A large
    affine model's Jacobian comes so from its colored evaluation
    (:class:`~physlib.analysis.common.affine_jacobian.AffineJacobian`): made a CasADi DM and
    read back for the solve, a million-element ladder's 1.5 million entries took 0.25 s."""

    colind: np.ndarray
    row: np.ndarray
    values: np.ndarray

    @property
    def n(self) -> int:
        return len(self.colind) - 1

    def dense(self) -> np.ndarray:
        """The matrix as a dense array."""
        dense = np.zeros((self.n, self.n))
        dense[self.row, np.repeat(np.arange(self.n), np.diff(self.colind))] = self.values
        return dense


def as_columns(jacobian) -> SparseColumns:
    """A square matrix (a :class:`SparseColumns`, or what ``casadi.DM`` takes) by its
    compressed columns."""
    if isinstance(jacobian, SparseColumns):
        return jacobian
    jacobian = cs.DM(jacobian)
    pattern = jacobian.sparsity()
    return SparseColumns(np.array(pattern.colind(), dtype=np.int64), np.array(pattern.row(), dtype=np.int64),
                         np.array(jacobian.nonzeros(), dtype=float))


def solve_step(jacobian, rhs) -> np.ndarray | None:
    """A Newton step, x with J·x = ``rhs``: NumPy's dense LU up to :data:`DENSE_SOLVE_LIMIT`
    unknowns, :func:`sparse_solve` above (made dense, a 1,800-unknown Jacobian cost 0.35 s to
    convert and 0.13 s to factor at every step); None when J is singular or the step is not
    finite. The damped Newton methods of the operating point and of a consistent start take
    their steps here."""
    J = as_columns(jacobian)
    if J.n > DENSE_SOLVE_LIMIT:
        step = sparse_solve(J, rhs)
    else:
        try:
            step = np.linalg.solve(J.dense(), rhs)
        except np.linalg.LinAlgError:
            return None
    return step if np.all(np.isfinite(step)) else None


def sparse_solve(jacobian, rhs: np.ndarray) -> np.ndarray:
    """x with J·x = ``rhs`` for a square sparse J (a CasADi DM or :class:`SparseColumns`); NaN everywhere when J is
    singular (as SciPy's ``spsolve`` answers), infinite or NaN entries where it is nearly so:
    the callers test the step for finiteness. A J banded in the order of its unknowns (a
    ladder's, a chain's: n·l·(l + u) at most BAND_WORK·n for bandwidths l, u) takes SUNDIALS'
    band LU, as the stepped solvers do (a million-element ladder's operating point: 0.5 s with
    SuperLU_MT)."""
    colind, row, values = _with_diagonal(as_columns(jacobian))
    n = len(colind) - 1
    rhs = np.array(rhs, dtype=float).ravel()
    try:
        core, nvec = libraries()[:2]
        smat, sls, bmat, bls = sparse_libraries()
    except SundialsUnavailable:
        return _scipy_solve(n, colind, row, values, rhs)
    column = np.repeat(np.arange(n, dtype=np.int64), np.diff(colind))
    lower, upper = int(np.max(row - column, initial=0)), int(np.max(column - row, initial=0))
    if lower * (lower + upper) <= BAND_WORK:
        return _band_lu(core, nvec, bmat, bls, (lower, upper), column, row, values, rhs)
    return _superlu_mt(core, nvec, smat, sls, n, colind, row, values, rhs)


def _band_lu(core, nvec, bmat, bls, bandwidths, column, row, values, rhs) -> np.ndarray:
    """J·x = rhs by SUNDIALS' band LU (J's entries at ``row``, ``column``)."""
    n, (lower, upper) = len(rhs), bandwidths

    def matrix(ctx):
        A = bmat.SUNBandMatrix(n, upper, lower, ctx)
        if not A:
            raise MemoryError(f"SUNDIALS could not allocate a {n}×{n} band matrix (bandwidths {lower}, {upper})")
        ldim, stored_upper = bmat.SUNBandMatrix_LDim(A), bmat.SUNBandMatrix_StoredUpperBandwidth(A)
        data = np.ctypeslib.as_array(bmat.SUNBandMatrix_Data(A), shape=(ldim * n,))
        data[:] = 0.0
        data[column * ldim + (row - column + stored_upper)] = values    # column j from j·ldim
        return A
    return _sundials_solve(core, nvec, rhs, matrix, bls.SUNLinSol_Band,
                           (bls.SUNLinSolInitialize_Band, bls.SUNLinSolSetup_Band, bls.SUNLinSolSolve_Band))


def _with_diagonal(columns: SparseColumns):
    """J's compressed columns (colind, row, values) with every diagonal entry stored (0 where J
    has none), as the stepped solvers store theirs: SuperLU_MT crashed on an empty column."""
    n, row, values = columns.n, columns.row, columns.values
    column = np.repeat(np.arange(n, dtype=np.int64), np.diff(columns.colind))
    missing = np.setdiff1d(np.arange(n, dtype=np.int64), column[row == column], assume_unique=True)
    if len(missing):
        row, column = np.concatenate([row, missing]), np.concatenate([column, missing])
        values = np.concatenate([values, np.zeros(len(missing))])
        order = np.lexsort((row, column))
        row, column, values = row[order], column[order], values[order]
    colind = np.concatenate([[0], np.cumsum(np.bincount(column, minlength=n))])
    return colind.astype(np.intc), row.astype(np.intc), values


def _superlu_mt(core, nvec, smat, sls, n, colind, row, values, rhs) -> np.ndarray:
    """J·x = rhs by SuperLU_MT, J's compressed columns given (``colind``, ``row``, ``values``)."""
    nnz = int(colind[-1])

    def matrix(ctx):
        A = smat.SUNSparseMatrix(n, n, nnz, CSC_MAT, ctx)
        if not A:
            raise MemoryError(f"SUNDIALS could not allocate a sparse {n}×{n} matrix ({nnz} entries)")
        np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexPointers(A), shape=(n + 1,))[:] = colind
        np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexValues(A), shape=(nnz,))[:] = row
        np.ctypeslib.as_array(smat.SUNSparseMatrix_Data(A), shape=(nnz,))[:] = values
        return A

    def solver(x, A, ctx):
        made = sls.SUNLinSol_SuperLUMT(x, A, 1, ctx)
        if made:
            check_flag(sls.SUNLinSol_SuperLUMTSetOrdering(made, COLAMD_ORDERING), "SUNLinSol_SuperLUMTSetOrdering")
        return made
    return _sundials_solve(core, nvec, rhs, matrix, solver, (sls.SUNLinSolInitialize_SuperLUMT,
                                                             sls.SUNLinSolSetup_SuperLUMT, sls.SUNLinSolSolve_SuperLUMT))


def _sundials_solve(core, nvec, rhs, matrix, solver, steps) -> np.ndarray:
    """x with A·x = ``rhs`` by a SUNDIALS direct solver: ``matrix(ctx)`` makes and fills A,
    ``solver(x, A, ctx)`` makes the solver, ``steps`` are its initialize, setup (the
    factorization) and solve functions. NaN everywhere where the setup finds a zero pivot:
    a singular matrix is an answer here, not an error message on stderr."""
    n = len(rhs)
    solution = np.zeros(n)
    ctx = POINTER()
    check_flag(core.SUNContext_Create(0, ctypes.byref(ctx)), "SUNContext_Create")
    A = b = x = made = None
    initialize, setup, solve = steps
    try:
        core.SUNContext_ClearErrHandlers(ctx)
        A = matrix(ctx)
        b = nvec.N_VMake_Serial(n, rhs.ctypes.data_as(REAL_P), ctx)
        x = nvec.N_VMake_Serial(n, solution.ctypes.data_as(REAL_P), ctx)
        made = solver(x, A, ctx)
        if not made:
            raise MemoryError(f"SUNDIALS could not make a linear solver of a {n}×{n} matrix")
        check_flag(initialize(made), initialize.__name__)
        if setup(made, A) != 0:
            return np.full(n, np.nan)
        check_flag(solve(made, A, x, b, 0.0), solve.__name__)
        return solution
    finally:
        if made:
            core.SUNLinSolFree(made)
        for vector in (x, b):
            if vector:
                core.N_VDestroy(vector)
        if A:
            core.SUNMatDestroy(A)
        core.SUNContext_Free(ctypes.byref(ctx))


def _scipy_solve(n, colind, row, values, rhs) -> np.ndarray:
    import warnings

    import scipy.sparse as sps
    import scipy.sparse.linalg as spla
    with warnings.catch_warnings():     # a singular matrix gives NaN, as documented above
        warnings.simplefilter("ignore", spla.MatrixRankWarning)
        return np.atleast_1d(spla.spsolve(sps.csc_matrix((values, row, colind), shape=(n, n)), rhs))


def csc_product(jacobian, w: np.ndarray, absolute: bool = False) -> np.ndarray:
    """J·w for a square sparse J, a CasADi DM or :class:`SparseColumns` (|J|·w with
    ``absolute``), with NumPy alone."""
    J = as_columns(jacobian)
    values = np.abs(J.values) if absolute else J.values
    columns = np.repeat(np.arange(J.n), np.diff(J.colind))
    return np.bincount(J.row, weights=values * w[columns], minlength=J.n)
