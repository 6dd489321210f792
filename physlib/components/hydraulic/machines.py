"""Hydraulic machines, the converters between the hydraulic and the mechanical domains: the
ideal pump (shaft to flow) and cylinder (pressure to force), and the pump and motor with
leakage and friction."""
from ...core import Input, Parameter, Port
from ...core.lazy import lazy_module
from ...domains import rotational, translational
from .interfaces import InternalNoise, TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Pump", "Cylinder", "VariableDisplacementPump", "HydraulicMotor"]


class Pump(TwoPort):
    """Ideal displacement pump (or motor): q = D·w from port_a (inlet) to port_b (outlet),
    shaft torque flange.tau = D·(port_b.p − port_a.p); no losses, housing fixed.

    Parameters: D [m3/rad] displacement per radian (> 0).
    """

    flange = Port(rotational, "shaft")
    D = Parameter(unit="m3/rad", description="displacement per radian", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.D * self.flange.w),
                                      sp.Eq(self.flange.tau, -self.D * self.dp)]


class Cylinder(TwoPort):
    """Ideal double-acting cylinder with equal areas: q = A·v, rod force A·dp; housing fixed.

    Pressure at port_a pushes the rod (``flange``) forward; port_b is the opposite chamber.
    Its force on the load is A·dp, so flange.f = −A·dp.
    Parameters: A [m2] piston area (> 0).
    """

    flange = Port(translational, "piston rod")
    A = Parameter(unit="m2", description="piston area", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.A * self.flange.v),
                                      sp.Eq(self.flange.f, -self.A * self.dp)]


class _DisplacementMachine(InternalNoise, TwoPort):
    """Displacement machine with linear losses, housing fixed: the liquid flows from port_a to
    port_b as the shaft turns forward (a pump when port_b is at the higher pressure, a motor
    when port_a is), and leaks through the clearances from the higher to the lower pressure:

        q = D·w + G_leak·dp,        flange.tau = −D·dp + d·w

    (dp = port_a.p − port_b.p, w = flange.w, flange.tau the torque the shaft puts in).
    Volumetric efficiency q/(D·w) = 1 − G_leak·Δp/(D·w) as a pump (Δp = −dp), D·w/q as a
    motor; mechanical (hydro-mechanical) efficiency D·Δp/tau as a pump, tau/(D·dp) as a motor.
    From efficiencies eta_v, eta_m measured at a nominal speed w_nom and pressure rise
    dp_nom: G_leak = (1 − eta_v)·D·w_nom/dp_nom and d = (1/eta_m − 1)·D·dp_nom/w_nom
    (a pump's; Simscape's "analytical" loss model with these linear terms).

    Parameters: G_leak [m3/(s.Pa)] leakage conductance (>= 0); d [N.m.s/rad] viscous friction
    (>= 0); T [K] temperature of the losses (their thermal noise).
    Dissipates G_leak·dp² + d·w²; both losses are noise sources ("leakage", "friction").
    """

    NOISE_PARTS = {"leakage": "thermal", "friction": "thermal"}
    NOISE_UNITS = {"leakage": "m3/s", "friction": "N.m"}

    flange = Port(rotational, "shaft")
    G_leak = Parameter(0.0, unit="m3/(s.Pa)", description="leakage conductance", nonnegative=True)
    d = Parameter(0.0, unit="N.m.s/rad", description="viscous friction", nonnegative=True)

    def displacement(self):
        raise NotImplementedError

    def equations(self):
        D, w = self.displacement(), self.flange.w
        leakage = self.G_leak * self.dp + self._noise("leakage")
        friction = self.d * w + self._noise("friction")
        return super().equations() + [sp.Eq(self.q, D * w + leakage),
                                      sp.Eq(self.flange.tau, -D * self.dp + friction)]

    def dissipation(self):
        """G_leak·dp² + d·w² [W] as (power, 1): the two losses share no flow."""
        return self.G_leak * self.dp**2 + self.d * self.flange.w**2, sp.Integer(1)

    def part_conductance(self, part, values, params):
        return params["G_leak"] if part == "leakage" else params["d"]


class VariableDisplacementPump(_DisplacementMachine):
    """Variable-displacement pump with leakage and friction (Simscape: Variable-Displacement
    Pump (IL); OpenHydraulics: VariableDisplacementPump): the machine of
    :class:`HydraulicMotor` whose displacement is a signal (negative: over centre, the flow
    reverses). q = D·w + G_leak·dp, flange.tau = −D·dp + d·w; see :class:`HydraulicMotor`.

    Inputs: D [m3/rad] displacement per radian. Parameters: G_leak, d, T.
    """

    D = Input("m3/rad", "displacement per radian")

    def displacement(self):
        return self.D


class HydraulicMotor(_DisplacementMachine):
    """Fixed-displacement hydraulic motor (or pump) with leakage and friction (Simscape:
    Fixed-Displacement Motor (IL); OpenHydraulics: Motor):

        q = D·w + G_leak·dp,        flange.tau = −D·dp + d·w

    with dp = port_a.p − port_b.p, w = flange.w and flange.tau the torque into the shaft: the
    liquid from port_a (high pressure) to port_b turns the shaft forward with the torque
    D·dp − d·w on the load; G_leak·dp leaks past the rotor.
    Volumetric efficiency D·w/q, mechanical efficiency (D·dp − d·w)/(D·dp).
    From efficiencies eta_v, eta_m at a nominal speed w_nom and pressure drop dp_nom:
    G_leak = (1/eta_v − 1)·D·w_nom/dp_nom, d = (1 − eta_m)·D·dp_nom/w_nom.

    Parameters: D [m3/rad] displacement per radian (> 0); G_leak [m3/(s.Pa)] leakage
    conductance (>= 0); d [N.m.s/rad] viscous friction (>= 0); T [K].
    Dissipates G_leak·dp² + d·w²; both losses are noise sources ("leakage", "friction").
    """

    D = Parameter(unit="m3/rad", description="displacement per radian", positive=True)

    def displacement(self):
        return self.D
