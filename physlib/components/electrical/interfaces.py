"""The partial bases of the electrical components: two pins and the voltage between them, the
one-port whose pin currents balance, and the two-port of two such sides; and the ``constants``
parameter of the components that compute with k and q."""
from ...constants import CONSTANT_SETS, ConstantSet
from ...core import Component, Parameter, Port, Variable
from ...core.lazy import lazy_module
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPin", "OnePort", "TwoPort", "ConstantsChoice", "constant_set"]


class ConstantsChoice(Parameter):
    """The ``constants`` parameter of a component that computes with the Boltzmann constant
    and the elementary charge (thermal voltages, 4kT and 2q noise densities): ``"SI"`` (the
    exact SI 2019 values, the default) or ``"ngspice"`` (ngspice-39's CODATA 2014 values,
    which :mod:`physlib.spice` gives the devices of a deck so that it agrees with ngspice to
    1e-6). Structural: the equations hold the values, so each choice has its own class
    template (derived once, like any structure)."""

    def __init__(self):
        super().__init__("SI", description='k and q: "SI" (SI 2019) or "ngspice" (ngspice-39\'s '
                         'CODATA 2014 values)', structural=True)

    def validate(self, value, component):
        if not isinstance(value, str) or value not in CONSTANT_SETS:
            raise self.invalid(component, f"must be one of {', '.join(map(repr, CONSTANT_SETS))}, "
                                          f"got {value!r}")
        return value


def constant_set(component) -> ConstantSet:
    """The k and q ``component`` computes with: its ``constants`` parameter's set, SI's for a
    component without one."""
    has_choice = isinstance(type(component)._parameters.get("constants"), ConstantsChoice)
    return CONSTANT_SETS[component.constants if has_choice else "SI"]


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
