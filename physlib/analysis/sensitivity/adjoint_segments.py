"""The CasADi integrators of the adjoint's segments (:mod:`.adjoint`): one CVODES integration
between two events with its samples as outputs, forward, and its reverse derivative (SUNDIALS'
checkpointed adjoint integration) for blocks of seeds, both called through buffers."""
from __future__ import annotations

import casadi as cs

from ..common.fast_call import FastFunction

CACHED = 16             # segment integrators kept per compiled model (one per pattern of outputs)


def segment_function(system, options, grid, integrand=None) -> dict:
    """{"forward": (x0, [p; ta; tb; z0]) -> x at the fractions ``grid`` of [ta, tb] (one column
    each, stacked); "reverse": {n: (x0, [p; ta; tb; z0], seeds of each output) -> the
    gradients of Σ_j seed_j·x(s_j) with respect to x0 and p for n columns of seeds (stacked
    likewise) at once}, made by the caller (:func:`reverse_function`) for each n asked}: one CVODES
    integrator over s ∈ [0, 1],
    t = ta + s·(tb − ta), of x' = f(x, z(x, p, t), p, t) with z solved from 0 = g by Newton's
    method from z0 (the segment's start values: a guess, of no influence on the result). Made
    once per grid (the CACHED last ones kept). With an ``integrand`` (x, z, p, t) -> g, "forward"
    also gives ∫ g dt over [ta, tb] (a quadrature of the integrator, under its error control),
    and "reverse" takes its seeds after the states'.

    The algebraic variables are eliminated rather than integrated (IDAS): IDAS must first find
    consistent rates, and that search fails on stiff modes such as a conducting diode's."""
    key = ("adjoint_segment", options.rtol, options.atol, grid, integrand.serialize() if integrand else None)
    if key not in system.cache:
        x, z, p, _ = system.symbols(cs.MX)
        s, ta, tb = cs.MX.sym("s"), cs.MX.sym("ta"), cs.MX.sym("tb")
        t = ta + s * (tb - ta)
        ode, alg = system.dae(x, z, p, t)
        params = cs.vertcat(p, ta, tb, z)
        z_of_x = z
        if z.numel():
            residual = cs.Function("algebraic", [z, cs.vertcat(x, p, s, ta, tb)], [alg])
            solve = cs.rootfinder("solve_z", "newton", residual, {"abstol": 1e-14, "max_iter": 50,
                                                                   "error_on_fail": False})
            z_of_x = solve(z, cs.vertcat(x, p, s, ta, tb))
            ode = cs.substitute(ode, z, z_of_x)
        dae = {"x": x, "p": params, "t": s, "ode": (tb - ta) * ode}
        if integrand is not None:
            dae["quad"] = (tb - ta) * integrand(x, z_of_x, p, t)
        # without algebraic variables (no rootfinder inside) the integrator's functions are
        # expanded to scalar expressions: a 200-stage ladder's backward sweep through 100
        # samples 1.5 times faster (88 ms instead of 132)
        integrator = cs.integrator("segment", "cvodes", dae, 0.0, list(grid),
                                   {"abstol": options.atol, "reltol": options.rtol, "max_num_steps": 100000,
                                    "quad_err_con": True, "expand": not z.numel()})
        X0, P = cs.MX.sym("x0", x.numel()), cs.MX.sym("p", params.numel())
        solution = integrator(x0=X0, p=P)
        xf = [cs.vec(solution["xf"])] + ([solution["qf"][:, -1]] if integrand is not None else [])
        segments = [k for k in system.cache if isinstance(k, tuple) and k[0] == "adjoint_segment"]
        if len(segments) >= CACHED:
            system.cache.pop(segments[0])
        system.cache[key] = {"forward": FastFunction(cs.Function("segment_forward", [X0, P], xf)), "reverse": {}}
    return system.cache[key]


def reverse_function(forward, directions: int) -> FastFunction:
    """(x0, [p; ta; tb; z0], seeds of each output) -> the seeds' gradients by x0 and by the
    parameters: ``forward``'s reverse derivative for ``directions`` columns of seeds, without
    the inputs of the forward's outputs (which it does not read)."""
    reverse = forward.reverse(directions)
    inputs = [cs.MX.sym(f"in{i}", forward.sparsity_in(i)) for i in range(forward.n_in())]
    seeds = [cs.MX.sym(f"seed{i}", reverse.sparsity_in(forward.n_in() + forward.n_out() + i))
             for i in range(forward.n_out())]
    unread = [cs.MX(forward.sparsity_out(i).size1(), forward.sparsity_out(i).size2()) for i in range(forward.n_out())]
    return FastFunction(cs.Function(reverse.name(), inputs + seeds, reverse.call(inputs + unread + seeds)))
