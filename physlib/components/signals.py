"""Causal signal blocks: waveforms (usable as source values), simple operators, and two hybrid
blocks with modes (Relay, SignalPWM) that switch at state events.

A waveform can be passed as the value of a signal input, ``VoltageSource("src",
V=Step(height=1.0, t0=1e-3))``, or added to a model under a name and connected like any block.
Its parameters are then addressed through the input, e.g. ``params={"src.V.height": 2.0}``.
Every waveform takes the value after a discontinuity at the discontinuity itself and reports
its discontinuities as time events, so the solver never steps across one.
"""
import math

import numpy as np

from ..core import Component, Input, Mode, Output, Parameter, Variable, der
from ..core.component import as_real
from ..core.errors import ParameterError
from ..core import symbols
from ..core.lazy import lazy_module
from ..core.logic import absolute, minimum, next_instant, switched_once, where

sp = lazy_module("sympy")     # imported when equations are derived


def __getattr__(name):
    # ``t``, the SymPy symbol of time, is made (and SymPy imported) when first asked for.
    if name == "t":
        return symbols.t
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["t", "Waveform", "Constant", "Step", "Ramp", "Sine", "Pulse", "PWM", "Sawtooth", "Triangle",
           "Table", "Expression", "Gain", "Add", "Product", "Integrator", "Limiter", "Table1D", "Relay",
           "SignalPWM", "PID", "StateSpace", "TransferFunction", "Trapezoid", "DampedSine", "Exponentials"]


class Waveform(Component):
    """A source of a signal y(t): subclasses define :meth:`value` as an expression of ``t``."""

    y = Output(description="waveform value")

    def value(self):
        raise NotImplementedError

    def equations(self):
        return [sp.Eq(self.y, self.value())]


class Constant(Waveform):
    """y = k."""

    k = Parameter(1.0, description="constant value")

    def value(self):
        return self.k


class Step(Waveform):
    """y = offset for t < t0, offset + height from t0 on.

    Parameters: height; offset; t0 [s] step time.
    """

    height = Parameter(1.0, description="step height")
    offset = Parameter(0.0, description="value before the step")
    t0 = Parameter(0.0, unit="s", description="step time")

    def value(self):
        t = symbols.t
        return sp.Piecewise((self.offset, t < self.t0), (self.offset + self.height, True))

    def time_events(self, values, t_start, t_stop):
        return [values["t0"]]

    def next_time_event(self, values, t):
        return _first_after(t, values["t0"])


class Ramp(Waveform):
    """Linear ramp from offset to offset + height between t0 and t0 + duration.

    Parameters: height; duration [s] (> 0); offset; t0 [s] start time.
    """

    height = Parameter(1.0, description="ramp height")
    duration = Parameter(1.0, unit="s", description="ramp duration", positive=True)
    offset = Parameter(0.0, description="value before the ramp")
    t0 = Parameter(0.0, unit="s", description="start time")

    def value(self):
        t = symbols.t
        ramp = sp.Min(sp.Max((t - self.t0) / self.duration, 0), 1)
        return self.offset + self.height * ramp

    def time_events(self, values, t_start, t_stop):
        return [values["t0"], values["t0"] + values["duration"]]

    def next_time_event(self, values, t):
        return _first_after(t, values["t0"], values["t0"] + values["duration"])


class Sine(Waveform):
    """y = offset + amplitude·sin(2π·f·(t − t0) + phase) from t0 on, offset before.

    Parameters: amplitude; f [Hz] (> 0); phase [rad]; offset; t0 [s] start time.
    """

    amplitude = Parameter(1.0, description="amplitude")
    f = Parameter(1.0, unit="Hz", description="frequency", positive=True)
    phase = Parameter(0.0, unit="rad", description="phase at t0")
    offset = Parameter(0.0, description="offset")
    t0 = Parameter(0.0, unit="s", description="start time")

    def value(self):
        t = symbols.t
        wave = self.amplitude * sp.sin(2 * sp.pi * self.f * (t - self.t0) + self.phase)
        return self.offset + sp.Piecewise((0, t < self.t0), (wave, True))

    def time_events(self, values, t_start, t_stop):
        return [values["t0"]]

    def next_time_event(self, values, t):
        return _first_after(t, values["t0"])

    def time_scale(self, values):
        return 1.0 / values["f"]          # the period


EDGE_TOLERANCE = 1e-14   # relative tolerance of waveform edge times (see _cycle)
MAX_PERIODS = 100_000    # periods of a periodic waveform in one run (each edge is a solver stop)


def _cycle(t0, period):
    """(time since the start of the current period, edge tolerance) at time ``t`` for a waveform
    that repeats every ``period`` from ``t0`` on, as SymPy expressions.

    Edge times are computed in floating point, here and in ``time_events``; a time within
    EDGE_TOLERANCE·(|t| + |t0|) before an edge (a few hundred rounding errors, far below the
    left-limit offset the solvers use, 1e-12 of the run) counts as reached, so the value at an
    edge is the value after it and just before it the value before. The time since the period
    start is then at least −tolerance."""
    t = symbols.t
    eps = EDGE_TOLERANCE * (sp.Abs(t) + sp.Abs(t0))
    cycles = sp.floor((t - t0 + eps) / period)
    return t - t0 - cycles * period, eps


