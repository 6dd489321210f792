"""Operating points: a consistent set of states, algebraic variables and parameters at a time.

:func:`operating_point` finds a steady state (x' = 0 and 0 = g together) for given inputs and
parameters; :func:`trim` also chooses free inputs or parameters so that chosen outputs meet
targets there (ALGORITHMS §6). Both solve one square nonlinear system with exact CasADi
Jacobians: first a compiled Newton solve (``casadi.rootfinder``), then, if that fails, a
damped Newton method with continuation — source stepping (every source value scaled from 0 to
1) and, failing that, a Newton homotopy from the start values (F(w) − (1 − λ)·F(w₀) = 0 for λ
from 0 to 1).

States that no equation reads (angles and positions whose only role is der(phi) = w: the
model is invariant to them) cannot be fixed by a steady state. They keep their start (or
guessed) value and their derivative is not required to vanish: a motor turning at constant
speed is in steady state although its angle grows.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..core.errors import InitializationError, PhyslibError, UnknownNameError
from .initialization import damped_newton
from .start_values import check_finite

# Names of waveform parameters that shift the waveform's value additively (source stepping and
# the perturbation of waveform-driven inputs use them first).
_ADDITIVE = ("offset", "k", "height", "amplitude")


class OperatingPoint:
    """Values of every variable of a compiled model at one time, with named access.

    ``op["C1.v"]`` (any variable path, or a parameter path such as ``"tau1.tau"``); ``op.t``;
    ``op.x``/``op.z``/``op.p`` hold the solver vectors; ``op.states``, ``op.algebraic`` and
    ``op.derivatives`` are dicts by name.
    """

    def __init__(self, model, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray):
        self.model = model
        self.t = float(t)
        self.x = np.asarray(x, dtype=float)
        self.z = np.asarray(z, dtype=float)
        self.p = np.asarray(p, dtype=float)
        self._values = np.asarray(model.system.outputs(self.x, self.z, self.p, self.t)).ravel()

    @property
    def values(self) -> np.ndarray:
        """The value of every representative variable (positions as in ``model.system``)."""
        return self._values

    def __getitem__(self, name: str) -> float:
        try:
            pos, sign = self.model.variable(name)
        except UnknownNameError:
            slot = _parameter_slot(self.model, name, missing=None)
            if slot is None:
                raise
            return float(self.p[slot])
        return sign * float(self._values[pos])

    def __contains__(self, name: str) -> bool:
        return name in self.model.variables or _parameter_slot(self.model, name, missing=None) is not None

    @property
    def states(self) -> dict[str, float]:
        return dict(zip(self.model.states, self.x.tolist()))

    @property
    def algebraic(self) -> dict[str, float]:
        return dict(zip(self.model.algebraic, self.z.tolist()))

    @property
    def derivatives(self) -> dict[str, float]:
        """x' at this point, by state name."""
        f = np.asarray(self.model.system.dae(self.x, self.z, self.p, self.t)[0]).ravel()
        return dict(zip(self.model.states, f.tolist()))

    @property
    def is_steady(self) -> bool:
        """True when every derivative a steady state can fix vanishes (within 1e-8 relative)."""
        return _steady_residual(self) <= 1e-8

    def __repr__(self):
        return f"<OperatingPoint t={self.t:g} of {self.model.name}: {len(self.x)} states>"


# --- inputs ------------------------------------------------------------------------------------

def _parameter_slot(model, name, missing="raise"):
    try:
        return model.parameter_slot(name)
    except UnknownNameError:
        if missing == "raise":
            raise
        return None


def input_names(model) -> list[str]:
    """Paths usable as inputs: source values given as numbers (parameters named like the input,
    ``"src.V"``) and inputs driven by a waveform (``"src.V"`` with ``V=Step(...)``)."""
    variables = set(model.variables)
    names = [n for n in model.parameters if n in variables]
    driven = {n.rsplit(".", 1)[0] for n in model.parameters
              if "." in n and n.rsplit(".", 1)[0] in variables}
    return sorted(set(names) | driven)


