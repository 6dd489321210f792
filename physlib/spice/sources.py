"""Independent sources (V, I): ``[DC] value``, ``AC [mag [phase]]`` and one of PULSE, SIN,
PWL, EXP, SFFM, AM, as ngspice-39 reads them, mapped to physlib waveforms.

As ngspice-39's: PULSE(V1 V2 TD TR TF PW PER NP) cuts a shape longer than PER at PER and
holds V1 after TD + NP·PER (NP = 0: for ever), the value at TD + PER and at TD + NP·PER
being the one before the jump (so a PULSE whose PW and PER default to the stop time is V2
there); PWL's ``td=`` [s] delays every point and
``r=`` [s] (a point's time) repeats the points from there on after the last one. Defaults:
PULSE's TR and TF (also when given as 0) are the ``.tran`` step, PW and PER the stop time;
SIN's FREQ is 1/tstop; EXP's TD1, TAU1 and TAU2 are the step and TD2 is TD1 + tstep, each
also when given as 0 (ngspice-39's vsrcload.c and isrcload.c: ``EXP(0 1 0 50u)`` starts
rising at tstep, not at 0). SFFM(VO VA FC MDI FS PHASEC PHASES): FC and FS missing or 0 are
1/tstop, phases in degrees. AM(VA VO MF FC TD PHASE6 PHASE7): MF missing or 0 is 1/tstop, FC
missing is 0, and 0 up to TD (also at t = 0 when TD is 0: a jump right after); ngspice-39 gives
both sines the seventh value's phase and ignores the sixth (measured), and so does this, with
a warning where the sixth is given. Without a DC value a source's DC value is its waveform's value at
t = 0 (ngspice warns the same), and ``AC`` without a magnitude is 1. ``ctx.tran()`` gives
(tstep, tstop), so a default follows the analysis it is used in without recompiling.
"""
from __future__ import annotations

import math

from ..components.signals import (AmplitudeModulatedSine, DampedSine, Exponentials, FrequencyModulatedSine, Table,
                                  Trapezoid)
from .errors import SpiceError

__all__ = ["SourceSpec", "parse_source", "build_waveform"]

WAVEFORMS = {"pulse": (2, 8), "sin": (2, 6), "exp": (2, 6), "pwl": (2, None), "sffm": (2, 7), "am": (2, 7)}
# ngspice-39's names of the same source parameters (its VSRC/ISRC parameter tables)
ALIASES = {"sine": "sin"}
PWL_OPTIONS = ("r", "td")             # PWL's repeat time and delay [s]


class SourceSpec:
    """A source's parsed value: ``dc`` (a value function or None), ``ac`` ((mag, phase [°])
    value functions or None), ``kind`` ("pulse", "sin", "exp", "pwl" or None), ``args`` and,
    for PWL, ``options`` ({"r": repeat time, "td": delay} value functions [s]); ``ignored``:
    the keywords read and left out (ngspice's DISTOF1/DISTOF2, inputs of its .disto analysis);
    ``notes``: what to warn of in how the waveform is read."""

    def __init__(self):
        self.dc = None
        self.ac = None
        self.kind = None
        self.args: list = []
        self.options: dict = {}
        self.ignored: list[str] = []
        self.notes: list[str] = []