def _periods(waveform, t0, period, t_start, t_stop):
    """Indices k of the periods [t0 + k·period, t0 + (k + 1)·period) that meet [t_start, t_stop]."""
    first = max(0, math.floor((t_start - t0) / period))
    last = math.ceil((t_stop - t0) / period)
    if last - first > MAX_PERIODS:
        raise ParameterError(f"{type(waveform).__name__} {waveform.name!r}: {last - first} periods "
                             "in the simulated interval; use a longer period or a shorter run")
    return range(first, last + 1)


def _first_after(t, *instants):
    """The first of ``instants`` [s] not reached at t (+inf if all are): later than t by more
    than the edge tolerance of :func:`_cycle`, so a t at an instant up to rounding is past it.
    For :meth:`~physlib.core.component.Component.next_time_event`, with physlib.core.logic."""
    return minimum(*(where(te > t + EDGE_TOLERANCE * (absolute(t) + absolute(te)), te, math.inf)
                     for te in instants))


def _next_periodic(t, t0, period, offsets):
    """The first instant t0 + offset + k·period (k = 0, 1, ...; offset from ``offsets`` [s])
    not reached at t, with the edge tolerance of :func:`_cycle`; for ``next_time_event``."""
    tolerance = EDGE_TOLERANCE * (absolute(t) + absolute(t0))
    return minimum(*(next_instant(t, t0 + offset, period, tolerance) for offset in offsets))


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
        in_cycle, eps = _cycle(self.t0, self.period)
        on = sp.And(t >= self.t0, in_cycle < self.width - eps)
        return self.offset + sp.Piecewise((self.amplitude, on), (0, True))

    def time_events(self, values, t_start, t_stop):
        t0, period, width = values["t0"], values["period"], values["width"]
        if width >= period:             # on from t0 for good: a falling edge would coincide
            return [t0]                 # with the next rising one, a stop for nothing
        return [t0 + k * period + d for k in _periods(self, t0, period, t_start, t_stop)
                for d in (0.0, width)]

    def next_time_event(self, values, t):
        t0, period, width = values["t0"], values["period"], values["width"]
        return where(width >= period, _first_after(t, t0), _next_periodic(t, t0, period, (0.0, width)))


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
        in_cycle, eps = _cycle(self.t0, period)
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
        return [t0 + (k + d) * period for k in _periods(self, t0, period, t_start, t_stop)
                for d in (0.0, duty)]

    def next_time_event(self, values, t):
        t0, duty, period = values["t0"], values["duty"], 1 / values["f"]
        edges = _next_periodic(t, t0, period, (0.0, duty * period))
        return where(duty == 0, math.inf, where(duty == 1, _first_after(t, t0), edges))


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
        in_cycle, _ = _cycle(self.t0, self.period)
        # Within the edge tolerance after a drop the time since it is slightly negative. A
        # Piecewise rather than Max: at the drop itself the slope is the one after it (Max's
        # derivative there would be half of it).
        ramp = self.amplitude * sp.Piecewise((0, in_cycle < 0), (in_cycle, True)) / self.period
        return self.offset + sp.Piecewise((0, t < self.t0), (ramp, True))

    def time_events(self, values, t_start, t_stop):
        t0, period = values["t0"], values["period"]
        return [t0 + k * period for k in _periods(self, t0, period, t_start, t_stop)]

    def next_time_event(self, values, t):
        return _next_periodic(t, values["t0"], values["period"], (0.0,))


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
        in_cycle, eps = _cycle(self.t0, self.period)
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
        return [t0 + (k + d) * period for k in _periods(self, t0, period, t_start, t_stop)
                for d in (0.0, 0.5)]

    def next_time_event(self, values, t):
        period = values["period"]
        return _next_periodic(t, values["t0"], period, (0.0, 0.5 * period))


