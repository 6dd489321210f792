"""The partial base of the thermal components: two ports whose heat flows balance."""
from ...core import Component, Port, Variable
from ...core.lazy import lazy_module
from ...domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort"]


class TwoPort(Component):
    """Two ports whose heat flows balance: ``Q`` enters ``port_a`` and leaves ``port_b``.

    Variables: dT [K] = port_a.T − port_b.T; Q [W] from port_a to port_b.
    """

    port_a = Port(thermal, "port a")
    port_b = Port(thermal, "port b")
    dT = Variable("K", "temperature difference port_a.T - port_b.T")
    Q = Variable("W", "heat flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.dT, self.port_a.T - self.port_b.T),
                sp.Eq(self.port_a.Q + self.port_b.Q, 0), sp.Eq(self.Q, self.port_a.Q)]
