"""From a flat system to a semi-explicit index-1 DAE as CasADi functions.

Pipeline: alias elimination; matching and block-lower-triangular (BLT) ordering on sparse
incidence matrices, with index reduction where constraints tie states together; emission.
Every class's equations are instantiated with one mapped CasADi call per class; scalar blocks
that are linear in their unknown (with a coefficient that cannot vanish) are solved explicitly
and substituted away in one pass, so an RC ladder becomes a pure ODE; the remaining blocks
(algebraic loops, nonlinear equations, differentiated constraints) stay as algebraic equations
0 = g(x, z, p, t) for the DAE solver.
"""
from __future__ import annotations

import gc
import logging
import time as _time
from dataclasses import dataclass

import casadi as cs
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import maximum_bipartite_matching

from ..core.errors import StructuralError
from .aliases import eliminate_aliases
from .compiled import CompiledModel, DaeSystem
from .flatten import FlatSystem, flatten
from .index_reduction import IndexReduction, reduce_index
from .model import Model
from .structure import diagnose, match_and_order
from .tearing import tear_block

log = logging.getLogger(__name__)


def compile_model(model: Model) -> CompiledModel:
    started = _time.perf_counter()
    # Compiling allocates many small objects and frees none of them early: the cyclic garbage
    # collector would only rescan them (about 20% of the time at 10,000 stages).
    collecting = gc.isenabled()
    gc.disable()
    try:
        flat = flatten(model)
        system = _emit(flat)
    finally:
        if collecting:
            gc.enable()
    log.info("compiled %s in %.3f s", model.name, _time.perf_counter() - started)
    return CompiledModel(flat, system)


@dataclass
class _Equations:
    """All equations after alias elimination, as sparse incidence over representative positions."""

    rows: np.ndarray
    cols: np.ndarray
    preferred: np.ndarray      # edge may be used by the matching without risk
    explicit: np.ndarray       # equation can be solved for this variable by one division
    blocks: list[tuple[int, int, int]]   # (group, residual, first equation id) per template block
    n_template: int
    through: sps.csr_matrix    # connection sums over representative positions
    n_eq: int
    linear: np.ndarray         # equation is affine in its variables (no modes)
    derivative_of: list[int] = None   # base equation of each equation added by index reduction
    combos: dict = None        # equation -> Combination replacing it (hidden dependencies)

    def incidence(self, mask, n_cols, col_map=None) -> sps.csr_matrix:
        cols = self.cols[mask] if col_map is None else col_map[self.cols[mask]]
        keep = cols >= 0
        m = sps.csr_matrix((np.ones(keep.sum()), (self.rows[mask][keep], cols[keep])),
                           shape=(self.n_eq, n_cols))
        m.sum_duplicates()
        return m


