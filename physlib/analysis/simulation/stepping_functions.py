"""The compiled functions SUNDIALS' callbacks evaluate for the stepped solver
(:class:`~physlib.analysis.simulation.sundials.Stepper`): IDA's residual
F = [x' − f(x, z, p, t); g(x, z, p, t)] over y = [x; z] and its Jacobian ∂F/∂y + cj·∂F/∂y',
or CVODE's right-hand side f and ∂f/∂x, each with a NaN check, and the FunctionBuffer that
calls them (about 1 µs a call). The Jacobian is dense for small models and sparse (CasADi's
compressed columns, SUNDIALS' CSC storage) for large ones.

A large model linear in its unknowns (a circuit of R, L, C and sources: every component class's
equations are affine in its variables for fixed modes, with coefficients that read neither
variables nor time, so ∂[f; g]/∂[x; z] depends on the parameters only) has its residual
evaluated as F(y, y') = J·y + F(0, 0) (+ y' on the states' rows; CVODE: f(x) = J·x + f(0)) by
:class:`LinearResidual`: J's entries are evaluated once per restart (the parameters, modes
included, change only there) from the DAE itself on colored seeds
(:class:`~physlib.analysis.common.affine_jacobian.AffineJacobian`, no symbolic derivative), and
F(0, 0), the sources, is a function of p and t alone: its rows that read time (a source's)
are evaluated at each call by a function of those rows alone, the others come with J's
entries at each restart. For the 10,000-element RC ladder this is 20 µs a call instead
of 170 µs for the 50,000 operations of CasADi's virtual machine. The solver's Jacobian is then
J + cj·I from the same numbers, so the residual and Jacobian functions are never built.

Once a model's stepped runs have evaluated the residual HOT_EVALUATIONS times, its residual and
Jacobian are translated to C and built in the background
(:mod:`~physlib.analysis.common.native_functions`; the same numbers bit for bit), and a run
evaluates them in C from its next solver start after they are built (:meth:`SteppingFunctions.
native`): a Shockley buck's integration 37 → 20 ms of its 135."""
from __future__ import annotations

from functools import cached_property

import casadi as cs
import numpy as np

from ...core.lazy import lazy_module
from ..common.affine_jacobian import affine_jacobian
from ..common.native_functions import native_twin

# SciPy's sparse matrices and solvers serve large models only: imported on first use.
sps = lazy_module("scipy.sparse")

HOT_EVALUATIONS = 5_000     # a model's residual evaluations after which it is built in C
REMEMBERED_PARAMETERS = 8   # parameter vectors whose linear Jacobian entries a run keeps


def buffered(function: cs.Function):
    """(buffer, trigger, input arrays, output arrays) of a FunctionBuffer of ``function``."""
    inputs = [np.zeros(function.nnz_in(i)) for i in range(function.n_in())]
    outputs = [np.zeros(function.nnz_out(i)) for i in range(function.n_out())]
    return rebuffered(function, (None, None, inputs, outputs))


def rebuffered(function: cs.Function, old):
    """:func:`buffered` for ``function`` on the arrays of ``old`` (a buffered function of the
    same inputs and outputs): whoever reads or writes those arrays keeps them."""
    buffer, trigger = function.buffer()
    _, _, inputs, outputs = old
    for k, a in enumerate(inputs):
        buffer.set_arg(k, memoryview(a))
    for k, a in enumerate(outputs):
        buffer.set_res(k, memoryview(a))
    return buffer, trigger, inputs, outputs


def _at_zero_unknowns(value: cs.SX, d: dict) -> tuple[cs.SX, cs.SX, np.ndarray]:
    """(``value`` with the unknowns set to 0, the parameters' symbols it reads, their indices
    in p), from the symbols ``value`` reads alone, found by the names ``DaeSystem.symbols``
    gives them (``x_3``, ``z_0``, ``p_12``, ``t``; ``x`` where there is one) and checked to be
    those symbols of ``d`` (the DAE's symbols); otherwise over all of them. A substitution over
    every unknown of a million-element model, or a function of all of p, takes 0.2 s."""
    symbols = cs.symvar(value)
    by_kind: dict = {"x": [], "z": [], "p": [], "t": []}
    for symbol in symbols:
        kind, _, k = symbol.name().partition("_")
        by_kind.setdefault(kind, []).append((symbol, int(k) if k.isdigit() else 0))
    sizes = {kind: d[kind].numel() for kind in "xzpt"}
    named = len(by_kind) == 4 and all(
        k < sizes[kind] and cs.is_equal(symbol, d[kind][k], 0) for kind in "xzpt" for symbol, k in by_kind[kind])
    if not named:       # not the DAE's own symbols by name: the whole substitution
        unknowns = cs.vertcat(d["x"], d["z"])
        return cs.substitute(value, unknowns, cs.SX.zeros(unknowns.numel())), d["p"], \
            np.arange(sizes["p"], dtype=np.int64)
    unknowns = [symbol for kind in "xz" for symbol, _ in by_kind[kind]]
    if unknowns:
        value = cs.substitute(value, cs.vertcat(*unknowns), cs.SX.zeros(len(unknowns)))
    read = by_kind["p"]
    return value, cs.vertcat(*(s for s, _ in read)) if read else cs.SX(0, 1), \
        np.array([k for _, k in read], dtype=np.int64)


