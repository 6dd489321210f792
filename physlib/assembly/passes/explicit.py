"""Pass 9: explicit solutions. Each equation solved explicitly gets the value of its unknown
(one mapped call per class, equation and variable; connection sums as one sparse product),
small linear loops are solved symbolically, and all of them are put in evaluation order."""
from __future__ import annotations

import casadi as cs
import numpy as np
import scipy.sparse as sps

from ..ir import AliasMap, BlockOrder, Reduced, Solved, Symbolic, Torn
from .instantiate import columns, local_derivatives, mapped, residuals, signed, sparse_dm


def solve_linear_rows(rows: sps.csr_matrix, targets: np.ndarray, X: cs.SX) -> cs.SX:
    """Row i of ``rows`` says sum_r c_r·X_r = 0; its solution for X[targets[i]] is
    -sum_{r != targets[i]} (c_r / c_target)·X_r (connection sums and their derivatives)."""
    coo = rows.tocoo()
    other = coo.col != targets[coo.row]
    coeff = np.zeros(rows.shape[0])
    coeff[coo.row[~other]] = coo.data[~other]
    solve = sps.csr_matrix((-coo.data[other] / coeff[coo.row[other]], (coo.row[other], coo.col[other])),
                           shape=(rows.shape[0], X.numel()))
    return cs.mtimes(sparse_dm(solve), X)


def _template_solutions(flat, aliases, reduced, torn, symbolic, expl_eqs):
    """Explicit solutions of template equations: (equation ids, values) per (class, equation,
    variable)."""
    ids, parts = [], []
    for gi, j, base in reduced.equations.blocks:
        g = flat.groups[gi]
        k = len(g.paths)
        sel = expl_eqs[(expl_eqs >= base) & (expl_eqs < base + k)]
        if not len(sel):
            continue
        inst = sel - base
        target = torn.target_pos[sel]
        for l in sorted(g.template.explicit[j]):
            hit = aliases.col[g.var_ids[inst, l]] == target
            if not hit.any():
                continue
            ks = inst[hit]
            sol = mapped(g.template.solution_function(j, l), len(ks),
                         columns(symbolic.locals[gi], ks), columns(symbolic.params[gi], ks), symbolic.T)
            ids.append(sel[hit])
            parts.append(signed(sol.T, aliases.sign[g.var_ids[ks, l]]))
    return ids, parts


def _derivative_solutions(flat, aliases, reduced, torn, symbolic, derived):
    """Explicit solutions of equations that index reduction differentiated."""
    eqs, der, R = reduced.equations, reduced.var_derivative, symbolic.R
    R0 = cs.vertcat(R, 0)
    sums, groups = [], {}
    for d in derived.tolist():
        base, u = eqs.derivative_of[d - eqs.n_base], int(torn.target_pos[d])
        if base >= eqs.n_template:          # a connection sum: sum_r c_r der(x_r) = 0
            sums.append((d, base - eqs.n_template))
            continue
        block, k = eqs.block_of(base)
        g = flat.groups[block.group]
        l = next(l for l in g.template.explicit[block.residual]
                 if der.get(int(aliases.col[g.var_ids[k, l]])) == u)
        groups.setdefault((block.group, block.residual, l), []).append((d, k))
    ids, parts = [], []
    if sums:
        rows = eqs.through[[r for _, r in sums]].tocoo()
        has = np.isin(rows.col, list(der))
        dcols = np.array([der.get(int(c), 0) for c in rows.col], dtype=np.int64)
        on_ders = sps.csr_matrix((rows.data[has], (rows.row[has], dcols[has])), shape=(len(sums), R.numel()))
        ids.append(np.array([d for d, _ in sums], dtype=np.int64))
        parts.append(solve_linear_rows(on_ders, torn.target_pos[ids[-1]], R))
    for (gi, j, l), items in groups.items():
        g = flat.groups[gi]
        ks = [k for _, k in items]
        sol = mapped(g.template.derivative_solution_function(j, l), len(ks),
                     columns(symbolic.locals[gi], ks), local_derivatives(g, ks, aliases, der, R0),
                     columns(symbolic.params[gi], ks), symbolic.T)
        ids.append(np.array([d for d, _ in items], dtype=np.int64))
        parts.append(signed(sol.T, aliases.sign[g.var_ids[ks, l]]))
    return ids, parts


def _explicit_values(flat, aliases, reduced, torn, symbolic):
    """The value of the unknown each explicit equation is solved for: equation ids, values."""
    eqs = reduced.equations
    expl_eqs = np.flatnonzero(torn.target >= 0)
    ids, parts = _template_solutions(flat, aliases, reduced, torn, symbolic, expl_eqs)
    linear = expl_eqs[(expl_eqs >= eqs.n_template) & (expl_eqs < eqs.n_base)]
    if len(linear):
        ids.append(linear)
        parts.append(solve_linear_rows(eqs.through[linear - eqs.n_template], torn.target_pos[linear],
                                       symbolic.R))
    derived = expl_eqs[expl_eqs >= eqs.n_base]
    if len(derived):
        more_ids, more_parts = _derivative_solutions(flat, aliases, reduced, torn, symbolic, derived)
        ids += more_ids
        parts += more_parts
    if not ids:
        return np.zeros(0, np.int64), cs.SX(0, 1)
    return np.concatenate(ids), cs.vertcat(*parts)