def _emit(flat: FlatSystem) -> DaeSystem:
    names = flat.var_names
    rep, sign, state_ids, der_ids, demoted = _aliases(flat)
    reps = np.flatnonzero(rep == np.arange(len(names)))
    col = np.full(len(names), -1, dtype=np.int64)
    col[reps] = np.arange(len(reps))
    col = col[rep]                               # raw variable -> representative position
    rep_names = [names[i] for i in reps]

    combos: dict[int, Combination] = {}
    for _ in range(MAX_COMBINATION_ROUNDS):
        pos_names = list(rep_names)
        eqs = _equations(flat, col, sign, len(reps), combos, demoted)
        describe_eq = EquationDescriber(flat, eqs, names, demoted)
        derivative = {int(col[s]): int(col[d]) for s, d in zip(state_ids, der_ids)}
        def base_jacobian() -> sps.csr_matrix:
            """Numeric Jacobian of the equations at the start values and compiled-in parameters."""
            Rb, Pb, Tb = cs.SX.sym("r", len(reps)), cs.SX.sym("p", len(flat.param_names)), cs.SX.sym("t")
            _, params_b, res = _instantiate(flat, eqs, Rb, Pb, Tb, col, sign)
            start = cs.Function("start", [Pb, Tb], [_start_values(flat, params_b, Tb)[reps.tolist()]])
            jac = cs.Function("base_jacobian", [Rb, Pb, Tb], [cs.jacobian(res, Rb)])
            values = jac(start(flat.param_values, 0.0), flat.param_values, 0.0)
            return sps.csr_matrix(values.sparse())

        reduction = _reduce_index_if_needed(eqs, len(reps), derivative, describe_eq, pos_names,
                                            base_jacobian)
        states = [p for p in derivative if p not in set(reduction.dummies)]
        n_pos = len(reps) + len(reduction.new_vars)
        for base in reduction.new_vars:
            pos_names.append(f"der({pos_names[base]})")

        is_state = np.zeros(n_pos, bool)
        is_state[states] = True
        unknown = np.full(n_pos, -1, dtype=np.int64)
        unknown[~is_state] = np.arange((~is_state).sum())
        unknown_pos = np.flatnonzero(~is_state)
        all_edges = np.ones(len(eqs.rows), bool)
        order = match_and_order(eqs.incidence(all_edges, len(unknown_pos), unknown),
                                eqs.incidence(eqs.preferred, len(unknown_pos), unknown), describe_eq,
                                lambda u: pos_names[unknown_pos[u]])
        target, explicit_rank, z_unknowns, g_eqs, n_loops, linear_blocks = _tear(
            order, eqs, unknown, len(unknown_pos))
        is_explicit = explicit_rank >= 0

        # --- symbolic system ----------------------------------------------------------------------
        R = cs.SX.sym("r", n_pos)
        P = cs.SX.sym("p", len(flat.param_names))
        T = cs.SX.sym("t")
        locals_sx, params_sx, base_residuals = _instantiate(flat, eqs, R, P, T, col, sign)
        residuals = cs.vertcat(base_residuals, _derivative_residuals(flat, eqs, reduction, R, locals_sx,
                                                                     params_sx, T, col, sign))

        def start_values(params, t, params_sx=params_sx, n_new=len(reduction.new_vars)):
            start = cs.vertcat(_start_values(flat, params_sx, T)[reps.tolist()], cs.DM.zeros(n_new))
            return cs.Function("start_values", [P, T], [start])(params, t)

        hidden = _hidden_dependencies(order, eqs, residuals, R, P, T, unknown_pos, start_values,
                                      flat.param_values, combos)
        if not hidden:
            break
        log.info("hidden dependencies: %s", [describe_eq(e) for e in hidden])
        combos.update(hidden)
    else:
        # Every round found more dependent equations: compiling the last round's system would
        # silently keep dependencies it has not reduced.
        raise StructuralError(
            f"{flat.name}: after {MAX_COMBINATION_ROUNDS} rounds of reduction the equations still "
            "depend on each other numerically (" + "; ".join(describe_eq(e) for e in list(hidden)[:6])
            + "). Ideal elements in parallel or in loops whose dependency needs more rounds: merge "
            "them or add a small series resistance")

    target_pos = np.where(target >= 0, unknown_pos[np.maximum(target, 0)], -1)
    value_ids, values = _explicit_solutions(flat, eqs, is_explicit, target_pos, locals_sx, params_sx,
                                            T, col, sign, R, reduction)
    # Definitions of solved variables in evaluation order: explicit equations, then small
    # linear loops solved as a whole, interleaved by block.
    where = np.empty(eqs.n_eq, dtype=np.int64)
    where[value_ids] = np.arange(len(value_ids))
    expl_eqs = np.flatnonzero(is_explicit)
    keys = [order.block[expl_eqs]], [explicit_rank[expl_eqs]]
    positions, defs = [target_pos[expl_eqs]], [values[where[expl_eqs].tolist()]]
    for label, members, block_unknowns in linear_blocks:
        block_pos = unknown_pos[block_unknowns].tolist()
        res = residuals[list(members)]
        A = cs.jacobian(res, R[block_pos])
        b = cs.substitute(res, R[block_pos], cs.DM.zeros(len(block_pos)))
        nominal = cs.Function("nominal", [R, P, T], [A])(0, flat.param_values, 0)
        defs.append(_pivoted_solve(A, -b, np.array(cs.DM(nominal))))
        positions.append(np.array(block_pos))
        keys[0].append(np.full(len(block_pos), label))
        keys[1].append(np.arange(len(block_pos)))
    eval_order = np.lexsort((np.concatenate(keys[1]), np.concatenate(keys[0])))
    v = R[np.concatenate(positions)[eval_order].tolist()]
    vdef = cs.densify(cs.vertcat(*defs)[eval_order.tolist()]) if len(eval_order) else cs.SX(0, 1)

    g_expr = residuals[g_eqs.tolist()] if len(g_eqs) else cs.SX(0, 1)   # (a 1x1 indexed by [] is 1x0)
    z_pos = unknown_pos[z_unknowns]

    energy, energy_owner = _per_component(flat, "energy_function", locals_sx, params_sx, T,
                                          lambda out: out.T)
    dissipation, dissipation_owner = _per_component(flat, "power_dissipation_function", locals_sx,
                                                    params_sx, T, lambda out: (out[0, :] * out[1, :]).T)
    guards, guard_owner = _rows(flat, "guard_function", locals_sx, params_sx, T,
                                lambda tpl: range(len(tpl.guards)))
    n_c = lambda tpl: len(tpl.constraints)  # noqa: E731
    constraint_expr, constraint_owner = _rows(flat, "constraint_function", locals_sx, params_sx, T,
                                              lambda tpl: range(n_c(tpl)))
    constraint_active, _ = _rows(flat, "constraint_function", locals_sx, params_sx, T,
                                 lambda tpl: range(n_c(tpl), 2 * n_c(tpl)))
    restitution, _ = _rows(flat, "constraint_function", locals_sx, params_sx, T,
                           lambda tpl: range(2 * n_c(tpl), 3 * n_c(tpl)))
    if len(eval_order):
        _, (g_expr, all_values, energy, dissipation, guards, constraint_expr, constraint_active,
            restitution) = cs.substitute_inplace(
                [v], [vdef], [g_expr, R, energy, dissipation, guards, constraint_expr,
                              constraint_active, restitution], False)
    else:
        all_values = R

    state_pos = np.array(states, dtype=np.int64)
    der_pos = np.array([reduction.var_derivative[s] for s in states], dtype=np.int64)
    x, z = R[state_pos.tolist()], R[z_pos.tolist()]
    f = all_values[der_pos.tolist()] if len(der_pos) else cs.SX(0, 1)

    # Representatives are their own raw variables (sign +1), so their start is their own;
    # derivatives created by index reduction start at zero.
    start = cs.vertcat(_start_values(flat, params_sx, T)[reps.tolist()],
                       cs.DM.zeros(len(reduction.new_vars)))

    inputs, in_names = [x, z, P, T], ["x", "z", "p", "t"]
    # The equation each non-state position is solved from, and its block (evaluation order):
    # a variable that is not finite at the start is traced to the first equation that failed.
    defining = np.full(n_pos, -1, dtype=np.int64)
    defining_block = np.full(n_pos, -1, dtype=np.int64)
    matched = np.flatnonzero(order.match >= 0)
    defining[unknown_pos[order.match[matched]]] = matched
    defining_block[unknown_pos[order.match[matched]]] = order.block[matched]
    checked, reasons = _explicit_starts(flat, rep, col, set(states), reduction, eqs, describe_eq, pos_names)
    requested = _start_values(flat, params_sx, T)[checked.tolist()] if len(checked) else cs.SX(0, 1)
    reached = all_values[col[checked].tolist()] * cs.DM(sign[checked]) if len(checked) else cs.SX(0, 1)
    return DaeSystem(
        start_check=cs.Function("start_check", inputs, [requested, reached]),
        start_check_info=[(names[int(v)], reason) for v, reason in zip(checked, reasons)],
        defining_equation=defining, defining_block=defining_block, describe_equation=describe_eq,
        dae=cs.Function("dae", inputs, [f, g_expr], in_names, ["ode", "alg"]),
        outputs=cs.Function("outputs", inputs, [all_values], in_names, ["values"]),
        start=cs.Function("start", [P, T], [start], ["p", "t"], ["start"]),
        energy=cs.Function("energy", inputs, [energy]),
        dissipation=cs.Function("dissipation", inputs, [dissipation]),
        energy_owner=energy_owner, dissipation_owner=dissipation_owner,
        guards=cs.Function("guards", inputs, [guards]), guard_owner=guard_owner,
        constraints=cs.Function("constraints", inputs, [constraint_expr, constraint_active, restitution]),
        constraint_owner=constraint_owner,
        state_pos=state_pos, z_pos=z_pos, position_names=pos_names, var_col=col, var_sign=sign,
        stats=_stats(flat, eqs, len(eval_order), n_loops, len(demoted)),
        differentiated=[describe_eq(e) for e in reduction.new_eqs],
        dummy_states=[pos_names[d] for d in reduction.dummies],
    )


