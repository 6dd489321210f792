"""The steady-state solver behind :func:`~physlib.analysis.linear.operating_point.operating_point` and
:func:`~physlib.analysis.linear.operating_point.trim`.

One square nonlinear system, with exact CasADi Jacobians: unknowns w = [x_kept, z, p_free]
(the states a steady state can fix, the algebraic variables, the free inputs or parameters of
a trim), equations [f_kept = 0, g = 0, y_target − value = 0]. First Newton's method with full
steps (compiled, ``casadi.rootfinder``, for small systems); if that fails, a damped Newton method from the guess; then
continuation (:mod:`physlib.analysis.linear.homotopy`): gmin stepping (the junctions'
conductances stepped down from 1e-2 S), source stepping (every source value scaled from 0 to
1) and a Newton homotopy from the guess (F(w) − (1 − λ)·F(w₀) = 0 for λ from 0 to 1). The
result says which one converged and in how many solves.

States that no equation reads (angles and positions whose only role is der(phi) = w: the
model is invariant to them) cannot be fixed by a steady state. They keep their start (or
guessed) value and their derivative is not required to vanish.

Modes settle as at the start of a simulation (:meth:`HybridStepper.start
<physlib.analysis.simulation.events.HybridStepper.start>`): the steady state is solved in the
start modes, the hybrid components' transitions are asked at the solved point (a switch whose
control is 1 closes, a forward-biased ideal diode conducts), and the steady state is solved
again in the modes they ask for, until nothing changes
(:mod:`physlib.analysis.common.hybrid_components`). A guard counts as crossed when it changes
sign between the previous steady state (taken into the new modes, as a simulation would be just
after the change) and the new one: a run from one to the other would meet that event first (a
brake that starts sliding forward and whose new steady slip is backward sticks instead). A set
of modes met twice (each set asks for another: no consistent one) or more than
:func:`max_mode_rounds` rounds is a :class:`ModeSettlingError` naming the components.
"""
from __future__ import annotations

from functools import cached_property

import casadi as cs
import numpy as np

from ...core.errors import InitializationError, ModeSettlingError, PhyslibError
from ..common.affine_jacobian import affine_jacobian
from ..common.fast_call import fast
from ..common.hybrid_components import hybrid_instances, max_mode_rounds, mode_requests, no_crossings, set_modes
from ..common.initialization import damped_newton, null_space_members, solve_algebraic
from ..common.sparse_lu import as_columns, solve_step
from .direct_newton import COMPILED_NEWTON_SIZE, direct_newton
from .homotopy import NEWTON, NotConverged, continuation
from .model_inputs import resolve_input, set_inputs
from ..common.start_values import check_finite

# A guard smaller than this at the new steady state is zero up to rounding: no crossing.
GUARD_NOISE = 1e-12


def ignorable_states(system) -> np.ndarray:
    """States that neither f nor g reads (structurally): positions that only integrate a speed.
    Read from the DAE function's dependency pattern, which CasADi finds without differentiating."""
    if "op_ignorable" not in system.cache:
        nx = len(system.state_pos)
        used = np.zeros(nx, dtype=bool)
        for output in (0, 1):                   # f, g: their dependence on x
            pattern = system.dae.sparsity_jac(0, output)
            used |= np.diff(np.asarray(pattern.colind(), dtype=np.int64)) > 0
        system.cache["op_ignorable"] = ~used
    return system.cache["op_ignorable"]


def steady_residual(model, x, z, p, t) -> float:
    """The largest derivative a steady state can fix, relative to 1 + |x|."""
    if not len(x):
        return 0.0
    keep = ~ignorable_states(model.system)
    f = np.asarray(model.system.dae(x, z, p, t)[0]).ravel()[keep]
    scale = 1.0 + np.abs(x[keep])
    return float(np.max(np.abs(f) / scale)) if f.size else 0.0