def parse_source(tokens: list[str], where, value, is_value, current=False) -> SourceSpec:
    """Read the tokens after a source's nodes; ``value(token)`` gives a value function,
    ``is_value(token)`` says whether a token is a number or expression; ``current``: an I
    source (which also takes ngspice's ``c`` for DC). Keywords may be followed by ``=``
    (``dc=1``, ngspice reads ``=`` as a blank); ngspice's aliases ``acmag``, ``acphase`` and
    ``sine`` are read as AC magnitude, AC phase [°] and SIN."""
    spec, pos = SourceSpec(), 0
    tokens = [t for t in tokens if t != "="]
    supported = ("[DC] value, AC [mag [phase]], ACMAG mag, ACPHASE phase, PULSE, SIN (SINE), SFFM, AM, "
                 + ("PWL (r= and td= only on V sources, as ngspice-39), EXP, C value (= DC)"
                    if current else "PWL (with r=, td=), EXP"))

    def one_value(word):
        if pos + 1 >= len(tokens) or not is_value(tokens[pos + 1]):
            raise SpiceError(f"{word.upper()} needs a value", where)
        return value(tokens[pos + 1])

    while pos < len(tokens):
        word = tokens[pos].lower()
        word = ALIASES.get(word, word)
        if pos == 0 and is_value(tokens[0]):
            spec.dc = value(tokens[0])
            pos += 1
        elif word == "dc" or (word == "c" and current):
            spec.dc, pos = one_value(word), pos + 2
        elif word == "ac":
            numbers = []
            pos += 1
            while pos < len(tokens) and len(numbers) < 2 and is_value(tokens[pos]):
                numbers.append(value(tokens[pos]))
                pos += 1
            spec.ac = (numbers[0] if numbers else (lambda: 1.0),
                       numbers[1] if len(numbers) > 1 else (lambda: 0.0))
        elif word in ("acmag", "acphase"):
            mag, phase = spec.ac or ((lambda: 1.0), (lambda: 0.0))
            given = one_value(word)
            spec.ac = (given, phase) if word == "acmag" else (mag, given)
            pos += 2
        elif word in ("distof1", "distof2"):       # [mag [phase]]: .disto's inputs
            pos += 1
            for _ in range(2):
                if pos < len(tokens) and is_value(tokens[pos]):
                    pos += 1
            spec.ignored.append(word.upper())
        elif word in PWL_OPTIONS and spec.kind == "pwl" and not current:
            if word in spec.options:
                raise SpiceError(f"PWL: {word}= is given twice", where)
            spec.options[word], pos = one_value(word), pos + 2
        elif word in WAVEFORMS:
            if spec.kind:
                raise SpiceError(f"a source takes one waveform ({spec.kind.upper()} and "
                                 f"{word.upper()} given)", where)
            spec.kind, pos = word, pos + 1
            while pos < len(tokens) and is_value(tokens[pos]):
                spec.args.append(value(tokens[pos]))
                pos += 1
            low, high = WAVEFORMS[word]
            if len(spec.args) < low or (high and len(spec.args) > high):
                most = f"{low} to {high}" if high else f"at least {low}"
                raise SpiceError(f"{word.upper()} takes {most} values here, got "
                                 f"{len(spec.args)}", where)
        else:
            raise SpiceError(f"{tokens[pos]!r} is not supported in a source; supported: "
                             f"{supported}", where)
    if spec.kind == "pwl" and len(spec.args) % 2:
        raise SpiceError("PWL takes (time, value) pairs: an even number of values", where)
    if spec.kind == "am" and len(spec.args) > 5:
        spec.notes.append("AM: ngspice-39 ignores its sixth value and gives both sines the seventh's "
                          "phase (0 without one); read as ngspice-39 does")
    return spec


def _arg(spec, k, default):
    """Value function of argument k, or of ``default`` (a function) if it is missing."""
    return spec.args[k] if k < len(spec.args) else default


def _nonzero(spec, k, default):
    """Value function of argument k, or of ``default`` (a function) if it is missing or its
    value is 0: ngspice-39 reads a 0 as "not given" for these arguments."""
    given = spec.args[k] if k < len(spec.args) else None

    def value():
        number = given() if given is not None else 0.0
        return number if number != 0 else default()
    return value


def _pulse(spec, tran):
    v1, v2 = spec.args[0], spec.args[1]
    td = _arg(spec, 2, lambda: 0.0)
    tr = _nonzero(spec, 3, lambda: tran()[0])
    tf = _nonzero(spec, 4, lambda: tran()[0])
    pw = _nonzero(spec, 5, lambda: tran()[1])
    per = _nonzero(spec, 6, lambda: tran()[1])
    # A shape longer than PER is cut at PER, as ngspice-39's (its vsrcload): no check here.
    return Trapezoid, {"offset": v1, "amplitude": lambda: v2() - v1(), "t0": td, "rising": tr,
                       "falling": tf, "width": pw, "period": per,
                       "pulses": _arg(spec, 7, lambda: 0.0)}


def _sine(spec, tran):
    freq = spec.args[2] if len(spec.args) > 2 else None
    return DampedSine, {
        "offset": spec.args[0], "amplitude": spec.args[1],
        "f": (lambda: freq() if freq() != 0 else 1.0 / tran()[1]) if freq else (lambda: 1.0 / tran()[1]),
        "t0": _arg(spec, 3, lambda: 0.0), "damping": _arg(spec, 4, lambda: 0.0),
        "phase": (lambda: math.radians(spec.args[5]())) if len(spec.args) > 5 else (lambda: 0.0)}


def _exp(spec, tran):
    v1, v2 = spec.args[0], spec.args[1]
    # ngspice-39 (vsrcload.c, isrcload.c): each of TD1, TAU1, TD2, TAU2 missing or 0 is its
    # default, TD1, TAU1, TAU2 the .tran step and TD2 TD1 + step (the TD1 in use); a TD2
    # before TD1 holds V1 until TD1 and jumps there, as Exponentials does
    td1 = _nonzero(spec, 2, lambda: tran()[0])
    tau1 = _nonzero(spec, 3, lambda: tran()[0])
    td2 = _nonzero(spec, 4, lambda: td1() + tran()[0])
    tau2 = _nonzero(spec, 5, lambda: tran()[0])
    return Exponentials, {"offset": v1, "amplitude": lambda: v2() - v1(), "t_rise": td1,
                          "tau_rise": tau1, "t_fall": td2, "tau_fall": tau2}


