"""Simulation results: named access, interpolation, energy bookkeeping (units, plots, CSV and
pandas: :mod:`physlib.analysis.simulation.result_views`)."""
from __future__ import annotations

import numbers

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError, UnknownNameError
from ..common.fast_call import fast
from ..common.initialization import solve_algebraic
from .dae_points import consistent_rates
from .integrators import Integration, StartFailure
from .result_rows import RowParameters
from .result_views import ResultViews
from .sundials import Stepper
from .tolerances import absolute_tolerances
from ..common.interpolation import hermite, linear
from ...core.lazy import lazy_module

linear_points = lazy_module("physlib.analysis.linear.operating_point")   # for at() and operating_point()


class SimulationResult(ResultViews):
    """The trajectory of every variable of a compiled model.

    ``res.t`` are the output times [s] (an event time appears twice: just before and just
    after it); ``res["C1.v"]`` is a variable's trajectory, ``res["clutch1.mode"]`` a mode's;
    ``res.events`` lists the mode changes (time, component, modes before and after).
    ``p`` holds the parameter vector, one column per output time when modes change.
    Units, quantities, plots and tables (``res.unit(name)``, ``res.quantity(name)``,
    ``res.plot(..., units={...})``, ``res.to_csv``, ``res.to_pandas``): :class:`ResultViews`.
    """

    def __init__(self, model, t: np.ndarray, x: np.ndarray, z: np.ndarray, p, events=None,
                 t_values: np.ndarray | None = None, continuation=None, interpolant: str = "linear"):
        self.model = model
        # (solver, rtol, atol) of a variable-step run: at(t) continues the solution from the
        # output row before t with that solver instead of interpolating.
        self._continuation = continuation
        # Otherwise (a fixed-step run) at(t) interpolates the states between rows: "hermite"
        # (rk4) or "linear" (euler, backward_euler, trapezoidal; see fixed_step_methods).
        if interpolant not in ("hermite", "linear"):
            raise PhyslibError(f"interpolant must be 'hermite' or 'linear', got {interpolant!r}")
        self._interpolant = interpolant
        self.t = t
        # Time at which each row's outputs are evaluated: the left limit for the row just before
        # a time event (its stamp is the event time, but a step source has not switched yet).
        self._t_values = t if t_values is None else t_values
        self.x = x
        self.z = z
        # The rows' parameter vectors, each run of equal ones once (p: a vector for every row,
        # one column per row, or RowParameters); ``p`` gives them as an array when asked.
        if isinstance(p, RowParameters):
            self._parameters, self._p = p, None
        else:
            p = np.asarray(p, dtype=float)
            self._parameters = RowParameters.of_columns(p) if p.ndim == 2 else RowParameters.constant(p, len(t))
            self._p = p
        self.events = list(events or [])
        # What the run did: solver steps, evaluations, starts, events, time per phase
        # (physlib.analysis.simulation.run_stats); filled in by simulate.
        self.stats: dict = {}
        # Standard deviations of the variables whose noise was propagated along the run
        # (simulate(..., noise=[...])), by path.
        self.noise: dict[str, np.ndarray] = {}
        # Rows of representative positions computed so far (position -> values over t): a read
        # evaluates only the rows it returns.
        self._evaluated: dict[int, np.ndarray] = {}

    def _evaluate(self, function) -> np.ndarray:
        n = len(self.t)
        if n == 0:
            return np.empty((function.size1_out(0), 0))
        return np.array(function.map(n)(self.x, self.z, self.p, self._t_values[None, :])).reshape(-1, n)

    @property
    def p(self) -> np.ndarray:
        """The parameter vector (with the modes): one vector where the run's cannot change,
        else one column per output row."""
        if self._p is None:
            self._p = self._parameters.columns()
        return self._p

    def _p_at(self, i: int) -> np.ndarray:
        return self._parameters.column(i)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._read([name])[0]

    def _read(self, names) -> list[np.ndarray]:
        """The trajectories of several paths, computing each needed row once.

        States and algebraic variables are rows of ``x`` and ``z`` already. Any other variable
        is one row of the model's output map; only the requested rows are computed, from the
        part of the model they depend on (see :func:`_row_function`), so the cost of a read
        does not grow with the size of the model."""
        reads, missing = [], {}
        for name in names:
            mode = self.model.mode_slot(name)
            if mode is not None:
                reads.append((mode, None))
                continue
            pos, sign = self.model.variable(name)
            reads.append((pos, sign))
            if pos not in self._direct and pos not in self._evaluated:
                missing[pos] = None
        if missing:
            self._evaluated.update(zip(missing, self._evaluate_rows(list(missing))))
        out = []
        for pos, sign in reads:
            if sign is None:            # a mode: its slot in the parameter vector
                out.append(self._parameters.slot(pos))
            elif pos in self._direct:
                kind, row = self._direct[pos]
                out.append(sign * (self.x if kind == "x" else self.z)[row])
            else:
                out.append(sign * self._evaluated[pos])
        return out

    @property
    def _direct(self) -> _DirectRows:
        """Representative positions held in ``x`` or ``z``: position -> ("x" | "z", row);
        built once per compiled model."""
        return _direct_rows(self.model.system)

    def _evaluate_rows(self, positions) -> np.ndarray:
        """Rows of the output map at the given positions, one row per position."""
        function, inputs = _row_function(self.model.system, positions)
        n = len(self.t)
        if n == 0:
            return np.empty((len(positions), 0))
        sources = {"x": self.x, "z": self.z, "t": self._t_values[None, :]}
        args = np.empty((len(inputs), n))
        for k, (kind, i) in enumerate(inputs):
            args[k] = self._parameters.slot(i) if kind == "p" else sources[kind][i]
        return np.array(function.map(n)(args)).reshape(len(positions), n)

    def __contains__(self, name: str) -> bool:
        return self.model.has_variable(name) or self.model.mode_slot(name) is not None

    @property
    def names(self) -> list[str]:
        """All paths that can be read with ``res[name]``: variables, then modes."""
        return self.model.variables + self.model.modes

    def at(self, t: float) -> "OperatingPoint":
        """The operating point at time ``t`` [s], consistent with the model's equations.

        After a variable-step run, the solution is continued from the output row before ``t``
        with the run's solver and tolerances (one short integration), so ``at(t)`` is as
        accurate as an output point at ``t`` would have been. After a fixed-step run the states
        are interpolated between the two neighbouring output rows as the method interpolates
        between its steps: after rk4 by the cubic Hermite interpolant through their values and
        their derivatives x' = f(x, z, p, t) at both rows (error O(h⁴) in the row spacing h,
        rk4's order); after euler, backward_euler and trapezoidal linearly, which never leaves
        the range of the two rows' values (a cubic through the derivatives overshoots by about
        h·|x'| on a stiff state that an implicit method steps over). The algebraic
        variables are then solved at the interpolated states, so every output satisfies the
        model's equations at ``t``. At an event time (two rows with the same time stamp) the
        values are those just after the event, and an interval never spans an event: its rows
        are both on the same side. A time that is an output time gives that row unchanged.
        With a ``t_eval`` that leaves out an event's time, the rows around it do not show the
        event and neither does the interpolant."""
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, numbers.Real):
            raise PhyslibError(f"at(t): t must be a time in seconds, got {t!r} ({type(t).__name__})")
        if not self.t[0] <= t <= self.t[-1]:
            raise PhyslibError(f"t = {t} is outside the simulated interval [{self.t[0]}, {self.t[-1]}]")
        # The last row stamped at or before t: at an event time, the row just after the event.
        i = int(np.searchsorted(self.t, t, side="right")) - 1
        if self.t[i] == t:
            return linear_points.OperatingPoint(self.model, t, self.x[:, i], self.z[:, i], self._p_at(i))
        # t[i] < t < t[i + 1]: row i is the last row at its stamp and row i + 1 the first at its
        # own, so both lie between the same events.
        j = i + 1
        system, p = self.model.system, self._p_at(i)
        skipped = [e for e in self.events if self.t[i] < e.t < self.t[j]]
        if skipped:
            # A t_eval without the event times has no rows around the mode change: neither
            # continuing from row i nor interpolating would apply it.
            raise PhyslibError(
                f"at({t}): the mode change of {skipped[0].component} at t = {skipped[0].t:.10g} s lies "
                f"between the output times {self.t[i]:.10g} and {self.t[j]:.10g} s, which this run's "
                "t_eval left out; simulate with the default output times (they include every "
                "event) or put the times you need in t_eval")
        if self._continuation is not None and self.x.shape[0]:
            x, z = self._continue(i, t)
            return linear_points.OperatingPoint(self.model, t, x, z, p)
        h = self.t[j] - self.t[i]
        s = (t - self.t[i]) / h
        x = self.x[:, i]
        if x.size and getattr(self, "_interpolant", "linear") == "linear":
            x = linear(s, self.x[:, i], self.x[:, j])
        elif x.size:
            dae = fast(system, "dae")
            # Each row's derivative from its own values, at the time it was evaluated at (the
            # left limit for a row just before a time event).
            fa = dae(self.x[:, i], self.z[:, i], self._p_at(i), self._t_values[i])[0]
            fb = dae(self.x[:, j], self.z[:, j], self._p_at(j), self._t_values[j])[0]
            x = hermite(s, self.x[:, i], h * fa, self.x[:, j], h * fb)
        z_guess = (1 - s) * self.z[:, i] + s * self.z[:, j]
        z = solve_algebraic(system, x, z_guess, p, t, lambda k: self.model.algebraic[k])
        return linear_points.OperatingPoint(self.model, t, x, z, p)

    def operating_point(self, k: int) -> "OperatingPoint":
        """The values at output row ``k`` as an operating point (time-dependent inputs taken at
        the row's evaluation time: the left limit for the row just before a time event)."""
        return linear_points.OperatingPoint(self.model, self._t_values[k], self.x[:, k], self.z[:, k], self.p_at(k))

    def p_at(self, k: int) -> np.ndarray:
        """The parameter vector (with the modes) at output row ``k``."""
        return self._p_at(k)

    def noise_std(self, name: str) -> np.ndarray:
        """Standard deviation of ``name``'s noise around this trajectory at every output time,
        if the run propagated it (``simulate(..., noise=[name])``)."""
        if name not in self.noise:
            raise PhyslibError(f"the noise of {name!r} was not propagated in this run; simulate with "
                               f"noise=[{name!r}]" + (f" (propagated: {', '.join(self.noise)})" if self.noise else ""))
        return self.noise[name]

    def _continue(self, i: int, t: float):
        """States and algebraic variables at t, integrated from output row i with the run's
        solver and tolerances (stopping at time events in between, which a ``t_eval`` without
        them leaves out of the rows)."""
        solver, rtol, atol, step_bound = self._continuation
        p = self._p_at(i)
        integration = Integration(self.model, solver, rtol, atol, step_bound)
        x, z, ta = self.x[:, i], self.z[:, i], self.t[i]
        for tb in [*self.model.time_events(p, ta, t), t]:
            if ta < tb:
                z = solve_algebraic(self.model.system, x, z, p, ta, lambda k: self.model.algebraic[k])
                try:
                    X, Z = integration(x, z, p, ta, tb)
                    x, z = X[:, 0], Z[:, 0]
                except StartFailure:
                    # IDAS's initial-condition search fails where the run itself was stepped
                    # from consistent rates (femtofarad nodes): continue the same way.
                    x, z = _stepped(self.model.system, self._continuation, x, z, p, ta, tb)
                ta = tb
        return x, z

    def stored_energy(self, component: str | None = None) -> np.ndarray:
        """Energy [J] stored in one component, or in all together, along the trajectory."""
        return self._by_owner(self.model.system.energy, self.model.system.energy_owner, component, "stores no energy")

    def dissipated_power(self, component: str | None = None) -> np.ndarray:
        """Power [W] dissipated in one component, or in all together, along the trajectory."""
        return self._by_owner(self.model.system.dissipation, self.model.system.dissipation_owner,
                              component, "declares no dissipation")

    def _by_owner(self, function, owners, component, missing):
        values = self._evaluate(function)
        if component is None:
            return values.sum(axis=0)
        if component not in owners:
            raise UnknownNameError(f"{component!r} {missing} (components that do: {', '.join(owners[:10])})")
        return values[owners.index(component)]

    def __getstate__(self):
        """Pickled with the standard ``pickle`` module, its compiled model included (see
        :meth:`~physlib.assembly.compiled.CompiledModel.__getstate__`); the output-map rows read
        so far are left behind (recomputed when read again), the trajectories travel whole."""
        state = self.__dict__.copy()
        state["_evaluated"] = {}
        return state

    def __repr__(self):
        return f"<SimulationResult {self.model.name}: {len(self.t)} points, t = {self.t[0]:g}..{self.t[-1]:g} s>"


