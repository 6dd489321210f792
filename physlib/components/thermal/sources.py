"""Ideal thermal sources: a fixed or prescribed temperature, a heat flow (a number, a waveform or
a signal), the latter optionally following the port temperature as the MSL's
PrescribedHeatFlow."""
from ...core import Component, Input, Parameter, Port
from ...core.lazy import lazy_module
from ...domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["FixedTemperature", "HeatFlowSource", "PrescribedTemperature", "PrescribedHeatFlow"]


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


class PrescribedTemperature(Component):
    """Temperature imposed by a signal: port.T = T (the MSL's
    Thermal.HeatTransfer.Sources.PrescribedTemperature; Simscape's Controlled Temperature
    Source).

    Inputs: T [K] a number, a waveform or a connected signal.
    """

    port = Port(thermal, "port at the prescribed temperature")
    T = Input("K", "prescribed temperature")

    def equations(self):
        return [sp.Eq(self.port.T, self.T)]


class PrescribedHeatFlow(Component):
    """Heat flow imposed by a signal, scaled by the port temperature as the MSL's
    Thermal.HeatTransfer.Sources.PrescribedHeatFlow (Simscape's Controlled Heat Flow Rate
    Source for alpha = 0)::

        port.Q = −Q_flow·(1 + alpha·(port.T − T_ref))

    (Q_flow enters the network at ``port`` at the reference temperature; alpha models a loss
    whose resistance follows the temperature.)

    Parameters: T_ref [K] reference temperature (> 0); alpha [1/K] temperature coefficient.
    Inputs: Q_flow [W] a number, a waveform or a connected signal.
    """

    port = Port(thermal, "port the heat flows out of")
    T_ref = Parameter(293.15, unit="K", description="reference temperature", positive=True)
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of the heat flow")
    Q_flow = Input("W", "heat flow into the network at T_ref")

    def equations(self):
        return [sp.Eq(self.port.Q, -self.Q_flow * (1 + self.alpha * (self.port.T - self.T_ref)))]
