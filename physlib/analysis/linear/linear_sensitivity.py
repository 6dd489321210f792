"""Parameter sensitivities of a linearization: ∂A/∂θ, ∂B/∂θ, ∂C/∂θ, ∂D/∂θ and ∂H(jω)/∂θ.

At an operating point w = [x; z] the descriptor form's matrices are the Jacobian blocks of
[f; g] and of the outputs h by (w, u). They move with a parameter θ two ways: directly, where
θ enters the equations, and through the point itself, a steady state F(w, p(θ)) = 0 whose
own sensitivity is dw/dθ = −F_w⁻¹·F_p·dp/dθ (the states no equation reads, such as a shaft's
angle, stay where they are). The total derivative of each block is its directional derivative
along (dw/dθ, dp/dθ): exact second derivatives of the equations, from CasADi. The explicit
form's matrices (A = f_x − f_z·g_z⁻¹·g_x, ...) follow by the product rule, and

    ∂H/∂θ = ∂C·X + C·(sE − A)⁻¹·(∂A·X + ∂B) + ∂D,        X = (sE − A)⁻¹·B,

which is the frequency response of the block-triangular system ([[A, 0], [∂A, A]], [B; ∂B],
[∂C, C], ∂D): one LU factorization of twice the model's size per frequency, exact to rounding.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as cs
import numpy as np
import scipy.linalg as sla

from ...core.errors import SensitivityError
from ..common.sensitivity_parameters import resolve
from .frequency_response import frequency_response
from .steady_state import ignorable_states


@dataclass(frozen=True)
class Linearization:
    """How a :class:`~physlib.analysis.linear.linear_model.LinearModel` was made: the compiled
    model; each input's path, parameter slot and gain (u enters p as gain·u); each output's
    position and sign among the model's variables; the form; whether the states were reduced
    by active mode constraints (a locked clutch)."""

    model: object
    inputs: tuple
    slots: tuple
    gains: tuple
    positions: tuple
    signs: tuple
    descriptor: bool
    constrained: bool


@dataclass
class LinearSensitivity:
    """The derivatives of a linear model's matrices by one parameter ``param``: ``A``, ``B``,
    ``C``, ``D`` (NumPy arrays of the model's shapes, in the units of the matrix per unit of the
    parameter; E does not move), and with frequencies ``f`` [Hz] given, ``H`` = ∂H(j2πf)/∂θ of
    shape (outputs, inputs, len(f)), as ``LinearModel.frequency_response`` gives H."""

    param: str
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    f: np.ndarray | None = None
    H: np.ndarray | None = None

    def __repr__(self):
        at = f", ∂H at {len(self.f)} frequencies" if self.f is not None else ""
        return f"<LinearSensitivity by {self.param}: ∂A {self.A.shape}, ∂B {self.B.shape}{at}>"


def linear_sensitivities(linear, names, f=None, *, params=None, hold_point=False) -> list:
    """One :class:`LinearSensitivity` of ``linear`` per parameter in ``names`` (see
    :meth:`~physlib.analysis.linear.linear_model.LinearModel.sensitivity`)."""
    origin, op = linear.origin, linear.at
    if origin is None or op is None:
        raise SensitivityError("LinearModel.sensitivity needs a model made by linearize (it differentiates "
                               "the model's equations at the operating point); this one was built from matrices")
    if origin.constrained and not origin.descriptor:
        raise SensitivityError("the linear model's states were reduced by active mode constraints (a locked "
                               "clutch or brake), whose sensitivity physlib does not compute; linearize with "
                               "descriptor=True, or in modes without such a constraint")
    model = origin.model
    theta = resolve(model, names, op.p, params or {})
    _check_parameters(model, theta, op, params or {}, origin)
    if not hold_point and not op.is_steady:
        raise SensitivityError(
            f"the operating point at t = {op.t:g} is not a steady state, so how it moves with the parameters is "
            "the sensitivity of the run that led there, not a property of the point; pass hold_point=True for "
            "the derivatives with the point held fixed, or linearize at a steady state (sim.operating_point)")
    blocks, moved = _descriptor_derivatives(model, origin, op, theta, hold_point)
    frequencies = None if f is None else np.atleast_1d(np.asarray(f, dtype=float))
    elimination = None if origin.descriptor else _Elimination(blocks, len(op.x))
    out = []
    for name, derivative in zip(theta.names, moved):
        dA, dB, dC, dD = derivative if elimination is None else elimination.derivative(derivative)
        H = None if frequencies is None else _response_derivative(linear, dA, dB, dC, dD, frequencies)
        out.append(LinearSensitivity(name, dA, dB, dC, dD, frequencies, H))
    return out


def _check_parameters(model, theta, op, params, origin):
    """Errors for parameters that have no meaning here: initial values (a steady state forgets
    them), another field of a waveform that drives an input (the input's gain would move with
    it), model parameters whose computed entries are not those of the point."""
    if theta.initial:
        names = [theta.names[c] for c in theta.initial]
        raise SensitivityError(f"{', '.join(names)}: a state's initial value does not enter a linearization "
                               "at an operating point; give parameters such as 'R1.R'")
    for path, slot in zip(origin.inputs, origin.slots):
        if model.has_parameter(path):
            continue                                   # a source value given as a number
        fields = [n for n in theta.names if n.startswith(path + ".") and model.parameter_slot(n) != slot]
        if fields:
            raise SensitivityError(f"{fields[0]} is a field of the waveform that drives the input {path}, which "
                                   "linearization perturbs through another field: the input's gain would move "
                                   "with it; give that parameter a fixed value")
    direct = {model.parameter_slot(n) for n in theta.names if model.has_parameter(n)}
    derived = [s for row, s in enumerate(theta.varying.tolist()) if theta.P0[row].any() and s not in direct]
    expected = model.parameter_vector(params)
    if any(not np.isclose(expected[s], op.p[s], rtol=1e-12, atol=0.0) for s in derived):
        names = [n for n in theta.names if n in model.model_parameters]
        raise SensitivityError(f"the operating point's entries computed from {', '.join(names)} are not those "
                               "that params give: pass params= the values (model parameters included) the "
                               "point was found with")


def _descriptor_derivatives(model, origin, op, theta, hold_point):
    """((F_w, F_u, h_w, h_u) at the point, [(their total derivatives) per parameter]): the
    descriptor form's blocks, inputs scaled by their gains and outputs signed."""
    blocks_at, directional = _functions(model.system, origin, theta.varying)
    x, z, p, t = op.x, op.z, op.p, op.t
    Fw, Fu, hw, hu, Fv = (np.asarray(m.full()) for m in blocks_at(x, z, p, t))
    dw = np.zeros((len(x) + len(z), theta.count))
    if not hold_point and dw.size:
        keep = np.r_[~ignorable_states(model.system), np.ones(len(z), bool)]
        try:
            dw[keep] = -np.linalg.solve(Fw[np.ix_(keep, keep)], Fv[keep] @ theta.P0)
        except np.linalg.LinAlgError:
            raise SensitivityError(f"the steady state at t = {op.t:g} is singular (∂[f; g]/∂[x; z] has no "
                                   "inverse): it does not move smoothly with the parameters") from None
    scale = _scaling(origin)
    moved = [scale(*(np.asarray(m.full()) for m in directional(x, z, p, t, dw[:, j], theta.P0[:, j])))
             for j in range(theta.count)]
    return scale(Fw, Fu, hw, hu), moved


