"""Rotational elements: the fixed flange, inertia, springs and dampers, backlash, ideal gears
and the rolling wheel (to translational motion)."""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import rotational, translational
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Compliant, Supported, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Fixed", "Inertia", "Spring", "Damper", "SpringDamper", "IdealGear", "IdealPlanetary",
           "ElastoBacklash", "IdealRollingWheel"]


class Fixed(Component):
    """Flange fixed to the ground: flange.w = 0."""

    fixed_ports = ("flange",)
    flange = Port(rotational, "fixed flange")

    def equations(self):
        return [sp.Eq(self.flange.w, 0)]


class Inertia(TwoFlange):
    """Rigid rotating body: J·dw/dt = flange_a.tau + flange_b.tau, both flanges at speed w.

    Parameters: J [kg.m2] moment of inertia (> 0); phi0 [rad], w0 [rad/s] initial angle and speed.
    States: phi [rad], w [rad/s]. Stores J·w²/2.
    """

    position_states = (PositionState("phi", "phi0", "flange_a"),)
    rigid_ports = (("flange_a", "flange_b"),)

    J = Parameter(unit="kg.m2", description="moment of inertia", positive=True)
    phi0 = Parameter(0.0, unit="rad", description="initial angle")
    w0 = Parameter(0.0, unit="rad/s", description="initial speed")
    phi = Variable("rad", "absolute angle")
    w = Variable("rad/s", "absolute speed")

    def equations(self):
        return [sp.Eq(self.flange_a.w, self.w), sp.Eq(self.flange_b.w, self.w),
                sp.Eq(der(self.phi), self.w),
                sp.Eq(self.J * der(self.w), self.flange_a.tau + self.flange_b.tau)]

    def initial(self):
        return {self.phi: self.phi0, self.w: self.w0}

    def energy(self):
        return self.J * self.w**2 / 2


class Spring(Compliant):
    """Linear torsion spring: tau = c·(phi_rel − phi_rel0).

    Parameters: c [N.m/rad] stiffness (>= 0); phi_rel0 [rad] unstretched relative angle;
    phi_rel_start [rad] initial relative angle.
    States: phi_rel [rad]. Stores c·(phi_rel − phi_rel0)²/2.
    """

    position_states = (PositionState("phi_rel", "phi_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N.m/rad", description="torsional stiffness", nonnegative=True)
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched relative angle")

    def equations(self):
        return super().equations() + [sp.Eq(self.tau, self.c * (self.phi_rel - self.phi_rel0))]

    def energy(self):
        return self.c * (self.phi_rel - self.phi_rel0)**2 / 2


class Damper(Compliant, ConditionalHeatPort):
    """Linear torsion damper: tau = d·w_rel.

    Parameters: d [N.m.s/rad] damping (>= 0); phi_rel_start [rad] initial relative angle;
    use_heat_port (structural) heat port the loss leaves by.
    States: phi_rel [rad]. Dissipates tau·w_rel.
    """

    d = Parameter(unit="N.m.s/rad", description="damping constant", nonnegative=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.tau, self.d * self.w_rel),
                                      *self.heat_loss(self.tau * self.w_rel)]

    def dissipation(self):
        return self.tau, self.w_rel


class SpringDamper(Compliant, ConditionalHeatPort):
    """Torsion spring and damper in parallel: tau = c·(phi_rel − phi_rel0) + d·w_rel.

    Parameters: c [N.m/rad] stiffness (>= 0); d [N.m.s/rad] damping (>= 0);
    phi_rel0 [rad] unstretched relative angle; phi_rel_start [rad] initial relative angle;
    use_heat_port (structural) heat port the loss leaves by.
    States: phi_rel [rad]. Stores c·(phi_rel − phi_rel0)²/2; dissipates d·w_rel².
    """

    position_states = (PositionState("phi_rel", "phi_rel_start", "flange_b", "flange_a"),)

    c = Parameter(unit="N.m/rad", description="torsional stiffness", nonnegative=True)
    d = Parameter(unit="N.m.s/rad", description="damping constant", nonnegative=True)
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched relative angle")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.tau, self.c * (self.phi_rel - self.phi_rel0) + self.d * self.w_rel),
            *self.heat_loss(self.d * self.w_rel**2)]

    def energy(self):
        return self.c * (self.phi_rel - self.phi_rel0)**2 / 2

    def dissipation(self):
        return self.d * self.w_rel, self.w_rel


class IdealGear(TwoFlange, Supported):
    """Ideal gear box: w_a = ratio·w_b (speeds relative to the housing), no losses.

    Parameters: ratio [1] speed ratio w_a/w_b (!= 0); use_support (structural) housing flange.
    Torques: ratio·flange_a.tau + flange_b.tau = 0; the housing takes the rest.
    """

    ratio = Parameter(1.0, unit="1", description="transmission ratio flange_a.w/flange_b.w",
                      nonzero=True)

    def equations(self):
        w_s = self.support_w()
        return [sp.Eq(self.flange_a.w - w_s, self.ratio * (self.flange_b.w - w_s)),
                sp.Eq(self.ratio * self.flange_a.tau + self.flange_b.tau, 0),
                *self.support_reaction(-self.flange_a.tau - self.flange_b.tau)]


