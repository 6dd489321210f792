"""Linearization of a compiled model at an operating point.

At (x_e, z_e, u_e) of x' = f(x, z, u), 0 = g(x, z, u), y = h(x, z, u), with exact CasADi
Jacobians and the algebraic variables eliminated::

    A = f_x − f_z g_z⁻¹ g_x     B = f_u − f_z g_z⁻¹ g_u
    C = h_x − h_z g_z⁻¹ g_x     D = h_u − h_z g_z⁻¹ g_u

``descriptor=True`` keeps them instead: E [x; z]' = A [x; z] + B u with E = diag(I, 0).
A singular g_z means the algebraic variables cannot be eliminated at that point (the index is
above one there, or a derivative enters only through a coefficient that is zero there: a
MOSFET's Meyer gate–drain capacitance in saturation): a :class:`SingularPointError`, or with
``descriptor="auto"`` the descriptor form, whose pencil s·E − A may well be regular there
(the SPICE reader's .ac, .noise and .tf linearize so).

Inputs are parameter paths — source values given as numbers (``"src.V"``, ``"tau1.tau"``) or
any other parameter — or signal inputs driven by a waveform (``"src.V"`` with ``V=Step(...)``),
perturbed through the waveform's offset. The model is linearized in its current modes (a
locked clutch stays locked).

**Analysis points** (:mod:`physlib.analysis.linear.analysis_points`) perturb a port of a model
before compilation; :func:`linearize` accepts them with the :class:`physlib.Model`.
"""
from __future__ import annotations

import casadi as cs
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ...assembly.netlist import Netlist
from ...core.arrays import difference
from ...core.errors import PhyslibError, UnknownNameError
from ..common.options import OptionError, finite_option
from .linearize_options import descriptor_option, is_result, path_list, refuse_steady_state_options
from .analysis_points import AnalysisPoint, with_analysis_points
from .linear_model import LinearModel
from .linear_sensitivity import Linearization
from .model_inputs import rate_input_reason
from .operating_point import OperatingPoint, input_names, operating_point, resolve_input
from .path_units import PathUnits
from ..common.affine_jacobian import affine_jacobian
from ..common.projection import constraint_jacobian


class SingularPointError(PhyslibError):
    """The algebraic equations are singular at the point: an explicit linear model does not
    exist there (``descriptor=True`` or ``"auto"`` gives the descriptor form)."""


# An affine model with more unknowns than this has ∂[f; g]/∂[x; z] evaluated on colored seeds
# (physlib.analysis.common.affine_jacobian), not derived symbolically: CasADi's symbolic
# Jacobian of the whole model was a third of a 100,000-element circuit's linearization.
NUMERIC_JACOBIAN_ABOVE = 1000


def linearize(model, inputs, outputs, *, at=None, descriptor: bool | str = False, params: dict | None = None,
              t: float = 0.0, times=None):
    """Linear model of ``model`` from ``inputs`` to ``outputs`` (lists of paths).

    model: a :class:`CompiledModel`, or a :class:`physlib.Model` (compiled here; needed when an
    input or output is an analysis point, :func:`inject_through` / :func:`inject_across`).
    at: an :class:`OperatingPoint` (``sim.operating_point(...)``, ``sim.trim(...)``,
    ``res.at(t)``), a list of them, or a :class:`SimulationResult` with ``times=[...]`` (one
    LinearModel per time: a list); default: the steady state at time ``t`` with ``params``
    (an error if there is none — linearizing away from steady state needs an explicit ``at``).
    descriptor: keep the algebraic variables (E, A, B, C, D); ``"auto"``: eliminate them
    where g_z is regular at the point, else keep them (a frequency response needs no more).
    """
    inputs, outputs = path_list("inputs", inputs), path_list("outputs", outputs)
    t, descriptor = finite_option("linearize: t", t), descriptor_option(descriptor)
    if isinstance(model, Netlist):
        points = [p for p in inputs + outputs if isinstance(p, AnalysisPoint)]
        extended, value_paths = with_analysis_points(model, dict.fromkeys(p for p in points if p in inputs))
        compiled = extended.compile()
        mapped_in = [value_paths[p] if isinstance(p, AnalysisPoint) else p for p in inputs]
        if at is not None:
            raise PhyslibError("linearize(Model, ...) compiles the model here, so `at` cannot be an "
                               "operating point of another compiled model; leave it out (steady state)")
        lin = _linearize_compiled(compiled, mapped_in, outputs, at, descriptor, params, t, times,
                                  names=[str(p) for p in inputs])
        return lin
    if any(isinstance(p, AnalysisPoint) for p in inputs):
        raise PhyslibError(
            "an analysis point as input changes the model (a zero-valued source is inserted), which "
            "needs the model before compilation: call physlib.linearize(model, inputs=[...], "
            "outputs=[...]) with the physlib.Model instead of the CompiledModel")
    return _linearize_compiled(model, inputs, outputs, at, descriptor, params, t, times)


