"""Ideal thermal sensors: temperature and heat flow as signals."""
from ...core import Component, Output, Port
from ...core.lazy import lazy_module
from ...domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TemperatureSensor", "HeatFlowSensor"]


class TemperatureSensor(Component):
    """Ideal thermometer: output T = port.T, no heat drawn."""

    port = Port(thermal, "measured port")
    T = Output("K", "temperature")

    def equations(self):
        return [sp.Eq(self.T, self.port.T), sp.Eq(self.port.Q, 0)]


class HeatFlowSensor(Component):
    """Ideal heat flow sensor in series: output Q = heat flow from port_a to port_b."""

    port_a = Port(thermal, "inlet")
    port_b = Port(thermal, "outlet")
    Q = Output("W", "heat flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.port_a.T, self.port_b.T), sp.Eq(self.port_a.Q + self.port_b.Q, 0),
                sp.Eq(self.Q, self.port_a.Q)]
