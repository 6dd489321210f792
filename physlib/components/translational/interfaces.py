"""The partial bases of the translational components: two flanges, a massless compliant
coupling, and a housing (support flange) that takes the reaction force."""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import translational

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoFlange", "Compliant", "Supported"]


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
