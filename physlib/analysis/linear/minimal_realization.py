"""Minimal realization of x' = A x + B u, y = C x + D u by orthogonal staircase reductions.

The reachable subspace (span of B, AB, A²B, …) is built one Krylov block at a time, each
block orthonormalized against the ones before it with an SVD whose rank decision is ``tol``
relative to the size of the matrices; restricting the model to it removes the uncontrollable
part. The same reduction of the dual (Aᵀ, Cᵀ) then removes the unobservable part. Both bases
are orthonormal, so the reduced matrices Tᵀ A T, Tᵀ B, C T are formed without inverting
anything and the transfer function C (sI − A)⁻¹ B + D is kept to rounding.

Names: a coordinate x_i that lies in the kept subspace (its distance to it at most ``tol``) is
kept as a state of its own, under its name, so its value in the minimal model is x_i's (from a
zero initial state). The rest of the kept subspace gets an orthonormal basis orthogonal to
those coordinates; its states are named ``"minimal[0]"``, ``"minimal[1]"``, …
"""
from __future__ import annotations

import numpy as np


def minimal_basis(A, B, C, tol: float) -> np.ndarray:
    """An orthonormal basis T (n×r) of the controllable and observable part: the minimal model
    is (Tᵀ A T, Tᵀ B, C T)."""
    Tc = reachable_basis(A, B, tol)
    Ac, Cc = Tc.T @ A @ Tc, C @ Tc
    To = reachable_basis(Ac.T, Cc.T, tol)
    return Tc @ To


def reachable_basis(A, B, tol: float) -> np.ndarray:
    """Orthonormal basis of span{B, AB, A²B, …} (staircase of orthonormalized Krylov blocks)."""
    n = A.shape[0]
    scale = max(np.linalg.norm(A, 2) if A.size else 0.0, np.linalg.norm(B, 2) if B.size else 0.0)
    basis = np.zeros((n, 0))
    if n == 0 or scale == 0.0:
        return basis
    block = B
    while basis.shape[1] < n:
        for _ in range(2):       # Gram-Schmidt twice: orthogonal to rounding
            block = block - basis @ (basis.T @ block)
        new = _range(block, tol * scale)
        if not new.shape[1]:
            break
        basis = np.hstack([basis, new])
        block = A @ new
    return basis


def _range(M, threshold) -> np.ndarray:
    """Orthonormal basis of the directions of M with singular values above ``threshold``."""
    if not M.size:
        return np.zeros((M.shape[0], 0))
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    return U[:, s > threshold]


def named_basis(T, names, tol: float) -> tuple[np.ndarray, list[str]]:
    """Another orthonormal basis of T's range whose first columns are the coordinate vectors
    e_i lying in it (to ``tol``), in their original order, named ``names[i]``; the rest are
    orthogonal to those and named ``"minimal[k]"``."""
    n, r = T.shape
    distance = np.linalg.norm(np.eye(n) - T @ T.T, axis=0)    # of each e_i to the subspace
    kept = [i for i in range(n) if distance[i] <= tol][:r]
    E = np.eye(n)[:, kept]
    rest = T - E @ (E.T @ T)
    U, s, _ = np.linalg.svd(rest, full_matrices=False)
    others = U[:, :r - len(kept)]
    return np.hstack([E, others]), [names[i] for i in kept] + [f"minimal[{k}]" for k in range(r - len(kept))]
