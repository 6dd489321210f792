"""Periodic waveforms with edges: rectangular pulses, constant-duty PWM, sawtooth, triangle and
SPICE's PULSE (Trapezoid). Their corners and jumps in every period are time events, placed
with the edge tolerance of :mod:`.edges`."""
import math

from ...core import Parameter
from ...core import symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import minimum, where
from .edges import cycle, first_after, next_periodic, periods
from .sources import Waveform

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Pulse", "PWM", "Sawtooth", "Triangle", "Trapezoid"]


class Pulse(Waveform):
    """Rectangular pulses: offset + amplitude for ``width`` seconds of every ``period``, from t0 on.

    Parameters: amplitude; width [s] (> 0); period [s] (> 0); offset; t0 [s] first rising edge.
    """

    amplitude = Parameter(1.0, description="pulse amplitude")
    width = Parameter(unit="s", description="pulse width", positive=True)
    period = Parameter(unit="s", description="period", positive=True)
    offset = Parameter(0.0, description="value between pulses")
    t0 = Parameter(0.0, unit="s", description="time of the first rising edge")

    def validate(self):
        if self.width > self.period:
            raise ParameterError(f"Pulse {self.name!r}: width ({self.width}) exceeds period ({self.period})")

    def value(self):
        t = symbols.t
        in_cycle, eps = cycle(self.t0, self.period)
        on = sp.And(t >= self.t0, in_cycle < self.width - eps)
        return self.offset + sp.Piecewise((self.amplitude, on), (0, True))

    def time_events(self, values, t_start, t_stop):
        t0, period, width = values["t0"], values["period"], values["width"]
        if width >= period:             # on from t0 for good: a falling edge would coincide
            return [t0]                 # with the next rising one, a stop for nothing
        return [t0 + k * period + d for k in periods(self, t0, period, t_start, t_stop)
                for d in (0.0, width)]

    def next_time_event(self, values, t):
        t0, period, width = values["t0"], values["period"], values["width"]
        return where(width >= period, first_after(t, t0), next_periodic(t, t0, period, (0.0, width)))


class PWM(Waveform):
    """Pulse-width modulation at a constant duty cycle: offset + amplitude for the first
    ``duty`` fraction of every period 1/f, offset for the rest, from t0 on (offset before).

    Parameters: amplitude; offset; f [Hz] (> 0) switching frequency; duty [1] (0 … 1) fraction
    of each period that is on; t0 [s] first rising edge. duty = 0 is offset throughout,
    duty = 1 steps to offset + amplitude at t0. For a duty cycle that varies, see
    :class:`SignalPWM`.
    """

    amplitude = Parameter(1.0, description="pulse amplitude")
    offset = Parameter(0.0, description="value while off")
    f = Parameter(unit="Hz", description="switching frequency", positive=True)
    duty = Parameter(0.5, description="duty cycle: on fraction of each period",
                     check=(lambda d: 0 <= d <= 1, "the duty cycle must be between 0 and 1"))
    t0 = Parameter(0.0, unit="s", description="time of the first rising edge")

    def value(self):
        t = symbols.t
        period = 1 / self.f
        in_cycle, eps = cycle(self.t0, period)
        # duty 0 and 1 are decided without the comparison, which rounding could tip within
        # the edge tolerance of the period boundaries that time_events does not report then.
        on = sp.And(t >= self.t0, self.duty > 0,
                    sp.Or(self.duty >= 1, in_cycle < self.duty * period - eps))
        return self.offset + sp.Piecewise((self.amplitude, on), (0, True))

    def time_events(self, values, t_start, t_stop):
        t0, duty, period = values["t0"], values["duty"], 1 / values["f"]
        if duty == 0:
            return []
        if duty == 1:
            return [t0]
        return [t0 + (k + d) * period for k in periods(self, t0, period, t_start, t_stop)
                for d in (0.0, duty)]

    def next_time_event(self, values, t):
        t0, duty, period = values["t0"], values["duty"], 1 / values["f"]
        edges = next_periodic(t, t0, period, (0.0, duty * period))
        return where(duty == 0, math.inf, where(duty == 1, first_after(t, t0), edges))


class Sawtooth(Waveform):
    """Sawtooth: rises linearly from offset to offset + amplitude over each period and drops
    back to offset at the period's end, from t0 on (offset before).

    Parameters: amplitude; period [s] (> 0); offset; t0 [s] start of the first period.
    The drops (and the start at t0) are time events; at a drop the value is offset.
    """

    amplitude = Parameter(1.0, description="rise over one period")
    period = Parameter(unit="s", description="period", positive=True)
    offset = Parameter(0.0, description="value at the start of each period")
    t0 = Parameter(0.0, unit="s", description="start of the first period")

    def value(self):
        t = symbols.t
        in_cycle, _ = cycle(self.t0, self.period)
        # Within the edge tolerance after a drop the time since it is slightly negative. A
        # Piecewise rather than Max: at the drop itself the slope is the one after it (Max's
        # derivative there would be half of it).
        ramp = self.amplitude * sp.Piecewise((0, in_cycle < 0), (in_cycle, True)) / self.period
        return self.offset + sp.Piecewise((0, t < self.t0), (ramp, True))

    def time_events(self, values, t_start, t_stop):
        t0, period = values["t0"], values["period"]
        return [t0 + k * period for k in periods(self, t0, period, t_start, t_stop)]

    def next_time_event(self, values, t):
        return next_periodic(t, values["t0"], values["period"], (0.0,))