class Table(Waveform):
    """Piecewise-linear interpolation in a table of (time, value) points; constant outside it,
    or, with ``repeat``, repeating after its last point the part from the point at time
    ``repeat`` on (SPICE's PWL with ``r=``): after the last point (time t_end) the value jumps
    to the one at ``repeat`` and the points from there to t_end follow again, every
    t_end − repeat seconds.

    ``Table(points=[(0, 0), (1e-3, 1), (2e-3, 0)])``. The points and ``repeat`` are part of the
    model's structure: changing them means compiling again.
    """

    points = Parameter(description="(time [s], value) pairs, times increasing", structural=True)
    repeat = Parameter(None, unit="s", description="time of the point the table repeats from "
                       "after its last one (None: no repeat)", structural=True)

    def validate(self):
        try:
            pts = tuple((float(a), float(b)) for a, b in self.points)
        except (TypeError, ValueError):
            raise ParameterError(f"Table {self.name!r}: points must be (time, value) pairs") from None
        if len(pts) < 1 or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or \
                not all(math.isfinite(v) for pair in pts for v in pair):
            raise ParameterError(f"Table {self.name!r}: give finite points with strictly increasing times")
        self._values["points"] = pts
        if self.repeat is not None:
            times = [p[0] for p in pts[:-1]]
            if as_real(self.repeat) not in times:
                raise ParameterError(f"Table {self.name!r}: repeat ({self.repeat!r}) must be the "
                                     f"time of a point before the last one ({times})")
            self._values["repeat"] = float(self.repeat)

    def _interpolate(self, x):
        pts = self.points
        pieces = [(pts[0][1], x < pts[0][0])]
        for (t0, y0), (t1, y1) in zip(pts, pts[1:]):
            pieces.append((y0 + (y1 - y0) * (x - t0) / (t1 - t0), x < t1))
        pieces.append((pts[-1][1], True))
        return sp.Piecewise(*pieces)

    def value(self):
        t = symbols.t
        if self.repeat is None:
            return self._interpolate(t)
        end = self.points[-1][0]
        tau, eps = _cycle(end, end - self.repeat)
        return sp.Piecewise((self._interpolate(t), t < end - eps),
                            (self._interpolate(self.repeat + tau), True))

    def time_events(self, values, t_start, t_stop):
        times = [p[0] for p in self.points]
        start = self.repeat
        if start is None:
            return times
        end = times[-1]
        again = [tk - start for tk in times if tk >= start and tk < end]
        return times + [end + k * (end - start) + d
                        for k in _periods(self, end, end - start, t_start, t_stop) for d in again]

    def next_time_event(self, values, t):
        # The points and repeat are structural: plain numbers, so ordinary Python here.
        times = [p[0] for p in self.points]
        if self.repeat is None:
            return _first_after(t, *times)
        end = times[-1]
        again = [tk - self.repeat for tk in times if self.repeat <= tk < end]
        return minimum(_first_after(t, *times), _next_periodic(t, end, end - self.repeat, again))


class Expression(Waveform):
    """Any expression of time ``t`` built from SymPy functions, e.g. a chirp:
    ``Expression(sympy.sin(2*sympy.pi*100*t**2))`` with ``from physlib.components.signals import t``.

    The expression is part of the model's structure (changing it means compiling again).
    It should be smooth; discontinuities in it are not reported as time events.
    """

    expr = Parameter(description="SymPy expression of t", structural=True)

    def __init__(self, expr, name=None):
        super().__init__(name, expr=expr)

    def validate(self):
        t = symbols.t
        expr = sp.sympify(self.expr)
        extra = expr.free_symbols - {t}
        if extra:
            raise ParameterError(f"Expression {self.name or ''}: only t may appear, found {sorted(map(str, extra))}")
        self._values["expr"] = expr

    def structure_key(self):
        return (sp.srepr(self.expr),)

    def value(self):
        return self.expr


# --- operators ------------------------------------------------------------------------------

class Gain(Component):
    """y = k·u."""

    u = Input(description="input")
    y = Output(description="output")
    k = Parameter(1.0, description="gain")

    def equations(self):
        return [sp.Eq(self.y, self.k * self.u)]


class Add(Component):
    """y = k1·u1 + k2·u2 + … + kn·un.

    Two inputs by default (``Add("a", k1=1.0, k2=-1.0)``); ``Add("a", k=[1, -1, 1])`` has one
    input per gain, u1 … un (n >= 2), and parameters k1 … kn, each changeable like any other
    (``params={"a.k3": 2.0}``).
    """

    u1 = Input(description="input 1")
    u2 = Input(description="input 2")
    y = Output(description="output")
    k1 = Parameter(1.0, description="gain of u1")
    k2 = Parameter(1.0, description="gain of u2")
    n_inputs = 2

    def __new__(cls, name=None, *positional, k=None, **values):
        # The inputs and gains are declared per class: n inputs are an Add subclass with n.
        n = cls.n_inputs if k is None else len(_gains(name, k))
        return super().__new__(_add_class(n))

    def __init__(self, name=None, *positional, k=None, **values):
        if k is not None:
            given = sorted(key for key in values if key in self._parameters)
            if given:
                raise ParameterError(f"Add {name!r}: give the gains as k=[...] or as k1=..., k2=..., "
                                     f"not both (got k and {', '.join(given)})")
            values.update({f"k{i}": gain for i, gain in enumerate(_gains(name, k), 1)})
        super().__init__(name, *positional, **values)

    def equations(self):
        return [sp.Eq(self.y, sum(getattr(self, f"k{i}") * getattr(self, f"u{i}")
                                  for i in range(1, self.n_inputs + 1)))]


def _gains(name, k) -> list:
    """The gains given to ``Add(k=...)``, each checked later as the parameter it becomes."""
    if isinstance(k, (str, bytes)) or not hasattr(k, "__len__") or len(k) < 2 or \
            (isinstance(k, np.ndarray) and k.ndim != 1):
        raise ParameterError(f"Add {name!r}: k must be a flat list of at least two gains, one per "
                             f"input (k=[1, -1, 1]), got {k!r:.60}")
    return list(k)


