"""Pass 6: the equations as CasADi expressions, one mapped call per class and equation.

Every class's equations are instantiated for all its instances with one ``Function.map`` call
on stacked locals; connection sums are a sparse matrix times the positions; derivatives that
index reduction added come from the class templates' derivative functions.
"""
from __future__ import annotations

from collections.abc import Sequence

import casadi as cs
import numpy as np

from ...core.arrays import sorted_unique
from ..ir import AliasMap, Equations, Reduced, Symbolic, Torn
from ..sparse import CSR, dm_to_csr
from .mapped_calls import RowSource, mapped


def signed(expr, signs) -> cs.SX:
    """``expr * signs`` elementwise (column-major), negating only the entries whose sign is
    negative: a product with a vector of signs would make a new node for every entry."""
    signs = np.asarray(signs, dtype=float).ravel(order="F")
    negative = np.flatnonzero(signs < 0)
    if not len(negative):
        return expr
    if len(negative) == len(signs):
        return -expr
    expr = cs.SX(expr)
    at = negative.tolist()
    expr[at] = -expr[at]
    return expr


def columns(matrix: cs.SX, ks) -> cs.SX:
    """Columns ``ks`` of ``matrix`` (all of them without a copy)."""
    if len(ks) == matrix.size2() and np.array_equal(ks, np.arange(len(ks))):
        return matrix
    return matrix[:, np.asarray(ks, dtype=np.int64).tolist()]


def as_matrix(column: cs.SX, rows: int, cols: int) -> cs.SX:
    """A dense column of rows·cols entries as a dense rows × cols matrix, column by column:
    ``casadi.reshape`` does the same at twice the cost (0.5 s of a million-element compile)."""
    return cs.SX(cs.Sparsity.dense(rows, cols), column)


def instance_locals(g, col, sign, R, ks=None, used=None) -> cs.SX:
    """The locals of every instance of group ``g`` (locals × instances, signs applied), read
    from the position values ``R`` through the raw-variable-to-position map ``col``/``sign``;
    only the instances ``ks`` and the locals ``used``, where given."""
    ids = g.var_ids if ks is None else g.var_ids[ks]
    if used is not None:
        ids = ids[:, used]
    (k, nl) = ids.shape
    ids = ids.ravel()                                    # instance by instance, local by local
    return as_matrix(signed(R[col[ids].tolist()], sign[ids]), nl, k)


class LocalRows(RowSource):
    """The locals that :func:`instance_locals` gives (``used`` of the instances ``ks``, all by
    default), each row made when :func:`mapped` reads it: a million-element ladder's gather of
    every local, its reshape and the copy of each row out of it took twice as long as a
    gather per row."""

    def __init__(self, g, col, sign, R, ks=None, used=None):
        self._matrix_args = (g, col, sign, R, ks, used)
        ids = g.var_ids if ks is None else g.var_ids[ks]
        self._ids = ids if used is None else ids[:, used]
        self._col, self._sign, self._R = col, sign, R

    def size1(self) -> int:
        return self._ids.shape[1]

    def size2(self) -> int:
        return self._ids.shape[0]

    def row(self, local: int) -> cs.SX:
        """The values of local ``local`` (of those used), one per instance, as a row."""
        ids = self._ids[:, local]
        return as_matrix(signed(self._R[self._col[ids].tolist()], self._sign[ids]), 1, len(ids))

    def matrix(self) -> cs.SX:
        """All of them, locals × instances."""
        return instance_locals(*self._matrix_args)


def instance_params(g, P) -> cs.SX:
    """The parameters and modes of every instance of group ``g`` (inputs × instances)."""
    k, npar = len(g.paths), g.template.n_inputs
    return as_matrix(P[g.param_ids.ravel().tolist()], npar, k) if npar else cs.DM(0, k)


class GroupLocals(Sequence):
    """Per group: its instances' locals (locals × instances, signs applied), read from the
    positions ``R``, each made when first asked for: the explicit solutions gather the few
    locals each one reads (:meth:`ClassTemplate.narrow_solution`), so a model whose equations
    are all solved explicitly and that has no guards never asks (a million-element ladder's
    6.5 million locals took 2.2 s)."""

    def __init__(self, groups, aliases: AliasMap, R):
        self._groups, self._aliases, self._R = groups, aliases, R
        self._made: dict[int, cs.SX] = {}

    def __getitem__(self, gi: int) -> cs.SX:
        if gi not in self._made:
            self._made[gi] = instance_locals(self._groups[gi], self._aliases.col, self._aliases.sign, self._R)
        return self._made[gi]

    def __len__(self) -> int:
        return len(self._groups)

    @property
    def n_entries(self) -> int:
        """The number of locals over every instance (Sequence's count() counts a value)."""
        return sum(g.var_ids.size for g in self._groups)