def _nan_check(values):
    """0 when every entry of ``values`` is finite, NaN otherwise (a callback tests one number
    instead of reducing an array in NumPy, which costs more than the evaluation). Written as a
    comparison: CasADi simplifies the sum's ``total - total`` to 0 when it builds the graph,
    which checked nothing."""
    total = cs.sum1(values) if values.numel() else cs.SX(0)
    return cs.densify(cs.if_else(cs.fabs(total) < cs.inf, 0.0, float("nan")))


def stepping_functions(system, solver: str, sparse: bool = False) -> "SteppingFunctions":
    """The :class:`SteppingFunctions` of ``system`` for ``solver`` (``"idas"`` or
    ``"cvodes"``), dense or ``sparse``, made once per compiled model."""
    key = ("sundials", solver, sparse)
    if key not in system.cache:
        system.cache[key] = SteppingFunctions(system, solver, sparse)
    return system.cache[key]


class SteppingFunctions:
    """The compiled functions of a stepped solver for one compiled model: ``residual`` (IDA:
    F(y, y', p, t); CVODE: f(x, p, t)) and ``jacobian`` (IDA: ∂F/∂y + cj·∂F/∂y' of (y, p, t,
    cj); CVODE: ∂f/∂x of (x, p, t)), each built on first use; the Jacobian is dense unless
    ``sparse``, and a sparse one has every diagonal entry in its pattern (CVODE adds −γ·I in
    place, which needs them). ``linear``: for a sparse model linear in its unknowns (see the
    module docstring), (J's stored entries at cj = 0, an
    :class:`~physlib.analysis.common.affine_jacobian.AffineJacobian`; the rows of F(0, 0) that
    read time and their values as a function of (the parameters they read, t), with those
    parameters' indices, :meth:`_time_offset`); else None. Such a model's run evaluates
    neither the residual nor the Jacobian function (:class:`LinearResidual` and the callbacks
    do J·y + F(0, 0) and J + cj·I with J's numbers), so neither is built: at 100,000 elements
    they are 1.2 million instructions, 0.25 s to build and 20 MB."""

    def __init__(self, system, solver: str, sparse: bool):
        self.system, self.ida, self.sparse = system, solver == "idas", sparse
        self.linear = None
        self.evaluations = 0        # residual evaluations of the model's stepped runs so far
        self._twins = None          # (residual, Jacobian) C twins once asked for; False: none
        self._looked = False        # whether twins an earlier process built were looked for
        # Affine in the unknowns with a J constant in time: every class's equations say so
        # (their derivatives read no variable and not time; CasADi's derivative of sign(v) or
        # floor(v) is 0, so a symbolic J alone could not tell).
        if sparse and system.affine:
            self.linear = (affine_jacobian(system, "ida" if self.ida else "cvode"), self._time_offset())

    @cached_property
    def _unknowns(self):
        """y = [x; z] (IDA) or x (CVODE), the symbols of the DAE's :meth:`dae_dict`."""
        d = self.system.dae_dict()
        return cs.vertcat(d["x"], d["z"]) if self.ida else d["x"]

    def _function(self, name: str, jacobian, *more) -> cs.Function:
        """The function (y or x, p, t, *more) -> ``jacobian`` in its storage."""
        d = self.system.dae_dict()
        return cs.Function(name, [self._unknowns, d["p"], d["t"], *more], [_storage(jacobian, self.sparse)])

    def _rates_jacobian(self):
        """∂F/∂y (IDA: the states' rows of the DAE's Jacobian negated) or ∂f/∂x (CVODE)."""
        J, nx = self.system.dae_jacobian(), len(self.system.state_pos)
        if not self.ida:
            return J if J.size2() == nx else J[:nx, :nx]
        return -J if J.size1() == nx else cs.vertcat(-J[:nx, :], J[nx:, :])

    def _time_offset(self) -> tuple[np.ndarray, cs.Function, np.ndarray]:
        """(the rows of F(0, 0) (CVODE: f(0)) that read time, their values as a function of
        (the parameters they read, t), the indices of those parameters in p). The other rows
        change only with p: :meth:`AffineJacobian.values_and_offset` gives them at each restart.

        Made from the rows' own expressions, over the symbols they read: F(0, 0) of a
        million-element ladder as one function of (p, t) took 0.3 s to build and 1 ms to
        evaluate at each call, for the one source row that reads time."""
        d, dae, nx = self.system.dae_dict(), self.system.dae, len(self.system.state_pos)
        ode_rows, alg_rows = (np.array(dae.sparsity_jac(3, k).row(), dtype=np.int64) for k in (0, 1))
        ode = d["ode"][ode_rows.tolist()]
        if self.ida:    # the residual's rows: 0 − f on the states', g on the others
            rows = np.concatenate([ode_rows, nx + alg_rows]) if alg_rows.size else ode_rows
            value = cs.vertcat(cs.SX.zeros(ode_rows.size) - ode, d["alg"][alg_rows.tolist()])
        else:
            rows, value = ode_rows, ode
        value, parameters, indices = _at_zero_unknowns(value, d)
        name = f"{'ida_residual' if self.ida else 'cvode_rhs'}_time_offset"
        return rows, cs.Function(name, [parameters, d["t"]], [value]), indices

    @cached_property
    def residual(self) -> cs.Function:
        """IDA's residual (y, y', p, t) or CVODE's right-hand side (x, p, t), with its finite
        check (see :func:`_nan_check`)."""
        d = self.system.dae_dict()
        if not self.ida:
            return cs.Function("cvode_rhs", [d["x"], d["p"], d["t"]], [d["ode"], _nan_check(d["ode"])])
        y, nx = self._unknowns, d["x"].numel()
        yp = cs.SX.sym("yp", y.numel())
        value = cs.vertcat(yp[:nx] - d["ode"], d["alg"])
        return cs.Function("ida_residual", [y, yp, d["p"], d["t"]], [value, _nan_check(value)])

    @cached_property
    def jacobian(self) -> cs.Function:
        """IDA's ∂F/∂y + cj·∂F/∂y' of (y, p, t, cj) or CVODE's ∂f/∂x of (x, p, t)."""
        if not self.ida:
            return self._function("cvode_jacobian", self._rates_jacobian())
        nx, nz = len(self.system.state_pos), len(self.system.z_pos)
        cj = cs.SX.sym("cj")
        jac = self._rates_jacobian() + cj * cs.diag(cs.vertcat(cs.DM.ones(nx), cs.DM.zeros(nz)))
        return self._function("ida_jacobian", jac, cj)

    def native(self, evaluations: int):
        """(residual, Jacobian) as their C twins once built; None until then; False when there
        will be none (no compiler, switched off, too large). ``evaluations``: the residual
        evaluations of a run's solver segment that just ended, counted toward asking for them
        (at HOT_EVALUATIONS)."""
        self.evaluations += evaluations
        if self._twins is None:
            if self.evaluations < HOT_EVALUATIONS:
                # not hot yet, but built by an earlier process: they serve at once (a Shockley
                # buck's first 70 edges in CasADi's virtual machine cost 3 ms of its 40)
                if self._looked:
                    return None
                self._looked = True
                twins = (native_twin(self.residual, "functions", build=False),
                         native_twin(self.jacobian, "functions", build=False))
                if None in twins:
                    return None
            else:
                twins = (native_twin(self.residual, "functions"), native_twin(self.jacobian, "functions"))
            self._twins = twins if None not in twins else False
        if not self._twins:
            return False
        built = tuple(twin.function() for twin in self._twins)
        return None if None in built else built

    @cached_property
    def pattern(self) -> tuple[np.ndarray, np.ndarray]:
        """The compressed-column pattern (colind, row) of the Jacobian's storage (the same for
        ``jacobian`` and the linear entries: J's pattern and the whole diagonal), found once
        per model: a million-element ladder's 1.5 million entries are lists from CasADi
        (50 ms) that each run's solver would otherwise read again."""
        if self.linear is not None:
            return self.linear[0].colind, self.linear[0].row
        pattern = self.jacobian.sparsity_out(0)
        return np.array(pattern.colind(), dtype=np.int64), np.array(pattern.row(), dtype=np.int64)


