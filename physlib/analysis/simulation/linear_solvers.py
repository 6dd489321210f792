"""The Jacobian matrix and linear solver of a stepped SUNDIALS solver
(:class:`~physlib.analysis.simulation.sundials.Stepper`), all shipped in scikit-sundae's wheels:

* dense LU for small models;
* for large ones whose Jacobian is banded in the order of their unknowns (a ladder, a chain of
  stages: n·l·(l + u) at most :data:`BAND_WORK` with l and u its lower and upper bandwidths),
  SUNDIALS' own band LU: a 5,000-state ladder's solve is a few microseconds where SuperLU_MT's
  triangular solves took 90 µs;
* otherwise SuperLU_MT on SUNDIALS' compressed-column sparse matrix, its columns in
  approximate minimum degree order (COLAMD, which keeps the fill of a network's Jacobian small).

The callbacks evaluate the Jacobian's nonzeros in CasADi's compressed-column order and put
them in the matrix (:class:`JacobianMatrix` says where)."""
from __future__ import annotations


import numpy as np

from ...core.errors import SimulationError
from ...core.records import record
from ..common.sundials_library import BAND_WORK, COLAMD_ORDERING, CSC_MAT, sparse_libraries


@record
class JacobianMatrix:
    """A solver's Jacobian matrix and linear solver (SUNDIALS pointers), ``kind`` "dense",
    "band" or "sparse". ``entries``: the matrix's stored numbers (dense: n·n column-major; band:
    SUNDIALS' band storage; sparse: the nonzeros). For the large kinds, ``colind``/``row``: the
    CasADi Jacobian's compressed-column pattern, whose nonzeros the callbacks evaluate;
    ``place``: where each of them goes in ``entries`` (band); ``matrix_colind``/``matrix_row``:
    the sparse matrix's own index arrays, which the solvers zero with the values before each
    Jacobian evaluation, so the callbacks write the pattern again (sparse)."""

    A: object
    entries: np.ndarray
    solver: object
    kind: str
    colind: np.ndarray | None = None
    row: np.ndarray | None = None
    place: np.ndarray | None = None
    matrix_colind: np.ndarray | None = None
    matrix_row: np.ndarray | None = None


def linear_solver(dense_libraries, y, n: int, pattern, ctx) -> JacobianMatrix:
    """The matrix and linear solver for a solver of n variables whose vector is ``y``.
    ``pattern``: None for a dense n×n matrix, else the Jacobian's compressed-column pattern
    (colind, row), which holds the whole diagonal."""
    if pattern is None:
        dmat, dls = dense_libraries
        A = dmat.SUNDenseMatrix(n, n, ctx)
        return JacobianMatrix(A, np.ctypeslib.as_array(dmat.SUNDenseMatrix_Data(A), shape=(n * n,)),
                              dls.SUNLinSol_Dense(y, A, ctx), "dense")
    smat, sls, bmat, bls = sparse_libraries()
    colind, row = (np.asarray(a, dtype=np.intc) for a in pattern)
    nnz = row.size
    column = np.repeat(np.arange(n), np.diff(colind))
    lower = int(np.max(row - column, initial=0))
    upper = int(np.max(column - row, initial=0))
    if lower * (lower + upper) <= BAND_WORK:
        A = bmat.SUNBandMatrix(n, upper, lower, ctx)
        LS = bls.SUNLinSol_Band(y, A, ctx) if A else None
        if not LS:
            raise SimulationError(f"SUNDIALS could not allocate a {n}×{n} band Jacobian "
                                  f"(bandwidths {lower}, {upper})")
        ldim, stored_upper = bmat.SUNBandMatrix_LDim(A), bmat.SUNBandMatrix_StoredUpperBandwidth(A)
        # column j is stored from j·ldim; entry (i, j) at its row i − j + stored_upper
        place = column.astype(np.int64) * ldim + (row - column + stored_upper)
        return JacobianMatrix(A, np.ctypeslib.as_array(bmat.SUNBandMatrix_Data(A), shape=(ldim * n,)),
                              LS, "band", colind, row, place=place)
    A = smat.SUNSparseMatrix(n, n, nnz, CSC_MAT, ctx)
    if not A:
        raise SimulationError(f"SUNDIALS could not allocate a sparse {n}×{n} Jacobian ({nnz} entries)")
    indexptrs = np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexPointers(A), shape=(n + 1,))
    indexvals = np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexValues(A), shape=(nnz,))
    indexptrs[:], indexvals[:] = colind, row
    LS = sls.SUNLinSol_SuperLUMT(y, A, 1, ctx)
    if not LS or sls.SUNLinSol_SuperLUMTSetOrdering(LS, COLAMD_ORDERING) != 0:
        raise SimulationError("SUNDIALS could not create its SuperLU_MT linear solver")
    return JacobianMatrix(A, np.ctypeslib.as_array(smat.SUNSparseMatrix_Data(A), shape=(nnz,)), LS,
                          "sparse", colind, row, matrix_colind=indexptrs, matrix_row=indexvals)
