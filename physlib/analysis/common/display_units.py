"""Results in the units people read: values converted to a display unit, and pint quantities.

A result holds each value in the unit its variable is declared in (a Modelica unit string,
:mod:`physlib.units`). :func:`display_conversion` gives the scale and shift to another unit of
the same dimension (rad/s to rpm is ×60/2π; K to degC is −273.15), and :func:`pint_quantity`
wraps values in a pint ``Quantity`` of their declared unit. pint is imported only there, when a
quantity is asked for.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ...core.errors import ParameterError, PhyslibError
from ...core.units import (ANGLE, BASE_DIMENSIONS, PREFIXES, UnitError, conversion, factors, operand_unit, parse,
                           quantity_unit)

# pint's names of the Modelica unit symbols (pint reads "Ohm" as nothing and "h" as the hour,
# so every operand goes by its full name).
_PINT_NAMES = {
    "m": "meter", "g": "gram", "s": "second", "A": "ampere", "K": "kelvin", "mol": "mole", "cd": "candela",
    "rad": "radian", "sr": "steradian", "Hz": "hertz", "N": "newton", "Pa": "pascal", "J": "joule",
    "W": "watt", "C": "coulomb", "V": "volt", "F": "farad", "Ohm": "ohm", "S": "siemens", "Wb": "weber",
    "T": "tesla", "H": "henry", "lm": "lumen", "lx": "lux", "Gy": "gray", "Sv": "sievert", "kat": "katal",
    "degC": "degree_Celsius", "degF": "degree_Fahrenheit", "degRk": "degree_Rankine", "deg": "degree",
    "rev": "revolution", "rpm": "rpm", "min": "minute", "h": "hour", "d": "day", "l": "liter", "L": "liter",
    "bar": "bar", "eV": "electron_volt",
}
_PINT_PREFIXES = {"Y": "yotta", "Z": "zetta", "E": "exa", "P": "peta", "T": "tera", "G": "giga", "M": "mega",
                  "k": "kilo", "h": "hecto", "da": "deca", "d": "deci", "c": "centi", "m": "milli", "u": "micro",
                  "n": "nano", "p": "pico", "f": "femto", "a": "atto", "z": "zepto", "y": "yocto"}
assert set(_PINT_PREFIXES) == set(PREFIXES)
_PINT_BASES = ("meter", "kilogram", "second", "ampere", "kelvin", "mole", "candela", "radian")
assert len(_PINT_BASES) == len(BASE_DIMENSIONS)


def display_conversion(declared: str, display: str, what: str) -> tuple[float, float]:
    """``(scale, shift)`` with ``value_display = value_declared * scale + shift``, or a
    :class:`~physlib.core.errors.ParameterError` naming ``what`` (``"rotor.w"``) and both units
    when their dimensions differ (cycles and radians included: rad/s shows in rpm, not in Hz)."""
    given, target = parse(declared), parse(display)
    scale = conversion(given, target)
    if scale is None:
        hint = (" (cycles and radians do not convert: an angular velocity shows in rad/s, rpm or deg/s, "
                "a frequency in Hz)" if given.exponents[:ANGLE] == target.exponents[:ANGLE] else "")
        raise ParameterError(f"{what} is in {declared} ({given.dimension()}) and cannot be shown in {display} "
                             f"({target.dimension()}): the dimensions differ{hint}")
    return scale


def pint_quantity(values, unit: str, registry=None):
    """``values`` (a number or an array) as a pint ``Quantity`` in ``unit`` (a Modelica unit
    string), made with ``registry`` (default: pint's application registry, the one
    ``pint.Quantity`` uses). The unit keeps its name where pint defines it as physlib does
    (``kOhm`` becomes pint's kiloohm); otherwise the values are converted to the coherent SI
    base units (pint's ``count``-based becquerel, a logarithmic dB)."""
    try:
        import pint
    except ImportError:
        raise PhyslibError(f"a quantity of {unit} needs the pint package: pip install pint") from None
    registry = pint.get_application_registry() if registry is None else registry
    name = _pint_name(registry, unit, pint.PintError)
    if name is not None:
        return registry.Quantity(values, name)
    declared = parse(unit)
    base = " * ".join(f"{b} ** {float(p)!r}" for b, p in zip(_PINT_BASES, declared.exponents) if p) or "dimensionless"
    scaled = np.asarray(values, dtype=float) * declared.factor + declared.offset
    return registry.Quantity(scaled, base)


@lru_cache(maxsize=256)
def _pint_name(registry, unit: str, pint_error: type) -> str | None:
    """pint's expression of ``unit`` operand by operand, if pint reads it as physlib does (the
    same factor, offset and exponents); None otherwise."""
    parts = []
    for operand, power in factors(unit or "1").items():
        symbol = operand if operand in _PINT_NAMES else None
        prefix = ""
        if symbol is None:
            for length in (2, 1):
                if operand[:length] in PREFIXES and operand[length:] in _PINT_NAMES:
                    prefix, symbol = _PINT_PREFIXES[operand[:length]], operand[length:]
                    break
        if symbol is None:
            operand_unit(operand)       # an unknown operand: its error
            return None                 # a known one pint spells otherwise (dB, Bq)
        parts.append(f"{prefix}{_PINT_NAMES[symbol]}" + ("" if power == 1 else f" ** {_exponent(power)}"))
    expression = " * ".join(parts) or "dimensionless"
    try:
        found = quantity_unit(registry.Quantity(1.0, expression))
    except (pint_error, UnitError):     # a name pint lacks, an offset in a product, a base it has of its own
        return None
    declared = parse(unit)
    same = (found is not None and found.exponents == declared.exponents
            and math.isclose(found.factor, declared.factor, rel_tol=1e-12)
            and math.isclose(found.offset, declared.offset, rel_tol=1e-12, abs_tol=1e-12))
    return expression if same else None


def _exponent(power: Fraction) -> str:
    return str(power.numerator) if power.denominator == 1 else repr(float(power))