def _explicit_starts(flat, rep, col, states, reduction, eqs, describe_eq, pos_names):
    """Variables whose start value the user gave explicitly (a parameter such as v0 passed to
    the component) but which are not independent states after reduction: the constraints
    decide their start, so it is checked at the start of a run. Returns their raw ids and,
    for each, which constraint decides it."""
    ids, reasons = [], []
    for g in flat.groups:
        tpl = g.template
        uses = {l: {s.name for s in expr.free_symbols} & set(tpl.param_names) for l, expr in tpl.initial.items()}
        uses = {l: names for l, names in uses.items() if names}
        if not uses:
            continue
        for k, comp in enumerate(g.components):
            for l, names in uses.items():
                given = sorted(names & comp._given)
                raw = int(g.var_ids[k, l])
                if not given or (rep[raw] == raw and int(col[raw]) in states):
                    continue
                ids.append(raw)
                reasons.append((f"{g.paths[k]}.{given[0]}" if len(given) == 1 else
                                f"{g.paths[k]} ({', '.join(given)})",
                                _what_decides(int(col[raw]), states, reduction, eqs, describe_eq, pos_names)))
    return np.array(ids, dtype=np.int64), reasons


def _what_decides(pos, states, reduction, eqs, describe_eq, pos_names) -> str:
    """Why the variable at representative position ``pos`` is not a free state (for messages)."""
    if pos in states:
        return f"it is the same variable as the state {pos_names[pos]}"
    if pos in reduction.dummies:
        # The differentiated constraints linked to it through shared variables (a capacitor
        # across a source: the capacitor's and the source's voltage equations, the ground).
        variables = {base: set(eqs.cols[eqs.rows == base].tolist()) for base in reduction.new_eqs}
        reached, linked, grew = {pos}, [], True
        while grew:
            grew = False
            for base, vs in variables.items():
                if base not in linked and vs & reached:
                    linked.append(base)
                    reached |= vs
                    grew = True
        return "constraints fix it: " + "; ".join(describe_eq(e) for e in linked[:6])
    users = sorted(set(eqs.rows[eqs.cols == pos].tolist()))
    return "the equations fix it: " + "; ".join(describe_eq(e) for e in users[:6])


def _instantiate(flat, eqs, R, P, T, col, sign):
    """Each class's equations for all its instances (one mapped call per class), plus the
    connection sums: the locals and parameters per group, and the residuals of all equations
    that are not derivatives added by index reduction."""
    locals_sx, params_sx, parts = [], [], []
    for g in flat.groups:
        tpl, k = g.template, len(g.paths)
        L = cs.reshape(R[col[g.var_ids].T.flatten(order="F").tolist()], len(tpl.local_names), k) \
            * cs.DM(sign[g.var_ids].T)
        npar = tpl.n_inputs
        Pm = cs.reshape(P[g.param_ids.T.flatten(order="F").tolist()], npar, k) if npar else cs.DM(0, k)
        locals_sx.append(L)
        params_sx.append(Pm)
        if tpl.residuals:
            parts.append(cs.vec(tpl.residual_function.map(k)(L, Pm, T).T))
    through = eqs.through[:, :R.numel()] if eqs.through.shape[1] > R.numel() else eqs.through
    parts.append(cs.mtimes(cs.DM(through), R[:through.shape[1]]) if through.shape[0] else cs.SX(0, 1))
    residuals = cs.vertcat(*parts)
    return locals_sx, params_sx, _combine(residuals, eqs.combos, R)