def _scaling(origin):
    """The map from raw Jacobian blocks to the linear model's: ∂F/∂p_slot / gain per input
    column, output rows times their signs."""
    gains, signs = np.array(origin.gains, dtype=float), np.array(origin.signs, dtype=float)
    distinct = list(dict.fromkeys(origin.slots))
    columns = [distinct.index(s) for s in origin.slots]

    def scale(Fw, Fu, hw, hu):
        return (Fw, Fu[:, columns] / gains, hw * signs[:, None], hu[:, columns] / gains * signs[:, None])
    return scale


def _functions(system, origin, varying):
    """The CasADi functions (x, z, p, t) -> (F_w, F_u, h_w, h_u, F_pV) and (x, z, p, t, dw,
    dp_V) -> the directional derivatives of the first four, made once per compiled model,
    inputs, outputs and varying entries."""
    distinct = tuple(dict.fromkeys(origin.slots))
    key = ("linear_sensitivity", distinct, origin.positions, tuple(varying.tolist()))
    if key not in system.cache:
        d = system.dae_dict()
        x, z, p, t = d["x"], d["z"], d["p"], d["t"]
        w, F = cs.vertcat(x, z), cs.vertcat(d["ode"], d["alg"])
        u = cs.vertcat(*[p[s] for s in distinct]) if distinct else cs.SX(0, 1)
        v = cs.vertcat(*[p[s] for s in varying.tolist()]) if len(varying) else cs.SX(0, 1)
        h = cs.vertcat(*[system.output_expressions()[k] for k in origin.positions]) if origin.positions \
            else cs.SX(0, 1)
        blocks = [cs.jacobian(F, w), cs.jacobian(F, u), cs.jacobian(h, w), cs.jacobian(h, u)]
        dw, dv = cs.SX.sym("dw", w.numel()), cs.SX.sym("dv", v.numel())
        moved = [cs.reshape(cs.jtimes(cs.vec(b), cs.vertcat(w, v), cs.vertcat(dw, dv)), b.size1(), b.size2())
                 for b in blocks]
        system.cache[key] = (cs.Function("linear_blocks", [x, z, p, t], [*blocks, cs.jacobian(F, v)]),
                             cs.Function("linear_block_derivatives", [x, z, p, t, dw, dv], moved))
    return system.cache[key]