_add_classes = {2: Add}


def _add_class(n: int) -> type:
    """The Add class with n inputs u1 … un and gains k1 … kn (derived once per n)."""
    if n not in _add_classes:
        extra = {}
        for i in range(3, n + 1):
            extra[f"u{i}"] = Input(description=f"input {i}")
            extra[f"k{i}"] = Parameter(1.0, description=f"gain of u{i}")
        _add_classes[n] = type("Add", (Add,), {**extra, "n_inputs": n, "__module__": __name__,
                                               "__qualname__": "Add", "__doc__": Add.__doc__})
    return _add_classes[n]


class Product(Component):
    """y = u1·u2."""

    u1 = Input(description="first factor")
    u2 = Input(description="second factor")
    y = Output(description="product")

    def equations(self):
        return [sp.Eq(self.y, self.u1 * self.u2)]


class Integrator(Component):
    """dy/dt = k·u, y(t0) = y0."""

    u = Input(description="input")
    y = Output(description="integral of k·u")
    k = Parameter(1.0, description="gain")
    y0 = Parameter(0.0, description="initial value")

    def equations(self):
        return [sp.Eq(der(self.y), self.k * self.u)]

    def initial(self):
        return {self.y: self.y0}


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


class Table1D(Component):
    """Lookup table on a signal: y = piecewise-linear interpolation of the points (u_i, y_i) at
    the input u (for a table in time, see :class:`Table`).

    ``Table1D("map", points=[(0, 0), (1, 2), (3, 2.5)])``. Beyond the ends ``extrapolate="hold"``
    (the default) keeps the end values; ``"linear"`` continues the first and last segments.
    Parameters (structural: part of the compiled model; changing them means compiling again):
    points, at least two (u, y) pairs with strictly increasing u; extrapolate.
    The output is continuous in u; the solver steps over its kinks at the breakpoints, and
    linearization at a breakpoint takes the slope of the segment above it.
    """

    u = Input(description="input at which the table is read")
    y = Output(description="interpolated value")
    points = Parameter(description="(u, y) pairs, u strictly increasing, at least two", structural=True)
    extrapolate = Parameter("hold", description='beyond the ends: "hold" the end values or '
                            'continue the end segments ("linear")', structural=True)

    def validate(self):
        try:
            pts = tuple((float(a), float(b)) for a, b in self.points)
        except (TypeError, ValueError):
            raise ParameterError(f"Table1D {self.name!r}: points must be (u, y) pairs of numbers, "
                                 f"got {self.points!r:.60}") from None
        if len(pts) < 2 or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or \
                not all(math.isfinite(v) for pair in pts for v in pair):
            raise ParameterError(f"Table1D {self.name!r}: give at least two finite (u, y) points with "
                                 f"strictly increasing u, got {pts!r:.80}")
        if self.extrapolate not in ("hold", "linear"):
            raise ParameterError(f'Table1D {self.name!r}: extrapolate must be "hold" or "linear", '
                                 f"got {self.extrapolate!r}")
        self._values["points"] = pts

    def equations(self):
        pts, u = self.points, self.u
        segments = [(y0 + (y1 - y0) * (u - u0) / (u1 - u0), u < u1)
                    for (u0, y0), (u1, y1) in zip(pts, pts[1:])]
        if self.extrapolate == "linear":
            segments[-1] = (segments[-1][0], True)
            return [sp.Eq(self.y, sp.Piecewise(*segments))]
        return [sp.Eq(self.y, sp.Piecewise((pts[0][1], u < pts[0][0]), *segments, (pts[-1][1], True)))]


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
        in_cycle, _ = _cycle(self.t0, 1 / self.f)
        on = sp.And(sp.Eq(self.on, 1), t >= self.t0)
        return [sp.Eq(self.carrier, sp.Piecewise((0, t < self.t0), (sp.Max(in_cycle, 0) * self.f, True))),
                sp.Eq(self.y, self.offset + sp.Piecewise((self.amplitude, on), (0, True)))]

    def guards(self):
        return [self.duty - self.carrier]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard: duty and carrier just crossed (they may be equal now).
        return {"on": switched_once(fired[0], v["on"], v["pre(on)"], v["duty"] - v["carrier"],
                                    where(v["duty"] > v["carrier"], 1, 0))}

    def time_events(self, values, t_start, t_stop):
        t0, period = values["t0"], 1 / values["f"]
        return [t0 + k * period for k in _periods(self, t0, period, t_start, t_stop)]

    def next_time_event(self, values, t):
        return _next_periodic(t, values["t0"], 1 / values["f"], (0.0,))


