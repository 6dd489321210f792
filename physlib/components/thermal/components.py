"""Heat transfer elements: the heat capacitor, conduction, convection and radiation.

Energy bookkeeping: heat flow is itself a power, so a conductor passes energy on without
losing any. HeatCapacitor declares its internal energy C·T [J] (counted from 0 K) as its
stored energy; the conductors declare the pair (dT, Q) as their dissipation, whose product
[W.K] measures the irreversibility of the heat transfer (entropy production × T_a·T_b), not a
loss of energy — leave thermal parts out when adding dissipated power to an energy balance.
"""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import thermal
from .interfaces import TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["HeatCapacitor", "ThermalConductor", "Convection", "BodyRadiation", "STEFAN_BOLTZMANN"]

STEFAN_BOLTZMANN = 5.670374419e-8   # W/(m2.K4)


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