def solve_steady_state(model, t, params, inputs, x_guess, z_guess, targets, free, tol, max_iter):
    """(x, z, p, events, (method, steps)) of the steady state at t with ``targets`` met by the
    ``free`` names (none for a plain operating point), in settled modes (they are in p);
    ``events``: the mode changes from the start modes
    (:class:`~physlib.analysis.common.hybrid_components.Event`, cause ``"initial"``); method:
    how the last solve (in the settled modes) converged, ``"newton"``, ``"gmin stepping"``,
    ``"source stepping"`` or ``"homotopy"``, in ``steps`` continuation solves (0 for Newton;
    :mod:`physlib.analysis.linear.homotopy`). See the module docstring."""
    p = model.parameter_vector(params)
    set_inputs(model, p, t, inputs)
    x, z = _guess(model, p, t, x_guess, z_guess)
    problem = _SteadyProblem(model, len(x), len(z), p, t, targets, free)
    solved = _settle_modes(model, lambda x, z, p: _solve(model, problem, x, z, p, tol, max_iter), x, z, p, t)
    return (*solved, problem.convergence)


def _solve(model, problem, x, z, p, tol, max_iter):
    """(x, z, p) of the steady state in the modes held by p, from the guess (x, z, p);
    ``problem.convergence``: (method, steps) of the solve (:mod:`physlib.analysis.linear.homotopy`)."""
    problem.start_from(x, z, p)
    problem.convergence = (NEWTON, 0)
    if problem.w0.size:
        w = direct_newton(problem, problem.args(p))
        if w is None:
            w, method, steps = _continuation(model, problem, p, tol, max_iter)
            problem.convergence = (method, steps)
        x, z, p = problem.split(w, p)
    # An explicitly solved equation that divides by zero (a loop whose coefficients cancel)
    # is an error naming it, as at the start of a simulation, not an operating point of infs.
    check_finite(model, x, z, p, problem.t, "at the operating point")
    return x, z, p


def _settle_modes(model, solve, x, z, p, t):
    """Steady states ``solve(x, z, p) -> (x, z, p)``, each from the one before, until the hybrid
    components' transitions at the solved point ask for no other modes; returns (x, z, p,
    events). See the module docstring."""
    instances = hybrid_instances(model)
    if not instances:
        return (*solve(x, z, p), [])
    system, g_ref = model.system, None
    slots = [slot for inst in instances for slot in inst.mode_slot.values()]
    events, seen = [], {tuple(p[slots])}
    for _ in range(max_mode_rounds(instances)):
        pre = p.copy()
        try:
            x, z, p = solve(x, z, p)
        except InitializationError as err:
            if not events:
                raise
            raise InitializationError(
                f"no steady state in the modes the components' transitions chose at the operating "
                f"point ({_changes(events)}): {err}") from None
        _check_locks(model, x, z, p, t, events)
        g = fast(system, "guards")(x, z, p, t)
        fired = no_crossings(model) if g_ref is None else (g_ref * g < 0) & (np.abs(g) > GUARD_NOISE)
        requests = mode_requests(instances, fast(system, "outputs")(x, z, p, t), p, pre, fired)
        if not requests:
            return x, z, p, events
        events += set_modes(requests, p, t, "initial")
        if tuple(p[slots]) in seen:
            raise _not_settling(requests, events, t, "a set of modes came back")
        seen.add(tuple(p[slots]))
        g_ref = _guards_entering(model, x, z, p, t)
    raise _not_settling(requests, events, t, f"still changing after {max_mode_rounds(instances)} rounds")


def _check_locks(model, x, z, p, t, events) -> None:
    """Raise when a mode constraint active at the steady state (a stuck clutch's or brake's
    w_rel = 0, a contact) does not hold there: the steady-state equations have the lock's
    derivative only, so its value is left at the guess."""
    system = model.system
    if not len(x) or not system.constraints.nnz_out(0):
        return
    h, active, _ = (np.asarray(v).ravel() for v in system.constraints(x, z, p, t))
    broken = np.flatnonzero((active > 0.5) & (np.abs(h) > 1e-9 * (1 + np.max(np.abs(x)))))
    if not broken.size:
        return
    groups = model.component_groups
    owners = sorted({groups[system.constraint_owner[r][0]].paths[system.constraint_owner[r][1]] for r in broken})
    raise InitializationError(
        f"the operating point puts {', '.join(owners)} in a locked mode (changes: {_changes(events) or 'none'}), "
        f"and its lock does not hold there (constraint value {h[broken[0]]:.3g}): a steady-state "
        "solve has a lock's derivative only, not the lock itself, so stuck clutches, brakes and "
        "contacts are not supported at operating points yet. Simulate to rest and read the point "
        "with res.at(t)")