def resolve_input(model, name: str, p: np.ndarray, t: float) -> tuple[int, float]:
    """(parameter slot, gain): how input ``name`` is perturbed through the parameter vector.

    ``name`` is a parameter path (a source value given as a number, ``"src.V"``, or any other
    parameter such as ``"R1.R"``): gain 1. Or it is a signal variable driven by a waveform
    (``VoltageSource("src", V=Step(...))`` makes ``"src.V"`` one): a parameter of that waveform
    that moves its value (its offset, preferably) is perturbed, and gain = ∂u/∂p there. Since
    a waveform's parameters enter the model only through its value, ∂F/∂u = (∂F/∂p)/gain
    exactly.
    """
    slot = _parameter_slot(model, name, missing=None)
    if slot is not None:
        return slot, 1.0
    if name not in model.variables:
        raise UnknownNameError(
            f"unknown input {name!r}; inputs are source values or parameters — valid inputs: "
            f"{', '.join(input_names(model)) or '(none)'}; parameters: {', '.join(list(model.parameters)[:20])}")
    pos, sign = model.variable(name)
    prefix = name + "."
    candidates = [n for n in model.parameters if n.startswith(prefix) and "." not in n[len(prefix):]]
    candidates.sort(key=lambda n: (_ADDITIVE.index(n[len(prefix):]) if n[len(prefix):] in _ADDITIVE
                                   else len(_ADDITIVE)))
    if candidates:
        grad = _output_parameter_gradient(model, pos, p, t)
        for cand in candidates:
            s = model.parameter_slot(cand)
            gain = sign * grad[s]
            if gain != 0.0:
                return s, float(gain)
    raise PhyslibError(
        f"{name} is not an input that can be perturbed: it is neither a source value given as a "
        "number nor driven by a waveform with a parameter that moves it (it may be computed by "
        f"the model, e.g. a signal in a feedback loop). Valid inputs: {', '.join(input_names(model)) or '(none)'}")


def _output_parameter_gradient(model, pos, p, t):
    system = model.system
    key = ("op_output_grad", int(pos))
    if key not in system.cache:
        x, z, pp, tt = _symbols(system)
        row = system.outputs(x, z, pp, tt)[int(pos)]
        system.cache[key] = cs.Function("du_dp", [pp, tt], [cs.jacobian(row, pp)])
    return np.asarray(system.cache[key](p, t)).ravel()


def _symbols(system):
    return [cs.SX.sym(n, system.dae.size1_in(i)) for i, n in enumerate("xzpt")]


def _set_inputs(model, p, t, inputs):
    """Apply ``inputs`` ({path: value}) to the parameter vector ``p`` (in place)."""
    for name, value in (inputs or {}).items():
        slot, gain = resolve_input(model, name, p, t)
        if gain == 1.0 and _parameter_slot(model, name, missing=None) is not None:
            p[slot] = float(value)
            continue
        pos, sign = model.variable(name)
        for _ in range(4):   # waveforms are affine in their offset: one step is exact
            current = sign * _evaluate_output(model, pos, p, t)
            if abs(current - value) <= 1e-14 * (1 + abs(value)):
                break
            p[slot] += (value - current) / gain
    return p


def _evaluate_output(model, pos, p, t):
    system = model.system
    start = np.asarray(system.start(p, t)).ravel()
    x, z = start[system.state_pos], start[system.z_pos]
    return float(np.asarray(system.outputs(x, z, p, t)).ravel()[pos])


def _source_slots(model, p):
    """Parameter slots of source values (numbers given to inputs, and additive parameters of
    waveforms driving inputs): scaled together for source stepping."""
    variables = set(model.variables)
    slots = []
    for name in model.parameters:
        head, _, tail = name.rpartition(".")
        if name in variables or (head in variables and tail in _ADDITIVE):
            slots.append(model.parameter_slot(name))
    return np.array(sorted(set(slots)), dtype=int)