class LinearResidual:
    """F(y, y') = J·y + F(0, 0) (+ y' on the first ``rows_with_rates`` rows: IDA's states; 0
    for CVODE) and the solver's Jacobian J + cj·I (on the same rows' diagonal) for a linear
    model, from :attr:`SteppingFunctions.linear` ``functions``: J's stored entries (``values``,
    on the sparse Jacobian's pattern ``colind``/``row``, the
    :class:`~physlib.analysis.common.affine_jacobian.AffineJacobian`'s),
    evaluated by :meth:`restart` with ``offset``, F(0, 0) at the restart's p; and
    ``time_offset`` (buffered), the values of F(0, 0)'s ``time_rows`` (the rows that read time)
    of p's entries ``time_parameters`` and t, written into ``offset`` at each call. The compiled
    callbacks read the same arrays and do the same arithmetic in the same order as
    :meth:`evaluate` and :meth:`jacobian`, so both give the same numbers bit for bit; they are
    the DAE's residual and Jacobian to within its own rounding.

    A switching circuit's restarts return to a few parameter vectors (its modes'
    combinations): the entries of the last :data:`REMEMBERED_PARAMETERS` are kept."""

    def __init__(self, functions, colind, row, rows_with_rates: int):
        self.affine_jacobian = functions[0]
        if not np.array_equal(row, self.affine_jacobian.row):
            raise ValueError("the linear solver's pattern is not the Jacobian's")
        self.time_rows, time_offset, self.time_parameters = functions[1]
        self.time_offset = buffered(time_offset)
        self.colind, self.row = colind, row
        self.offset = np.zeros(colind.size - 1)
        self.values = np.zeros(row.size)
        self.rows_with_rates = rows_with_rates
        column = np.repeat(np.arange(colind.size - 1), np.diff(colind))
        # where cj goes: the diagonal entry of each row with a rate (every one is stored)
        self.diagonal = np.flatnonzero((row == column) & (row < rows_with_rates)).astype(np.int64)
        self.jacobian_out = np.zeros(row.size)   # the solver's Jacobian, J + cj·I
        self.matrix = None
        self._remembered: dict[bytes, np.ndarray] = {}

    def restart(self, p, t: float) -> None:
        """Evaluate J's entries and F(0, 0) for the parameter vector p (at time t, where the
        sources are finite: J reads no time) and set the time rows' parameters."""
        p = np.asarray(p, dtype=float)
        self.time_offset[2][0][:] = p[self.time_parameters]
        key = p.tobytes()
        found = self._remembered.pop(key, None)
        if found is None:
            found = self.affine_jacobian.values_and_offset(p, t)
            if len(self._remembered) >= REMEMBERED_PARAMETERS:
                del self._remembered[next(iter(self._remembered))]
        self._remembered[key] = found           # the most recent last
        self.values[:], self.offset[:] = found
        # made by the first Python evaluation: the compiled callbacks read ``values`` themselves,
        # and SciPy's sparse module took 0.17 s to import in a large model's first run
        self.matrix = None

    def evaluate(self, t: float, y, yp, out) -> bool:
        """F at (t, y, y') into ``out`` (yp None for CVODE); whether it is finite."""
        if self.time_rows.size:
            _, trigger, (_, t_in), (time_values,) = self.time_offset
            t_in[0] = t
            trigger()
            self.offset[self.time_rows] = time_values
        if self.matrix is None:
            n = self.colind.size - 1
            self.matrix = sps.csc_matrix((self.values, self.row, self.colind), shape=(n, n))
        r = self.matrix @ y           # column by column from zeros, as the C loop
        r += self.offset
        if yp is not None:
            r[:self.rows_with_rates] += yp[:self.rows_with_rates]
        out[:] = r
        return bool(np.isfinite(r).all())

    def jacobian(self, cj: float):
        """The solver's Jacobian's stored entries at ``cj`` (0 for CVODE)."""
        out = self.jacobian_out
        out[:] = self.values
        out[self.diagonal] += cj
        return out


def _storage(jac, sparse: bool):
    """The Jacobian dense, or sparse with its whole diagonal in the pattern (structural zeros
    where it has none)."""
    return jac + cs.SX.zeros(cs.Sparsity.diag(jac.size1())) if sparse else cs.densify(jac)
