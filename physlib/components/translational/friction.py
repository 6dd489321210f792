"""Dry friction with stick-slip between a flange and its housing (Brake, SupportFriction, on the
shared model of :mod:`physlib.components.stick_slip`), as the Modelica Standard Library's
Translational.Components."""
from ...core import Input, Mode, Parameter, Variable, der
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import absolute, all_of, any_of, where
from ...core.positions import PositionState
from ..stick_slip import StickSlipFriction, friction_table, table_points
from .interfaces import Supported, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Brake", "SupportFriction", "MassWithStopAndFriction"]


class _HousingFriction(TwoFlange, Supported, StickSlipFriction):
    """Stick-slip friction between a flange and its housing: flange_a and flange_b move
    together, v_rel = flange_a.v − housing velocity, and the friction force
    f = flange_a.f + flange_b.f is what the flanges lose into the housing (the support flange
    takes it, or the fixed housing). Its loss f·v_rel leaves through ``heat_port`` when there
    is one."""

    SLIP, FRICTION = "v_rel", "f"
    rigid_ports = (("flange_a", "flange_b"),)     # the flange runs through

    peak = Parameter(1.0, unit="1", description="static/kinetic friction ratio",
                     check=(lambda v: v >= 1.0, "must be >= 1"))
    v_rel = Variable("m/s", "velocity of the flanges relative to the housing")
    f = Variable("N", "friction force, flange_a.f + flange_b.f")

    def relative_acceleration(self):
        return der(self.flange_a.v - self.support_v())

    def sides(self, v):
        housing = (v["support.v"], v["der(support.v)"]) if self.use_support else (0.0, 0.0)
        return housing, (v["flange_a.v"], v["der(flange_a.v)"])

    def equations(self):
        return [sp.Eq(self.flange_b.v, self.flange_a.v),
                sp.Eq(self.v_rel, self.flange_a.v - self.support_v()),
                sp.Eq(self.f, self.flange_a.f + self.flange_b.f),
                *self.support_reaction(-self.f),
                self.friction_law(),
                *self.slip_heat()]


class Brake(_HousingFriction):
    """Brake between a sliding flange and its housing, with stick-slip (the Modelica Standard
    Library's Translational.Components.Brake; Simscape: Translational Friction driven by a
    normal force).

    The normal force is fn = fn_max·f_normalized. Sliding at velocity v_rel relative to the
    housing, the friction force is f = ±mu(|v_rel|)·cgeo·fn against the motion, mu read from
    the table ``mu_pos`` of (velocity [m/s], mu [1]) rows (linear between rows, through the last
    two beyond them); stuck, the flange holds still relative to the housing as long as the
    force needed stays within peak·mu(0)·cgeo·fn; with fn <= 0 the brake is free.

    Parameters: mu_pos (structural) rows (v >= 0 from 0, mu >= 0); peak [1] static/kinetic
    ratio (>= 1); cgeo [1] geometry constant; fn_max [N] largest normal force;
    use_support (structural) housing flange; use_heat_port (structural) heat port
    (heat_port.Q = −f·v_rel).
    Inputs: f_normalized [1] normalized normal force (0..1).
    Variables: v_rel [m/s]; f [N] friction force, flange_a.f + flange_b.f.
    Modes: mode = −1 sliding backward, 0 stuck, +1 sliding forward, 2 free.
    Dissipates f·v_rel [W].
    """

    mu_pos = Parameter(((0.0, 0.5),), description="(v [m/s], mu [1]) rows of the sliding "
                       "friction coefficient, v from 0 increasing", structural=True)
    cgeo = Parameter(1.0, unit="1", description="geometry constant: friction per normal force",
                     nonnegative=True)
    fn_max = Parameter(unit="N", description="maximum normal force", nonnegative=True)
    f_normalized = Input("1", "normalized normal force (0..1)")

    def validate(self):
        self._values["mu_pos"] = table_points(self, "mu_pos", self.mu_pos)

    def sliding_frictions(self):
        fn = self.fn_max * self.f_normalized
        return (friction_table(self.mu_pos, self.v_rel, speed_unit="m/s") * self.cgeo * fn,
                -friction_table(self.mu_pos, -self.v_rel, speed_unit="m/s") * self.cgeo * fn)

    def breakaway_limits(self, v=None):
        # mu_pos is structural: its first row is a plain number here too
        peak, cgeo, fn = (self.peak, self.cgeo, self.fn_max * self.f_normalized) if v is None else \
            (v["peak"], v["cgeo"], v["fn_max"] * v["f_normalized"])
        limit = peak * self.mu_pos[0][1] * cgeo * fn
        return limit, -limit

    def engagement(self, v=None):
        return self.f_normalized if v is None else v["fn_max"] * v["f_normalized"]