class PID(Component):
    """Parallel PID controller with a filtered derivative:
    y = kp·u + ki·∫u dt + kd·s/(Tf·s + 1)·u.

    Parameters: kp, ki [1/s], kd [s] gains; Tf [s] derivative filter time constant (> 0);
    xi0 initial value of the integral.
    States: xi (integral of u), xd (u low-pass filtered by Tf).

    **Output limits and anti-windup.** Giving ``y_max`` and/or ``y_min`` (``PID("pid", kp=2,
    ki=1, y_max=1, y_min=-1)``) limits the output and adds back-calculation anti-windup
    (Åström & Hägglund, *Advanced PID Control*, 2006, §3.5); +inf for ``y_max`` or −inf for
    ``y_min`` means no limit on that side. The limits decide the block's equations, so they
    are given at construction (their values can change like any parameter's, e.g.
    ``params={"pid.y_max": 2.0}``); without them the block is the plain PID above. With them::

        v = kp·u + ki·xi + kd·(u − xd)/Tf        (the unlimited output, variable "v")
        y = min(max(v, y_min), y_max)             (continuous: the solver steps over the kinks)
        der(xi) = u + (y − v)/(ki·Tt)

    Back-calculation feeds the saturation error y − v into the integral part I = ki·xi with
    gain 1/Tt: dI/dt = ki·u + (y − v)/Tt, which is the last equation divided by ki. Within the
    limits y = v and nothing changes. Saturated at y_max with u and the D-part constant,
    Tt·dI/dt = −I + (y_max − kp·u − D) + ki·Tt·u: I relaxes with time constant Tt to where
    v = y_max + ki·Tt·u, so v stays within ki·Tt·|u| of the limit and the output leaves it as
    soon as the error turns, instead of after the wound-up integral has run down. With
    ki = 0 there is no integral action to wind up: the tracking term is zero (xi stays the
    integral of u, which then does not reach y) and the block is a PD controller and a limiter.

    Tt [s] is the tracking time constant; 0 (the default) chooses the textbook value from the
    gains, with Ti = kp/ki and Td = kd/kp of the standard form: Tt = √(Ti·Td) = √|kd/ki| with
    a derivative part, Tt = Ti = |kp/ki| for a PI controller (then ki·Tt = kp). The choice
    follows the gains when they are changed with ``params=``. A pure integral controller
    (kp = kd = 0) has Ti = 0 and needs Tt given.
    Variables (limited): v, the output before the limits.
    """

    u = Input(description="control error")
    y = Output(description="controller output")
    kp = Parameter(1.0, description="proportional gain")
    ki = Parameter(0.0, unit="1/s", description="integral gain")
    kd = Parameter(0.0, unit="s", description="derivative gain")
    Tf = Parameter(1e-3, unit="s", description="derivative filter time constant", positive=True)
    xi0 = Parameter(0.0, description="initial value of the integral of u")
    xi = Variable(description="integral of u")
    xd = Variable(description="u through the derivative filter's low-pass")

    def __new__(cls, name=None, *positional, **values):
        # The limits decide the parameters and equations: a limited PID is a PID subclass.
        if cls is PID:
            upper, lower = (key in values and not _unlimited(values[key], sign)
                            for key, sign in _PID_LIMITS)
            if upper or lower:
                cls = _limited_pid_class(upper, lower)
        return super().__new__(cls)

    def __init__(self, name=None, *positional, **values):
        absent = {key for key, sign in _PID_LIMITS if key in values and _unlimited(values[key], sign)}
        values = {key: value for key, value in values.items() if key not in absent}
        if "Tt" in values and "Tt" not in self._parameters:
            raise ParameterError(f"PID {name!r}: Tt (the anti-windup tracking time constant) applies "
                                 "only with output limits: give y_max and/or y_min")
        super().__init__(name, *positional, **values)

    def __setattr__(self, name, value):
        # pid.y_max = 1 on a PID built without limits would otherwise be an attribute nothing reads.
        if name in ("y_max", "y_min", "Tt") and name not in self._parameters:
            raise ParameterError(f"PID {self.name!r} was built without {name}: the output limits decide "
                                 f"its equations, so build a new one, PID({self.name!r}, ..., {name}=...)")
        super().__setattr__(name, value)

    def equations(self):
        return [sp.Eq(der(self.xi), self.u),
                sp.Eq(self.Tf * der(self.xd), self.u - self.xd),
                sp.Eq(self.y, self.kp * self.u + self.ki * self.xi + self.kd * (self.u - self.xd) / self.Tf)]

    def initial(self):
        return {self.xi: self.xi0}


_PID_LIMITS = (("y_max", 1), ("y_min", -1))


def _unlimited(value, sign) -> bool:
    """Whether a limit given as ``value`` is no limit: +inf for y_max (sign 1), −inf for y_min."""
    return as_real(value) == sign * math.inf