def _guards_entering(model, x, z, p, t):
    """The guards of the new modes p at the steady state x of the old ones (the algebraic
    variables solved again), as a simulation would have them just after the mode change; None
    when the new modes' algebraic equations have no solution there."""
    try:
        z = solve_algebraic(model.system, x, z, p, t, model.algebraic.__getitem__)
    except InitializationError:
        return None
    return fast(model.system, "guards")(x, z, p, t)


def _changes(events) -> str:
    return "; ".join(f"{e.component} {e.before} -> {e.after}" for e in events)


def _not_settling(requests, events, t, why) -> ModeSettlingError:
    names = ", ".join(sorted(inst.path for inst, _ in requests))
    return ModeSettlingError(
        f"the modes of {names} do not settle at the operating point (t = {t:g} s): {why}, the "
        f"steady state in each set asking for another (changes: {_changes(events[-12:])}), so no "
        "set is consistent with a steady state. Ideal elements that contradict each other (ideal "
        "diodes driving a negative resistance): check the circuit or give these components a "
        "smooth model (Diode for IdealDiode); a circuit that oscillates (a relaxation "
        "oscillator) has no steady state: simulate it and read a point with res.at(t)")


def _guess(model, p, t, x_guess, z_guess):
    system = model.system
    x, z = fast(system, "start")(p, t)     # (a CasADi call converted a million-element p: 0.14 s)
    for given, vector, kind in ((x_guess, x, "state"), (z_guess, z, "algebraic variable")):
        if not given:
            continue
        index = {name: i for i, name in enumerate(model.states if vector is x else model.algebraic)}
        for name, value in given.items():
            if name not in index:
                pos, sign = model.variable(name)   # unknown names raise with suggestions
                for other, i in index.items():
                    if model.variable(other)[0] == pos:
                        vector[i] = sign * model.variable(other)[1] * float(value)
                        break
                else:
                    raise PhyslibError(f"{name} is not a {kind} of {model.name}; "
                                       f"{kind}s: {', '.join(list(index)[:12]) or '(none)'}")
            else:
                vector[index[name]] = float(value)
    return x, z


