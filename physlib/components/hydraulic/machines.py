"""Hydraulic machines, the converters between the hydraulic and the mechanical domains: the
pump (shaft to flow) and the cylinder (pressure to force)."""
from ...core import Parameter, Port
from ...core.lazy import lazy_module
from ...domains import rotational, translational
from .interfaces import TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Pump", "Cylinder"]


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
