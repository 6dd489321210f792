"""Translational sources: an ideal force or velocity (each a number, a waveform or a signal), a
constant or speed-dependent force, forced movements (by acceleration or reference position)
and the eddy current brake, as the Modelica Standard Library's Translational.Sources."""
from ...core import Input, Parameter, Port, Variable, der, symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import translational
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Force", "Velocity", "ConstantForce", "LinearSpeedDependentForce",
           "QuadraticSpeedDependentForce", "InverseSpeedDependentForce", "SignForce", "Accelerate",
           "Position", "Move", "EddyCurrentForce", "regularized_sign"]


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
    """Velocity source (the MSL's Translational.Sources.Speed, input v_ref there): the flange
    moves at v relative to the housing, whatever force that takes; the housing takes the
    reaction.

    exact=True (physlib's default, unlike the MSL's exact=false; kept so that existing models
    keep their behaviour): flange.v − support.v = v. exact=False: v through the MSL's
    first-order filter, der(v_flange) = (v − v_flange)·w_crit, w_crit = 2π·f_crit, starting at
    v_start (the MSL starts the filter at v's value: give it as v_start).
    s integrates the flange's position relative to the housing from s_start; it costs no
    state: it follows from the position of what the flange drives (a mass's), and without that
    it is not computed (reading it is then an error; put a PositionSensor on the flange).

    Inputs: v [m/s] a number, a waveform or a connected signal.
    Parameters: exact (structural); f_crit [Hz] the filter's critical frequency (> 0, with
    exact=False); v_start [m/s] the filter's start; s_start [m]; use_support (structural).
    Variables: v_flange [m/s] the flange's velocity relative to the housing (the MSL's v);
    s [m] its position (the MSL's s).
    """

    position_states = (PositionState("s", "s_start", "flange", "support", reads=False),)

    flange = Port(translational, "driven flange")
    v = Input("m/s", "prescribed velocity")
    exact = Parameter(True, description="exact velocity (False: through a first-order filter)",
                      structural=True)
    f_crit = Parameter(50.0, unit="Hz", description="critical frequency of the filter (exact=False)",
                       positive=True)
    v_start = Parameter(0.0, unit="m/s", description="start of the filtered velocity (exact=False)")
    s_start = Parameter(0.0, unit="m", description="initial position relative to the housing")
    v_flange = Variable("m/s", "velocity of the flange relative to the housing")
    s = Variable("m", "position of the flange relative to the housing")

    def equations(self):
        follow = sp.Eq(self.v_flange, self.v) if self.exact else \
            sp.Eq(der(self.v_flange), (self.v - self.v_flange) * 2 * sp.pi * self.f_crit)
        return [follow, sp.Eq(self.flange.v - self.support_v(), self.v_flange),
                sp.Eq(der(self.s), self.v_flange), *self.support_reaction(-self.flange.f)]

    def initial(self):
        return {self.s: self.s_start, **({} if self.exact else {self.v_flange: self.v_start})}


class _SpeedDependentForce(Supported):
    """A force on ``flange`` that depends on the flange's velocity v relative to the housing
    only: flange.f = −push(v) (a positive push drives the flange forward); the housing takes
    the reaction. Subclasses give :meth:`push`."""

    flange = Port(translational, "driven flange")
    v = Variable("m/s", "flange velocity relative to the housing")

    def push(self):
        """The force pushing the flange forward [N] (SymPy, in terms of ``self.v``)."""
        raise NotImplementedError

    def equations(self):
        push = self.push()
        return [sp.Eq(self.v, self.flange.v - self.support_v()),
                sp.Eq(self.flange.f, -push), *self.support_reaction(push)]


class ConstantForce(_SpeedDependentForce):
    """Constant force on ``flange`` whatever its motion: flange.f = −f_constant (the MSL's
    Translational.Sources.ConstantForce; Simscape: Ideal Force Source with a constant).

    A positive f_constant pushes the flange forward; a negative one is a load on forward motion.
    Parameters: f_constant [N]; use_support (structural) housing flange.
    """

    f_constant = Parameter(unit="N", description="force pushing the flange forward")

    def push(self):
        return self.f_constant


class _NominalSpeedDependentForce(_SpeedDependentForce):
    """A speed-dependent force given by its value f_nominal at the velocity v_nominal, the same
    direction both ways of motion (``ForceDirection=True``) or along the motion."""

    f_nominal = Parameter(unit="N", description="force at v_nominal (negative: a load)")
    v_nominal = Parameter(unit="m/s", description="nominal velocity", positive=True)
    ForceDirection = Parameter(True, description="the same force direction both ways of motion",
                               structural=True)


