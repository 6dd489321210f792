"""Basic electrical elements, as the Modelica Standard Library's Analog.Basic: ground,
resistors, capacitor, inductors and their coupling, the electromechanical converter (EMF) and
the linear controlled sources (SPICE's E, G, F, H). The cross-domain parts (EMF,
HeatingResistor) follow the rotational and thermal conventions on their other ports."""
from ...core import Component, Input, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import electrical, rotational, thermal
from ...domains.electrical import CURRENT_NOMINAL
from ..rotational.interfaces import Supported
from .interfaces import ConstantsChoice, OnePort, TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Ground", "Resistor", "Capacitor", "Inductor", "MutualInductance", "HeatingResistor", "EMF",
           "VCVS", "VCCS", "CCCS", "CCVS"]


class Ground(Component):
    """Reference potential: ``p.v = 0``. Every circuit needs one."""

    p = Port(electrical, "ground pin")
    is_reference = True

    def equations(self):
        return [sp.Eq(self.p.v, 0)]


class Resistor(OnePort):
    """Ideal linear resistor: v = R·i.

    Parameters: R [Ohm] resistance (> 0); ``constants``: the Boltzmann constant of its thermal
    noise 4kT/R, ``"SI"`` (SI 2019, the default) or ``"ngspice"`` (ngspice-39's, as
    :mod:`physlib.spice` reads a deck).
    Dissipates v·i.
    """

    R = Parameter(unit="Ohm", description="resistance", positive=True)
    constants = ConstantsChoice()

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.R * self.i)]

    def dissipation(self):
        return self.v, self.i


class Capacitor(OnePort):
    """Ideal capacitor: i = C·dv/dt.

    Parameters: C [F] capacitance (> 0); v0 [V] initial voltage.
    States: v. Stores C·v²/2.
    """

    C = Parameter(unit="F", description="capacitance", positive=True)
    v0 = Parameter(0.0, unit="V", description="initial voltage")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.C * der(self.v))]

    def initial(self):
        return {self.v: self.v0}

    def energy(self):
        return self.C * self.v**2 / 2


class Inductor(OnePort):
    """Ideal inductor: v = L·di/dt.

    Parameters: L [H] inductance (> 0); i0 [A] initial current.
    States: i. Stores L·i²/2.
    """

    L = Parameter(unit="H", description="inductance", positive=True)
    i0 = Parameter(0.0, unit="A", description="initial current")
    i = Variable("A", "current from p to n", nominal=CURRENT_NOMINAL)

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.L * der(self.i))]

    def initial(self):
        return {self.i: self.i0}

    def energy(self):
        return self.L * self.i**2 / 2


class MutualInductance(TwoPort):
    """The magnetic coupling of two inductors (SPICE's K element), placed in series with each:
    side 1 (p1, n1) in series with an inductor L1, side 2 (p2, n2) with an inductor L2.

    Equations (i1: current p1 → n1, i2: p2 → n2; each side a one-port)::

        v1 = M·di2/dt,    v2 = M·di1/dt

    so that each winding, its inductor and its side together, is the coupled pair
    v1 = L1·di1/dt + M·di2/dt, v2 = M·di1/dt + L2·di2/dt, the dots on the p pins (currents
    entering both p pins add flux). SPICE gives M = k·√(L1·L2), |k| < 1 for a pair that stores
    energy for every current (|k| = 1 makes the inductance matrix singular). Several couplings
    in series with one inductor build multi-winding transformers.

    Parameters: M [H] mutual inductance (any sign). Stores M·i1·i2 (the pair's energy
    L1·i1²/2 + L2·i2²/2 + M·i1·i2 with the inductors').
    """

    M = Parameter(unit="H", description="mutual inductance")

    def equations(self):
        return super().equations() + [sp.Eq(self.v1, self.M * der(self.i2)),
                                      sp.Eq(self.v2, self.M * der(self.i1))]

    def energy(self):
        return self.M * self.i1 * self.i2


