"""The solver of a hybrid run for a model without states: nothing to integrate, so its
algebraic variables are solved at samples a fixed interval apart (and at output times), and a
crossing between two samples is located by bisection on solved points."""
from __future__ import annotations

import numpy as np


class AlgebraicSampler:
    """The solver's interface (see :class:`~physlib.analysis.simulation.sundials.Stepper`) for
    a model without states: samples ``sample`` seconds apart, algebraic variables solved."""

    def __init__(self, stepper, sample: float):
        self.stepper, self.sample = stepper, sample
        self.t_now, self.t_prev = 0.0, 0.0
        self.x, self.z = np.empty(0), np.empty(0)

    h_next = 0.0

    def restart(self, t, x, z, p, rates, first_step=0.0) -> None:
        self.t_now = self.t_prev = t
        self.x, self.z = x, z

    def step(self, t_stop: float) -> float:
        self.t_prev = self.t_now
        self.t_now = min(self.t_now + self.sample, t_stop)
        self.z = self.stepper.solve_z(self.x, self.z, self.t_now)
        return self.t_now

    def current(self):
        return self.x, self.z

    def at(self, t: float):
        return self.x, self.stepper.solve_z(self.x, self.z, t)

    def states_at(self, t: float) -> np.ndarray:
        return self.x

    def state_weights(self, x) -> np.ndarray:
        return np.empty(0)

    def counters(self) -> dict:
        return {}
