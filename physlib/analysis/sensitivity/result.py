"""The result of a sensitivity run: a simulation result whose every variable also has its
derivatives with respect to the parameters over time."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.records import record
from ...core.errors import PhyslibError, SensitivityError, UnknownNameError
from ..common.hybrid_components import Event
from ..simulation.result_views import panels
from ..simulation.results import SimulationResult


@record
class SensitivityEvent(Event):
    """An event of the run (:class:`~physlib.analysis.common.hybrid_components.Event`) with
    ``dt``: the sensitivity of its instant to each parameter, {parameter: ∂t/∂θ [s per unit
    of θ]} (zero for an event at a fixed time)."""

    dt: dict = None

    def __repr__(self):
        return super().__repr__()[:-1] + f" dt={self.dt}>"


class SensitivityResult(SimulationResult):
    """A :class:`~physlib.analysis.simulation.results.SimulationResult` (``res["C1.v"]``,
    ``res.t``, ``res.events``, ``res.plot(...)``, ...) with the sensitivities of every variable:

    * ``sens["C1.v", "R1.R"]``: ∂v/∂R over ``sens.t`` [V/Ω]: the unit of the variable per unit of
      the parameter (relative ones with ``relative=True``);
    * ``sens.relative("C1.v", "R1.R")``: θ·∂y/∂θ / max|y|, the change of y as a fraction of its
      largest magnitude per relative change of θ (dimensionless);
    * ``sens.events``: the mode changes, each with ``dt`` {θ: ∂t_event/∂θ} (None from the
      adjoint method, which computes the outputs' sensitivities alone: ``sens.outputs``);
    * ``sens.rank("C1.v")``: the parameters by their influence on y;
    * ``sens.plot("C1.v")``: the relative sensitivities of y over time.

    ``sens.parameters`` lists the parameter names, ``sens.values`` their values in the run.
    Rows just before and after an event share its time stamp, as in ``simulate``'s results."""

    def __init__(self, model, arrays, theta, events, relative=False, continuation=None, computed=None):
        t, t_value, X, Z, P, S, Sz, Pv = arrays
        super().__init__(model, t, X, Z, P, events, t_values=t_value, continuation=continuation)
        self.parameters = list(theta.names)
        self.values = theta.values.copy()
        self.varying = theta.varying
        self.default_relative = relative
        self._S, self._Sz, self._Pv = S, Sz, Pv     # (rows, n, Nθ), unscaled
        self._columns: dict[int, np.ndarray] = {}
        # an adjoint run's: the derivatives of its outputs alone ({position: rows × Nθ}, names)
        self.outputs = None
        if computed is not None:
            self._columns, self.outputs = dict(computed[0]), list(computed[1])

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise PhyslibError(f"sens[output, parameter] takes two names, got {key!r}")
            output, parameter = key
            if self.default_relative:
                return self.relative(output, parameter)
            return self.derivative(output, parameter)
        return super().__getitem__(key)

    def derivative(self, output: str, parameter: str) -> np.ndarray:
        """∂output/∂parameter over ``t`` [unit of output per unit of parameter]."""
        return self._matrix(output)[:, self._column(parameter)]

    def relative(self, output: str, parameter: str) -> np.ndarray:
        """θ·∂y/∂θ / max|y| over ``t``: the change of y, as a fraction of its largest magnitude
        over the run, per relative change of θ (1 / max|y| where y is zero throughout)."""
        j = self._column(parameter)
        size = np.max(np.abs(self[output])) if len(self.t) else 0.0
        return self._matrix(output)[:, j] * self.values[j] / (size if size > 0 else 1.0)

    def rank(self, output: str) -> list[tuple[str, float]]:
        """(parameter, influence) pairs, most influential first: the root mean square over the
        output rows of :meth:`relative`."""
        scores = [(name, float(np.sqrt(np.mean(self.relative(output, name) ** 2)))) for name in self.parameters]
        return sorted(scores, key=lambda item: -item[1])

    def plot(self, *outputs, parameters=None, ax=None):
        """Plot the relative sensitivities of each output to ``parameters`` (default: all) over
        time, one axis per output; returns the matplotlib Figure."""
        if not outputs:
            raise PhyslibError("name the outputs to plot, e.g. sens.plot('C1.v')")
        names = self.parameters if parameters is None else list(parameters)
        fig, axes = panels(len(outputs), ax, 1.8)
        for axis, output in zip(axes, outputs):
            for name in names:
                axis.plot(self.t, self.relative(output, name), label=name)
            axis.set_ylabel(f"θ·∂({output})/∂θ / max|{output}|", fontsize=8)
            axis.grid(True, alpha=0.3)
            axis.legend(loc="best", fontsize=8)
        axes[-1].set_xlabel("time [s]")
        fig.tight_layout()
        return fig

    # --- the rows of the output map ----------------------------------------------------------------

    def _column(self, parameter: str) -> int:
        if parameter not in self.parameters:
            raise UnknownNameError(f"no sensitivity to {parameter!r} in this result; its parameters: "
                                   f"{', '.join(self.parameters)}")
        return self.parameters.index(parameter)

    def _matrix(self, output: str) -> np.ndarray:
        """(rows, Nθ): the derivatives of ``output`` at every output row."""
        if self.model.mode_slot(output) is not None:
            return np.zeros((len(self.t), len(self.parameters)))
        pos, sign = self.model.variable(output)
        if pos not in self._columns:
            self._columns[pos] = self._derivatives(pos)
        return sign * self._columns[pos]

    def _derivatives(self, pos: int) -> np.ndarray:
        if self._S is None:
            raise SensitivityError(
                f"this result (method='adjoint') holds the sensitivities of {', '.join(self.outputs)} only: "
                "name every variable you need in outputs=[...], or use method='forward' for all of them")
        direct = self._direct.get(pos)
        if direct is not None:
            kind, row = direct
            return (self._S if kind == "x" else self._Sz)[:, row, :]
        function = output_jacobian(self.model.system, pos, self.varying)
        n = len(self.t)
        if n == 0:
            return np.zeros((0, len(self.parameters)))
        p = self.p if self.p.ndim == 2 else np.repeat(self.p[:, None], n, axis=1)
        nx, nz = self.x.shape[0], self.z.shape[0]
        J = np.array(function.map(n)(self.x, self.z, p, self._t_values[None, :])).reshape(n, -1)
        out = np.einsum("ri,rij->rj", J[:, :nx], self._S)
        if nz:
            out += np.einsum("ri,rij->rj", J[:, nx:nx + nz], self._Sz)
        if len(self.varying):
            out += np.einsum("ri,rij->rj", J[:, nx + nz:], self._Pv)
        return out


def output_jacobian(system, pos: int, varying) -> cs.Function:
    """(x, z, p, t) -> ∂y/∂[x; z; p_V] (a row) of the output at representative position pos."""
    key = ("sensitivity_output", pos, tuple(varying.tolist()))
    if key not in system.cache:
        x, z, p, t = system.symbols(cs.SX)
        y = system.outputs(x, z, p, t)[pos]
        pv = p[varying.tolist()] if len(varying) else cs.SX(0, 1)
        system.cache[key] = cs.Function("output_jacobian", [x, z, p, t],
                                        [cs.densify(cs.jacobian(y, cs.vertcat(x, z, pv)))])
    return system.cache[key]
