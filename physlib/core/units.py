"""Modelica unit strings: parsing, dimensions, conversion factors and composition.

A unit string is written in the grammar of the Modelica Language Specification (3.5, section
19.1), the one the Modelica Standard Library and FMI use::

    unit_expression  : unit_numerator [ "/" unit_denominator ]
    unit_numerator   : "1" | unit_factors | "(" unit_expression ")"
    unit_denominator : unit_factor | "(" unit_expression ")"
    unit_factors     : unit_factor [ "." unit_factors ]
    unit_factor      : unit_operand [ unit_exponent ]
    unit_exponent    : [ "+" | "-" ] ( integer | "(" integer "/" integer ")" )
    unit_operand     : unit_symbol | unit_prefix unit_symbol

so ``kg.m2``, ``m3/(s.Pa)``, ``N.m.s/rad``, ``A/V2``, ``s-1``, ``V(1/2)`` and ``1/s`` are units,
while ``m^2``, ``N*m`` and ``m/s/s`` are not (one ``/`` at most: write ``m/s2``).

:func:`parse` gives a :class:`Unit`: the factor and offset that take a value in the unit to
the coherent SI unit (``si = factor * value + offset``; only absolute temperatures have an
offset) and the exponents over the seven SI base dimensions plus a pseudo-dimension of angle.
Angles are kept apart so that cycles and radians never cross silently: ``rpm`` (``rev/min``) is
an angular velocity and converts to ``rad/s`` (factor 2π/60), while ``Hz`` is ``1/s`` and does
not convert to either. (In equations an angle is a ratio of lengths: the equation check
ignores the angle exponent, as Modelica does.)
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from .errors import ParameterError, PhyslibError
from .records import record

BASE_DIMENSIONS = ("m", "kg", "s", "A", "K", "mol", "cd", "rad")
ANGLE = BASE_DIMENSIONS.index("rad")


class UnitError(PhyslibError, ValueError):
    """A unit string that is not in the Modelica unit grammar, or names an unknown unit."""


class UnitWarning(UserWarning):
    """A component class's equations add, compare or take functions of quantities whose units
    do not agree (the check runs where the equations are derived; ``Model.compile(units=...)``)."""


@record(frozen=True)
class Unit:
    """A parsed unit: ``si = factor * value + offset`` in the coherent SI unit whose exponents
    over :data:`BASE_DIMENSIONS` are ``exponents``."""

    factor: float
    offset: float
    exponents: tuple[Fraction, ...]

    def __init__(self, factor: float, offset: float, exponents: tuple[Fraction, ...]):
        # its own (frozen: written past __setattr__): units are made by the hundred as the
        # unit table is built and quantities are parsed and combined
        self.__dict__.update(factor=factor, offset=offset, exponents=exponents)

    def __mul__(self, other: Unit) -> Unit:
        return Unit(self.factor * other.factor, 0.0, tuple(a + b for a, b in zip(self.exponents, other.exponents)))

    def __truediv__(self, other: Unit) -> Unit:
        return Unit(self.factor / other.factor, 0.0, tuple(a - b for a, b in zip(self.exponents, other.exponents)))

    def __pow__(self, power) -> Unit:
        power = Fraction(power)
        return Unit(self.factor ** float(power), 0.0, tuple(a * power for a in self.exponents))

    @property
    def dimensionless(self) -> bool:
        return not any(self.exponents)

    @property
    def coherent(self) -> bool:
        """Whether values in this unit are the coherent SI values (factor 1, no offset)."""
        return self.offset == 0.0 and math.isclose(self.factor, 1.0, rel_tol=1e-12)

    def same_dimension(self, other: Unit) -> bool:
        return self.exponents == other.exponents

    def dimension(self) -> str:
        """The coherent SI unit of this dimension in the Modelica grammar: ``kg.m2/(s3.A2)``."""
        return format_factors(dict(zip(BASE_DIMENSIONS, self.exponents)))


def _unit(factor, *exponents, offset=0.0) -> Unit:
    exps = dict(zip(BASE_DIMENSIONS, (0,) * len(BASE_DIMENSIONS)))
    for pair in exponents:
        symbol, power = pair if isinstance(pair, tuple) else (pair, 1)
        exps[symbol] = power
    return Unit(float(factor), float(offset), tuple(_fraction(exps[d]) for d in BASE_DIMENSIONS))


_SMALL_FRACTIONS = {k: Fraction(k) for k in range(-4, 5)}     # the unit table's exponents, made once


def _fraction(power: int) -> Fraction:
    return _SMALL_FRACTIONS[power] if power in _SMALL_FRACTIONS else Fraction(power)


_NEWTON = _unit(1, "kg", "m", ("s", -2))
_JOULE = _NEWTON * _unit(1, "m")
_WATT = _JOULE / _unit(1, "s")
_VOLT = _WATT / _unit(1, "A")
_OHM = _VOLT / _unit(1, "A")
_WEBER = _VOLT * _unit(1, "s")
_REVOLUTION = _unit(2 * math.pi, "rad")
_MINUTE = _unit(60, "s")
_ELEMENTARY_CHARGE = 1.602176634e-19      # C (SI 2019, exact): the electronvolt's factor

# The unit symbols (without prefix): the SI base and derived units and the non-SI units the
# Modelica Standard Library uses (Modelica.Units.NonSI).
SYMBOLS: dict[str, Unit] = {
    "m": _unit(1, "m"), "g": _unit(1e-3, "kg"), "s": _unit(1, "s"), "A": _unit(1, "A"),
    "K": _unit(1, "K"), "mol": _unit(1, "mol"), "cd": _unit(1, "cd"), "rad": _unit(1, "rad"),
    "sr": _unit(1, ("rad", 2)), "Hz": _unit(1, ("s", -1)), "N": _NEWTON, "Pa": _NEWTON / _unit(1, ("m", 2)),
    "J": _JOULE, "W": _WATT, "C": _unit(1, "A", "s"), "V": _VOLT, "F": _unit(1, "A", "s") / _VOLT,
    "Ohm": _OHM, "S": _unit(1) / _OHM, "Wb": _WEBER, "T": _WEBER / _unit(1, ("m", 2)),
    "H": _WEBER / _unit(1, "A"), "lm": _unit(1, "cd", ("rad", 2)), "lx": _unit(1, "cd", ("rad", 2), ("m", -2)),
    "Bq": _unit(1, ("s", -1)), "Gy": _unit(1, ("m", 2), ("s", -2)), "Sv": _unit(1, ("m", 2), ("s", -2)),
    "kat": _unit(1, "mol", ("s", -1)),
    "degC": _unit(1, "K", offset=273.15), "degF": _unit(5 / 9, "K", offset=273.15 - 32 * 5 / 9),
    "degRk": _unit(5 / 9, "K"),
    "deg": _unit(math.pi / 180, "rad"), "rev": _REVOLUTION, "rpm": _REVOLUTION / _MINUTE,
    "min": _MINUTE, "h": _unit(3600, "s"), "d": _unit(86400, "s"),
    "l": _unit(1e-3, ("m", 3)), "L": _unit(1e-3, ("m", 3)), "bar": _unit(1e5, "kg", ("m", -1), ("s", -2)),
    "eV": _JOULE * _unit(_ELEMENTARY_CHARGE),
    "dB": _unit(1),        # a level: a logarithm of a ratio, dimensionless
}

PREFIXES = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2,
            "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15,
            "a": 1e-18, "z": 1e-21, "y": 1e-24}

ONE = _unit(1)


def operand_unit(operand: str) -> Unit:
    """The unit of one operand: a unit symbol (``Pa``, ``min``, ``cd``) or a prefix and a
    symbol (``kOhm``, ``mm``, ``kg``). A symbol wins over prefix + symbol (``cd`` is the
    candela, ``min`` the minute)."""
    unit = SYMBOLS.get(operand)
    if unit is not None:
        return unit
    for length in (2, 1):
        prefix, symbol = operand[:length], operand[length:]
        if prefix in PREFIXES and symbol in SYMBOLS:
            base = SYMBOLS[symbol]
            if base.offset:
                raise UnitError(f"unit {operand!r}: a prefix on {symbol!r}, which has an offset, means nothing")
            return Unit(PREFIXES[prefix] * base.factor, 0.0, base.exponents)
    raise UnitError(f"unknown unit {operand!r}: not an SI or Modelica unit symbol, with or without a prefix "
                    f"({', '.join(sorted(PREFIXES))})")


class _Parser:
    """Recursive descent over one unit string: each rule of the grammar is a method that
    returns the factors {operand: exponent} it read."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def error(self, what: str) -> UnitError:
        return UnitError(f"unit {self.text!r} is not in the Modelica unit grammar: {what} at position "
                         f"{self.pos} (write products with '.', exponents as digits after the unit: "
                         f"'kg.m2/s2', 'V(1/2)', one '/' at most: 'm/s2')")

    def peek(self) -> str:
        return self.text[self.pos:self.pos + 1]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r}, found {self.peek() or 'the end'!r}")
        self.pos += 1

    def expression(self) -> dict[str, Fraction]:
        factors = self.numerator()
        if self.peek() == "/":
            self.pos += 1
            denominator = self.group() if self.peek() == "(" else self.factor()
            factors = combine(factors, denominator, -1)
        return factors

    def numerator(self) -> dict[str, Fraction]:
        if self.peek() == "(":
            return self.group()
        if self.peek() == "1" and not self.text[self.pos + 1:self.pos + 2].isalpha():
            self.pos += 1
            return {}
        factors = self.factor()
        while self.peek() == ".":
            self.pos += 1
            factors = combine(factors, self.factor(), 1)
        return factors

    def group(self) -> dict[str, Fraction]:
        self.expect("(")
        factors = self.expression()
        self.expect(")")
        return factors

    def factor(self) -> dict[str, Fraction]:
        start = self.pos
        while self.peek().isalpha():
            self.pos += 1
        operand = self.text[start:self.pos]
        if not operand:
            raise self.error(f"expected a unit symbol, found {self.peek() or 'the end'!r}")
        operand_unit(operand)           # an unknown operand is an error here, with its name
        return {operand: self.exponent()}

    def exponent(self) -> Fraction:
        sign = 1
        if self.peek() in "+-" and self.peek():
            sign = -1 if self.peek() == "-" else 1
            self.pos += 1
            if not (self.peek().isdigit() or self.peek() == "("):
                raise self.error("a sign without an exponent")
        if self.peek() == "(":
            self.pos += 1
            numerator = self.integer()
            self.expect("/")
            denominator = self.integer()
            self.expect(")")
            if denominator == 0:
                raise self.error("an exponent with denominator 0")
            return sign * Fraction(numerator, denominator)
        if self.peek().isdigit():
            return Fraction(sign * self.integer())
        return Fraction(1)

    def integer(self) -> int:
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise self.error("expected an integer")
        return int(self.text[start:self.pos])


