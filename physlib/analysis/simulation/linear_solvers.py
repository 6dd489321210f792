"""The Jacobian matrix and linear solver of a stepped SUNDIALS solver
(:class:`~physlib.analysis.simulation.sundials.Stepper`): dense LU for small models, SuperLU_MT
on SUNDIALS' compressed-column sparse matrix for large ones, both shipped in scikit-sundae's
wheels."""
from __future__ import annotations

import numpy as np

from ...core.errors import SimulationError
from .sundials_library import COLAMD_ORDERING, CSC_MAT, sparse_libraries


def linear_solver(dense_libraries, y, n: int, pattern, ctx):
    """(matrix, its stored entries as an array, linear solver, sparse pattern or None) for a
    solver of n variables whose vector is ``y``. ``pattern``: None for a dense n×n matrix, else
    CasADi's sparsity of the Jacobian: SUNDIALS' compressed-column matrix on it, factored by
    SuperLU_MT (one thread) with its columns in approximate minimum degree order (COLAMD,
    which keeps the fill of a network's Jacobian small). The sparse pattern is returned as
    (column starts, row indices, the matrix's own two index arrays): the solvers zero the
    whole matrix, pattern included, before each Jacobian evaluation, so the callbacks write
    it again."""
    if pattern is None:
        dmat, dls = dense_libraries
        A = dmat.SUNDenseMatrix(n, n, ctx)
        return A, np.ctypeslib.as_array(dmat.SUNDenseMatrix_Data(A), shape=(n * n,)), \
            dls.SUNLinSol_Dense(y, A, ctx), None
    smat, sls = sparse_libraries()
    nnz = pattern.nnz()
    A = smat.SUNSparseMatrix(n, n, nnz, CSC_MAT, ctx)
    if not A:
        raise SimulationError(f"SUNDIALS could not allocate a sparse {n}×{n} Jacobian ({nnz} entries)")
    indexptrs = np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexPointers(A), shape=(n + 1,))
    indexvals = np.ctypeslib.as_array(smat.SUNSparseMatrix_IndexValues(A), shape=(nnz,))
    colind = np.array(pattern.colind(), dtype=indexptrs.dtype)
    row = np.array(pattern.row(), dtype=indexvals.dtype)
    indexptrs[:], indexvals[:] = colind, row
    LS = sls.SUNLinSol_SuperLUMT(y, A, 1, ctx)
    if not LS or sls.SUNLinSol_SuperLUMTSetOrdering(LS, COLAMD_ORDERING) != 0:
        raise SimulationError("SUNDIALS could not create its SuperLU_MT linear solver")
    return A, np.ctypeslib.as_array(smat.SUNSparseMatrix_Data(A), shape=(nnz,)), LS, (colind, row, indexptrs, indexvals)
