"""Ideal translational sensors: velocity, force and position as signals."""
from ...core import Component, Output, Parameter, Port, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import translational
from .interfaces import TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["SpeedSensor", "ForceSensor", "PositionSensor"]


class SpeedSensor(Component):
    """Ideal velocity sensor: output v = flange.v, no force drawn."""

    flange = Port(translational, "measured flange")
    v = Output("m/s", "absolute velocity")

    def equations(self):
        return [sp.Eq(self.v, self.flange.v), sp.Eq(self.flange.f, 0)]


class ForceSensor(TwoFlange):
    """Ideal force sensor in series: output f = flange_a.f, rigid (equal velocities)."""

    rigid_ports = (("flange_a", "flange_b"),)

    f = Output("N", "force from flange_a to flange_b")

    def equations(self):
        return [sp.Eq(self.flange_a.v, self.flange_b.v),
                sp.Eq(self.flange_a.f + self.flange_b.f, 0),
                sp.Eq(self.f, self.flange_a.f)]


class PositionSensor(Component):
    """Ideal position sensor: output s, the integral of flange.v from s0; no force drawn.

    Parameters: s0 [m] position at the start.
    """

    flange = Port(translational, "measured flange")
    position_states = (PositionState("s", "s0", "flange"),)

    s = Output("m", "absolute position")
    s0 = Parameter(0.0, unit="m", description="initial position")

    def equations(self):
        return [sp.Eq(der(self.s), self.flange.v), sp.Eq(self.flange.f, 0)]

    def initial(self):
        return {self.s: self.s0}