class _LimitedPID(PID):
    """PID with output limits and back-calculation anti-windup (see :class:`PID`); the
    variants with y_max, y_min or both are made by :func:`_limited_pid_class`."""

    v = Variable(description="controller output before the limits")
    Tt = Parameter(0.0, unit="s", nonnegative=True,
                   description="anti-windup tracking time constant; 0: √(Ti·Td), or Ti without kd")
    has_max = has_min = False

    def validate(self):
        if self.has_max and self.has_min and not self.y_min < self.y_max:
            raise ParameterError(f"PID {self.name!r}: y_min ({self.y_min}) must be below "
                                 f"y_max ({self.y_max})")
        if self.Tt == 0 and self.ki != 0 and self.kp == 0 and self.kd == 0:
            raise ParameterError(f"PID {self.name!r}: a pure integral controller (kp = kd = 0) has no "
                                 "time scale for the anti-windup: give its tracking time constant Tt [s]")

    def equations(self):
        v = self.v
        y = v
        if self.has_min:
            y = sp.Max(y, self.y_min)
        if self.has_max:
            y = sp.Min(y, self.y_max)
        tt = sp.Piecewise((self.Tt, self.Tt > 0),
                          (sp.sqrt(sp.Abs(self.kd / self.ki)), sp.Ne(self.kd, 0)),
                          (sp.Abs(self.kp / self.ki), True))
        # With ki = 0 the compiled if_else gives 0, in the Jacobians too, whatever the other
        # branch evaluates to there.
        tracking = sp.Piecewise((0, sp.Eq(self.ki, 0)), ((self.y - v) / (self.ki * tt), True))
        return [sp.Eq(der(self.xi), self.u + tracking),
                sp.Eq(self.Tf * der(self.xd), self.u - self.xd),
                sp.Eq(v, self.kp * self.u + self.ki * self.xi + self.kd * (self.u - self.xd) / self.Tf),
                sp.Eq(self.y, y)]


_limited_pid_classes: dict[tuple[bool, bool], type] = {}


def _limited_pid_class(upper: bool, lower: bool) -> type:
    """The limited PID class with parameter y_max (upper), y_min (lower) or both."""
    key = (upper, lower)
    if key not in _limited_pid_classes:
        extra = {"has_max": upper, "has_min": lower}
        if upper:
            extra["y_max"] = Parameter(description="upper output limit")
        if lower:
            extra["y_min"] = Parameter(description="lower output limit")
        _limited_pid_classes[key] = type("PID", (_LimitedPID,), {
            **extra, "__module__": __name__, "__qualname__": "PID", "__doc__": PID.__doc__})
    return _limited_pid_classes[key]


class StateSpace(Component):
    """Linear system with n states, m inputs and p outputs: dx/dt = A·x + B·u, y = C·x + D·u.

    Single input and output (m = p = 1): ports ``u`` and ``y``; B and C are vectors of n (or
    B n×1, C 1×n) and D a number. Otherwise ports ``u1`` … ``um`` and ``y1`` … ``yp``; B is
    n×m, C p×n and D p×m (0, the default, is the zero matrix). A vector B means one input,
    a vector C one output: ``StateSpace("ss", A=..., B=[[1, 0], [0, 1]], C=[[1, 0], [1, 1]])``
    has inputs u1, u2 and outputs y1, y2.

    Parameters (structural: part of the compiled model): A (n×n), B, C, D; x_start (n)
    initial state, zeros by default. Shapes that do not fit are a ParameterError naming the
    component and the shapes.
    States: x0 … x{n−1}, addressed as ``"<name>.x0"`` etc.
    """

    A = Parameter(description="state matrix (n×n)", structural=True)
    B = Parameter(description="input matrix (n×m), or a vector of n for one input", structural=True)
    C = Parameter(description="output matrix (p×n), or a vector of n for one output", structural=True)
    D = Parameter(0.0, description="feed-through (p×m), a number for one input and output", structural=True)
    x_start = Parameter(None, description="initial state (n), zeros by default", structural=True)
    inputs, outputs = ("u",), ("y",)      # port names, set per class (see _state_space_class)

    def __new__(cls, name=None, *positional, **values):
        # Ports are declared per class: StateSpace(...) is the subclass with m inputs, p outputs.
        if cls is StateSpace:
            cls = _state_space_class(*_io_sizes(values.get("B"), values.get("C")))
        return super().__new__(cls)

    def validate(self):
        where = f"StateSpace {self.name!r}"
        m, p = len(self.inputs), len(self.outputs)
        try:
            A, B, C, D = (np.array(getattr(self, k), dtype=float) for k in "ABCD")
            x0 = None if self.x_start is None else np.array(self.x_start, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"{where}: A, B, C, D and x_start must be numbers, vectors or "
                                 "matrices of numbers") from None
        n = A.shape[0] if A.ndim == 2 else 0
        if A.ndim != 2 or A.shape != (n, n) or n == 0:
            raise ParameterError(f"{where}: A must be a square matrix (n×n), got shape {A.shape}")
        B = B.reshape(n, 1) if B.ndim < 2 and B.size == n else B
        C = C.reshape(1, n) if C.ndim < 2 and C.size == n else C
        if (m, p) != (1, 1) and D.ndim == 0 and D == 0:
            D = np.zeros((p, m))
        D = D.reshape(p, m) if D.ndim < 2 and D.size == p * m else D
        x0 = np.zeros(n) if x0 is None else x0.reshape(n) if x0.size == n else x0
        shapes = (("B", B, (n, m)), ("C", C, (p, n)), ("D", D, (p, m)), ("x_start", x0, (n,)))
        for key, value, shape in shapes:
            if value.shape != shape:
                raise ParameterError(f"{where}: with A {n}×{n}, {m} input(s) and {p} output(s), {key} must "
                                     f"have shape {shape}, got {value.shape}")
            if not np.all(np.isfinite(value)):
                raise ParameterError(f"{where}: {key} has entries that are not finite")
        if not np.all(np.isfinite(A)):
            raise ParameterError(f"{where}: A has entries that are not finite")
        matrix = lambda value: tuple(map(tuple, value.tolist()))      # noqa: E731
        self._values.update(A=matrix(A), x_start=tuple(x0.tolist()))
        if (m, p) == (1, 1):            # vectors and a number, as before the MIMO form
            self._values.update(B=tuple(B[:, 0].tolist()), C=tuple(C[0].tolist()), D=float(D[0, 0]))
        else:
            self._values.update(B=matrix(B), C=matrix(C), D=matrix(D))

    def variables(self):
        return {**super().variables(),
                **{f"x{i}": Variable(description=f"state {i}") for i in range(len(self.A))}}

    def equations(self):
        n, m, p = len(self.A), len(self.inputs), len(self.outputs)
        B, C, D = (np.array(getattr(self, k), dtype=float).reshape(shape)
                   for k, shape in (("B", (n, m)), ("C", (p, n)), ("D", (p, m))))
        x = [self.var(f"x{i}") for i in range(n)]
        u = [getattr(self, name) for name in self.inputs]
        eqs = [sp.Eq(der(xi), sum(a * xj for a, xj in zip(row, x)) + sum(b * uj for b, uj in zip(brow, u)))
               for xi, row, brow in zip(x, self.A, B)]
        return eqs + [sp.Eq(getattr(self, name), sum(c * xi for c, xi in zip(crow, x))
                            + sum(d * uj for d, uj in zip(drow, u)))
                      for name, crow, drow in zip(self.outputs, C, D)]

    def initial(self):
        return {self.var(f"x{i}"): v for i, v in enumerate(self.x_start)}


