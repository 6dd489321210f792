"""Hydraulic elements: laminar and turbulent (orifice) resistance, the fluid's compliance and
inertia."""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import hydraulic
from .interfaces import TwoPort, orifice_flow

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["LaminarResistance", "Orifice", "FluidCapacitance", "Inertance"]


class LaminarResistance(TwoPort):
    """Laminar (Hagen–Poiseuille) resistance: dp = R·q.

    Parameters: R [Pa.s/m3] hydraulic resistance (> 0).
    Dissipates dp·q.
    """

    R = Parameter(unit="Pa.s/m3", description="hydraulic resistance", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, self.R * self.q)]

    def dissipation(self):
        return self.dp, self.q


class Orifice(TwoPort):
    """Sharp-edged orifice: q = Cd·A·√(2·|dp|/rho)·sign(dp) above the transition pressure.

    Below |dp| = dp_tr the flow follows the odd cubic q = q_tr·(5x − x³)/4 with x = dp/dp_tr and
    q_tr the turbulent flow at dp_tr: it matches the turbulent law's value and slope at
    ±dp_tr and has a finite slope at dp = 0, where the square root's is infinite.

    Parameters: Cd [1] discharge coefficient (> 0); A [m2] opening area (> 0);
    rho [kg/m3] density (> 0); dp_tr [Pa] transition pressure (> 0).
    Dissipates dp·q.
    """

    Cd = Parameter(0.7, unit="1", description="discharge coefficient", positive=True)
    A = Parameter(unit="m2", description="opening area", positive=True)
    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    dp_tr = Parameter(1e3, unit="Pa", description="laminar/turbulent transition pressure",
                      positive=True)

    def equations(self):
        k = self.Cd * self.A * sp.sqrt(2 / self.rho)
        return super().equations() + [sp.Eq(self.q, orifice_flow(self.dp, k, self.dp_tr))]

    def dissipation(self):
        return self.dp, self.q


class FluidCapacitance(Component):
    """Volume of compressible liquid: (V/beta)·dp/dt = port_a.q.

    Parameters: V [m3] volume (> 0); beta [Pa] bulk modulus (> 0); p0 [Pa] initial pressure.
    States: p [Pa]. Stores (V/beta)·p²/2.
    """

    port_a = Port(hydraulic, "port")
    V = Parameter(unit="m3", description="volume", positive=True)
    beta = Parameter(1.5e9, unit="Pa", description="bulk modulus", positive=True)
    p0 = Parameter(0.0, unit="Pa", description="initial pressure")
    p = Variable("Pa", "pressure")

    def equations(self):
        return [sp.Eq(self.p, self.port_a.p), sp.Eq(self.V / self.beta * der(self.p), self.port_a.q)]

    def initial(self):
        return {self.p: self.p0}

    def energy(self):
        return self.V / self.beta * self.p**2 / 2


class Inertance(TwoPort):
    """Inertia of the liquid in a pipe: dp = I·dq/dt with I = rho·L/A.

    Parameters: rho [kg/m3] density (> 0); L [m] pipe length (> 0); A [m2] cross-section (> 0);
    q0 [m3/s] initial flow.
    States: q [m3/s]. Stores I·q²/2.
    """

    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    L = Parameter(unit="m", description="pipe length", positive=True)
    A = Parameter(unit="m2", description="pipe cross-section", positive=True)
    q0 = Parameter(0.0, unit="m3/s", description="initial flow")

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, self.rho * self.L / self.A * der(self.q))]

    def initial(self):
        return {self.q: self.q0}

    def energy(self):
        return self.rho * self.L / self.A * self.q**2 / 2
