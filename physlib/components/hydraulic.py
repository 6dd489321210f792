"""Hydraulics: lumped networks of (slightly compressible) liquid.

Sign convention: a port's volume flow ``q`` is positive *into* the component. A two-port's
``dp`` is ``port_a.p − port_b.p`` and its ``q`` flows from ``port_a`` through the component to
``port_b``. Pressures are absolute or gauge as the user chooses: nothing here depends on the
zero of pressure except FluidCapacitance's stored energy, which counts from p = 0.
"""

from ..core import Component, Input, Mode, Output, Parameter, Port, Variable, der
from ..core.lazy import lazy_module
from ..core.logic import all_of, any_of, where
from ..domains import hydraulic, rotational, translational

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort", "FixedPressure", "PressureSource", "FlowSource", "LaminarResistance",
           "Orifice", "FluidCapacitance", "Inertance", "CheckValve", "Pump", "Cylinder",
           "PressureSensor", "FlowSensor"]


# --- partial base -----------------------------------------------------------------------------

class TwoPort(Component):
    """Two ports whose flows balance: the flow ``q`` enters ``port_a`` and leaves ``port_b``.

    Variables: dp [Pa] = port_a.p − port_b.p; q [m3/s] from port_a to port_b.
    """

    port_a = Port(hydraulic, "port a (inlet for positive q)")
    port_b = Port(hydraulic, "port b (outlet for positive q)")
    dp = Variable("Pa", "pressure drop port_a.p - port_b.p")
    q = Variable("m3/s", "volume flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.dp, self.port_a.p - self.port_b.p),
                sp.Eq(self.port_a.q + self.port_b.q, 0), sp.Eq(self.q, self.port_a.q)]


# --- sources ----------------------------------------------------------------------------------

class FixedPressure(Component):
    """Reservoir at constant pressure: port_a.p = p, whatever flow that takes.

    Parameters: p [Pa] pressure.
    """

    port_a = Port(hydraulic, "reservoir port")
    p = Parameter(0.0, unit="Pa", description="reservoir pressure")

    def equations(self):
        return [sp.Eq(self.port_a.p, self.p)]


class PressureSource(TwoPort):
    """Ideal pressure source: raises the pressure from port_a to port_b by P (dp = −P).

    Inputs: P [Pa] a number, a waveform or a connected signal.
    """

    P = Input("Pa", "pressure rise port_b.p - port_a.p")

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, -self.P)]


class FlowSource(TwoPort):
    """Ideal flow source: q = Q from port_a through the source to port_b.

    Inputs: Q [m3/s] a number, a waveform or a connected signal.
    """

    Q = Input("m3/s", "volume flow")

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.Q)]


# --- passive elements -------------------------------------------------------------------------

class LaminarResistance(TwoPort):
    """Laminar (Hagen–Poiseuille) resistance: dp = R·q.

    Parameters: R [Pa.s/m3] hydraulic resistance (> 0).
    Dissipates dp·q.
    """

    R = Parameter(unit="Pa.s/m3", description="hydraulic resistance", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, self.R * self.q)]

    def dissipation(self):
        return self.dp, self.q


class Orifice(TwoPort):
    """Sharp-edged orifice: q = Cd·A·√(2·|dp|/rho)·sign(dp) above the transition pressure.

    Below |dp| = dp_tr the flow follows the odd cubic q = q_tr·(5x − x³)/4 with x = dp/dp_tr and
    q_tr the turbulent flow at dp_tr: it matches the turbulent law's value and slope at
    ±dp_tr and has a finite slope at dp = 0, where the square root's is infinite.

    Parameters: Cd [1] discharge coefficient (> 0); A [m2] opening area (> 0);
    rho [kg/m3] density (> 0); dp_tr [Pa] transition pressure (> 0).
    Dissipates dp·q.
    """

    Cd = Parameter(0.7, unit="1", description="discharge coefficient", positive=True)
    A = Parameter(unit="m2", description="opening area", positive=True)
    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    dp_tr = Parameter(1e3, unit="Pa", description="laminar/turbulent transition pressure",
                      positive=True)

    def equations(self):
        k = self.Cd * self.A * sp.sqrt(2 / self.rho)
        x = self.dp / self.dp_tr
        laminar = k * sp.sqrt(self.dp_tr) * (5 * x - x**3) / 4
        turbulent = k * sp.sqrt(sp.Abs(self.dp)) * sp.sign(self.dp)
        return super().equations() + [
            sp.Eq(self.q, sp.Piecewise((laminar, sp.Abs(self.dp) < self.dp_tr), (turbulent, True)))]

    def dissipation(self):
        return self.dp, self.q


class FluidCapacitance(Component):
    """Volume of compressible liquid: (V/beta)·dp/dt = port_a.q.

    Parameters: V [m3] volume (> 0); beta [Pa] bulk modulus (> 0); p0 [Pa] initial pressure.
    States: p [Pa]. Stores (V/beta)·p²/2.
    """

    port_a = Port(hydraulic, "port")
    V = Parameter(unit="m3", description="volume", positive=True)
    beta = Parameter(1.5e9, unit="Pa", description="bulk modulus", positive=True)
    p0 = Parameter(0.0, unit="Pa", description="initial pressure")
    p = Variable("Pa", "pressure")

    def equations(self):
        return [sp.Eq(self.p, self.port_a.p), sp.Eq(self.V / self.beta * der(self.p), self.port_a.q)]

    def initial(self):
        return {self.p: self.p0}

    def energy(self):
        return self.V / self.beta * self.p**2 / 2


