"""Pass 3: the equation table, every equation's incidence over positions (one entry per
equation and variable), with what the matching and tearing need to know about each entry."""
from __future__ import annotations

from typing import Mapping, NamedTuple

import numpy as np

from ...core.arrays import difference, index_dtype
from ..ir import AliasMap, Combination, Equations, TemplateBlock
from ..sparse import CSR, entry_order


def linear_rows(aliases: AliasMap) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Linear equations over raw variables outside the class templates: connection sums other
    than alias pairs (each coefficient 1), then alias pairs kept as equations (x_a − s·x_b = 0).
    Returns (row, raw id, coefficient) per entry and the number of rows."""
    n_sums = len(aliases.sum_lengths)
    rows = [np.repeat(np.arange(n_sums), aliases.sum_lengths)]
    ids, coeffs = [aliases.sum_ids], [np.ones(len(aliases.sum_ids))]
    demoted = aliases.demoted
    if len(demoted):
        d = np.asarray(demoted, dtype=float)
        ids.append(d[:, :2].astype(np.int64).ravel())
        coeffs.append(np.column_stack([np.ones(len(d)), -d[:, 2]]).ravel())
        rows.append(np.repeat(n_sums + np.arange(len(d)), 2))
    return np.concatenate(rows), np.concatenate(ids), np.concatenate(coeffs), n_sums + len(demoted)


def _template_rows(flat, col):
    """Entries of the class templates' equations, block by block."""
    rows, cols, pref, expl, linear, blocks = [], [], [], [], [], []
    base = 0
    for gi, g in enumerate(flat.groups):
        tpl, k = g.template, len(g.paths)
        for j, locals_ in enumerate(tpl.incidence):
            linear.append(np.full(k, tpl.residual_linear[j]))
            eq_rows = base + np.arange(k)
            local_cols = col[g.var_ids[:, locals_]]
            for li, l in enumerate(locals_):
                c = local_cols[:, li]
                # A variable that appears through two locals (a shorted pin pair) cannot be
                # solved for from the template's single-variable solution.
                unique = (local_cols == c[:, None]).sum(axis=1) == 1
                rows.append(eq_rows)
                cols.append(c)
                pref.append(np.full(k, l not in tpl.risky[j]))
                expl.append((l in tpl.explicit[j]) & unique)
            blocks.append(TemplateBlock(gi, j, base))
            base += k
    return rows, cols, pref, expl, linear, tuple(blocks), base


def build_equations(flat, aliases: AliasMap, combos: dict[int, Combination]) -> Equations:
    """All equations after alias elimination, with ``combos`` replacing the equations they name."""
    col, sign = aliases.col, aliases.sign
    rows, cols, pref, expl, linear, blocks, n_template = _template_rows(flat, col)
    lrows, lids, lcoeffs, n_linear = linear_rows(aliases)
    through = CSR.from_entries(lrows, col[lids], (n_linear, aliases.n), lcoeffs * sign[lids])
    rows.append(n_template + through.row_of_entries())
    cols.append(through.indices)
    pref.append(np.ones(through.nnz, bool))
    expl.append(np.ones(through.nnz, bool))
    linear.append(np.ones(n_linear, bool))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    # stored in the order of (equation, position): the passes' patterns then need no order of
    # their own (a million-element model's seven million entries: 56 MB and a sort each)
    order = entry_order(rows, cols)
    index = index_dtype(max(len(rows), aliases.n))      # a million elements: 7 million entries
    eqs = Equations(rows[order].astype(index), cols[order].astype(index), np.concatenate(pref)[order],
                    np.concatenate(expl)[order],
                    np.concatenate(linear), blocks, n_template, through, n_template + n_linear)
    return _with_combinations(eqs, combos) if combos else eqs


