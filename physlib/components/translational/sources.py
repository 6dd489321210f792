"""Ideal translational sources: a force or a velocity, each a number, a waveform or a signal."""
from ...core import Input, Port
from ...core.lazy import lazy_module
from ...domains import translational
from .interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Force", "Velocity"]


class Force(Supported):
    """Ideal force source acting on ``flange``: flange.f = −f (f pushes the flange forward);
    the housing takes the reaction.

    Inputs: f [N] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(translational, "driven flange")
    f = Input("N", "driving force")

    def equations(self):
        return [sp.Eq(self.flange.f, -self.f), *self.support_reaction(self.f)]


class Velocity(Supported):
    """Ideal velocity source: flange.v = v relative to the housing, whatever force that takes.

    Inputs: v [m/s] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(translational, "driven flange")
    v = Input("m/s", "prescribed velocity")

    def equations(self):
        return [sp.Eq(self.flange.v - self.support_v(), self.v),
                *self.support_reaction(-self.flange.f)]
