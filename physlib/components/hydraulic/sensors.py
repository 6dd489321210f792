"""Ideal hydraulic sensors: pressure and volume flow as signals."""
from ...core import Component, Output, Port
from ...core.lazy import lazy_module
from ...domains import hydraulic

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["PressureSensor", "FlowSensor"]


class PressureSensor(Component):
    """Ideal pressure sensor: output p = port_a.p, no flow drawn."""

    port_a = Port(hydraulic, "measured port")
    p = Output("Pa", "pressure")

    def equations(self):
        return [sp.Eq(self.p, self.port_a.p), sp.Eq(self.port_a.q, 0)]


class FlowSensor(Component):
    """Ideal flow sensor in series: output q = flow from port_a to port_b, no pressure drop."""

    port_a = Port(hydraulic, "inlet")
    port_b = Port(hydraulic, "outlet")
    q = Output("m3/s", "volume flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.port_a.p, self.port_b.p), sp.Eq(self.port_a.q + self.port_b.q, 0),
                sp.Eq(self.q, self.port_a.q)]