class _SteadyProblem:
    """The square system of a steady state of a model with nx states and nz algebraic
    variables: unknowns w = [x_kept, z, p_free], equations [f_kept, g, y_target − value], as
    the CasADi function ``FJ(w, args) -> (F, dF/dw)`` with args = [x, p, t]
    (:meth:`args`; p holds the modes), and as SX expressions (:attr:`symbolic`) for CasADi's
    compiled Newton. :meth:`start_from` sets the guess.

    A large model affine in its unknowns (more than COMPILED_NEWTON_SIZE of them, a plain
    operating point) evaluates F by its DAE function and J, constant, on colored seeds
    (:class:`_AffineSteadyFunction`): CasADi's symbolic Jacobian of the whole model was most
    of a 100,000-element circuit's operating point."""

    def __init__(self, model, nx, nz, p, t, targets, free):
        self.t = t
        self.keep = np.flatnonzero(~ignorable_states(model.system)) if nx else np.zeros(0, dtype=int)
        self.nx, self.nz = nx, nz
        self.free_slots = []
        for name in free:
            slot, _ = resolve_input(model, name, p, t)
            if slot in self.free_slots:
                raise PhyslibError(f"trim: {name} is listed twice among the free names")
            self.free_slots.append(slot)
        self.x = self.w0 = None
        self.convergence = (NEWTON, 0)
        self._model, self._free, self._targets = model, free, targets
        self._build(model.system, [model.variable(name) for name in targets],
                    np.array([float(v) for v in targets.values()]))

    @cached_property
    def names(self) -> list[str]:
        """The unknowns' names, for messages (made when one is needed: 5 000 states' names
        cost milliseconds a solve that converges never spends)."""
        states = self._model.states
        return [states[i] for i in self.keep] + list(self._model.algebraic) + list(self._free)

    @cached_property
    def equations(self) -> list[str]:
        """The equations' descriptions, for messages."""
        states = self._model.states
        return ([f"der({states[i]}) = 0" for i in self.keep]
                + [f"the equation solved for {name}" for name in self._model.algebraic]
                + [f"target {name} = {value:g}" for name, value in self._targets.items()])

    def start_from(self, x, z, p) -> None:
        """Solve from the guess (x, z) and p's free values; the states a steady state cannot
        fix keep their values in x."""
        self.x = x
        self.w0 = np.concatenate([x[self.keep], z, p[self.free_slots] if self.free_slots else np.zeros(0)])

    def _build(self, system, target_rows, target_values) -> None:
        nk, nz, nx = len(self.keep), self.nz, self.nx
        if nk == nx and not self.free_slots and not target_rows:
            # The unknowns are the model's own: its equations and their Jacobian as the
            # compiled model keeps them (derived once, shared with linearize and simulate).
            if system.affine and nx + nz > COMPILED_NEWTON_SIZE:
                self.FJ = _AffineSteadyFunction(system)
                return
            w, args, residual = self.symbolic
            self.FJ = cs.Function("steady_jac", [w, args], [residual, system.dae_jacobian()])
            return
        _, _, ps, ts = system.symbols()
        fixed_x = cs.SX.sym("xf", nx)
        w = cs.SX.sym("w", nk + nz + len(self.free_slots))
        # x = [w_kept; fixed_x] and p = [ps; w_free] permuted in one indexing each (an SX
        # element at a time cost 0.18 s for 5 000 states and 15 000 parameters)
        x_pick = np.arange(nk, nk + nx)
        x_pick[self.keep] = np.arange(nk)
        x_full = cs.vertcat(w[:nk], fixed_x)[x_pick.tolist()] if nx else cs.SX(0, 1)
        z_full = w[nk:nk + nz] if nz else cs.SX(0, 1)
        p_pick = np.arange(ps.numel())
        p_pick[self.free_slots] = ps.numel() + np.arange(len(self.free_slots))
        p_full = cs.vertcat(ps, w[nk + nz:])[p_pick.tolist()] if ps.numel() else cs.SX(0, 1)
        ode, alg = system.dae(x_full, z_full, p_full, ts)
        residual = [ode[list(self.keep)] if nk else cs.SX(0, 1), alg]
        if target_rows:
            out = system.outputs(x_full, z_full, p_full, ts)
            residual.append(cs.vertcat(*[sign * out[pos] for pos, sign in target_rows]) - cs.DM(target_values))
        residual = cs.vertcat(*residual)
        if residual.numel() != w.numel():    # cannot happen for a square trim; kept as a guard
            raise PhyslibError(f"steady state: {residual.numel()} equations for {w.numel()} unknowns")
        args = cs.vertcat(fixed_x, ps, ts)
        self.symbolic = w, args, residual
        self.FJ = cs.Function("steady_jac", [w, args], [residual, cs.jacobian(residual, w)])

    @cached_property
    def symbolic(self) -> tuple:
        """(w, args, F) as SX expressions; for the model's own unknowns, its equations as the
        compiled model keeps them (a trim's are set by ``_build``)."""
        dae = self._model.system.dae_dict()
        fixed_x = cs.SX.sym("xf", self.nx)
        return (cs.vertcat(dae["x"], dae["z"]), cs.vertcat(fixed_x, dae["p"], dae["t"]),
                cs.vertcat(dae["ode"], dae["alg"]))

    def args(self, p) -> np.ndarray:
        return np.concatenate([self.x, p, [self.t]])

    def residual(self, w, p) -> np.ndarray:
        return np.asarray(self.FJ(w, self.args(p))[0]).ravel()

    def evaluator(self, p, offset=None):
        """``evaluate(w) -> (F − offset, J)`` with parameters p, for Newton's method."""
        arg = self.args(p)

        def evaluate(w):
            F, J = self.FJ(w, arg)
            F = np.asarray(F).ravel()
            return (F if offset is None else F - offset), J
        return evaluate

    def split(self, w, p):
        """(x, z, p) from a solution w."""
        nk, nz = len(self.keep), self.nz
        x = self.x.copy()
        x[self.keep] = w[:nk]
        p = p.copy()
        if self.free_slots:
            p[self.free_slots] = w[nk + nz:]
        return x, w[nk:nk + nz], p