def _direct_rows(system) -> _DirectRows:
    """Representative positions held in ``x`` or ``z`` (see :class:`_DirectRows`); built once
    per compiled model."""
    if "direct_rows" not in system.cache:
        system.cache["direct_rows"] = _DirectRows(system.state_pos, system.z_pos)
    return system.cache["direct_rows"]


class _DirectRows:
    """``pos in rows`` for a representative position held in ``x`` or ``z``, and
    ``rows[pos]`` (or ``rows.get(pos)``) -> ("x" | "z", its row there): two arrays indexed by position (a dictionary
    of a million-element model's positions took 2 s to make, at the first read of a result)."""

    def __init__(self, state_pos, z_pos):
        state_pos, z_pos = np.asarray(state_pos, dtype=np.int64), np.asarray(z_pos, dtype=np.int64)
        n = int(max(state_pos.max(initial=-1), z_pos.max(initial=-1))) + 1
        self._kind = np.zeros(n, dtype=np.int8)       # 0: neither, 1: a state, 2: algebraic
        self._row = np.zeros(n, dtype=np.int64)
        self._kind[z_pos], self._row[z_pos] = 2, np.arange(len(z_pos))
        self._kind[state_pos], self._row[state_pos] = 1, np.arange(len(state_pos))

    def __contains__(self, pos) -> bool:
        return 0 <= pos < len(self._kind) and self._kind[pos] != 0

    def __getitem__(self, pos) -> tuple[str, int]:
        if pos not in self:
            raise KeyError(pos)
        return ("x" if self._kind[pos] == 1 else "z"), int(self._row[pos])

    def get(self, pos, default=None):
        return self[pos] if pos in self else default