class Triangle(Waveform):
    """Triangle wave: from offset at t0 up to offset + amplitude at half a period and back down
    to offset at the period's end, repeating (offset before t0). Continuous; the corners at
    every half period (and at t0) are time events, so the solver does not step across them.

    Parameters: amplitude; period [s] (> 0); offset; t0 [s] start of the first period.
    """

    amplitude = Parameter(1.0, description="peak value above offset")
    period = Parameter(unit="s", description="period", positive=True)
    offset = Parameter(0.0, description="lowest value")
    t0 = Parameter(0.0, unit="s", description="start of the first period")

    def value(self):
        t = symbols.t
        in_cycle, eps = cycle(self.t0, self.period)
        # Rising, then falling from half a period (within the edge tolerance, as for the drops):
        # at a corner the value is continuous and the slope is the one after it, which a forced
        # state (an inductor fed by this current) then follows.
        half = self.period / 2
        rising = sp.Piecewise((0, in_cycle < 0), (in_cycle, True)) / half
        falling = (self.period - in_cycle) / half
        wave = self.amplitude * sp.Piecewise((rising, in_cycle < half - eps), (falling, True))
        return self.offset + sp.Piecewise((0, t < self.t0), (wave, True))

    def time_events(self, values, t_start, t_stop):
        t0, period = values["t0"], values["period"]
        return [t0 + (k + d) * period for k in periods(self, t0, period, t_start, t_stop)
                for d in (0.0, 0.5)]

    def next_time_event(self, values, t):
        period = values["period"]
        return next_periodic(t, values["t0"], period, (0.0, 0.5 * period))


class Trapezoid(Waveform):
    """Periodic trapezoid, SPICE's PULSE: from t0 on, every ``period`` a linear rise over
    ``rising`` seconds from offset to offset + amplitude, ``width`` seconds there, a linear fall
    over ``falling`` seconds, then offset until the period ends (offset before t0). A shape
    longer than the period is cut at the period's end, where the next rise starts from offset
    (as ngspice-39). With ``pulses`` > 0 the value is offset again after t0 + pulses·period
    (SPICE's NP; a fraction of a period counts).

    At the instant of a jump the value is the one after it, as at every waveform edge, except
    at the end of the first period (t0 + period) and at t0 + pulses·period, where it is the
    one before, as ngspice-39 evaluates PULSE (it starts repeating only past the first period
    and stops only past the last). That instant matters when it is the end of the run: a PULSE
    whose PW and PER default to the stop time ends there at V2, not V1.

    Parameters: amplitude; rising [s] (> 0); width [s] (>= 0); falling [s] (> 0); period [s]
    (> 0); offset; t0 [s] start of the first rise; pulses (>= 0, 0: unlimited). SPICE's
    PULSE(V1 V2 TD TR TF PW PER NP) is offset=V1, amplitude=V2−V1, t0=TD, rising=TR,
    falling=TF, width=PW, period=PER, pulses=NP. The corners are time events.
    """

    amplitude = Parameter(1.0, description="pulse amplitude")
    rising = Parameter(unit="s", description="rise time", positive=True)
    width = Parameter(unit="s", description="time at offset + amplitude", nonnegative=True)
    falling = Parameter(unit="s", description="fall time", positive=True)
    period = Parameter(unit="s", description="period", positive=True)
    offset = Parameter(0.0, description="value between pulses")
    t0 = Parameter(0.0, unit="s", description="start of the first rise")
    pulses = Parameter(0.0, description="number of periods (0: unlimited)", nonnegative=True)

    def value(self):
        t = symbols.t
        repeating, eps = cycle(self.t0, self.period)
        elapsed = t - self.t0
        # the first period includes its end, the pulses' end is past it (see the docstring)
        tau = sp.Piecewise((elapsed, elapsed < self.period + eps), (repeating, True))
        top, down = self.rising + self.width, self.rising + self.width + self.falling
        done = sp.And(self.pulses > 0, t > self.t0 + self.pulses * self.period + eps)
        shape = sp.Piecewise((0, t < self.t0), (0, done),
                             (tau / self.rising, tau < self.rising - eps),
                             (1, tau < top - eps), (1 - (tau - top) / self.falling, tau < down - eps),
                             (0, True))
        return self.offset + self.amplitude * shape

    def time_events(self, values, t_start, t_stop):
        t0, period, pulses = values["t0"], values["period"], values["pulses"]
        r, w, f = values["rising"], values["width"], values["falling"]
        corners = [d for d in (0.0, r, r + w, r + w + f) if d < period]
        end = t0 + pulses * period if pulses > 0 else math.inf
        events = [t0 + k * period + d
                  for k in periods(self, t0, period, t_start, min(t_stop, end)) for d in corners]
        return [e for e in events if e < end] + ([end] if pulses > 0 else [])

    def next_time_event(self, values, t):
        t0, period, pulses = values["t0"], values["period"], values["pulses"]
        r, w, f = values["rising"], values["width"], values["falling"]
        # A corner at or past the period's end is no event: the shape is cut there, where the
        # next rise starts (time_events leaves it out too).
        corners = [where(d < period, next_periodic(t, t0, period, (d,)), math.inf)
                   for d in (0.0, r, r + w, r + w + f)]
        end = where(pulses > 0, t0 + pulses * period, math.inf)
        corner = minimum(*corners)
        return minimum(where(corner < end, corner, math.inf), first_after(t, end))
