"""The result of a fit: the estimates and what the data say about them (their standard errors,
covariance and correlation from the Jacobian at the optimum, and which combinations of the
parameters the data cannot determine)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IDENTIFIABLE = 1e-6     # singular values of the relative Jacobian below this fraction of the largest
TIE = 1e-6              # pivots of the combinations' echelon form this close count as equal


@dataclass
class Prediction:
    """One experiment's measurements and the fitted model's values at the same times (or
    frequencies, ``axis`` says which: a frequency response's values are complex)."""

    label: str
    t: np.ndarray
    data: dict
    model: dict
    sigma: dict
    axis: str = "time [s]"


@dataclass
class Identifiability:
    """Which combinations of the parameters the data determine. Each combination is a product of
    powers of the parameters, ``{name: exponent}`` (a direction of log θ); ``undetermined``:
    those the fitted outputs do not change along (to ``IDENTIFIABLE`` of the strongest), so
    that only the ``determined`` ones can be read from the data."""

    determined: list
    undetermined: list
    singular_values: np.ndarray

    @property
    def identifiable(self) -> bool:
        return not self.undetermined

    def __repr__(self):
        if not self.undetermined:
            return "identifiable: the data determine every parameter"
        return ("the data do not determine " + "; ".join(map(_product, self.undetermined))
                + "\nthey determine " + ("; ".join(map(_product, self.determined)) or "nothing"))


class FitResult:
    """Estimates of a fit (:func:`~physlib.analysis.fitting.fit.fit`).

    ``params`` {name: estimate}; ``stderr`` {name: standard error} (infinite for a parameter in a
    combination the data do not determine); ``at_bound`` {name: "lower" or "upper"} for each
    estimate the search stopped at a bound of (the data pull beyond it: its standard error and
    interval are those of a free estimate, which it is not); ``covariance`` and ``correlation`` (matrices in the
    order of ``names``); ``confidence_intervals(level)``; ``identifiability()``; ``residuals``
    (one {path: model − data} per experiment); ``report()``; ``plot()``. The statistics are the
    linearized ones at the optimum: covariance = s²·(JᵀJ)⁻¹ with J the Jacobian of the residuals
    (model − data)/sigma, s² = 1 where every sigma was given and the residuals' mean square
    (over N − p degrees of freedom) where not."""

    def __init__(self, names, theta, residual, jacobian, predictions, sigma_known, solution, scales=None):
        self.names = list(names)
        self.params = dict(zip(self.names, map(float, theta)))
        self.predictions = predictions
        self.success, self.message, self.nfev = bool(solution.success), str(solution.message), solution.nfev
        active = getattr(solution, "active_mask", np.zeros(len(self.names)))
        self.at_bound = {n: "lower" if a < 0 else "upper" for n, a in zip(self.names, active) if a}
        self.cost = float(residual @ residual) / 2
        self.dof = max(residual.size - len(self.names), 1)
        self.sigma_known = sigma_known
        self.scale = 1.0 if sigma_known else float(residual @ residual) / self.dof
        theta = np.asarray(theta, dtype=float)
        # each column by its parameter's size: ∂r/∂log θ, comparable whatever the units (an
        # estimate near zero by ``scales``, the size its search had)
        scales = theta if scales is None else np.asarray(scales, dtype=float)
        relative = jacobian * scales
        _, values, vt = np.linalg.svd(relative, full_matrices=False)
        kept = values > IDENTIFIABLE * (values[0] if values.size and values[0] > 0 else 1.0)
        self._directions = (_reduced(vt[kept]), _reduced(vt[~kept]), values)
        covariance = (vt[kept].T / values[kept] ** 2) @ vt[kept] * self.scale * np.outer(scales, scales)
        loose = np.any(np.abs(vt[~kept]) > 1e-3, axis=0) if np.any(~kept) else np.zeros(len(theta), bool)
        covariance[loose, :] = covariance[:, loose] = np.nan
        covariance[loose, loose] = np.inf
        self.covariance = covariance
        self.stderr = dict(zip(self.names, map(float, np.sqrt(np.diag(covariance)))))
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(np.diag(covariance))
            self.correlation = covariance / np.outer(sd, sd)

    @property
    def residuals(self) -> list[dict]:
        """For each experiment, {path: model − data} at its measurement times."""
        return [{path: p.model[path] - p.data[path] for path in p.data} for p in self.predictions]

    def confidence_intervals(self, level: float = 0.95) -> dict:
        """{name: (low, high)}: the two-sided ``level`` interval of each estimate (normal, or
        Student's t with N − p degrees of freedom where the noise was estimated)."""
        from scipy import special     # not scipy.stats: seconds to import, for two quantiles

        q = 0.5 + level / 2
        factor = np.sqrt(2.0) * special.erfinv(2 * q - 1) if self.sigma_known else special.stdtrit(self.dof, q)
        return {n: (self.params[n] - factor * self.stderr[n], self.params[n] + factor * self.stderr[n])
                for n in self.names}

    def identifiability(self) -> Identifiability:
        """The combinations of the parameters the data determine and those they do not."""
        determined, undetermined, values = self._directions
        return Identifiability([self._combination(v) for v in determined],
                               [self._combination(v) for v in undetermined], values)

    def _combination(self, direction) -> dict:
        return {n: float(np.round(e, 3)) for n, e in zip(self.names, direction) if abs(e) > 1e-3}

    def report(self) -> str:
        """The estimates with their standard errors and 95 % intervals, and the identifiability."""
        intervals = self.confidence_intervals(0.95)
        lines = [f"fit: {'converged' if self.success else 'NOT converged'} after {self.nfev} runs ({self.message})",
                 f"{'parameter':<24}{'estimate':>14}{'stderr':>12}{'rel':>9}   95 % interval"]
        for n in self.names:
            value, error = self.params[n], self.stderr[n]
            low, high = intervals[n]
            lines.append(f"{n:<24}{value:>14.6g}{error:>12.3g} {abs(error / value) if value else np.inf:>8.2%}"
                         f"   [{low:.6g}, {high:.6g}]" + (f"   at its {self.at_bound[n]} bound" if n in self.at_bound else ""))
        if self.at_bound:
            lines.append(f"{', '.join(self.at_bound)}: stopped at a bound the data pull beyond (a wrong model, "
                         "data or bound?); the error and interval there are not those of a free estimate")
        noise = "given" if self.sigma_known else f"estimated, s = {np.sqrt(self.scale):.3g}"
        lines.append(f"residual cost {self.cost:.6g} over {self.dof} degrees of freedom (noise {noise})")
        lines.append(repr(self.identifiability()))
        return "\n".join(lines)

    def __repr__(self):
        return self.report()

    def plot(self):
        """Each measured path of each experiment with the fitted model (a frequency response's
        magnitude and phase); returns the Figure."""
        import matplotlib.pyplot as plt

        panels = [(p, path, part) for p in self.predictions for path in p.data
                  for part in (("magnitude", "phase [deg]") if np.iscomplexobj(p.data[path]) else (None,))]
        fig, axes = plt.subplots(len(panels), 1, sharex=False, squeeze=False, figsize=(7, 1.5 + 2.2 * len(panels)))
        for axis, (p, path, part) in zip(axes[:, 0], panels):
            data, model = (_part(p.data[path], part), _part(p.model[path], part))
            draw = {None: axis.plot, "magnitude": axis.loglog}.get(part, axis.semilogx)
            draw(p.t, data, ".", ms=3, label="data")
            draw(p.t, model, "-", label="fitted model")
            axis.set_ylabel(f"{path} {part}" if part else path, fontsize=8)
            axis.set_title(p.label, fontsize=8)
            axis.set_xlabel(p.axis, fontsize=8)
            axis.grid(True, alpha=0.3)
            axis.legend(loc="best", fontsize=8)
        fig.tight_layout()
        return fig


def _part(values, part):
    """The values plotted: as they are, or a complex response's magnitude or phase [deg]."""
    if part is None:
        return values
    return np.abs(values) if part == "magnitude" else np.degrees(np.unwrap(np.angle(values)))


def _reduced(rows) -> np.ndarray:
    """A basis of the span of ``rows`` in reduced row-echelon form (pivots on the largest
    entries): each combination then has exponent 1 in a parameter of its own that the others
    leave out, which reads better than the singular vectors' dense mixtures. Entries equal to
    TIE relative (R·C's undetermined direction is (1, −1)/√2) pivot on the last parameter, so
    that rounding does not choose between C/R and R/C from one machine to the next."""
    rows = np.array(rows, dtype=float)
    free = list(range(rows.shape[1]))
    for k in range(rows.shape[0]):
        largest = {c: np.max(np.abs(rows[k:, c])) for c in free}
        column = [c for c in free if largest[c] >= (1 - TIE) * max(largest.values())][-1]
        pivot = k + int(np.argmax(np.abs(rows[k:, column])))
        rows[[k, pivot]] = rows[[pivot, k]]
        rows[k] /= rows[k, column]
        others = np.arange(rows.shape[0]) != k
        rows[others] -= np.outer(rows[others, column], rows[k])
        free.remove(column)
    return rows


def _product(combination: dict) -> str:
    """{"R1.R": 1, "C1.C": 1} -> "R1.R·C1.C", {"R1.R": -1, "C1.C": 1} -> "C1.C/R1.R"; other
    exponents as ^e."""
    def part(items):
        return "·".join(n if abs(e) == 1 else f"{n}^{abs(e):g}" for n, e in items)
    up = part((n, e) for n, e in combination.items() if e > 0)
    down = part((n, e) for n, e in combination.items() if e < 0)
    return (up or "1") + (f"/({down})" if "·" in down else f"/{down}" if down else "")