class HeatingResistor(OnePort):
    """Resistor whose resistance follows its temperature: R = R_ref·(1 + alpha·(T − T_ref)),
    v = R·i; its loss v·i leaves through ``heat_port`` (heat_port.Q = −v·i).

    Parameters: R_ref [Ohm] resistance at T_ref (> 0); T_ref [K] reference temperature (> 0);
    alpha [1/K] temperature coefficient.
    Variables: R [Ohm] actual resistance. Dissipates v·i.
    """

    heat_port = Port(thermal, "heat port at the resistor temperature")
    R_ref = Parameter(unit="Ohm", description="resistance at T_ref", positive=True)
    T_ref = Parameter(300.15, unit="K", description="reference temperature", positive=True)
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of resistance")
    R = Variable("Ohm", "actual resistance", start=1.0)

    def equations(self):
        return super().equations() + [
            sp.Eq(self.R, self.R_ref * (1 + self.alpha * (self.heat_port.T - self.T_ref))),
            sp.Eq(self.v, self.R * self.i),
            sp.Eq(self.heat_port.Q, -self.v * self.i)]

    def dissipation(self):
        return self.v, self.i


class EMF(OnePort, Supported):
    """Ideal electromechanical converter (DC machine): v = k·w, flange.tau = −k·i; no losses.

    Parameters: k [N.m/A] transformation coefficient, equal to V.s/rad (!= 0);
    use_support (structural) housing flange (fixed by default).
    Variables: w [rad/s] shaft speed relative to the housing.
    """

    flange = Port(rotational, "shaft")
    k = Parameter(unit="N.m/A", description="transformation coefficient", nonzero=True)
    w = Variable("rad/s", "shaft speed relative to the housing")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.w, self.flange.w - self.support_w()),
            sp.Eq(self.v, self.k * self.w),
            sp.Eq(self.flange.tau, -self.k * self.i),
            *self.support_reaction(self.k * self.i)]


# --- linear controlled sources (SPICE's E, G, F, H) ---------------------------------------------

class _VoltageControlled(OnePort):
    """Output pins p, n (a one-port: v, i) controlled by the voltage between pc and nc, which
    draw no current."""

    pc = Port(electrical, "positive control pin")
    nc = Port(electrical, "negative control pin")

    def equations(self):
        return super().equations() + [sp.Eq(self.pc.i, 0), sp.Eq(self.nc.i, 0)]

    def port_groups(self):
        return [("p", "n"), ("pc", "nc")]


class VCVS(_VoltageControlled):
    """Voltage-controlled voltage source (SPICE's E): v = gain·(pc.v − nc.v).

    Parameters: gain [1] voltage gain.
    """

    gain = Parameter(1.0, unit="1", description="voltage gain")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.gain * (self.pc.v - self.nc.v))]


class VCCS(_VoltageControlled):
    """Voltage-controlled current source (SPICE's G): i = gm·(pc.v − nc.v), flowing from p
    through the source to n.

    Parameters: gm [S] transconductance.
    """

    gm = Parameter(1.0, unit="S", description="transconductance")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.gm * (self.pc.v - self.nc.v))]


class CCCS(OnePort):
    """Current-controlled current source (SPICE's F): i = gain·ic, flowing from p through the
    source to n; ic is a signal, e.g. the ``i_sense`` output of a :class:`SensingVoltageSource`.

    Parameters: gain [1] current gain. Inputs: ic [A] controlling current.
    """

    gain = Parameter(1.0, unit="1", description="current gain")
    ic = Input("A", "controlling current")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.gain * self.ic)]


class CCVS(OnePort):
    """Current-controlled voltage source (SPICE's H): v = r·ic.

    Parameters: r [Ohm] transresistance. Inputs: ic [A] controlling current.
    """

    r = Parameter(1.0, unit="Ohm", description="transresistance")
    ic = Input("A", "controlling current")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.r * self.ic)]