def combine(a: dict[str, Fraction], b: dict[str, Fraction], sign: int) -> dict[str, Fraction]:
    """The factors of a·b (sign 1) or a/b (sign −1), in the order they first appear."""
    out = dict(a)
    for operand, power in b.items():
        out[operand] = out.get(operand, Fraction(0)) + sign * power
    return {k: v for k, v in out.items() if v != 0}


@lru_cache(maxsize=None)
def factors(text: str) -> dict[str, Fraction]:
    """The operands of a unit string with their exponents: ``{"m3": ..., }`` for ``m3/(s.Pa)``
    is ``{"m": 3, "s": -1, "Pa": -1}``. A :class:`UnitError` says where the string leaves the
    grammar. (The dict is shared: do not change it.)"""
    if not isinstance(text, str):
        raise UnitError(f"a unit is a string in the Modelica grammar ('V', 'N.m', 'm/s2'), got {text!r}")
    parser = _Parser(text)
    found = parser.expression()
    if parser.pos != len(text):
        raise parser.error(f"unexpected {parser.peek()!r}")
    return found


@lru_cache(maxsize=None)
def parse(text: str) -> Unit:
    """The :class:`Unit` of a Modelica unit string: ``parse("kOhm").factor == 1e3``,
    ``parse("degC").offset == 273.15``, ``parse("rpm")`` an angle per time."""
    found = factors(text)
    if len(found) == 1:
        operand, power = next(iter(found.items()))
        unit = operand_unit(operand)
        if power == 1:
            return unit                 # the offset stays only on a single operand (degC)
        return unit ** power
    unit = ONE
    for operand, power in found.items():
        unit = unit * operand_unit(operand) ** power
    return unit