def _linearize_compiled(model, inputs, outputs, at, descriptor, params, t, times, names=None):
    if not inputs and not outputs:
        raise PhyslibError("linearize needs inputs and/or outputs, e.g. inputs=['src.V'], outputs=['C1.v']")
    if at is None:
        if times is not None:
            raise OptionError("linearize: times= picks points along a simulation result given as at=res; "
                              "without at= it has no use: leave it out, or give at=res")
        try:
            at = operating_point(model, t=t, params=params)
        except PhyslibError as err:
            raise PhyslibError(
                f"linearize without `at` linearizes at the steady state, and none was found: {err}. "
                "To linearize away from steady state, pass at= an operating point explicitly "
                "(e.g. at=res.at(t))") from None
        return _linearize_at(model, inputs, outputs, at, descriptor, names)
    refuse_steady_state_options(at, params, t, times)
    if is_result(at):
        if times is None:
            raise PhyslibError("linearizing along a result needs times=[...] (e.g. at=res, times=[0.5, 1.0])")
        at = [at.at(float(tt)) for tt in np.atleast_1d(times)]
    elif isinstance(at, tuple) and len(at) == 2 and is_result(at[0]):
        at = [at[0].at(float(tt)) for tt in np.atleast_1d(at[1])]
    if isinstance(at, (list, tuple)):
        return [_linearize_at(model, inputs, outputs, op, descriptor, names) for op in at]
    return _linearize_at(model, inputs, outputs, at, descriptor, names)


def _linearize_at(model, inputs, outputs, op, descriptor, names=None):
    if not isinstance(op, OperatingPoint):
        raise PhyslibError(f"at must be an OperatingPoint (sim.operating_point(), res.at(t)), got {op!r}")
    if op.model is not model:
        raise PhyslibError("the operating point belongs to another compiled model")
    x, z, p, t = op.x, op.z, op.p, op.t
    automatic, descriptor = descriptor == "auto", bool(descriptor) and descriptor != "auto"
    slots, gains = _input_slots(model, inputs, p, t)
    positions, signs = _output_positions(model, outputs)
    fx, fz, fu, gx, gz, gu, hx, hz, hu = _jacobians(model, slots, gains, positions, signs, op)
    nx, nz = len(x), len(z)
    input_labels = names or list(inputs)
    output_labels = [str(o) for o in outputs]
    input_units = PathUnits(model, [input_labels], dict(zip(input_labels, inputs)))
    rates = {label: why for label, name in zip(input_labels, inputs) if (why := rate_input_reason(model, name))}
    measured = {str(o): _output_path(model, o) for o in outputs if isinstance(o, AnalysisPoint)}
    lu = None
    if nz and not descriptor:
        try:
            lu = _factor_algebraic(model, gz, op)
        except SingularPointError:
            if not automatic:
                raise
            descriptor = True           # the same Jacobians, kept in descriptor form
    keep, T = (None, None) if descriptor else constrained_coordinates(model, x, z, p, t)
    origin = Linearization(model, tuple(inputs), tuple(slots), tuple(gains.tolist()),
                           tuple(positions.tolist()), tuple(signs.tolist()),
                           descriptor, keep is not None)
    if descriptor:
        E = sps.diags(np.r_[np.ones(nx), np.zeros(nz)], format="csr")
        A = sps.bmat([[fx, fz], [gx, gz]], format="csr") if nx + nz else sps.csr_matrix((0, 0))
        states = model.states + model.algebraic
        return LinearModel(A, sps.vstack([fu, gu]), sps.hstack([hx, hz]), hu, E=E, states=states,
                           inputs=input_labels, outputs=output_labels, at=op, origin=origin,
                           units=PathUnits(model, [states, output_labels], measured), input_units=input_units,
                           rate_inputs=rates)
    if nz:
        gzx, gzu = _solve_sparse(lu, gx), _solve_sparse(lu, gu)
        A, B = fx - fz @ gzx, fu - fz @ gzu
        C, D = hx - hz @ gzx, hu - hz @ gzu
    else:
        A, B, C, D = fx, fu, hx, hu
    if keep is not None:
        T = sps.csr_matrix(T)
        A, B, C = A[keep] @ T, B[keep], C @ T
    states = [model.states[i] for i in keep] if keep is not None else model.states
    return LinearModel(A, B, C, D, states=states, inputs=input_labels, outputs=output_labels, at=op,
                       origin=origin, units=PathUnits(model, [states, output_labels], measured),
                       input_units=input_units, rate_inputs=rates)


