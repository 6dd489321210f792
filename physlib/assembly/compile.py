"""From a flat system to a semi-explicit index-1 DAE as CasADi functions.

Pipeline: alias elimination, matching and block-lower-triangular (BLT) ordering on sparse
incidence matrices, then emission. Every class's equations are instantiated with one mapped
CasADi call per class; scalar blocks that are linear in their unknown (with a coefficient that
cannot vanish) are solved explicitly and substituted away in one pass, so an RC ladder becomes a
pure ODE; the remaining blocks (algebraic loops, nonlinear equations) stay as algebraic
equations 0 = g(x, z, p, t) for the DAE solver.
"""
from __future__ import annotations

import logging
import time as _time

import casadi as cs
import numpy as np
import scipy.sparse as sps

from .aliases import eliminate_aliases
from .compiled import CompiledModel, DaeSystem
from .flatten import FlatSystem, flatten
from .model import Model
from .structure import match_and_order

log = logging.getLogger(__name__)


def compile_model(model: Model) -> CompiledModel:
    started = _time.perf_counter()
    flat = flatten(model)
    system = _emit(flat)
    log.info("compiled %s in %.3f s", model.name, _time.perf_counter() - started)
    return CompiledModel(flat, system)


def _emit(flat: FlatSystem) -> DaeSystem:
    n = len(flat.var_names)
    names = flat.var_names

    # --- aliases --------------------------------------------------------------------------
    pairs = [flat.equalities]
    states, ders = [], []
    for g in flat.groups:
        tpl = g.template
        for a, b, s in tpl.aliases:
            pairs.append(np.column_stack([g.var_ids[:, a], g.var_ids[:, b], np.full(len(g.paths), s)]))
        for d, x in tpl.der_of.items():
            states.append(g.var_ids[:, x])
            ders.append(g.var_ids[:, d])
    two_member = [s for s in flat.through_sums if len(s) == 2]
    if two_member:
        ts = np.array(two_member)
        pairs.append(np.column_stack([ts[:, 0], ts[:, 1], -np.ones(len(ts))]))
    state_ids = np.concatenate(states) if states else np.zeros(0, np.int64)
    der_ids = np.concatenate(ders) if ders else np.zeros(0, np.int64)
    aliases = eliminate_aliases(n, np.concatenate(pairs), state_ids, names)
    rep, sign = aliases.rep, aliases.sign
    reps = aliases.representatives
    pos = np.full(n, -1, dtype=np.int64)
    pos[reps] = np.arange(len(reps))
    col = pos[rep]                      # raw variable -> position of its representative

    is_state = np.zeros(len(reps), bool)
    is_state[col[state_ids]] = True
    unknown = np.full(len(reps), -1, dtype=np.int64)
    unknown[~is_state] = np.arange((~is_state).sum())
    unknown_pos = np.flatnonzero(~is_state)

    # --- equations and incidence -----------------------------------------------------------
    rows, cols, pref, expl = [], [], [], []
    eq_base = 0
    eq_info = []            # (group index, residual index) per block of equations
    for gi, g in enumerate(flat.groups):
        tpl, k = g.template, len(g.paths)
        for j, locals_ in enumerate(tpl.incidence):
            eq_rows = eq_base + np.arange(k)
            local_cols = col[g.var_ids[:, locals_]] if locals_ else np.zeros((k, 0), np.int64)
            for li, l in enumerate(locals_):
                c = local_cols[:, li]
                unique = (local_cols == c[:, None]).sum(axis=1) == 1
                mask = unknown[c] >= 0
                rows.append(eq_rows[mask])
                cols.append(unknown[c[mask]])
                pref.append(np.full(mask.sum(), l not in tpl.risky[j]))
                expl.append((l in tpl.explicit[j]) & unique[mask])
            eq_info.append((gi, j, eq_base))
            eq_base += k
    n_template_eqs = eq_base
    big = [s for s in flat.through_sums if len(s) > 2]
    if big:
        sum_rows = np.concatenate([np.full(len(s), i) for i, s in enumerate(big)])
        sum_vars = np.concatenate(big)
        through = sps.csr_matrix((sign[sum_vars], (sum_rows, col[sum_vars])), shape=(len(big), len(reps)))
        through.eliminate_zeros()
        tc = through.tocoo()
        mask = unknown[tc.col] >= 0
        rows.append(n_template_eqs + tc.row[mask])
        cols.append(unknown[tc.col[mask]])
        pref.append(np.ones(mask.sum(), bool))
        expl.append(np.ones(mask.sum(), bool))
    else:
        through = sps.csr_matrix((0, len(reps)))
    n_eq = n_template_eqs + through.shape[0]
    n_unknown = len(unknown_pos)
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    cols = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    pref = np.concatenate(pref) if pref else np.zeros(0, bool)
    expl = np.concatenate(expl) if expl else np.zeros(0, bool)

    def incidence(mask):
        m = sps.csr_matrix((np.ones(mask.sum()), (rows[mask], cols[mask])), shape=(n_eq, n_unknown))
        m.sum_duplicates()
        return m

    all_edges = np.ones(len(rows), bool)
    describe_eq = _equation_describer(flat, eq_info, big, names)
    order = match_and_order(incidence(all_edges), incidence(pref), describe_eq,
                            lambda u: names[reps[unknown_pos[u]]])
    match = order.match
    block_size = np.bincount(order.block, minlength=order.n_blocks)
    explicit_edges = incidence(expl)
    is_explicit = (block_size[order.block] == 1) & \
        (np.asarray(explicit_edges[np.arange(n_eq), match]).ravel() > 0) if n_eq else np.zeros(0, bool)

    # --- symbolic system ----------------------------------------------------------------------
    R = cs.SX.sym("r", len(reps))
    P = cs.SX.sym("p", len(flat.param_names))
    T = cs.SX.sym("t")
    locals_sx, params_sx, residual_parts = [], [], []
    for g in flat.groups:
        tpl, k = g.template, len(g.paths)
        nl, npar = len(tpl.local_names), len(tpl.param_names)
        L = cs.reshape(R[col[g.var_ids].T.flatten(order="F").tolist()], nl, k) * \
            cs.DM(sign[g.var_ids].T)
        Pm = cs.reshape(P[g.param_ids.T.flatten(order="F").tolist()], npar, k) if npar else cs.DM(0, k)
        locals_sx.append(L)
        params_sx.append(Pm)
        if tpl.residuals:
            res = tpl.residual_function.map(k)(L, Pm, T)
            residual_parts.append(cs.vec(res.T))
    residual_parts.append(cs.mtimes(cs.DM(through), R) if through.shape[0] else cs.SX(0, 1))
    residuals = cs.vertcat(*residual_parts)

    # Explicit solutions, grouped per (class, equation, local) for one mapped call each.
    expl_eqs = np.flatnonzero(is_explicit)
    values = {}
    for gi, j, base in eq_info:
        g = flat.groups[gi]
        k = len(g.paths)
        sel = expl_eqs[(expl_eqs >= base) & (expl_eqs < base + k)]
        if not len(sel):
            continue
        inst = sel - base
        target = unknown_pos[match[sel]]
        for l in sorted(g.template.explicit[j]):
            hit = col[g.var_ids[inst, l]] == target
            if not hit.any():
                continue
            ks = inst[hit].tolist()
            sol = g.template.solution_function(j, l).map(len(ks))(
                locals_sx[gi][:, ks], params_sx[gi][:, ks], T)
            vals = sol.T * cs.DM(sign[g.var_ids[inst[hit], l]])
            for e, idx in zip(sel[hit].tolist(), range(len(ks))):
                values[e] = vals[idx]
    through_expl = expl_eqs[expl_eqs >= n_template_eqs]
    if len(through_expl):
        # sum_r c_r x_r = 0 solved for the matched x_u: x_u = -sum_{r != u} (c_r / c_u) x_r
        srows = through[through_expl - n_template_eqs].tocoo()
        target = unknown_pos[match[through_expl]]
        coeff = np.asarray(through[through_expl - n_template_eqs][np.arange(len(target)), target]).ravel()
        other = srows.col != target[srows.row]
        solve = sps.csr_matrix((-srows.data[other] / coeff[srows.row[other]],
                                (srows.row[other], srows.col[other])), shape=srows.shape)
        through_vals = cs.mtimes(cs.DM(solve), R)
        for idx, e in enumerate(through_expl.tolist()):
            values[e] = through_vals[idx]

    eval_order = expl_eqs[np.argsort(order.block[expl_eqs], kind="stable")]
    solved_pos = unknown_pos[match[eval_order]]
    v = R[solved_pos.tolist()]
    vdef = cs.vertcat(*[values[e] for e in eval_order.tolist()]) if len(eval_order) else cs.SX(0, 1)

    implicit = np.flatnonzero(~is_explicit)
    implicit = implicit[np.argsort(order.block[implicit], kind="stable")]
    g_expr = residuals[implicit.tolist()]
    z_pos = unknown_pos[match[implicit]]

    energy_parts, dissipation_parts, energy_owner, dissipation_owner = [], [], [], []
    for gi, g in enumerate(flat.groups):
        tpl, k = g.template, len(g.paths)
        if tpl.energy_function is not None:
            energy_parts.append(tpl.energy_function.map(k)(locals_sx[gi], params_sx[gi], T).T)
            energy_owner.extend(g.paths)
        if tpl.dissipation_function is not None:
            ef = tpl.dissipation_function.map(k)(locals_sx[gi], params_sx[gi], T)
            dissipation_parts.append((ef[0, :] * ef[1, :]).T)
            dissipation_owner.extend(g.paths)
    energy = cs.vertcat(*energy_parts) if energy_parts else cs.SX(0, 1)
    dissipation = cs.vertcat(*dissipation_parts) if dissipation_parts else cs.SX(0, 1)

    if len(eval_order):
        _, (g_expr, all_values, energy, dissipation) = cs.substitute_inplace(
            [v], [cs.densify(vdef)], [g_expr, R, energy, dissipation], False)
    else:
        all_values = R

    state_pos = col[state_ids]
    x = R[state_pos.tolist()]
    z = R[z_pos.tolist()]
    f = all_values[col[der_ids].tolist()] * cs.DM(sign[der_ids]) if len(der_ids) else cs.SX(0, 1)

    start_parts = []
    for gi, g in enumerate(flat.groups):
        tpl, k = g.template, len(g.paths)
        start_parts.append(cs.vec(tpl.start_function.map(k)(
            cs.DM.zeros(len(tpl.local_names), k), params_sx[gi], T)))
    raw_start = cs.vertcat(*start_parts)
    # Representatives are their own raw variables (sign +1), so their start is their own.
    start = raw_start[reps.tolist()]

    inputs = [x, z, P, T]
    return DaeSystem(
        dae=cs.Function("dae", inputs, [f, g_expr], ["x", "z", "p", "t"], ["ode", "alg"]),
        outputs=cs.Function("outputs", inputs, [all_values], ["x", "z", "p", "t"], ["values"]),
        start=cs.Function("start", [P, T], [start], ["p", "t"], ["start"]),
        energy=cs.Function("energy", inputs, [energy]),
        dissipation=cs.Function("dissipation", inputs, [dissipation]),
        energy_owner=energy_owner, dissipation_owner=dissipation_owner,
        state_pos=state_pos, z_pos=z_pos, rep_ids=reps, var_col=col, var_sign=sign,
        residual_count=n_eq, alias_count=n - len(reps), explicit_count=len(eval_order),
    )


def _equation_describer(flat, eq_info, through_sums, names):
    """Human-readable description of equation ``e`` for error messages."""
    bases = [(base, gi, j) for gi, j, base in eq_info]
    end = bases[-1][0] + len(flat.groups[bases[-1][1]].paths) if bases else 0

    def describe(e):
        if e >= end:
            members = through_sums[e - end]
            return "connection: " + " + ".join(names[i] for i in members) + " = 0"
        base, gi, j = max(b for b in bases if b[0] <= e)
        g = flat.groups[gi]
        path = g.paths[e - base]
        return f"{g.template.class_name} {path}: {g.template.residuals[j]} = 0"

    return describe
