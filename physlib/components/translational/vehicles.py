"""The road vehicle (the Modelica Standard Library's Translational.Components.Vehicle, MSL 4.0+):
its mass and drive-train inertia, aerodynamic drag, rolling and inclination resistance."""
from ...constants import Constant
from ...core import Input, Parameter, Port, Variable, der
from ...core import Component
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import rotational, translational
from .sources import regularized_sign

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Vehicle"]

G_N = 9.80665
"""[m/s²] standard gravity (Modelica.Constants.g_n)."""


class Vehicle(Component):
    """A ground vehicle on a road (the MSL's Translational.Components.Vehicle; Simscape: Vehicle
    Body, without load transfer), driven at its wheel flange ``flangeR`` (rotational) and
    coupled at ``flangeT`` (translational, to a trailer); either may be left open.

    The wheels (radius R) roll without slip: flangeR.w = w = v/R, phi = s/R. The vehicle mass m
    and the drive train's inertia J (at the wheels) accelerate together:
    (m + J/R²)·dv/dt = flangeT.f + flangeR.tau/R + f_drag + f_roll + f_grav with

      aerodynamic drag f_drag = −Cd·A·rho/2·(v − v_wind)·|v − v_wind|,
      rolling resistance f_roll = −Cr·m·g·cos(atan(inclination))·sign(v) (sign linear below vReg),
      inclination resistance f_grav = −m·g·sin(atan(inclination)) (inclination = tan(angle)).

    v_wind, Cr and inclination are the constants vWindConstant, CrConstant, inclinationConstant
    or, with useWindInput, useCrInput, useInclinationInput, the inputs vWind, cr, inclination;
    as in the MSL, the wind input reaches v_wind through a first-order filter of cut-off
    WIND_FILTER = 50 Hz (dv_wind/dt = (vWind − v_wind)·2π·50 Hz, from vWind_start: the MSL
    starts it at the input's value, so give that).

    Parameters: m [kg] total mass (> 0); J [kg.m²] drive-train inertia (>= 0); R [m] wheel radius
    (> 0); A [m²] cross section; Cd [1] drag coefficient; rho [kg/m³] air density; g [m/s²];
    vReg [m/s] regularization of the rolling resistance; s0 [m], v0 [m/s] initial position and
    velocity; vWind_start [m/s]; the constants and switches above (switches structural).
    States: s [m], v [m/s]. Variables: w [rad/s], phi [rad] of the wheels; v_wind [m/s].
    Stores (m + J/R²)·v²/2; dissipates (−f_drag − f_roll)·v, the power road and air take
    (without wind, the loss).
    """

    position_states = (PositionState("s", "s0", "flangeT"),)
    WIND_FILTER = Constant(50.0, "Hz", "WIND_FILTER")
    """[Hz] cut-off of the filter the wind input passes (the MSL's, fixed)."""

    flangeT = Port(translational, "translational flange (trailer coupling)")
    flangeR = Port(rotational, "rotational flange (the driven wheels)")
    m = Parameter(unit="kg", description="total mass", positive=True)
    J = Parameter(0.0, unit="kg.m2", description="drive-train inertia at the wheels", nonnegative=True)
    R = Parameter(unit="m", description="wheel radius", positive=True)
    A = Parameter(1.0, unit="m2", description="cross section", nonnegative=True)
    Cd = Parameter(0.5, unit="1", description="drag coefficient", nonnegative=True)
    rho = Parameter(1.2, unit="kg/m3", description="air density", nonnegative=True)
    g = Parameter(G_N, unit="m/s2", description="gravity", nonnegative=True)
    vReg = Parameter(1e-3, unit="m/s", description="rolling resistance linear below vReg", positive=True)
    s0 = Parameter(0.0, unit="m", description="initial position")
    v0 = Parameter(0.0, unit="m/s", description="initial velocity")
    useWindInput = Parameter(False, description="wind velocity from the input vWind", structural=True)
    vWindConstant = Parameter(0.0, unit="m/s", description="wind velocity without input")
    vWind_start = Parameter(0.0, unit="m/s", description="initial filtered wind velocity (with input)")
    useCrInput = Parameter(False, description="rolling resistance coefficient from the input cr",
                           structural=True)
    CrConstant = Parameter(0.015, unit="1", description="rolling resistance coefficient without input")
    useInclinationInput = Parameter(False, description="inclination from the input inclination",
                                    structural=True)
    inclinationConstant = Parameter(0.0, unit="1", description="inclination = tan(angle) without input")
    vWind = Input("m/s", "wind velocity", condition="useWindInput")
    cr = Input("1", "rolling resistance coefficient", condition="useCrInput")
    inclination = Input("1", "inclination = tan(angle)", condition="useInclinationInput")
    s = Variable("m", "position")
    v = Variable("m/s", "velocity")
    w = Variable("rad/s", "wheel speed")
    phi = Variable("rad", "wheel angle")
    v_wind = Variable("m/s", "wind velocity")

    def resistances(self):
        """(f_drag, f_roll, f_grav) [N], each pushing the vehicle forward when positive."""
        cr = self.cr if self.useCrInput else self.CrConstant
        angle = sp.atan(self.inclination if self.useInclinationInput else self.inclinationConstant)
        v_air = self.v - self.v_wind
        f_drag = -self.Cd * self.A * self.rho / 2 * v_air * sp.Abs(v_air)
        f_roll = -cr * self.m * self.g * sp.cos(angle) * regularized_sign("linear", self.v, self.vReg)
        return f_drag, f_roll, -self.m * self.g * sp.sin(angle)

    def equations(self):
        mass = self.m + self.J / self.R**2
        return [sp.Eq(self.flangeT.v, self.v), sp.Eq(der(self.s), self.v),
                sp.Eq(self.w, self.v / self.R), sp.Eq(self.flangeR.w, self.w),
                sp.Eq(self.phi, self.s / self.R),
                self.wind(),
                sp.Eq(mass * der(self.v),
                      self.flangeT.f + self.flangeR.tau / self.R + sum(self.resistances()))]

    def wind(self):
        """The wind velocity's equation: the constant, or the input through the first-order
        filter of cut-off WIND_FILTER (the MSL's wind Speed source, exact=false)."""
        if not self.useWindInput:
            return sp.Eq(self.v_wind, self.vWindConstant)
        return sp.Eq(der(self.v_wind), (self.vWind - self.v_wind) * 2 * sp.pi * self.WIND_FILTER)  # [1/s]

    def initial(self):
        start = {self.s: self.s0, self.v: self.v0}
        return {**start, self.v_wind: self.vWind_start} if self.useWindInput else start

    def energy(self):
        return (self.m + self.J / self.R**2) * self.v**2 / 2

    def dissipation(self):
        f_drag, f_roll, _ = self.resistances()
        return -(f_drag + f_roll), self.v
