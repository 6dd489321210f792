"""Translational elements: the fixed flange, mass, springs and dampers, the elastic gap, the rack
and pinion, and the hard stop (contact with restitution)."""
from ...constants import unit_length
from ...core import Component, Mode, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, where
from ...core.positions import PositionState
from ...domains import rotational, translational
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Compliant, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Fixed", "Mass", "Spring", "Damper", "SpringDamper", "ElastoGap", "IdealRackPinion",
           "HardStop"]


class Fixed(Component):
    """Flange fixed to the ground: flange.v = 0."""

    fixed_ports = ("flange",)
    flange = Port(translational, "fixed flange")

    def equations(self):
        return [sp.Eq(self.flange.v, 0)]


class Mass(TwoFlange):
    """Rigid sliding mass: m·dv/dt = flange_a.f + flange_b.f, both flanges at velocity v.

    Parameters: m [kg] mass (> 0); s0 [m], v0 [m/s] initial position and velocity.
    States: s [m], v [m/s]. Stores m·v²/2.
    """

    position_states = (PositionState("s", "s0", "flange_a"),)
    rigid_ports = (("flange_a", "flange_b"),)

    m = Parameter(unit="kg", description="mass", positive=True)
    s0 = Parameter(0.0, unit="m", description="initial position")
    v0 = Parameter(0.0, unit="m/s", description="initial velocity")
    s = Variable("m", "absolute position")
    v = Variable("m/s", "absolute velocity")

    def equations(self):
        return [sp.Eq(self.flange_a.v, self.v), sp.Eq(self.flange_b.v, self.v),
                sp.Eq(der(self.s), self.v),
                sp.Eq(self.m * der(self.v), self.flange_a.f + self.flange_b.f)]

    def initial(self):
        return {self.s: self.s0, self.v: self.v0}

    def energy(self):
        return self.m * self.v**2 / 2


class Spring(Compliant):
    """Linear spring: f = c·(s_rel − s_rel0).

    Parameters: c [N/m] stiffness (>= 0); s_rel0 [m] unstretched length;
    s_rel_start [m] initial relative position.
    States: s_rel [m]. Stores c·(s_rel − s_rel0)²/2.
    """

    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N/m", description="stiffness", nonnegative=True)
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        return super().equations() + [sp.Eq(self.f, self.c * (self.s_rel - self.s_rel0))]

    def energy(self):
        return self.c * (self.s_rel - self.s_rel0)**2 / 2


class Damper(Compliant, ConditionalHeatPort):
    """Linear damper: f = d·v_rel.

    Parameters: d [N.s/m] damping (>= 0); s_rel_start [m] initial relative position;
    use_heat_port (structural): the loss leaves through ``heat_port`` (heat_port.Q = −f·v_rel).
    States: s_rel [m]. Dissipates f·v_rel.
    """

    d = Parameter(unit="N.s/m", description="damping constant", nonnegative=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.f, self.d * self.v_rel),
                                      *self.heat_loss(self.f * self.v_rel)]

    def dissipation(self):
        return self.f, self.v_rel


class SpringDamper(Compliant, ConditionalHeatPort):
    """Spring and damper in parallel: f = c·(s_rel − s_rel0) + d·v_rel.

    Parameters: c [N/m] stiffness (>= 0); d [N.s/m] damping (>= 0); s_rel0 [m] unstretched
    length; s_rel_start [m] initial relative position; use_heat_port (structural): the loss
    leaves through ``heat_port`` (heat_port.Q = −d·v_rel²).
    States: s_rel [m]. Stores c·(s_rel − s_rel0)²/2; dissipates d·v_rel².
    """

    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N/m", description="stiffness", nonnegative=True)
    d = Parameter(unit="N.s/m", description="damping constant", nonnegative=True)
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.f, self.c * (self.s_rel - self.s_rel0) + self.d * self.v_rel),
            *self.heat_loss(self.d * self.v_rel**2)]

    def energy(self):
        return self.c * (self.s_rel - self.s_rel0)**2 / 2

    def dissipation(self):
        return self.d * self.v_rel, self.v_rel


