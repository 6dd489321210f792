"""Sensitivities across an event: the jump conditions.

Let an event happen at τ(θ): a guard g reaching zero (a state event), a waveform's edge or a
sample instant (a time event, τ a function of its parameters), and let the event map the
state x⁻ to x⁺ (the rounds of the event iteration: modes change, newly active constraints
project the state, discrete variables are updated). With S = ∂x/∂θ at fixed time,

    τ_θ = −(g_x·S⁻ + g_z·S_z⁻ + g_p·P) / (g_x·ẋ⁻ + g_z·ż⁻ + g_t)       (state event; the denominator
                                                                      is dg/dt along the solution)
    σ   = S⁻ + ẋ⁻·τ_θ                            (the derivative of x at the moving event instant)
    σ  ← ∂Φ/∂x·σ + ∂Φ/∂z·σ_z + ∂Φ/∂p·P + ∂Φ/∂t·τ_θ      for each round's projection Φ
    P  ← ∂u/∂values·d(values) + ∂u/∂p·P + ...           for each round's discrete updates u
    S⁺  = σ − ẋ⁺·τ_θ,    S_z⁺ = −g_z⁻¹·(g_x·S⁺ + g_p·P)  (algebraic sensitivities in the new modes)

(e.g. P. I. Barton and C. K. Lee, "Modeling, simulation, sensitivity analysis and optimization
of hybrid systems", ACM TOMACS 12(4), 2002; S. Galán, W. F. Feehery, P. I. Barton, Appl. Numer.
Math. 31, 1999). A settling look that changes modes a moment after an event moves with that
event (its τ_θ). The time sensitivity does not exist where the guard's rate vanishes (it
crosses zero with zero slope or grazes it): a :class:`~physlib.core.errors.SensitivityError`
then, never a number.

Everything here runs in the integrated units of the directions (θ_j·∂/∂θ_j) the caller uses.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ExportError, SensitivityError
from ..common.hybrid_functions import next_time_function, update_function
from ..simulation.time_events import left_limit
from .projection_jacobian import enforced_rows, projection_jacobians

AGREEMENT = 1e-6        # relative agreement of the time sensitivities of guards firing together


class EventJumps:
    """The jump conditions of one run: ``model``, its :class:`PointDerivatives`, the run's
    span and options (projection, atol: the guards' zero band is 10·atol as in the simulator)."""

    def __init__(self, model, derivatives, options):
        self.model, self.d = model, derivatives
        self.options = options
        self.zero_band = 10 * options.atol
        self._next_time = self._update = None

    def apply(self, event, before, P, tau_before=None):
        """(S⁺, S_z⁺, P⁺, τ_θ) after ``event`` (a :class:`~.event_record.RecordedEvent`) from
        ``before`` = (x, z, S, S_z) just before it (at its instant; at the left limit of a time
        event), P = ∂p_V/∂θ; ``tau_before``: τ_θ of the event a settling look follows."""
        x, z, S, Sz = before
        t, p = event.t, event.p
        t_before = left_limit(t, self.options.t0, self.options.t_end) if event.cause == "time" else t
        parts = self.d.dae(x, z, p, t_before)
        tau = self._tau(event, parts, x, z, S, Sz, P, tau_before)
        sigma = S + np.outer(self.d.rates(parts)[0], tau) if np.any(tau) else S
        P_before = P
        for round_ in event.rounds:
            sigma, P = self._round(round_, t, sigma, P, tau, event.p, P_before)
        after = self.d.dae(event.x_after, event.z_after, event.p_after, t)
        S_new = sigma - np.outer(self.d.rates(after)[0], tau) if np.any(tau) else sigma
        return S_new, self.d.algebraic_sensitivity(after, S_new, P), P, tau

    # --- the event's instant -----------------------------------------------------------------------

    def _tau(self, event, parts, x, z, S, Sz, P, tau_before):
        count = S.shape[1]
        if event.cause == "initial":
            return np.zeros(count)
        if event.cause == "settling":
            return np.zeros(count) if tau_before is None else tau_before
        if event.cause == "time":
            return self._time_event_tau(event, P)
        return self._state_event_tau(event, parts, x, z, S, Sz, P)

    def _time_event_tau(self, event, P):
        if not P.shape[0]:
            return np.zeros(P.shape[1])
        if self._next_time is None:
            try:
                self._next_time = next_time_function(self.model)
            except ExportError as err:
                raise SensitivityError(f"the time event at t = {event.t:.10g} s cannot be differentiated: "
                                       f"{err}") from None
        t_seen = left_limit(event.t, self.options.t0, self.options.t_end)
        t_next, gradient = self.d.next_time(self._next_time, event.p, t_seen)
        if abs(t_next - event.t) > 1e-9 * max(abs(event.t), self.options.t_end - self.options.t0):
            raise SensitivityError(f"the time event at t = {event.t:.10g} s is not the next time event "
                                   f"its components report (they give {t_next:.10g} s); its time "
                                   "sensitivity is unknown")
        return gradient @ P

    def _state_event_tau(self, event, parts, x, z, S, Sz, P):
        """τ_θ from each fired guard; they must agree (events of independent guards at one
        instant would come apart as θ changes: no derivative there).

        The guards are differentiated a moment (100·event_tol) before the located instant, on
        the solution's tangent: a guard written piecewise (a contact's gap, which turns into its
        speed once the gap is negative) has there the branch that crossed zero, while the
        located instant may lie a hair past the crossing."""
        xdot, zdot = self.d.rates(parts)
        delta = 100 * self.options.event_tol
        g_x, g_z, g_p, g_t, shifted = self._guard_rates(x - xdot * delta, z - zdot * delta, event.p,
                                                         event.t - delta)
        later = 1e-7 * max(abs(event.t), self.options.t_end - self.options.t0)
        earlier = self._guard_rates(x - xdot * (delta + later), z - zdot * (delta + later), event.p,
                                    event.t - delta - later)[4]
        # dg/dt with the rates of the event's own point: those of the shifted point would be
        # off by δ·g̈ (1e-8 relative for a falling ball's impact)
        rate = g_x @ xdot + (g_z @ zdot if len(zdot) else 0.0) + g_t
        fired = np.flatnonzero(event.fired)
        taus = []
        for i in fired:
            self._check_rate(event, i, rate[i], abs(shifted[i] - earlier[i]) / later)
            moved = g_x[i] @ S + (g_z[i] @ Sz if Sz.shape[0] else 0.0) + (g_p[i] @ P if P.shape[0] else 0.0)
            taus.append(-moved / rate[i])
        if not taus:
            raise SensitivityError(f"the state event at t = {event.t:.10g} s has no guard that crossed "
                                   "zero; its time sensitivity is unknown")
        scale = max(np.max(np.abs(tau)) for tau in taus) + 1e-300
        for i, tau in zip(fired[1:], taus[1:]):
            if np.max(np.abs(tau - taus[0])) > AGREEMENT * scale:
                raise SensitivityError(
                    f"at t = {event.t:.10g} s the guards of {self._owner(fired[0])} and {self._owner(i)} "
                    "cross zero together but their instants move differently with the parameters: the "
                    "order of these events changes, sensitivities are undefined")
        return taus[0]

    def _guard_rates(self, x, z, p, t):
        """(g_x, g_z, g_p, g_t, dg/dt along the solution) of every guard at a point."""
        _, g_x, g_z, g_p, g_t = self.d.guards(x, z, p, t)
        xdot, zdot = self.d.rates(self.d.dae(x, z, p, t))
        return g_x, g_z, g_p, g_t, g_x @ xdot + (g_z @ zdot if len(zdot) else 0.0) + g_t

    def _check_rate(self, event, i, rate, curvature) -> None:
        """A guard that reaches zero with (nearly) zero rate grazes it: the event could vanish or
        split for any change of θ. Grazing here: the crossing is no deeper than the simulator's
        zero band, rate² ≤ 2·|g̈|·zero_band (g̈ the change of the rate along the solution)."""
        if not np.isfinite(rate) or rate * rate <= 2.0 * curvature * self.zero_band:
            raise SensitivityError(
                f"the guard of {self._owner(i)} reaches zero at t = {event.t:.10g} s with rate {rate:.3g} "
                f"(grazing: it dips no deeper than the zero band {self.zero_band:.3g}), so the event's "
                "time is not a differentiable function of the parameters: its sensitivities are "
                "undefined. Change the parameters or the run so that the guard crosses zero cleanly")

    def _owner(self, guard: int) -> str:
        group, instance, index = self.model.system.guard_owner[guard]
        return f"{self.model.component_groups[group].paths[instance]} (guard {index})"

    # --- the rounds of the event iteration -------------------------------------------------------

    def _round(self, round_, t, sigma, P, tau, p_pre, P_pre):
        parts = self.d.dae(round_.x_in, round_.z_in, round_.p_before, t)
        sigma_z = self.d.algebraic_sensitivity(parts, sigma, P, tau)
        P_new = self._discrete(round_, t, sigma, sigma_z, P, tau, p_pre, P_pre)
        system = self.model.system
        if not system.constraints.nnz_out(0) or self.options.projection is None or not len(sigma):
            return sigma, P_new
        rows = enforced_rows(system, round_.x_in, round_.z_in, round_.p_after, round_.p_before, t)
        if not len(rows):
            return sigma, P_new
        if self.options.projection != "energy":
            raise SensitivityError(f"at t = {t:.10g} s the event projects the state with "
                                   f"projection={self.options.projection!r}; sensitivities follow the "
                                   "energy projection only: simulate with projection='energy'")
        _, jx, jz, jp, jt = projection_jacobians(system, rows, round_.x_in, round_.z_in, round_.p_after, t)
        varying = self.d.varying
        out = jx @ sigma + (jz @ sigma_z if sigma_z.shape[0] else 0.0) + np.outer(jt, tau)
        if len(varying):
            out = out + jp[:, varying] @ P_new
        return out, P_new

    def _discrete(self, round_, t, sigma, sigma_z, P, tau, p_pre, P_pre):
        """P after the round's discrete updates (rows of the discrete variables that changed;
        ``p_pre``, ``P_pre``: the parameter vector and P before the event, for ``pre(...)``)."""
        varying = self.d.varying
        changed = np.flatnonzero(round_.p_after[varying] != round_.p_before[varying])
        if not len(changed):
            return P
        if self._update is None:
            self._update = update_function(self.model)
        values, o_x, o_z, o_p, o_t = self.d.outputs(round_.x_in, round_.z_in, round_.p_before, t)
        d_values = o_x @ sigma + (o_z @ sigma_z if sigma_z.shape[0] else 0.0) + o_p @ P + np.outer(o_t, tau)
        _, u_values, u_p, u_pre, u_t = self.d.update(self._update, values, round_.p_before, p_pre, t)
        new = u_values @ d_values + u_p @ P + u_pre @ P_pre + np.outer(u_t, tau)
        P = P.copy()
        P[changed] = np.asarray(new)[changed]
        return P
