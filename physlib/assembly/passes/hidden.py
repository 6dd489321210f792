"""Pass 7: hidden dependencies, linear loops whose equations are numerically dependent.

Structure alone cannot see that two capacitors in parallel between free nodes tie their
voltages: the loop's equations match, yet its Jacobian is singular. Each such loop gets one
equation replaced by the combination in which the unknowns cancel (a left null vector of the
loop's Jacobian): a constraint between states, which the next round of index reduction then
differentiates.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..ir import AliasMap, BlockOrder, Combination, Reduced
from .instantiate import instantiate, position_starts, residuals

DEPENDENCY_CHECK_LIMIT = 200  # largest linear loop checked numerically for dependent equations


def linear_loops(reduced: Reduced, order: BlockOrder, limit: int) -> list[list[int]]:
    """Equations of each block of two to ``limit`` equations that are all affine."""
    block = order.block
    sizes = np.bincount(block, minlength=order.n_blocks)
    nonlinear = np.bincount(block, weights=~reduced.equations.linear, minlength=order.n_blocks)
    chosen = (sizes > 1) & (sizes <= limit) & (nonlinear == 0)
    members = np.flatnonzero(chosen[block])
    if not len(members):
        return []
    # Blocks in the order of their first equation, each block's equations in increasing order.
    first = np.full(order.n_blocks, len(block))
    np.minimum.at(first, block[members], members)
    ranked = members[np.lexsort((members, first[block[members]]))]
    splits = np.flatnonzero(np.diff(block[ranked])) + 1
    return [m.tolist() for m in np.split(ranked, splits)]


def hidden_dependencies(flat, aliases: AliasMap, reduced: Reduced, order: BlockOrder,
                        combos) -> dict[int, Combination]:
    """New combinations (equation -> Combination) for loops with a dependency that holds for
    other parameter values too; none when every linear loop is numerically regular."""
    loops = linear_loops(reduced, order, DEPENDENCY_CHECK_LIMIT)
    if not loops:
        return {}
    symbolic = instantiate(flat, aliases, reduced)
    R, P, T = symbolic.R, symbolic.P, symbolic.T
    rows = [e for m in loops for e in m]
    block_vars = reduced.unknown_pos[order.match[rows]].tolist()
    loop_residuals = residuals(flat, aliases, reduced, symbolic, rows)
    jac = cs.Function("loop_jacobian", [R, P, T], [cs.jacobian(loop_residuals, R[block_vars])])
    start = cs.Function("start_values", [P, T],
                        [position_starts(flat, aliases, reduced, symbolic, np.arange(reduced.n_pos))])
    params = flat.param_values
    perturbed = params * (1.0 + 0.37 * np.sin(np.arange(len(params)) + 1.0))
    values = [np.array(cs.DM(jac(start(pp, 0.0), pp, 0.0))) for pp in (params, perturbed)]
    found = {}
    offset = 0
    for m in loops:
        idx = slice(offset, offset + len(m))
        offset += len(m)
        y = _null_vector(values[0][idx, idx], values[1][idx, idx])
        if y is None:
            continue
        k = int(m[int(np.argmax(np.abs(y)))])
        if k in combos:
            continue
        used = np.flatnonzero(y)
        found[k] = Combination(np.array(m)[used], y[used], reduced.unknown_pos[order.match[m]])
    return found


def _null_vector(nominal: np.ndarray, perturbed: np.ndarray):
    """A left null vector of ``nominal`` (largest entry 1, tiny entries zero) that is one of
    ``perturbed`` too, or None.

    The combination must cancel every unknown to rounding of its own terms, at both parameter
    sets: a loop of node equations in amperes whose unknowns enter through femtofarads (a
    MOSFET's overlap capacitances beside 1 A/A current balances) has singular values 1e-15
    of its largest, below any threshold relative to it, and is regular all the same."""
    _, sing, vt = np.linalg.svd(nominal.T)
    if sing[-1] > 1e-10 * max(sing[0], 1e-300):
        return None
    y = vt[-1]
    if not (_cancels(nominal, y) and _cancels(perturbed, y)):
        return None                    # not a dependency, or one that moves with the parameters
    y = y / y[np.argmax(np.abs(y))]
    y[np.abs(y) < 1e-12] = 0.0
    return y


def _cancels(jacobian: np.ndarray, y: np.ndarray) -> bool:
    """Whether the rows of ``jacobian`` combined by ``y`` cancel in every column to 1e-9 of
    the column's terms |J_ij·y_i|."""
    terms = np.abs(jacobian).T @ np.abs(y)
    return bool(np.all(np.abs(jacobian.T @ y) <= 1e-9 * terms))