# --- steady state --------------------------------------------------------------------------------

def _ignorable(system) -> np.ndarray:
    """States that neither f nor g reads (structurally): positions that only integrate a speed."""
    if "op_ignorable" not in system.cache:
        x, z, p, t = _symbols(system)
        ode, alg = system.dae(x, z, p, t)
        sp = cs.jacobian(cs.vertcat(ode, alg), x).sparsity()
        used = np.zeros(x.numel(), dtype=bool)
        _, cols = sp.get_triplet()
        used[np.asarray(cols, dtype=int)] = True
        system.cache["op_ignorable"] = ~used
    return system.cache["op_ignorable"]


def _steady_residual(op) -> float:
    if not len(op.x):
        return 0.0
    keep = ~_ignorable(op.model.system)
    f = np.asarray(op.model.system.dae(op.x, op.z, op.p, op.t)[0]).ravel()[keep]
    scale = 1.0 + np.abs(op.x[keep])
    return float(np.max(np.abs(f) / scale)) if f.size else 0.0


def _guess(model, p, t, x_guess, z_guess):
    system = model.system
    start = np.asarray(system.start(p, t)).ravel()
    x, z = start[system.state_pos].copy(), start[system.z_pos].copy()
    state_index = {name: i for i, name in enumerate(model.states)}
    alg_index = {name: i for i, name in enumerate(model.algebraic)}
    for given, index, vector, kind in ((x_guess, state_index, x, "state"), (z_guess, alg_index, z, "algebraic variable")):
        for name, value in (given or {}).items():
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


def operating_point(model, *, t: float = 0.0, params: dict | None = None, inputs: dict | None = None,
                    x_guess: dict | None = None, z_guess: dict | None = None,
                    tol: float = 1e-12, max_iter: int = 100) -> OperatingPoint:
    """The steady state of ``model`` at time ``t``: x' = 0 and 0 = g(x, z, p, t).

    params: parameter values by path; inputs: source values by path (``{"src.V": 5.0}``, also
    for a source driven by a waveform: its offset is shifted to give that value at ``t``);
    x_guess, z_guess: starting values of states / algebraic variables by path (default: the
    start values). Raises :class:`InitializationError` naming the equations and variables
    that did not converge."""
    return _solve(model, t, params, inputs, x_guess, z_guess, {}, [], tol, max_iter)


def trim(model, targets: dict, free: list, *, t: float = 0.0, params: dict | None = None,
         inputs: dict | None = None, x_guess: dict | None = None, z_guess: dict | None = None,
         free_guess: dict | None = None, tol: float = 1e-12, max_iter: int = 100) -> OperatingPoint:
    """A steady state where the variables in ``targets`` ({path: value}) take their values,
    found by choosing the inputs or parameters listed in ``free``.

    As many free names as targets (the system must be square). The free values are in the
    returned point's parameter vector: ``op["tau1.tau"]``. ``free_guess``: starting values of
    the free names (default: their current values)."""
    targets = dict(targets)
    free = list(free)
    if len(free) != len(targets):
        raise PhyslibError(
            f"trim needs as many free inputs/parameters as targets (a square system): got "
            f"{len(targets)} target(s) ({', '.join(targets)}) and {len(free)} free "
            f"({', '.join(free) or 'none'})")
    if not targets:
        raise PhyslibError("trim needs at least one target, e.g. targets={'cart.z': 1.0}")
    if free_guess:
        inputs = {**(inputs or {}), **free_guess}
    return _solve(model, t, params, inputs, x_guess, z_guess, targets, free, tol, max_iter)


