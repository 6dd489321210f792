"""Pass 4: index reduction (see :mod:`physlib.assembly.pantelides` for the algorithm).

Runs Pantelides' algorithm only when the equations cannot all be matched to non-states,
checks the dummy states it chooses numerically, appends the differentiated equations, and
settles the position and unknown spaces of the rest of the pipeline.
"""
from __future__ import annotations

import numpy as np

from ...core.arrays import index_dtype
from ...core.logs import logger
from ..ir import AliasMap, Equations, Reduced
from ..matching import maximum_matching
from ..pantelides import IndexReduction, reduce_index
from ..sparse import CSR
from ..structure import diagnose
from .instantiate import numeric_jacobian

log = logger("physlib.compile")


def reduce_equations(flat, aliases: AliasMap, eqs: Equations, describe) -> Reduced:
    """The equations with the derivatives index reduction needs, and the states that stay."""
    derivative, n_rep = aliases.derivative, aliases.n
    is_state = np.zeros(n_rep, bool)
    is_state[list(derivative)] = True
    non_states = np.flatnonzero(~is_state)
    unknown = np.full(n_rep, -1, dtype=np.int64)
    unknown[non_states] = np.arange(len(non_states))
    # The matching the block order takes (preferred entries first): when it is perfect, nothing
    # needs differentiating and the block order reuses it.
    square = eqs.n_eq == len(non_states)
    match = maximum_matching(eqs.incidence(eqs.preferred, len(non_states), unknown))
    if square and np.all(match >= 0):
        return _settle(aliases, eqs, IndexReduction(dict(derivative)), match)
    match = maximum_matching(eqs.incidence(None, len(non_states), unknown))
    if square and np.all(match >= 0):
        return _settle(aliases, eqs, IndexReduction(dict(derivative)), match)
    _check_differentiable(aliases, eqs, unknown, non_states, describe)
    full = eqs.incidence(None, n_rep)
    adjacency = [full.row(e).tolist() for e in range(eqs.n_eq)]
    initial = [int(non_states[m]) if m >= 0 else -1 for m in match]
    reduction = reduce_index(adjacency, n_rep, derivative, set(derivative), initial, describe)
    reduction.dummies = _sound_dummies(reduction, numeric_jacobian(flat, aliases, eqs), derivative,
                                       n_rep, adjacency)
    log.debug("index reduction: differentiated %d equations; dummy states %s",
              len(reduction.new_eqs), [aliases.names[d] for d in reduction.dummies])
    return _settle(aliases, _with_derivatives(eqs, reduction, adjacency), reduction)


def _check_differentiable(aliases, eqs, unknown, non_states, describe):
    """Differentiation only helps if the system is nonsingular once each state is identified
    with its derivative; otherwise it is genuinely over- or under-determined."""
    derivative = aliases.derivative
    merged = unknown.copy()
    for state in derivative:
        top = state
        while top in derivative:
            top = derivative[top]
        merged[state] = unknown[top]
    merged_inc = eqs.incidence(None, len(non_states), merged)
    merged_match = maximum_matching(merged_inc)
    if eqs.n_eq != len(non_states) or np.any(merged_match < 0):
        state_of = {int(unknown[d]): aliases.names[s] for s, d in derivative.items() if unknown[d] >= 0}
        diagnose(merged_inc, describe, lambda u: state_of.get(u, aliases.names[non_states[u]]))


def _with_derivatives(eqs: Equations, reduction: IndexReduction, adjacency) -> Equations:
    """``eqs`` with the differentiated equations appended."""
    new_rows = [np.full(len(a), eqs.n_eq + i) for i, a in enumerate(reduction.new_adjacency)]
    if not new_rows:
        return eqs
    new_cols = [np.array(a, dtype=np.int64) for a in reduction.new_adjacency]
    size = sum(len(r) for r in new_rows)
    # The derivative of an equation explicit in x (constant coefficient) is explicit in
    # der(x) with the same coefficient, unless der(x) already occurs in the equation.
    explicit_csr = eqs.incidence(eqs.explicit, eqs.through.shape[1])
    der = reduction.var_derivative
    new_explicit = []
    for base, cols in zip(reduction.new_eqs, new_cols):
        solvable = {der[c] for c in explicit_csr.row(base).tolist() if c in der} - set(adjacency[base])
        new_explicit.append(np.isin(cols, list(solvable)))
    return Equations(
        np.concatenate([eqs.rows] + new_rows), np.concatenate([eqs.cols] + new_cols),
        np.concatenate([eqs.preferred, np.ones(size, bool)]),
        np.concatenate([eqs.explicit] + new_explicit),
        # d/dt of an equation affine in its variables is affine in their derivatives.
        np.concatenate([eqs.linear, eqs.linear[list(reduction.new_eqs)]]),
        eqs.blocks, eqs.n_template, eqs.through, eqs.n_eq + len(new_rows),
        tuple(reduction.new_eqs), eqs.combos)


