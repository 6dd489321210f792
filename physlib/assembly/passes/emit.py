"""Pass 10: emission of the semi-explicit DAE x' = f(x, z, p, t), 0 = g(x, z, p, t) and the
functions the analysis reads from it (values of all variables, stored energy, dissipation,
guards and mode constraints, start values and their checks) as CasADi functions."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.symbols import derivative_base
from ..compiled import DaeSystem
from ..component_quantities import ComponentQuantity
from ..forced_jumps import forced_inputs
from ..ir import AliasMap, BlockOrder, Reduced, Solved, Symbolic, Torn
from .instantiate import GroupLocals, position_starts, raw_start_values, residuals
from .mapped_calls import mapped


def _rows(flat, attribute, symbolic: Symbolic, rows):
    """Selected rows of a per-instance vector function (guards, constraints) of every instance,
    instance by instance, with their owners as (group, instance, row index) triples."""
    parts, owners = [], []
    for gi, g in enumerate(flat.groups):
        function = getattr(g.template, attribute)
        if function is None:
            continue
        k, selected = len(g.paths), list(rows(g.template))
        out = mapped(function, k, symbolic.locals[gi], symbolic.params[gi], symbolic.T)
        parts.append(cs.vec(out[selected, :]))
        owners.extend((gi, inst, j - selected[0]) for inst in range(k) for j in selected)
    return (cs.vertcat(*parts) if parts else cs.SX(0, 1)), owners


def _component_expressions(flat, symbolic: Symbolic) -> tuple[dict, dict]:
    """Guards and mode constraints in the positions, with their owners."""
    n_c = lambda tpl: len(tpl.constraints)  # noqa: E731
    exprs, owners = {}, {}
    exprs["guards"], owners["guards"] = _rows(flat, "guard_function", symbolic,
                                              lambda tpl: range(len(tpl.guards)))
    exprs["constraints"], owners["constraints"] = _rows(flat, "constraint_function", symbolic,
                                                        lambda tpl: range(n_c(tpl)))
    exprs["active"], _ = _rows(flat, "constraint_function", symbolic,
                               lambda tpl: range(n_c(tpl), 2 * n_c(tpl)))
    exprs["restitution"], _ = _rows(flat, "constraint_function", symbolic,
                                    lambda tpl: range(2 * n_c(tpl), 3 * n_c(tpl)))
    return exprs, owners


def _expressions(flat, aliases: AliasMap, reduced: Reduced, torn: Torn, symbolic: Symbolic):
    """Guards, mode constraints and the residuals g of the equations left to the solver, with
    the guards' and constraints' owners."""
    exprs, owners = _component_expressions(flat, symbolic)
    exprs["g"] = residuals(flat, aliases, reduced, symbolic, torn.g_eqs) if len(torn.g_eqs) else cs.SX(0, 1)
    return exprs, owners


def _substituted(symbolic: Symbolic, solved: Solved, exprs: dict) -> dict:
    """``exprs`` with the solved positions replaced by their values."""
    keys = [k for k, expr in exprs.items() if expr.numel()]
    if not len(solved.positions) or not keys:
        return exprs
    at = solved.positions.tolist()
    out = cs.substitute([exprs[k] for k in keys], [symbolic.R[at]], [solved.values[at]])
    return {**exprs, **dict(zip(keys, out))}


def _defining(reduced: Reduced, order: BlockOrder):
    """The equation each non-state position is solved from, and its block (evaluation order):
    a variable that is not finite at the start is traced to the first equation that failed."""
    # int32: kept with the compiled model (a million-element model has 3 million positions)
    defining = np.full(reduced.n_pos, -1, dtype=np.int32)
    defining_block = np.full(reduced.n_pos, -1, dtype=np.int32)
    matched = np.flatnonzero(order.match >= 0)
    defining[reduced.unknown_pos[order.match[matched]]] = matched
    defining_block[reduced.unknown_pos[order.match[matched]]] = order.block[matched]
    return defining, defining_block


def _start_check(flat, aliases: AliasMap, reduced: Reduced, symbolic: Symbolic, values, describe):
    """(variables whose given start value is checked, requested and reached values, info)."""
    checked, reasons = _explicit_starts(flat, aliases, reduced, describe)
    if not len(checked):
        return cs.SX(0, 1), cs.SX(0, 1), []
    requested = raw_start_values(flat, symbolic.params, symbolic.T, checked)
    reached = values[aliases.col[checked].tolist()] * cs.DM(aliases.sign[checked])
    names = flat.var_names
    return requested, reached, [(names[int(v)], reason) for v, reason in zip(checked, reasons)]


def emit(flat, aliases: AliasMap, reduced: Reduced, order: BlockOrder, torn: Torn,
         symbolic: Symbolic, solved: Solved, describe) -> DaeSystem:
    """The DaeSystem: CasADi functions of (x, z, p, t) and what the analysis needs to read them."""
    R, P, T = symbolic.R, symbolic.P, symbolic.T
    values = solved.values
    if symbolic.all_symbols:
        exprs, owners = _expressions(flat, aliases, reduced, torn, symbolic)
        exprs = _substituted(symbolic, solved, exprs)
    else:
        # the explicitly solved positions are zeros in R: the expressions read their values
        on_values = Symbolic(values, P, T, GroupLocals(flat.groups, aliases, values), symbolic.params)
        exprs, owners = _expressions(flat, aliases, reduced, torn, on_values)
    z_pos = reduced.unknown_pos[torn.z_unknowns]
    x, z = R[reduced.states.tolist()], R[z_pos.tolist()]
    f = values[reduced.der_pos.tolist()] if len(reduced.states) else cs.SX(0, 1)
    inputs, in_names = [x, z, P, T], ["x", "z", "p", "t"]
    defining, defining_block = _defining(reduced, order)
    requested, reached, check_info = _start_check(flat, aliases, reduced, symbolic, values, describe)
    # The expressions as emitted, which the functions hold anyway: the analyses' forms of them
    # (DaeSystem.dae_dict, output_expressions) would otherwise rebuild the whole graph by
    # calling the functions on fresh symbols, a second copy of it in memory. The values of
    # every variable become a function on first use (DaeSystem.outputs).
    dae_dict = {"x": x, "z": z, "p": P, "t": T, "ode": f, "alg": exprs["g"]}
    return DaeSystem(
        cache={"dae_dict": dae_dict, "output_sx": values},
        finite_guard=solved.guard,
        start_check=_function("start_check", inputs, [requested, reached]),
        start_check_info=check_info,
        defining_equation=defining, defining_block=defining_block,
        # only what the messages read: the compile's describer holds the incidence and alias tables
        describe_equation=describe.compact(),
        dae=cs.Function("dae", inputs, [f, exprs["g"]], in_names, ["ode", "alg"]),
        start=cs.Function("start", [P, T], [position_starts(flat, aliases, reduced, symbolic, reduced.states),
                                             position_starts(flat, aliases, reduced, symbolic, z_pos)],
                          ["p", "t"], ["x", "z"]),
        quantities={kind: ComponentQuantity.of(flat, kind) for kind in ("energy", "dissipation")},
        guards=_function("guards", inputs, [exprs["guards"]]), guard_owner=owners["guards"],
        constraints=_function("constraints", inputs,
                              [exprs["constraints"], exprs["active"], exprs["restitution"]]),
        constraint_owner=owners["constraints"],
        state_pos=reduced.states, z_pos=z_pos, position_names=reduced.names,
        var_col=aliases.col, var_sign=aliases.sign,
        stats=statistics(flat, aliases, len(solved.positions), torn.n_loops),
        differentiated=[describe(e) for e in reduced.new_eqs],
        dummy_states=[reduced.names[d] for d in reduced.dummies],
        forced_inputs=forced_inputs(flat, aliases, reduced, order),
        # the other equations (connection sums, alias pairs) are linear
        affine=all(g.template.affine for g in flat.groups),
        nominal=unknown_nominals(flat, aliases, reduced, np.concatenate([reduced.states, z_pos])),
    )


def unknown_nominals(flat, aliases: AliasMap, reduced: Reduced, positions) -> np.ndarray | None:
    """The declared nominal size (:class:`~physlib.core.component.Variable`'s ``nominal``) of
    each of ``positions``: the smallest of the variables aliased there (der(x) takes x's, as
    does a derivative index reduction adds; ports' variables 1); None where every one is 1, as
    in most models: nothing is stored."""
    per_variable = None
    for group in flat.groups:
        declared = group.components[0].variables()
        local = [getattr(declared.get(derivative_base(name) or name), "nominal", 1.0)
                 for name in group.template.local_names]
        if group.var_ids is None or all(v == 1.0 for v in local):
            continue
        if per_variable is None:
            per_variable = np.ones(len(flat.var_names))
        per_variable[group.var_ids] = np.asarray(local)[None, :]
    if per_variable is None:
        return None
    # a position takes the smallest of its aliases' (an inertance's q is its port's flow)
    per_position = np.ones(reduced.n_pos)
    np.minimum.at(per_position, aliases.col, per_variable)
    for k, base in enumerate(reduced.new_vars):     # positions of index reduction's derivatives
        per_position[aliases.n + k] = per_position[base]
    values = per_position[np.asarray(positions, dtype=np.int64)]
    return None if np.all(values == 1.0) else values


def _function(name: str, inputs: list, outputs: list) -> cs.Function:
    """``casadi.Function(name, inputs, outputs)``; one with nothing to compute (no guards, say)
    takes MX symbols of the inputs' sizes instead: an SX function walks its input symbols,
    25 ms for a model of 100,000 stages even when no output reads them."""
    if all(out.numel() == 0 for out in outputs):
        inputs = [cs.MX.sym(f"in{i}", *x.shape) for i, x in enumerate(inputs)]
        outputs = [cs.MX(*out.shape) for out in outputs]
    return cs.Function(name, inputs, outputs)


def statistics(flat, aliases: AliasMap, n_explicit, n_loops) -> dict:
    """Equation and variable counts before alias elimination (for the summary); alias pairs
    kept as equations are not counted as eliminated."""
    n_alias = len(flat.equalities) + sum(len(g.paths) * len(g.template.aliases) for g in flat.groups) \
        + aliases.n_sum_pairs
    n_template = sum(len(g.paths) * len(g.template.residuals) for g in flat.groups)
    return {"variables": len(flat.var_names), "equations": n_alias + len(aliases.sum_lengths) + n_template,
            "alias_equations": n_alias - len(aliases.demoted), "explicit": n_explicit, "loops": n_loops}


def _explicit_starts(flat, aliases: AliasMap, reduced: Reduced, describe):
    """Variables whose start value the user gave explicitly (a parameter such as v0 passed to
    the component) but which are not independent states after reduction: the constraints
    decide their start, so it is checked at the start of a run. Returns their raw ids and,
    for each, which constraint decides it."""
    ids, reasons = [], []
    states = set(reduced.states.tolist())
    is_state = np.zeros(reduced.n_pos, bool)
    is_state[reduced.states] = True
    rep, col = aliases.rep, aliases.col
    for g in flat.groups:
        tpl = g.template
        uses = tpl.initial_uses
        found = []          # (instance, order of the local, raw id, parameters given)
        for li, (l, names) in enumerate(uses.items()):
            raw = g.var_ids[:, l]
            free = (rep[raw] == raw) & is_state[col[raw]]     # still a state: nothing to check
            for k in np.flatnonzero(~free).tolist() if names else []:
                given = sorted(names & g.components[k]._given)
                if given:
                    found.append((k, li, int(raw[k]), given))
        for k, _, raw, given in sorted(found):
            ids.append(raw)
            reasons.append((f"{g.paths[k]}.{given[0]}" if len(given) == 1 else
                            f"{g.paths[k]} ({', '.join(given)})",
                            _what_decides(int(col[raw]), states, reduced, describe)))
    return np.array(ids, dtype=np.int64), reasons


def _what_decides(pos, states, reduced: Reduced, describe) -> str:
    """Why the variable at position ``pos`` is not a free state (for messages)."""
    eqs = reduced.equations
    if pos in states:
        return f"it is the same variable as the state {reduced.names[pos]}"
    if pos in reduced.dummies:
        # The differentiated constraints linked to it through shared variables (a capacitor
        # across a source: the capacitor's and the source's voltage equations, the ground).
        variables = {base: set(eqs.cols[eqs.rows == base].tolist()) for base in reduced.new_eqs}
        reached, linked, grew = {pos}, [], True
        while grew:
            grew = False
            for base, vs in variables.items():
                if base not in linked and vs & reached:
                    linked.append(base)
                    reached |= vs
                    grew = True
        return "constraints fix it: " + "; ".join(describe(e) for e in linked[:6])
    users = sorted(set(eqs.rows[eqs.cols == pos].tolist()))
    return "the equations fix it: " + "; ".join(describe(e) for e in users[:6])

