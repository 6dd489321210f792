"""The CasADi functions an exported model evaluates in C.

An FMU (and the standalone program) holds the states x, the parameter vector p (component
parameters, inputs chosen from them, and the modes and discrete variables of hybrid
components, which live in its slots) and the time t; everything else follows from them:

- ``evaluate(x, z_guess, p, t) -> (z, ode, values, error)``: the algebraic variables z
  solved from 0 = g(x, z, p, t) by a code-generated Newton method (CasADi's ``fast_newton``,
  a sparse QR factorization per iteration) started from ``z_guess`` — the last solution, so a
  step of the importing solver costs one or two iterations — then the state derivatives
  x' = f(x, z, p, t), the value of every variable and a convergence measure, at most 1 when
  the last Newton step is below 1e-8 of the values or every residual is within 1e-9 of its
  equation's terms (as physlib's consistent-start solve accepts; an absolute residual limit
  would pass a junction-charge row, in coulombs, millivolts off);
- ``start(p, t) -> (x0, z0)``: the start values physlib computes from the parameters;
- ``guards(x, z, p, t)``: the zero-crossing functions of hybrid components (FMI's event
  indicators);
- ``directional(x, z, p, t, dx, dp) -> (d ode, d values)``: forward-mode derivatives along a
  direction of states and parameters (FMI's directional derivatives), the algebraic variables
  differentiated through the Newton solution by the implicit function theorem;
- for events, the functions physlib's simulator evaluates from the same definitions
  (:mod:`physlib.analysis.common.hybrid_functions`): ``transitions(values, p, pre, fired)``
  and ``updates(values, p, pre, t)`` (the modes and discrete variables after one round of
  event iteration), ``next_time(p, t)`` (the next time event), and ``project(x, z, p, t,
  p_before) -> x`` (the states moved onto the mode constraints an event made active, nearest
  in the metric of stored energy, as the simulator's energy projection).
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..common.hybrid_functions import (impacts_first_function, next_time_function, transition_function,
                                        update_function)
from ..common.initialization import term_sizes
from .codegen import row_blocks

NEWTON = {"abstol": 1e-13, "abstolStep": 1e-15, "max_iter": 60}
"""Options of the code-generated Newton method: |g| below 1e-13 or a step below 1e-15, as the
simulator's consistent-state solve (iterations stop earlier once a step stops improving)."""


def model_functions(model) -> list[cs.Function]:
    """evaluate, start, guards, directional and the event functions (see the module docstring)
    for ``model``, in the order the C wrapper expects them. The equations are split into
    functions of :data:`~physlib.analysis.export.codegen.ROWS_PER_FUNCTION` rows each, so the
    C compiler's time stays linear in the model's size."""
    system = model.system
    xs, zs, ps, ts = system.symbols(cs.SX)
    ode_sx, alg_sx = system.dae(xs, zs, ps, ts)
    values_sx = system.outputs(xs, zs, ps, ts)
    x, z, p, t = system.symbols(cs.MX)
    z_guess = cs.MX.sym("z_guess", z.numel())
    if z.numel():
        z_solved, last_step = _polished(system, _newton(system)(z_guess, x, p, t), x, p, t)
    else:
        z_solved, last_step = z_guess, z_guess
    rows = _in_blocks("model_rows", [xs, zs, ps, ts], [ode_sx, values_sx])
    ode, values = rows(x, z_solved, p, t)
    # Converged (error <= 1) as physlib's consistent-start solve accepts a solution: the last
    # Newton step below 1e-8 of the values, or every residual near its equation's rounding.
    error = cs.fmin(cs.mmax(cs.fabs(last_step) / (1e-8 * (1 + cs.fabs(z_solved)))),
                    _relative_residual(system)(x, z_solved, p, t) / 1e-9) if z.numel() else cs.MX(0)
    evaluate = cs.Function("model_evaluate", [x, z_guess, p, t], [z_solved, ode, values, error],
                           ["x", "z_guess", "p", "t"], ["z", "ode", "values", "error"])
    # Forward derivatives along (dx, dp), the algebraic variables following by the implicit
    # function theorem: g_z dz = −(g_x dx + g_p dp).
    dxs, dzs, dps = cs.SX.sym("dx", xs.numel()), cs.SX.sym("dz", zs.numel()), cs.SX.sym("dp", ps.numel())
    known, seed = cs.vertcat(xs, zs, ps), cs.vertcat(dxs, dzs, dps)
    tangents = _in_blocks("model_tangents", [xs, zs, ps, ts, dxs, dzs, dps],
                          [cs.jtimes(ode_sx, known, seed), cs.jtimes(values_sx, known, seed)])
    dx, dp = cs.MX.sym("dx", x.numel()), cs.MX.sym("dp", p.numel())
    dz = cs.MX(z.numel(), 1)
    if z.numel():
        loop = cs.Function("model_loop", [xs, zs, ps, ts, dxs, dps],
                           [cs.jacobian(alg_sx, zs), cs.jtimes(alg_sx, cs.vertcat(xs, ps), cs.vertcat(dxs, dps))])
        g_z, g_known = loop(x, z_solved, p, t, dx, dp)
        dz = -cs.solve(g_z, g_known, "qr")
    d_ode, d_values = tangents(x, z_solved, p, t, dx, dz, dp)
    directional = cs.Function("model_directional", [x, z_guess, p, t, dx, dp], [d_ode, d_values],
                              ["x", "z_guess", "p", "t", "dx", "dp"], ["d_ode", "d_values"])
    guards = cs.Function("model_guards", [xs, zs, ps, ts], [system.guards(xs, zs, ps, ts)],
                         ["x", "z", "p", "t"], ["g"])
    start = cs.Function("model_start", [ps, ts], list(system.start(ps, ts)), ["p", "t"], ["x0", "z0"])
    return [evaluate, start, guards, directional, *_event_functions(model), *_damped_newton_parts(system)]