class LinearSpeedDependentForce(_NominalSpeedDependentForce):
    """Force linear in the flange's velocity v relative to the housing (the MSL's
    Translational.Sources.LinearSpeedDependentForce): it pushes the flange forward with
    f_nominal·|v|/v_nominal (``ForceDirection=True``, the same direction both ways of motion)
    or f_nominal·v/v_nominal (``ForceDirection=False``).

    A negative f_nominal brakes forward motion. Parameters: f_nominal [N] force at v_nominal;
    v_nominal [m/s] (> 0); ForceDirection (structural); use_support (structural).
    """

    def push(self):
        ratio = self.v / self.v_nominal
        return self.f_nominal * (sp.Abs(ratio) if self.ForceDirection else ratio)


class QuadraticSpeedDependentForce(_NominalSpeedDependentForce):
    """Force quadratic in the flange's velocity v relative to the housing (the MSL's
    Translational.Sources.QuadraticSpeedDependentForce; a drag load): it pushes the flange
    forward with f_nominal·(v/v_nominal)² (``ForceDirection=True``, the same direction both ways)
    or f_nominal·v·|v|/v_nominal² (``ForceDirection=False``, along the motion's sign).

    A negative f_nominal brakes forward motion. Parameters: f_nominal [N] force at v_nominal;
    v_nominal [m/s] (> 0); ForceDirection (structural); use_support (structural).
    """

    def push(self):
        ratio = self.v / self.v_nominal
        return self.f_nominal * (ratio**2 if self.ForceDirection else ratio * sp.Abs(ratio))


class InverseSpeedDependentForce(_NominalSpeedDependentForce):
    """Force inversely proportional to the flange's velocity v relative to the housing (the
    MSL's Translational.Sources.InverseSpeedDependentForce; constant power): it pushes the
    flange forward with f_nominal·v_nominal/|v| (``ForceDirection=True``) or
    f_nominal·v_nominal/v (``ForceDirection=False``), regularized below |v| < v0 to the
    constant f_nominal·v_nominal/v0, resp. the line f_nominal·v/v0 (as the MSL's).

    Parameters: f_nominal [N] force at v_nominal; v_nominal [m/s] (> 0); v0 [m/s]
    regularization velocity (> 0); ForceDirection (structural); use_support (structural).
    """

    v0 = Parameter(0.1, unit="m/s", description="regularization below v0", positive=True)

    def push(self):
        slow = sp.Abs(self.v) < self.v0
        if self.ForceDirection:
            return sp.Piecewise((self.f_nominal * self.v_nominal / self.v0, slow),
                                (self.f_nominal * self.v_nominal / sp.Abs(self.v), True))
        return sp.Piecewise((self.f_nominal * self.v / self.v0, slow),
                            (self.f_nominal * self.v_nominal / self.v, True))


def regularized_sign(reg: str, v, v0):
    """sign(v) smoothed below |v| < v0, as the MSL's Regularization: "exp" (2/(1 + e^(−v/(0.01·v0)))
    − 1), "sine" (sin(π/2·v/v0)), "linear" (v/v0) or "cosine" (sign(v)·(1 − cos(π/2·v/v0)))."""
    if reg == "exp":
        return 2 / (1 + sp.exp(-v / (0.01 * v0))) - 1
    smooth = {"sine": sp.sin(sp.pi / 2 * v / v0), "linear": v / v0,
              "cosine": sp.sign(v) * (1 - sp.cos(sp.pi / 2 * v / v0))}[reg]
    return sp.Piecewise((smooth, sp.Abs(v) < v0), (sp.sign(v), True))


REGULARIZATIONS = ("exp", "sine", "linear", "cosine")


class SignForce(_SpeedDependentForce):
    """Force of constant size whose direction follows the flange's velocity v relative to the
    housing (the MSL's Translational.Sources.SignForce; with a negative f_nominal, Coulomb
    friction without sticking): it pushes the flange with f_nominal·sign(v), sign regularized
    below v0 (:func:`regularized_sign`).

    Parameters: f_nominal [N]; v0 [m/s] regularization velocity (> 0); reg (structural) "exp"
    (default), "sine", "linear" or "cosine"; use_support (structural).
    """

    f_nominal = Parameter(unit="N", description="force size (negative: a load)")
    v0 = Parameter(0.1, unit="m/s", description="regularization below v0", positive=True)
    reg = Parameter("exp", description='regularization: "exp", "sine", "linear" or "cosine"',
                    structural=True)

    def validate(self):
        check_regularization(self)

    def push(self):
        return self.f_nominal * regularized_sign(self.reg, self.v, self.v0)


