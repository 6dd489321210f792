"""Inductors beyond the linear one, as the Modelica Standard Library's Analog.Basic: the
saturating inductor and the transformer of two coupled windings."""
import math

from ...core import Parameter, Variable, der
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...domains.electrical import CURRENT_NOMINAL, FLUX_NOMINAL
from .interfaces import OnePort, TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["SaturatingInductor", "Transformer"]


class SaturatingInductor(OnePort):
    """Inductor whose inductance falls from Lzer near zero current to Linf at large currents,
    through Lnom at the nominal current Inom (the MSL's Basic.SaturatingInductor)::

        Psi = Linf·i + (Lzer − Linf)·Ipar·atan(i/Ipar),   v = dPsi/dt,
        Lact = Psi/i = Linf + (Lzer − Linf)·atan(i/Ipar)/(i/Ipar)   (Lzer at i = 0),

    where Ipar [A] solves (Lnom − Linf)/(Lzer − Linf) = (Ipar/Inom)·(π/2 − atan(Ipar/Inom)),
    so that Lact(Inom) = Lnom (a constant unknown of the equations, solved with them).
    Simscape's Nonlinear Inductor (its single-saturation-point parameterization is another).

    Parameters: Inom [A] nominal current (> 0); Lnom [H] inductance at Inom; Lzer [H]
    inductance near zero current (> Lnom); Linf [H] inductance at large currents (0 < Linf <
    Lnom); i0 [A] initial current.
    Variables: Psi [Wb] flux (the state), Lact [H] present inductance, Ipar [A] (with phi_par
    = atan(Inom/Ipar) [rad], which the equations solve for).
    Stores ∫ i dPsi = Linf·i²/2 + (Lzer − Linf)·Ipar²·ln(1 + (i/Ipar)²)/2.
    """

    Inom = Parameter(1.0, unit="A", description="nominal current", positive=True)
    Lnom = Parameter(1.0, unit="H", description="inductance at the nominal current", positive=True)
    Lzer = Parameter(2.0, unit="H", description="inductance near zero current", positive=True)
    Linf = Parameter(0.5, unit="H", description="inductance at large currents", positive=True)
    i0 = Parameter(0.0, unit="A", description="initial current")
    Psi = Variable("Wb", "magnetic flux", nominal=FLUX_NOMINAL)
    Lact = Variable("H", "present inductance Psi/i", start=1.0)
    Ipar = Variable("A", "current scale of the saturation (from Inom, Lnom, Lzer, Linf)", start=1.0)
    phi_par = Variable("rad", "atan(Inom/Ipar), the unknown Ipar is solved for", start=1.0)

    def validate(self):
        if not self.Linf < self.Lnom < self.Lzer:
            raise ParameterError(f"SaturatingInductor {self.name!r}: the inductances must fall with "
                                 f"the current, Linf ({self.Linf}) < Lnom ({self.Lnom}) < Lzer ({self.Lzer})")

    def equations(self):
        z = self.i / self.Ipar
        near_zero = sp.Abs(z) < 1e-12           # atan(z)/z = 1 − z²/3 + ...: 1 to rounding
        safe_z = sp.Piecewise((1, near_zero), (z, True))
        ratio = (self.Lnom - self.Linf) / (self.Lzer - self.Linf)
        return super().equations() + [
            # With phi = atan(Inom/Ipar) in (0, π/2) the condition on Ipar reads phi/tan(phi) =
            # ratio: an unknown of scale 1 whatever the currents, which Newton reaches from the
            # start phi = 1 (Ipar itself would start at 0/0, or far from Inom).
            sp.Eq(ratio * sp.sin(self.phi_par), self.phi_par * sp.cos(self.phi_par)),
            sp.Eq(self.Ipar * sp.sin(self.phi_par), self.Inom * sp.cos(self.phi_par)),
            sp.Eq(self.Psi, self.Linf * self.i + (self.Lzer - self.Linf) * self.Ipar * sp.atan(z)),
            sp.Eq(self.Lact, self.Linf + (self.Lzer - self.Linf)
                  * sp.Piecewise((1, near_zero), (sp.atan(safe_z) / safe_z, True))),
            sp.Eq(self.v, der(self.Psi))]

    def initial(self):
        return {self.i: self.i0}

    def energy(self):
        return (self.Linf * self.i**2 + (self.Lzer - self.Linf) * self.Ipar**2
                * sp.log(1 + (self.i / self.Ipar)**2)) / 2


class Transformer(TwoPort):
    """Transformer of two coupled windings (the MSL's Basic.Transformer; Simscape's Mutual
    Inductor)::

        v1 = L1·di1/dt + M·di2/dt,   v2 = M·di1/dt + L2·di2/dt

    with v1 = p1.v − n1.v, i1 from p1 to n1 (v2, i2 likewise); currents entering both p pins
    add flux. The windings have no galvanic connection: each side needs its own reference.

    Parameters: L1, L2 [H] primary and secondary inductance (> 0); M [H] coupling inductance,
    |M| < √(L1·L2) (at |M| = √(L1·L2) the coupling is perfect and the inductance matrix
    singular: use IdealTransformer with an Inductor across it); i1_0, i2_0 [A] initial currents.
    States: i1, i2. Stores L1·i1²/2 + M·i1·i2 + L2·i2²/2.
    """

    L1 = Parameter(unit="H", description="primary inductance", positive=True)
    L2 = Parameter(unit="H", description="secondary inductance", positive=True)
    M = Parameter(unit="H", description="coupling inductance")
    i1_0 = Parameter(0.0, unit="A", description="initial primary current")
    i2_0 = Parameter(0.0, unit="A", description="initial secondary current")
    i1 = Variable("A", "primary current from p1 to n1", nominal=CURRENT_NOMINAL)
    i2 = Variable("A", "secondary current from p2 to n2", nominal=CURRENT_NOMINAL)

    def validate(self):
        if not abs(self.M) < math.sqrt(self.L1 * self.L2):
            raise ParameterError(f"Transformer {self.name!r}: |M| ({self.M}) must be below √(L1·L2) "
                                 f"({math.sqrt(self.L1 * self.L2)}); a perfectly coupled pair is an "
                                 "IdealTransformer with an Inductor across it")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.v1, self.L1 * der(self.i1) + self.M * der(self.i2)),
            sp.Eq(self.v2, self.M * der(self.i1) + self.L2 * der(self.i2))]

    def initial(self):
        return {self.i1: self.i1_0, self.i2: self.i2_0}

    def energy(self):
        return self.L1 * self.i1**2 / 2 + self.M * self.i1 * self.i2 + self.L2 * self.i2**2 / 2
