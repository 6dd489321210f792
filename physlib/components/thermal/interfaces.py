"""The partial bases of the thermal components: two ports whose heat flows balance, and the
optional heat port through which a part of another domain gives off its losses."""
from ...core import Component, Parameter, Port, Variable
from ...core.lazy import lazy_module
from ...domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort", "ConditionalHeatPort"]


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


class ConditionalHeatPort(Component):
    """The optional ``heat_port`` of a lossy part of another domain (a damper, a brake): with
    ``use_heat_port=True`` the part's loss leaves through it, heat_port.Q = −(dissipated
    power) (Q positive into the part); without it the loss is only declared as dissipation.
    As the Modelica Standard Library's PartialElementaryConditionalHeatPortWithoutT.

    Parameters: use_heat_port (structural) whether the ``heat_port`` exists.
    """

    use_heat_port = Parameter(False, description="give the part a heat port its losses leave by",
                              structural=True)
    heat_port = Port(thermal, "heat port the losses leave by", condition="use_heat_port")

    def heat_loss(self, power):
        """The loss ``power`` [W] leaves through the heat port (no equation without one)."""
        return [sp.Eq(self.heat_port.Q, -power)] if self.use_heat_port else []