def _combine(residuals, combos, R, cancelled_of=lambda combo: combo.cancelled):
    """Replace each combined equation by its combination, without the cancelled unknowns
    (whose coefficients are zero up to rounding)."""
    if not combos:
        return residuals
    replaced = {}
    for e, combo in combos.items():
        expr = sum((float(w) * residuals[int(m)] for m, w in zip(combo.members, combo.weights)),
                   cs.SX(0))
        gone = [int(c) for c in cancelled_of(combo) if 0 <= c < R.numel()]
        if gone:
            expr = cs.substitute(expr, R[gone], cs.DM.zeros(len(gone)))
        replaced[int(e)] = expr
    out = cs.SX(residuals)
    for e, expr in replaced.items():
        out[e] = expr
    return out


def _start_values(flat, params_sx, T):
    """Start value of every raw variable (states at their initial values)."""
    parts = []
    for gi, g in enumerate(flat.groups):
        tpl, k = g.template, len(g.paths)
        parts.append(cs.vec(tpl.start_function.map(k)(
            cs.DM.zeros(len(tpl.local_names), k), params_sx[gi], T)))
    return cs.vertcat(*parts)


def _aliases(flat):
    """Representatives and signs of all variables; states and their derivatives (representatives);
    alias pairs kept as equations (see :func:`eliminate_aliases`)."""
    pairs = [flat.equalities]
    states, ders = [], []
    for g in flat.groups:
        tpl, k = g.template, len(g.paths)
        for a, b, s in tpl.aliases:
            pairs.append(np.column_stack([g.var_ids[:, a], g.var_ids[:, b], np.full(k, s)]))
        for d, x in tpl.der_of.items():
            states.append(g.var_ids[:, x])
            ders.append(g.var_ids[:, d])
    two_member = [s for s in flat.through_sums if len(s) == 2]
    if two_member:
        ts = np.array(two_member)
        pairs.append(np.column_stack([ts[:, 0], ts[:, 1], -np.ones(len(ts))]))
    state_ids = np.concatenate(states) if states else np.zeros(0, np.int64)
    der_ids = np.concatenate(ders) if ders else np.zeros(0, np.int64)
    aliases = eliminate_aliases(len(flat.var_names), np.concatenate(pairs), state_ids, der_ids,
                                flat.var_names)
    # States tied to another state are aliases of it now; only representatives stay states.
    keep = aliases.rep[state_ids] == state_ids
    return aliases.rep, aliases.sign, state_ids[keep], der_ids[keep], aliases.demoted


@dataclass
class Combination:
    """An equation replaced by a combination of several: ``sum w_e·F_e = 0``, in which the
    unknowns ``cancelled`` drop out. Found where equations are numerically dependent on the
    unknowns of their block (capacitors in parallel between free nodes): the combination is
    a constraint between states, which index reduction then differentiates."""

    members: np.ndarray
    weights: np.ndarray
    cancelled: np.ndarray


def _linear_rows(flat, demoted):
    """Linear equations over raw variables outside the class templates, as (ids, coefficients)
    per row: connection sums of three or more members (each coefficient 1), then alias pairs
    kept as equations (x_a − s·x_b = 0)."""
    rows = [(np.asarray(s), np.ones(len(s))) for s in flat.through_sums if len(s) != 2]
    rows += [(np.array([int(a), int(b)]), np.array([1.0, -s])) for a, b, s in demoted]
    return rows


def _equations(flat, col, sign, n_pos, combos: dict, demoted) -> _Equations:
    rows, cols, pref, expl, blocks, linear = [], [], [], [], [], []
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
            blocks.append((gi, j, base))
            base += k
    n_template = base
    big = _linear_rows(flat, demoted)
    if big:
        sum_rows = np.concatenate([np.full(len(ids), i) for i, (ids, _) in enumerate(big)])
        sum_vars = np.concatenate([ids for ids, _ in big])
        coeffs = np.concatenate([c for _, c in big])
        through = sps.csr_matrix((coeffs * sign[sum_vars], (sum_rows, col[sum_vars])),
                                 shape=(len(big), n_pos))
        through.eliminate_zeros()
        tc = through.tocoo()
        rows.append(n_template + tc.row)
        cols.append(tc.col)
        pref.append(np.ones(len(tc.row), bool))
        expl.append(np.ones(len(tc.row), bool))
    else:
        through = sps.csr_matrix((0, n_pos))
    cat = lambda xs, dtype: np.concatenate(xs) if xs else np.zeros(0, dtype)  # noqa: E731
    linear.append(np.ones(through.shape[0], bool))
    eqs = _Equations(cat(rows, np.int64), cat(cols, np.int64), cat(pref, bool), cat(expl, bool),
                     blocks, n_template, through, n_template + through.shape[0], cat(linear, bool),
                     combos=dict(combos))
    for e, combo in combos.items():
        members = np.isin(eqs.rows, combo.members)
        variables = np.setdiff1d(np.unique(eqs.cols[members]), combo.cancelled)
        keep = eqs.rows != e
        eqs.rows = np.concatenate([eqs.rows[keep], np.full(len(variables), e)])
        eqs.cols = np.concatenate([eqs.cols[keep], variables])
        eqs.preferred = np.concatenate([eqs.preferred[keep], np.ones(len(variables), bool)])
        eqs.explicit = np.concatenate([eqs.explicit[keep], np.zeros(len(variables), bool)])
        eqs.linear[e] = True
    return eqs


