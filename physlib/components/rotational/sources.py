"""Rotational sources, as the Modelica Standard Library's Rotational.Sources: a torque or a
speed (a number, a waveform or a signal), torques over speed (constant, linear, quadratic, a
step, the eddy-current brake), a constant speed, and flanges driven by an acceleration or
following an angle."""
import math

from ...core import Input, Parameter, Port, Variable, der, symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import absolute, where
from ...core.positions import PositionState
from ...domains import rotational
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Torque", "Speed", "SpeedDependentTorque", "ConstantTorque", "LinearSpeedDependentTorque",
           "QuadraticSpeedDependentTorque", "InverseSpeedDependentTorque", "SignTorque", "TorqueStep",
           "EddyCurrentTorque", "ConstantSpeed", "DrivenFlange", "Accelerate", "Position", "Move"]


class Torque(Supported):
    """Ideal torque source acting on ``flange``: flange.tau = −tau (tau drives the flange
    forward); the housing takes the reaction.

    Inputs: tau [N.m] a number, a waveform or a connected signal.
    Parameters: use_support (structural) housing flange.
    """

    flange = Port(rotational, "driven flange")
    tau = Input("N.m", "driving torque")

    def equations(self):
        return [sp.Eq(self.flange.tau, -self.tau), *self.support_reaction(self.tau)]


class Speed(Supported):
    """Speed source (the MSL's Rotational.Sources.Speed, input w_ref there): the flange turns
    at w relative to the housing, whatever torque that takes; the housing takes the reaction.

    exact=True (physlib's default, unlike the MSL's exact=false; kept so that existing models
    keep their behaviour): flange.w − support.w = w. exact=False: w through the MSL's
    first-order filter, der(w_flange) = (w − w_flange)·w_crit, w_crit = 2π·f_crit, starting at
    w0 (the MSL starts the filter at w's value: give it as w0).
    phi integrates the flange's angle relative to the housing from phi0; it costs no state: it
    follows from the angle of what the flange drives (an inertia's), and without that it is
    not computed (reading it is then an error; put an AngleSensor on the flange).

    Inputs: w [rad/s] a number, a waveform or a connected signal.
    Parameters: exact (structural); f_crit [Hz] the filter's critical frequency (> 0, with
    exact=False); w0 [rad/s] the filter's start; phi0 [rad]; use_support (structural).
    Variables: w_flange [rad/s] the flange's speed relative to the housing (the MSL's w);
    phi [rad] its angle (the MSL's phi).
    """

    position_states = (PositionState("phi", "phi0", "flange", "support", reads=False),)

    flange = Port(rotational, "driven flange")
    w = Input("rad/s", "prescribed speed")
    exact = Parameter(True, description="exact speed (False: through a first-order filter)", structural=True)
    f_crit = Parameter(50.0, unit="Hz", description="critical frequency of the filter (exact=False)",
                       positive=True)
    w0 = Parameter(0.0, unit="rad/s", description="start of the filtered speed (exact=False)")
    phi0 = Parameter(0.0, unit="rad", description="initial angle relative to the housing")
    w_flange = Variable("rad/s", "speed of the flange relative to the housing")
    phi = Variable("rad", "angle of the flange relative to the housing")

    def equations(self):
        follow = sp.Eq(self.w_flange, self.w) if self.exact else \
            sp.Eq(der(self.w_flange), (self.w - self.w_flange) * 2 * sp.pi * self.f_crit)
        return [follow, sp.Eq(self.flange.w - self.support_w(), self.w_flange),
                sp.Eq(der(self.phi), self.w_flange), *self.support_reaction(-self.flange.tau)]

    def initial(self):
        return {self.phi: self.phi0, **({} if self.exact else {self.w_flange: self.w0})}


class SpeedDependentTorque(Supported):
    """A torque on ``flange`` that depends on its speed w relative to the housing (the MSL's
    PartialTorque): flange.tau = −tau, tau accelerating the flange; the housing takes the
    reaction. A subclass gives :meth:`torque`, tau as an expression of w.

    Parameters: use_support (structural) housing flange.
    Variables: w [rad/s] speed relative to the housing; tau [N.m] accelerating torque.
    """

    flange = Port(rotational, "driven flange")
    w = Variable("rad/s", "speed of the flange relative to the housing")
    tau = Variable("N.m", "accelerating torque on the flange (= -flange.tau)")

    def torque(self):
        """tau as an expression of the speed ``self.w``."""
        raise NotImplementedError

    def equations(self):
        return [sp.Eq(self.w, self.flange.w - self.support_w()), sp.Eq(self.flange.tau, -self.tau),
                sp.Eq(self.tau, self.torque()), *self.support_reaction(self.tau)]