def _row_function(system, positions):
    """A CasADi function giving the output-map rows at ``positions``, and what to feed it.

    The model's outputs are expanded once into one SX expression (cached on the compiled
    model). Selecting entries of it is cheap, and a function built from the selection holds
    only the subgraph those entries depend on; its single input stacks just the states,
    algebraic variables, parameters and time that subgraph reads. So a row of a
    10,000-stage model costs a few operations per time point instead of the whole map.
    Returns ``(function, inputs)`` with ``inputs`` a list of ``("x" | "z" | "p" | "t", row)``.
    Functions for single positions are cached on the compiled model (keyed by position)."""
    key = ("output_row", positions[0]) if len(positions) == 1 else None
    if key in system.cache:
        return system.cache[key]
    selected = system.output_expressions()[list(positions)]
    used = cs.symvar(selected)
    inputs = []
    for symbol in used:
        # Vector symbols are named "x_0", "x_1", ...; a vector of length one is named "x". The
        # compiler's own symbols are the states' and algebraic variables' ("x_i", "z_i") or
        # the positions' "r_0", "r_1", ...: a state's or an algebraic variable's.
        kind, _, index = symbol.name().partition("_")
        index = int(index) if index else 0
        inputs.append(_direct_rows(system)[index] if kind == "r" else (kind, index))
    stacked = cs.vertcat(*used) if used else cs.SX(0, 1)
    out = (cs.Function("output_rows", [stacked], [selected]), inputs)
    if key is not None:
        system.cache[key] = out
    return out


def _stepped(system, continuation, x, z, p, ta, tb):
    """(x, z) at tb from the consistent point (x, z) at ta, SUNDIALS stepped directly from
    consistent rates with the run's solver and tolerances (``continuation``)."""
    solver, rtol, atol, step_bound = continuation
    if tb - ta <= 1e3 * np.finfo(float).eps * max(abs(ta), abs(tb)):
        return x, z         # closer than SUNDIALS can step: the rounding of the times themselves
    stepper = Stepper(system, solver, rtol, atol, step_bound,
                      atols=absolute_tolerances(system, atol, step_bound, start=(x, z, p, ta)))
    try:
        stepper.restart(ta, x, z, p, consistent_rates(system, x, z, p, ta))
        while stepper.t_now < tb:
            stepper.step(tb)
        return stepper.current()
    finally:
        stepper.close()
