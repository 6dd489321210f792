"""Logical blocks (the Modelica Standard Library's Blocks.Logical) on real signals: a Boolean
output is 1.0 for true and 0.0 for false."""
from ...core import Component, Input, Mode, Output, Parameter
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import any_of, where

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Hysteresis"]


class Hysteresis(Component):
    """Transformation of a real input into a Boolean output with hysteresis (MSL
    Blocks.Logical.Hysteresis; Simscape: Relay): y becomes true when u rises above u_high and
    false when it falls below u_low, and keeps its value in between:
    y = (not pre(y) and u > u_high) or (pre(y) and u >= u_low), pre(y) = pre_y_start at the start.

    Parameters: u_low < u_high the switching levels; pre_y_start (flag, default False) the value
    before the start. Output: y, 1.0 (true) or 0.0 (false). Modes: on = 1 true, 0 false (−1
    only until the start decides it). The switching times are state events, located to
    event_tol (1e-10 s by default). For a relay with other output values see :class:`Relay`.
    """

    u = Input(description="input")
    y = Output(description="1.0 while true, 0.0 while false")
    u_low = Parameter(0.0, description="input level below which y becomes false")
    u_high = Parameter(1.0, description="input level above which y becomes true (above u_low)")
    pre_y_start = Parameter(False, description="value of y before the start", structural=True)
    on = Mode({"unset": -1, "off": 0, "on": 1}, start="unset", description="value of y")

    def validate(self):
        if not self.u_low < self.u_high:
            raise ParameterError(f"Hysteresis {self.name!r}: u_low ({self.u_low}) must be below "
                                 f"u_high ({self.u_high})")

    def equations(self):
        return [sp.Eq(self.y, sp.Piecewise((1, sp.Eq(self.on, 1)), (0, True)))]

    def guards(self):
        # Only the level that would switch the present value is watched.
        return [sp.Piecewise((self.u - self.u_low, sp.Eq(self.on, 1)), (self.u - self.u_high, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard stands at its level (within event_tol, on either side) and switches y;
        # y switches at most once per instant, from its value before it (pre(on); −1 at the
        # start, where pre(y) = pre_y_start).
        u, pre = v["u"], v["pre(on)"]
        before = where(pre == -1, int(self.pre_y_start), pre)
        new = where(before == 1, where(any_of(fired[0], u < v["u_low"]), 0, 1),
                    where(any_of(fired[0], u > v["u_high"]), 1, 0))
        return {"on": where(v["on"] == pre, new, v["on"])}