class ConstantTorque(SpeedDependentTorque):
    """Constant torque, whatever the speed: tau = tau_constant (the MSL's ConstantTorque).

    Parameters: tau_constant [N.m] (negative: a load in the positive direction of rotation).
    """

    tau_constant = Parameter(unit="N.m", description="constant accelerating torque")

    def torque(self):
        return self.tau_constant


class LinearSpeedDependentTorque(SpeedDependentTorque):
    """tau = tau_nominal·|w/w_nominal| with TorqueDirection (the same sign both ways), else
    tau_nominal·w/w_nominal (the MSL's LinearSpeedDependentTorque).

    Parameters: tau_nominal [N.m] torque at w_nominal (negative: a load);
    w_nominal [rad/s] (> 0); TorqueDirection (structural).
    """

    tau_nominal = Parameter(unit="N.m", description="torque at the nominal speed")
    w_nominal = Parameter(unit="rad/s", description="nominal speed", positive=True)
    TorqueDirection = Parameter(True, description="the same torque direction both ways",
                                structural=True)

    def torque(self):
        ratio = self.w / self.w_nominal
        return self.tau_nominal * (sp.Abs(ratio) if self.TorqueDirection else ratio)


class QuadraticSpeedDependentTorque(LinearSpeedDependentTorque):
    """tau = tau_nominal·(w/w_nominal)² with TorqueDirection (the same sign both ways), else
    tau_nominal·(w/w_nominal)·|w/w_nominal| (the MSL's QuadraticSpeedDependentTorque; a fan's
    or a vehicle's drag with a negative tau_nominal and TorqueDirection=False).

    Parameters: as :class:`LinearSpeedDependentTorque`.
    """

    def torque(self):
        ratio = self.w / self.w_nominal
        return self.tau_nominal * ratio * (ratio if self.TorqueDirection else sp.Abs(ratio))


class InverseSpeedDependentTorque(LinearSpeedDependentTorque):
    """tau = tau_nominal·w_nominal/|w| with TorqueDirection, else tau_nominal·w_nominal/w, held
    at its value at |w| = w0 below w0 (with TorqueDirection) or tau_nominal·w/w0 there (the
    MSL's InverseSpeedDependentTorque: constant power at speed). Without TorqueDirection the
    torque jumps at |w| = w0 unless w0 = w_nominal, as the MSL's does.

    Parameters: as :class:`LinearSpeedDependentTorque`; w0 [rad/s] regularization (> 0).
    """

    w0 = Parameter(0.1, unit="rad/s", description="regularization below w0", positive=True)

    def torque(self):
        slow = self.tau_nominal * (self.w_nominal / self.w0 if self.TorqueDirection else self.w / self.w0)
        fast = self.tau_nominal * self.w_nominal / (sp.Abs(self.w) if self.TorqueDirection else self.w)
        return sp.Piecewise((slow, sp.Abs(self.w) < self.w0), (fast, True))


class SignTorque(SpeedDependentTorque):
    """tau = tau_nominal·sign(w), regularized below w0 (the MSL's SignTorque): reg "Exp"
    (default) tau_nominal·(2/(1 + exp(−w/(0.01·w0))) − 1); "Sine" sin(π/2·w/w0), "Linear"
    w/w0, "CoSine" sign(w)·(1 − cos(π/2·w/w0)) for |w| < w0.

    Parameters: tau_nominal [N.m] (negative: a load, as Coulomb friction); w0 [rad/s] (> 0);
    reg (structural) the regularization.
    """

    REGULARIZATIONS = ("Exp", "Sine", "Linear", "CoSine")
    tau_nominal = Parameter(unit="N.m", description="nominal torque")
    w0 = Parameter(0.1, unit="rad/s", description="regularization below w0", positive=True)
    reg = Parameter("Exp", description="regularization: Exp, Sine, Linear or CoSine", structural=True)

    def validate(self):
        if self.reg not in self.REGULARIZATIONS:
            raise ParameterError(f"SignTorque {self.name!r}: reg must be one of "
                                 f"{', '.join(self.REGULARIZATIONS)}, got {self.reg!r}")

    def torque(self):
        x = self.w / self.w0
        if self.reg == "Exp":
            return self.tau_nominal * (2 / (1 + sp.exp(-x / 0.01)) - 1)
        slow = {"Sine": sp.sin(sp.pi / 2 * x), "Linear": x,
                "CoSine": sp.sign(x) * (1 - sp.cos(sp.pi / 2 * x))}[self.reg]
        return self.tau_nominal * sp.Piecewise((sp.sign(x), sp.Abs(x) >= 1), (slow, True))