def _linear_block_solutions(flat, aliases, reduced, torn, symbolic):
    """Small linear loops solved symbolically: (positions, definitions) per block."""
    if not torn.linear_blocks:
        return []
    R, unknown_pos = symbolic.R, reduced.unknown_pos
    rows = np.concatenate([np.asarray(b.members, dtype=np.int64) for b in torn.linear_blocks])
    block_res = cs.vertsplit(residuals(flat, aliases, reduced, symbolic, rows),
                             np.cumsum([0] + [len(b.members) for b in torn.linear_blocks]).tolist())
    solutions = []
    for block, res in zip(torn.linear_blocks, block_res):
        block_pos = unknown_pos[block.unknowns].tolist()
        A = cs.jacobian(res, R[block_pos])
        b = cs.substitute(res, R[block_pos], cs.DM.zeros(len(block_pos)))
        nominal = cs.Function("nominal", [R, symbolic.P, symbolic.T], [A])(0, flat.param_values, 0)
        solutions.append((np.array(block_pos, dtype=np.int64), pivoted_solve(A, -b, np.array(cs.DM(nominal)))))
    return solutions


def solve_explicit(flat, aliases: AliasMap, reduced: Reduced, order: BlockOrder, torn: Torn,
                   symbolic: Symbolic) -> Solved:
    """Definitions of solved positions in evaluation order: explicit equations, then small
    linear loops solved as a whole, interleaved by block."""
    value_ids, values = _explicit_values(flat, aliases, reduced, torn, symbolic)
    where = np.empty(reduced.equations.n_eq, dtype=np.int64)
    where[value_ids] = np.arange(len(value_ids))
    expl_eqs = np.flatnonzero(torn.target >= 0)
    labels, ranks = [order.block[expl_eqs]], [torn.rank[expl_eqs]]
    positions, defs, index = [torn.target_pos[expl_eqs]], [values], [where[expl_eqs]]
    offset = values.numel()
    for (label, _, _), (block_pos, solution) in zip(torn.linear_blocks, _linear_block_solutions(
            flat, aliases, reduced, torn, symbolic)):
        positions.append(block_pos)
        defs.append(solution)
        index.append(offset + np.arange(len(block_pos)))
        offset += len(block_pos)
        labels.append(np.full(len(block_pos), label))
        ranks.append(np.arange(len(block_pos)))
    eval_order = np.lexsort((np.concatenate(ranks), np.concatenate(labels)))
    if not len(eval_order):
        return Solved(np.zeros(0, np.int64), cs.SX(0, 1))
    # One selection from all definitions: each copy of an SX vector costs ~0.3 µs per entry.
    pick = np.concatenate(index)[eval_order]
    vdef = cs.vertcat(*defs) if len(defs) > 1 else values
    if not np.array_equal(pick, np.arange(vdef.numel())):
        vdef = vdef[pick.tolist()]
    return Solved(np.concatenate(positions)[eval_order].astype(np.int64),
                  vdef if vdef.is_dense() else cs.densify(vdef))


def pivoted_solve(A: cs.SX, b: cs.SX, A_nominal: np.ndarray) -> cs.SX:
    """Symbolic solution of A x = b by Gaussian elimination, with the rows pivoted as partial
    pivoting would pivot A at the compiled-in parameter values: the same operations as a
    numeric LU, so as accurate as one (a symbolic QR lost 1e-9 on a resistor network)."""
    n = A.size1()
    a = [[A[i, j] for j in range(n)] for i in range(n)]
    rhs = [b[i] for i in range(n)]
    m = A_nominal.astype(float).copy()
    for k in range(n):
        piv = k + int(np.argmax(np.abs(m[k:, k])))
        a[k], a[piv], rhs[k], rhs[piv] = a[piv], a[k], rhs[piv], rhs[k]
        m[[k, piv]] = m[[piv, k]]
        for i in range(k + 1, n):
            if a[i][k].is_zero():
                continue
            factor, m_factor = a[i][k] / a[k][k], m[i, k] / m[k, k]
            for j in range(k + 1, n):
                a[i][j] = a[i][j] - factor * a[k][j]
            m[i, k + 1:] -= m_factor * m[k, k + 1:]
            rhs[i] = rhs[i] - factor * rhs[k]
    x = [None] * n
    for i in reversed(range(n)):
        acc = rhs[i]
        for j in range(i + 1, n):
            if not a[i][j].is_zero():
                acc = acc - a[i][j] * x[j]
        x[i] = acc / a[i][i]
    return cs.vertcat(*x)