def format_factors(found: dict[str, Fraction]) -> str:
    """Factors {operand: exponent} written in the grammar: ``m3/(s2.Pa)``, ``1/s``, ``V(1/2)``."""
    def written(operand, power):
        if power == 1:
            return operand
        if power.denominator == 1:
            return f"{operand}{power.numerator}"
        return f"{operand}({power.numerator}/{power.denominator})"

    top = [written(o, p) for o, p in found.items() if p > 0]
    bottom = [written(o, -p) for o, p in found.items() if p < 0]
    text = ".".join(top) or "1"
    if len(bottom) == 1:
        text += "/" + bottom[0]
    elif bottom:
        text += "/(" + ".".join(bottom) + ")"
    return text


@lru_cache(maxsize=None)
def divided(text: str, by: str) -> str:
    """The unit string of a quantity in ``text`` divided by one in ``by``, composed in the
    grammar: ``divided("m/s", "s") == "m/s2"`` (a derivative's unit), never ``m/s/s``."""
    return format_factors(combine(factors(text or "1"), factors(by), -1))


def rate_unit(text: str) -> str:
    """The unit of the time derivative of a quantity in ``text``, composed in the grammar
    (``"m/s"`` -> ``"m/s2"``, ``"1"`` -> ``"1/s"``); a unit outside the grammar gets ``/s``
    appended (the unit check of the equations reports the unit itself)."""
    try:
        return divided(text, "s")
    except UnitError:
        return f"{text}/s"


