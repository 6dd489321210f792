"""Ideal rotational sensors: speed, torque and angle as signals."""
from ...core import Component, Output, Parameter, Port, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import rotational
from .interfaces import TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["SpeedSensor", "TorqueSensor", "AngleSensor"]


class SpeedSensor(Component):
    """Ideal speed sensor: output w = flange.w, no torque drawn."""

    flange = Port(rotational, "measured flange")
    w = Output("rad/s", "absolute speed")

    def equations(self):
        return [sp.Eq(self.w, self.flange.w), sp.Eq(self.flange.tau, 0)]


class TorqueSensor(TwoFlange):
    """Ideal torque sensor in series: output tau = flange_a.tau, rigid (equal speeds)."""

    rigid_ports = (("flange_a", "flange_b"),)

    tau = Output("N.m", "torque from flange_a to flange_b")

    def equations(self):
        return [sp.Eq(self.flange_a.w, self.flange_b.w),
                sp.Eq(self.flange_a.tau + self.flange_b.tau, 0),
                sp.Eq(self.tau, self.flange_a.tau)]


class AngleSensor(Component):
    """Ideal angle sensor: output phi, the integral of flange.w from phi0; no torque drawn.

    Parameters: phi0 [rad] angle at the start.
    """

    flange = Port(rotational, "measured flange")
    position_states = (PositionState("phi", "phi0", "flange"),)

    phi = Output("rad", "absolute angle")
    phi0 = Parameter(0.0, unit="rad", description="initial angle")

    def equations(self):
        return [sp.Eq(der(self.phi), self.flange.w), sp.Eq(self.flange.tau, 0)]

    def initial(self):
        return {self.phi: self.phi0}
