"""The analysis cards (.op, .dc, .tran, .ac, .noise, .pz, .tf, .sens, .four) read from their
tokens, and the
frequency and DC-sweep grids ngspice-39 computes for them.

Frequencies are those of ngspice-39 (its ``acan.c`` and ``noisean.c``): ``.ac dec`` divides
fstart…fstop into floor(n·decades) equal ratios, so it ends exactly at fstop; ``.noise dec``
multiplies by 10^(1/n) while below fstop (plus its tolerance, reltol of a step); ``oct``
multiplies by 2^(1/n) in both; ``lin`` has n points from fstart to fstop. The DC sweep has the
points start + k·step up to stop (within half a step's rounding).
"""
from __future__ import annotations

import math
import re

import numpy as np

from .errors import SpiceError

__all__ = ["parse_analysis", "ac_frequencies", "noise_frequencies", "dc_values"]


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
            return _dc_card(tokens, where, value)
        if kind in ("tf", "sens", "four"):
            return _OTHER_CARDS[kind](card, value)
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
        if kind == "noise":
            return _noise_card(card, value)
        if kind == "pz":
            if len(tokens) != 6 or tokens[4].lower() not in ("vol", "cur") or \
                    tokens[5].lower() not in ("pol", "zer", "pz"):
                raise SpiceError(".pz takes in+ in- out+ out- vol|cur pol|zer|pz", where)
            return dict(zip(("in_p", "in_n", "out_p", "out_n", "transfer", "find"),
                            (t.lower() for t in tokens)))
    except IndexError:
        raise SpiceError(f"too few values for .{kind}", where) from None
    raise SpiceError(f".{kind} is not supported", where)


def _sweep(start: float, stop: float, step: float, logarithmic: bool, reltol: float) -> np.ndarray:
    """ngspice's frequency loop: from ``start``, multiply by ``step`` (logarithmic) or add it,
    while the frequency stays within stop + tolerance (step·stop·reltol, or step·reltol for a
    linear sweep); a step of 1 (or 0) gives one point."""
    tolerance = step * (stop if logarithmic else 1.0) * reltol
    freqs, f = [], start
    while f <= stop + tolerance:
        freqs.append(f)
        if step == (1.0 if logarithmic else 0.0):
            break
        f = f * step if logarithmic else f + step
    return np.array(freqs, dtype=float)


def _check_sweep(card: str, variation: str, n: int, fstart: float, fstop: float):
    if variation not in ("dec", "oct", "lin"):
        raise SpiceError(f".{card} {variation}: the variation is dec, oct or lin")
    if n < 1 or not 0 < fstart <= fstop:
        raise SpiceError(f".{card} {variation} {n} {fstart:g} {fstop:g}: need n >= 1 and "
                         "0 < fstart <= fstop [Hz]")


def _dc_card(tokens, where, value) -> dict:
    """``.dc src start stop step [src2 start2 stop2 step2]``: a source's name or ``TEMP``
    (the circuit temperature [°C]), the second one the outer loop, as ngspice sweeps them."""
    if len(tokens) not in (4, 8):
        raise SpiceError(".dc takes src start stop step [src2 start2 stop2 step2] (a source "
                         "name or TEMP)", where)
    names = ("src", "start", "stop", "step")
    args = {name: (tokens[k].lower() if k == 0 else value(tokens[k]))
            for k, name in enumerate(names)}
    if len(tokens) == 8:
        args.update({name + "2": (tokens[4].lower() if k == 0 else value(tokens[4 + k]))
                     for k, name in enumerate(names)})
    return args


_OUTPUT_CARD = re.compile(r"\.(?:tf|sens)\s+([vi])\s*\(\s*([^,\s)]+)\s*(?:,\s*([^,\s)]+)\s*)?\)"
                          r"\s*(.*)$", re.I | re.S)


def _output_card(card) -> tuple[str, str]:
    """(``v(out)``, ``v(out,ref)`` or ``i(vname)``; the rest of the card) of .tf and .sens."""
    kind = card.text.split()[0].lower()
    match = _OUTPUT_CARD.match(card.text.strip())
    if not match or (match.group(1).lower() == "i" and match.group(3)):
        raise SpiceError(f"{kind} takes an output v(out), v(out,ref) or i(vsource) first",
                         card.where)
    letter, first, second = (g.lower() if g else g for g in match.groups()[:3])
    return f"{letter}({first},{second})" if second else f"{letter}({first})", match.group(4)


def _tf_card(card, value) -> dict:
    """``.tf output src``."""
    output, rest = _output_card(card)
    if len(rest.split()) != 1:
        raise SpiceError(".tf takes an output and an input source: .tf v(out) vin", card.where)
    return {"output": output, "src": rest.split()[0].lower()}


