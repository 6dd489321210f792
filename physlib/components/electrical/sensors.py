"""Ideal electrical sensors: voltage, current and power as signals."""
from ...core import Component, Output, Port
from ...core.lazy import lazy_module
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["VoltageSensor", "CurrentSensor", "PowerSensor"]


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


class PowerSensor(Component):
    """Ideal wattmeter, the MSL's Analog.Sensors.PowerSensor: a current path pc → nc in series
    (no voltage drop) and a voltage path pv − nv across (no current drawn); output power =
    (pv.v − nv.v)·i, i the current from pc to nc: the power the current path carries into
    what it feeds when pv, nv measure across that load."""

    pc = Port(electrical, "current path, positive pin")
    nc = Port(electrical, "current path, negative pin")
    pv = Port(electrical, "voltage path, positive pin")
    nv = Port(electrical, "voltage path, negative pin")
    power = Output("W", "measured power")

    def equations(self):
        return [sp.Eq(self.pc.v, self.nc.v), sp.Eq(self.pc.i + self.nc.i, 0),
                sp.Eq(self.pv.i, 0), sp.Eq(self.nv.i, 0),
                sp.Eq(self.power, (self.pv.v - self.nv.v) * self.pc.i)]