def _solve_sparse(lu, rhs):
    """g_z⁻¹·rhs as a sparse matrix, solving only for the nonzero columns of ``rhs`` (g_x
    touches the few states the algebraic equations read)."""
    rhs = sps.csc_matrix(rhs)
    columns = np.flatnonzero(np.diff(rhs.indptr))
    solved = lu.solve(rhs[:, columns].toarray()) if len(columns) else np.zeros((rhs.shape[0], 0))
    place = sps.csr_matrix((np.ones(len(columns)), (np.arange(len(columns)), columns)),
                           shape=(len(columns), rhs.shape[1]))
    return sps.csr_matrix(solved) @ place


def _input_slots(model, inputs, p, t):
    """(parameter slot, gain) of each input: its value enters the parameter vector as gain·u."""
    slots, gains = [], []
    for name in inputs:
        if not isinstance(name, str):
            raise PhyslibError(f"an input is a path such as 'src.V', got {name!r}")
        try:
            slot, gain = resolve_input(model, name, p, t)
        except UnknownNameError:
            raise UnknownNameError(
                f"unknown input {name!r}; valid inputs: {', '.join(input_names(model)) or '(none)'} "
                "(or any parameter path, or physlib.inject_through/inject_across at a port)") from None
        slots.append(slot)
        gains.append(gain)
    return slots, np.array(gains)


def _jacobians(model, slots, gains, positions, signs, op):
    """f_x, f_z, f_u, g_x, g_z, g_u, h_x, h_z, h_u at ``op`` as SciPy sparse matrices (CSR),
    for inputs entering the parameter vector at ``slots`` as gain·u and outputs at the
    ``positions`` with their ``signs``, outputs signed: CasADi's sparse Jacobians, never made dense (a
    10 000-element circuit's f_x has a few nonzeros per row).

    Jacobians with respect to the input parameters only (a noise analysis has one input per
    dissipative element; the whole parameter vector would be thousands of columns more),
    compiled once per set of outputs and input slots. An output that is a state or an
    algebraic variable (a circuit's node voltage) has a unit row, written here: CasADi's
    Jacobian of 5 000 such outputs took longer than that of the equations. A large affine
    model's f_x, f_z, g_x, g_z are its colored-seed Jacobian's (NUMERIC_JACOBIAN_ABOVE)."""
    system = model.system
    x, z, p, t = op.x, op.z, op.p, op.t
    state_of, algebraic_of = _unknown_of_position(model)
    unit_x, unit_z = state_of[positions], algebraic_of[positions]
    derived = np.flatnonzero((unit_x < 0) & (unit_z < 0))     # the outputs CasADi differentiates
    distinct = tuple(dict.fromkeys(slots))
    key = ("linearize_jac", tuple(positions[derived].tolist()), distinct)
    nx = len(x)
    numeric = system.affine and nx + len(z) > NUMERIC_JACOBIAN_ABOVE
    if key not in system.cache:
        dae = system.dae_dict()
        xs, zs, ps, ts, ode, alg = (dae[k] for k in ("x", "z", "p", "t", "ode", "alg"))
        # every output's expression only when some output is not a state or algebraic variable
        # (a circuit's node voltages all are: 1.3 million expressions at a million elements)
        h = system.output_expressions()[positions[derived].tolist()] if derived.size else cs.SX(0, 1)
        us = cs.vertcat(*[ps[k] for k in distinct]) if distinct else cs.SX(0, 1)
        readers = [_jacobian_of_readers(ode, us), _jacobian_of_readers(alg, us)]
        if numeric:     # ∂[f; g]/∂[x; z] below, numerically
            jac = readers
        else:
            J = system.dae_jacobian()       # ∂[f; g]/∂[x; z], shared
            jac = [J[:nx, :nx], J[:nx, nx:], readers[0], J[nx:, :nx], J[nx:, nx:], readers[1]]
        system.cache[key] = cs.Function("linearize_jac", [xs, zs, ps, ts],
                                        jac + [cs.jacobian(h, v) for v in (xs, zs, us)])
    blocks = [sps.csr_matrix(m.sparse()) for m in system.cache[key](x, z, p, t)]
    if numeric:
        J = affine_jacobian(system, "dae")
        whole = sps.csc_matrix((J.values(p, t), J.row, J.colind), shape=(J.n, J.n)).tocsr()
        whole.eliminate_zeros()             # the pattern's diagonal, where J has none
        blocks = [whole[:nx, :nx], whole[:nx, nx:], blocks[0], whole[nx:, :nx], whole[nx:, nx:],
                  blocks[1]] + blocks[2:]
    # the outputs' rows: CasADi's for the derived ones, unit rows for the others
    place = sps.csr_matrix((np.ones(derived.size), (derived, np.arange(derived.size))),
                           shape=(len(positions), derived.size))
    for k, (unit, width) in zip((6, 7), ((unit_x, len(x)), (unit_z, len(z)))):
        picked = np.flatnonzero(unit >= 0)
        blocks[k] = place @ blocks[k] + sps.csr_matrix(
            (np.ones(picked.size), (picked, unit[picked])), shape=(len(positions), width))
    blocks[8] = place @ blocks[8]
    blocks[6:] = [sps.diags(signs, format="csr") @ m for m in blocks[6:]] if len(signs) else blocks[6:]
    columns = [distinct.index(k) for k in slots]
    for k in (2, 5, 8):         # parameter columns -> inputs (the same slot may serve twice)
        blocks[k] = (blocks[k][:, columns] @ sps.diags(1.0 / gains) if slots
                     else sps.csr_matrix((blocks[k].shape[0], 0)))
    return blocks


