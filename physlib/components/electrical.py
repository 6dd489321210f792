"""Electrical components (analog, lumped).

Sign convention: the current of a port is positive *into* the component; a one-port's ``v`` is
``p.v - n.v`` and its ``i`` flows from ``p`` through the component to ``n``. The cross-domain
parts at the end (EMF, HeatingResistor) follow the rotational and thermal conventions on
their other ports.
"""

from ..core import Component, Input, Mode, Output, Parameter, ParameterError, Port, Variable, der
from ..core.lazy import lazy_module
from ..domains import electrical, rotational, thermal
from .rotational import Supported

sp = lazy_module("sympy")     # imported when equations are derived

BOLTZMANN = 1.380649e-23      # J/K
ELEMENTARY_CHARGE = 1.602176634e-19  # C


# --- partial bases ----------------------------------------------------------------------------

class TwoPin(Component):
    """Two pins ``p``, ``n`` and the voltage between them.

    Variables: v [V] = p.v − n.v.
    """

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Variable("V", "voltage drop p.v - n.v")

    def equations(self):
        return [sp.Eq(self.v, self.p.v - self.n.v)]


class OnePort(TwoPin):
    """A two-pin whose pin currents balance: the current ``i`` enters ``p`` and leaves ``n``.

    Variables: v [V], i [A] (from p to n through the component).
    """

    i = Variable("A", "current from p to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]


# --- basic ----------------------------------------------------------------------------------

class Ground(Component):
    """Reference potential: ``p.v = 0``. Every circuit needs one."""

    p = Port(electrical, "ground pin")
    is_reference = True

    def equations(self):
        return [sp.Eq(self.p.v, 0)]


class Resistor(OnePort):
    """Ideal linear resistor: v = R·i.

    Parameters: R [Ohm] resistance (> 0).
    Dissipates v·i.
    """

    R = Parameter(unit="Ohm", description="resistance", positive=True)

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

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.L * der(self.i))]

    def initial(self):
        return {self.i: self.i0}

    def energy(self):
        return self.L * self.i**2 / 2


class Diode(OnePort):
    """Shockley diode with series resistance: i = Is·(exp(vd/(n·Vt)) − 1), v = vd + Rs·i, Vt = k·T/q.

    Parameters: Is [A] saturation current; N [1] emission coefficient (also accepted as
    ``n=``, SPICE's name clashing with the pin ``n``); Rs [Ohm] series resistance (>= 0);
    T [K] junction temperature.
    Variables: vd [V] junction voltage.
    Above vd = 40·n·Vt the exponential continues as its tangent, so Newton steps from a poor
    guess cannot overflow; real diodes never get there.
    Noise: shot noise 2·q·|i| [A²/Hz] in parallel (the junction's, not thermal: a diode does
    not dissipate as a resistor at equilibrium with its temperature), and flicker noise
    KF·|i|^AF/f (SPICE's parameters; KF = 0 by default: none).
    """

    noise_kind = "shot"

    Is = Parameter(1e-14, unit="A", description="saturation current", positive=True)
    N = Parameter(1.0, unit="1", description="emission coefficient", positive=True)
    Rs = Parameter(0.0, unit="Ohm", description="series resistance", nonnegative=True)
    T = Parameter(300.15, unit="K", description="junction temperature", positive=True)
    KF = Parameter(0.0, unit="A", description="flicker noise coefficient (KF·|i|^AF/f [A²/Hz])",
                   nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise current exponent", positive=True)
    vd = Variable("V", "junction voltage")

    EXP_LIMIT = 40.0

    def __init__(self, name=None, *positional, **values):
        if "n" in values:
            if "N" in values:
                raise ParameterError(f"Diode {name!r}: give the emission coefficient once (n or N)")
            values["N"] = values.pop("n")
        super().__init__(name, *positional, **values)   # positional values: an error naming them

    def equations(self):
        x = self.vd / (self.N * BOLTZMANN * self.T / ELEMENTARY_CHARGE)
        limit = self.EXP_LIMIT
        safe_exp = sp.Piecewise((sp.exp(x), x < limit), (sp.exp(limit) * (1 + x - limit), True))
        return super().equations() + [
            sp.Eq(self.v, self.vd + self.Rs * self.i),
            sp.Eq(self.i, self.Is * (safe_exp - 1)),
        ]

    def dissipation(self):
        return self.v, self.i


# --- ideal ----------------------------------------------------------------------------------

class IdealTransformer(Component):
    """Ideal transformer: v1 = ratio·v2, i2 = −ratio·i1 (no losses, no storage).

    Parameters: ratio [1] turns ratio n1/n2 (!= 0).
    Primary side p1/n1, secondary side p2/n2; each side needs its own ground.
    """

    p1 = Port(electrical, "primary positive pin")
    n1 = Port(electrical, "primary negative pin")
    p2 = Port(electrical, "secondary positive pin")
    n2 = Port(electrical, "secondary negative pin")
    ratio = Parameter(1.0, unit="1", description="turns ratio n1/n2", nonzero=True)

    def equations(self):
        v1, v2 = self.p1.v - self.n1.v, self.p2.v - self.n2.v
        return [sp.Eq(self.p1.i + self.n1.i, 0), sp.Eq(self.p2.i + self.n2.i, 0),
                sp.Eq(v1, self.ratio * v2), sp.Eq(self.p2.i, -self.ratio * self.p1.i)]

    def port_groups(self):
        return [("p1", "n1"), ("p2", "n2")]


class IdealOpAmp(Component):
    """Ideal operational amplifier (nullor): in_p.v = in_n.v, no input currents, and the
    output delivers whatever current the circuit needs (referred to ground)."""

    in_p = Port(electrical, "non-inverting input")
    in_n = Port(electrical, "inverting input")
    out = Port(electrical, "output")

    def equations(self):
        return [sp.Eq(self.in_p.v, self.in_n.v), sp.Eq(self.in_p.i, 0), sp.Eq(self.in_n.i, 0)]


# --- sources ----------------------------------------------------------------------------------

class VoltageSource(OnePort):
    """Ideal voltage source: v = V.

    Inputs: V [V] a number, a waveform (``V=Step(...)``) or a connected signal.
    """

    V = Input("V", "source voltage")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.V)]