class IdealPlanetary(Component):
    """Ideal planetary gear set (Willis): (1 + ratio)·w_carrier = w_sun + ratio·w_ring, no losses.

    Parameters: ratio [1] ring teeth / sun teeth (> 0).
    Torques: ring.tau = ratio·sun.tau, carrier.tau = −(1 + ratio)·sun.tau.
    """

    sun = Port(rotational, "sun wheel")
    carrier = Port(rotational, "planet carrier")
    ring = Port(rotational, "ring wheel")
    ratio = Parameter(unit="1", description="number of ring teeth / number of sun teeth",
                      positive=True)

    def equations(self):
        return [sp.Eq((1 + self.ratio) * self.carrier.w, self.sun.w + self.ratio * self.ring.w),
                sp.Eq(self.ring.tau, self.ratio * self.sun.tau),
                sp.Eq(self.carrier.tau, -(1 + self.ratio) * self.sun.tau)]


class ElastoBacklash(Compliant, ConditionalHeatPort):
    """Backlash in series with a linear spring and damper (the MSL's ElastoBacklash): free
    play of total width b around phi_rel0, then the spring c and damper d. With
    phi_diff = phi_rel − phi_rel0 and tau_c, tau_d = c·(phi_diff ∓ b/2), d·w_rel in contact::

        phi_diff >  b/2:  tau = tau_c + min(tau_c, tau_d), but 0 where tau_c + tau_d <= 0
        phi_diff < −b/2:  tau = tau_c + max(tau_c, tau_d), but 0 where tau_c + tau_d >= 0
        otherwise:        tau = 0

    so that the contact only pushes (never pulls) and the damper acts no more than the spring
    (the torque is continuous at the contact); b <= 1e-10 rad is the plain spring-damper.
    (The MSL's smoothing of the characteristic during initialization is not reproduced.)

    Parameters: c [N.m/rad] stiffness (> 0); d [N.m.s/rad] damping (>= 0); b [rad] total
    backlash (>= 0); phi_rel0 [rad]; phi_rel_start [rad]; use_heat_port (structural).
    States: phi_rel. Stores c·(phi_diff ∓ b/2)²/2 in contact; dissipates (tau − tau_c)·w_rel.
    Simscape counterpart: Rotational Hard Stop (with its stiffness and damping).
    """

    position_states = (PositionState("phi_rel", "phi_rel_start", "flange_b", "flange_a"),)

    B_EPS = 1e-10
    """[rad] a backlash this small is none (the MSL's bEps)."""

    c = Parameter(1e5, unit="N.m/rad", description="spring constant", positive=True)
    d = Parameter(0.0, unit="N.m.s/rad", description="damping constant", nonnegative=True)
    b = Parameter(0.0, unit="rad", description="total backlash", nonnegative=True)
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle")

    def spring_torque(self):
        """tau_c: the spring's torque in contact, 0 in the free play."""
        phi_diff, half = self.phi_rel - self.phi_rel0, self.b / 2
        return sp.Piecewise((self.c * phi_diff, self.b <= self.B_EPS),
                            (self.c * (phi_diff - half), phi_diff > half),
                            (self.c * (phi_diff + half), phi_diff < -half), (0, True))

    def equations(self):
        phi_diff, half = self.phi_rel - self.phi_rel0, self.b / 2
        tau_c, tau_d = self.spring_torque(), self.d * self.w_rel
        torque = sp.Piecewise(
            (tau_c + tau_d, self.b <= self.B_EPS),
            (sp.Piecewise((0, tau_c + tau_d <= 0), (tau_c + sp.Min(tau_c, tau_d), True)), phi_diff > half),
            (sp.Piecewise((0, tau_c + tau_d >= 0), (tau_c + sp.Max(tau_c, tau_d), True)), phi_diff < -half),
            (0, True))
        return super().equations() + [sp.Eq(self.tau, torque),
                                      *self.heat_loss((self.tau - tau_c) * self.w_rel)]

    def energy(self):
        return self.spring_torque()**2 / (2 * self.c)

    def dissipation(self):
        return self.tau - self.spring_torque(), self.w_rel


class IdealRollingWheel(Component):
    """Wheel rolling without slip and without inertia (the MSL's IdealRollingWheel, its
    housings fixed): flangeR turns it, flangeT is the point of contact moving along the ground,
    flangeT.v = radius·flangeR.w and radius·flangeT.f + flangeR.tau = 0 (lossless).

    Parameters: radius [m] (> 0).
    Simscape counterpart: Wheel and Axle.
    """

    flangeR = Port(rotational, "rotational flange (the axle)")
    flangeT = Port(translational, "translational flange (the contact with the ground)")
    radius = Parameter(0.3, unit="m", description="wheel radius", positive=True)

    def equations(self):
        return [sp.Eq(self.flangeT.v, self.radius * self.flangeR.w),
                sp.Eq(self.radius * self.flangeT.f + self.flangeR.tau, 0)]