def _jacobian_of_readers(expr, v):
    """∂expr/∂v (expr a column) differentiating only the entries of expr that read v: CasADi's
    jacobian traverses the whole expression (13 ms for a 10,000-element circuit's 5,000
    equations and one input), where the two equations a source enters take 0.3 ms and finding
    them 4 ms."""
    if not expr.nnz() or not v.numel():
        return cs.jacobian(expr, v)
    rows = np.asarray(expr.sparsity().row())[np.asarray(cs.which_depends(expr, v, 1, True), dtype=bool)]
    if not rows.size:
        return cs.SX(expr.numel(), v.numel())
    # the rows' derivatives moved to their places by a 0/1 matrix (sparse: no zeros stored)
    place = cs.DM(cs.Sparsity.triplet(expr.numel(), rows.size, rows.tolist(), list(range(rows.size))),
                  1.0)
    return cs.mtimes(place, cs.jacobian(expr[rows.tolist()], v))


def _unknown_of_position(model):
    """(state index, algebraic index) of each representative position, -1 where it is not
    one (cached per compiled model)."""
    system = model.system
    if "linearize_unknowns" not in system.cache:
        size = system.n_positions
        state_of, algebraic_of = np.full(size, -1), np.full(size, -1)
        state_of[system.state_pos] = np.arange(len(system.state_pos))
        algebraic_of[system.z_pos] = np.arange(len(system.z_pos))
        system.cache["linearize_unknowns"] = state_of, algebraic_of
    return system.cache["linearize_unknowns"]


def constrained_coordinates(model, x, z, p, t):
    """States that stay independent under the mode constraints active at the point, and T with
    x = T·x[keep] on the constraint manifold; (None, None) when no constraint is active.

    A locked clutch makes its two shafts' speeds equal (H·x = 0 with H the active constraints'
    Jacobian): the linear model then has one speed for them, as a hand-derived model of the
    locked drivetrain would. The states that go are chosen from the last one backwards (each
    one that adds to the rank of H's chosen columns), so the first-named of equal states stays."""
    system = model.system
    if not len(x) or not system.constraints.nnz_out(0):
        return None, None
    active = np.asarray(system.constraints(x, z, p, t)[1]).ravel() > 0.5
    if not np.any(active):
        return None, None
    H = constraint_jacobian(system, x, z, p, t)[active]
    n = H.shape[1]
    rank = np.linalg.matrix_rank(H)
    if rank == 0:
        return None, None
    basis, dependent = np.zeros((H.shape[0], 0)), []
    for j in range(n - 1, -1, -1):
        column = H[:, j]
        residual = column - basis @ (basis.T @ column)
        if np.linalg.norm(residual) > 1e-10 * max(np.linalg.norm(column), 1e-300):
            basis = np.column_stack([basis, residual / np.linalg.norm(residual)])
            dependent.append(j)
            if len(dependent) == rank:
                break
    dependent = np.sort(dependent)
    keep = difference(np.arange(n), dependent)
    T = np.zeros((n, len(keep)))
    T[keep, np.arange(len(keep))] = 1.0
    T[dependent] = -np.linalg.lstsq(H[:, dependent], H[:, keep], rcond=None)[0]
    return keep, T


