"""Pass 8: which unknown each equation is solved for explicitly, in which order, and what is
left to the DAE solver (see :mod:`physlib.assembly.loop_tearing` for tearing nonlinear loops)."""
from __future__ import annotations

import numpy as np

from ...core.arrays import index_dtype
from ..ir import BlockOrder, LinearBlock, Reduced, Torn
from ..loop_tearing import tear_block

SYMBOLIC_SOLVE_LIMIT = 12   # largest linear loop solved symbolically (elimination grows as n³)


def _blocks(order: BlockOrder, single: np.ndarray, rank: np.ndarray):
    """(block number, equations, is a loop) per block still to be decided, in evaluation order:
    scalar blocks not solved explicitly, then every loop."""
    lone = np.flatnonzero(single & (rank < 0))
    pending = [(int(order.block[e]), [int(e)], False) for e in lone]
    multi = np.flatnonzero(~single)
    if len(multi):
        by_block = multi[np.argsort(order.block[multi], kind="stable")]
        splits = np.flatnonzero(np.diff(order.block[by_block])) + 1
        pending += [(int(order.block[m[0]]), m.tolist(), True) for m in np.split(by_block, splits)]
    return sorted(pending, key=lambda item: item[0])


def _explicit_in_match(reduced: Reduced, match: np.ndarray) -> np.ndarray:
    """Per equation, whether it can be solved explicitly for the unknown matched to it: one
    pass over its incidences (no pattern matrices, whose sorting cost 0.6 s and a quarter of a
    gigabyte at a million elements)."""
    eqs = reduced.equations
    entries = np.flatnonzero(eqs.explicit)
    rows = eqs.rows[entries]
    unknown = reduced.unknown[eqs.cols[entries]]          # -1: a state
    hit = (unknown >= 0) & (unknown == match[rows])
    ok = np.zeros(eqs.n_eq, dtype=bool)
    ok[rows[hit]] = True
    return ok


def tear(reduced: Reduced, order: BlockOrder) -> Torn:
    """Scalar blocks explicit in their unknown are solved explicitly; small linear loops
    symbolically; larger linear loops stay whole for the solver's sparse LU; nonlinear loops
    are torn."""
    eqs, match = reduced.equations, order.match
    single = (np.bincount(order.block, minlength=order.n_blocks) == 1)[order.block]
    # int32 where they fit: a million-element model's 2.5 million equations, kept through the
    # explicit solutions and the emission
    index = index_dtype(max(eqs.n_eq, reduced.n_pos))
    target = np.full(eqs.n_eq, -1, dtype=index)
    rank = np.full(eqs.n_eq, -1, dtype=index)
    ok = single & _explicit_in_match(reduced, match)
    target[ok] = match[ok]
    rank[ok] = 0
    patterns = None       # (incidence, explicit) over the unknowns: only tearing reads them
    z_unknowns, g_eqs, linear_blocks = [], [], []
    pending = _blocks(order, single, rank)
    for label, members, is_loop in pending:
        if is_loop and np.all(eqs.linear[members]) and len(members) <= SYMBOLIC_SOLVE_LIMIT:
            # A small linear loop (inertias coupled by a gear, a few resistors) is solved
            # symbolically, once: the model stays an ODE.
            linear_blocks.append(LinearBlock(label, members, match[members]))
        elif not is_loop or np.all(eqs.linear[members]):
            # Larger linear loops are solved whole (sparse LU with pivoting): tearing them would
            # trade a well-conditioned system for long explicit chains that can cancel badly.
            z_unknowns.extend(int(match[e]) for e in members)
            g_eqs.extend(members)
        else:
            if patterns is None:
                n_unknown = len(reduced.unknown_pos)
                patterns = (eqs.incidence(None, n_unknown, reduced.unknown),
                            eqs.incidence(eqs.explicit, n_unknown, reduced.unknown))
            solved, tears, residuals = tear_block(members, match[members].tolist(), *patterns)
            for r, (e, u) in enumerate(solved):
                target[e], rank[e] = u, r
            z_unknowns.extend(tears)
            g_eqs.extend(residuals)
    target_pos = np.where(target >= 0, reduced.unknown_pos[np.maximum(target, 0)], -1).astype(index)
    return Torn(target, target_pos, rank, np.array(z_unknowns, dtype=np.int64),
                np.array(g_eqs, dtype=np.int64), len(pending) - len(linear_blocks), tuple(linear_blocks))