class ElastoGap(Compliant, ConditionalHeatPort):
    """Spring-damper contact that can lift off (the MSL's Translational.Components.ElastoGap;
    Simscape: Translational Hard Stop's compliant contact): in contact while compressed,
    s_rel < s_rel0, it pushes with the spring force f_c = −c·|s_rel − s_rel0|^n and the damping
    force f_d = d·v_rel limited to |f_d| <= |f_c| (so it never pulls and its force is
    continuous at touch-down); apart, f = 0. f = f_c + f_d.

    Parameters: c [N/m^n] stiffness (>= 0); d [N.s/m] damping (>= 0); s_rel0 [m] gap at which
    contact begins; n [1] exponent of the spring force (>= 1; 1.5: Hertzian);
    s_rel_start [m]; use_heat_port (structural): heat_port.Q = −f_d·v_rel.
    States: s_rel [m]. Stores c·|s_rel − s_rel0|^(n+1)/(n+1) in contact; dissipates f_d·v_rel.
    As the MSL's, the force law has no events: the solver steps over touch-down and lift-off.
    """

    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N/m", description="contact stiffness", nonnegative=True)
    d = Parameter(unit="N.s/m", description="contact damping", nonnegative=True)
    s_rel0 = Parameter(0.0, unit="m", description="relative position at which contact begins")
    n = Parameter(1.0, unit="1", description="exponent of the spring force",
                  check=(lambda v: v >= 1.0, "must be >= 1"))

    def contact_forces(self):
        """(f_c, f_d): spring and limited damping force, both 0 apart."""
        contact = self.s_rel < self.s_rel0
        # c·|Δs|^n with Δs in metres: c [N/m] is the force at 1 m of penetration for any n
        penetration = sp.Abs(self.s_rel - self.s_rel0) / unit_length
        f_c = sp.Piecewise((-self.c * unit_length * penetration**self.n, contact), (0, True))
        f_d = sp.Piecewise((sp.Min(sp.Max(self.d * self.v_rel, f_c), -f_c), contact), (0, True))
        return f_c, f_d

    def equations(self):
        f_c, f_d = self.contact_forces()
        return super().equations() + [sp.Eq(self.f, f_c + f_d), *self.heat_loss(f_d * self.v_rel)]

    def energy(self):
        return sp.Piecewise((self.c * sp.Abs(self.s_rel - self.s_rel0)**(self.n + 1) / (self.n + 1),
                             self.s_rel < self.s_rel0), (0, True))

    def dissipation(self):
        return self.contact_forces()[1], self.v_rel


class IdealRackPinion(Component):
    """Ideal rack and pinion: rack.v = radius·pinion.w, no losses (housings fixed).

    Parameters: radius [m] pinion radius (> 0).
    Torque: pinion.tau = −radius·rack.f.
    """

    pinion = Port(rotational, "pinion flange (rotational)")
    rack = Port(translational, "rack flange (translational)")
    radius = Parameter(unit="m", description="pinion radius", positive=True)

    def equations(self):
        return [sp.Eq(self.rack.v, self.radius * self.pinion.w),
                sp.Eq(self.pinion.tau, -self.radius * self.rack.f)]


class HardStop(Compliant):
    """Rigid contact between two flanges (two masses, or a mass and a Fixed wall) closing when
    the gap s_rel = s_b − s_a reaches zero, with Newton's restitution law.

    At impact the relative velocity jumps to −e times its value (e = 0: the bodies stay
    together); in contact the relative acceleration is zero while the contact pushes; the
    bodies separate when it would have to pull. Impacts slower than v_rest end in resting
    contact, so a bouncing body settles instead of bouncing forever.

    With a fixed-step solver a contact is seen up to one step's travel late, inside the stop;
    a body pressed on by a force F bounces there every step with the velocity F/m·dt/(1 + e)
    that one step gives it, so choose v_rest above that (0.1 m/s for a ball at dt = 10 ms)
    if it should come to rest. Variable-step solvers locate the contact itself.

    Parameters: e [1] coefficient of restitution (0..1); v_rest [m/s] slowest bounce;
    s_rel_start [m] initial gap (> 0 means apart).
    Modes: contact = 0 apart, 1 in contact, 2 impact (momentary, during an event).
    """

    APART, CONTACT, IMPACT = 0, 1, 2
    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a"),)   # the gap

    e = Parameter(0.0, unit="1", description="coefficient of restitution",
                  check=(lambda v: 0.0 <= v <= 1.0, "must lie in [0, 1]"))
    v_rest = Parameter(1e-6, unit="m/s", description="impacts slower than this end in contact",
                       nonnegative=True)
    contact = Mode({"apart": 0, "contact": 1, "impact": 2}, start="apart", description="contact state")

    def equations(self):
        a_rel = der(self.flange_b.v) - der(self.flange_a.v)
        law = sp.Piecewise((a_rel, sp.Eq(self.contact, self.CONTACT)), (self.f, True))
        return super().equations() + [law]

    def guards(self):
        # Apart: the gap closing; in contact: the contact force turning to a pull (f > 0).
        # A body already inside the stop (a contact seen one fixed step late) is watched for
        # turning back towards it: a bounce too weak to leave the stop would otherwise never
        # cross the surface again and the body would fall through.
        apart = sp.Piecewise((self.v_rel, self.s_rel < 0), (self.s_rel, True))
        return [sp.Piecewise((apart, sp.Eq(self.contact, self.APART)), (-self.f, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        mode, pre, v_rel = v["contact"], v["pre(contact)"], v["v_rel"]
        # Apart: the gap closed (or the body is inside the stop) while approaching. Not just
        # after a release because the contact force would pull: the bodies move together at
        # this instant (v_rel = 0 up to rounding), which is no new impact; and the fired guard
        # was the force's, not the gap's.
        hits = all_of(pre != self.CONTACT, any_of(fired[0], v["s_rel"] <= 0), v_rel < 0)
        bounces = all_of(v["e"] > 0, -v_rel * v["e"] > v["v_rest"])
        apart = where(hits, where(bounces, self.IMPACT, self.CONTACT), mode)
        # An impact lasts one round; a contact lets go when pulling.
        lets_go = all_of(v["f"] > 0, pre == self.CONTACT)
        touching = where(mode == self.IMPACT, self.APART, where(lets_go, self.APART, mode))
        return {"contact": where(mode == self.APART, apart, touching)}

    def constraints(self):
        return [(sp.Eq(self.contact, self.IMPACT), self.v_rel, self.e),
                (sp.Eq(self.contact, self.CONTACT), self.v_rel, 0)]