def _damped_newton_parts(system) -> list[cs.Function]:
    """``newton_step(x, z, p, t) -> (−g_z⁻¹·g, Σ_j |∂g_i/∂z_j|)`` and ``residual(x, z, p, t)
    -> g``, from which the C wrapper runs a Newton method with backtracking, as physlib's
    damped Newton (:func:`physlib.analysis.common.initialization.damped_newton`), when the
    undamped one fails (a transistor stage started from zero charges: the junction voltages'
    exponentials overshoot)."""
    x, z, p, t = system.symbols(cs.MX)
    if z.numel():
        xs, zs, ps, ts = system.symbols(cs.SX)
        alg = system.dae(xs, zs, ps, ts)[1]
        jac_sx = cs.jacobian(alg, zs)
        parts = cs.Function("g_and_jacobian", [xs, zs, ps, ts],
                            [alg, jac_sx, cs.mtimes(cs.fabs(jac_sx), cs.DM.ones(zs.numel(), 1))])
        g, jac, row_sums = parts(x, z, p, t)
        step = -cs.solve(jac, g, "qr")
    else:
        g, step, row_sums = cs.MX(0, 1), cs.MX(0, 1), cs.MX(0, 1)
    names = ["x", "z", "p", "t"]
    return [cs.Function("model_newton_step", [x, z, p, t], [step, row_sums], names, ["step", "row_sums"]),
            cs.Function("model_residual", [x, z, p, t], [g], names, ["g"])]


def _residual_and_terms(system, xs, zs, ps, ts):
    """g and the size of each of its equations' terms (as physlib's consistent start measures
    them: Σ_j |∂g_i/∂w_j|·|w_j| + |g_i − Σ_j ∂g_i/∂w_j·w_j| over w = (x, z, p))."""
    g = system.dae(xs, zs, ps, ts)[1]
    return g, term_sizes(g, cs.vertcat(xs, zs, ps))


def _in_blocks(name: str, inputs: list, outputs: list) -> cs.Function:
    """A function of ``inputs`` giving the SX ``outputs`` (of any row counts), each computed by
    C functions of ROWS_PER_FUNCTION rows (:func:`~physlib.analysis.export.codegen.row_blocks`)."""
    symbols = [cs.MX.sym(f"in{k}", s.sparsity()) for k, s in enumerate(inputs)]
    results = [cs.Function(f"{name}{k}", *row_blocks(f"{name}{k}", inputs, [out]))(*symbols)
               for k, out in enumerate(outputs)]
    return cs.Function(name, symbols, results)


def _event_functions(model) -> list[cs.Function]:
    """transitions, updates, next_time, impacts_first and project, named as the C wrapper calls them."""
    renamed = []
    for name, function in (("model_transitions", transition_function(model)),
                           ("model_updates", update_function(model)),
                           ("model_next_time", next_time_function(model)),
                           ("model_impacts_first", impacts_first_function(model))):
        inputs = [cs.SX.sym(function.name_in(i), function.sparsity_in(i)) for i in range(function.n_in())]
        renamed.append(cs.Function(name, inputs, function.call(inputs), function.name_in(), function.name_out()))
    return renamed + [_projection(model.system)]