def _with_combinations(eqs: Equations, combos) -> Equations:
    """Each combined equation's entries: the variables of its members but the cancelled ones."""
    rows, cols, pref, expl, linear = eqs.rows, eqs.cols, eqs.preferred, eqs.explicit, eqs.linear.copy()
    for e, combo in combos.items():
        members = np.isin(rows, combo.members)
        variables = difference(cols[members], combo.cancelled)
        keep = rows != e
        rows = np.concatenate([rows[keep], np.full(len(variables), e, dtype=rows.dtype)])
        cols = np.concatenate([cols[keep], variables.astype(cols.dtype)])
        pref = np.concatenate([pref[keep], np.ones(len(variables), bool)])
        expl = np.concatenate([expl[keep], np.zeros(len(variables), bool)])
        linear[e] = True
    return Equations(rows, cols, pref, expl, linear, eqs.blocks, eqs.n_template, eqs.through,
                     eqs.n_eq, combos=dict(combos))


class EquationDescriber:
    """Human-readable description of equation ``e`` for error messages (a class rather than a
    closure, so that a compiled model that keeps it can be pickled). ``eqs`` and ``aliases``
    are the compile's tables, or the stand-ins :meth:`compact` keeps of them."""

    def __init__(self, flat, eqs: Equations, aliases: AliasMap):
        self.flat, self.eqs, self.names, self.aliases = flat, eqs, flat.var_names, aliases

    def compact(self) -> EquationDescriber:
        """The same descriptions from only what they read, for a compiled model to keep: not
        the incidence entries, alias tables and their cached indexes (about 0.3 kB an element,
        a tenth of a large circuit's memory at simulate time)."""
        eqs, aliases = self.eqs, self.aliases
        return EquationDescriber(
            self.flat,
            _EquationIndex(eqs.combos, eqs.n_base, eqs.n_template, eqs.derivative_of, eqs.blocks,
                           np.array(eqs.blocks, dtype=np.int64).reshape(-1, 3)),
            _SumRows(aliases.sum_lengths, aliases.sum_ids, aliases.sum_offsets, aliases.demoted))

    def __call__(self, e) -> str:
        combos = self.eqs.combos
        if combos and e in combos:
            combo = combos[e]
            return "combination (" + " + ".join(f"{w:+.3g}·[{self.plain(int(m))}]"
                                                for m, w in zip(combo.members, combo.weights)) + ")"
        return self.plain(e)

    def plain(self, e) -> str:
        eqs, names = self.eqs, self.names
        if e >= eqs.n_base:
            return f"d/dt of ({self(eqs.derivative_of[e - eqs.n_base])})"
        if e >= eqs.n_template:
            row, aliases = e - eqs.n_template, self.aliases
            n_sums = len(aliases.sum_lengths)
            if row >= n_sums:
                a, b, s = aliases.demoted[row - n_sums]
                return f"{names[int(a)]} = {s:+g}·{names[int(b)]}"
            ids = aliases.sum_ids[aliases.sum_offsets[row]:aliases.sum_offsets[row + 1]]
            return "connection: " + " + ".join(names[i] for i in ids.tolist()) + " = 0"
        block, instance = eqs.block_of(e)
        g = self.flat.groups[block.group]
        if g.template.class_name.startswith("_Position"):
            return f"{g.paths[instance]}: positions as differences of integrated positions"
        if g.template.class_name.startswith("_"):       # internal helper, e.g. a given input value
            return f"the value given to input {g.paths[instance]}"
        return f"{g.template.class_name} {g.paths[instance]}: {g.template.residuals[block.residual]} = 0"


class _EquationIndex(NamedTuple):
    """What :meth:`EquationDescriber.plain` reads of :class:`Equations`."""

    combos: Mapping
    n_base: int
    n_template: int
    derivative_of: tuple
    blocks: tuple
    block_table: np.ndarray     # (group, residual, first equation) per template block

    def block_of(self, e: int) -> tuple[TemplateBlock, int]:
        """As :meth:`Equations.block_of`."""
        block = int(np.searchsorted(self.block_table[:, 2], e, side="right")) - 1
        return self.blocks[block], int(e - self.block_table[block, 2])


class _SumRows(NamedTuple):
    """What :meth:`EquationDescriber.plain` reads of :class:`AliasMap`: the linear rows."""

    sum_lengths: np.ndarray
    sum_ids: np.ndarray
    sum_offsets: np.ndarray
    demoted: np.ndarray