def group_inputs(flat, aliases: AliasMap, R, P):
    """Per group: its instances' locals (:class:`GroupLocals`) and parameters."""
    return GroupLocals(flat.groups, aliases, R), tuple(instance_params(g, P) for g in flat.groups)


def reordered(values: cs.SX, have: np.ndarray, want: np.ndarray) -> cs.SX:
    """``values`` (one entry per equation in ``have``) for the equations ``want``, in that order."""
    if np.array_equal(have, want):
        return values
    sorter = np.argsort(have, kind="stable")
    return values[sorter[np.searchsorted(have, want, sorter=sorter)].tolist()]


def base_rows(flat, eqs: Equations, symbolic: Symbolic, rows) -> cs.SX:
    """Residuals of template and linear equations ``rows`` (combinations not applied), one
    mapped call per class on the instances needed."""
    R, T, locals_sx, params_sx = symbolic.R, symbolic.T, symbolic.locals, symbolic.params
    rows = np.asarray(rows, dtype=np.int64)
    parts, have = [], []
    template = rows[rows < eqs.n_template]
    if len(template):
        block, group, instance = eqs.blocks_of(template)
        residual = np.array([b.residual for b in eqs.blocks], dtype=np.int64)[block]
        for gi in sorted(set(group.tolist())):
            sel = group == gi
            ks = np.sort(instance[sel])
            ks = ks[np.r_[True, ks[1:] != ks[:-1]]] if len(ks) else ks
            tpl = flat.groups[gi].template
            out = mapped(tpl.residual_function, len(ks), columns(locals_sx[gi], ks), columns(params_sx[gi], ks), T)
            picked = residual[sel] + len(tpl.residuals) * np.searchsorted(ks, instance[sel])
            parts.append(cs.vec(out)[picked.tolist()])
            have.append(template[sel])
    linear = rows[(rows >= eqs.n_template) & (rows < eqs.n_base)]
    if len(linear):
        through = eqs.through.rows(linear - eqs.n_template)
        parts.append(cs.mtimes(through.to_dm(), R[:through.shape[1]]))
        have.append(linear)
    if not parts:
        return cs.SX(0, 1)
    return reordered(cs.vertcat(*parts), np.concatenate(have), rows)


def residuals(flat, aliases: AliasMap, reduced: Reduced, symbolic: Symbolic, rows) -> cs.SX:
    """Residuals of the equations ``rows`` (combinations and derivative rows included), in that order."""
    rows = np.asarray(rows, dtype=np.int64)
    eqs, combos = reduced.equations, reduced.equations.combos
    combined = [int(r) for r in rows.tolist() if r in combos]
    derived = rows[rows >= eqs.n_base]
    plain = rows[(rows < eqs.n_base) & ~np.isin(rows, combined)]
    members = [np.asarray(combos[e].members, dtype=np.int64) for e in combined]
    needed = sorted_unique(np.concatenate([plain] + members)) if combined else plain
    base = base_rows(flat, eqs, symbolic, needed)
    if not combined and not len(derived):
        return base
    asked = np.isin(needed, plain)              # not members of combinations only
    parts, have = [base[np.flatnonzero(asked).tolist()]], [needed[asked]]
    if combined:
        at = {int(r): i for i, r in enumerate(needed.tolist())}
        parts.append(cs.vertcat(*[_combination(combos[e], lambda m: base[at[m]], symbolic.R)
                                  for e in combined]))
        have.append(np.array(combined, dtype=np.int64))
    if len(derived):
        parts.append(_derivative_residuals(flat, aliases, reduced, symbolic))
        have.append(eqs.n_base + np.arange(len(reduced.new_eqs)))
    return reordered(cs.vertcat(*parts), np.concatenate(have), rows)


def _combination(combo, residual_of, R):
    """``sum w·F_m`` of a combination, without the cancelled unknowns (whose coefficients are
    zero up to rounding)."""
    expr = sum((float(w) * residual_of(int(m)) for m, w in zip(combo.members, combo.weights)), cs.SX(0))
    gone = [int(c) for c in combo.cancelled if 0 <= c < R.numel()]
    return cs.substitute(expr, R[gone], cs.DM.zeros(len(gone))) if gone else expr


