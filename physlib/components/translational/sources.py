"""Translational sources: an ideal force or velocity (each a number, a waveform or a signal), a
constant or speed-dependent force, forced movements (by acceleration or reference position)
and the eddy current brake, as the Modelica Standard Library's Translational.Sources."""
from ...core import Input, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import translational
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Force", "Velocity", "ConstantForce", "QuadraticSpeedDependentForce", "Accelerate",
           "Position", "EddyCurrentForce"]


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


class ConstantForce(Supported):
    """Constant force on ``flange`` whatever its motion: flange.f = −f_constant (the MSL's
    Translational.Sources.ConstantForce; Simscape: Ideal Force Source with a constant).

    A positive f_constant pushes the flange forward; a negative one is a load on forward motion.
    Parameters: f_constant [N]; use_support (structural) housing flange.
    """

    flange = Port(translational, "driven flange")
    f_constant = Parameter(unit="N", description="force pushing the flange forward")

    def equations(self):
        return [sp.Eq(self.flange.f, -self.f_constant), *self.support_reaction(self.f_constant)]


class QuadraticSpeedDependentForce(Supported):
    """Force quadratic in the flange's velocity v relative to the housing (the MSL's
    Translational.Sources.QuadraticSpeedDependentForce; a drag load): it pushes the flange
    forward with f_nominal·(v/v_nominal)² (``ForceDirection=True``, the same direction both ways)
    or f_nominal·v·|v|/v_nominal² (``ForceDirection=False``, along the motion's sign).

    A negative f_nominal brakes forward motion. Parameters: f_nominal [N] force at v_nominal;
    v_nominal [m/s] (> 0); ForceDirection (structural); use_support (structural).
    Variables: v [m/s] flange velocity relative to the housing.
    """

    flange = Port(translational, "driven flange")
    f_nominal = Parameter(unit="N", description="force at v_nominal (negative: a load)")
    v_nominal = Parameter(unit="m/s", description="nominal velocity", positive=True)
    ForceDirection = Parameter(True, description="the same force direction both ways of motion",
                               structural=True)
    v = Variable("m/s", "flange velocity relative to the housing")

    def equations(self):
        ratio = self.v / self.v_nominal
        push = self.f_nominal * (ratio**2 if self.ForceDirection else ratio * sp.Abs(ratio))
        return [sp.Eq(self.v, self.flange.v - self.support_v()),
                sp.Eq(self.flange.f, -push), *self.support_reaction(push)]


class Accelerate(Supported):
    """Forced movement of ``flange`` by an acceleration: its velocity relative to the housing
    is v, der(v) = a_ref, der(s) = v, whatever force that takes (the MSL's
    Translational.Sources.Accelerate).

    Inputs: a_ref [m/s²]. Parameters: s_start [m], v_start [m/s] initial position and velocity;
    use_support (structural). States: s [m], v [m/s].
    """

    flange = Port(translational, "driven flange")
    a_ref = Input("m/s2", "prescribed acceleration")
    s_start = Parameter(0.0, unit="m", description="initial position")
    v_start = Parameter(0.0, unit="m/s", description="initial velocity")
    s = Variable("m", "position relative to the housing")
    v = Variable("m/s", "velocity relative to the housing")

    def equations(self):
        return [sp.Eq(der(self.s), self.v), sp.Eq(der(self.v), self.a_ref),
                sp.Eq(self.flange.v - self.support_v(), self.v),
                *self.support_reaction(-self.flange.f)]

    def initial(self):
        return {self.s: self.s_start, self.v: self.v_start}


class Position(Supported):
    """Forced movement of ``flange`` following a reference position s_ref through a critically
    chosen second-order Bessel filter (the MSL's Translational.Sources.Position with
    exact=false): a = der(v) = ((s_ref − s)·w_crit − af·v)·w_crit/bf, der(s) = v,
    w_crit = 2π·f_crit, af = 1.3617, bf = 0.6180; flange velocity relative to the housing v.

    Inputs: s_ref [m]. Parameters: f_crit [Hz] filter cut-off (> 0); s_start [m] initial
    position (the MSL starts at s_ref: give s_ref's value at the start); use_support.
    States: s [m], v [m/s] (v starts at 0).
    """

    AF, BF = 1.3617, 0.6180

    flange = Port(translational, "driven flange")
    s_ref = Input("m", "reference position")
    f_crit = Parameter(50.0, unit="Hz", description="cut-off frequency of the filter", positive=True)
    s_start = Parameter(0.0, unit="m", description="initial position")
    s = Variable("m", "position relative to the housing")
    v = Variable("m/s", "velocity relative to the housing")

    def equations(self):
        w_crit = 2 * sp.pi * self.f_crit
        return [sp.Eq(der(self.s), self.v),
                sp.Eq(der(self.v), ((self.s_ref - self.s) * w_crit - self.AF * self.v) * w_crit / self.BF),
                sp.Eq(self.flange.v - self.support_v(), self.v),
                *self.support_reaction(-self.flange.f)]

    def initial(self):
        return {self.s: self.s_start, self.v: 0.0}


class EddyCurrentForce(Supported, ConditionalHeatPort):
    """Eddy current brake on ``flange`` (the MSL's Translational.Sources.EddyCurrentForce):
    always braking, with the force
    f = 2·f_nominal·excitation²·v_n/(1 + v_n²), v_n = v/(v_nominal·(1 + alpha20·(T − TRef)))
    (largest, f_nominal·excitation², at v = v_nominal at the reference temperature); v is the
    flange's velocity relative to the housing and flange.f = f. The fin's resistance follows
    its temperature T: the heat port's with ``use_heat_port``, else the parameter T.

    Parameters: f_nominal [N] largest force (> 0); v_nominal [m/s] velocity of the largest force
    at TRef (> 0); TRef [K]; alpha20 [1/K] temperature coefficient; T [K] fin temperature
    without heat port; use_support, use_heat_port (structural).
    Inputs: excitation [1] (1: the largest force). Variables: v [m/s]; f [N] braking force.
    Dissipates f·v [W] (heat_port.Q = −f·v).
    """

    flange = Port(translational, "braked flange")
    excitation = Input("1", "excitation (1: the largest force)")
    f_nominal = Parameter(unit="N", description="largest braking force", positive=True)
    v_nominal = Parameter(unit="m/s", description="velocity of the largest force at TRef", positive=True)
    TRef = Parameter(293.15, unit="K", description="reference temperature", positive=True)
    alpha20 = Parameter(0.0, unit="1/K", description="temperature coefficient of the fin's resistance")
    T = Parameter(293.15, unit="K", description="fin temperature without heat port", positive=True)
    v = Variable("m/s", "flange velocity relative to the housing")
    f = Variable("N", "braking force, flange.f")

    def equations(self):
        temperature = self.heat_port.T if self.use_heat_port else self.T
        v_n = self.v / (self.v_nominal * (1 + self.alpha20 * (temperature - self.TRef)))
        return [sp.Eq(self.v, self.flange.v - self.support_v()),
                sp.Eq(self.f, 2 * self.f_nominal * self.excitation**2 * v_n / (1 + v_n**2)),
                sp.Eq(self.flange.f, self.f), *self.support_reaction(-self.f),
                *self.heat_flow(self.f * self.v)]

    def dissipation(self):
        return self.f, self.v
