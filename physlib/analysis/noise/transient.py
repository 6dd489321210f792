"""Noise along a transient: the standard deviation of variables around the noiseless trajectory.

**Covariance propagation** (linear-noise approximation). The noise sources of
:mod:`physlib.analysis.noise.small_signal` (thermal 4kTG and shot 2qI, in parallel with every dissipative
element) are small: the deviation δx of the states from the noiseless trajectory obeys the
model linearized along it, δx' = A(t)·δx + B(t)·w, with w white with two-sided intensities
Q(t) = diag(S_k(t)/2). Its covariance obeys

    P' = A·P + P·Aᵀ + B·Q·Bᵀ,    P(t0) = 0 (the start is deterministic),

integrated exactly over sub-intervals of at most 1/1000 of the run for A, B, Q frozen at the
sub-interval's start (Van Loan's matrix exponential: [[−A, BQBᵀ], [0, Aᵀ]]); the trajectory
between output times comes from ``res.at``. A, B and the densities are relinearized when the
operating point has moved by more than ``relinearize`` (relative) since the last
linearization, or the modes changed. At an event that moves the state (a clutch that
locks, an impact), P is mapped through the event's linearized projection: P⁺ = Π·P·Πᵀ with
Π = I − M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹·diag(1 + e)·J (M the energy matrix, J the active constraints'
Jacobian, e their restitution). The variance of a variable y = C·x is C·P·Cᵀ; a variable that
a source reaches directly, y = C·x + D·w with D·Q·Dᵀ > 0 (a resistor's own current, a
capacitor's current through a resistor), has white noise in it, an infinite variance: its
standard deviation is inf, with a :class:`NoiseWarning`, as the stationary analysis's variance
is. Only white
sources are propagated: a 1/f part (a diode's KF) has no finite-dimensional white model and is
left out.

**Stochastic check** (:func:`simulate_stochastic`). An ensemble of Euler–Maruyama runs with the
noise sources as explicit white noise (each step draws every source's value from
N(0, S_k/(2·dt))), seeded, all runs advanced together in compiled code: its sample standard
deviation must agree with the propagated one within its statistical error.
"""
from __future__ import annotations

import warnings

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError
from ..common.fast_call import FastFunction
from ..common.initialization import compiled_newton, small_solve
from ..linear.linearize import constrained_coordinates
from .sources import (NoiseWarning, noise_elements, noise_source_model, terminal_feedthrough,
                      transfer_operating_point)
from ..common.projection import constraint_jacobian, energy_matrix


def propagate_noise(model, res, names, T: float, relinearize: float = 1e-3) -> dict[str, np.ndarray]:
    """Standard deviation of each of ``names`` at every output time of ``res`` (a simulation of
    ``model``), as a dict of arrays; see the module docstring."""
    elements = noise_elements(model)
    n_rows = len(res.t)
    if not elements:
        warnings.warn(f"{model.name} has no dissipative elements, so no noise sources: the noise of "
                      f"{', '.join(names)} is zero", NoiseWarning, stacklevel=4)
        return {name: np.zeros(n_rows) for name in names}
    noisy, inputs = noise_source_model(model, elements)
    input_paths = [inputs[e.path] for e in elements]
    nx = len(model.states)
    P = np.zeros((nx, nx))
    std = {name: np.zeros(n_rows) for name in names}
    linear, reference = None, None
    direct = np.zeros(len(names), dtype=bool)      # outputs a source reaches directly, so far
    # Sub-intervals of at most 1/1000 of the run between output times (points from res.at).
    longest = (res.t[-1] - res.t[0]) / 1000 if n_rows > 1 else 0.0

    def at(op):
        nonlocal linear, reference
        if linear is None or _moved(reference, op, relinearize):
            linear, reference = _linearize(model, noisy, elements, input_paths, names, op, T), op

    for k in range(n_rows):
        op = res.operating_point(k)
        if k > 0:
            h = res.t[k] - res.t[k - 1]
            if h > 0:
                pieces = max(1, int(np.ceil(h / longest * (1 - 1e-9))))
                for j in range(pieces):
                    if j:
                        at(res.at(res.t[k - 1] + j * h / pieces))
                    P = _propagate(P, linear, h / pieces)
            elif not np.array_equal(res.p_at(k), res.p_at(k - 1)):
                P = _event_map(model, P, res.operating_point(k - 1), op)
        at(op)
        C = linear["C"]
        # The output map at this row (C at the last linearization point otherwise).
        variance = np.einsum("ij,jk,ik->i", C, linear["restrict"](P), C)
        direct |= linear["direct"]
        for i, name in enumerate(names):
            std[name][k] = np.inf if linear["direct"][i] else np.sqrt(max(variance[i], 0.0))
    if direct.any():
        warnings.warn(f"noise: white noise reaches {', '.join(np.array(names)[direct])} directly (a "
                      "dissipative element's own current, or one its source drives): the standard "
                      "deviation is infinite there; a state's is finite, and noise(...).rms(f_lo, f_hi) "
                      "gives a band's", NoiseWarning, stacklevel=4)
    return std