@lru_cache(maxsize=None)
def raised(text: str, power) -> str:
    """The unit string of a quantity in ``text`` raised to ``power`` (an int or a
    :class:`~fractions.Fraction`), composed in the grammar: ``raised("V", 2) == "V2"``,
    ``raised("V2/Hz", Fraction(1, 2)) == "V/Hz(1/2)"`` (an amplitude spectral density)."""
    power = Fraction(power)
    return format_factors({operand: p * power for operand, p in factors(text or "1").items()})


def conversion(given: Unit, declared: Unit) -> tuple[float, float] | None:
    """``(scale, shift)`` with ``value_declared = value_given * scale + shift``, or None when the
    dimensions differ (angles included: rpm converts to rad/s, Hz does not)."""
    if not given.same_dimension(declared):
        return None
    return given.factor / declared.factor, (given.offset - declared.offset) / declared.factor


# --- quantities of pint, astropy and unyt ---------------------------------------------------
# Recognised by the top-level package of their type, never imported here: physlib takes a
# quantity only when the user, who imported the library, passes one.
_PINT_BASES = {"meter": ("m", 1.0), "gram": ("kg", 1e-3), "second": ("s", 1.0), "ampere": ("A", 1.0),
               "kelvin": ("K", 1.0), "mole": ("mol", 1.0), "candela": ("cd", 1.0), "radian": ("rad", 1.0)}
_ASTROPY_BASES = {"m": "m", "kg": "kg", "s": "s", "A": "A", "K": "K", "mol": "mol", "cd": "cd", "rad": "rad"}
_UNYT_DIMENSIONS = {"length": "m", "mass": "kg", "time": "s", "current_mks": "A", "temperature": "K",
                    "amount": "mol", "luminous_intensity": "cd", "angle": "rad"}


def _exponents(powers: dict[str, Fraction]) -> tuple[Fraction, ...]:
    return tuple(Fraction(powers.get(d, 0)) for d in BASE_DIMENSIONS)


def _level(text: str) -> tuple[Unit, str]:
    """A logarithmic unit: a decibel is the level "dB" (a number only a parameter declared in
    dB takes as it is); others (neper, octave, dBm, dex, mag) have no conversion physlib makes."""
    if text in ("dB", "decibel"):
        return ONE, "dB"
    raise UnitError(f"{text} is a logarithmic unit (a level); give the quantity itself (a ratio "
                    f"10**(L/20) for an amplitude level L in dB, 10**(L/10) for a power level)")


def _pint_logarithmic(quantity) -> bool:
    """Whether pint converts the unit of ``quantity`` to its root units other than affinely:
    a logarithmic unit (dB, neper, octave), which no factor and offset describe."""
    registry = quantity._REGISTRY
    zero, one, two = (float(registry.Quantity(x, quantity.units).to_root_units().magnitude) for x in (0.0, 1.0, 2.0))
    return not math.isclose(two - one, one - zero, rel_tol=1e-9)


def _pint_unit(quantity) -> tuple[Unit, str]:
    registry = quantity._REGISTRY
    if not quantity._is_multiplicative and _pint_logarithmic(quantity):
        return _level(f"{quantity.units:~}")
    factor, root = registry.get_root_units(quantity.units)
    powers = {}
    for name, power in root._units.items():
        if name not in _PINT_BASES:
            raise UnitError(f"pint unit {name!r} is no SI base unit physlib knows")
        base, scale = _PINT_BASES[name]
        powers[base] = Fraction(power).limit_denominator(1000)
        factor = factor * scale ** float(power) if power < 0 or scale == 1.0 else factor / (1 / scale) ** float(power)
    offset = 0.0 if quantity._is_multiplicative else float(registry.Quantity(0.0, quantity.units).to_root_units().magnitude)
    return Unit(float(factor), offset, _exponents(powers)), f"{quantity.units:~}" or "1"