class Inertance(TwoPort):
    """Inertia of the liquid in a pipe: dp = I·dq/dt with I = rho·L/A.

    Parameters: rho [kg/m3] density (> 0); L [m] pipe length (> 0); A [m2] cross-section (> 0);
    q0 [m3/s] initial flow.
    States: q [m3/s]. Stores I·q²/2.
    """

    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    L = Parameter(unit="m", description="pipe length", positive=True)
    A = Parameter(unit="m2", description="pipe cross-section", positive=True)
    q0 = Parameter(0.0, unit="m3/s", description="initial flow")

    def equations(self):
        return super().equations() + [sp.Eq(self.dp, self.rho * self.L / self.A * der(self.q))]

    def initial(self):
        return {self.q: self.q0}

    def energy(self):
        return self.rho * self.L / self.A * self.q**2 / 2


class CheckValve(TwoPort):
    """Ideal check (non-return) valve, the hydraulic ideal diode: it lets the liquid flow from
    port_a to port_b only.

    Open: dp = p_crack + R_open·q; closed: q = G_closed·dp. A closed valve opens when dp rises
    above the cracking pressure p_crack; an open one closes when its flow would reverse
    (q < 0, i.e. dp falls below p_crack).

    Parameters: R_open [Pa.s/m3] open resistance (>= 0; 0 is ideal); G_closed [m3/(s.Pa)]
    closed leakage conductance (>= 0); p_crack [Pa] cracking pressure (>= 0).
    Modes: open = 1 open, 0 closed. Dissipates dp·q.
    """

    CLOSED, OPEN = 0, 1

    R_open = Parameter(0.0, unit="Pa.s/m3", description="open resistance", nonnegative=True)
    G_closed = Parameter(0.0, unit="m3/(s.Pa)", description="closed leakage conductance",
                         nonnegative=True)
    p_crack = Parameter(0.0, unit="Pa", description="cracking pressure", nonnegative=True)
    open = Mode({"closed": 0, "open": 1}, start="closed", description="valve state")

    def equations(self):
        open_law = self.dp - self.p_crack - self.R_open * self.q
        law = sp.Piecewise((open_law, sp.Eq(self.open, self.OPEN)),
                           (self.q - self.G_closed * self.dp, True))
        return super().equations() + [law]

    def guards(self):
        return [sp.Piecewise((self.q, sp.Eq(self.open, self.OPEN)), (self.dp - self.p_crack, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A guard that fired counts even when the located point sits exactly on zero, but only
        # in the mode the event started in (so that a valve never flips back and forth).
        state, pre, q, dp, crack = v["open"], v["pre(open)"], v["q"], v["dp"], v["p_crack"]
        closes = any_of(q < 0, all_of(fired[0], pre == self.OPEN, q <= 0))
        opens = any_of(dp > crack, all_of(fired[0], pre == self.CLOSED, dp >= crack))
        return {"open": where(state == self.OPEN, where(closes, self.CLOSED, state),
                              where(opens, self.OPEN, state))}

    def dissipation(self):
        return self.dp, self.q


# --- machines -----------------------------------------------------------------------------------

class Pump(TwoPort):
    """Ideal displacement pump (or motor): q = D·w from port_a (inlet) to port_b (outlet),
    shaft torque flange.tau = D·(port_b.p − port_a.p); no losses, housing fixed.

    Parameters: D [m3/rad] displacement per radian (> 0).
    """

    flange = Port(rotational, "shaft")
    D = Parameter(unit="m3/rad", description="displacement per radian", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.D * self.flange.w),
                                      sp.Eq(self.flange.tau, -self.D * self.dp)]


class Cylinder(TwoPort):
    """Ideal double-acting cylinder with equal areas: q = A·v, rod force A·dp; housing fixed.

    Pressure at port_a pushes the rod (``flange``) forward; port_b is the opposite chamber.
    Its force on the load is A·dp, so flange.f = −A·dp.
    Parameters: A [m2] piston area (> 0).
    """

    flange = Port(translational, "piston rod")
    A = Parameter(unit="m2", description="piston area", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.q, self.A * self.flange.v),
                                      sp.Eq(self.flange.f, -self.A * self.dp)]


# --- sensors ----------------------------------------------------------------------------------

class PressureSensor(Component):
    """Ideal pressure sensor: output p = port_a.p, no flow drawn."""

    port_a = Port(hydraulic, "measured port")
    p = Output("Pa", "pressure")

    def equations(self):
        return [sp.Eq(self.p, self.port_a.p), sp.Eq(self.port_a.q, 0)]


class FlowSensor(Component):
    """Ideal flow sensor in series: output q = flow from port_a to port_b, no pressure drop."""

    port_a = Port(hydraulic, "inlet")
    port_b = Port(hydraulic, "outlet")
    q = Output("m3/s", "volume flow from port_a to port_b")

    def equations(self):
        return [sp.Eq(self.port_a.p, self.port_b.p), sp.Eq(self.port_a.q + self.port_b.q, 0),
                sp.Eq(self.q, self.port_a.q)]