def _solve(model, t, params, inputs, x_guess, z_guess, targets, free, tol, max_iter):
    system = model.system
    p = model.parameter_vector(params)
    _set_inputs(model, p, t, inputs)
    x, z = _guess(model, p, t, x_guess, z_guess)
    keep = np.flatnonzero(~_ignorable(system)) if len(x) else np.zeros(0, dtype=int)
    nk, nz = len(keep), len(z)

    free_slots, free_gain = [], []
    for name in free:
        slot, gain = resolve_input(model, name, p, t)
        if slot in free_slots:
            raise PhyslibError(f"trim: {name} is listed twice among the free names")
        free_slots.append(slot)
        free_gain.append(gain)
    target_rows = [model.variable(name) for name in targets]
    target_values = np.array([float(v) for v in targets.values()])

    # Unknowns w = [x_keep, z, p_free]; equations [f_keep, g, y_target - value].
    xs, zs, ps, ts = _symbols(system)
    w = cs.SX.sym("w", nk + nz + len(free_slots))
    fixed_x = cs.SX.sym("xf", len(x))
    kept = {int(i): k for k, i in enumerate(keep)}
    freed = {s: k for k, s in enumerate(free_slots)}
    x_full = cs.vertcat(*[w[kept[i]] if i in kept else fixed_x[i] for i in range(len(x))]) \
        if len(x) else cs.SX(0, 1)
    z_full = w[nk:nk + nz] if nz else cs.SX(0, 1)
    p_full = cs.vertcat(*[w[nk + nz + freed[i]] if i in freed else ps[i]
                          for i in range(ps.numel())]) if ps.numel() else cs.SX(0, 1)
    ode, alg = system.dae(x_full, z_full, p_full, ts)
    residual = [ode[list(keep)] if nk else cs.SX(0, 1), alg]
    if targets:
        out = system.outputs(x_full, z_full, p_full, ts)
        residual.append(cs.vertcat(*[sign * out[pos] for pos, sign in target_rows]) - cs.DM(target_values))
    residual = cs.vertcat(*residual)
    if residual.numel() != w.numel():    # cannot happen for a square trim; kept as a guard
        raise PhyslibError(f"steady state: {residual.numel()} equations for {w.numel()} unknowns")
    params_sym = cs.vertcat(fixed_x, ps, ts)
    F = cs.Function("steady", [w, params_sym], [residual])
    FJ = cs.Function("steady_jac", [w, params_sym], [residual, cs.jacobian(residual, w)])

    w0 = np.concatenate([x[keep], z, p[free_slots] if free_slots else np.zeros(0)])
    names = _unknown_names(model, keep, free)
    equations = _equation_names(model, keep, targets)
    if w0.size == 0:
        check_finite(model, x, z, p, t, "at the operating point")
        return OperatingPoint(model, t, x, z, p)

    def args(pp):
        return np.concatenate([x, pp, [t]])

    w_sol = _direct(F, w0, args(p), tol)
    if w_sol is None:
        w_sol = _continuation(model, FJ, w0, p, args, tol, max_iter, names, equations)
    x = x.copy()
    x[keep] = w_sol[:nk]
    z = w_sol[nk:nk + nz]
    p = p.copy()
    if free_slots:
        p[free_slots] = w_sol[nk + nz:]
    # An explicitly solved equation that divides by zero (a loop whose coefficients cancel)
    # is an error naming it, as at the start of a simulation, not an operating point of infs.
    check_finite(model, x, z, p, t, "at the operating point")
    return OperatingPoint(model, t, x, z, p)


def _direct(F, w0, arg, tol):
    """One compiled Newton solve (casadi.rootfinder); None when it does not converge."""
    try:
        solver = cs.rootfinder("steady_rf", "newton", F,
                               {"abstol": 1e-14, "abstolStep": 1e-14, "max_iter": 60, "error_on_fail": True,
                                "show_eval_warnings": False})
        w = np.asarray(solver(w0, arg)).ravel()
    except RuntimeError:
        return None
    res = np.asarray(F(w, arg)).ravel()
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(res))):
        return None
    # Accept at rounding level of the residual's own terms.
    if np.max(np.abs(res)) > 1e-9 * (1 + np.max(np.abs(w))):
        return None
    return w


