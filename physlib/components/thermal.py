"""Lumped heat transfer. Temperatures in kelvin.

Sign convention: a port's heat flow ``Q`` is positive *into* the component. A two-port's ``dT``
is ``port_a.T − port_b.T`` and its ``Q`` flows from ``port_a`` through the component to
``port_b``.

Energy bookkeeping: heat flow is itself a power, so a conductor passes energy on without
losing any. HeatCapacitor declares its internal energy C·T [J] (counted from 0 K) as its
stored energy; the conductors declare the pair (dT, Q) as their dissipation, whose product
[W.K] measures the irreversibility of the heat transfer (entropy production × T_a·T_b), not a
loss of energy — leave thermal parts out when adding dissipated power to an energy balance.
"""

from ..core import Component, Input, Output, Parameter, Port, Variable, der
from ..core.lazy import lazy_module
from ..domains import thermal

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort", "FixedTemperature", "HeatFlowSource", "HeatCapacitor", "ThermalConductor",
           "Convection", "BodyRadiation", "TemperatureSensor", "HeatFlowSensor", "STEFAN_BOLTZMANN"]

STEFAN_BOLTZMANN = 5.670374419e-8   # W/(m2.K4)


# --- partial base -----------------------------------------------------------------------------

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


# --- sources ----------------------------------------------------------------------------------

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


# --- passive elements -------------------------------------------------------------------------

class HeatCapacitor(Component):
    """Lumped thermal mass: C·dT/dt = port.Q.

    Parameters: C [J/K] heat capacity (> 0); T0 [K] initial temperature (> 0).
    States: T [K]. Stores its internal energy C·T (see the module notes).
    """

    port = Port(thermal, "port")
    C = Parameter(unit="J/K", description="heat capacity", positive=True)
    T0 = Parameter(293.15, unit="K", description="initial temperature", positive=True)
    T = Variable("K", "temperature", start=293.15)

    def equations(self):
        return [sp.Eq(self.T, self.port.T), sp.Eq(self.C * der(self.T), self.port.Q)]

    def initial(self):
        return {self.T: self.T0}

    def energy(self):
        return self.C * self.T


class ThermalConductor(TwoPort):
    """Linear heat conduction: Q = G·dT.

    Parameters: G [W/K] thermal conductance (> 0).
    Dissipation pair (dT, Q) (see the module notes).
    """

    dissipates_power = False   # conduction moves heat; (dT, Q) is its noise pair

    G = Parameter(unit="W/K", description="thermal conductance", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.Q, self.G * self.dT)]

    def dissipation(self):
        return self.dT, self.Q


class Convection(TwoPort):
    """Convective heat transfer from a solid surface (port_a) to a fluid (port_b): Q = Gc·dT.

    Parameters: Gc [W/K] convective conductance, h·A (> 0).
    Dissipation pair (dT, Q) (see the module notes).
    """

    dissipates_power = False   # conduction moves heat; (dT, Q) is its noise pair

    Gc = Parameter(unit="W/K", description="convective thermal conductance h*A", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.Q, self.Gc * self.dT)]

    def dissipation(self):
        return self.dT, self.Q


class BodyRadiation(TwoPort):
    """Radiation between two surfaces: Q = sigma·Gr·(T_a⁴ − T_b⁴).

    Parameters: Gr [m2] net radiation conductance, emissivity × area × view factor (> 0).
    Dissipation pair (dT, Q) (see the module notes).
    """

    dissipates_power = False   # conduction moves heat; (dT, Q) is its noise pair

    Gr = Parameter(unit="m2", description="net radiation conductance", positive=True)

    def equations(self):
        return super().equations() + [
            sp.Eq(self.Q, STEFAN_BOLTZMANN * self.Gr * (self.port_a.T**4 - self.port_b.T**4))]

    def dissipation(self):
        return self.dT, self.Q


# --- sensors ----------------------------------------------------------------------------------

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