def _sens_card(card, value) -> dict:
    """``.sens output`` (DC sensitivities; the AC form is refused)."""
    output, rest = _output_card(card)
    if rest.strip():
        raise SpiceError(".sens: only the DC form .sens v(out) (or i(vsource)) is supported; "
                         "AC sensitivities (.sens output ac ...) are not", card.where)
    return {"output": output}


def _four_card(card, value) -> dict:
    """``.four freq output ...``: the fundamental [Hz] and the vectors of the transient."""
    from .vectors import parse_list
    words = card.text.split(None, 2)
    if len(words) < 3:
        raise SpiceError(".four takes the fundamental frequency and vectors: .four 1k v(out)",
                         card.where)
    return {"freq": value(words[1]), "vectors": [label for label, _ in
                                                  parse_list(words[2], card.where)]}


_OTHER_CARDS = {"tf": _tf_card, "sens": _sens_card, "four": _four_card}


_NOISE = re.compile(r"\.noise\s+v\s*\(\s*([^,\s)]+)\s*(?:,\s*([^,\s)]+)\s*)?\)(.*)$", re.I | re.S)


def _noise_card(card, value) -> dict:
    """``.noise v(out[,ref]) src dec|oct|lin n fstart fstop [pts_per_summary]``."""
    from .lexer import split
    usage = ".noise takes v(out[,ref]) src dec|oct|lin n fstart fstop [pts_per_summary]"
    match = _NOISE.match(card.text.strip())
    if not match:
        raise SpiceError(usage + " (the output is a node voltage)", card.where)
    rest = split(match.group(3), card.where)
    if len(rest) not in (5, 6) or rest[1].lower() not in ("dec", "oct", "lin"):
        raise SpiceError(usage, card.where)
    out, ref = match.group(1).lower(), (match.group(2) or "").lower()
    args = {"output": f"v({out},{ref})" if ref else f"v({out})", "src": rest[0].lower(),
            "variation": rest[1].lower(), "n": int(round(value(rest[2]))),
            "fstart": value(rest[3]), "fstop": value(rest[4])}
    if len(rest) == 6:
        args["pts_per_summary"] = int(round(value(rest[5])))
    return args


def ac_frequencies(variation: str, n: int, fstart: float, fstop: float,
                   reltol: float = 1e-3) -> np.ndarray:
    """The frequencies [Hz] ngspice-39 computes for ``.ac variation n fstart fstop``: ``dec``
    takes floor(n·log10(fstop/fstart)) equal ratios from fstart to exactly fstop; ``oct``
    multiplies by 2^(1/n) up to fstop; ``lin`` takes n points from fstart to fstop, except
    that ngspice-39 gives one point for n = 2 (copied). ``reltol`` is the deck's option, which
    sets ngspice's tolerance on the last point."""
    _check_sweep("ac", variation, n, fstart, fstop)
    if variation == "dec":
        steps = math.floor(abs(math.log10(fstop / fstart)) * n)
        if steps == 0:
            if fstop != fstart:
                raise SpiceError(f".ac dec {n} {fstart:g} {fstop:g}: less than one step of "
                                 "10^(1/n) between fstart and fstop, on which ngspice-39 never "
                                 "ends; raise fstop or n")
            return np.array([fstart])
        return _sweep(fstart, fstop, math.exp(math.log(fstop / fstart) / steps), True, reltol)
    if variation == "oct":
        return _sweep(fstart, fstop, math.exp(math.log(2.0) / n), True, reltol)
    delta = (fstop - fstart) / (n - 1) if n - 1 > 1 else 0.0
    return _sweep(fstart, fstop, delta, False, reltol)


def noise_frequencies(variation: str, n: int, fstart: float, fstop: float,
                      reltol: float = 1e-3) -> np.ndarray:
    """The frequencies [Hz] ngspice-39 computes for ``.noise ... variation n fstart fstop``:
    ``dec``/``oct`` multiply fstart by 10^(1/n) or 2^(1/n) while the frequency stays below
    fstop (so the grid ends at fstop only when fstop is on it); ``lin`` takes n points."""
    _check_sweep("noise", variation, n, fstart, fstop)
    if variation == "lin":
        if n > 1 and fstop == fstart:
            raise SpiceError(f".noise lin {n} {fstart:g} {fstop:g}: fstart = fstop with n > 1 "
                             "(ngspice-39 never ends); give n = 1")
        return _sweep(fstart, fstop, (fstop - fstart) / (n - 1) if n > 1 else 0.0, False,
                      reltol)
    ratio = math.exp(math.log(10.0 if variation == "dec" else 2.0) / n)
    return _sweep(fstart, fstop, ratio, True, reltol)


def dc_values(start: float, stop: float, step: float) -> np.ndarray:
    """The source values of ``.dc src start stop step``."""
    if step == 0 or (stop - start) * step < 0:
        raise SpiceError(f".dc {start} {stop} {step}: the step must go from start toward stop")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    return np.array([start + k * step for k in range(count)])
