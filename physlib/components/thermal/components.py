"""Heat transfer elements: the heat capacitor, conduction (linear or a table over temperature),
convection (fixed or signal-driven conductance) and radiation.

Energy bookkeeping: heat flow is itself a power, so a conductor passes energy on without
losing any. HeatCapacitor declares its internal energy C·T [J] (counted from 0 K) as its
stored energy; the conductors declare the pair (dT, Q) as their dissipation, whose product
[W.K] measures the irreversibility of the heat transfer (entropy production × T_a·T_b), not a
loss of energy — leave thermal parts out when adding dissipated power to an energy balance.
"""
from ...constants import Constant, sigma
from ...core import Component, Input, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.errors import ParameterError
from ...core.tables import interpolate, table_points
from ...domains import thermal
from .interfaces import TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["HeatCapacitor", "ThermalConductor", "TemperatureDependentConductor", "Convection",
           "VariableConvection", "BodyRadiation", "STEFAN_BOLTZMANN"]

STEFAN_BOLTZMANN = sigma   # W/(m2.K4), with its unit: the unit check sees σ·Gr·T⁴ as a heat flow


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


class TemperatureDependentConductor(TwoPort):
    """Heat conduction whose conductance is a table over temperature: Q = G(T_m)·dT, with
    G piecewise linear in the mean temperature T_m = (port_a.T + port_b.T)/2, held at the end
    values beyond the table (as Simscape's Conductive Heat Transfer with a tabulated thermal
    conductivity; the MSL writes it as a ThermalConductor with G an expression).

    ``TemperatureDependentConductor("wall", points=[(273.15, 2.0), (373.15, 1.5)])``.
    Parameters (structural: changing them means compiling again): points, at least two
    (T [K], G [W/K]) pairs, T strictly increasing, every G > 0.
    Variables: G [W/K] conductance. Dissipation pair (dT, Q) (see the module notes).
    """

    dissipates_power = False   # conduction moves heat; (dT, Q) is its noise pair

    points = Parameter(description="(T [K], G [W/K]) pairs, T strictly increasing", structural=True)
    G = Variable("W/K", "conductance at the mean temperature", start=1.0)

    def validate(self):
        pts = table_points(self.points, f"TemperatureDependentConductor {self.name!r}", "(T, G)")
        if any(g <= 0 for _, g in pts):
            raise ParameterError(f"TemperatureDependentConductor {self.name!r}: every conductance "
                                 f"must be > 0 W/K, got {pts!r:.80}")
        self._values["points"] = pts

    def equations(self):
        mean = (self.port_a.T + self.port_b.T) / 2
        # the table's numbers are kelvin and W/K: its slopes carry no units of their own
        conductance = Constant(1.0, "W/K") * interpolate(self.points, mean / Constant(1.0, "K"))
        return super().equations() + [sp.Eq(self.G, conductance),
                                      sp.Eq(self.Q, self.G * self.dT)]

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


class VariableConvection(TwoPort):
    """Convection whose conductance is a signal, as the MSL's Thermal.HeatTransfer.Components.
    Convection (its input Gc; Simscape's Convective Heat Transfer with a varying coefficient):
    Q = Gc·dT from the solid surface (port_a) to the fluid (port_b).

    Inputs: Gc [W/K] convective conductance h·A (a number, a waveform or a signal; >= 0).
    Dissipation pair (dT, Q) (see the module notes).
    """

    dissipates_power = False   # conduction moves heat; (dT, Q) is its noise pair

    Gc = Input("W/K", "convective thermal conductance h*A")

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
