"""DC machines as the Modelica Standard Library's Electrical.Machines.BasicMachines.DCMachines:
permanent magnet, electrically (shunt or separately) excited and series excited, each one
component with the MSL's parameter names, its losses and an optional heat port.

Every machine is the MSL's circuit written as equations. Armature (pins pin_ap, pin_an,
current ia from pin_ap through the machine):

    va = R_a·ia + v_core + v_brush,    v_core = La·d(i_la)/dt + vai,    ia = i_la + i_core

- R_a = Ra·(1 + alpha_a·(Ta − TaRef)), alpha_a = alpha20a/(1 + alpha20a·(TaRef − 293.15 K)) (the
  MSL's convertAlpha; alpha20a is the coefficient at 20 °C), Ta the armature temperature.
- brush: v_brush = brush_V·ia/ILinear for |ia| <= ILinear, ±brush_V beyond (ILinear =
  0.01·IaNominal, the MSL's default record).
- core: i_core = GcRef·v_core, GcRef = core_PRef/ViNominal² (structural: zero or not is
  part of the compiled model; eddy-current losses at the
  reference voltage ViNominal; the MSL implements no hysteresis part either).
- air gap: vai = turnsRatio·psi_e·wMechanical, tauElectrical = turnsRatio·psi_e·i_la, where
  turnsRatio = ViNominal/(wNominal·psi_eNominal) and ViNominal = VaNominal − R_a(TaNominal)·
  IaNominal − brush drop (− the series field's drop for the series-excited machine).

Shaft (flange; housing: ``support`` with use_support, fixed otherwise): the rotor (Jr) at
speed w takes tauElectrical, friction and stray-load torques and the shaft's:
Jr·dw/dt = tauElectrical + tau_friction + tau_strayLoad + flange.tau; wMechanical = w − support.w.

- friction: tau_friction = −tauRef·sign(w)·(|w|/wNominal)^friction_power_w for |w| > wLinear,
  linear through zero below (wLinear = 0.001·wNominal, tauRef = friction_PRef/wNominal).
- stray load: tau_strayLoad = −(strayLoad_PRef/wNominal)·(ia/IaNominal)²·sign(w)·
  (|w|/wNominal)^strayLoad_power_w.

The reference speeds of friction, core and stray-load losses are wNominal, the reference
current IaNominal and reference voltage ViNominal: the MSL's defaults, which its data records use.
All losses are zero by default (as the MSL's records).

Thermal: without the heat port the windings are at TaOperational (TeOperational); with
``use_heat_port`` every winding is at heat_port.T and every loss leaves through it
(heat_port.Q = −lossPower). That is the MSL's thermal port reduced to one temperature: enough
for prescribing the armature temperature (DCPM_Temperature) or cooling the machine as one body.
The MSL's stator inertia Js (only felt with useSupport) is not modelled.

Energy books: stores the armature's (and field's) magnetic energy and the rotor's kinetic
energy; dissipates lossPower. Noise: the Johnson noise of the winding resistances (4kT/R at the
winding's temperature, a current in parallel with each); friction and the other losses are
noiseless.
"""
import math

from ...constants import Constant
from ...core import Parameter, ParameterError, Port, Variable, der
from ...core.lazy import lazy_module
from ...core.positions import PositionState
from ...domains import electrical, rotational, thermal
from ..noise_variants import noisy_class
from ..rotational.interfaces import Supported
from .semiconductors.junctions import BOLTZMANN

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["DC_PermanentMagnet", "DC_ElectricalExcited", "DC_SeriesExcited"]

T20 = 293.15        # K: 20 °C, where the MSL's alpha20 coefficients are given


def _resistance(R, T_ref, alpha20, T):
    """The MSL's convertResistance: R (at T_ref) at temperature T, alpha20 given at 20 °C."""
    return R * (1 + alpha20 / (1 + alpha20 * (T_ref - T20)) * (T - T_ref))


def _odd_power(x, scale, exponent):
    """sign(x)·(|x|/scale)^exponent, continuous through x = 0."""
    return sp.Piecewise(((x / scale) ** exponent, x > 0), (-(-x / scale) ** exponent, x < 0), (0, True))


