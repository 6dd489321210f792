"""Ideal electrical elements, as the Modelica Standard Library's Analog.Ideal: the ideal
transformer and operational amplifier, and the switching elements, ideal (Switch, IdealDiode,
the thyristors and the two-way switch: the MSL's curve-parameter form) and with hysteresis
(ngspice's SW and CSW switches)."""
from ...constants import unit_current, unit_voltage
from ...core import Component, Input, Mode, Parameter, Port, Variable
from ...core.lazy import lazy_module
from ...core.logic import all_of, negate, switched_once, where
from ...domains import electrical
from .interfaces import OnePort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["IdealTransformer", "IdealOpAmp", "Switch", "IdealDiode", "VoltageControlledSwitch",
           "CurrentControlledSwitch", "IdealThyristor", "IdealGTOThyristor", "IdealTwoWaySwitch",
           "IdealCommutingSwitch"]


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
    s = Variable("1", "curve parameter: the current in A when closed, the voltage in V when open")

    def _closed(self):
        raise NotImplementedError

    def _knee(self):
        return 0

    def equations(self):
        closed = self._closed()
        return super().equations() + [
            sp.Eq(self.v, self.s * unit_current * sp.Piecewise((self.Ron, closed), (1, True)) + self._knee()),
            sp.Eq(self.i, self.s * unit_voltage * sp.Piecewise((1, closed), (self.Goff, True))
                  + self.Goff * self._knee()),
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
        return {"closed": _follows_control(v, fired)}


def _follows_control(v, fired):
    """The position (1 above 0.5) of a switch whose first guard is control − 0.5, at an event.
    Written with physlib.core.logic so that it also compiles to C (see Component.transition).
    A fired guard: the control just crossed 0.5 (it may sit exactly on it now)."""
    return switched_once(fired[0], v["closed"], v["pre(closed)"], v["control"] - 0.5,
                         where(v["control"] > 0.5, 1, 0))


class IdealTwoWaySwitch(Component):
    """Ideal two-way (commuting) switch (the MSL's Ideal.IdealTwoWaySwitch, formerly
    IdealCommutingSwitch; Simscape's SPDT Switch): p connected to n2 while the control exceeds
    0.5, to n1 otherwise. Each path is the curve-parameter form of Switch (s1: p–n1, s2: p–n2)::

        p.v − n1.v = s1·(1 if to_n2 else Ron),   n1.i = −s1·(Goff if to_n2 else 1)
        p.v − n2.v = s2·(Ron if to_n2 else 1),   n2.i = −s2·(1 if to_n2 else Goff)

    and p.i + n1.i + n2.i = 0. The open path leaks Goff.

    Parameters: Ron [Ohm] closed resistance (>= 0, default 1e-5); Goff [S] open conductance
    (>= 0, default 1e-5). Inputs: control [1] (p–n2 above 0.5). Modes: closed = 1 p–n2,
    0 p–n1. Dissipates p.v·p.i + n1.v·n1.i + n2.v·n2.i (three pins: not a noise source).
    """

    p = Port(electrical, "common pin")
    n1 = Port(electrical, "pin connected while the control is low")
    n2 = Port(electrical, "pin connected while the control is high")
    control = Input("1", "connects p to n2 above 0.5, to n1 below")
    Ron = Parameter(1e-5, unit="Ohm", description="closed resistance", nonnegative=True)
    Goff = Parameter(1e-5, unit="S", description="open conductance", nonnegative=True)
    s1 = Variable("1", "curve parameter of the path p–n1")
    s2 = Variable("1", "curve parameter of the path p–n2")
    closed = Mode({"to_n1": 0, "to_n2": 1}, start="to_n1", description="switch position")

    def equations(self):
        to_n2 = sp.Eq(self.closed, 1)
        return [sp.Eq(self.p.i + self.n1.i + self.n2.i, 0),
                sp.Eq(self.p.v - self.n1.v, self.s1 * unit_current * sp.Piecewise((1, to_n2), (self.Ron, True))),
                sp.Eq(self.n1.i, -self.s1 * unit_voltage * sp.Piecewise((self.Goff, to_n2), (1, True))),
                sp.Eq(self.p.v - self.n2.v, self.s2 * unit_current * sp.Piecewise((self.Ron, to_n2), (1, True))),
                sp.Eq(self.n2.i, -self.s2 * unit_voltage * sp.Piecewise((1, to_n2), (self.Goff, True)))]

    def guards(self):
        return [self.control - 0.5]

    def transition(self, v, fired):
        return {"closed": _follows_control(v, fired)}

    def dissipation(self):
        return self.p.v * self.p.i + self.n1.v * self.n1.i + self.n2.v * self.n2.i, sp.Integer(1)


class IdealCommutingSwitch(IdealTwoWaySwitch):
    """The MSL 3.2's name of :class:`IdealTwoWaySwitch` (Ideal.IdealCommutingSwitch, renamed in
    MSL 4.0), the same element."""


class _IdealSemiconductor(_IdealSwitching):
    """The MSL's IdealSemiconductor: the curve-parameter element with a knee voltage, conducting
    (v = Vknee + Ron·s, i = s) or blocking (v = Vknee + s, i = Goff·(s + Vknee)); s crosses
    zero where it switches, the current while conducting, the voltage above the knee while
    blocking."""

    Vknee = Parameter(0.0, unit="V", description="forward (knee) voltage", nonnegative=True)
    on = Mode({"blocking": 0, "conducting": 1}, start="blocking", description="conduction state")

    def _closed(self):
        return sp.Eq(self.on, 1)

    def _knee(self):
        return self.Vknee

    def guards(self):
        return [self.s]


class IdealDiode(_IdealSemiconductor):
    """Ideal diode: conducting (v = Vknee + Ron·i) while current flows forward, blocking
    (i = Goff·v) while the voltage is below the knee.

    Parameters: Ron [Ohm] forward resistance (>= 0, default 1e-5); Goff [S] blocking
    conductance (>= 0, default 1e-5); Vknee [V] forward voltage (>= 0, default 0).
    Modes: on = 1 conducting, 0 blocking. It switches where the curve parameter s crosses
    zero: the current while conducting, the voltage above the knee while blocking.
    """

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard: s just crossed zero, and the diode switches once. Solved again in the
        # new mode, s may come out a rounding error on the old side (a turn-off located 1e-10 s
        # past the current's zero leaves a blocking voltage of ±1e-12 V); switching back on
        # that would be chattering within one instant.
        on, s = v["on"], v["s"]
        follows_s = where(all_of(on != 0, s < 0), 0, where(all_of(on == 0, s > 0), 1, on))
        return {"on": switched_once(fired[0], on, v["pre(on)"], s, follows_s)}


class _Fired(_IdealSemiconductor):
    """An ideal semiconductor with a gate: the input ``fire`` (on above 0.5) lets it conduct
    once the voltage is above the knee; what it takes to turn off is the subclass's."""

    fire = Input("1", "gate: fires above 0.5")

    def guards(self):
        return super().guards() + [self.fire - 0.5]

    def _stays_off(self, on, fire):
        raise NotImplementedError

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # Conducting, it turns off when s (the current) falls below zero; blocking, it turns on
        # when fired with s (the voltage above the knee) positive. The s guard switches once,
        # as the diode's; a mode changed earlier in this event iteration is kept (turned on by
        # the gate into a current that starts at zero, s may come out −1e-17).
        on, s, pre = v["on"], v["s"], v["pre(on)"]
        fire = v["fire"] > 0.5
        follows = where(on != 0, where(s < 0, 0, 1), where(all_of(fire, s > 0), 1, 0))
        new = where(on != pre, on, switched_once(fired[0], on, pre, s, follows))
        return {"on": where(self._stays_off(on, fire), 0, new)}


class IdealThyristor(_Fired):
    """Ideal thyristor (the MSL's Ideal.IdealThyristor; Simscape's Thyristor, ideal): blocking
    until fired (fire > 0.5) with its voltage above the knee, then conducting (v = Vknee +
    Ron·i) until its current falls below zero, whatever the gate does meanwhile (the MSL's
    off = s < 0 or pre(off) and not fire).

    Parameters: Ron [Ohm] (>= 0, default 1e-5); Goff [S] (>= 0, default 1e-5); Vknee [V]
    (>= 0, default 0). Inputs: fire [1]. Modes: on = 1 conducting, 0 blocking.
    """

    def _stays_off(self, on, fire):
        return all_of(on == 0, negate(fire))


class IdealGTOThyristor(_Fired):
    """Ideal gate-turn-off thyristor (the MSL's Ideal.IdealGTOThyristor; Simscape's GTO,
    ideal): conducting while fired (fire > 0.5) with a forward current, blocking as soon as the
    gate goes low or the current falls below zero (the MSL's off = s < 0 or not fire).

    Parameters: Ron [Ohm] (>= 0, default 1e-5); Goff [S] (>= 0, default 1e-5); Vknee [V]
    (>= 0, default 0). Inputs: fire [1]. Modes: on = 1 conducting, 0 blocking.
    """

    def _stays_off(self, on, fire):
        return negate(fire)


class _HysteresisSwitch(OnePort):
    """A resistor of Ron (closed) or Roff (open) whose position follows a control quantity
    with hysteresis, as ngspice's SW and CSW models (its SWload/CSWload): it closes when the
    control rises above threshold + hysteresis, opens when it falls below threshold −
    hysteresis, and keeps its position in between. With hysteresis 0 it is closed above the
    threshold and open below. Subclasses give the control (:meth:`_control`) and the names of
    threshold and hysteresis.

    Parameters: Ron, Roff [Ohm] closed and open resistance (> 0; ngspice: 1 and 1/GMIN).
    Modes: closed = 1 closed, 0 open; it starts open (ngspice without ``on``) and, from the
    start values, closes at once if the control is above the upper threshold.
    """

    Ron = Parameter(1.0, unit="Ohm", description="closed resistance", positive=True)
    Roff = Parameter(1e12, unit="Ohm", description="open resistance", positive=True)
    closed = Mode({"open": 0, "closed": 1}, start="open", description="switch position")
    THRESHOLD, HYSTERESIS = "", ""

    def _control(self):
        raise NotImplementedError

    def _levels(self, values=None):
        """(upper, lower) thresholds: threshold ± hysteresis."""
        get = (lambda n: getattr(self, n)) if values is None else values.__getitem__
        threshold, hysteresis = get(self.THRESHOLD), get(self.HYSTERESIS)
        return threshold + hysteresis, threshold - hysteresis

    def equations(self):
        conductance = sp.Piecewise((1 / self.Ron, sp.Eq(self.closed, 1)), (1 / self.Roff, True))
        return super().equations() + [sp.Eq(self.i, conductance * self.v)]

    def guards(self):
        upper, lower = self._levels()
        return [self._control() - upper, self._control() - lower]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        upper, lower = self._levels(v)
        control, was = v[self.CONTROL], v["pre(closed)"]
        rose = all_of(fired[0], was == 0)     # rose through the upper threshold (may sit on it)
        fell = all_of(fired[1], was != 0)     # fell through the lower threshold
        beyond = where(control > upper, 1, where(control < lower, 0, v["closed"]))
        return {"closed": where(rose, 1, where(fell, 0, beyond))}

    def dissipation(self):
        return self.v, self.i


class VoltageControlledSwitch(_HysteresisSwitch):
    """Voltage-controlled switch with hysteresis (SPICE's S element with ``.model SW``): closed
    (Ron) once pc.v − nc.v exceeds VT + VH, open (Roff) once it falls below VT − VH. The control
    pins draw no current.

    Parameters: VT [V] threshold; VH [V] hysteresis (>= 0); Ron, Roff [Ohm].
    """

    pc = Port(electrical, "positive control pin")
    nc = Port(electrical, "negative control pin")
    VT = Parameter(0.0, unit="V", description="threshold voltage")
    VH = Parameter(0.0, unit="V", description="hysteresis voltage", nonnegative=True)
    vc = Variable("V", "control voltage pc.v - nc.v")
    THRESHOLD, HYSTERESIS, CONTROL = "VT", "VH", "vc"

    def _control(self):
        return self.vc

    def equations(self):
        return super().equations() + [sp.Eq(self.pc.i, 0), sp.Eq(self.nc.i, 0),
                                      sp.Eq(self.vc, self.pc.v - self.nc.v)]

    def port_groups(self):
        return [("p", "n"), ("pc", "nc")]


class CurrentControlledSwitch(_HysteresisSwitch):
    """Current-controlled switch with hysteresis (SPICE's W element with ``.model CSW``):
    closed (Ron) once the control current ic exceeds IT + IH, open (Roff) once it falls below
    IT − IH; ic is a signal, e.g. the ``i_sense`` output of a :class:`SensingVoltageSource`.

    Parameters: IT [A] threshold; IH [A] hysteresis (>= 0); Ron, Roff [Ohm].
    Inputs: ic [A] control current.
    """

    ic = Input("A", "control current")
    IT = Parameter(0.0, unit="A", description="threshold current")
    IH = Parameter(0.0, unit="A", description="hysteresis current", nonnegative=True)
    THRESHOLD, HYSTERESIS, CONTROL = "IT", "IH", "ic"

    def _control(self):
        return self.ic