class SupportFriction(_HousingFriction):
    """Coulomb friction between a flange and its housing, with stick-slip (the Modelica
    Standard Library's Translational.Components.SupportFriction; Simscape: Translational
    Friction).

    Sliding at velocity v_rel relative to the housing, the friction force is f = ±f_pos(|v_rel|)
    against the motion, read from the table ``f_pos`` of (velocity [m/s], force [N]) rows
    (linear between rows, through the last two beyond them); stuck, the flange holds still as
    long as the force needed stays within peak·f_pos(0). It is never free.

    Parameters: f_pos (structural) rows (v >= 0 from 0, f >= 0); peak [1] static/kinetic
    ratio (>= 1); use_support, use_heat_port (structural) as :class:`Brake`.
    Variables: v_rel [m/s]; f [N] friction force, flange_a.f + flange_b.f.
    Modes: mode = −1 sliding backward, 0 stuck, +1 sliding forward (2, free, only before the
    first event). Dissipates f·v_rel [W].
    """

    f_pos = Parameter(((0.0, 1.0),), description="(v [m/s], f [N]) rows of the sliding friction "
                      "force, v from 0 increasing", structural=True)

    def validate(self):
        self._values["f_pos"] = table_points(self, "f_pos", self.f_pos)

    def sliding_frictions(self):
        return (friction_table(self.f_pos, self.v_rel, "N", "m/s"),
                -friction_table(self.f_pos, -self.v_rel, "N", "m/s"))

    def breakaway_limits(self, v=None):
        limit = (self.peak if v is None else v["peak"]) * self.f_pos[0][1]
        return limit, -limit


