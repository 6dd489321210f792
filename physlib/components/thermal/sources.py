"""Ideal thermal sources: a fixed temperature, a heat flow."""
from ...core import Component, Input, Parameter, Port
from ...core.lazy import lazy_module
from ...domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["FixedTemperature", "HeatFlowSource"]


class FixedTemperature(Component):
    """Ideal heat sink/source at constant temperature: port.T = T.

    Parameters: T [K] temperature (> 0).
    """

    port = Port(thermal, "port at the fixed temperature")
    T = Parameter(293.15, unit="K", description="fixed temperature", positive=True)

    def equations(self):
        return [sp.Eq(self.port.T, self.T)]


class HeatFlowSource(Component):
    """Ideal heat flow source: injects Q into the network at ``port`` (port.Q = −Q).

    Inputs: Q [W] a number, a waveform or a connected signal.
    """

    port = Port(thermal, "port the heat flows out of")
    Q = Input("W", "heat flow into the network")

    def equations(self):
        return [sp.Eq(self.port.Q, -self.Q)]
