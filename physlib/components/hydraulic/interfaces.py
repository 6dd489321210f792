"""The partial base of the hydraulic components: two ports whose flows balance."""
from ...core import Component, Port, Variable
from ...core.lazy import lazy_module
from ...domains import hydraulic

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort"]


class TwoPort(Component):
    """Two ports whose flows balance: the flow ``q`` enters ``port_a`` and leaves ``port_b``.

    Variables: dp [Pa] = port_a.p − port_b.p; q [m3/s] from port_a to port_b.
    """

    port_a = Port(hydraulic, "port a (inlet for positive q)")
    port_b = Port(hydraulic, "port b (outlet for positive q)")
    dp = Variable("Pa", "pressure drop port_a.p - port_b.p")
    q = Variable("m3/s", "volume flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.dp, self.port_a.p - self.port_b.p),
                sp.Eq(self.port_a.q + self.port_b.q, 0), sp.Eq(self.q, self.port_a.q)]