def _group_starts(g, Pm, T, wanted: np.ndarray):
    """Start values of the locals of group ``g`` for which ``wanted`` (instances × locals) holds,
    instance by instance, with the raw ids they belong to."""
    rows = np.flatnonzero(wanted.any(axis=0))
    if not len(rows):
        return None, None
    k, nl = wanted.shape
    direct = g.template.start_parameters(tuple(rows.tolist()))
    if direct is not None:          # parameters as given: read, not evaluated per instance
        out = cs.vec(Pm[list(direct), :])
    else:
        function = g.template.start_rows_function(tuple(rows.tolist()))
        out = cs.vec(mapped(function, k, cs.SX(nl, k), Pm, T))   # the start values do not read locals
    keep = wanted[:, rows].ravel()
    return (out if keep.all() else out[np.flatnonzero(keep).tolist()]), g.var_ids[:, rows].ravel()[keep]


def start_values(flat, aliases: AliasMap, params_sx, T, positions=None) -> cs.SX:
    """Start values of the representative positions ``positions`` (default: all of them), in
    that order: a representative is its own raw variable (sign +1), so its start is its own."""
    if positions is not None and not len(positions):   # (no algebraic variables, say)
        return cs.SX(0, 1)
    wanted = np.ones(aliases.n, bool) if positions is None else np.zeros(aliases.n, bool)
    if positions is not None:
        wanted[positions] = True
    parts, have = [], []
    for g, Pm in zip(flat.groups, params_sx):
        ids = g.var_ids
        values, ids = _group_starts(g, Pm, T, (aliases.rep[ids] == ids) & wanted[aliases.col[ids]])
        if values is not None:
            parts.append(values)
            have.append(aliases.col[ids])
    if not parts:
        return cs.SX(0, 1)
    have = np.concatenate(have)
    # (one part, a million-element ladder's capacitors' v0: not copied by vertcat)
    return reordered(parts[0] if len(parts) == 1 else cs.vertcat(*parts), have,
                     np.arange(len(have)) if positions is None else positions)


def position_starts(flat, aliases: AliasMap, reduced: Reduced, symbolic: Symbolic, positions) -> cs.SX:
    """Start values of ``positions`` in (P, T); the derivatives that index reduction added
    (positions past the representatives) start at zero."""
    positions = np.asarray(positions, dtype=np.int64)
    own = positions < aliases.n
    values = start_values(flat, aliases, symbolic.params, symbolic.T, positions[own])
    if own.all():
        return values
    return reordered(cs.vertcat(values, cs.DM.zeros(int((~own).sum()))),
                      np.concatenate([positions[own], positions[~own]]), positions)


def raw_start_values(flat, params_sx, T, raw_ids) -> cs.SX:
    """Start values of the raw variables ``raw_ids``."""
    parts, have = [], []
    for g, Pm in zip(flat.groups, params_sx):
        values, ids = _group_starts(g, Pm, T, np.isin(g.var_ids, raw_ids))
        if values is not None:
            parts.append(values)
            have.append(ids)
    return reordered(cs.vertcat(*parts), np.concatenate(have), np.asarray(raw_ids, dtype=np.int64))


def numeric_jacobian(flat, aliases: AliasMap, eqs: Equations) -> CSR:
    """Jacobian of the base equations at the start values and compiled-in parameters."""
    R, P, T = cs.SX.sym("r", aliases.n), cs.SX.sym("p", len(flat.param_names)), cs.SX.sym("t")
    symbolic = Symbolic(R, P, T, *group_inputs(flat, aliases, R, P))
    res = base_rows(flat, eqs, symbolic, np.arange(eqs.n_eq))
    if eqs.combos:
        combined = sorted(eqs.combos)
        pick = np.arange(eqs.n_eq)
        pick[combined] = eqs.n_eq + np.arange(len(combined))
        res = cs.vertcat(res, *[_combination(eqs.combos[e], lambda m: res[m], R) for e in combined])[pick.tolist()]
    start = cs.Function("start", [P, T], [start_values(flat, aliases, symbolic.params, T)])
    jac = cs.Function("base_jacobian", [R, P, T], [cs.jacobian(res, R)])
    values = jac(start(flat.param_values, 0.0), flat.param_values, 0.0)
    return dm_to_csr(values)


