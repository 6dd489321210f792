"""Ideal rotational sources: a torque or a speed, each a number, a waveform or a signal."""
from ...core import Input, Port
from ...core.lazy import lazy_module
from ...domains import rotational
from .interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Torque", "Speed"]


class Torque(Supported):
    """Ideal torque source acting on ``flange``: flange.tau = −tau (tau drives the flange
    forward); the housing takes the reaction.

    Inputs: tau [N.m] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(rotational, "driven flange")
    tau = Input("N.m", "driving torque")

    def equations(self):
        return [sp.Eq(self.flange.tau, -self.tau), *self.support_reaction(self.tau)]


class Speed(Supported):
    """Ideal speed source: flange.w = w relative to the housing, whatever torque that takes.

    Inputs: w [rad/s] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(rotational, "driven flange")
    w = Input("rad/s", "prescribed speed")

    def equations(self):
        return [sp.Eq(self.flange.w - self.support_w(), self.w),
                *self.support_reaction(-self.flange.tau)]