class TorqueStep(SpeedDependentTorque):
    """tau = offsetTorque before startTime, offsetTorque + stepTorque from it on (the MSL's
    TorqueStep); the step is a time event.

    Parameters: stepTorque [N.m]; offsetTorque [N.m]; startTime [s].
    """

    stepTorque = Parameter(1.0, unit="N.m", description="height of the torque step")
    offsetTorque = Parameter(0.0, unit="N.m", description="torque before the step")
    startTime = Parameter(0.0, unit="s", description="time of the step")

    STEP_TOLERANCE = 1e-14
    """A time within this (relative) of startTime is at the step (for exported schedules)."""

    def torque(self):
        return sp.Piecewise((self.offsetTorque, symbols.t < self.startTime),
                            (self.offsetTorque + self.stepTorque, True))

    def time_events(self, values, t_start, t_stop):
        return [values["startTime"]]

    def next_time_event(self, values, t):
        step = values["startTime"]
        return where(step > t + self.STEP_TOLERANCE * (absolute(t) + absolute(step)), step, math.inf)


class EddyCurrentTorque(SpeedDependentTorque, ConditionalHeatPort):
    """Eddy-current brake (the MSL's EddyCurrentTorque): braking torque, flange.tau =
    2·tau_nominal·excitation²·wn/(1 + wn²) with wn = w/(w_nominal·(1 + alpha·(T − TRef))),
    largest (tau_nominal) at wn = 1; alpha = alpha20/(1 + alpha20·(TRef − 293.15)) is the
    resistivity's coefficient at TRef. T is heat_port.T with ``use_heat_port=True`` (the loss
    tau·w leaves there), else the parameter T.

    Parameters: tau_nominal [N.m] largest braking torque; w_nominal [rad/s] speed of it at TRef
    (> 0); TRef [K]; alpha20 [1/K] temperature coefficient at 20 °C (copper 3.92e-3); T [K]
    temperature without a heat port; use_support, use_heat_port (structural).
    Inputs: excitation [1] (1: the nominal torque).
    Variables: tau = −flange.tau (accelerating, so <= 0 braking); w as in the base.
    Dissipates −tau·w >= 0. Simscape counterpart: none (a Rotational Damper with a nonlinear law).
    """

    tau_nominal = Parameter(unit="N.m", description="largest braking torque")
    w_nominal = Parameter(unit="rad/s", description="speed of the largest torque at TRef",
                          positive=True)
    TRef = Parameter(293.15, unit="K", description="reference temperature", positive=True)
    alpha20 = Parameter(0.0, unit="1/K", description="temperature coefficient at 20 degC")
    T = Parameter(293.15, unit="K", description="temperature without a heat port", positive=True)
    excitation = Input("1", "excitation (1: nominal torque)")

    def torque(self):
        temperature = self.heat_port.T if self.use_heat_port else self.T
        alpha = self.alpha20 / (1 + self.alpha20 * (self.TRef - 293.15))
        wn = self.w / (self.w_nominal * (1 + alpha * (temperature - self.TRef)))
        return -2 * self.tau_nominal * self.excitation**2 * wn / (1 + wn**2)

    def equations(self):
        return super().equations() + self.heat_loss(-self.tau * self.w)

    def dissipation(self):
        return -self.tau, self.w


class ConstantSpeed(Supported):
    """The flange turns at w_fixed relative to the housing, whatever torque that takes (the
    MSL's ConstantSpeed).

    Parameters: w_fixed [rad/s]; use_support (structural).
    """

    flange = Port(rotational, "driven flange")
    w_fixed = Parameter(unit="rad/s", description="fixed speed")

    def equations(self):
        return [sp.Eq(self.flange.w - self.support_w(), self.w_fixed),
                *self.support_reaction(-self.flange.tau)]


class DrivenFlange(Supported):
    """A flange driven through an angle and speed of its own (states phi, w relative to the
    housing): der(phi) = w, der(w) = the acceleration a subclass gives (:meth:`acceleration`),
    flange.w = w + housing speed; the housing takes the reaction.

    Parameters: phi0 [rad], w0 [rad/s] initial angle and speed; use_support (structural).
    """

    flange = Port(rotational, "driven flange")
    phi0 = Parameter(0.0, unit="rad", description="initial angle")
    w0 = Parameter(0.0, unit="rad/s", description="initial speed")
    phi = Variable("rad", "angle relative to the housing")
    w = Variable("rad/s", "speed relative to the housing")

    def acceleration(self):
        """der(w) as an expression."""
        raise NotImplementedError

    def equations(self):
        return [sp.Eq(der(self.phi), self.w), sp.Eq(der(self.w), self.acceleration()),
                sp.Eq(self.flange.w - self.support_w(), self.w),
                *self.support_reaction(-self.flange.tau)]

    def initial(self):
        return {self.phi: self.phi0, self.w: self.w0}