class MassWithStopAndFriction(TwoFlange, StickSlipFriction):
    """Sliding mass with Stribeck friction against the ground and hard stops (the MSL's
    Translational.Components.MassWithStopAndFriction; Simscape: Mass with Translational
    Friction and Translational Hard Stop).

    m·dv/dt = flange_a.f + flange_b.f − f, both flanges at velocity v. Sliding, the friction
    force is f = F_prop·v ± (F_Coulomb + F_Stribeck·exp(−fexp·|v|)) against the motion; stuck,
    v stays 0 while the force needed stays within peak·(F_Coulomb + F_Stribeck) (the MSL's
    factor 1.001 by default). The mass (length L, its centre at s) moves between the stops
    smin + L/2 <= s <= smax − L/2: reaching one it stops dead (a plastic impact, v → 0, as the
    MSL's reinit) and sticks, held there whatever pushes it into the stop, until a force pulls
    it away past the static friction.

    Parameters: m [kg] (> 0); F_prop [N.s/m] viscous friction (>= 0); F_Coulomb [N];
    F_Stribeck [N]; fexp [s/m] Stribeck decay (>= 0); peak [1]; smax, smin [m] stops;
    L [m] length; s0 [m], v0 [m/s] initial position and velocity; use_heat_port (structural):
    heat_port.Q = −f·v.
    States: s [m], v [m/s]. Modes: mode as :class:`Brake`'s (never free after the start);
    stopped = −1 held at the left stop, 0 none, +1 held at the right stop.
    Stores m·v²/2; dissipates f·v [W].
    """

    SLIP, FRICTION = "v", "f"
    position_states = (PositionState("s", "s0", "flange_a"),)
    rigid_ports = (("flange_a", "flange_b"),)

    POSITION_TOL = 1e-9
    """[m] a mass within POSITION_TOL·(1 + |stop|) of a stop is at it (the located event's
    rounding)."""

    peak = Parameter(1.001, unit="1", description="static/kinetic friction ratio (the MSL's 1.001)",
                     check=(lambda v: v >= 1.0, "must be >= 1"))
    m = Parameter(unit="kg", description="mass", positive=True)
    F_prop = Parameter(1.0, unit="N.s/m", description="velocity dependent friction", nonnegative=True)
    F_Coulomb = Parameter(5.0, unit="N", description="Coulomb friction force", nonnegative=True)
    F_Stribeck = Parameter(10.0, unit="N", description="Stribeck effect", nonnegative=True)
    fexp = Parameter(2.0, unit="s/m", description="exponential decay of the Stribeck effect",
                     nonnegative=True)
    smax = Parameter(25.0, unit="m", description="right stop for the right end of the mass")
    smin = Parameter(-25.0, unit="m", description="left stop for the left end of the mass")
    L = Parameter(0.0, unit="m", description="length of the mass", nonnegative=True)
    s0 = Parameter(0.0, unit="m", description="initial position (of the centre)")
    v0 = Parameter(0.0, unit="m/s", description="initial velocity")
    s = Variable("m", "position of the centre")
    v = Variable("m/s", "velocity")
    f = Variable("N", "friction force (positive against forward motion)")
    stopped = Mode({"left": -1, "none": 0, "right": 1}, start="none",
                   description="held at a stop (the MSL's stopped)")

    def validate(self):
        if not self.smin + self.L / 2 <= self.s0 <= self.smax - self.L / 2:
            raise ParameterError(
                f"MassWithStopAndFriction {self.name!r}: the mass (s0 = {self.s0:g} m, L = "
                f"{self.L:g} m) must start between its stops smin = {self.smin:g} m and smax = "
                f"{self.smax:g} m: give s0 in [smin + L/2, smax − L/2]")

    def sliding_frictions(self):
        dry = self.F_Coulomb + self.F_Stribeck * sp.exp(-self.fexp * sp.Abs(self.v))
        return self.F_prop * self.v + dry, self.F_prop * self.v - dry

    def breakaway_limits(self, v=None):
        peak, dry = (self.peak, self.F_Coulomb + self.F_Stribeck) if v is None else \
            (v["peak"], v["F_Coulomb"] + v["F_Stribeck"])
        return peak * dry, -peak * dry

    def relative_acceleration(self):
        return der(self.v)

    def sides(self, v):
        return (0.0, 0.0), (v["v"], v["der(v)"])

    def equations(self):
        return [sp.Eq(self.flange_a.v, self.v), sp.Eq(self.flange_b.v, self.v),
                sp.Eq(der(self.s), self.v),
                sp.Eq(self.m * der(self.v), self.flange_a.f + self.flange_b.f - self.f),
                self.friction_law(), *self.slip_heat()]

    def guards(self):
        return super().guards() + [self.s - (self.smax - self.L / 2),     # reaches the right stop
                                   self.s - (self.smin + self.L / 2)]     # reaches the left stop

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        mode = super().transition(v, fired)["mode"]
        right, left = v["smax"] - v["L"] / 2, v["smin"] + v["L"] / 2
        # At a stop: held there since it hit it (``stopped``: the position after the impact
        # may lie a rounding short of the stop), or reaching it now.
        at_right = any_of(v["stopped"] == 1, fired[2],
                          v["s"] >= right - self.POSITION_TOL * (1 + absolute(right)))
        at_left = any_of(v["stopped"] == -1, fired[3],
                         v["s"] <= left + self.POSITION_TOL * (1 + absolute(left)))
        # It cannot move into a stop: a slide or a break-away towards it is a stop dead.
        into_right = all_of(at_right, any_of(mode == self.FORWARD, v["v"] > 0))
        into_left = all_of(at_left, any_of(mode == self.BACKWARD, v["v"] < 0))
        mode = where(any_of(into_right, into_left), self.STUCK, mode)
        stopped = where(into_right, 1, where(into_left, -1, where(mode == self.STUCK, v["stopped"], 0)))
        return {"mode": mode, "stopped": stopped}

    def initial(self):
        return {self.s: self.s0, self.v: self.v0}

    def energy(self):
        return self.m * self.v**2 / 2
