"""Independent sources (V, I): ``[DC] value``, ``AC [mag [phase]]`` and one of PULSE, SIN,
PWL, EXP, as ngspice-39 reads them, mapped to physlib waveforms.

Defaults follow ngspice's: PULSE's TR and TF (also when given as 0) are the ``.tran`` step,
PW and PER the stop time; SIN's FREQ is 1/tstop; EXP's TAU1, TAU2 are the step and TD2 is
TD1 + tstep. Without a DC value a source's DC value is its waveform's value at t = 0 (ngspice
warns the same), and ``AC`` without a magnitude is 1. ``ctx.tran()`` gives (tstep, tstop), so a
default follows the analysis it is used in without recompiling.
"""
from __future__ import annotations

import math

from ..components.signals import DampedSine, Exponentials, Table, Trapezoid
from .errors import SpiceError

__all__ = ["SourceSpec", "parse_source", "build_waveform"]

WAVEFORMS = {"pulse": (2, 7), "sin": (2, 6), "exp": (2, 6), "pwl": (2, None)}
KEYWORDS = ("dc", "ac") + tuple(WAVEFORMS)


class SourceSpec:
    """A source's parsed value: ``dc`` (a value function or None), ``ac`` ((mag, phase [°])
    value functions or None), ``kind`` ("pulse", "sin", "exp", "pwl" or None) and ``args``."""

    def __init__(self):
        self.dc = None
        self.ac = None
        self.kind = None
        self.args: list = []


def parse_source(tokens: list[str], where, value, is_value) -> SourceSpec:
    """Read the tokens after a source's nodes; ``value(token)`` gives a value function,
    ``is_value(token)`` says whether a token is a number or expression."""
    spec, pos = SourceSpec(), 0
    while pos < len(tokens):
        word = tokens[pos].lower()
        if pos == 0 and is_value(tokens[0]):
            spec.dc = value(tokens[0])
            pos += 1
        elif word == "dc":
            if pos + 1 >= len(tokens) or not is_value(tokens[pos + 1]):
                raise SpiceError("DC needs a value", where)
            spec.dc, pos = value(tokens[pos + 1]), pos + 2
        elif word == "ac":
            numbers = []
            pos += 1
            while pos < len(tokens) and len(numbers) < 2 and is_value(tokens[pos]):
                numbers.append(value(tokens[pos]))
                pos += 1
            spec.ac = (numbers[0] if numbers else (lambda: 1.0),
                       numbers[1] if len(numbers) > 1 else (lambda: 0.0))
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
                                 f"{len(spec.args)} (options such as NP, td=, r= are not "
                                 "supported yet)", where)
        else:
            raise SpiceError(f"{tokens[pos]!r} is not supported in a source; supported: "
                             "[DC] value, AC [mag [phase]], PULSE, SIN, PWL, EXP", where)
    if spec.kind == "pwl" and len(spec.args) % 2:
        raise SpiceError("PWL takes (time, value) pairs: an even number of values", where)
    return spec


def _arg(spec, k, default):
    """Value function of argument k, or of ``default`` (a function) if it is missing."""
    return spec.args[k] if k < len(spec.args) else default


def _pulse(spec, tran):
    v1, v2 = spec.args[0], spec.args[1]
    td = _arg(spec, 2, lambda: 0.0)
    nonzero = (lambda k, fallback: (lambda: (spec.args[k]() if k < len(spec.args) and
                                             spec.args[k]() != 0 else fallback())))
    tr = nonzero(3, lambda: tran()[0])
    tf = nonzero(4, lambda: tran()[0])
    pw = nonzero(5, lambda: tran()[1])
    per = nonzero(6, lambda: tran()[1])
    # ngspice lets a pulse's shape overrun its period (PER defaults to tstop); the overrun part
    # is never reached in a run to tstop, so the period is stretched to hold the shape.
    period = lambda: max(per(), tr() + pw() + tf())         # noqa: E731
    return Trapezoid, {"offset": v1, "amplitude": lambda: v2() - v1(), "t0": td, "rising": tr,
                       "falling": tf, "width": pw, "period": period}


def _sine(spec, tran):
    freq = spec.args[2] if len(spec.args) > 2 else None
    return DampedSine, {
        "offset": spec.args[0], "amplitude": spec.args[1],
        "f": (lambda: freq() if freq() != 0 else 1.0 / tran()[1]) if freq else (lambda: 1.0 / tran()[1]),
        "t0": _arg(spec, 3, lambda: 0.0), "damping": _arg(spec, 4, lambda: 0.0),
        "phase": (lambda: math.radians(spec.args[5]())) if len(spec.args) > 5 else (lambda: 0.0)}


def _exp(spec, tran):
    v1, v2 = spec.args[0], spec.args[1]
    td1 = _arg(spec, 2, lambda: 0.0)
    tau1 = _arg(spec, 3, lambda: tran()[0])
    td2 = _arg(spec, 4, lambda: td1() + tran()[0])
    tau2 = _arg(spec, 5, lambda: tran()[0])
    return Exponentials, {"offset": v1, "amplitude": lambda: v2() - v1(), "t_rise": td1,
                          "tau_rise": tau1, "t_fall": td2, "tau_fall": tau2}


def build_waveform(spec: SourceSpec, tran, where):
    """(waveform, {parameter name: value function}, t = 0 value function) for a source with
    a waveform; the PWL table is structural (its bindings are empty: changing a .param it uses
    means reading the deck again)."""
    if spec.kind == "pwl":
        values = [f() for f in spec.args]
        points = list(zip(values[0::2], values[1::2]))
        try:
            wave = Table(points=points)
        except Exception as err:
            raise SpiceError(f"PWL: {err}", where) from None
        at0 = lambda: float(_interp(points, 0.0))          # noqa: E731
        return wave, {}, at0
    cls, bindings = {"pulse": _pulse, "sin": _sine, "exp": _exp}[spec.kind](spec, tran)
    try:
        wave = cls(**{name: f() for name, f in bindings.items()})
    except Exception as err:
        raise SpiceError(f"{spec.kind.upper()}: {err}", where) from None
    if spec.kind == "sin":
        at0 = lambda: bindings["offset"]() + bindings["amplitude"]() * math.sin(bindings["phase"]())  # noqa: E731
    else:
        at0 = bindings["offset"]
    return wave, bindings, at0


def _interp(points, t):
    if t <= points[0][0]:
        return points[0][1]
    for (t0, y0), (t1, y1) in zip(points, points[1:]):
        if t <= t1:
            return y0 + (y1 - y0) * (t - t0) / (t1 - t0)
    return points[-1][1]