def _reduce_index_if_needed(eqs: _Equations, n_pos, derivative, describe_eq, pos_names,
                            base_jacobian) -> IndexReduction:
    """Run Pantelides' algorithm when the equations cannot all be matched to non-states."""
    none = IndexReduction(dict(derivative))
    everything = np.ones(len(eqs.rows), bool)
    unknown = np.full(n_pos, -1, dtype=np.int64)
    non_states = np.array([p for p in range(n_pos) if p not in derivative], dtype=np.int64)
    unknown[non_states] = np.arange(len(non_states))
    inc = eqs.incidence(everything, len(non_states), unknown)
    match = maximum_bipartite_matching(inc, perm_type="column") if eqs.n_eq and len(non_states) \
        else np.full(eqs.n_eq, -1)
    if np.all(match >= 0) and eqs.n_eq == len(non_states):
        return none
    # Differentiation only helps if the system is nonsingular once each state is identified
    # with its derivative; otherwise it is genuinely over- or under-determined.
    merged = unknown.copy()
    for state in derivative:
        top = state
        while top in derivative:
            top = derivative[top]
        merged[state] = unknown[top]
    merged_inc = eqs.incidence(everything, len(non_states), merged)
    merged_match = maximum_bipartite_matching(merged_inc, perm_type="column") \
        if eqs.n_eq and len(non_states) else np.full(eqs.n_eq, -1)
    if eqs.n_eq != len(non_states) or np.any(merged_match < 0):
        state_of = {int(unknown[d]): pos_names[s] for s, d in derivative.items() if unknown[d] >= 0}
        diagnose(merged_inc, describe_eq, lambda u: state_of.get(u, pos_names[non_states[u]]))
    full = eqs.incidence(np.ones(len(eqs.rows), bool), n_pos).tocsr()
    adjacency = [full.indices[full.indptr[e]:full.indptr[e + 1]].tolist() for e in range(eqs.n_eq)]
    initial = [int(non_states[m]) if m >= 0 else -1 for m in match]
    reduction = reduce_index(adjacency, n_pos, derivative, set(derivative), initial, describe_eq)
    reduction.dummies = _sound_dummies(reduction, base_jacobian(), derivative, n_pos, adjacency)
    new_rows = [np.full(len(a), eqs.n_eq + i) for i, a in enumerate(reduction.new_adjacency)]
    if new_rows:
        new_cols = [np.array(a, dtype=np.int64) for a in reduction.new_adjacency]
        size = sum(len(r) for r in new_rows)
        # The derivative of an equation explicit in x (constant coefficient) is explicit in
        # der(x) with the same coefficient, unless der(x) already occurs in the equation.
        explicit_csr = eqs.incidence(eqs.explicit, n_pos).tocsr()
        der = reduction.var_derivative
        new_explicit = []
        for base, cols in zip(reduction.new_eqs, new_cols):
            solvable = {der[c] for c in explicit_csr.indices[explicit_csr.indptr[base]:
                                                             explicit_csr.indptr[base + 1]].tolist()
                        if c in der} - set(adjacency[base])
            new_explicit.append(np.isin(cols, list(solvable)))
        eqs.rows = np.concatenate([eqs.rows] + new_rows)
        eqs.cols = np.concatenate([eqs.cols] + new_cols)
        eqs.preferred = np.concatenate([eqs.preferred, np.ones(size, bool)])
        eqs.explicit = np.concatenate([eqs.explicit] + new_explicit)
        eqs.n_eq += len(new_rows)
        # d/dt of an equation affine in its variables is affine in their derivatives.
        eqs.linear = np.concatenate([eqs.linear, eqs.linear[reduction.new_eqs]])
        eqs.derivative_of = list(reduction.new_eqs)
        t = eqs.through     # room for the new derivative variables
        eqs.through = sps.csr_matrix((t.data, t.indices, t.indptr),
                                     shape=(t.shape[0], n_pos + len(reduction.new_vars)))
    log.info("index reduction: differentiated %d equations; dummy states %s",
             len(reduction.new_eqs), [pos_names[d] for d in reduction.dummies])
    return reduction


def _sound_dummies(reduction, jac, derivative, n_pos, adjacency):
    """Dummy states whose choice leaves the equations numerically solvable.

    The structural choice can be singular: two capacitors in parallel have the same pattern,
    and keeping both as states while a third becomes dummy matches every equation yet fixes
    no node voltage. So the Jacobian of the reduced system (derivative equations share their
    base equations' coefficients) is checked at the start point, and a singular choice is
    repaired by swapping dummies for other states of the differentiated equations."""
    der = reduction.var_derivative
    n_total = n_pos + len(reduction.new_vars)
    jac = jac.tocoo()
    rows, cols, vals = [jac.row], [jac.col], [jac.data]
    base_rows = jac.shape[0]
    jac_csr = jac.tocsr()
    for i, base in enumerate(reduction.new_eqs):
        lo, hi = jac_csr.indptr[base], jac_csr.indptr[base + 1]
        for v, a in zip(jac_csr.indices[lo:hi].tolist(), jac_csr.data[lo:hi].tolist()):
            if v in der:
                rows.append([base_rows + i]), cols.append([der[v]]), vals.append([a])
    full = sps.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(base_rows + len(reduction.new_eqs), n_total))

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


