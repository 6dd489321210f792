"""Mathematical operations on signals (the Modelica Standard Library's Blocks.Math): gain,
weighted sum of any number of inputs, product, and the mean and root mean square over a period
(sampled blocks: their output changes once per period)."""
import numpy as np

from ...core import Component, Input, Output, Parameter, Variable, der
from ...core.component import Discrete
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import maximum
from .discrete import Sampled

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Gain", "Add", "Product", "Mean", "RootMeanSquare"]


class Gain(Component):
    """y = k·u."""

    u = Input(description="input")
    y = Output(description="output")
    k = Parameter(1.0, description="gain")

    def equations(self):
        return [sp.Eq(self.y, self.k * self.u)]


class Add(Component):
    """y = k1·u1 + k2·u2 + … + kn·un.

    Two inputs by default (``Add("a", k1=1.0, k2=-1.0)``); ``Add("a", k=[1, -1, 1])`` has one
    input per gain, u1 … un (n >= 2), and parameters k1 … kn, each changeable like any other
    (``params={"a.k3": 2.0}``).
    """

    u1 = Input(description="input 1")
    u2 = Input(description="input 2")
    y = Output(description="output")
    k1 = Parameter(1.0, description="gain of u1")
    k2 = Parameter(1.0, description="gain of u2")
    n_inputs = 2

    def __new__(cls, name=None, *positional, k=None, **values):
        # The inputs and gains are declared per class: n inputs are an Add subclass with n.
        n = cls.n_inputs if k is None else len(_gains(name, k))
        return super().__new__(_add_class(n))

    def __init__(self, name=None, *positional, k=None, **values):
        if k is not None:
            given = sorted(key for key in values if key in self._parameters)
            if given:
                raise ParameterError(f"Add {name!r}: give the gains as k=[...] or as k1=..., k2=..., "
                                     f"not both (got k and {', '.join(given)})")
            values.update({f"k{i}": gain for i, gain in enumerate(_gains(name, k), 1)})
        super().__init__(name, *positional, **values)

    def equations(self):
        return [sp.Eq(self.y, sum(getattr(self, f"k{i}") * getattr(self, f"u{i}")
                                  for i in range(1, self.n_inputs + 1)))]


def _gains(name, k) -> list:
    """The gains given to ``Add(k=...)``, each checked later as the parameter it becomes."""
    if isinstance(k, (str, bytes)) or not hasattr(k, "__len__") or len(k) < 2 or \
            (isinstance(k, np.ndarray) and k.ndim != 1):
        raise ParameterError(f"Add {name!r}: k must be a flat list of at least two gains, one per "
                             f"input (k=[1, -1, 1]), got {k!r:.60}")
    return list(k)


_add_classes = {2: Add}


def _add_class(n: int) -> type:
    """The Add class with n inputs u1 … un and gains k1 … kn (derived once per n)."""
    if n not in _add_classes:
        extra = {}
        for i in range(3, n + 1):
            extra[f"u{i}"] = Input(description=f"input {i}")
            extra[f"k{i}"] = Parameter(1.0, description=f"gain of u{i}")
        _add_classes[n] = type("Add", (Add,), {**extra, "n_inputs": n, "__module__": __name__,
                                               "__qualname__": "Add", "__doc__": Add.__doc__})
    return _add_classes[n]


class Product(Component):
    """y = u1·u2."""

    u1 = Input(description="first factor")
    u2 = Input(description="second factor")
    y = Output(description="product")

    def equations(self):
        return [sp.Eq(self.y, self.u1 * self.u2)]


class Mean(Component):
    """Mean of the input over each period 1/f (MSL Blocks.Math.Mean; Simscape: Mean (Varying
    Frequency) at a fixed frequency): at t_k = t0 + k/f (k = 1, 2, …) the output becomes
    f·∫u dt over the period just ended, and holds it to the next; y0 before t_1.

    x, the integral of u since the latest t_k (x0 at t0), is the state ``integral`` (∫u dt since
    t0, from x0) minus its value at the latest t_k (``reset``, set by a sampled update), so no
    state is re-initialized. The instants are time events.
    Parameters: f [Hz] (> 0); x0 initial value of x; y0 output before the first period ends;
    t0 [s] start of the first period; y_nonnegative (flag, the MSL's yGreaterOrEqualZero):
    output max(0, mean), for a mean known to be >= 0 that rounding could make negative.
    Variables: x; integral. Discrete variables: held (the output), reset.
    """

    u = Input(description="input")
    y = Output(description="mean of u over the latest complete period")
    f = Parameter(50.0, unit="Hz", description="base frequency: periods of 1/f", positive=True)
    x0 = Parameter(0.0, description="initial value of the integral x")
    y0 = Parameter(0.0, description="output until the first period ends")
    t0 = Parameter(0.0, unit="s", description="start of the first period")
    y_nonnegative = Parameter(False, description="output max(0, mean)", structural=True)
    x = Variable(description="integral of u since the latest period end")
    integral = Variable(description="integral of u since t0, from x0")
    held = Discrete(description="output", start="y0")
    reset = Discrete(description="integral at the latest period end")

    def integrand(self):
        """What is averaged: u (the root mean square averages u²)."""
        return self.u

    def equations(self):
        return [sp.Eq(der(self.integral), self.integrand()), sp.Eq(self.x, self.integral - self.reset),
                sp.Eq(self.y, self.held)]

    def initial(self):
        return {self.integral: self.x0}

    def held_value(self, mean):
        """The output for the mean of the period just ended."""
        return maximum(mean, 0.0) if self.y_nonnegative else mean

    def update(self, v, t):
        # Written with physlib.core.logic so that it also compiles to C (see Component.update).
        return {"held": self.held_value(v["f"] * (v["integral"] - v["pre(reset)"])), "reset": v["integral"]}

    def _instants(self, values):
        return {"t0": values["t0"] + 1 / values["f"], "Ts": 1 / values["f"]}

    def time_events(self, values, t_start, t_stop):
        return Sampled.time_events(self, self._instants(values), t_start, t_stop)

    def next_time_event(self, values, t):
        return Sampled.next_time_event(self, self._instants(values), t)


class RootMeanSquare(Mean):
    """Root mean square of the input over each period 1/f (MSL Blocks.Math.RootMeanSquare;
    Simscape: RMS at a fixed frequency): √ of the :class:`Mean` of u² (taken as >= 0), updated
    at t0 + k/f (k = 1, 2, …), y0 before.

    Parameters: f [Hz] (> 0); x0 initial value of x; y0 (>= 0) output before the first period
    ends; t0 [s] start of the first period.
    Variables: x, the integral of u² since the latest period end; integral; mean_square (the
    MSL's mean.y). Discrete variables: held (the output), reset.
    """

    y = Output(description="root mean square of u over the latest complete period")
    y0 = Parameter(0.0, description="output until the first period ends", nonnegative=True)
    y_nonnegative = Parameter(True, description="always: the mean of u² is never below 0", structural=True)
    mean_square = Variable(description="mean of u² over the latest complete period")

    def integrand(self):
        return self.u ** 2

    def equations(self):
        return super().equations() + [sp.Eq(self.mean_square, self.held ** 2)]

    def held_value(self, mean):
        return maximum(mean, 0.0) ** 0.5
