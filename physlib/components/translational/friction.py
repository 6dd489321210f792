"""Dry friction with stick-slip between a flange and its housing (Brake, SupportFriction, on the
shared model of :mod:`physlib.components.stick_slip`), as the Modelica Standard Library's
Translational.Components."""
from ...core import Input, Parameter, Variable, der
from ...core.lazy import lazy_module
from ..stick_slip import StickSlipFriction, friction_table, table_points
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Supported, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Brake", "SupportFriction"]


class _HousingFriction(TwoFlange, Supported, ConditionalHeatPort, StickSlipFriction):
    """Stick-slip friction between a flange and its housing: flange_a and flange_b move
    together, v_rel = flange_a.v − housing velocity, and the friction force
    f = flange_a.f + flange_b.f is what the flanges lose into the housing (the support flange
    takes it, or the fixed housing). Its loss f·v_rel leaves through ``heat_port`` when there
    is one."""

    SLIP, FRICTION = "v_rel", "f"
    rigid_ports = (("flange_a", "flange_b"),)     # the flange runs through

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
                *self.heat_flow(self.f * self.v_rel)]


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

    def normal_force(self, value):
        return value("fn_max") * value("f_normalized")

    def kinetic_friction(self, speed):
        return friction_table(self.mu_pos, speed) * self.cgeo * self.normal_force(self._symbol)

    def static_friction(self, value):
        return value("peak") * self.mu_pos[0][1] * value("cgeo") * self.normal_force(value)


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

    HAS_NORMAL_FORCE = False

    f_pos = Parameter(((0.0, 1.0),), description="(v [m/s], f [N]) rows of the sliding friction "
                      "force, v from 0 increasing", structural=True)

    def validate(self):
        self._values["f_pos"] = table_points(self, "f_pos", self.f_pos)

    def kinetic_friction(self, speed):
        return friction_table(self.f_pos, speed)

    def static_friction(self, value):
        return value("peak") * self.f_pos[0][1]