def _io_sizes(B, C) -> tuple[int, int]:
    """(m, p) from the shapes of B and C: a vector B is one input, a vector C one output.
    Shapes that do not say are taken as (1, 1), and validate() reports what is wrong."""
    def size(matrix, axis):
        try:
            shape = np.shape(np.array(matrix, dtype=float))
        except (TypeError, ValueError):
            return 1
        return shape[axis] if len(shape) == 2 else 1
    return size(B, 1), size(C, 0)


_state_space_classes: dict[tuple[int, int], type] = {}


def _state_space_class(m: int, p: int) -> type:
    """The StateSpace class with ports u and y (m = p = 1) or u1 … um and y1 … yp."""
    if (m, p) not in _state_space_classes:
        siso = (m, p) == (1, 1)
        inputs = ("u",) if siso else tuple(f"u{j}" for j in range(1, m + 1))
        outputs = ("y",) if siso else tuple(f"y{i}" for i in range(1, p + 1))
        ports = {**{name: Input(description=f"input {name}") for name in inputs},
                 **{name: Output(description=f"output {name}") for name in outputs}}
        _state_space_classes[m, p] = type("StateSpace", (StateSpace,), {
            **ports, "inputs": inputs, "outputs": outputs, "__module__": __name__,
            "__qualname__": "StateSpace", "__doc__": StateSpace.__doc__})
    return _state_space_classes[m, p]


class TransferFunction(StateSpace):
    """SISO transfer function num(s)/den(s), coefficients in descending powers of s
    (``TransferFunction("G", num=[1], den=[1, 2, 1])`` is 1/(s² + 2s + 1)); realized in
    controllable canonical form, starting at rest."""

    u = Input(description="input")
    y = Output(description="output")
    num = Parameter(description="numerator coefficients, highest power first", structural=True)
    den = Parameter(description="denominator coefficients, highest power first", structural=True)

    def __init__(self, name=None, *, num, den):
        try:
            num = np.trim_zeros(np.atleast_1d(np.array(num, dtype=float)), "f")
            den = np.trim_zeros(np.atleast_1d(np.array(den, dtype=float)), "f")
        except (TypeError, ValueError):
            raise ParameterError(f"TransferFunction {name!r}: num and den must be sequences of "
                                 f"numbers, got num={num!r}, den={den!r}") from None
        if num.ndim != 1 or den.ndim != 1:
            raise ParameterError(f"TransferFunction {name!r}: num and den must be flat sequences "
                                 "of coefficients (highest power first)")
        if den.size < 2 or num.size > den.size or not np.all(np.isfinite(np.r_[num, den])):
            raise ParameterError(f"TransferFunction {name!r}: needs a proper transfer function "
                                 "(deg num <= deg den >= 1) with finite coefficients")
        num, den = np.r_[np.zeros(den.size - num.size), num] / den[0], den / den[0]
        n = den.size - 1
        A = np.zeros((n, n))
        A[:-1, 1:] = np.eye(n - 1)
        A[-1, :] = -den[:0:-1]
        B = np.zeros(n)
        B[-1] = 1.0
        D = num[0]
        C = (num[:0:-1] - D * den[:0:-1])
        super().__init__(name, A=A.tolist(), B=B.tolist(), C=C.tolist(), D=float(D),
                         num=tuple(num), den=tuple(den))


