"""The compiled functions SUNDIALS' callbacks evaluate for the stepped solver
(:class:`~physlib.analysis.simulation.sundials.Stepper`): IDA's residual
F = [x' − f(x, z, p, t); g(x, z, p, t)] over y = [x; z] and its Jacobian ∂F/∂y + cj·∂F/∂y',
or CVODE's right-hand side f and ∂f/∂x, each with a NaN check, and the FunctionBuffer that
calls them (about 1 µs a call). The Jacobian is dense for small models and sparse (CasADi's
compressed columns, SUNDIALS' CSC storage) for large ones."""
from __future__ import annotations

import casadi as cs
import numpy as np


def buffered(function: cs.Function):
    """(trigger, input arrays, output arrays) of a FunctionBuffer of ``function``."""
    buffer, trigger = function.buffer()
    inputs = [np.zeros(function.nnz_in(i)) for i in range(function.n_in())]
    outputs = [np.zeros(function.nnz_out(i)) for i in range(function.n_out())]
    for k, a in enumerate(inputs):
        buffer.set_arg(k, memoryview(a))
    for k, a in enumerate(outputs):
        buffer.set_res(k, memoryview(a))
    return buffer, trigger, inputs, outputs


def _nan_check(values):
    """0 when every entry of ``values`` is finite, NaN otherwise (a callback tests one number
    instead of reducing an array in NumPy, which costs more than the evaluation)."""
    total = cs.sum1(values) if values.numel() else cs.SX(0)
    return cs.densify(total - total)


def stepping_functions(system, solver: str, sparse: bool = False):
    """The residual/right-hand side and Jacobian functions of ``system`` for ``solver``
    (``"idas"``: F(y, y', p, t) and ∂F/∂y + cj·∂F/∂y'; ``"cvodes"``: f and ∂f/∂x), built once per
    compiled model. The Jacobian is dense unless ``sparse``; a sparse one has every diagonal
    entry in its pattern (CVODE adds −γ·I in place, which needs them)."""
    key = ("sundials", solver, sparse)
    if key not in system.cache:
        dae, J = system.dae_dict(), system.dae_jacobian()
        x, z, p, t, ode, alg = (dae[k] for k in ("x", "z", "p", "t", "ode", "alg"))
        nx = x.numel()
        if solver == "idas":
            y, yp, cj = cs.vertcat(x, z), cs.SX.sym("yp", x.numel() + z.numel()), cs.SX.sym("cj")
            residual = cs.vertcat(yp[:nx] - ode, alg)
            jac = cs.vertcat(-J[:nx, :], J[nx:, :]) + cj * cs.diag(cs.vertcat(cs.DM.ones(nx), cs.DM.zeros(z.numel())))
            system.cache[key] = (cs.Function("ida_residual", [y, yp, p, t], [residual, _nan_check(residual)]),
                                 cs.Function("ida_jacobian", [y, p, t, cj], [_storage(jac, sparse)]))
        else:
            system.cache[key] = (cs.Function("cvode_rhs", [x, p, t], [ode, _nan_check(ode)]),
                                 cs.Function("cvode_jacobian", [x, p, t], [_storage(J[:nx, :nx], sparse)]))
    return system.cache[key]


def _storage(jac, sparse: bool):
    """The Jacobian dense, or sparse with its whole diagonal in the pattern (structural zeros
    where it has none)."""
    return jac + cs.SX.zeros(cs.Sparsity.diag(jac.size1())) if sparse else cs.densify(jac)