def _projection(system) -> cs.Function:
    """``project(x, z, p, t, p_before) -> x``: the states after an event moved onto the mode
    constraints h(x) = −e·h⁻ it made active (and the active locks kept), the least change in
    the energy metric: minimize ½ Δxᵀ M Δx subject to J Δx = −e·h − h over the selected rows,
    M = ∂²E/∂x² and J = ∂h/∂x taken through the algebraic variables, one sparse solve of

        [M + R   (WJ)ᵀ        ] [Δx]   [0          ]
        [WJ      −δW + (I − W)] [λ ] = [W(−e·h − h)]

    with W the 0/1 selection of rows (unselected ones give λ = 0), R a unit weight on states
    that store no energy (they stay where they are unless a constraint moves them) and δ a
    1e-12 regularization that lets redundant but consistent locks (a loop of locked shafts)
    be solved as least squares. Without constraints it is the identity."""
    x, z, p, t = system.symbols(cs.MX)
    p_before = cs.MX.sym("p_before", p.numel())
    if not system.constraints.nnz_out(0) or not x.numel():
        return cs.Function("model_project", [x, z, p, t, p_before], [x], ["x", "z", "p", "t", "p_before"], ["x_new"])
    xs, zs, ps, ts = system.symbols(cs.SX)
    w = cs.vertcat(xs, zs)
    h_sym, active_sym, e_sym = system.constraints(xs, zs, ps, ts)
    energy = system.energy(xs, zs, ps, ts)
    total = cs.sum1(energy) if energy.numel() else cs.SX(0)
    alg = system.dae(xs, zs, ps, ts)[1]
    parts = cs.Function("projection_parts", [xs, zs, ps, ts],
                        [h_sym, active_sym, e_sym, cs.jacobian(h_sym, w), cs.hessian(total, w)[0],
                         cs.jacobian(alg, w)])
    h, active, e, h_w, hess, g_w = parts(x, z, p, t)
    was_active = parts(x, z, p_before, t)[1]
    nx = x.numel()
    chain = cs.vertcat(cs.MX.eye(nx), -cs.solve(g_w[:, nx:], g_w[:, :nx], "qr")) if z.numel() else cs.MX.eye(nx)
    mass = cs.mtimes([chain.T, hess, chain])
    jac = cs.mtimes(h_w, chain)
    select = cs.logic_and(active > 0.5, cs.logic_or(was_active < 0.5, e == 0))
    no_energy = cs.diag(cs.diag(mass) == 0)
    weighted = cs.mtimes(cs.diag(select), jac)
    kkt = cs.blockcat([[mass + no_energy, weighted.T],
                       [weighted, cs.diag(-1e-12 * select + (1 - select))]])
    rhs = cs.vertcat(cs.MX(nx, 1), select * (-e * h - h))
    step = cs.solve(kkt, rhs, "qr")[:nx]
    return cs.Function("model_project", [x, z, p, t, p_before], [x + step], ["x", "z", "p", "t", "p_before"], ["x_new"])


def _polished(system, z, x, p, t):
    """One more Newton step from the solution: fast_newton stops on an absolute residual
    (amperes and newtons alike), after which the step below brings z to rounding level (the
    quadratic convergence), so derivatives taken by differences of evaluations are not noise."""
    xs, zs, ps, ts = system.symbols(cs.SX)
    alg = system.dae(xs, zs, ps, ts)[1]
    step = cs.Function("newton_step", [xs, zs, ps, ts], [alg, cs.jacobian(alg, zs)])
    g, jacobian = step(x, z, p, t)
    last = -cs.solve(jacobian, g, "qr")
    return z + last, last


def _relative_residual(system) -> cs.Function:
    """(x, z, p, t) -> max_i |g_i| / (size of equation i's terms): each algebraic equation's
    residual against its own terms (:func:`_residual_and_terms`)."""
    xs, zs, ps, ts = system.symbols(cs.SX)
    g, terms = _residual_and_terms(system, xs, zs, ps, ts)
    return cs.Function("relative_residual", [xs, zs, ps, ts], [cs.mmax(cs.fabs(g) / cs.fmax(terms, 1e-300))])


def _newton(system) -> cs.Function:
    x, z, p, t = system.symbols(cs.SX)
    residual = cs.Function("g", [z, x, p, t], [system.dae(x, z, p, t)[1]])
    return cs.rootfinder("solve_z", "fast_newton", residual, NEWTON)


def dependencies(model, functions, input_slots) -> tuple[np.ndarray, np.ndarray]:
    """Structural dependence of the derivatives and of the variable values on the states and
    on the parameter slots ``input_slots`` (FMI's ModelStructure): boolean matrices (nx, nx +
    ni) and (n values, nx + ni), from the sparsity of the Jacobian of ``evaluate`` (through the
    Newton solution: an algebraic loop couples everything it contains)."""
    x, z, p, t = model.system.symbols(cs.MX)
    _, ode, values, _ = functions[0](x, z, p, t)
    structure = cs.Function("structure", [x, z, p, t], [ode, values])
    patterns = [np.hstack([_dense_pattern(structure.jac_sparsity(out, 0)),
                           _dense_pattern(structure.jac_sparsity(out, 2))[:, list(input_slots)]])
                for out in (0, 1)]
    return patterns[0], patterns[1]


def _dense_pattern(sparsity: cs.Sparsity) -> np.ndarray:
    pattern = np.zeros(sparsity.shape, bool)
    rows, cols = sparsity.get_triplet()
    pattern[rows, cols] = True
    return pattern