# --- SPICE's source waveforms (PULSE, SIN, EXP), used by physlib.spice -------------------------

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
        repeating, eps = _cycle(self.t0, self.period)
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
                  for k in _periods(self, t0, period, t_start, min(t_stop, end)) for d in corners]
        return [e for e in events if e < end] + ([end] if pulses > 0 else [])

    def next_time_event(self, values, t):
        t0, period, pulses = values["t0"], values["period"], values["pulses"]
        r, w, f = values["rising"], values["width"], values["falling"]
        # A corner at or past the period's end is no event: the shape is cut there, where the
        # next rise starts (time_events leaves it out too).
        corners = [where(d < period, _next_periodic(t, t0, period, (d,)), math.inf)
                   for d in (0.0, r, r + w, r + w + f)]
        end = where(pulses > 0, t0 + pulses * period, math.inf)
        corner = minimum(*corners)
        return minimum(where(corner < end, corner, math.inf), _first_after(t, end))


class DampedSine(Waveform):
    """SPICE's SIN: offset + amplitude·exp(−damping·(t − t0))·sin(2π·f·(t − t0) + phase) from
    t0 on, offset + amplitude·sin(phase) before.

    Parameters: amplitude; f [Hz] (> 0); phase [rad]; damping [1/s]; offset; t0 [s] delay.
    SPICE's SIN(VO VA FREQ TD THETA PHASE) is offset=VO, amplitude=VA, f=FREQ, t0=TD,
    damping=THETA, phase=PHASE·π/180 (SPICE gives degrees).
    """

    amplitude = Parameter(1.0, description="amplitude")
    f = Parameter(1.0, unit="Hz", description="frequency", positive=True)
    phase = Parameter(0.0, unit="rad", description="phase at t0")
    damping = Parameter(0.0, unit="1/s", description="damping factor")
    offset = Parameter(0.0, description="offset")
    t0 = Parameter(0.0, unit="s", description="delay")

    def value(self):
        t = symbols.t
        wave = sp.exp(-self.damping * (t - self.t0)) * sp.sin(2 * sp.pi * self.f * (t - self.t0) + self.phase)
        return self.offset + self.amplitude * sp.Piecewise((sp.sin(self.phase), t < self.t0), (wave, True))

    def time_events(self, values, t_start, t_stop):
        return [values["t0"]]

    def next_time_event(self, values, t):
        return _first_after(t, values["t0"])

    def time_scale(self, values):
        return 1.0 / values["f"]


class Exponentials(Waveform):
    """SPICE's EXP: offset until t_rise, then an exponential approach to offset + amplitude
    with time constant tau_rise, and from t_fall on an exponential return toward offset with
    time constant tau_fall (the two add, as in SPICE).

    Parameters: amplitude; offset; t_rise [s]; tau_rise [s] (> 0); t_fall [s] (>= t_rise);
    tau_fall [s] (> 0). SPICE's EXP(V1 V2 TD1 TAU1 TD2 TAU2) is offset=V1, amplitude=V2−V1,
    t_rise=TD1, tau_rise=TAU1, t_fall=TD2, tau_fall=TAU2.
    """

    amplitude = Parameter(1.0, description="V2 − V1")
    offset = Parameter(0.0, description="initial value V1")
    t_rise = Parameter(0.0, unit="s", description="start of the rise")
    tau_rise = Parameter(unit="s", description="rise time constant", positive=True)
    t_fall = Parameter(unit="s", description="start of the fall")
    tau_fall = Parameter(unit="s", description="fall time constant", positive=True)

    def validate(self):
        if self.t_fall < self.t_rise:
            raise ParameterError(f"Exponentials {self.name!r}: t_fall ({self.t_fall}) is before "
                                 f"t_rise ({self.t_rise})")

    def value(self):
        t = symbols.t
        rise = 1 - sp.exp(-(t - self.t_rise) / self.tau_rise)
        fall = 1 - sp.exp(-(t - self.t_fall) / self.tau_fall)
        shape = sp.Piecewise((0, t < self.t_rise), (rise, t < self.t_fall), (rise - fall, True))
        return self.offset + self.amplitude * shape

    def time_events(self, values, t_start, t_stop):
        return [values["t_rise"], values["t_fall"]]

    def next_time_event(self, values, t):
        return _first_after(t, values["t_rise"], values["t_fall"])

    def time_scale(self, values):
        return min(values["tau_rise"], values["tau_fall"])