class _DCMachine(Supported):
    """The armature, shaft, losses and heat port every DC machine shares (module notes); a
    subclass gives its excitation: the flux term turnsRatio·psi_e and its field's equations."""

    NOISE_PARTS = {"ra": "thermal"}
    position_states = (PositionState("phiMechanical", "phi0", "flange", "support"),)

    pin_ap = Port(electrical, "armature positive pin")
    pin_an = Port(electrical, "armature negative pin")
    flange = Port(rotational, "shaft")
    use_heat_port = Parameter(False, description="give the machine a heat port", structural=True)
    heat_port = Port(thermal, "heat port at the windings' temperature", condition="use_heat_port")

    VaNominal = Parameter(100.0, unit="V", description="nominal armature voltage", positive=True)
    IaNominal = Parameter(100.0, unit="A", description="nominal armature current (> 0 motor)", nonzero=True)
    wNominal = Parameter(1425 * 2 * math.pi / 60, unit="rad/s", description="nominal speed", positive=True)
    TaNominal = Parameter(293.15, unit="K", description="nominal armature temperature", positive=True)
    Ra = Parameter(0.05, unit="Ohm", description="armature resistance at TaRef", positive=True)
    TaRef = Parameter(293.15, unit="K", description="reference temperature of Ra", positive=True)
    alpha20a = Parameter(0.0, unit="1/K", description="temperature coefficient of Ra at 20 degC")
    La = Parameter(0.0015, unit="H", description="armature inductance", positive=True)
    Jr = Parameter(0.15, unit="kg.m2", description="rotor inertia", positive=True)
    TaOperational = Parameter(293.15, unit="K", description="armature temperature without heat port",
                              positive=True)
    friction_PRef = Parameter(0.0, unit="W", description="friction loss at wNominal", nonnegative=True)
    friction_power_w = Parameter(2.0, unit="1", description="exponent of friction over speed", positive=True)
    core_PRef = Parameter(0.0, unit="W", description="core loss at ViNominal", nonnegative=True,
                          structural=True)
    strayLoad_PRef = Parameter(0.0, unit="W", description="stray-load loss at IaNominal, wNominal",
                               nonnegative=True)
    strayLoad_power_w = Parameter(1.0, unit="1", description="exponent of stray load over speed", positive=True)
    brush_V = Parameter(0.0, unit="V", description="brush voltage drop beyond ILinear", nonnegative=True)
    phi0 = Parameter(0.0, unit="rad", description="initial shaft angle")
    w0 = Parameter(0.0, unit="rad/s", description="initial speed")
    ia0 = Parameter(0.0, unit="A", description="initial armature current")

    va = Variable("V", "armature voltage pin_ap.v - pin_an.v")
    ia = Variable("A", "armature current into pin_ap")
    i_la = Variable("A", "armature current through La and the air gap (ia less the core's)")
    vai = Variable("V", "induced armature voltage")
    tauElectrical = Variable("N.m", "air-gap torque")
    w = Variable("rad/s", "rotor speed")
    wMechanical = Variable("rad/s", "rotor speed relative to the housing")
    phiMechanical = Variable("rad", "shaft angle relative to the housing")
    Ta = Variable("K", "armature temperature", start=293.15)
    v_brush = Variable("V", "brush voltage drop")
    v_core = Variable("V", "voltage across the core-loss conductance")
    tau_friction = Variable("N.m", "friction torque on the rotor")
    tau_strayLoad = Variable("N.m", "stray-load torque on the rotor")
    lossPower = Variable("W", "total loss power")

    # --- what a subclass gives ------------------------------------------------------------

    def flux(self):
        """turnsRatio·psi_e [V.s/rad]: induced voltage per speed, torque per current."""
        raise NotImplementedError

    def field_equations(self):
        """The field winding's equations (none for the permanent magnet)."""
        return []

    def field_loss(self):
        """The field winding's copper loss [W]."""
        return 0

    def field_drop_nominal(self):
        """The field's voltage drop at IaNominal in the armature circuit (series field)."""
        return 0

    # --- shared ----------------------------------------------------------------------------

    def _noise(self, part):
        return 0     # the noise variant's noise current of ``part`` [A] (noise_variants)

    def winding_temperature(self, operational):
        return self.heat_port.T if self.use_heat_port else operational

    def validate(self):
        # The MSL asserts ViNominal > 0: the nominal point must leave an induced voltage after
        # the drops. At or below zero the flux turnsRatio·psi_e is zero or negative, and the
        # motor makes no torque or runs backwards.
        # (numbers here: ViNominal's Piecewise would import SymPy at every construction)
        brush = self.brush_V if self.IaNominal > 0 else -self.brush_V
        vi = (self.VaNominal - _resistance(self.Ra, self.TaRef, self.alpha20a, self.TaNominal) * self.IaNominal
              - self.field_drop_nominal() - brush)
        if not vi > 0:
            raise ParameterError(
                f"{type(self).__name__} {self.name!r}: VaNominal ({self.VaNominal:g} V) leaves no induced "
                f"voltage at the nominal point (ViNominal = {vi:g} V after the resistive and brush drops "
                f"at IaNominal = {self.IaNominal:g} A); VaNominal must exceed them (check Ra, IaNominal)")

    def ViNominal(self):
        """The induced voltage at the nominal point."""
        brush = sp.Piecewise((self.brush_V, self.IaNominal > 0), (-self.brush_V, True))
        return (self.VaNominal - _resistance(self.Ra, self.TaRef, self.alpha20a, self.TaNominal) * self.IaNominal
                - self.field_drop_nominal() - brush)

    def core_conductance(self):
        """The core loss as a conductance [S]: core_PRef at the nominal induced voltage. The
        structural core_PRef is a bare number in the equations: given its unit back here."""
        return Constant(self.core_PRef, "W", "core_PRef") / self.ViNominal() ** 2

    def armature_equations(self):
        R = _resistance(self.Ra, self.TaRef, self.alpha20a, self.Ta)
        i_linear = 0.01 * sp.Abs(self.IaNominal)
        brush = sp.Piecewise((self.brush_V, self.ia > i_linear), (-self.brush_V, self.ia < -i_linear),
                             (self.brush_V * self.ia / i_linear, True))
        # Without core loss the armature current is la's (ia = i_la): no conductance of zero
        # whose voltage nothing fixes (a series field then puts two inductors in series).
        core = [sp.Eq(self.ia, self.i_la + self.core_conductance() * self.v_core)] \
            if self.core_PRef > 0 else [sp.Eq(self.ia, self.i_la)]
        return [sp.Eq(self.va, self.pin_ap.v - self.pin_an.v), sp.Eq(self.pin_ap.i + self.pin_an.i, 0),
                sp.Eq(self.ia, self.pin_ap.i), sp.Eq(self.Ta, self.winding_temperature(self.TaOperational)),
                sp.Eq(self.va, R * (self.ia - self._noise("ra")) + self.v_core + self.v_brush),
                sp.Eq(self.v_brush, brush),
                sp.Eq(self.v_core, self.La * der(self.i_la) + self.vai),
                *core,
                sp.Eq(self.vai, self.flux() * self.wMechanical),
                sp.Eq(self.tauElectrical, self.flux() * self.i_la)]

    def shaft_equations(self):
        w_linear = 0.001 * self.wNominal
        tau_ref = self.friction_PRef / self.wNominal
        beyond = -tau_ref * _odd_power(self.wMechanical, self.wNominal, self.friction_power_w)
        friction = sp.Piecewise((beyond, self.wMechanical > w_linear), (beyond, self.wMechanical < -w_linear),
                                (-tau_ref * (w_linear / self.wNominal) ** self.friction_power_w
                                 * self.wMechanical / w_linear, True))
        stray = -(self.strayLoad_PRef / self.wNominal) * (self.ia / self.IaNominal) ** 2 * \
            _odd_power(self.wMechanical, self.wNominal, self.strayLoad_power_w)
        inner = self.tauElectrical + self.tau_friction + self.tau_strayLoad
        # The stator takes −inner; support.tau is the torque flowing in through the housing,
        # +inner, as a torque source's (flange.tau + support.tau = Jr·dw/dt: no torque is made).
        return [sp.Eq(self.flange.w, self.w), sp.Eq(self.wMechanical, self.w - self.support_w()),
                sp.Eq(der(self.phiMechanical), self.wMechanical),
                sp.Eq(self.tau_friction, friction), sp.Eq(self.tau_strayLoad, stray),
                sp.Eq(self.Jr * der(self.w), inner + self.flange.tau),
                *self.support_reaction(inner)]

    def equations(self):
        R = _resistance(self.Ra, self.TaRef, self.alpha20a, self.Ta)
        loss = (R * self.ia ** 2 + self.v_brush * self.ia + self.core_conductance() * self.v_core ** 2
                - (self.tau_friction + self.tau_strayLoad) * self.wMechanical + self.field_loss())
        heat = [sp.Eq(self.heat_port.Q, -self.lossPower)] if self.use_heat_port else []
        return [*self.armature_equations(), *self.field_equations(), *self.shaft_equations(),
                sp.Eq(self.lossPower, loss), *heat]

    def initial(self):
        return {self.i_la: self.ia0, self.w: self.w0, self.phiMechanical: self.phi0}

    def energy(self):
        return self.La * self.i_la ** 2 / 2 + self.Jr * self.w ** 2 / 2

    def dissipation(self):
        return self.lossPower, sp.Integer(1)

    def port_groups(self):
        windings = [("pin_ap", "pin_an"), ("pin_ep", "pin_en")][:len(self.NOISE_PARTS)]
        shaft = [("flange", "support") if self.use_support else ("flange",)]
        return windings + shaft + ([("heat_port",)] if self.use_heat_port else [])

    # --- noise (the windings' Johnson noise, see physlib.components.noise_variants) ------------

    def noise_parts(self, params):
        return dict(self.NOISE_PARTS)

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient) of the winding ``part`` at an operating point."""
        if part == "ra":
            R = params["Ra"] * (1 + params["alpha20a"] / (1 + params["alpha20a"] * (params["TaRef"] - T20))
                                * (values["Ta"] - params["TaRef"]))
            return 4 * BOLTZMANN * values["Ta"] / R, 0.0
        R = params["Re"] * (1 + params["alpha20e"] / (1 + params["alpha20e"] * (params["TeRef"] - T20))
                            * (values["Te"] - params["TeRef"]))
        return 4 * BOLTZMANN * values["Te"] / R, 0.0

    def noise_variant(self):
        return noisy_class(type(self))(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        return "noise_" + part


class DC_PermanentMagnet(_DCMachine):
    """DC machine with permanent-magnet excitation (the MSL's DC_PermanentMagnet; Simscape's
    DC Motor): the flux is constant, turnsRatio·psi_e = ViNominal/wNominal, so
    vai = ViNominal/wNominal·wMechanical. Armature, shaft, losses and heat port: see the module
    notes. Defaults: the MSL's DcPermanentMagnetData (100 V, 100 A, 1425 rpm, 0.05 Ω, 1.5 mH,
    0.15 kg·m²).
    """

    def flux(self):
        return self.ViNominal() / self.wNominal


class _Field(_DCMachine):
    """A field winding on pins pin_ep, pin_en: ve = R_e·ie + Le·d(ie)/dt, psi_e = Lme·ie with
    Lme = Le·(1 − sigmae), R_e = Re at the field temperature Te."""

    NOISE_PARTS = {"ra": "thermal", "re": "thermal"}

    pin_ep = Port(electrical, "field positive pin")
    pin_en = Port(electrical, "field negative pin")
    TeRef = Parameter(293.15, unit="K", description="reference temperature of Re", positive=True)
    alpha20e = Parameter(0.0, unit="1/K", description="temperature coefficient of Re at 20 degC")
    sigmae = Parameter(0.0, unit="1", description="stray fraction of Le", nonnegative=True)
    TeOperational = Parameter(293.15, unit="K", description="field temperature without heat port",
                              positive=True)

    ve = Variable("V", "field voltage pin_ep.v - pin_en.v")
    ie = Variable("A", "field current into pin_ep")
    psi_e = Variable("Wb", "field flux linkage Lme*ie")
    Te = Variable("K", "field temperature", start=293.15)

    def R_e(self):
        return _resistance(self.Re, self.TeRef, self.alpha20e, self.Te)

    def psi_eNominal(self):
        raise NotImplementedError

    def flux(self):
        return self.ViNominal() / (self.wNominal * self.psi_eNominal()) * self.psi_e

    def field_equations(self):
        return [sp.Eq(self.ve, self.pin_ep.v - self.pin_en.v), sp.Eq(self.pin_ep.i + self.pin_en.i, 0),
                sp.Eq(self.ie, self.pin_ep.i), sp.Eq(self.Te, self.winding_temperature(self.TeOperational)),
                sp.Eq(self.psi_e, self.Le * (1 - self.sigmae) * self.ie),
                sp.Eq(self.ve, self.R_e() * (self.ie - self._noise("re")) + self.Le * der(self.ie))]

    def field_loss(self):
        return self.R_e() * self.ie ** 2

    def energy(self):
        return super().energy() + self.Le * self.ie ** 2 / 2


class DC_ElectricalExcited(_Field):
    """DC machine with a shunt or separate field winding (the MSL's DC_ElectricalExcited;
    Simscape's DC Motor with a wound field): field pins pin_ep, pin_en, connected by the user;
    psi_eNominal = Lme·IeNominal. Defaults: the MSL's DcElectricalExcitedData (IeNominal 1 A,
    Re 100 Ω, Le 1 H). Armature, shaft, losses and heat port: see the module notes.

    Parameters besides the armature's: IeNominal [A], Re [Ohm] at TeRef, TeRef [K], alpha20e
    [1/K], Le [H] total field inductance, sigmae stray fraction, TeOperational [K], ie0 [A].
    """

    IeNominal = Parameter(1.0, unit="A", description="nominal field current", positive=True)
    Re = Parameter(100.0, unit="Ohm", description="field resistance at TeRef", positive=True)
    Le = Parameter(1.0, unit="H", description="total field inductance", positive=True)
    ie0 = Parameter(0.0, unit="A", description="initial field current")

    def psi_eNominal(self):
        return self.Le * (1 - self.sigmae) * self.IeNominal

    def initial(self):
        return {**super().initial(), self.ie: self.ie0}


class DC_SeriesExcited(_Field):
    """DC machine with a series field winding (the MSL's DC_SeriesExcited; Simscape's DC Motor
    with a series field): field pins pin_ep, pin_en, which the user connects in series with the
    armature; psi_eNominal = Lme·|IaNominal|, and ViNominal also subtracts the field's drop
    Re(TeNominal)·IaNominal. Defaults: the MSL's DcSeriesExcitedData (1410 rpm, Re 0.01 Ω,
    Le 0.5 mH). The field current's start follows from the armature's through the circuit.
    Armature, shaft, losses and heat port: see the module notes.

    Parameters besides the armature's: Re [Ohm] at TeRef, TeRef [K], alpha20e [1/K], Le [H]
    total field inductance, sigmae stray fraction, TeNominal [K], TeOperational [K].
    """

    wNominal = Parameter(1410 * 2 * math.pi / 60, unit="rad/s", description="nominal speed", positive=True)
    Re = Parameter(0.01, unit="Ohm", description="field resistance at TeRef", positive=True)
    Le = Parameter(0.0005, unit="H", description="total field inductance", positive=True)
    TeNominal = Parameter(293.15, unit="K", description="nominal field temperature", positive=True)

    def psi_eNominal(self):
        return self.Le * (1 - self.sigmae) * sp.Abs(self.IaNominal)

    def field_drop_nominal(self):
        return _resistance(self.Re, self.TeRef, self.alpha20e, self.TeNominal) * self.IaNominal
