"""SPICE numbers: ``1k``, ``2.5meg``, ``10uF``, ``1MOhm`` (= 1e-3: ``M`` is milli), ``3mil``.

As ngspice-39 reads them: a decimal number with an optional exponent, then an optional scale
suffix (case-insensitive: t g meg k m mil u n p f), then any letters, which are ignored
(``10uF`` is 10 µ, the ``F`` a unit; ngspice has no atto: ``2a`` is 2, as in ``2A`` of a
current, though HSPICE reads it as 2e-18). :func:`parse_number` also says when a value looks like a
mistake (``1M`` where mega was probably meant, ``2k7``); :func:`farad_warning` says it of a
capacitor's value with a lone upper-case ``F`` (``10F``, which reads as farads)."""
from __future__ import annotations

import functools
import math
import re

__all__ = ["parse_number", "farad_warning", "zero_is_none", "Constant", "NUMBER", "SCALE"]

NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
SCALE = {"t": 12, "g": 9, "meg": 6, "k": 3, "m": -3, "u": -6, "n": -9, "p": -12,
         "f": -15}     # powers of ten; "mil" is 25.4e-6
# A number token's parts in one match: the number (NUMBER), its scale suffix, the letters after
# it and anything else (the number's case-insensitivity changes nothing: only its exponent's e
# has a case, and both are allowed).
_PARTS = re.compile(f"({NUMBER.pattern})" + r"(meg|mil|[tgkmunpf])?([A-Za-z_]*)(.*)", re.I | re.S)


@functools.lru_cache(maxsize=4096)      # a large deck repeats its values (1k, 1n) many times
def parse_number(token: str, expression: bool = False) -> tuple[float, str | None] | None:
    """(value, a warning or None) for a SPICE number token, None if it is not a number.

    ``parse_number("10uF") == (1e-05, None)``; ``parse_number("1MOhm")`` is 1e-3 with a warning
    that ``M`` means milli. ``expression=True``: inside ``{...}`` ngspice-39 reads ``mil`` as
    milli (``{2.5mil}`` is 2.5e-3, while the value ``2.5mil`` is 63.5e-6); so does this. Anything after the suffix's letters that is not a letter (``2k7``'s
    ``7``) makes ngspice ignore it too; that is warned about."""
    match = _PARTS.match(token)
    if not match:
        return None
    number, suffix, letters, rest = match.groups()
    mantissa = float(number)
    key = suffix.lower() if suffix else None
    if key == "mil" and expression:
        key = "m"
    if key == "mil":
        value = mantissa * 25.4e-6
    elif key:       # correctly rounded: 10u is 1e-05, not 10 * 1e-6
        value = _scaled(number, SCALE[key])
    else:
        value = mantissa
    warning = None
    if rest:
        warning = (f"{token!r} is read as {value:g} as ngspice reads it: the characters "
                   f"{rest!r} after the scale suffix are ignored (for 2.7k write 2.7k, not 2k7)")
    elif suffix == "M" and not (letters[:2].lower() in ("eg", "il")):
        warning = (f"{token!r} is {value:g}: M is milli in SPICE; write 'meg' for mega")
    elif not suffix and letters[:1] in ("a", "A") and letters != "A" and letters.lower() not in ("amp", "amps"):
        warning = (f"{token!r} is {value:g}: ngspice has no atto scale and ignores the letters "
                   f"(HSPICE reads a as 1e-18); write {mantissa:g}e-18 for atto")
    return value, warning


def farad_warning(token: str) -> str | None:
    """The warning for a capacitor's value token written as farads, a lone upper-case ``F``
    after a number of at least 1 (``10F``, ``1F``), which SPICE reads as femto; None for any
    other token. The lower-case ``10f`` is the usual way to write 10 fF, and a model
    parameter's ``IS=14.34F`` a femto value too: neither is warned about."""
    match = _PARTS.match(token)
    if not match or match.group(2) != "F" or match.group(3) or match.group(4) or float(match.group(1)) < 1:
        return None
    return (f"{token!r} is {_scaled(match.group(1), -15):g}: a trailing F is femto in SPICE, not farad "
            "(write 1u or 1uF for microfarads, 10f for femtofarads)")


def _scaled(number: str, power: int) -> float:
    """The decimal ``number`` times 10**power, correctly rounded: float() rounds the decimal
    text it is given once, so the power goes into the text's exponent."""
    digits, _, exponent = number.lower().partition("e")
    return float(f"{digits}e{int(exponent or 0) + power}")


class Constant(float):
    """The value function of a number: ``Constant(2.0)()`` is 2.0, and a Constant is true
    whatever its value, as any function is. One 40-byte object, where ``lambda: value`` is a
    function, a cell, its closure and the tuple it reads (about 300 bytes): a million-element
    deck holds one value function per element."""
    __slots__ = ()

    def __call__(self) -> float:
        return float(self)

    def __bool__(self) -> bool:
        return True


def zero_is_none(function):
    """A value function giving +inf where ``function`` gives 0: model parameters that ngspice
    reads as "not given" when 0 (a BJT's VAF, IKF; a diode's IKF), physlib's "none"."""
    def value():
        number = function()
        return math.inf if number == 0 else number
    return value
