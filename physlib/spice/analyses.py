"""The analysis cards (.op, .dc, .tran, .ac) read from their tokens, and run with physlib's
own analyses: operating points (``.op``, ``.dc``), simulate (``.tran``) and the linear model's
frequency response at the DC operating point (``.ac``).

Frequencies are those ngspice-39 generates: ``dec``/``oct`` start at fstart and multiply by
10^(1/n) or 2^(1/n) while the frequency stays below fstop·(1 + 1e-3·(ratio − 1))… as in its
``acan.c``, and ``lin`` has n points from fstart to fstop. The DC sweep has the points
start + k·step up to stop (within half a step's rounding).
"""
from __future__ import annotations

import math

import numpy as np

from .errors import SpiceError

__all__ = ["parse_analysis", "ac_frequencies", "dc_values"]


def parse_analysis(kind: str, tokens: list[str], card, value) -> dict:
    """The arguments of one analysis card as the keyword arguments of the SpiceDeck method of
    the same name (``value(token)`` evaluates a number or expression)."""
    where = card.where
    try:
        if kind == "op":
            if tokens:
                raise SpiceError(".op takes no arguments", where)
            return {}
        if kind == "dc":
            if len(tokens) != 4:
                raise SpiceError(".dc takes one source: .dc src start stop step (a second "
                                 "swept source is not supported yet)", where)
            return {"src": tokens[0].lower(), "start": value(tokens[1]), "stop": value(tokens[2]),
                    "step": value(tokens[3])}
        if kind == "tran":
            uic = bool(tokens) and tokens[-1].lower() == "uic"
            numbers = [value(t) for t in (tokens[:-1] if uic else tokens)]
            if not 2 <= len(numbers) <= 4:
                raise SpiceError(".tran takes tstep tstop [tstart [tmax]] [uic]", where)
            names = ("tstep", "tstop", "tstart", "tmax")
            return dict(zip(names, numbers), uic=uic)
        if kind == "ac":
            if len(tokens) != 4 or tokens[0].lower() not in ("dec", "oct", "lin"):
                raise SpiceError(".ac takes dec|oct|lin n fstart fstop", where)
            return {"variation": tokens[0].lower(), "n": int(round(value(tokens[1]))),
                    "fstart": value(tokens[2]), "fstop": value(tokens[3])}
    except IndexError:
        raise SpiceError(f"too few values for .{kind}", where) from None
    raise SpiceError(f".{kind} is not supported", where)


def ac_frequencies(variation: str, n: int, fstart: float, fstop: float) -> np.ndarray:
    """The frequencies [Hz] ngspice-39 computes for ``.ac variation n fstart fstop``."""
    if n < 1 or not 0 < fstart <= fstop and variation != "lin":
        raise SpiceError(f".ac {variation} {n} {fstart} {fstop}: need n >= 1 and "
                         "0 < fstart <= fstop")
    if variation == "lin":
        if n == 1:
            return np.array([fstart])
        delta = (fstop - fstart) / (n - 1)
        return np.array([fstart + k * delta for k in range(n)])
    ratio = math.exp(math.log(10.0 if variation == "dec" else 2.0) / n)
    count = int(math.floor(abs(math.log(fstop / fstart) / math.log(ratio)) + 0.25)) + 1
    freqs, f = [], fstart
    for _ in range(count):
        freqs.append(f)
        f *= ratio
    return np.array(freqs)


def dc_values(start: float, stop: float, step: float) -> np.ndarray:
    """The source values of ``.dc src start stop step``."""
    if step == 0 or (stop - start) * step < 0:
        raise SpiceError(f".dc {start} {stop} {step}: the step must go from start toward stop")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    return np.array([start + k * step for k in range(count)])