class _Elimination:
    """The explicit form's derivatives from the descriptor form's: A = f_x − f_z·G, B = f_u −
    f_z·K, C = h_x − h_z·G, D = h_u − h_z·K with G = g_z⁻¹·g_x, K = g_z⁻¹·g_u, by the product
    rule (∂G = g_z⁻¹·(∂g_x − ∂g_z·G), ∂K likewise)."""

    def __init__(self, blocks, nx):
        Fw, Fu, hw, hu = blocks
        self.nx = nx
        self.fz, self.hz = Fw[:nx, nx:], hw[:, nx:]
        if Fw.shape[0] > nx:
            self.lu = sla.lu_factor(Fw[nx:, nx:])
            self.G, self.K = sla.lu_solve(self.lu, Fw[nx:, :nx]), sla.lu_solve(self.lu, Fu[nx:])

    def derivative(self, derivative):
        dFw, dFu, dhw, dhu = derivative
        nx = self.nx
        dfx, dfu, dhx = dFw[:nx, :nx], dFu[:nx], dhw[:, :nx]
        if dFw.shape[0] == nx:
            return dfx, dfu, dhx, dhu
        dfz, dgx, dgz, dgu, dhz = dFw[:nx, nx:], dFw[nx:, :nx], dFw[nx:, nx:], dFu[nx:], dhw[:, nx:]
        dG = sla.lu_solve(self.lu, dgx - dgz @ self.G)
        dK = sla.lu_solve(self.lu, dgu - dgz @ self.K)
        return (dfx - dfz @ self.G - self.fz @ dG, dfu - dfz @ self.K - self.fz @ dK,
                dhx - dhz @ self.G - self.hz @ dG, dhu - dhz @ self.K - self.hz @ dK)


def _response_derivative(linear, dA, dB, dC, dD, f):
    """∂H/∂θ at f [Hz]: the response of ([[A, 0], [∂A, A]], [B; ∂B], [∂C, C], ∂D)."""
    A, B, C, E = linear.A, linear.B, linear.C, linear.E
    zero = np.zeros_like(A)
    return frequency_response(np.block([[A, zero], [dA, A]]), np.vstack([B, dB]), np.hstack([dC, C]), dD, f,
                              None if E is None else sla.block_diag(E, E))
