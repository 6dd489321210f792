"""Pass 9: explicit solutions. Each equation solved explicitly gets the value of its unknown
(one mapped call per class, equation and variable, on the few locals that solution reads,
gathered from the positions' values; connection sums as one sparse product),
small linear loops are solved symbolically, and every solved position gets its value in terms
of the states, the algebraic variables, the parameters and time.

The values are built level by level: an equation's level is one more than the highest level
of the solved positions it reads (zero if it reads none), so the equations of one level are
instantiated together on the values found so far, and no symbolic substitution is needed.
Substituting afterwards walks and rebuilds the whole expression graph again (0.7 s of the 6 s
it took to compile a 100,000-stage RC ladder, whose equations are six levels deep). A model
with a dependency chain deeper than :data:`MAX_LEVELS` (a long train of ideal gears, say) is
solved that way instead: every definition in terms of the positions, then all of them
substituted in evaluation order.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.arrays import index_dtype, sorted_unique
from ..finiteness import FiniteGuard
from ..ir import AliasMap, BlockOrder, Reduced, Solved, Symbolic, Torn
from ..sparse import CSR
from .instantiate import LocalRows, columns, local_derivatives, residuals, signed
from .mapped_calls import mapped

MAX_LEVELS = 24      # deeper dependency chains are substituted (each level costs a few calls)
SHORT_ROWS = 8       # terms up to which a row's solution is summed on whole vectors


def solve_linear_rows(rows: CSR, targets: np.ndarray, X: cs.SX) -> tuple[np.ndarray, cs.SX]:
    """Row i of ``rows`` says sum_r c_r·X_r = 0; its solution for X[targets[i]] is
    -sum_{r != targets[i]} (c_r / c_target)·X_r (connection sums and their derivatives).
    Reads only the entries of X that the rows use. Returns (the rows in the order solved,
    their solutions in that order): putting them in the rows' order would copy them again.

    Each row is its terms summed in the order of their columns, as a sparse matrix-vector
    product sums them, without building the product's matrix: the rows of m ≤ SHORT_ROWS
    terms (a circuit's nodes join a few pins) term by term on vectors of all such rows (a
    million-element ladder's 500,000 node currents 0.70 -> 0.47 s), a longer row (a ground
    node's) on its own."""
    n = rows.shape[0]
    row, col, data = rows.row_of_entries(), rows.indices, rows.data
    other = col != targets[row]
    coeff = np.zeros(n)
    coeff[row[~other]] = data[~other]
    # in (row, column) order already: a CSR row's columns ascend
    row, col, weight = row[other], col[other], -data[other] / coeff[row[other]]
    counts = np.bincount(row, minlength=n)
    first = np.cumsum(counts) - counts
    parts, have = [], []
    for m in sorted_unique(counts[counts <= SHORT_ROWS]).tolist():
        of_m = np.flatnonzero(counts == m)
        total = cs.SX.zeros(len(of_m))
        for j in range(m):
            at = first[of_m] + j
            term = _weighted(weight[at], X[col[at].tolist()])
            total = term if j == 0 else total + term
        parts.append(total)
        have.append(of_m)
    for r in np.flatnonzero(counts > SHORT_ROWS).tolist():      # a ground node's many pins
        at = slice(first[r], first[r] + counts[r])
        parts.append(cs.sum1(_weighted(weight[at], X[col[at].tolist()])))
        have.append([r])
    order = np.concatenate(have) if parts else np.zeros(0, dtype=np.int64)
    return order, parts[0] if len(parts) == 1 else cs.vertcat(*parts) if parts else cs.SX(0, 1)


def _weighted(weights: np.ndarray, terms: cs.SX) -> cs.SX:
    """``weights·terms`` entry by entry. Where every weight is 1 or every one is −1 (a
    connection sum's terms mostly), the terms or their negations: the nodes CasADi's product
    would simplify to, without making the product (a million-element ladder's 0.26 s)."""
    if np.all(weights == 1.0):
        return terms
    if np.all(weights == -1.0):
        return -terms
    return cs.SX.binary(cs.OP_MUL, cs.SX(cs.DM(weights)), terms)


class _Known:
    """Position values: the symbols, or, level by level, the values found so far (an
    equation's solution reads only positions solved at lower levels)."""

    def __init__(self, values: cs.SX):
        self.values = values

    def add(self, found: list):
        """The (positions, values) pairs ``found`` into the values. Each pair goes in on its
        own: joining them first would copy every value again."""
        for positions, part in found:
            self.values[positions.tolist()] = part if part.is_dense() else cs.densify(part)

    def locals(self, g, aliases: AliasMap, ks, used=None) -> cs.SX:
        """The locals ``used`` (all by default) of the instances ``ks`` of group ``g``, read
        from the values."""
        return LocalRows(g, aliases.col, aliases.sign, self.values, ks, used)


class _Definitions:
    """The values of solved positions computed from known position values (:class:`_Known`):
    the symbols (definitions that read other solved positions) or the values found so far."""

    def __init__(self, flat, aliases: AliasMap, reduced: Reduced, torn: Torn, symbolic: Symbolic):
        self.flat, self.aliases, self.reduced, self.torn, self.symbolic = flat, aliases, reduced, torn, symbolic
        self.guard = FiniteGuard()      # the solutions used, for the start's finiteness check

    def of(self, known: _Known, expl_eqs: np.ndarray) -> list[tuple[np.ndarray, cs.SX]]:
        """The unknowns the explicit equations ``expl_eqs`` solve for, as (positions, values)
        pairs, one per kind of solution (values a row or a column)."""
        eqs, target_pos = self.reduced.equations, self.torn.target_pos
        found = self._template(known, expl_eqs[expl_eqs < eqs.n_template])
        linear = expl_eqs[(expl_eqs >= eqs.n_template) & (expl_eqs < eqs.n_base)]
        if len(linear):
            rows = eqs.through.rows(linear - eqs.n_template)
            self._weights_seen(rows)
            order, values = solve_linear_rows(rows, target_pos[linear], known.values)
            found.append((target_pos[linear][order], values))
        derived = expl_eqs[expl_eqs >= eqs.n_base]
        return found + self._derivatives(known, derived) if len(derived) else found

    def _template(self, known: _Known, rows: np.ndarray):
        """Template equations ``rows``: one mapped call per (class, equation, variable), on
        the locals its solution reads (:meth:`ClassTemplate.narrow_solution`)."""
        found = []
        if not len(rows):
            return found
        eqs, aliases, symbolic = self.reduced.equations, self.aliases, self.symbolic
        block, _, instance = eqs.blocks_of(rows)
        for b in sorted_unique(block).tolist():
            gi, j, _ = eqs.blocks[b]
            g = self.flat.groups[gi]
            inst, target = instance[block == b], self.torn.target_pos[rows[block == b]]
            for l in sorted(g.template.explicit[j]):
                hit = aliases.col[g.var_ids[inst, l]] == target
                if not hit.any():
                    continue
                ks = inst[hit]
                function, used = g.template.narrow_solution(j, l)
                sol = mapped(function, len(ks), known.locals(g, aliases, ks, used),
                             columns(symbolic.params[gi], ks), symbolic.T)
                self.guard.add(g.template, "sol", j, l, g.param_ids[ks])
                found.append((target[hit], signed(sol, aliases.sign[g.var_ids[ks, l]])))
        return found

    def _derivatives(self, known: _Known, derived: np.ndarray):
        """Equations that index reduction differentiated."""
        eqs, der, aliases, target_pos = self.reduced.equations, self.reduced.var_derivative, self.aliases, \
            self.torn.target_pos
        X = known.values
        X0 = cs.vertcat(X, 0)                 # the last entry reads zero (no derivative)
        sums, groups = [], {}
        for d in derived.tolist():
            base, u = eqs.derivative_of[d - eqs.n_base], int(target_pos[d])
            if base >= eqs.n_template:          # a connection sum: sum_r c_r der(x_r) = 0
                sums.append((d, base - eqs.n_template))
                continue
            block, k = eqs.block_of(base)
            g = self.flat.groups[block.group]
            l = next(l for l in g.template.explicit[block.residual]
                     if der.get(int(aliases.col[g.var_ids[k, l]])) == u)
            groups.setdefault((block.group, block.residual, l), []).append((d, k))
        found = []
        if sums:
            rows = eqs.through.rows([r for _, r in sums])
            has = np.isin(rows.indices, list(der))
            dcols = np.array([der.get(c, 0) for c in rows.indices.tolist()], dtype=np.int64)
            on_ders = CSR.from_entries(rows.row_of_entries()[has], dcols[has], (len(sums), X.numel()),
                                       rows.data[has])
            targets = target_pos[[d for d, _ in sums]]
            self._weights_seen(on_ders)
            order, values = solve_linear_rows(on_ders, targets, X)
            found.append((targets[order], values))
        for (gi, j, l), items in groups.items():
            g = self.flat.groups[gi]
            ks = [k for _, k in items]
            sol = mapped(g.template.derivative_solution_function(j, l), len(ks), known.locals(g, aliases, ks),
                         local_derivatives(g, ks, aliases, der, X0), columns(self.symbolic.params[gi], ks),
                         self.symbolic.T)
            self.guard.add(g.template, "der", j, l, g.param_ids[ks])
            found.append((target_pos[[d for d, _ in items]], signed(sol, aliases.sign[g.var_ids[ks, l]])))
        return found

    def _weights_seen(self, rows: CSR) -> None:
        """Connection sums solved with weights that are not all finite numbers: the guard
        cannot vouch for their values (the matching picks nonzero targets, so the weights
        are finite wherever the coefficients are)."""
        if not np.isfinite(rows.data).all():
            self.guard.refuse()


def _linear_block_solutions(flat, aliases, reduced, torn, symbolic):
    """Small linear loops solved symbolically: (positions, definitions in R) per block."""
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


def _reads(reduced: Reduced, torn: Torn, expl_eqs: np.ndarray) -> tuple[CSR, np.ndarray]:
    """Which solved positions each item reads (items: the explicit equations ``expl_eqs``, then
    the linear blocks; CSR items × positions, the item's own positions left out), and the item
    that solves each position (-1 for states and algebraic variables)."""
    eqs, n_expl = reduced.equations, len(expl_eqs)
    # int32 where they fit, and each array let go once read: a million-element model's seven
    # million incidences pass through here (the compile's peak memory was this function's)
    index = index_dtype(max(eqs.n_eq, reduced.n_pos))
    item_of_eq = np.full(eqs.n_eq, -1, dtype=index)
    item_of_pos = np.full(reduced.n_pos, -1, dtype=index)
    item_of_eq[expl_eqs] = np.arange(n_expl)
    item_of_pos[torn.target_pos[expl_eqs]] = np.arange(n_expl)
    for i, block in enumerate(torn.linear_blocks):
        item_of_eq[block.members] = n_expl + i
        item_of_pos[reduced.unknown_pos[block.unknowns]] = n_expl + i
    # in order: without linear blocks or index reduction the items' reads come sorted (no sort
    # of a million-element model's seven million incidences)
    rows, cols = eqs.entries_in_order()
    # A differentiated equation reads the derivatives of its variables, including those that
    # index reduction created after differentiating it (not in its own incidence).
    derived = rows >= eqs.n_base
    if derived.any():
        der = np.array([reduced.var_derivative.get(c, -1) for c in cols[derived].tolist()], dtype=np.int64)
        rows = np.concatenate([rows, rows[derived][der >= 0]])
        cols = np.concatenate([cols, der[der >= 0]])
    item = item_of_eq[rows]
    del rows
    read_item = item_of_pos[cols]
    keep = item >= 0
    keep &= read_item >= 0
    keep &= item != read_item
    del read_item
    reads = CSR.from_entries(item[keep], cols[keep], (n_expl + len(torn.linear_blocks), reduced.n_pos))
    return reads, item_of_pos


def _levels(reads: CSR, item_of_pos: np.ndarray, limit: int):
    """Level of each item (one more than the highest level among the items whose positions it
    reads, zero if it reads none), or None if a chain is ``limit`` or more levels deep."""
    n_items = reads.shape[0]
    reading = np.diff(reads.indptr) > 0
    starts, read_items = reads.indptr[:-1][reading], item_of_pos[reads.indices]
    level = np.zeros(n_items, dtype=np.int64)
    for _ in range(limit):
        new = np.zeros(n_items, dtype=np.int64)
        if len(starts):
            new[reading] = np.maximum.reduceat(level[read_items], starts) + 1
        if np.array_equal(new, level):
            return level
        level = new
    return None


def solve_explicit(flat, aliases: AliasMap, reduced: Reduced, order: BlockOrder, torn: Torn,
                   symbolic: Symbolic) -> Solved:
    """The value of every position: states and algebraic variables stay symbols, solved
    positions get their definitions in terms of them, parameters and time."""
    expl_eqs = np.flatnonzero(torn.target >= 0)
    definitions = _Definitions(flat, aliases, reduced, torn, symbolic)
    blocks = _linear_block_solutions(flat, aliases, reduced, torn, symbolic)
    reads, item_of_pos = _reads(reduced, torn, expl_eqs)
    level = _levels(reads, item_of_pos, MAX_LEVELS)
    if blocks:          # solved by symbolic elimination: pivots of unknowns
        definitions.guard.refuse()
    if level is None:
        return _substituted(definitions, order, torn, expl_eqs, blocks)
    n_expl = len(expl_eqs)
    known = _Known(cs.SX(symbolic.R))
    R, solved = symbolic.R, []
    for at in range(int(level.max(initial=-1)) + 1):
        found = definitions.of(known, expl_eqs[level[:n_expl] == at])
        for i in np.flatnonzero(level[n_expl:] == at).tolist():
            block_pos, solution = blocks[i]
            read = reads.indices[reads.indptr[n_expl + i]:reads.indptr[n_expl + i + 1]].tolist()
            found.append((block_pos, cs.substitute(solution, R[read], known.values[read])))
        known.add(found)
        solved += [positions for positions, _ in found]
    return Solved(np.concatenate(solved) if solved else np.zeros(0, np.int64), known.values,
                  definitions.guard.finished())


def _substituted(definitions: _Definitions, order: BlockOrder, torn: Torn, expl_eqs, blocks) -> Solved:
    """Every definition in terms of the positions, then substituted into each other in
    evaluation order (blocks in order, explicit equations by rank within a block)."""
    R = definitions.symbolic.R
    if not definitions.symbolic.all_symbols:        # symbols to substitute for, where zeros wait
        R = cs.SX(R)
        R[torn.target_pos[expl_eqs].tolist()] = cs.SX.sym("s", len(expl_eqs))
    found = definitions.of(_Known(R), expl_eqs)
    positions = np.concatenate([p for p, _ in found]) if found else np.zeros(0, np.int64)
    eq_of_pos = np.full(R.numel(), -1, dtype=np.int64)
    eq_of_pos[torn.target_pos[expl_eqs]] = expl_eqs
    labels, ranks = [order.block[eq_of_pos[positions]]], [torn.rank[eq_of_pos[positions]]]
    pos, defs = [positions], [cs.vec(part) for _, part in found]
    for (label, _, _), (block_pos, solution) in zip(torn.linear_blocks, blocks):
        pos.append(block_pos)
        defs.append(solution)
        labels.append(np.full(len(block_pos), label))
        ranks.append(np.arange(len(block_pos)))
    eval_order = np.lexsort((np.concatenate(ranks), np.concatenate(labels)))
    values = cs.SX(R)
    guard = definitions.guard.finished()
    if not len(eval_order):
        return Solved(np.zeros(0, np.int64), values, guard)
    positions = np.concatenate(pos)[eval_order]
    vdef = cs.vertcat(*defs)[eval_order.tolist()]
    final, _ = cs.substitute_inplace([R[positions.tolist()]], [vdef], [], False)
    values[positions.tolist()] = cs.densify(final[0])
    return Solved(positions, values, guard)


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