def _degrees(spec, k):
    """Value function of argument k [°] in radians, 0 if it is missing."""
    return (lambda: math.radians(spec.args[k]())) if k < len(spec.args) else (lambda: 0.0)


def _sffm(spec, tran):
    stop = lambda: 1.0 / tran()[1]                                   # noqa: E731
    return FrequencyModulatedSine, {
        "offset": spec.args[0], "amplitude": spec.args[1], "f_carrier": _nonzero(spec, 2, stop),
        "modulation_index": _arg(spec, 3, lambda: 0.0), "f_signal": _nonzero(spec, 4, stop),
        "phase_carrier": _degrees(spec, 5), "phase_signal": _degrees(spec, 6)}


def _am(spec, tran):
    td = _arg(spec, 4, lambda: 0.0)
    return AmplitudeModulatedSine, {
        "amplitude": spec.args[0], "offset": spec.args[1], "f_modulation": _nonzero(spec, 2, lambda: 1.0 / tran()[1]),
        "f_carrier": _arg(spec, 3, lambda: 0.0),
        # 0 at TD itself (ngspice: time <= TD): a TD of 0 jumps right after the operating point
        "t0": lambda: td() if td() != 0 else _AFTER_ZERO,
        "phase_modulation": _degrees(spec, 6), "phase_carrier": _degrees(spec, 6)}


def _at_zero(kind, b):
    """The waveform's value at t = 0 from its bindings ``b`` (its DC value without one)."""
    if kind == "sin":
        return b["offset"]() + b["amplitude"]() * math.sin(b["phase"]())
    if kind == "sffm":
        return b["offset"]() + b["amplitude"]() * math.sin(b["phase_carrier"]() + b["modulation_index"]()
                                                            * math.sin(b["phase_signal"]()))
    if kind == "am":
        t0 = b["t0"]()
        if t0 >= 0:
            return 0.0
        carrier = math.sin(-2 * math.pi * b["f_carrier"]() * t0 + b["phase_carrier"]())
        return b["amplitude"]() * (b["offset"]() + math.sin(-2 * math.pi * b["f_modulation"]() * t0
                                                            + b["phase_modulation"]())) * carrier
    return b["offset"]()


def build_waveform(spec: SourceSpec, tran, where):
    """(waveform, {parameter name: value function}, t = 0 value function) for a source with
    a waveform; the PWL table (with its ``td=`` and ``r=``) is structural (its bindings are
    empty: changing a .param it uses means reading the deck again)."""
    if spec.kind == "pwl":
        points, repeat = _pwl_points(spec, where)
        try:
            wave = Table(points=points, repeat=repeat)
        except Exception as err:
            raise SpiceError(f"PWL: {err}", where) from None
        at0 = lambda: float(_interp(points, 0.0))          # noqa: E731
        return wave, {}, at0
    cls, bindings = {"pulse": _pulse, "sin": _sine, "exp": _exp, "sffm": _sffm, "am": _am}[spec.kind](spec, tran)
    try:
        wave = cls(**{name: f() for name, f in bindings.items()})
    except Exception as err:
        raise SpiceError(f"{spec.kind.upper()}: {err}", where) from None
    return wave, bindings, lambda: _at_zero(spec.kind, bindings)


_AFTER_ZERO = 1e-30     # [s] the time right after 0 of a PWL's jump at 0


def _pwl_points(spec, where):
    """(points [(s, value)], repeat time [s] or None) of a PWL with its ``td=`` delay added to
    every time; ``r=`` must be the time of a point before the last (ngspice-39 stops with an
    error when it is no point's time and never ends when it is the last one's)."""
    values = [f() for f in spec.args]
    times = values[0::2]
    delay = spec.options["td"]() if "td" in spec.options else 0.0
    points = [(t + delay, y) for t, y in zip(times, values[1::2])]
    if len(points) > 1 and points[0][0] == points[1][0] == 0.0:
        # A jump at t = 0: ngspice-39's operating point takes the first value and the run
        # jumps right after; a Table jumps at the time itself (its value there is the second)
        points[1] = (_AFTER_ZERO, points[1][1])
    if "r" not in spec.options:
        return points, None
    r = spec.options["r"]()
    index = next((k for k, t in enumerate(times) if abs(t - r) <= 1e-12 * abs(times[-1])), None)
    if index is None or index == len(times) - 1:
        raise SpiceError(f"PWL r={r:g}: the repeat time must be the time of one of the points "
                         f"before the last ({', '.join(f'{t:g}' for t in times[:-1])} s)", where)
    return points, points[index][0]


def _interp(points, t):
    """The PWL's value at t as the Table gives it: linear between points, and where two
    points share a time, the second's from that time on."""
    if t < points[0][0]:
        return points[0][1]
    for (t0, y0), (t1, y1) in zip(points, points[1:]):
        if t < t1:
            return y0 + (y1 - y0) * (t - t0) / (t1 - t0)
    return points[-1][1]