def check_regularization(component):
    """A ParameterError unless ``component.reg`` is one of :data:`REGULARIZATIONS`."""
    if component.reg not in REGULARIZATIONS:
        raise ParameterError(f"parameter reg of {type(component).__name__} {component.name!r} must "
                             f"be one of {', '.join(REGULARIZATIONS)}, got {component.reg!r}")


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
    """Forced movement of ``flange`` following a reference position s_ref relative to the
    housing (the MSL's Translational.Sources.Position; exact=False is the default of both).

    exact=False: through the MSL's critically damped second-order (Bessel) filter,
    a = der(v) = ((s_ref − s)·w_crit − af·v)·w_crit/bf, der(s) = v, w_crit = 2π·f_crit,
    af = 1.3617, bf = 0.6180, from s_start and v = 0 (the MSL starts at s_ref: give s_ref's
    value at the start). exact=True: s = s_ref, v = der(s_ref) (s_start is not used): physlib
    differentiates s_ref's source, once where the flange drives only springs and dampers; a
    mass on the flange needs s_ref's second derivative, which physlib does not take (a model
    of index three: an error says so): drive it with :class:`Move` given the position,
    velocity and acceleration, or with exact=False.

    Inputs: s_ref [m]. Parameters: exact (structural); f_crit [Hz] filter cut-off (> 0);
    s_start [m] initial position; use_support (structural).
    Variables: s [m], v [m/s] relative to the housing (states with exact=False).
    """

    AF, BF = 1.3617, 0.6180

    flange = Port(translational, "driven flange")
    s_ref = Input("m", "reference position")
    exact = Parameter(False, description="exact position (False: through a second-order filter)",
                      structural=True)
    f_crit = Parameter(50.0, unit="Hz", description="cut-off frequency of the filter", positive=True)
    s_start = Parameter(0.0, unit="m", description="initial position")
    s = Variable("m", "position relative to the housing")
    v = Variable("m/s", "velocity relative to the housing")

    def equations(self):
        w_crit = 2 * sp.pi * self.f_crit
        follow = sp.Eq(self.s, self.s_ref) if self.exact else \
            sp.Eq(der(self.v), ((self.s_ref - self.s) * w_crit - self.AF * self.v) * w_crit / self.BF)
        return [sp.Eq(der(self.s), self.v), follow,
                sp.Eq(self.flange.v - self.support_v(), self.v),
                *self.support_reaction(-self.flange.f)]

    def initial(self):
        return {} if self.exact else {self.s: self.s_start, self.v: 0.0}


class Move(Supported):
    """The flange moves relative to the housing as three signals say (the MSL's
    Translational.Sources.Move, whose input vector u is s_ref, v_ref, a_ref here: physlib's
    signal ports are scalars): its position s = s_ref, its velocity flange.v − support.v =
    v_ref, and where anything needs the velocity's derivative (a mass on the flange) it is
    a_ref, not d/dt of v_ref: physlib differentiates no signal. As in the MSL, the signals
    need not be consistent (a_ref = 1 with s_ref = v_ref = 0 gives a mass's force at rest)
    where they set the flange's motion alone (a fixed housing); what the flange drives
    integrates v_ref (a mass's s is s_ref only when v_ref is s_ref's derivative). Between two
    moving bodies (a housing on a mass of its own) keep them consistent: the run integrates one
    body's velocity and sets the other's by v_ref, so inconsistent signals give motions that
    depend on which one it integrates.

    Inputs: s_ref [m], v_ref [m/s], a_ref [m/s2].
    Parameters: use_support (structural). Variables: s [m] = s_ref.
    """

    flange = Port(translational, "driven flange")
    s_ref = Input("m", "position relative to the housing (the MSL's u[1])")
    v_ref = Input("m/s", "velocity relative to the housing (the MSL's u[2])")
    a_ref = Input("m/s2", "acceleration relative to the housing (the MSL's u[3])")
    s = Variable("m", "position of the flange relative to the housing")

    def equations(self):
        return [sp.Eq(self.s, self.s_ref),
                sp.Eq(self.flange.v - self.support_v(), symbols.with_derivative(self.v_ref, self.a_ref, symbols.t)),
                *self.support_reaction(-self.flange.f)]


class EddyCurrentForce(_SpeedDependentForce, ConditionalHeatPort):
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

    excitation = Input("1", "excitation (1: the largest force)")
    f_nominal = Parameter(unit="N", description="largest braking force", positive=True)
    v_nominal = Parameter(unit="m/s", description="velocity of the largest force at TRef", positive=True)
    TRef = Parameter(293.15, unit="K", description="reference temperature", positive=True)
    alpha20 = Parameter(0.0, unit="1/K", description="temperature coefficient of the fin's resistance")
    T = Parameter(293.15, unit="K", description="fin temperature without heat port", positive=True)
    f = Variable("N", "braking force, flange.f")

    def push(self):
        return -self.f

    def equations(self):
        temperature = self.heat_port.T if self.use_heat_port else self.T
        v_n = self.v / (self.v_nominal * (1 + self.alpha20 * (temperature - self.TRef)))
        return super().equations() + [
            sp.Eq(self.f, 2 * self.f_nominal * self.excitation**2 * v_n / (1 + v_n**2)),
            *self.heat_loss(self.f * self.v)]

    def dissipation(self):
        return self.f, self.v
