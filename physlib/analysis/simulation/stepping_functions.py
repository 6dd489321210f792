"""The compiled functions SUNDIALS' callbacks evaluate for the stepped solver
(:class:`~physlib.analysis.simulation.sundials.Stepper`): IDA's residual
F = [x' − f(x, z, p, t); g(x, z, p, t)] over y = [x; z] and its Jacobian ∂F/∂y + cj·∂F/∂y',
or CVODE's right-hand side f and ∂f/∂x, each with a NaN check, and the FunctionBuffer that
calls them (about 1 µs a call). The Jacobian is dense for small models and sparse (CasADi's
compressed columns, SUNDIALS' CSC storage) for large ones.

A large model linear in its unknowns (a circuit of R, L, C and sources: every component class's
equations are affine in its variables for fixed modes, and ∂[f; g]/∂[x; z] depends on the
parameters only, not on time) has its residual evaluated as F(y, y') = J·y + F(0, 0) (+ y' on the
states' rows; CVODE: f(x) = J·x + f(0)) by :class:`LinearResidual`: J's entries are evaluated
once per restart (the parameters, modes included, change only there) and F(0, 0), the sources,
is a function of p and t alone. For the 10,000-element RC ladder this is 20 µs a call instead
of 170 µs for the 50,000 operations of CasADi's virtual machine."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.lazy import lazy_module

# SciPy's sparse matrices and solvers serve large models only: imported on first use.
sps = lazy_module("scipy.sparse")


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
    instead of reducing an array in NumPy, which costs more than the evaluation). Written as a
    comparison: CasADi simplifies the sum's ``total - total`` to 0 when it builds the graph,
    which checked nothing."""
    total = cs.sum1(values) if values.numel() else cs.SX(0)
    return cs.densify(cs.if_else(cs.fabs(total) < cs.inf, 0.0, float("nan")))


def stepping_functions(system, solver: str, sparse: bool = False):
    """(residual, Jacobian, offset): the residual/right-hand side and Jacobian functions of
    ``system`` for ``solver`` (``"idas"``: F(y, y', p, t) and ∂F/∂y + cj·∂F/∂y'; ``"cvodes"``: f
    and ∂f/∂x), built once per compiled model. The Jacobian is dense unless ``sparse``; a sparse
    one has every diagonal entry in its pattern (CVODE adds −γ·I in place, which needs them).
    ``offset``: for a sparse model linear in its unknowns (see the module docstring), the
    residual at y = y' = 0 as a function of (p, t); else None."""
    key = ("sundials", solver, sparse)
    if key not in system.cache:
        dae, J = system.dae_dict(), system.dae_jacobian()
        x, z, p, t, ode, alg = (dae[k] for k in ("x", "z", "p", "t", "ode", "alg"))
        nx = x.numel()
        if solver == "idas":
            y, yp, cj = cs.vertcat(x, z), cs.SX.sym("yp", x.numel() + z.numel()), cs.SX.sym("cj")
            value = cs.vertcat(yp[:nx] - ode, alg)
            residual = cs.Function("ida_residual", [y, yp, p, t], [value, _nan_check(value)])
            jac = cs.vertcat(-J[:nx, :], J[nx:, :]) + cj * cs.diag(cs.vertcat(cs.DM.ones(nx), cs.DM.zeros(z.numel())))
            jacobian = cs.Function("ida_jacobian", [y, p, t, cj], [_storage(jac, sparse)])
            zeros = [cs.SX.zeros(y.sparsity()), cs.SX.zeros(yp.sparsity())]
        else:
            residual = cs.Function("cvode_rhs", [x, p, t], [ode, _nan_check(ode)])
            jacobian = cs.Function("cvode_jacobian", [x, p, t], [_storage(J[:nx, :nx], sparse)])
            zeros = [cs.SX.zeros(x.sparsity())]
        offset = None
        # Affine in the unknowns: every class's equations say so (their derivatives read no
        # variable; CasADi's derivative of sign(v) or floor(v) is 0, so J alone cannot tell),
        # and J does not change with time either.
        if sparse and system.affine and not cs.depends_on(J, cs.vertcat(x, z, t)):
            # Called on zeros, the residual's graph folds to the sources' terms.
            offset = cs.Function(f"{residual.name()}_offset", [p, t], [residual(*zeros, p, t)[0]])
        system.cache[key] = (residual, jacobian, offset)
    return system.cache[key]


class LinearResidual:
    """F(y, y') = J·y + F(0, 0) (+ y' on the first ``rows_with_rates`` rows: IDA's states; 0
    for CVODE) for a linear model: ``offset`` (F(0, 0) of p and t, buffered) and J's stored
    entries (``values``, on the sparse Jacobian's pattern ``colind``/``row``), evaluated from the
    buffered Jacobian at cj = 0 by :meth:`restart`. The compiled callbacks read the same arrays
    and do the same arithmetic in the same order as :meth:`evaluate`, so both give the same
    numbers bit for bit."""

    def __init__(self, offset, jacobian, colind, row, rows_with_rates: int):
        self.offset = buffered(offset)
        self.jacobian = jacobian
        self.colind, self.row = colind, row
        self.values = np.zeros(row.size)
        self.rows_with_rates = rows_with_rates
        self.matrix = None

    def restart(self, p) -> None:
        """Evaluate J's entries and set the offset's parameters for the parameter vector p."""
        self.offset[2][0][:] = p
        _, trigger, inputs, (out,) = self.jacobian
        inputs[0][:] = 0.0      # y (J does not depend on it, nor on t)
        inputs[1][:] = p
        if len(inputs) == 4:
            inputs[3][0] = 0.0  # IDA's cj: ∂F/∂y alone
        trigger()
        self.values[:] = out
        n = self.colind.size - 1
        self.matrix = sps.csc_matrix((self.values, self.row, self.colind), shape=(n, n))

    def evaluate(self, t: float, y, yp, out) -> bool:
        """F at (t, y, y') into ``out`` (yp None for CVODE); whether it is finite."""
        _, trigger, (_, t_in), (offset,) = self.offset
        t_in[0] = t
        trigger()
        r = self.matrix @ y           # column by column from zeros, as the C loop
        r += offset
        if yp is not None:
            r[:self.rows_with_rates] += yp[:self.rows_with_rates]
        out[:] = r
        return bool(np.isfinite(r).all())


def _storage(jac, sparse: bool):
    """The Jacobian dense, or sparse with its whole diagonal in the pattern (structural zeros
    where it has none)."""
    return jac + cs.SX.zeros(cs.Sparsity.diag(jac.size1())) if sparse else cs.densify(jac)