class _AffineSteadyFunction:
    """``FJ(w, args) -> (F, J)`` of a model affine in its unknowns, w = [x; z], args = [x, p, t]:
    F = [f; g] by the DAE function, J = ∂[f; g]/∂[x; z] from its
    :class:`~physlib.analysis.common.affine_jacobian.AffineJacobian`, evaluated once per
    parameter vector (J reads neither the unknowns nor time)."""

    def __init__(self, system):
        # the DAE through its call buffers: a CasADi call converts its arguments and results
        # (0.2 s a Newton step of a million-element model)
        self.dae, self.nx = fast(system, "dae"), len(system.state_pos)
        self.jacobian = affine_jacobian(system, "dae")
        self._key = self._J = None

    def __call__(self, w, args):
        w, args = np.asarray(w, dtype=float).ravel(), np.asarray(args, dtype=float).ravel()
        p, t = args[self.nx:-1], float(args[-1])
        key = p.tobytes()
        if key != self._key:
            self._key, self._J = key, self.jacobian.columns(p, t)
        f, g = self.dae(w[:self.nx], w[self.nx:], p, t)
        return np.concatenate([f, g]), self._J


def _continuation(model, problem, p, tol, max_iter):
    """(w, method, steps): damped Newton from w0, then the continuation methods of
    :mod:`physlib.analysis.linear.homotopy`."""
    def newton(evaluate, w):
        return damped_newton(evaluate, lambda J, rhs: _linear_solve(J, rhs, problem.names),
                             w, tol=tol, max_iter=max_iter,
                             fail=lambda ww, F, why: NotConverged(ww, F, why))

    try:
        return newton(problem.evaluator(p), problem.w0), NEWTON, 0
    except (NotConverged, InitializationError) as err:
        first_error = err
    found = continuation(model, problem, p, newton)
    if found is not None:
        return found
    if isinstance(first_error, InitializationError):    # a singular Jacobian on the way
        w, F, why = problem.w0, problem.residual(problem.w0, p), str(first_error)
    else:
        w, F, why = first_error.args
    raise _failure(F, why, problem.names, problem.equations)


def _linear_solve(J, rhs, names):
    step = solve_step(J, rhs)
    if step is not None:
        return step
    a = as_columns(J).dense()
    raise InitializationError(
        "the steady-state equations are singular; nothing fixes " + ", ".join(null_space_members(a, names.__getitem__))
        + " at steady state (a free-spinning body or an integrator with nothing to balance it?)")


def _failure(F, why, names, equations):
    F = np.nan_to_num(np.asarray(F, dtype=float), nan=np.inf)
    worst = np.argsort(-np.abs(F))[:4]
    listed = "; ".join(f"{equations[i]} (residual {F[i]:.3g})" for i in worst if F[i] != 0)
    return InitializationError(
        f"no steady state found ({why}, also after gmin stepping, source stepping and homotopy "
        "continuation): "
        f"largest residuals in {listed}. Unknowns solved for: {', '.join(names[:12])}"
        f"{' ...' if len(names) > 12 else ''}. Give a guess (x_guess=..., z_guess=...) or check "
        "that a steady state exists for these inputs")
