"""Translational mechanics (1-D, velocity-based).

Sign convention (as in the Modelica Standard Library): a flange's force ``f`` is positive *into*
the component; relative quantities are flange_b minus flange_a (``v_rel = flange_b.v −
flange_a.v``, ``s_rel`` likewise). Flanges carry velocities, not positions: components that
need a position (Mass.s, spring deflections, PositionSensor) integrate it as a state of their own.
"""

from ..core import Component, Input, Mode, Output, Parameter, Port, Variable, der
from ..core.positions import PositionState
from ..core.lazy import lazy_module
from ..core.logic import all_of, any_of, where
from ..domains import rotational, translational

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["HardStop", "TwoFlange", "Compliant", "Supported", "Fixed", "Mass", "Spring", "Damper",
           "SpringDamper", "Force", "Velocity", "IdealRackPinion", "SpeedSensor", "ForceSensor",
           "PositionSensor"]


# --- partial bases ----------------------------------------------------------------------------

class TwoFlange(Component):
    """Two flanges, ``flange_a`` and ``flange_b``."""

    flange_a = Port(translational, "flange a (left)")
    flange_b = Port(translational, "flange b (right)")


class Compliant(TwoFlange):
    """A massless coupling: the force passes through, flange_b.f = f = −flange_a.f.

    Parameters: s_rel_start [m] initial relative position.
    Variables: v_rel [m/s] = flange_b.v − flange_a.v; f [N] transmitted force.
    States: s_rel [m] relative position, der(s_rel) = v_rel.
    """

    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a", reads=False),)

    s_rel_start = Parameter(0.0, unit="m", description="initial relative position")
    s_rel = Variable("m", "relative position flange_b - flange_a")
    v_rel = Variable("m/s", "relative velocity flange_b.v - flange_a.v")
    f = Variable("N", "force transmitted from flange_b to flange_a")

    def equations(self):
        return [sp.Eq(self.v_rel, self.flange_b.v - self.flange_a.v),
                sp.Eq(der(self.s_rel), self.v_rel),
                sp.Eq(self.flange_b.f, self.f),
                sp.Eq(self.flange_a.f, -self.f)]

    def initial(self):
        return {self.s_rel: self.s_rel_start}


class Supported(Component):
    """A component with a housing: the ``support`` flange (``use_support=True``) or, by
    default, a fixed housing that takes the reaction force.

    Parameters: use_support (structural) whether the ``support`` flange exists.
    """

    use_support = Parameter(False, description="give the component a support flange (housing)",
                            structural=True)
    support = Port(translational, "support flange (housing)", condition="use_support")

    def support_v(self):
        """Velocity of the housing [m/s]: the support flange's, or 0 when it is fixed."""
        return self.support.v if self.use_support else 0

    def support_reaction(self, f):
        """The housing takes the force ``f`` (no equation when it is fixed)."""
        return [sp.Eq(self.support.f, f)] if self.use_support else []


# --- components -------------------------------------------------------------------------------

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


class Damper(Compliant):
    """Linear damper: f = d·v_rel.

    Parameters: d [N.s/m] damping (>= 0); s_rel_start [m] initial relative position.
    States: s_rel [m]. Dissipates f·v_rel.
    """

    d = Parameter(unit="N.s/m", description="damping constant", nonnegative=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.f, self.d * self.v_rel)]

    def dissipation(self):
        return self.f, self.v_rel


class SpringDamper(Compliant):
    """Spring and damper in parallel: f = c·(s_rel − s_rel0) + d·v_rel.

    Parameters: c [N/m] stiffness (>= 0); d [N.s/m] damping (>= 0); s_rel0 [m] unstretched
    length; s_rel_start [m] initial relative position.
    States: s_rel [m]. Stores c·(s_rel − s_rel0)²/2; dissipates d·v_rel².
    """

    position_states = (PositionState("s_rel", "s_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N/m", description="stiffness", nonnegative=True)
    d = Parameter(unit="N.s/m", description="damping constant", nonnegative=True)
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.f, self.c * (self.s_rel - self.s_rel0) + self.d * self.v_rel)]

    def energy(self):
        return self.c * (self.s_rel - self.s_rel0)**2 / 2

    def dissipation(self):
        return self.d * self.v_rel, self.v_rel


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


# --- sources ----------------------------------------------------------------------------------

class Force(Supported):
    """Ideal force source acting on ``flange``: flange.f = −f (f pushes the flange forward);
    the housing takes the reaction.

    Inputs: f [N] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(translational, "driven flange")
    f = Input("N", "driving force")

    def equations(self):
        return [sp.Eq(self.flange.f, -self.f), *self.support_reaction(self.f)]


class Velocity(Supported):
    """Ideal velocity source: flange.v = v relative to the housing, whatever force that takes.

    Inputs: v [m/s] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(translational, "driven flange")
    v = Input("m/s", "prescribed velocity")

    def equations(self):
        return [sp.Eq(self.flange.v - self.support_v(), self.v),
                *self.support_reaction(-self.flange.f)]


# --- sensors ----------------------------------------------------------------------------------

class SpeedSensor(Component):
    """Ideal velocity sensor: output v = flange.v, no force drawn."""

    flange = Port(translational, "measured flange")
    v = Output("m/s", "absolute velocity")

    def equations(self):
        return [sp.Eq(self.v, self.flange.v), sp.Eq(self.flange.f, 0)]


class ForceSensor(TwoFlange):
    """Ideal force sensor in series: output f = flange_a.f, rigid (equal velocities)."""

    rigid_ports = (("flange_a", "flange_b"),)

    f = Output("N", "force from flange_a to flange_b")

    def equations(self):
        return [sp.Eq(self.flange_a.v, self.flange_b.v),
                sp.Eq(self.flange_a.f + self.flange_b.f, 0),
                sp.Eq(self.f, self.flange_a.f)]


class PositionSensor(Component):
    """Ideal position sensor: output s, the integral of flange.v from s0; no force drawn.

    Parameters: s0 [m] position at the start.
    """

    flange = Port(translational, "measured flange")
    position_states = (PositionState("s", "s0", "flange"),)

    s = Output("m", "absolute position")
    s0 = Parameter(0.0, unit="m", description="initial position")

    def equations(self):
        return [sp.Eq(der(self.s), self.flange.v), sp.Eq(self.flange.f, 0)]

    def initial(self):
        return {self.s: self.s0}


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