class Accelerate(DrivenFlange):
    """The flange is driven at the angular acceleration a_ref relative to the housing (the
    MSL's Accelerate).

    Parameters: phi0 [rad], w0 [rad/s] initial angle and speed; use_support (structural).
    Inputs: a_ref [rad/s2]. States: phi, w.
    """

    a_ref = Input("rad/s2", "angular acceleration")

    def acceleration(self):
        return self.a_ref


class Position(DrivenFlange):
    """The flange follows the reference angle phi_ref relative to the housing (the MSL's
    Rotational.Sources.Position; exact=False is the default of both).

    exact=False: through the MSL's critically damped second-order filter, der(w) = ((phi_ref −
    phi)·w_crit − af·w)·w_crit/bf, af = 1.3617, bf = 0.6180 (a Bessel filter), w_crit =
    2π·f_crit, from phi0 and w0 (the MSL starts at phi = phi_ref, w = 0: give phi_ref's value
    as phi0). exact=True: phi = phi_ref, w = der(phi_ref) (phi0 and w0 are not used): physlib
    differentiates phi_ref's source, once where the flange drives only springs and dampers;
    an inertia on the flange needs phi_ref's second derivative, which physlib does not take
    (a model of index three: an error says so): drive it with :class:`Move` given the angle,
    speed and acceleration, or with exact=False.

    Parameters: exact (structural); f_crit [Hz] the filter's critical frequency (> 0);
    phi0 [rad], w0 [rad/s] the filter's start; use_support (structural).
    Inputs: phi_ref [rad]. Variables: phi [rad], w [rad/s] relative to the housing (states
    with exact=False).
    """

    AF, BF = 1.3617, 0.6180
    phi_ref = Input("rad", "reference angle")
    exact = Parameter(False, description="exact angle (False: through a second-order filter)",
                      structural=True)
    f_crit = Parameter(50.0, unit="Hz", description="critical frequency of the filter",
                       positive=True)

    def acceleration(self):
        w_crit = 2 * sp.pi * self.f_crit
        return ((self.phi_ref - self.phi) * w_crit - self.AF * self.w) * w_crit / self.BF

    def equations(self):
        if not self.exact:
            return super().equations()
        return [sp.Eq(der(self.phi), self.w), sp.Eq(self.phi, self.phi_ref),
                sp.Eq(self.flange.w - self.support_w(), self.w), *self.support_reaction(-self.flange.tau)]

    def initial(self):
        return {} if self.exact else super().initial()


class Move(Supported):
    """The flange moves relative to the housing as three signals say (the MSL's
    Rotational.Sources.Move, whose input vector u is phi_ref, w_ref, a_ref here: physlib's
    signal ports are scalars): its angle phi = phi_ref, its speed flange.w − support.w =
    w_ref, and where anything needs the speed's derivative (an inertia on the flange) it is
    a_ref, not d/dt of w_ref: physlib differentiates no signal. As in the MSL, the signals
    need not be consistent (a_ref = 1 with phi_ref = w_ref = 0 gives an inertia's torque at
    rest) where they set the flange's motion alone (a fixed housing); what the flange drives
    integrates w_ref (an inertia's phi is phi_ref only when w_ref is phi_ref's derivative).
    Between two moving bodies (a housing on an inertia of its own) keep them consistent: the
    run integrates one body's speed and sets the other's by w_ref, so inconsistent signals
    give motions that depend on which one it integrates.

    Inputs: phi_ref [rad], w_ref [rad/s], a_ref [rad/s2].
    Parameters: use_support (structural). Variables: phi [rad] = phi_ref.
    """

    flange = Port(rotational, "driven flange")
    phi_ref = Input("rad", "angle relative to the housing (the MSL's u[1])")
    w_ref = Input("rad/s", "speed relative to the housing (the MSL's u[2])")
    a_ref = Input("rad/s2", "angular acceleration relative to the housing (the MSL's u[3])")
    phi = Variable("rad", "angle of the flange relative to the housing")

    def equations(self):
        return [sp.Eq(self.phi, self.phi_ref),
                sp.Eq(self.flange.w - self.support_w(), symbols.with_derivative(self.w_ref, self.a_ref, symbols.t)),
                *self.support_reaction(-self.flange.tau)]