class CurrentSource(OnePort):
    """Ideal current source: i = I, flowing from p through the source to n.

    Inputs: I [A] a number, a waveform or a connected signal.
    """

    I = Input("A", "source current")  # noqa: E741

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.I)]


# --- sensors ----------------------------------------------------------------------------------

class VoltageSensor(Component):
    """Ideal voltmeter: output v = p.v − n.v, no current drawn."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Output("V", "measured voltage")

    def equations(self):
        return [sp.Eq(self.p.i, 0), sp.Eq(self.n.i, 0), sp.Eq(self.v, self.p.v - self.n.v)]


class CurrentSensor(Component):
    """Ideal ammeter in series: output i = current from p to n, no voltage drop."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    i = Output("A", "measured current")

    def equations(self):
        return [sp.Eq(self.p.v, self.n.v), sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]


# --- cross-domain -----------------------------------------------------------------------------

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


# --- switching ------------------------------------------------------------------------------

class _IdealSwitching(OnePort):
    """The curve-parameter form of an ideal switching element (the Modelica Standard Library's
    ideal diode and switches): one variable s runs along the characteristic,

        closed/conducting:  v = Ron·s·(1 A),  i = s·(1 A)          (s is the current)
        open/blocking:      v = s·(1 V),      i = Goff·s·(1 V)     (s is the voltage)

    plus the knee voltage Vknee where a subclass has one. In every mode one of the two
    coefficients of s is 1, so the equations stay regular with Ron = 0 or Goff = 0 (an ideal
    short or an ideal open), which a plain ``v = Ron·i`` / ``i = Goff·v`` pair does not.
    """

    Ron = Parameter(1e-5, unit="Ohm", description="closed (forward) resistance", nonnegative=True)
    Goff = Parameter(1e-5, unit="S", description="open (blocking) conductance", nonnegative=True)
    s = Variable("1", "curve parameter: current [A] when closed, voltage [V] when open")

    def _closed(self):
        raise NotImplementedError

    def _knee(self):
        return 0

    def equations(self):
        closed = self._closed()
        return super().equations() + [
            sp.Eq(self.v, self.s * sp.Piecewise((self.Ron, closed), (1, True)) + self._knee()),
            sp.Eq(self.i, self.s * sp.Piecewise((1, closed), (self.Goff, True)) + self.Goff * self._knee()),
        ]

    def dissipation(self):
        return self.v, self.i


class Switch(_IdealSwitching):
    """Switch closed while its control signal exceeds 0.5 (v = Ron·i closed, i = Goff·v open).

    Parameters: Ron [Ohm] closed resistance (>= 0, default 1e-5; 0 is an ideal short);
    Goff [S] open conductance (>= 0, default 1e-5; 0 is an ideal open). The defaults are the
    Modelica Standard Library's: small enough for power circuits, large enough that a node
    between an open switch and an off diode is never left floating.
    Inputs: control [1] closes the switch above 0.5.
    Modes: closed = 1 closed, 0 open.
    """

    control = Input("1", "closes the switch above 0.5")
    closed = Mode({"open": 0, "closed": 1}, start="open", description="switch position")

    def _closed(self):
        return sp.Eq(self.closed, 1)

    def guards(self):
        return [self.control - 0.5]

    def transition(self, v, fired):
        if fired[0]:        # the control just crossed 0.5 (it may sit exactly on it now)
            return {"closed": 1 - v["pre(closed)"]}
        return {"closed": int(v["control"] > 0.5)}


class IdealDiode(_IdealSwitching):
    """Ideal diode: conducting (v = Vknee + Ron·i) while current flows forward, blocking
    (i = Goff·v) while the voltage is below the knee.

    Parameters: Ron [Ohm] forward resistance (>= 0, default 1e-5); Goff [S] blocking
    conductance (>= 0, default 1e-5); Vknee [V] forward voltage (>= 0, default 0).
    Modes: on = 1 conducting, 0 blocking. It switches where the curve parameter s crosses
    zero: the current while conducting, the voltage above the knee while blocking.
    """

    Vknee = Parameter(0.0, unit="V", description="forward (knee) voltage", nonnegative=True)
    on = Mode({"blocking": 0, "conducting": 1}, start="blocking", description="diode state")

    def _closed(self):
        return sp.Eq(self.on, 1)

    def _knee(self):
        return self.Vknee

    def guards(self):
        return [self.s]

    def transition(self, v, fired):
        if fired[0]:
            # s just crossed zero: the diode switches once. Solved again in the new mode, s may
            # come out a rounding error on the old side (a turn-off located 1e-10 s past the
            # current's zero leaves a blocking voltage of ±1e-12 V); switching back on that
            # would be chattering within one instant.
            return {"on": 1 - int(v["pre(on)"])}
        if v["on"] and v["s"] < 0:
            return {"on": 0}
        if not v["on"] and v["s"] > 0:
            return {"on": 1}
        return {}


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


class SensingVoltageSource(VoltageSource):
    """A :class:`VoltageSource` that also outputs its current as a signal ``i_sense`` [A] (from
    p through the source to n), to control a :class:`CCCS` or :class:`CCVS` (SPICE's F and H
    name such a source)."""

    i_sense = Output("A", "source current, from p through the source to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.i_sense, self.i)]