def _astropy_unit(quantity) -> tuple[Unit, str]:
    unit = quantity.unit
    if hasattr(unit, "physical_unit"):            # a function unit: dB, dex, mag
        return _level(unit.function_unit.to_string() if unit.physical_unit == 1 else unit.to_string())
    if unit.physical_type == "temperature":       # deg_C, deg_F: offsets only through an equivalency
        import sys
        units = sys.modules["astropy.units"]
        zero, one = (float(units.Quantity(x, unit).to_value(units.K, equivalencies=units.temperature()))
                     for x in (0.0, 1.0))
        return Unit(one - zero if unit != units.K else 1.0, zero, _exponents({"K": 1})), unit.to_string()
    decomposed = unit.decompose()
    powers = {}
    for base, power in zip(decomposed.bases, decomposed.powers):
        if base.name not in _ASTROPY_BASES:
            raise UnitError(f"astropy unit {base.name!r} is no SI base unit physlib knows")
        powers[_ASTROPY_BASES[base.name]] = Fraction(power).limit_denominator(1000)
    return Unit(float(decomposed.scale), 0.0, _exponents(powers)), unit.to_string() or "1"


def _unyt_unit(quantity) -> tuple[Unit, str]:
    units = quantity.units
    powers = {}
    for symbol, power in units.dimensions.as_powers_dict().items():
        name = str(symbol).strip("()")
        if name == "1":
            continue
        if name == "logarithmic":
            return _level(str(units))
        if name not in _UNYT_DIMENSIONS:
            raise UnitError(f"unyt dimension {name!r} is no SI base dimension physlib knows")
        powers[_UNYT_DIMENSIONS[name]] = Fraction(str(power))
    factor = float(units.base_value)
    return Unit(factor, -float(units.base_offset) * factor, _exponents(powers)), str(units)


_LIBRARIES = {  # top-level package -> (magnitude, hashable unit, (Unit, text) of that unit)
    "pint": (lambda q: q.magnitude, lambda q: q._units, _pint_unit),
    "astropy": (lambda q: q.value, lambda q: q.unit, _astropy_unit),
    "unyt": (lambda q: q.v, lambda q: q.units, _unyt_unit),
}


def quantity_unit(value) -> Unit | None:
    """The :class:`Unit` of a pint, astropy or unyt quantity (its factor and offset to the
    coherent SI unit and its exponents), None for anything else."""
    library = _LIBRARIES.get(type(value).__module__.partition(".")[0])
    return None if library is None else library[2](value)[0]


def quantity_value(value, declared: str, what: str):
    """The number of ``value`` in the unit ``declared`` when ``value`` is a pint, astropy or
    unyt quantity, else None. ``what`` names the parameter or variable (``"parameter R of
    R1"``) in the :class:`~physlib.core.errors.ParameterError` raised when the dimensions differ
    (angles included: cycles do not become radians), or the declared unit is no unit."""
    library = _LIBRARIES.get(type(value).__module__.partition(".")[0])
    if library is None:
        return None
    magnitude, key, _ = library
    cache_key = (type(value), key(value), declared)
    scale = _conversions.get(cache_key)
    if scale is None:
        scale = _conversions[cache_key] = _conversion_of(value, library, declared, what)
    number = magnitude(value)
    try:
        number = float(number)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be one number, got the quantity {value!r:.60}") from None
    return number * scale[0] + scale[1] if scale[1] else number * scale[0]


_conversions: dict = {}     # (quantity type, its unit, declared unit) -> (scale, shift)


def _conversion_of(value, library, declared: str, what: str) -> tuple[float, float]:
    """(scale, shift) from the unit of quantity ``value`` to ``declared``, or the
    ParameterError that says why there is none."""
    try:
        given, text = library[2](value)
        target = parse(declared)
    except UnitError as err:
        raise ParameterError(f"{what} cannot take {value!r:.60}: {err}") from None
    if text == "dB" and declared != "dB":
        raise ParameterError(f"{what} is in {declared}; {value!r:.60} is a level in dB, a logarithm of a "
                             f"ratio: give the ratio itself (10**(L/20) for an amplitude, 10**(L/10) for a power)")
    scale = conversion(given, target)
    if scale is None:
        hint = (" (cycles and radians do not convert silently: a frequency in Hz is cycles per second, "
                "an angular velocity rad/s or rpm)" if given.exponents[:ANGLE] == target.exponents[:ANGLE]
                else "; give a plain number (a signal carries no unit, as the Modelica blocks': a "
                "waveform's values are in the unit of the input it drives)" if declared == "1" else "")
        raise ParameterError(f"{what} is in {declared} ({target.dimension()}); the quantity given, "
                             f"{value!r:.60}, is in {text} ({given.dimension()}){hint}")
    return scale
