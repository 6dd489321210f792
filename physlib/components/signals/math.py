"""Mathematical operations on signals (the Modelica Standard Library's Blocks.Math): gain,
weighted sum of any number of inputs, product."""
import numpy as np

from ...core import Component, Input, Output, Parameter
from ...core.errors import ParameterError
from ...core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Gain", "Add", "Product"]


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
