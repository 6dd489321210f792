"""Simulation results: named access, interpolation, energy bookkeeping, plots and CSV."""
from __future__ import annotations

import csv
from functools import cached_property

import numpy as np

from ..core.errors import PhyslibError, UnknownNameError
from .operating_point import OperatingPoint


class SimulationResult:
    """The trajectory of every variable of a compiled model.

    ``res.t`` are the output times [s] (an event time appears twice: just before and just
    after it); ``res["C1.v"]`` is a variable's trajectory, ``res["clutch1.mode"]`` a mode's;
    ``res.events`` lists the mode changes (time, component, modes before and after).
    ``p`` holds the parameter vector, one column per output time when modes change.
    """

    def __init__(self, model, t: np.ndarray, x: np.ndarray, z: np.ndarray, p: np.ndarray, events=None,
                 t_values: np.ndarray | None = None):
        self.model = model
        self.t = t
        # Time at which each row's outputs are evaluated: the left limit for the row just before
        # a time event (its stamp is the event time, but a step source has not switched yet).
        self._t_values = t if t_values is None else t_values
        self.x = x
        self.z = z
        self.p = p
        self.events = list(events or [])

    @cached_property
    def _values(self) -> np.ndarray:
        return self._evaluate(self.model.system.outputs)

    def _evaluate(self, function) -> np.ndarray:
        n = len(self.t)
        if n == 0:
            return np.empty((function.size1_out(0), 0))
        return np.array(function.map(n)(self.x, self.z, self.p, self._t_values[None, :])).reshape(-1, n)

    def _p_at(self, i: int) -> np.ndarray:
        return self.p[:, i] if self.p.ndim == 2 else self.p

    def __getitem__(self, name: str) -> np.ndarray:
        mode = self.model.mode_slot(name)
        if mode is not None:
            return self.p[mode] if self.p.ndim == 2 else np.full(len(self.t), self.p[mode])
        pos, sign = self.model.variable(name)
        return sign * self._values[pos]

    def __contains__(self, name: str) -> bool:
        return name in self.model._var_index or self.model.mode_slot(name) is not None

    @property
    def names(self) -> list[str]:
        """All paths that can be read with ``res[name]``: variables, then modes."""
        return self.model.variables + self.model.modes

    def at(self, t: float) -> OperatingPoint:
        """The operating point at time ``t`` (linear interpolation between output times)."""
        if not self.t[0] <= t <= self.t[-1]:
            raise PhyslibError(f"t = {t} is outside the simulated interval [{self.t[0]}, {self.t[-1]}]")
        i = int(np.searchsorted(self.t, t, side="right")) - 1
        i = min(i, len(self.t) - 2) if len(self.t) > 1 else 0
        if len(self.t) == 1 or self.t[i + 1] == self.t[i]:
            w = 0.0
        else:
            w = (t - self.t[i]) / (self.t[i + 1] - self.t[i])
        j = min(i + 1, len(self.t) - 1)
        x = (1 - w) * self.x[:, i] + w * self.x[:, j]
        z = (1 - w) * self.z[:, i] + w * self.z[:, j]
        return OperatingPoint(self.model, t, x, z, self._p_at(j if w > 0.5 else i))

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

    def plot(self, *names, ax=None):
        """Plot the named variables over time; returns the matplotlib Figure."""
        import matplotlib.pyplot as plt

        if not names:
            raise PhyslibError("name the variables to plot, e.g. res.plot('C1.v')")
        if ax is None:
            fig, axes = plt.subplots(len(names), 1, sharex=True, squeeze=False,
                                     figsize=(7, 2.2 + 1.6 * len(names)))
            axes = axes[:, 0]
        else:
            fig, axes = ax.figure, [ax] * len(names)
        for axis, name in zip(axes, names):
            axis.plot(self.t, self[name], label=name)
            unit = "mode" if self.model.mode_slot(name) is not None else self.model.unit(name)
            axis.set_ylabel(f"{name} [{unit}]")
            axis.grid(True, alpha=0.3)
            axis.legend(loc="best")
        axes[-1].set_xlabel("time [s]")
        fig.tight_layout()
        return fig

    def to_csv(self, path, names=None) -> None:
        """Write ``time`` and the named variables (default: all) as CSV."""
        names = list(names) if names is not None else self.names
        columns = [self[n] for n in names]
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["time"] + names)
            for i, tt in enumerate(self.t):
                writer.writerow([repr(float(tt))] + [repr(float(c[i])) for c in columns])

    def __repr__(self):
        return f"<SimulationResult {self.model.name}: {len(self.t)} points, t = {self.t[0]:g}..{self.t[-1]:g} s>"
