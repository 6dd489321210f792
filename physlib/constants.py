"""Physical constants that carry their units (SI 2019 exact values where defined; CODATA 2018).

Each constant is a :class:`Constant`: a ``float`` (numeric code uses it as the number it is,
``4 * k_B * T`` is a float) that also carries its unit, in the Modelica grammar of
:mod:`physlib.units`. Products and quotients of constants and plain numbers keep their
units (``k_B / q`` is in ``J/(K.C)``, which is V/K), and in a component's SymPy equations a
constant appears as a symbol with its unit, so the unit check of the equations sees
``k_B·T/q`` as a voltage rather than a bare number times a temperature. Deriving the equations
replaces each such symbol by its value.

>>> from physlib.constants import k_B, q
>>> k_B * 300.0 / q          # a float, the thermal voltage at 300 K [V]
0.02585...

ngspice-39 computes with older values of k and q (CODATA 2014, its ``const.h``): kT/q differs by
3.4e-7 relative, which moves a diode's forward voltage by that fraction and its current at a fixed
voltage by v/vt times it. :data:`CONSTANT_SETS` holds both sets; the semiconductor devices and
resistors take the one named by their ``constants`` parameter ("SI" by default, "ngspice" in
the circuits :mod:`physlib.spice` reads).
"""
from __future__ import annotations

from typing import NamedTuple

from .core.units import combine, factors, format_factors, raised

__all__ = ["Constant", "k_B", "q", "sigma", "N_A", "R", "c", "h", "g_n", "epsilon_0", "mu_0", "T_zero",
           "unit_voltage", "unit_current", "unit_length", "k_B_ngspice", "q_ngspice", "ConstantSet",
           "CONSTANT_SETS"]


class Constant(float):
    """A number with a unit: ``Constant(1.380649e-23, "J/K", "k_B")``."""

    def __new__(cls, value: float, unit: str, name: str | None = None):
        self = super().__new__(cls, value)
        factors(unit)           # a unit outside the grammar is an error where the constant is made
        self.unit, self.name = unit, name or f"{float(value)!r} {unit}"
        return self

    def __repr__(self) -> str:
        return f"Constant({float(self)!r}, {self.unit!r}, {self.name!r})"

    def _combined(self, other, sign: int, value: float):
        """The product (sign 1) or quotient (sign −1) of this constant and ``other``, a constant
        or a plain number (a pure scale); NotImplemented for anything else."""
        if isinstance(other, Constant):
            unit = format_factors(combine(factors(self.unit), factors(other.unit), sign))
            return Constant(value, unit, f"{self.name}{'*' if sign > 0 else '/'}{other.name}")
        if type(other) in (float, int):
            return Constant(value, self.unit, f"{other!r}*{self.name}" if sign > 0 else f"{self.name}/{other!r}")
        return NotImplemented

    def __mul__(self, other):
        if not isinstance(other, (Constant, float, int)) or isinstance(other, bool):
            return NotImplemented
        return self._combined(other, 1, float(self) * float(other))

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        if not isinstance(other, (Constant, float, int)) or isinstance(other, bool):
            return NotImplemented
        return self._combined(other, -1, float(self) / float(other))

    def __rtruediv__(self, other):
        if type(other) not in (float, int):
            return NotImplemented
        return Constant(float(other) / float(self), raised(self.unit, -1), f"{other!r}/{self.name}")

    def __add__(self, other):
        if isinstance(other, Constant) and other.unit == self.unit:
            return Constant(float(self) + float(other), self.unit, f"({self.name}+{other.name})")
        return float.__add__(self, other)

    def __sub__(self, other):
        if isinstance(other, Constant) and other.unit == self.unit:
            return Constant(float(self) - float(other), self.unit, f"({self.name}-{other.name})")
        return float.__sub__(self, other)

    def __neg__(self):
        return Constant(-float(self), self.unit, f"-{self.name}")

    def __pow__(self, power):
        if type(power) is not int:
            return NotImplemented
        return Constant(float(self) ** power, raised(self.unit, power), f"{self.name}**{power}")

    def __reduce__(self):
        return Constant, (float(self), self.unit, self.name)


k_B = Constant(1.380649e-23, "J/K", "k_B")                 # Boltzmann constant (exact)
q = Constant(1.602176634e-19, "C", "q")                    # elementary charge (exact)
N_A = Constant(6.02214076e23, "1/mol", "N_A")              # Avogadro constant (exact)
R = Constant(1.380649e-23 * 6.02214076e23, "J/(mol.K)", "R")   # molar gas constant k_B·N_A
sigma = Constant(5.670374419e-8, "W/(m2.K4)", "sigma")     # Stefan-Boltzmann constant
c = Constant(299792458.0, "m/s", "c")                      # speed of light in vacuum (exact)
h = Constant(6.62607015e-34, "J.s", "h")                   # Planck constant (exact)
g_n = Constant(9.80665, "m/s2", "g_n")                     # standard gravity (exact)
epsilon_0 = Constant(8.8541878128e-12, "F/m", "epsilon_0")   # vacuum permittivity
mu_0 = Constant(1.25663706212e-6, "H/m", "mu_0")           # vacuum permeability
T_zero = Constant(273.15, "K", "T_zero")                   # 0 °C in kelvin
# One volt and one ampere: what a dimensionless curve parameter is scaled by where it stands
# for a voltage in one mode and a current in another (the MSL's unitVoltage, unitCurrent).
unit_voltage = Constant(1.0, "V", "unit_voltage")
unit_current = Constant(1.0, "A", "unit_current")
# One metre: the reference length of a power law c·(Δs/1 m)^n with an exponent n that is a parameter.
unit_length = Constant(1.0, "m", "unit_length")

# ngspice-39's Boltzmann constant and elementary charge (CODATA 2014, src/include/ngspice/const.h:
# CONSTboltz, CHARGE): what its device models and noise sources compute with.
k_B_ngspice = Constant(1.38064852e-23, "J/K", "k_B_ngspice")
q_ngspice = Constant(1.6021766208e-19, "C", "q_ngspice")


class ConstantSet(NamedTuple):
    """The Boltzmann constant and the elementary charge a device model computes with."""
    k_B: Constant
    q: Constant

    def thermal_voltage(self, T):
        """vt = k_B·T/q [V] at the temperature ``T`` [K] (a number or a SymPy expression)."""
        return self.k_B * T / self.q


# By name, as a component's ``constants`` parameter gives it: "SI" (the exact SI 2019 values,
# the default) or "ngspice" (ngspice-39's, for circuits that must agree with it to 1e-6).
CONSTANT_SETS = {"SI": ConstantSet(k_B, q), "ngspice": ConstantSet(k_B_ngspice, q_ngspice)}
