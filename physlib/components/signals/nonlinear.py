"""Nonlinear and switching blocks (the Modelica Standard Library's Blocks.Nonlinear and
Logical): the limiters, the dead zone, the slew-rate limiter, and two hybrid blocks with modes that switch at state events, the relay
with hysteresis and the pulse-width modulator of a duty-cycle signal."""
from ...core import Component, Input, Mode, Output, Parameter, Variable, der
from ...core import symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, switched_once, where
from .edges import cycle, next_periodic, periods

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Limiter", "VariableLimiter", "DeadZone", "SlewRateLimiter", "Relay", "SignalPWM"]


class Limiter(Component):
    """y = u clipped to [u_min, u_max]."""

    u = Input(description="input")
    y = Output(description="limited output")
    u_max = Parameter(1.0, description="upper limit")
    u_min = Parameter(-1.0, description="lower limit")

    def validate(self):
        if not self.u_min < self.u_max:
            raise ParameterError(f"Limiter {self.name!r}: u_min ({self.u_min}) must be below u_max ({self.u_max})")

    def equations(self):
        return [sp.Eq(self.y, sp.Min(sp.Max(self.u, self.u_min), self.u_max))]


class VariableLimiter(Component):
    """y = u clipped to [limit2, limit1], the limits being inputs (MSL
    Blocks.Nonlinear.VariableLimiter; Simscape: Saturation Dynamic). The limits should satisfy
    limit2 <= limit1 (otherwise y = limit1)."""

    u = Input(description="input")
    limit1 = Input(description="upper limit")
    limit2 = Input(description="lower limit")
    y = Output(description="limited output")

    def equations(self):
        return [sp.Eq(self.y, sp.Min(sp.Max(self.u, self.limit2), self.limit1))]


class DeadZone(Component):
    """Dead zone (MSL Blocks.Nonlinear.DeadZone; Simscape: Dead Zone): y = u − u_max above
    u_max, u − u_min below u_min, 0 in between (u_min < u_max)."""

    u = Input(description="input")
    y = Output(description="output, zero inside the dead zone")
    u_max = Parameter(1.0, description="upper end of the dead zone")
    u_min = Parameter(-1.0, description="lower end of the dead zone")

    def validate(self):
        if not self.u_min < self.u_max:
            raise ParameterError(f"DeadZone {self.name!r}: u_min ({self.u_min}) must be below u_max ({self.u_max})")

    def equations(self):
        return [sp.Eq(self.y, sp.Max(self.u - self.u_max, 0) + sp.Min(self.u - self.u_min, 0))]


class SlewRateLimiter(Component):
    """Output following the input at a limited rate (MSL Blocks.Nonlinear.SlewRateLimiter;
    Simscape: Rate Limiter): dy/dt = (u − y)/Td clipped to [Falling, Rising], y(t0) = y_start.

    Parameters: Rising [1/s] (> 0) largest rising slope; Falling [1/s] (< 0) largest falling
    slope, or 0 (the default) for −Rising, which then follows Rising wherever it is set (the
    MSL's binding Falling = −Rising; ``params={"s.Rising": 5}`` limits both slopes); Td [s]
    (> 0) time constant with which y follows u within the limits; y_start initial output (the
    MSL's default steady start is y_start = u(t0)). Variables: rate, dy/dt.
    """

    u = Input(description="input")
    y = Output(description="rate-limited output")
    Rising = Parameter(1.0, unit="1/s", description="largest rising slope", positive=True)
    Falling = Parameter(0.0, unit="1/s", description="largest falling slope (< 0); 0: −Rising",
                        check=(lambda value: value <= 0, "must be negative (or 0 for −Rising)"))
    Td = Parameter(0.001, unit="s", description="time constant of the output within the limits", positive=True)
    y_start = Parameter(0.0, description="initial output")
    rate = Variable(description="dy/dt")

    def equations(self):
        falling = sp.Piecewise((self.Falling, self.Falling < 0), (-self.Rising, True))
        return [sp.Eq(self.rate, sp.Min(sp.Max((self.u - self.y) / self.Td, falling), self.Rising)),
                sp.Eq(der(self.y), self.rate)]

    def initial(self):
        return {self.y: self.y_start}