def _derivative_residuals(flat, eqs, reduction, R, locals_sx, params_sx, T, col, sign):
    """Time derivatives of the equations that index reduction differentiated, in their order."""
    if not reduction.new_eqs:
        return cs.SX(0, 1)
    der = reduction.var_derivative
    combos = eqs.combos or {}
    needed = sorted({int(m) for e in reduction.new_eqs for m in
                     (combos[e].members if e in combos else [e])})
    derived = dict(zip(needed, cs.vertsplit(
        _derivatives_of(flat, eqs, needed, der, R, locals_sx, params_sx, T, col, sign))))
    out = []
    for e in reduction.new_eqs:
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


def _derivatives_of(flat, eqs, base_ids, der, R, locals_sx, params_sx, T, col, sign):
    """d/dt of the listed template or connection equations, as one SX vector in that order."""
    R0 = cs.vertcat(R, 0)                       # the last entry reads zero (no derivative)
    out = [None] * len(base_ids)
    template_parts: dict[tuple[int, int], list[tuple[int, int]]] = {}
    block_starts = [b for _, _, b in eqs.blocks]
    for i, e in enumerate(base_ids):
        if e < eqs.n_template:
            bi = int(np.searchsorted(block_starts, e, side="right")) - 1
            gi, j, base = eqs.blocks[bi]
            template_parts.setdefault((gi, j), []).append((i, e - base))
        else:
            row = eqs.through[e - eqs.n_template].tocoo()
            out[i] = sum((float(c) * R0[der.get(int(p), R0.numel() - 1)] for c, p in zip(row.data, row.col)),
                         cs.SX(0))
    for (gi, j), items in template_parts.items():
        g = flat.groups[gi]
        ks = [k for _, k in items]
        Ldot = _local_derivatives(g, ks, col, sign, der, R0)
        vals = g.template.derivative_function(j).map(len(ks))(
            locals_sx[gi][:, ks], Ldot, params_sx[gi][:, ks], T)
        for (i, _), c in zip(items, range(len(ks))):
            out[i] = vals[0, c]
    return cs.vertcat(*out)


def _local_derivatives(g, ks, col, sign, der, R0):
    """d/dt of the locals of instances ``ks`` of group ``g`` (zero where none exists)."""
    ids = col[g.var_ids[ks]]
    missing = R0.numel() - 1
    dot_idx = np.vectorize(lambda p: der.get(int(p), missing))(ids) if ids.size else ids
    return cs.reshape(R0[dot_idx.T.flatten(order="F").tolist()], ids.shape[1], len(ks)) \
        * cs.DM(sign[g.var_ids[ks]].T)


def _explicit_solutions(flat, eqs, is_explicit, target_pos, locals_sx, params_sx, T, col,
                        sign, R, reduction) -> tuple[np.ndarray, cs.SX]:
    """The value of the variable each explicit equation is solved for, one mapped call per
    (class, equation, variable); returns the equation ids and their values as one vector."""
    expl_eqs = np.flatnonzero(is_explicit)
    ids, parts = [], []
    for gi, j, base in eqs.blocks:
        g = flat.groups[gi]
        k = len(g.paths)
        sel = expl_eqs[(expl_eqs >= base) & (expl_eqs < base + k)]
        if not len(sel):
            continue
        inst = sel - base
        target = target_pos[sel]
        for l in sorted(g.template.explicit[j]):
            hit = col[g.var_ids[inst, l]] == target
            if not hit.any():
                continue
            ks = inst[hit].tolist()
            sol = g.template.solution_function(j, l).map(len(ks))(
                locals_sx[gi][:, ks], params_sx[gi][:, ks], T)
            ids.append(sel[hit])
            parts.append(sol.T * cs.DM(sign[g.var_ids[inst[hit], l]]))
    through_expl = expl_eqs[(expl_eqs >= eqs.n_template) & (expl_eqs < eqs.through.shape[0] + eqs.n_template)]
    if len(through_expl):
        # sum_r c_r x_r = 0 solved for the matched x_u: x_u = -sum_{r != u} (c_r / c_u) x_r
        sub = eqs.through[through_expl - eqs.n_template]
        srows = sub.tocoo()
        target = target_pos[through_expl]
        coeff = np.asarray(sub[np.arange(len(target)), target]).ravel()
        other = srows.col != target[srows.row]
        solve = sps.csr_matrix((-srows.data[other] / coeff[srows.row[other]],
                                (srows.row[other], srows.col[other])), shape=srows.shape)
        ids.append(through_expl)
        parts.append(cs.mtimes(cs.DM(solve), R))
    n_base = eqs.n_template + eqs.through.shape[0]
    derived = expl_eqs[expl_eqs >= n_base]
    if len(derived):
        d_ids, d_parts = _explicit_derivative_solutions(flat, eqs, derived, target_pos, locals_sx,
                                                        params_sx, T, col, sign, R, reduction)
        ids.append(d_ids)
        parts.append(d_parts)
    if not ids:
        return np.zeros(0, np.int64), cs.SX(0, 1)
    return np.concatenate(ids), cs.vertcat(*parts)


