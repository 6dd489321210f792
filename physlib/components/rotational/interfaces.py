"""The partial bases of the rotational components: two flanges, a massless compliant coupling,
and a housing (support flange) that takes the reaction torque."""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import rotational

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoFlange", "Compliant", "Supported"]


class TwoFlange(Component):
    """Two flanges, ``flange_a`` and ``flange_b``."""

    flange_a = Port(rotational, "flange a (left)")
    flange_b = Port(rotational, "flange b (right)")


class Compliant(TwoFlange):
    """A massless coupling: the torque passes through, flange_b.tau = tau = −flange_a.tau.

    Parameters: phi_rel_start [rad] initial relative angle.
    Variables: w_rel [rad/s] = flange_b.w − flange_a.w; tau [N.m] transmitted torque.
    States: phi_rel [rad] relative angle, der(phi_rel) = w_rel.
    """

    position_states = (PositionState("phi_rel", "phi_rel_start", "flange_b", "flange_a", reads=False),)

    phi_rel_start = Parameter(0.0, unit="rad", description="initial relative angle")
    phi_rel = Variable("rad", "relative angle flange_b - flange_a")
    w_rel = Variable("rad/s", "relative speed flange_b.w - flange_a.w")
    tau = Variable("N.m", "torque transmitted from flange_b to flange_a")

    def equations(self):
        return [sp.Eq(self.w_rel, self.flange_b.w - self.flange_a.w),
                sp.Eq(der(self.phi_rel), self.w_rel),
                sp.Eq(self.flange_b.tau, self.tau),
                sp.Eq(self.flange_a.tau, -self.tau)]

    def initial(self):
        return {self.phi_rel: self.phi_rel_start}


class Supported(Component):
    """A component with a housing: the ``support`` flange (``use_support=True``) or, by
    default, a fixed housing that takes the reaction torque.

    Parameters: use_support (structural) whether the ``support`` flange exists.
    """

    use_support = Parameter(False, description="give the component a support flange (housing)",
                            structural=True)
    support = Port(rotational, "support flange (housing)", condition="use_support")

    def support_w(self):
        """Speed of the housing [rad/s]: the support flange's, or 0 when it is fixed."""
        return self.support.w if self.use_support else 0

    def support_reaction(self, tau):
        """The housing takes the torque ``tau`` (no equation when it is fixed)."""
        return [sp.Eq(self.support.tau, tau)] if self.use_support else []
