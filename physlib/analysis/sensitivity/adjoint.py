"""``gradient``: the derivative of a scalar objective of a run's sampled outputs with respect to
parameters, by the adjoint method, through the run's events.

The run is cut at its events into segments, each integrated with its modes fixed by one
CasADi integrator (CVODES, the algebraic variables solved inside its right-hand side) over a
normalized time s ∈ [0, 1] whose span is a parameter, the samples between two events its
outputs: one forward and one backward integration per segment (100 samples between two
events: 2.2 times faster than a segment per sample). An integrator serves every segment with
the same pattern of outputs; a segment with fewer than GROUPED samples is cut at each of
them instead, so that the patterns stay few (a switching converter's segments hold one
sample or none).
The forward sweep integrates the segments from each event's state (as the simulator left it);
the backward sweep carries the adjoint λ of u = [x; p_V; τ] — the states, the varying entries
of the parameter vector, and the time sensitivity of the last event (a settling look moves
with the event before it) — from t_end to t0: across a segment by SUNDIALS' adjoint
integration (checkpointed, the parameter integrals under error control; a cost of a few
forward integrations whatever the number of parameters), across an event by the transpose of
its jump map (:mod:`.jumps`: the jump conditions of the forward sensitivities, applied once to
the unit directions of u), at a sample by adding the objective's derivative through the
outputs (z through the algebraic equations: dz = −g_z⁻¹·(g_x·dx + g_p·dp)). At t0 the adjoint
meets the start's dependence on θ. The cost grows with the number of segments and states, not
with the number of parameters.
"""
from __future__ import annotations


import casadi as cs
import numpy as np

from ...core.errors import SensitivityError, SimulationError
from ..common.fast_call import fast
from ..common.initialization import solve_algebraic
from ..simulation.time_events import left_limit
from .adjoint_segments import reverse_function, segment_function
from .derivatives import PointDerivatives
from .forward import start_slots
from .jumps import EventJumps
from .objectives import AtEvent, Gradient
from .result import output_jacobian

GROUPED = 2             # samples between two events from which they share one integration
MIN_GAP = 1e-6          # least gap between outputs of one integration, a fraction of it (CasADi merges closer ones)
DIRECTIONS = 64         # most objectives one backward integration carries