def _continuation(model, FJ, w0, p, args, tol, max_iter, names, equations):
    """Damped Newton, then source stepping, then a Newton homotopy from w0."""
    def newton(evaluate, w):
        return damped_newton(evaluate, lambda J, rhs: _linear_solve(J, rhs, names),
                             w, tol=tol, max_iter=max_iter,
                             fail=lambda ww, F, why: _NotConverged(ww, F, why))

    def plain(pp):
        arg = args(pp)

        def evaluate(w):
            F, J = FJ(w, arg)
            return np.asarray(F).ravel(), J
        return evaluate

    first_error = None
    try:
        return newton(plain(p), w0)
    except (_NotConverged, InitializationError) as err:
        first_error = err

    # Source stepping: every source value scaled by lam from 0 to 1.
    slots = _source_slots(model, p)
    if slots.size:
        try:
            w = w0
            lam, step = 0.0, 0.25
            while lam < 1.0:
                trial = min(1.0, lam + step)
                pp = p.copy()
                pp[slots] = trial * p[slots]
                try:
                    w = newton(plain(pp), w)
                    lam, step = trial, min(step * 2, 0.5)
                except (_NotConverged, InitializationError):
                    step /= 4
                    if step < 1e-6:
                        raise
            return w
        except (_NotConverged, InitializationError):
            pass

    # Newton homotopy: F(w) - (1 - lam) F(w0) = 0, exact at w0 for lam = 0.
    arg = args(p)
    F0 = np.asarray(FJ(w0, arg)[0]).ravel()
    if np.all(np.isfinite(F0)):
        try:
            w, lam, step = w0, 0.0, 0.1
            while lam < 1.0:
                trial = min(1.0, lam + step)

                def evaluate(ww, trial=trial):
                    F, J = FJ(ww, arg)
                    return np.asarray(F).ravel() - (1 - trial) * F0, J
                try:
                    w = newton(evaluate, w)
                    lam, step = trial, min(step * 2, 0.5)
                except (_NotConverged, InitializationError):
                    step /= 4
                    if step < 1e-6:
                        raise
            return w
        except (_NotConverged, InitializationError):
            pass

    if isinstance(first_error, InitializationError):    # a singular Jacobian on the way
        F = np.asarray(FJ(w0, args(p))[0]).ravel()
        raise _failure(w0, F, str(first_error), names, equations)
    w, F, why = first_error.args
    raise _failure(w, F, why, names, equations)


class _NotConverged(Exception):
    pass


def _linear_solve(J, rhs, names):
    a = np.array(cs.DM(J))
    try:
        step = np.linalg.solve(a, rhs)
        if np.all(np.isfinite(step)):
            return step
    except np.linalg.LinAlgError:
        pass
    _, s, vt = np.linalg.svd(a)
    null = np.abs(vt[-1])
    involved = [names[i] for i in np.argsort(-null)[:8] if null[i] > 1e-6]
    raise InitializationError(
        "the steady-state equations are singular; nothing fixes " + ", ".join(involved)
        + " at steady state (a free-spinning body or an integrator with nothing to balance it?)")


def _failure(w, F, why, names, equations):
    F = np.nan_to_num(np.asarray(F, dtype=float), nan=np.inf)
    worst = np.argsort(-np.abs(F))[:4]
    listed = "; ".join(f"{equations[i]} (residual {F[i]:.3g})" for i in worst if F[i] != 0)
    return InitializationError(
        f"no steady state found ({why}, also after source stepping and homotopy continuation): "
        f"largest residuals in {listed}. Unknowns solved for: {', '.join(names[:12])}"
        f"{' ...' if len(names) > 12 else ''}. Give a guess (x_guess=..., z_guess=...) or check "
        "that a steady state exists for these inputs")


def _unknown_names(model, keep, free):
    states = model.states
    return [states[i] for i in keep] + list(model.algebraic) + list(free)


def _equation_names(model, keep, targets):
    states = model.states
    return ([f"der({states[i]}) = 0" for i in keep]
            + [f"the equation solved for {name}" for name in model.algebraic]
            + [f"target {name} = {value:g}" for name, value in targets.items()])
