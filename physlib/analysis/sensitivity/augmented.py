"""The model's DAE together with its forward sensitivity equations, as one DAE the simulator's
stepped SUNDIALS solver (:class:`~physlib.analysis.simulation.sundials.Stepper`) integrates.

For x' = f(x, z, p, t), 0 = g(x, z, p, t) and N directions, the sensitivities S = ∂x/∂θ,
S_z = ∂z/∂θ (one column per direction) obey, with P = ∂p_V/∂θ constant between events,

    S' = f_x·S + f_z·S_z + f_p·P,        0 = g_x·S + g_z·S_z + g_p·P,

linear in (S, S_z, P). The augmented DAE has the unknowns [x; vec S] and [z; vec S_z] and the
parameters [p; vec P], each column integrated in units of the states (θ_j·∂x/∂θ_j: the
caller scales P's columns), so the solver's error control and tolerances cover the
sensitivities as they cover the states. Its Jacobian is block lower-triangular with the
model's own Jacobian on the diagonal blocks; a model affine in its unknowns stays affine.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core import records


def augmented_system(system, varying: np.ndarray, directions: int):
    """The :class:`~physlib.assembly.compiled.DaeSystem` of the augmented DAE for the varying
    parameter entries ``varying`` and ``directions`` columns, built once per compiled model
    and (varying, directions)."""
    key = ("sensitivity_system", tuple(varying.tolist()), directions)
    if key not in system.cache:
        x, z, p, t = system.symbols(cs.SX)
        ode, alg = system.dae(x, z, p, t)
        nx, nz, nv = x.numel(), z.numel(), len(varying)
        S, Sz, P = (cs.SX.sym(name, rows, directions) for name, rows in (("S", nx), ("Sz", nz), ("P", nv)))
        w = cs.vertcat(x, z, p[varying.tolist()]) if nv else cs.vertcat(x, z)
        seeds = cs.vertcat(S, Sz, P) if nv else cs.vertcat(S, Sz)
        ode_s = cs.jtimes(ode, w, seeds) if nx else cs.SX(0, directions)
        alg_s = cs.jtimes(alg, w, seeds) if nz else cs.SX(0, directions)
        dae = cs.Function("sensitivity_dae", [cs.vertcat(x, cs.vec(S)), cs.vertcat(z, cs.vec(Sz)),
                                              cs.vertcat(p, cs.vec(P)), t],
                          [cs.vertcat(ode, cs.vec(ode_s)), cs.vertcat(alg, cs.vec(alg_s))])
        system.cache[key] = records.replace(
            system, dae=dae, output_function=system.outputs, state_pos=np.arange(nx * (1 + directions)),
            z_pos=np.arange(nz * (1 + directions)), cache={})
    return system.cache[key]


def pack(x, S):
    """[x; vec S]: x, then the columns of S one after the other (also [p; vec P])."""
    return np.concatenate([x, S.T.ravel()])


def unpack(y, n, directions):
    """(x, S) from [x; vec S] with x of length n."""
    return y[:n], y[n:].reshape(directions, n).T
