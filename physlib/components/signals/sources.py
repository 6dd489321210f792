"""Waveforms, the sources of the signal blocks (the Modelica Standard Library's Blocks.Sources):
the base :class:`Waveform`, constant, step, ramp, sine, damped sine, exponentials and any
expression of time. The periodic waveforms with edges are in :mod:`.periodic`, the table in
time in :mod:`.tables`.

A waveform can be passed as the value of a signal input, ``VoltageSource("src",
V=Step(height=1.0, t0=1e-3))``, or added to a model under a name and connected like any block.
Its parameters are then addressed through the input, e.g. ``params={"src.V.height": 2.0}``.
Every waveform takes the value after a discontinuity at the discontinuity itself and reports
its discontinuities as time events, so the solver never steps across one.
"""
from ...core import Component, Output, Parameter
from ...core import symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from .edges import first_after

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Waveform", "Constant", "Step", "Ramp", "Sine", "Expression", "DampedSine", "Exponentials",
           "FrequencyModulatedSine", "AmplitudeModulatedSine"]


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
        return first_after(t, values["t0"])


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
        return first_after(t, values["t0"], values["t0"] + values["duration"])


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
        return first_after(t, values["t0"])

    def time_scale(self, values):
        return 1.0 / values["f"]          # the period


class Expression(Waveform):
    """Any expression of time ``t`` built from SymPy functions, e.g. a chirp:
    ``Expression(sympy.sin(2*sympy.pi*100*t**2))`` with ``from physlib.components.signals import t``.

    Besides ``t`` it may hold constants with units (:class:`physlib.constants.Constant`, e.g.
    ``Constant(5e-3, "s")`` as a time scale), taken as their values. It is not unit-checked:
    the numbers of a SymPy expression carry no unit (``sin(2*pi*50*t)`` cannot say its 50 is
    in Hz), as a SPICE B source's.
    The expression is part of the model's structure (changing it means compiling again).
    It should be smooth; discontinuities in it are not reported as time events.
    """

    expr = Parameter(description="SymPy expression of t", structural=True)
    units_checked = False       # see the class's docstring

    def __init__(self, expr, name=None):
        super().__init__(name, expr=expr)

    def validate(self):
        t = symbols.t
        expr = sp.sympify(self.expr)
        # Constants with units (physlib.constants.Constant, a time scale in s) keep the
        # argument of tanh or exp a pure number for the unit check; they are numbers here.
        extra = {s for s in expr.free_symbols - {t} if not isinstance(s, symbols.ConstantSymbol)}
        if extra:
            raise ParameterError(f"Expression {self.name or ''}: only t may appear, found {sorted(map(str, extra))}")
        self._values["expr"] = expr

    def structure_key(self):
        return (sp.srepr(self.expr),)

    def value(self):
        return self.expr


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
        return first_after(t, values["t0"])

    def time_scale(self, values):
        return 1.0 / values["f"]


class Exponentials(Waveform):
    """SPICE's EXP: offset until t_rise, then an exponential approach to offset + amplitude
    with time constant tau_rise, and from t_fall on an exponential return toward offset with
    time constant tau_fall (the two add, as in SPICE). A t_fall before t_rise is ngspice's
    too: the offset holds until t_rise, where the waveform jumps to both terms' sum.

    Parameters: amplitude; offset; t_rise [s]; tau_rise [s] (> 0); t_fall [s]; tau_fall [s]
    (> 0). SPICE's EXP(V1 V2 TD1 TAU1 TD2 TAU2) is offset=V1, amplitude=V2−V1, t_rise=TD1,
    tau_rise=TAU1, t_fall=TD2, tau_fall=TAU2.
    """

    amplitude = Parameter(1.0, description="V2 − V1")
    offset = Parameter(0.0, description="initial value V1")
    t_rise = Parameter(0.0, unit="s", description="start of the rise")
    tau_rise = Parameter(unit="s", description="rise time constant", positive=True)
    t_fall = Parameter(unit="s", description="start of the fall")
    tau_fall = Parameter(unit="s", description="fall time constant", positive=True)

    def value(self):
        t = symbols.t
        rise = 1 - sp.exp(-(t - self.t_rise) / self.tau_rise)
        fall = 1 - sp.exp(-(t - self.t_fall) / self.tau_fall)
        shape = sp.Piecewise((0, t < self.t_rise), (rise, t < self.t_fall), (rise - fall, True))
        return self.offset + self.amplitude * shape

    def time_events(self, values, t_start, t_stop):
        return [values["t_rise"], values["t_fall"]]

    def next_time_event(self, values, t):
        return first_after(t, values["t_rise"], values["t_fall"])

    def time_scale(self, values):
        return min(values["tau_rise"], values["tau_fall"])