def instantiate(flat, aliases: AliasMap, reduced: Reduced, torn: Torn | None = None) -> Symbolic:
    """Locals and parameters of every instance; residuals are formed on demand
    (:func:`residuals`), for the equations that are not solved explicitly, and start values
    (:func:`position_starts`) for the positions that need them.

    Given the tearing ``torn``, only the states and algebraic variables are symbols (named
    ``x_i`` and ``z_i`` after their rows, as :meth:`DaeSystem.symbols` names them) where
    nothing needs the other positions as symbols (no linear block is solved symbolically and
    no combination of equations cancels unknowns): the positions the explicit equations solve
    hold zeros, and the explicit solutions write their values in before anything reads them
    (:func:`~physlib.assembly.passes.explicit.solve_explicit`). A symbol costs 76 bytes and
    0.2 us; a million-element ladder solves 2.5 of its 3 million positions explicitly.
    Otherwise every position ``k`` is a symbol ``r_k``."""
    P, T = cs.SX.sym("p", len(flat.param_names)), cs.SX.sym("t")
    solved = torn.target_pos[torn.target >= 0] if torn is not None else None
    z_pos = reduced.unknown_pos[torn.z_unknowns] if torn is not None else None
    if torn is None or torn.linear_blocks or reduced.equations.combos or \
            len(solved) + len(reduced.states) + len(z_pos) != reduced.n_pos:
        R = cs.SX.sym("r", reduced.n_pos)
        return Symbolic(R, P, T, *group_inputs(flat, aliases, R, P))
    R = cs.SX.zeros(reduced.n_pos)
    R[reduced.states.tolist()] = cs.SX.sym("x", len(reduced.states))
    R[z_pos.tolist()] = cs.SX.sym("z", len(z_pos))
    return Symbolic(R, P, T, *group_inputs(flat, aliases, R, P), all_symbols=False)


def _derivative_residuals(flat, aliases, reduced: Reduced, symbolic: Symbolic):
    """Time derivatives of the equations that index reduction differentiated, in their order."""
    if not reduced.new_eqs:
        return cs.SX(0, 1)
    der, eqs, R = reduced.var_derivative, reduced.equations, symbolic.R
    combos = eqs.combos
    needed = sorted({int(m) for e in reduced.new_eqs for m in
                     (combos[e].members if e in combos else [e])})
    derived = dict(zip(needed, cs.vertsplit(
        _derivatives_of(flat, aliases, reduced, symbolic, needed))))
    out = []
    for e in reduced.new_eqs:
        if e not in combos:
            out.append(derived[e])
            continue
        combo = combos[e]
        expr = sum((float(w) * derived[int(m)] for m, w in zip(combo.members, combo.weights)),
                   cs.SX(0))
        gone = [int(c) for c in combo.cancelled] + [der[int(c)] for c in combo.cancelled if int(c) in der]
        gone = [g for g in gone if g < R.numel()]
        out.append(cs.substitute(expr, R[gone], cs.DM.zeros(len(gone))) if gone else expr)
    return cs.vertcat(*out)


def _derivatives_of(flat, aliases, reduced, symbolic: Symbolic, base_ids):
    """d/dt of the listed template or linear equations, as one SX vector in that order."""
    der, eqs = reduced.var_derivative, reduced.equations
    R, T, locals_sx, params_sx = symbolic.R, symbolic.T, symbolic.locals, symbolic.params
    R0 = cs.vertcat(R, 0)                       # the last entry reads zero (no derivative)
    out = [None] * len(base_ids)
    template_parts: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i, e in enumerate(base_ids):
        if e < eqs.n_template:
            block, k = eqs.block_of(e)
            template_parts.setdefault((block.group, block.residual), []).append((i, k))
        else:
            row = eqs.through.rows([e - eqs.n_template])
            out[i] = sum((c * R0[der.get(p, R0.numel() - 1)] for c, p in zip(row.data.tolist(), row.indices.tolist())),
                         cs.SX(0))
    for (gi, j), items in template_parts.items():
        ks = [k for _, k in items]
        Ldot = local_derivatives(flat.groups[gi], ks, aliases, der, R0)
        vals = mapped(flat.groups[gi].template.derivative_function(j), len(ks),
                      columns(locals_sx[gi], ks), Ldot, columns(params_sx[gi], ks), T)
        for (i, _), c in zip(items, range(len(ks))):
            out[i] = vals[0, c]
    return cs.vertcat(*out)


def local_derivatives(g, ks, aliases: AliasMap, der, R0):
    """d/dt of the locals of instances ``ks`` of group ``g`` (zero where none exists)."""
    ids = aliases.col[g.var_ids[ks]]
    missing = R0.numel() - 1
    dot_idx = np.vectorize(lambda p: der.get(int(p), missing))(ids) if ids.size else ids
    return signed(cs.reshape(R0[dot_idx.T.flatten(order="F").tolist()], ids.shape[1], len(ks)),
                  aliases.sign[g.var_ids[ks]].T)