def _linearize(model, noisy, elements, input_paths, names, op, T):
    """A, B (reduced to the coordinates the active mode constraints leave), C, the white-noise
    intensities, and the maps between full and reduced coordinates, at ``op``."""
    lin = noisy.linearize(input_paths, list(names), at=transfer_operating_point(model, noisy, op))
    density = np.array([e.density(model, op, T) for e in elements])
    keep, T_map = constrained_coordinates(model, op.x, op.z, op.p, op.t)
    nx = len(op.x)
    if keep is None:
        keep, T_map = np.arange(nx), np.eye(nx)
    D = lin.D + terminal_feedthrough(noisy, elements, len(elements), names)
    return {"A": lin.A, "B": lin.B, "C": lin.C, "Q": density / 2, "keep": keep, "T": T_map,
            "restrict": lambda P: P[np.ix_(keep, keep)], "direct": (D**2 @ density) > 0}


def _propagate(P, linear, h):
    """P after h seconds of P' = A·P + P·Aᵀ + B·Q·Bᵀ with A, B, Q constant (Van Loan 1978), in
    full state coordinates (the reduced ones of the current modes, mapped back)."""
    import scipy.linalg
    A, B, Q, keep, T_map = linear["A"], linear["B"], linear["Q"], linear["keep"], linear["T"]
    n = A.shape[0]
    G = (B * Q) @ B.T
    block = np.block([[-A, G], [np.zeros((n, n)), A.T]]) * h
    E = scipy.linalg.expm(block)
    Phi_T = E[n:, n:]                        # expm(Aᵀh)
    Qd = Phi_T.T @ E[:n, n:]                 # ∫₀ʰ e^{As} G e^{Aᵀs} ds
    reduced = P[np.ix_(keep, keep)]
    reduced = Phi_T.T @ reduced @ Phi_T + Qd
    return T_map @ reduced @ T_map.T


def _event_map(model, P, before, after):
    """P mapped through an event's state jump: the linearized projection onto the constraints
    active after it (the identity when none is active)."""
    system = model.system
    if not len(after.x) or not system.constraints.nnz_out(0):
        return P
    _, active, e = (np.asarray(a).ravel() for a in system.constraints(after.x, after.z, after.p, after.t))
    was_active = np.asarray(system.constraints(before.x, before.z, before.p, before.t)[1]).ravel() > 0.5
    rows = np.flatnonzero(active > 0.5)
    if not len(rows):
        return P
    J = constraint_jacobian(system, after.x, after.z, after.p, after.t)[rows]
    factor = np.where(was_active[rows], 1.0, 1.0 + e[rows])
    M = energy_matrix(system, after.x, after.z, after.p, after.t)
    try:
        M_inv_Jt = np.linalg.solve(M, J.T)
    except np.linalg.LinAlgError:
        M_inv_Jt = J.T
    Pi = np.eye(len(after.x)) - M_inv_Jt @ np.linalg.solve(J @ M_inv_Jt, factor[:, None] * J)
    return Pi @ P @ Pi.T


def _moved(reference, op, tolerance):
    if not np.array_equal(reference.p, op.p):
        return True
    w0, w1 = np.concatenate([reference.x, reference.z]), np.concatenate([op.x, op.z])
    return np.max(np.abs(w1 - w0) / (1.0 + np.abs(w0)), initial=0.0) > tolerance


# --- stochastic simulation --------------------------------------------------------------------------

class StochasticResult:
    """An ensemble of noisy runs: ``t`` [s], ``samples[name]`` (len(t) × runs), ``mean(name)``,
    ``std(name)`` (sample standard deviation, ddof = 1) and ``std_error(name)`` (the standard
    error of that standard deviation, ≈ std/√(2(runs − 1)) for Gaussian samples)."""

    def __init__(self, t, samples, runs):
        self.t, self.samples, self.runs = t, samples, runs

    def mean(self, name):
        return self.samples[name].mean(axis=1)

    def std(self, name):
        return self.samples[name].std(axis=1, ddof=1)

    def std_error(self, name):
        return self.std(name) / np.sqrt(2 * (self.runs - 1))