def _explicit_derivative_solutions(flat, eqs, derived, target_pos, locals_sx, params_sx, T, col,
                                   sign, R, reduction):
    """Explicit solutions of equations that index reduction differentiated (see
    :func:`_explicit_solutions`)."""
    der = reduction.var_derivative
    R0 = cs.vertcat(R, 0)
    n_base = eqs.n_template + eqs.through.shape[0]
    starts = [b for _, _, b in eqs.blocks]
    groups: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    ids, parts = [], []
    for d in derived.tolist():
        base, u = eqs.derivative_of[d - n_base], int(target_pos[d])
        if base >= eqs.n_template:          # a connection sum: sum_r c_r der(x_r) = 0
            row = eqs.through[base - eqs.n_template].tocoo()
            terms = {der[int(r)]: float(c) for c, r in zip(row.data, row.col)}
            ids.append([d])
            parts.append(-sum((c * R[v] for v, c in terms.items() if v != u), cs.SX(0)) / terms[u])
            continue
        gi, j, start = eqs.blocks[int(np.searchsorted(starts, base, side="right")) - 1]
        g, k = flat.groups[gi], base - start
        l = next(l for l in g.template.explicit[j] if der.get(int(col[g.var_ids[k, l]])) == u)
        groups.setdefault((gi, j, l), []).append((d, k))
    for (gi, j, l), items in groups.items():
        g = flat.groups[gi]
        ks = [k for _, k in items]
        sol = g.template.derivative_solution_function(j, l).map(len(ks))(
            locals_sx[gi][:, ks], _local_derivatives(g, ks, col, sign, der, R0), params_sx[gi][:, ks], T)
        ids.append([d for d, _ in items])
        parts.append(sol.T * cs.DM(sign[g.var_ids[ks, l]]))
    return np.concatenate([np.asarray(i, dtype=np.int64) for i in ids]), cs.vertcat(*parts)


MAX_COMBINATION_ROUNDS = 4  # rounds of finding dependent equations and reducing again
DEPENDENCY_CHECK_LIMIT = 200  # largest linear loop checked numerically for dependent equations
SYMBOLIC_SOLVE_LIMIT = 12   # largest linear loop solved symbolically (elimination grows as n³)


def _hidden_dependencies(order, eqs, residuals, R, P, T, unknown_pos, start_values, params,
                         combos) -> dict:
    """Linear loops whose equations are numerically dependent on the loop's unknowns.

    For each, an equation is replaced by the combination in which the unknowns cancel (a left
    null vector of the loop's Jacobian): a constraint between states that structure alone
    could not see. Only combinations that hold for other parameter values too are used."""
    members_of: dict[int, list[int]] = {}
    for e in range(eqs.n_eq):
        members_of.setdefault(int(order.block[e]), []).append(e)
    loops = [m for m in members_of.values()
             if 1 < len(m) <= DEPENDENCY_CHECK_LIMIT and np.all(eqs.linear[m])]
    if not loops:
        return {}
    rows = [e for m in loops for e in m]
    block_vars = [int(unknown_pos[order.match[e]]) for e in rows]
    jac = cs.Function("loop_jacobian", [R, P, T], [cs.jacobian(residuals[rows], R[block_vars])])
    perturbed = params * (1.0 + 0.37 * np.sin(np.arange(len(params)) + 1.0))
    found = {}
    offset = 0
    for m in loops:
        idx = slice(offset, offset + len(m))
        offset += len(m)
        values = [np.array(cs.DM(jac(start_values(pp, 0.0), pp, 0.0)))[idx, idx] for pp in (params, perturbed)]
        _, sing, vt = np.linalg.svd(values[0].T)
        if sing[-1] > 1e-10 * max(sing[0], 1e-300):
            continue
        y = vt[-1]
        if np.linalg.norm(values[1].T @ y) > 1e-9 * np.linalg.norm(values[1]):
            continue                    # the dependency moves with the parameters: not structural
        y = y / y[np.argmax(np.abs(y))]
        y[np.abs(y) < 1e-12] = 0.0
        k = int(m[int(np.argmax(np.abs(y)))])
        if k in combos:
            continue
        used = np.flatnonzero(y)
        found[k] = Combination(np.array(m)[used], y[used],
                               np.array([int(unknown_pos[order.match[e]]) for e in m]))
    return found


def _pivoted_solve(A: cs.SX, b: cs.SX, A_nominal: np.ndarray) -> cs.SX:
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