class FrequencyModulatedSine(Waveform):
    """y = offset + amplitude·sin(2π·f_carrier·t + phase_carrier + modulation_index·sin(2π·f_signal·t +
    phase_signal)): a carrier whose phase a sine of f_signal moves by up to modulation_index
    radians (SPICE's SFFM, as ngspice-39 evaluates it).

    Parameters: offset; amplitude; f_carrier [Hz] (> 0); modulation_index; f_signal [Hz] (> 0);
    phase_carrier, phase_signal [rad].
    """

    offset = Parameter(0.0, description="offset")
    amplitude = Parameter(1.0, description="amplitude")
    f_carrier = Parameter(1.0, unit="Hz", description="carrier frequency", positive=True)
    modulation_index = Parameter(0.0, description="peak phase deviation [rad]")
    f_signal = Parameter(1.0, unit="Hz", description="modulating frequency", positive=True)
    phase_carrier = Parameter(0.0, unit="rad", description="carrier phase at t = 0")
    phase_signal = Parameter(0.0, unit="rad", description="modulating phase at t = 0")

    def value(self):
        t = symbols.t
        signal = self.modulation_index * sp.sin(2 * sp.pi * self.f_signal * t + self.phase_signal)
        return self.offset + self.amplitude * sp.sin(2 * sp.pi * self.f_carrier * t + self.phase_carrier + signal)

    def time_scale(self, values):
        # the shortest period of the instantaneous frequency f_carrier ± modulation_index·f_signal
        return 1.0 / (values["f_carrier"] + abs(values["modulation_index"]) * values["f_signal"])


class AmplitudeModulatedSine(Waveform):
    """y = amplitude·(offset + sin(2π·f_modulation·(t − t0) + phase_modulation))·sin(2π·f_carrier·(t − t0) +
    phase_carrier) from t0 on, 0 before: a carrier whose amplitude a sine of f_modulation moves
    about ``offset`` (SPICE's AM; a jump at t0 unless both phases are 0).

    Parameters: amplitude; offset; f_modulation [Hz], f_carrier [Hz] (>= 0); t0 [s] start;
    phase_modulation, phase_carrier [rad].
    """

    amplitude = Parameter(1.0, description="amplitude")
    offset = Parameter(0.0, description="offset of the modulating sine")
    f_modulation = Parameter(1.0, unit="Hz", description="modulating frequency", nonnegative=True)
    f_carrier = Parameter(1.0, unit="Hz", description="carrier frequency", nonnegative=True)
    t0 = Parameter(0.0, unit="s", description="start time")
    phase_modulation = Parameter(0.0, unit="rad", description="modulating phase at t0")
    phase_carrier = Parameter(0.0, unit="rad", description="carrier phase at t0")

    def value(self):
        t = symbols.t
        envelope = self.offset + sp.sin(2 * sp.pi * self.f_modulation * (t - self.t0) + self.phase_modulation)
        wave = self.amplitude * envelope * sp.sin(2 * sp.pi * self.f_carrier * (t - self.t0) + self.phase_carrier)
        return sp.Piecewise((0, t < self.t0), (wave, True))

    def time_events(self, values, t_start, t_stop):
        return [values["t0"]]

    def next_time_event(self, values, t):
        return first_after(t, values["t0"])

    def time_scale(self, values):
        fastest = values["f_carrier"] + values["f_modulation"]
        return 1.0 / fastest if fastest > 0 else None