def simulate_stochastic(model, t_end: float, *, dt: float, runs: int, names, seed: int = 0,
                        T: float = 300.15, t_eval=None) -> StochasticResult:
    """Euler–Maruyama ensemble of ``runs`` runs of ``model`` from its start values to ``t_end``
    with step ``dt`` [s], every noise source white with its density along the noiseless
    trajectory; returns the values of ``names`` at ``t_eval`` (default: 101 times).

    The densities (2qI of a diode follows its current) are taken from a noiseless run at the
    step times; each step draws the sources from N(0, S_k/(2·dt)), solves the algebraic
    variables of every run with the compiled Newton solver and advances the states by one
    explicit Euler step, all runs at once. Seeded: the same ``seed`` gives the same ensemble.
    For checking :func:`propagate_noise`; models with modes are not supported.
    """
    if model.has_modes:
        raise PhyslibError("simulate_stochastic: models with modes are not supported")
    if not (isinstance(runs, int) and runs >= 2):
        raise PhyslibError(f"simulate_stochastic: runs must be an integer >= 2, got {runs!r}")
    elements = noise_elements(model)
    noisy, inputs = noise_source_model(model, elements)
    steps = int(round(t_end / dt))
    times = np.arange(steps + 1) * dt
    t_eval = np.linspace(0.0, t_end, 101) if t_eval is None else np.asarray(t_eval, dtype=float)
    nominal = model.simulate(t_end, t_eval=times, rtol=1e-9, atol=1e-12)
    density = np.array([[e.density(model, nominal.operating_point(k), T) for e in elements]
                        for k in range(len(times))])
    start = transfer_operating_point(model, noisy, nominal.operating_point(0))
    system = noisy.system
    slots = [noisy.parameter_slot(inputs[e.path]) for e in elements]
    X = np.repeat(start.x[:, None], runs, axis=1)
    Z = np.repeat(start.z[:, None], runs, axis=1)
    P = np.repeat(start.p[:, None], runs, axis=1)
    # Every run is one column: the model's functions mapped over the ensemble.
    ode = FastFunction(system.dae.map(runs))
    newton = FastFunction(_newton_steps(system, compiled_newton).map(runs))
    rows = [noisy.variable(name) for name in names]
    # an element's own through variable at its terminals, its source's draw included
    feedthrough = terminal_feedthrough(noisy, elements, len(elements), names)
    outputs = FastFunction(system.outputs.map(runs))
    rng = np.random.default_rng(seed)
    record = {name: np.empty((len(t_eval), runs)) for name in names}
    targets = np.round(t_eval / dt).astype(int)
    nx, nz = X.shape[0], Z.shape[0]
    for step in range(steps + 1):
        t = step * dt
        P[slots] = rng.standard_normal((len(slots), runs)) * np.sqrt(density[step] / (2 * dt))[:, None]
        if nz:
            solved = newton(Z, X, P, np.full((1, runs), t))
            Z = (solved[0] if isinstance(solved, tuple) else solved).reshape(nz, runs, order="F")
        hits = np.flatnonzero(targets == step)
        if len(hits):
            values = outputs(X, Z, P, np.full((1, runs), t)).reshape(-1, runs, order="F")
            for i, (name, (pos, sign)) in enumerate(zip(names, rows)):
                record[name][hits] = sign * values[pos] + feedthrough[i] @ P[slots]
        if step < steps:
            f = ode(X, Z, P, np.full((1, runs), t))[0].reshape(nx, runs, order="F")
            X = X + dt * f
    return StochasticResult(t_eval, record, runs)


def _newton_steps(system, compiled_newton, iterations: int = 3, small: int = 8):
    """(z, x, p, t) -> z after a few unrolled Newton steps on 0 = g(x, z, p, t) (each run starts
    from its previous step's values, a small move: three steps reach rounding); for more than
    ``small`` algebraic variables, CasADi's Newton solver instead."""
    nz = system.dae.size1_in(1)
    if nz > small:
        return compiled_newton(system)
    x, z, p, t = system.symbols()
    w = cs.SX.sym("w", nz)
    g = cs.Function("g", [w, x, p, t], [system.dae(x, w, p, t)[1]])
    J = cs.Function("J", [w, x, p, t], [cs.jacobian(g(w, x, p, t), w)])
    value = z
    for _ in range(iterations):
        value = value - small_solve(J(value, x, p, t), g(value, x, p, t))
    return cs.Function("newton_steps", [z, x, p, t], [value])