def _tear(order, eqs: _Equations, unknown, n_unknown):
    """Which variable each equation is solved for explicitly, in which order, and what is left.

    Returns ``target`` (equation -> unknown it is solved for, -1 if none), ``rank`` (order of
    explicit equations within their block, -1 for implicit ones), the algebraic unknowns
    and residual equations that remain for the DAE solver, block by block, the number
    of blocks that need Newton, and the small linear blocks solved symbolically
    (block number, equations, unknowns).
    """
    match = order.match
    incidence = eqs.incidence(np.ones(len(eqs.rows), bool), n_unknown, unknown).tocsr()
    explicit = eqs.incidence(eqs.explicit, n_unknown, unknown).tocsr()
    sizes = np.bincount(order.block, minlength=order.n_blocks)
    single = sizes[order.block] == 1
    n_eq = eqs.n_eq
    target = np.full(n_eq, -1, dtype=np.int64)
    rank = np.full(n_eq, -1, dtype=np.int64)
    if n_eq:
        ok = single & (np.asarray(explicit[np.arange(n_eq), match]).ravel() > 0)
        target[ok] = match[ok]
        rank[ok] = 0
    z_unknowns, g_eqs = [], []
    lone = np.flatnonzero(single & (rank < 0))
    pending = [(int(order.block[e]), [int(e)], None) for e in lone]   # scalar implicit blocks
    multi = np.flatnonzero(~single)
    if len(multi):
        by_block = multi[np.argsort(order.block[multi], kind="stable")]
        splits = np.flatnonzero(np.diff(order.block[by_block])) + 1
        for members in np.split(by_block, splits):
            pending.append((int(order.block[members[0]]), members.tolist(), True))
    linear_blocks = []
    for label, members, is_loop in sorted(pending, key=lambda item: item[0]):
        if is_loop and np.all(eqs.linear[members]) and len(members) <= SYMBOLIC_SOLVE_LIMIT:
            # A small linear loop (inertias coupled by a gear, a few resistors) is solved
            # symbolically, once, by QR: the model stays an ODE.
            linear_blocks.append((label, members, match[members]))
            continue
        if not is_loop or np.all(eqs.linear[members]):
            # Larger linear loops are solved whole (sparse LU with pivoting): tearing them would
            # trade a well-conditioned system for long explicit chains that can cancel badly.
            z_unknowns.extend(int(match[e]) for e in members)
            g_eqs.extend(members)
            continue
        solved, tears, residuals = tear_block(members, match[members].tolist(), incidence, explicit)
        for r, (e, u) in enumerate(solved):
            target[e], rank[e] = u, r
        z_unknowns.extend(tears)
        g_eqs.extend(residuals)
    return (target, rank, np.array(z_unknowns, dtype=np.int64), np.array(g_eqs, dtype=np.int64),
            len(pending) - len(linear_blocks), linear_blocks)


def _stats(flat, eqs: _Equations, n_explicit, n_loops, n_demoted) -> dict:
    """Equation and variable counts before alias elimination (for the summary); alias pairs
    kept as equations (``n_demoted``) are not counted as eliminated."""
    n_alias = len(flat.equalities) + sum(len(g.paths) * len(g.template.aliases) for g in flat.groups) \
        + sum(1 for s in flat.through_sums if len(s) == 2)
    n_through = sum(1 for s in flat.through_sums if len(s) != 2)
    n_template = sum(len(g.paths) * len(g.template.residuals) for g in flat.groups)
    return {"variables": len(flat.var_names), "equations": n_alias + n_through + n_template,
            "alias_equations": n_alias - n_demoted, "explicit": n_explicit, "loops": n_loops}


def _rows(flat, attribute, locals_sx, params_sx, T, rows):
    """Selected rows of a per-instance vector function (guards, constraints) of every instance,
    instance by instance, with their owners as (group, instance, row index) triples."""
    parts, owners = [], []
    for gi, g in enumerate(flat.groups):
        function = getattr(g.template, attribute)
        if function is None:
            continue
        k, selected = len(g.paths), list(rows(g.template))
        out = function.map(k)(locals_sx[gi], params_sx[gi], T)
        parts.append(cs.vec(out[selected, :]))
        owners.extend((gi, inst, j - selected[0]) for inst in range(k) for j in selected)
    return (cs.vertcat(*parts) if parts else cs.SX(0, 1)), owners


def _per_component(flat, attribute, locals_sx, params_sx, T, combine):
    """A per-component quantity (stored energy, dissipated power) and the components it belongs to."""
    parts, owners = [], []
    for gi, g in enumerate(flat.groups):
        function = getattr(g.template, attribute)
        if function is not None:
            parts.append(combine(function.map(len(g.paths))(locals_sx[gi], params_sx[gi], T)))
            owners.extend(g.paths)
    return (cs.vertcat(*parts) if parts else cs.SX(0, 1)), owners


class EquationDescriber:
    """Human-readable description of equation ``e`` for error messages (a class rather than a
    closure, so that a compiled model that keeps it can be pickled)."""

    def __init__(self, flat, eqs: _Equations, names, demoted):
        self.flat, self.eqs, self.names, self.demoted = flat, eqs, names, demoted
        self.starts = [b for _, _, b in eqs.blocks]

    def __call__(self, e) -> str:
        combos = self.eqs.combos
        if combos and e in combos:
            combo = combos[e]
            return "combination (" + " + ".join(f"{w:+.3g}·[{self.plain(int(m))}]"
                                                for m, w in zip(combo.members, combo.weights)) + ")"
        return self.plain(e)

    def plain(self, e) -> str:
        eqs, names = self.eqs, self.names
        if e >= eqs.n_template:
            row = e - eqs.n_template
            if row >= eqs.through.shape[0]:
                return f"d/dt of ({self(eqs.derivative_of[row - eqs.through.shape[0]])})"
            n_sums = eqs.through.shape[0] - len(self.demoted)
            if row >= n_sums:
                a, b, s = self.demoted[row - n_sums]
                return f"{names[int(a)]} = {s:+g}·{names[int(b)]}"
            ids, _ = _linear_rows(self.flat, ())[row]
            return "connection: " + " + ".join(names[i] for i in ids) + " = 0"
        bi = int(np.searchsorted(self.starts, e, side="right")) - 1
        gi, j, base = eqs.blocks[bi]
        g = self.flat.groups[gi]
        if g.template.class_name.startswith("_"):       # internal helper, e.g. a given input value
            return f"the value given to input {g.paths[e - base]}"
        return f"{g.template.class_name} {g.paths[e - base]}: {g.template.residuals[j]} = 0"
