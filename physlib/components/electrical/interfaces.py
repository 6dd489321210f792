"""The partial bases of the electrical components: two pins and the voltage between them, and
the one-port whose pin currents balance."""
from ...core import Component, Port, Variable
from ...core.lazy import lazy_module
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPin", "OnePort"]


class TwoPin(Component):
    """Two pins ``p``, ``n`` and the voltage between them.

    Variables: v [V] = p.v − n.v.
    """

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Variable("V", "voltage drop p.v - n.v")

    def equations(self):
        return [sp.Eq(self.v, self.p.v - self.n.v)]


class OnePort(TwoPin):
    """A two-pin whose pin currents balance: the current ``i`` enters ``p`` and leaves ``n``.

    Variables: v [V], i [A] (from p to n through the component).
    """

    i = Variable("A", "current from p to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]
