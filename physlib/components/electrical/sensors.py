"""Ideal electrical sensors: voltage and current as signals."""
from ...core import Component, Output, Port
from ...core.lazy import lazy_module
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["VoltageSensor", "CurrentSensor"]


class VoltageSensor(Component):
    """Ideal voltmeter: output v = p.v − n.v, no current drawn."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Output("V", "measured voltage")

    def equations(self):
        return [sp.Eq(self.p.i, 0), sp.Eq(self.n.i, 0), sp.Eq(self.v, self.p.v - self.n.v)]


class CurrentSensor(Component):
    """Ideal ammeter in series: output i = current from p to n, no voltage drop."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    i = Output("A", "measured current")

    def equations(self):
        return [sp.Eq(self.p.v, self.n.v), sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]
