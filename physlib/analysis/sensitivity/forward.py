"""Forward sensitivities: the model's DAE and its sensitivity equations integrated together
(:mod:`.augmented`) from event to event by the simulator's stepped SUNDIALS solver (IDA or
CVODE, at the run's tolerances), and carried across each event by the jump conditions
(:mod:`.jumps`).

The events are those of the run itself: a model with modes is first simulated with its
events recorded (:mod:`.event_record`), and each interval between two events is integrated
again from the state the run left the earlier event with, in the modes it had, to the
instant of the next (to the left limit of a time event, where an input's edge is still
ahead). A model without modes has only its time events, where the states are continuous.
The output rows are those of ``simulate`` with the same options: the output times, and on
the default grid the rows just before and after each event.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..common.hybrid_components import hybrid_instances
from ..common.initialization import solve_algebraic
from ..simulation.dae_points import consistent_rates
from ..simulation.sundials import Stepper
from ..simulation.time_events import left_limit, snap_to_events
from ..simulation.tolerances import absolute_tolerances
from .augmented import augmented_system, pack, unpack
from .derivatives import PointDerivatives
from .event_record import RecordedEvent
from .jumps import EventJumps

EPS = float(np.finfo(float).eps)
IDLE = "sensitivity_idle_stepper"   # system.cache: (settings, solver) of the last run, for the next
SPARSE_FROM = 100       # augmented unknowns from which a sparse model's augmented DAE is solved sparse
SPARSE_DENSITY = 0.1    # the model's Jacobian entries that may be nonzero for that


@dataclass
class Rows:
    """Output rows of a sensitivity run: times, the times their values are evaluated at (the
    left limit before a time event), the augmented unknowns [x; vec S] and [z; vec S_z] with
    the sensitivities scaled (θ_j·∂/∂θ_j), the parameter vector and the scaled P = ∂p_V/∂θ."""

    t: list = field(default_factory=list)
    t_value: list = field(default_factory=list)
    y: list = field(default_factory=list)
    yz: list = field(default_factory=list)
    p: list = field(default_factory=list)
    P: list = field(default_factory=list)

    def add(self, t, t_value, y, yz, p, P) -> None:
        self.t.append(t)
        self.t_value.append(t_value)
        self.y.append(y)
        self.yz.append(yz)
        self.p.append(p)
        self.P.append(P)


class ForwardRun:
    """One forward sensitivity run of ``model`` with validated ``options`` for the
    :class:`~physlib.analysis.common.sensitivity_parameters.Parameters` ``theta``.

    ``magnitudes``: (x, z) the directions' absolute tolerances are set from
    (:meth:`_absolute_tolerances`), the largest over a plain run of the same options; or
    ``None`` for a model without modes, which needs no plain run: then those at the start
    (floors at or below the plain run's, so as accurate; raising them as the states grow
    would restart the solver, which cost a 100-stage ladder 60 % more steps). ``stepper``: the
    solver of an earlier run with the same options and parameters (a fit's runs), restarted
    instead of made again, with its tolerances; the run's solver is ``self.stepper``
    afterwards, and whoever keeps it closes it (:meth:`close`). A solver the run makes itself
    is left to the compiled model at :meth:`close` and taken again by its next run with the
    same settings (making one costs a fifth of a 100-stage ladder's run by one parameter)."""

    def __init__(self, model, options, theta, magnitudes, stepper=None):
        self.model, self.options, self.theta = model, options, theta
        self.magnitudes = magnitudes
        system = model.system
        self.nx, self.nz, self.count = len(system.state_pos), len(system.z_pos), theta.count
        self.aug = augmented_system(system, theta.varying, self.count)
        self.d = PointDerivatives(model, theta.varying)
        self.jumps = EventJumps(model, self.d, options)
        self.rows = Rows()
        self.time_sensitivities: list[tuple[RecordedEvent, np.ndarray]] = []
        self.stepper = stepper
        self._settings = None               # of a solver this run made: what the next must match
        self._started = False           # a first step size from the run's own earlier steps

    def run(self, x0, z0, p0, events: list[RecordedEvent]) -> Rows:
        """Integrate from the start (x0, z0, p0) through ``events`` (the first the start's own
        event iteration) to t_end."""
        options, theta = self.options, self.theta
        grid = snap_to_events(options.grid, [e.t for e in events if e.cause == "time"], options.t0,
                              options.t_end)
        self.grid, self.next_output, self.user_grid = grid, 0, options.t_eval is not None
        S = theta.start_sensitivity(self.model, p0, options.t0, options.x0) * theta.scale
        if self.magnitudes is None:
            self.magnitudes = (np.abs(x0), np.abs(z0))
        P = start_slots(self.model, theta.varying, theta.P0 * theta.scale)
        Sz = self.d.algebraic_sensitivity(self.d.dae(x0, z0, events[0].p, options.t0), S, P) if self.nz else \
            np.zeros((0, self.count))
        return self._through(events, S, Sz, P)

    def close(self) -> None:
        """Leave a solver this run made to the compiled model (closing the one left before);
        close one it was given."""
        if self.stepper is None:
            return
        if self._settings is None:
            self.stepper.close()
            return
        left = self.model.system.cache.pop(IDLE, None)
        if left is not None:
            left[1].close()
        self.model.system.cache[IDLE] = (self._settings, self.stepper)

    def _through(self, events, S, Sz, P) -> Rows:
        options = self.options
        first = events[0]
        if first.rounds:            # a start without mode changes leaves the sensitivities as they are
            S, Sz, P, _ = self.jumps.apply(first, (first.x, first.z, S, Sz), P)
        tau = np.zeros(self.count)
        x, z, p, t = first.x_after, first.z_after, first.p_after, options.t0
        self._output_at(t, x, z, p, S, Sz, P)
        for event in events[1:]:
            stop = left_limit(event.t, options.t0, options.t_end) if event.cause == "time" else event.t
            x_m, z_m, S, Sz = self._integrate(t, stop, x, z, p, S, Sz, P)
            if not self.user_grid:
                self.rows.add(event.t, stop, pack(x_m, S), pack(z_m, Sz), p, P)
            if event.x_after is None:                     # a model without modes: x continuous
                event.x, event.z = x_m, z_m
                event.x_after, event.p_after = x_m, p
                event.z_after = solve_algebraic(self.model.system, x_m, z_m, p, event.t,
                                                lambda i: self.model.algebraic[i])
            S, Sz, P, tau = self.jumps.apply(event, (x_m, z_m, S, Sz), P,
                                             tau if event.cause == "settling" else None)
            self.time_sensitivities.append((event, tau))
            x, z, p, t = event.x_after, event.z_after, event.p_after, event.t
            self._output_at(t, x, z, p, S, Sz, P)
        x, z, S, Sz = self._integrate(t, options.t_end, x, z, p, S, Sz, P)
        self._output_at(options.t_end, x, z, p, S, Sz, P)
        return self.rows

    def _output_at(self, t, x, z, p, S, Sz, P) -> None:
        """The row after an event at t (on the default grid, or where t is an output time)."""
        grid, k = self.grid, self.next_output
        on_grid = k < len(grid) and grid[k] == t
        if on_grid or (not self.user_grid and t < self.options.t_end):
            self.rows.add(t, t, pack(x, S), pack(z, Sz), p, P)
        self.next_output = k + 1 if on_grid else k

    def _integrate(self, ta, tb, x, z, p, S, Sz, P):
        """(x, z, S, S_z) at tb from ta, with the output rows in between."""
        if tb <= ta:
            return x, z, S, Sz
        if not self.nx:
            return self._algebraic_only(tb, x, z, p, S, Sz, P)
        stepper = self._stepper()
        y, yz, pa = pack(x, S), pack(z, Sz), pack(p, P)
        first = 0.5 * stepper.h_next if self._started else 0.0
        self._started = True
        stepper.restart(ta, y, yz, pa, consistent_rates(self.aug, y, yz, pa, ta),
                        first_step=first if first > 1e3 * EPS * abs(ta) else 0.0)
        grid, k = self.grid, self.next_output
        while k < len(grid) and grid[k] < tb:
            stepper.advance_to(grid[k], tb)
            self.rows.add(grid[k], grid[k], *self._row_at(stepper.y_arr, grid[k], p, P), p, P)
            k += 1
        self.next_output = k
        stepper.advance_to(tb, tb)
        (x, S), (z, Sz) = (unpack(v, n, self.count) for v, n in zip(stepper.current(), (self.nx, self.nz)))
        return x, z, S, Sz

    def _algebraic_only(self, tb, x, z, p, S, Sz, P):
        """(x, z, S, S_z) at tb of a model without states (a resistive circuit under a source that
        moves): nothing to integrate, its algebraic variables and their sensitivities solved at
        each output time before tb and at tb."""
        def solved(t, guess):
            if not self.nz:
                return guess, Sz
            z_t = solve_algebraic(self.model.system, x, guess, p, t, lambda i: self.model.algebraic[i])
            return z_t, self.d.algebraic_sensitivity(self.d.dae(x, z_t, p, t), S, P)
        grid, k = self.grid, self.next_output
        while k < len(grid) and grid[k] < tb:
            z, Sz = solved(grid[k], z)
            self.rows.add(grid[k], grid[k], pack(x, S), pack(z, Sz), p, P)
            k += 1
        self.next_output = k
        z, Sz = solved(tb, z)
        return x, z, S, Sz

    def _row_at(self, y, t, p, P):
        """([x; vec S], [z; vec S_z]) at t from y there, interpolated by the solver: the states
        and their sensitivities from its polynomial, z solved from them and S_z from the
        algebraic equations' derivatives (exact on the constraints, and without the simulator's
        row function of the augmented DAE, which takes seconds to build)."""
        size = self.nx * (1 + self.count)
        if not self.nz:
            return y[:size].copy(), np.empty(0)
        x, S = unpack(y[:size], self.nx, self.count)
        z = solve_algebraic(self.model.system, x, y[size:size + self.nz], p, t, lambda i: self.model.algebraic[i])
        Sz = self.d.algebraic_sensitivity(self.d.dae(x, z, p, t), S, P)
        return y[:size].copy(), pack(z, Sz)

    def _stepper(self) -> Stepper:
        if self.stepper is None:
            options = self.options
            atols, sparse = self._absolute_tolerances(), self._sparse()
            self._settings = (tuple(self.theta.varying.tolist()), self.count, options.solver, options.rtol, options.atol, options.max_step, sparse,
                              atols.tobytes())
            left = self.model.system.cache.pop(IDLE, None)
            if left is not None and left[0] == self._settings:
                self.stepper = left[1]
            else:
                if left is not None:
                    left[1].close()
                # without algebraic variables every unknown is under the error test: IDA's own
                # Newton test then (a 100-stage ladder by 1 to 5 resistors: 209 iterations in
                # 112 steps with physlib's, 133 with IDA's; a tenth of the run)
                self.stepper = Stepper(self.aug, options.solver, options.rtol, options.atol, options.max_step,
                                       rows_keep_p=False, atols=atols, sparse=sparse, own_test=self.nz > 0)
        return self.stepper

    def _sparse(self) -> bool:
        """Whether the augmented DAE's solver takes a sparse Jacobian: from SPARSE_FROM unknowns
        if the model's own Jacobian is sparse (at most SPARSE_DENSITY of its entries). The
        augmented Jacobian is block lower-triangular with the model's on its diagonal: for
        a 100-stage RC ladder by 5 resistors (600 unknowns, 3 % of them nonzero) a dense LU was
        four times the sparse one's cost."""
        n = (self.nx + self.nz) * (1 + self.count)
        nnz = self.model.system.dae_jacobian().nnz()
        return n >= SPARSE_FROM and nnz <= SPARSE_DENSITY * (self.nx + self.nz) ** 2

    def _absolute_tolerances(self) -> np.ndarray:
        """The absolute tolerance of each unknown of the augmented DAE: the run's own for x and
        z, and for every direction θ·∂x/∂θ the larger of that and rtol·max|x| over the run.

        A direction is only as accurate as the states it is driven by: where a parameter's
        effect is small beside the state itself (a diode's Ron: θ·∂v/∂θ ~ 3e-6 V beside v ~ 10 V,
        v held to the source on a nanosecond time constant), the direction inherits the
        state's own error, rtol·|x|, and an error test at atol alone fails step after step
        (180,000 steps of 20 ns for one conduction interval of a rectifier)."""
        options, count = self.options, self.count
        bound = options.max_step if options.max_step is not None else options.t_end - options.t0
        own = absolute_tolerances(self.model.system, options.atol, bound)
        if own is None:
            own = np.full(self.nx + self.nz, options.atol)
        x_size, z_size = self.magnitudes
        directions = np.maximum(own, options.rtol * np.concatenate([x_size, z_size]))
        return np.concatenate([own[:self.nx], np.tile(directions[:self.nx], count),
                               own[self.nx:], np.tile(directions[self.nx:], count)])


def start_slots(model, varying, P):
    """P with the rows of the discrete variables that start from a parameter copied from that
    parameter's row (zero if it does not vary), as the run's start copies its value."""
    row = {int(slot): i for i, slot in enumerate(varying.tolist())}
    P = P.copy()
    for inst in hybrid_instances(model):
        for slot, source in inst.start_slots.items():
            P[row[slot]] = P[row[source]] if source in row else 0.0
    return P


def model_events(model, options, p, x0, z0) -> list[RecordedEvent]:
    """The events of a model without modes: its start and its time events, the states to be
    filled in by the run (they are continuous there)."""
    fired = np.zeros(len(model.system.guard_owner), bool)
    start = RecordedEvent(options.t0, "initial", x0, z0, p, fired, x_after=x0, z_after=z0, p_after=p)
    times = model.time_events(p, options.t0, options.t_end)
    return [start] + [RecordedEvent(t, "time", None, None, p, fired) for t in times]
