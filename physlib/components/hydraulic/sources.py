"""Ideal hydraulic sources: a reservoir at fixed pressure, a pressure rise, a volume flow."""
from ...core import Component, Input, Parameter, Port
from ...core.lazy import lazy_module
from ...domains import hydraulic
from .interfaces import TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["FixedPressure", "PressureSource", "FlowSource"]


class FixedPressure(Component):
    """Reservoir at constant pressure: port_a.p = p, whatever flow that takes.

    Parameters: p [Pa] pressure.
    """

    port_a = Port(hydraulic, "reservoir port")
    p = Parameter(0.0, unit="Pa", description="reservoir pressure")

    def equations(self):
        return [sp.Eq(self.port_a.p, self.p)]


class PressureSource(TwoPort):
    """Ideal pressure source: raises the pressure from port_a to port_b by P (dp = −P).

    Inputs: P [Pa] a number, a waveform or a connected signal.
    """

    P = Input("Pa", "pressure rise port_b.p - port_a.p")

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, -self.P)]


class FlowSource(TwoPort):
    """Ideal flow source: q = Q from port_a through the source to port_b.

    Inputs: Q [m3/s] a number, a waveform or a connected signal.
    """

    Q = Input("m3/s", "volume flow")

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.Q)]