class AdjointSweep:
    """The adjoint gradient of one run: ``events`` recorded from it (the start first);
    ``integrand``: a :meth:`~.objectives.Integral.function` whose integral over the run the forward sweep
    integrates with the states (``self.integral``)."""

    def __init__(self, model, options, theta, events, integrand=None):
        self.model, self.options, self.theta, self.events = model, options, theta, events
        system = model.system
        self.nx, self.nz, self.nv = len(system.state_pos), len(system.z_pos), len(theta.varying)
        self.d = PointDerivatives(model, theta.varying)
        self.jumps = EventJumps(model, self.d, options)
        self.integrand, self.integral = integrand, 0.0
        self.integral_weights = None        # each objective's weight on the integral (backward)

    def run(self, objective, paths, samples) -> Gradient:
        """The gradient of an objective of the outputs ``paths`` at the ``samples``."""
        self.forward(samples)
        value, slopes = objective(self.values(paths))
        gradient = self.backward(lambda k: {path: np.atleast_1d(slopes[path][k]) for path in paths}, 1)
        return self._gradient(value, gradient)

    def run_integral(self) -> Gradient:
        """The gradient of the integral of ``integrand`` over the run."""
        self.forward(np.empty(0))
        # the backward sweep for the integral divided by its size: the adjoints are then of the
        # size of a sampled output's, well above the absolute tolerances of the backward
        # integration (∫ i² dt of a 1 mA RC, 5e-10 A²s: 3e-7 relative error unscaled, 1e-9 scaled)
        size = abs(self.integral) if self.integral != 0 else 1.0
        self.integral_weights = np.full(1, 1.0 / size)
        seeds = {}
        for position, node in enumerate(self.nodes):
            if node[0] == "event" and node[1].cause != "initial":
                # the integral up to the event gains g⁻·dτ, the one after it loses g⁺·dτ
                before = self._integrand(node[1].x, node[1].z, node[1].p, self._before(node[1]))
                after = self._integrand(node[1].x_after, node[1].z_after, node[1].p_after, node[1].t)
                seeds[position] = (before - after) / size * self._unit_tau()
        return self._gradient(self.integral, size * self.backward(lambda k: {}, 1, event_seeds=seeds))

    def run_at_event(self, objective: AtEvent, plain_events) -> Gradient:
        """The gradient of an event's instant, or of a variable just after it (``objective``);
        ``plain_events``: the events of the plain run (with their components)."""
        times = [e.t for e in plain_events if e.component == objective.component]
        if len(times) < objective.occurrence or objective.occurrence < 1:
            raise SensitivityError(f"at_event: {objective.component!r} changes mode {len(times)} times in this run, "
                                   f"so it has no mode change number {objective.occurrence}")
        t = times[objective.occurrence - 1]
        self.forward(np.empty(0))
        position = next((k for k, node in enumerate(self.nodes) if node[0] == "event" and node[1].t == t), None)
        if position is None:
            raise SensitivityError(f"at_event: the mode change of {objective.component!r} at t = {t:.10g} s was "
                                   "not recorded as an event of the run (it changed nothing the run goes on with)")
        event = self.nodes[position][1]
        if objective.path is None:
            value, seed = t, self._unit_tau()
        else:
            point = (event.x_after, event.z_after, event.p_after)
            value = self._output(objective.path, t, *point)
            seed = self._sample_adjoint(t, *point, {objective.path: np.ones(1)})[:, 0]
            # the variable where the event has moved to: its rate after the event times the motion
            seed = seed + self._output_rate(objective.path, t, *point) * self._unit_tau()
        return self._gradient(value, self.backward(lambda k: {}, 1, event_seeds={position: seed}))

    def _gradient(self, value, gradient) -> Gradient:
        return Gradient(float(value), dict(zip(self.theta.names, gradient[:, 0].tolist())))

    def _unit_tau(self):
        out = np.zeros(self.nx + self.nv + 1)
        out[-1] = 1.0
        return out

    def _before(self, event):
        """The instant the point before ``event`` is taken at (a time event's left limit)."""
        return left_limit(event.t, self.options.t0, self.options.t_end) if event.cause == "time" else event.t

    def _integrand(self, x, z, p, t) -> float:
        return float(self.integrand(x, z, p, t))

    def _output_rate(self, path, t, x, z, p) -> float:
        """dy/dt of ``path`` at the point, along the run."""
        pos, sign = self.model.variable(path)
        row = self._output_row(pos, np.arange(0))(x, z, p, t)
        rates = np.concatenate(self.d.rates(self.d.dae(x, z, p, t)))
        outputs = self.d.outputs(x, z, p, t)
        return sign * float(row[:self.nx + self.nz] @ rates + np.asarray(outputs[4]).ravel()[pos])

    def forward(self, samples) -> None:
        """The forward sweep through the sample times ``samples``: the nodes the backward sweeps
        go through and the points (t, x, z, p) at the samples."""
        self.samples = np.asarray(samples)
        self.nodes, self.points = self._forward(self.samples)
        # the node holding each sample: a backward sweep whose slopes vanish after sample k
        # starts there
        self.node_of = {}
        for position, node in enumerate(self.nodes):
            if node[0] == "sample":
                self.node_of[node[1]] = position
            elif node[0] == "segment":
                self.node_of.update((k, position) for k, _ in node[7])

    def values(self, paths) -> dict:
        """{path: its values at the samples} of the forward sweep, from a function of those
        outputs alone (the model's every variable at 100 samples of a 1,000-stage ladder: 40 ms)."""
        system, located = self.model.system, [self.model.variable(path) for path in paths]
        rows = [pos for pos, _ in located]

        def build():
            x, z, p, t = system.symbols(cs.SX)
            return cs.Function("sampled_outputs", [x, z, p, t], [system.outputs(x, z, p, t)[rows]])
        outputs = fast(system, ("sampled_outputs", tuple(rows)), build)
        values = np.array([outputs(x, z, p, t) for t, x, z, p in (self.points[k] for k in range(len(self.samples)))])
        values = values.reshape(len(self.samples), len(rows))
        return {path: sign * values[:, i] for i, (path, (_, sign)) in enumerate(zip(paths, located))}

    def backward(self, slopes_at, count: int, last: int | None = None, event_seeds=None) -> np.ndarray:
        """∂objective/∂θ (Nθ × count) of ``count`` objectives at once, by one backward sweep:
        ``slopes_at(k)`` {path: ∂objectives/∂y(t_k), one per objective} (empty where none);
        ``last``: the index of the last sample with a slope (the sweep starts at its node: the
        adjoints are zero after it); ``event_seeds`` {node position: the objective's derivative
        by u just after that event} (one objective)."""
        nodes = self.nodes if last is None else self.nodes[:self.node_of[last] + 1]
        lam = np.zeros((self.nx + self.nv + 1, count))
        for position in reversed(range(len(nodes))):
            node = nodes[position]
            kind = node[0]
            if kind == "sample":
                lam = lam + self._sample_adjoint(*self.points[node[1]], slopes_at(node[1]))
            elif kind == "segment":
                lam = self._segment_adjoint(node, lam, self.points, slopes_at)
            else:
                if event_seeds and position in event_seeds:
                    lam = lam + event_seeds[position][:, None]
                if node[2] is not None:
                    lam = node[2].T @ lam
        return self._start(lam)

    # --- forward sweep ----------------------------------------------------------------------------

    def _forward(self, samples):
        """(nodes in time order, {sample index: (t, x, z, p)}). Nodes: ("segment", ta, tb, x, z,
        p, grid, [(sample index, position in grid)...]) — one integration from ta to tb with
        outputs at the fractions ``grid`` of it, the last 1 —, ("sample", index) at a segment's
        start, ("event", event, jump map)."""
        options, events = self.options, self.events
        first = events[0]
        nodes = [("event", first, self._jump_map(first, first.x, first.z))]
        points = {}
        x, z, p, t = first.x_after, first.z_after, first.p_after, options.t0
        k = 0
        ends = [left_limit(e.t, options.t0, options.t_end) if e.cause == "time" else e.t for e in events[1:]]
        for event, stop in zip(events[1:] + [None], ends + [options.t_end]):
            inside = []
            while k < len(samples) and samples[k] <= stop:
                inside.append(k)
                k += 1
            x, z = self._interval(nodes, points, samples, inside, t, stop, x, z, p)
            if event is None:
                break
            nodes.append(("event", event, self._jump_map(event, x, z)))
            x, z, p, t = event.x_after, event.z_after, event.p_after, event.t
        return nodes, points

    def _interval(self, nodes, points, samples, inside, ta, tb, x, z, p):
        """(x, z) at tb from ta through the samples ``inside`` (indices into ``samples``): the
        samples at ta itself first; then, with states, segments to tb with the samples as
        outputs — GROUPED or more samples in one integration, fewer each a segment of its own
        (an integrator is made for each pattern of outputs, worth it where there are many)."""
        while inside and (samples[inside[0]] <= ta or not self.nx):
            points[inside[0]] = (samples[inside[0]], x, z, p)
            nodes.append(("sample", inside.pop(0)))
        if tb <= ta or not self.nx:
            return x, z
        grid = [(samples[k] - ta) / (tb - ta) for k in inside]
        if grid and grid[-1] < 1.0:
            grid.append(1.0)
        if len(inside) < GROUPED or np.min(np.diff(np.concatenate([[0.0], grid]))) < MIN_GAP:
            for k in inside:
                x, z = self._segment(nodes, points, ta, samples[k], x, z, p, [(k, 0)], (1.0,))
                ta = samples[k]
            return self._segment(nodes, points, ta, tb, x, z, p, [], (1.0,)) if tb > ta else (x, z)
        return self._segment(nodes, points, ta, tb, x, z, p, [(k, j) for j, k in enumerate(inside)],
                             tuple(grid))

    def _segment(self, nodes, points, ta, tb, x, z, p, outputs, grid):
        """(x, z) at tb: one integration from ta with outputs at the fractions ``grid`` of [ta, tb],
        ``outputs`` the samples among them (index, position)."""
        out = self._call(grid, "forward", ta, tb, x, np.concatenate([p, [ta, tb], z]))
        if self.integrand is not None:
            out, quadrature = out
            self.integral += float(quadrature[0])
        X = np.array(out).reshape(len(grid), self.nx).T
        nodes.append(("segment", ta, tb, x, z, p, grid, outputs, X))
        for k, j in outputs:
            t = ta + grid[j] * (tb - ta)
            points[k] = (t, X[:, j], self.model_z(X[:, j], z, p, t), p)
        return X[:, -1], self.model_z(X[:, -1], z, p, tb)

    def _call(self, grid, which, ta, tb, *args):
        """The segment's forward or reverse function (``which``) at ``args``, through a buffer
        (CasADi's own call converted a 1,000-stage ladder's 100 outputs in 3 ms); flat arrays,
        matrices by column."""
        functions = segment_function(self.model.system, self.options, grid, self.integrand)
        if which == "forward":
            function = functions["forward"]
        else:
            directions = args[-1].shape[1]
            if directions not in functions["reverse"]:
                functions["reverse"][directions] = reverse_function(functions["forward"].function, directions)
            function = functions["reverse"][directions]
        try:
            return function(*args)
        except (RuntimeError, FloatingPointError) as err:
            reason = str(err).strip().splitlines()[-1]
        raise SimulationError(
            f"the adjoint's {'backward' if which == 'reverse' else 'forward'} integration from "
            f"t = {ta:.10g} s to {tb:.10g} s failed ({reason}); a stiff mode can exhaust it at tight "
            "tolerances: loosen rtol, or use the forward sensitivities (sim.sensitivity)") from None

    def _jump_map(self, event, x, z):
        """The matrix taking u = [S; P; τ] just before ``event`` to just after it (None: the
        identity)."""
        nx, nv = self.nx, self.nv
        unit = np.eye(nx + nv + 1)
        S, P = unit[:nx], unit[nx:nx + nv]
        if event.x_after is None:               # a model without modes: states continuous
            event.x, event.z, event.x_after, event.p_after = x, z, x, event.p
            event.z_after = self.model_z(x, z, event.p, event.t)
        if event.cause == "initial" and not event.rounds:
            return None                         # a start without mode changes: the identity
        # linearized where the simulator located the event: this sweep's own integration may end
        # a state error past it, where a piecewise guard (a contact's gap) has changed branch
        x, z = event.x, event.z
        t_before = left_limit(event.t, self.options.t0, self.options.t_end) if event.cause == "time" else event.t
        parts = self.d.dae(x, z, event.p, t_before)
        Sz = self.d.algebraic_sensitivity(parts, S, P)
        tau_before = unit[-1] if event.cause == "settling" else None
        S_after, _, P_after, tau = self.jumps.apply(event, (x, z, S, Sz), P, tau_before)
        return np.vstack([S_after, P_after, np.asarray(tau)[None, :]])

    def model_z(self, x, z, p, t):
        """z solved from 0 = g(x, z, p, t), from the guess z."""
        if not self.nz:
            return z
        return solve_algebraic(self.model.system, x, z, p, t, lambda i: self.model.algebraic[i])

    # --- backward sweep ---------------------------------------------------------------------------

    def _segment_adjoint(self, node, lam, points, slopes_at):
        """λ before a segment from λ after it and the objectives' slopes at its outputs: the
        gradients of Σ seed_j·x(s_j) with each output's seed from its sample, the last's also
        from λ; the samples' direct dependence on p_V added to λ's (p is constant over it).
        The objectives' backward integrations go together, in blocks of up to DIRECTIONS (a
        power of two, so that few integrators serve every count)."""
        _, ta, tb, x, z, p, grid, outputs, X = node
        nx, nv, count = self.nx, self.nv, lam.shape[1]
        lam = lam.copy()
        seeds = np.zeros((len(grid), nx, count))
        for k, j in outputs:
            contribution = self._sample_adjoint(*points[k], slopes_at(k))
            seeds[j] += contribution[:nx]
            lam[nx:] += contribution[nx:]
        seeds[-1] += lam[:nx]
        seeds = seeds.reshape(len(grid) * nx, count)
        lam[:nx] = 0.0
        weights = self.integral_weights
        # objectives with something to carry back
        live = np.flatnonzero(np.any(seeds, axis=0) | (weights != 0 if weights is not None else False))
        block = min(DIRECTIONS, 1 << int(np.ceil(np.log2(max(len(live), 1)))))
        arguments = [x, np.concatenate([p, [ta, tb], z])]
        for start in range(0, len(live), block):
            columns = live[start:start + block]
            padded = np.zeros((seeds.shape[0], block))
            padded[:, :len(columns)] = seeds[:, columns]
            seeded = [padded]
            if self.integrand is not None:
                seeded.append(np.zeros((1, block)))
                seeded[-1][0, :len(columns)] = weights[columns] if weights is not None else 0.0
            adjoint_x, adjoint_p = self._call(grid, "reverse", ta, tb, *arguments, *seeded)
            lam[:nx, columns] = adjoint_x.reshape(block, nx).T[:, :len(columns)]
            if nv:
                lam[nx:nx + nv, columns] += adjoint_p.reshape(block, -1).T[self.theta.varying, :len(columns)]
        return lam

    def _sample_adjoint(self, t, x, z, p, slopes):
        """The objectives' derivatives at one sample (``slopes`` {path: one per objective}), as
        adjoints of u = [x; p_V; τ], one column per objective."""
        nx, nz, nv = self.nx, self.nz, self.nv
        if not slopes:
            return 0.0
        dy = 0.0
        for path, slope in slopes.items():
            pos, sign = self.model.variable(path)
            row = self._output_row(pos, self.theta.varying)(x, z, p, t)
            dy = dy + sign * np.outer(row, slope)
        out = np.zeros((nx + nv + 1, dy.shape[1]))
        out[:nx], out[nx:nx + nv] = dy[:nx], dy[nx + nz:]
        if nz:
            out[:nx + nv] += self._through_algebraic(x, z, p, t, dy[nx:nx + nz])
        return out

    def _through_algebraic(self, x, z, p, t, adjoint_z):
        """An adjoint of z as one of [x; p_V], z following them by 0 = g: dz = −g_z⁻¹·(g_x·dx + g_p·dp)."""
        nx, nv = self.nx, self.nv
        out = np.zeros((nx + nv,) + adjoint_z.shape[1:])
        if not np.any(adjoint_z):
            return out
        _, _, Jw, Jp, _ = self.d.dae(x, z, p, t)
        w = self.d.solve_gz(np.asarray(Jw[nx:, nx:]).T, adjoint_z)
        out[:nx] = -(np.asarray(Jw[nx:, :nx]).T @ w)
        if nv:
            out[nx:] = -(np.asarray(Jp[nx:]).T @ w)
        return out

    def _output(self, path, t, x, z, p):
        pos, sign = self.model.variable(path)
        return sign * float(fast(self.model.system, "outputs")(x, z, p, t)[pos])

    def _output_row(self, pos, varying):
        """:func:`output_jacobian` called through a buffer: called at every sample, CasADi's
        own call converting a 1,000-stage ladder's row took a millisecond."""
        system = self.model.system
        return fast(system, ("output_jacobian", pos, tuple(varying.tolist())),
                    lambda: output_jacobian(system, pos, varying))

    def _start(self, lam):
        """∂objective/∂θ from the adjoint before the start's event iteration."""
        theta, options = self.theta, self.options
        p0 = self.events[0].p
        S0 = theta.start_sensitivity(self.model, p0, options.t0, options.x0)
        P0 = start_slots(self.model, theta.varying, theta.P0)
        return S0.T @ lam[:self.nx] + (P0.T @ lam[self.nx:self.nx + self.nv] if self.nv else 0.0)