def _settle(aliases: AliasMap, eqs: Equations, reduction: IndexReduction, match=None) -> Reduced:
    """The position and unknown spaces once the dummy states are chosen (and ``match``, a
    perfect matching of the equations to the unknowns if one is known)."""
    names = aliases.names + tuple(f"der({aliases.names[b]})" for b in reduction.new_vars)
    dummies = set(reduction.dummies)
    states = np.array([p for p in aliases.derivative if p not in dummies], dtype=np.int64)
    is_state = np.zeros(len(names), bool)
    is_state[states] = True
    # int32 where they fit: a million-element model's three million positions, kept through the
    # explicit solutions and the emission
    index = index_dtype(len(names))
    unknown = np.full(len(names), -1, dtype=index)
    unknown[~is_state] = np.arange(int((~is_state).sum()))
    return Reduced(eqs, names, dict(reduction.var_derivative), tuple(reduction.new_vars),
                   tuple(reduction.new_eqs), tuple(reduction.dummies), states, unknown,
                   np.flatnonzero(~is_state).astype(index), None if match is None else match.astype(index))


def _augmented_jacobian(reduction, jac: CSR, n_pos) -> CSR:
    """The base Jacobian with a row per derivative equation (derivative equations share their
    base equations' coefficients, on the derivatives of the variables)."""
    der = reduction.var_derivative
    rows, cols, vals = [jac.row_of_entries()], [jac.indices], [jac.data]
    base_rows = jac.shape[0]
    for i, base in enumerate(reduction.new_eqs):
        lo, hi = jac.indptr[base], jac.indptr[base + 1]
        for v, a in zip(jac.indices[lo:hi].tolist(), jac.data[lo:hi].tolist()):
            if v in der:
                rows.append([base_rows + i]), cols.append([der[v]]), vals.append([a])
    return CSR.from_entries(np.concatenate(rows), np.concatenate(cols),
                            (base_rows + len(reduction.new_eqs), n_pos + len(reduction.new_vars)),
                            np.concatenate(vals))


def _sound_dummies(reduction, jac, derivative, n_pos, adjacency):
    """Dummy states whose choice leaves the equations numerically solvable.

    The structural choice can be singular: two capacitors in parallel have the same pattern,
    and keeping both as states while a third becomes dummy matches every equation yet fixes
    no node voltage. So the Jacobian of the reduced system is checked at the start point, and
    a singular choice is repaired by swapping dummies for other states of the differentiated
    equations."""
    # SciPy's sparse LU, imported here: only index reduction needs it, and it takes a third
    # of a second to import.
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla

    augmented = _augmented_jacobian(reduction, jac, n_pos)
    full = sps.csr_matrix((augmented.data, augmented.indices, augmented.indptr), shape=augmented.shape)
    n_total = full.shape[1]

    def solvable(dummies):
        kept = set(derivative) - set(dummies)
        square = full[:, [c for c in range(n_total) if c not in kept]]
        if square.shape[0] != square.shape[1]:
            return False
        try:
            lu = spla.splu(square.tocsc())
        except RuntimeError:
            return False
        diag = np.abs(lu.U.diagonal())
        return diag.min() > 1e-12 * diag.max()

    dummies = list(reduction.dummies)
    if solvable(dummies):
        return dummies
    candidates = sorted({v for e in set(reduction.new_eqs) for v in adjacency[e] if v in derivative}
                        - set(dummies))
    for i in range(len(dummies)):
        for c in candidates:
            trial = dummies[:i] + [c] + dummies[i + 1:]
            if solvable(trial):
                return sorted(trial)
    return dummies          # no better choice found: the singularity is reported at runtime