def _output_path(model, name):
    """The variable path an output stands for: itself, or the variable an analysis point
    measures (the across variable of its port for a through injection, and vice versa)."""
    if not isinstance(name, AnalysisPoint):
        return name
    domain_vars = [v for v in model.variables if v.startswith(name.port + ".")
                   and v.count(".") == name.port.count(".") + 1]
    if len(domain_vars) != 2:
        raise UnknownNameError(f"analysis point {name}: {name.port} is not a physical port of {model.name}")
    across, through = domain_vars   # ports list their across variable first
    return across if name.kind == "through" else through


def _output_positions(model, outputs) -> tuple[np.ndarray, np.ndarray]:
    """(positions, signs) of the variables the ``outputs`` (paths or analysis points) stand for."""
    paths = [_output_path(model, name) if isinstance(name, AnalysisPoint) else name for name in outputs]
    wrong = next((name for name in paths if not isinstance(name, str)), None)
    if wrong is not None:
        raise PhyslibError(f"an output is a variable path such as 'C1.v', got {wrong!r}")
    try:
        return model.variable_positions(paths)
    except UnknownNameError as err:
        name = next(name for name in paths if not model.has_variable(name))
        raise UnknownNameError(f"unknown output {name!r}: {err}; outputs are variable paths — "
                               f"e.g. states {', '.join(model.states[:8])}; all paths: sim.variables") from None


def _factor_algebraic(model, gz, op):
    """The sparse LU factors of g_z (SuperLU); raises when g_z is singular at the point, or
    so ill-conditioned (1-norm condition number of the row- and column-equilibrated g_z
    estimated at 1e13 or more) that the index is above one there."""
    gz = sps.csc_matrix(gz)
    try:
        lu = spla.splu(gz)
    except RuntimeError:                # "Factor is exactly singular"
        _index_error(model, gz, op, np.inf)
    # The condition of g_z equilibrated (rows, then columns, by their largest entry): an
    # unknown that enters only through a small coefficient (the time derivative of a
    # transistor's junction voltage times its pF capacitance) is a matter of units, not of
    # index; a singular g_z stays singular under any scaling.
    rows = 1.0 / np.maximum(abs(gz).max(axis=1).toarray().ravel(), 1e-300)
    scaled = sps.diags(rows) @ gz
    cols = 1.0 / np.maximum(abs(scaled).max(axis=0).toarray().ravel(), 1e-300)
    scaled = sps.csc_matrix(scaled @ sps.diags(cols))
    if gz.shape[0] <= 64:           # exactly, from the inverse
        inverse_norm = np.abs(lu.solve(np.diag(1.0 / rows)) / cols[:, None]).sum(axis=0).max()
    else:                           # the scaled inverse: diag(1/cols)·g_z⁻¹·diag(1/rows)
        def solve(b, scale_in, scale_out, trans="N"):
            """diag(1/scale_out)·g_z⁻¹·diag(1/scale_in)·b (g_z⁻ᵀ for trans "T") for a vector,
            an (n, 1) column or a block of columns: onenormest passes all three."""
            columns = np.asarray(b).reshape(len(scale_in), -1)
            solved = lu.solve(columns / scale_in[:, None], trans) / scale_out[:, None]
            return solved.reshape(np.shape(b))
        inverse = spla.LinearOperator(
            gz.shape, matvec=lambda v: solve(v, rows, cols), matmat=lambda v: solve(v, rows, cols),
            rmatvec=lambda v: solve(v, cols, rows, "T"), rmatmat=lambda v: solve(v, cols, rows, "T"))
        inverse_norm = spla.onenormest(inverse)
    cond = spla.norm(scaled, 1) * inverse_norm
    if not (np.isfinite(cond) and cond < 1e13):
        _index_error(model, gz, op, cond)
    return lu


def _index_error(model, gz, op, cond):
    _, s, vt = np.linalg.svd(gz.toarray())
    null = np.abs(vt[-1])
    involved = [model.algebraic[i] for i in np.argsort(-null)[:8] if null[i] > 1e-6]
    modes = model.modes
    mode_text = (" in mode " + ", ".join(f"{m} = {int(op.p[model.mode_slot(m)])}" for m in modes)) if modes else ""
    raise SingularPointError(
        f"cannot linearize {model.name} at t = {op.t:g}{mode_text}: the algebraic equations are "
        f"singular there (∂g/∂z has condition number {cond:.3g}), so the DAE's index is above one "
        f"at this point and the algebraic variables {', '.join(involved)} cannot be eliminated. "
        "Linearize at another point, or use descriptor=True for the (E, A, B, C, D) form")