class Relay(Component):
    """Relay with hysteresis: the output switches to y_on when the input rises to u_on and back
    to y_off when it falls to u_off (u_off < u_on); in between it keeps its state.

    Parameters: u_on, u_off switching levels of the input (u_off < u_on); y_on, y_off output
    values; initially_on (flag, default False) the state at the start when u(t0) lies between
    the levels. At the start the state follows the input: on if u(t0) >= u_on, off if
    u(t0) <= u_off.
    Inputs: u. Modes: on = 1 on, 0 off (−1 only until the start decides it).
    The switching times are state events, located to event_tol (1e-10 s by default).
    """

    u = Input(description="input")
    y = Output(description="y_on while on, y_off while off")
    u_on = Parameter(description="input level at which the relay switches on")
    u_off = Parameter(description="input level at which the relay switches off (below u_on)")
    y_on = Parameter(1.0, description="output while on")
    y_off = Parameter(0.0, description="output while off")
    initially_on = Parameter(False, description="state at the start when u is between u_off and u_on",
                             structural=True)
    on = Mode({"unset": -1, "off": 0, "on": 1}, start="unset", description="relay state")

    def validate(self):
        if not self.u_off < self.u_on:
            raise ParameterError(f"Relay {self.name!r}: u_off ({self.u_off}) must be below u_on ({self.u_on})")

    def equations(self):
        return [sp.Eq(self.y, sp.Piecewise((self.y_on, sp.Eq(self.on, 1)), (self.y_off, True)))]

    def guards(self):
        # Only the level that would switch the present state is watched.
        return [sp.Piecewise((self.u - self.u_off, sp.Eq(self.on, 1)), (self.u - self.u_on, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        u, on = v["u"], v["on"]
        between = where(on == -1, int(self.initially_on), on)    # -1: the start, between the levels
        return {"on": where(u >= v["u_on"], 1, where(u <= v["u_off"], 0, between))}


class SignalPWM(Component):
    """Pulse-width modulation of a duty-cycle signal: offset + amplitude while the input
    ``duty`` exceeds a carrier that rises from 0 to 1 over every period 1/f (restarting at
    t0 + k/f), offset otherwise and before t0. With a constant duty d in (0, 1) each period is
    on for its first d/f seconds; duty >= 1 stays on, duty <= 0 stays off. For a constant duty
    cycle :class:`PWM` is simpler (a waveform with time events only).

    Parameters: amplitude; offset; f [Hz] (> 0) carrier frequency; t0 [s] start of the first
    period.
    Inputs: duty [1]. Variables: carrier [1]. Modes: on = 1 while duty > carrier, 0 otherwise
    (before t0 the output is offset whatever the mode).
    The carrier restarts are time events; the crossings of duty and carrier are state events,
    located to event_tol (1e-10 s by default).
    """

    duty = Input(description="duty cycle, compared with the carrier")
    y = Output(description="modulated output")
    amplitude = Parameter(1.0, description="pulse amplitude")
    offset = Parameter(0.0, description="value while off")
    f = Parameter(unit="Hz", description="carrier frequency", positive=True)
    t0 = Parameter(0.0, unit="s", description="start of the first carrier period")
    carrier = Variable(description="sawtooth carrier, 0 to 1 over each period")
    on = Mode({"off": 0, "on": 1}, start="off", description="duty above the carrier")

    def equations(self):
        t = symbols.t
        in_cycle, _ = cycle(self.t0, 1 / self.f)
        on = sp.And(sp.Eq(self.on, 1), t >= self.t0)
        return [sp.Eq(self.carrier, sp.Piecewise((0, t < self.t0), (sp.Max(in_cycle, 0) * self.f, True))),
                sp.Eq(self.y, self.offset + sp.Piecewise((self.amplitude, on), (0, True)))]

    def guards(self):
        return [self.duty - self.carrier]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard: duty and carrier just crossed (they may be equal now). Off, it turns
        # on only where the duty strictly exceeds the carrier (as the MSL's, fire = duty >
        # carrier): a duty of 0 meets the carrier's restart at 0, a guard jumping onto zero at
        # a time event, which is no crossing (an FMU, which sees a jump onto zero as one,
        # pulsed on there for one event time).
        g = v["duty"] - v["carrier"]
        crossed = all_of(fired[0], any_of(v["pre(on)"] != 0, g > 0))
        return {"on": switched_once(crossed, v["on"], v["pre(on)"], g, where(g > 0, 1, 0))}

    def time_events(self, values, t_start, t_stop):
        t0, period = values["t0"], 1 / values["f"]
        return [t0 + k * period for k in periods(self, t0, period, t_start, t_stop)]

    def next_time_event(self, values, t):
        return next_periodic(t, values["t0"], 1 / values["f"], (0.0,))
