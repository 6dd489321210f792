"""Operating points: a consistent set of states, algebraic variables and parameters at a time."""
from __future__ import annotations

import numpy as np


class OperatingPoint:
    """Values of every variable of a compiled model at one time, with named access.

    ``op["C1.v"]``; ``op.t``; ``op.x``/``op.z``/``op.p`` hold the solver vectors.
    """

    def __init__(self, model, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray):
        self.model = model
        self.t = float(t)
        self.x = np.asarray(x, dtype=float)
        self.z = np.asarray(z, dtype=float)
        self.p = np.asarray(p, dtype=float)
        self._values = np.asarray(model.system.outputs(self.x, self.z, self.p, self.t)).ravel()

    def __getitem__(self, name: str) -> float:
        pos, sign = self.model.variable(name)
        return sign * float(self._values[pos])

    @property
    def states(self) -> dict[str, float]:
        return dict(zip(self.model.states, self.x.tolist()))

    @property
    def algebraic(self) -> dict[str, float]:
        return dict(zip(self.model.algebraic, self.z.tolist()))

    def __repr__(self):
        return f"<OperatingPoint t={self.t:g} of {self.model.name}: {len(self.x)} states>"
