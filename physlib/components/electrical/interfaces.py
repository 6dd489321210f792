"""The partial bases of the electrical components: two pins and the voltage between them, the
one-port whose pin currents balance, and the two-port of two such sides."""
from ...core import Component, Port, Variable
from ...core.lazy import lazy_module
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPin", "OnePort", "TwoPort"]


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


class TwoPort(Component):
    """Two one-port sides (the MSL's Interfaces.TwoPort): p1, n1 with v1 = p1.v − n1.v and i1
    from p1 to n1, and p2, n2 likewise; the sides have no galvanic connection.

    Variables: v1, i1, v2, i2 [V, A].
    """

    p1 = Port(electrical, "side 1 positive pin")
    n1 = Port(electrical, "side 1 negative pin")
    p2 = Port(electrical, "side 2 positive pin")
    n2 = Port(electrical, "side 2 negative pin")
    v1 = Variable("V", "side 1 voltage p1.v - n1.v")
    i1 = Variable("A", "side 1 current from p1 to n1")
    v2 = Variable("V", "side 2 voltage p2.v - n2.v")
    i2 = Variable("A", "side 2 current from p2 to n2")

    def equations(self):
        return [sp.Eq(self.v1, self.p1.v - self.n1.v), sp.Eq(self.p1.i + self.n1.i, 0),
                sp.Eq(self.i1, self.p1.i), sp.Eq(self.v2, self.p2.v - self.n2.v),
                sp.Eq(self.p2.i + self.n2.i, 0), sp.Eq(self.i2, self.p2.i)]

    def port_groups(self):
        return [("p1", "n1"), ("p2", "n2")]
