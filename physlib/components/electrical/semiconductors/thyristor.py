"""The thyristor with gate, holding current and a control state, as the Modelica Standard
Library's Analog.Semiconductors.Thyristor."""
import math

from ....core import Component, Mode, Parameter, ParameterError, Port, Variable, der
from ....core.lazy import lazy_module
from ....constants import unit_current, unit_voltage
from ....core.logic import any_of, where
from ....domains import electrical, thermal
from ...noise_variants import noisy_class
from .junctions import BOLTZMANN

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Thyristor"]


class Thyristor(Component):
    """Thyristor with gate, holding current and forward and reverse breakthrough (the MSL's
    Semiconductors.Thyristor; Simscape Electrical's Thyristor)::

        vAK = Anode.v − Cathode.v,  vGK = Gate.v − Cathode.v,  iGK = Gate.i,
        Anode.i + Gate.i + Cathode.i = 0

        gate:  vGK = VGT/IGT·iGK                      if iGK < vRef·IGT/VGT (vGK < vRef)
                     vRef²/VGT + (VGT − vRef)/IGT·iGK  otherwise

        vContot = vConmain + 0                         if iGK < 0.95·IGT
                             1e4 [1/A]·(iGK − 0.95·IGT)·vAK  if iGK < 0.95·IGT + 1 mA
                             10·vAK                    otherwise
        der(vControl) = (vContot − vControl)/(1.87·TON if vContot > vControl else 0.638·TOFF)
        vConmain = Von if Anode.i > IH or vAK > VDRM, else 0          (mode ``hold``)

        Anode.i = −VRRM/Roff·exp(−(vAK + VRRM)/(Nbv·Vt))  if vAK < −VRRM  (reverse breakthrough)
                  vAK/Roff                                if vControl < Voff (blocking)
                  vAK/(√(Ron·Roff)·(Ron/Roff)^((3x − 4x³)/2))  if vControl < Von,
                                        x = (2·vControl − Von − Voff)/(2·(Von − Voff))
                  vAK/Ron                                 otherwise (conducting)

    with the MSL's protected Von = 5 V, Voff = 1.5 V, Ron = (VTM − 0.7 V)/ITM and
    Roff = VDRM²/(VTM·IH). The gate's two lines meet at vGK = vRef, so the MSL's condition
    vGK < vRef is iGK < vRef·IGT/VGT (the characteristic rises for VGT > vRef, which is
    checked). Blocking, the thyristor is the resistance Roff; a gate current near IGT (or vAK
    above VDRM) drives the control voltage vControl up with the time constant 1.87·TON; once
    above Voff the anode resistance falls smoothly (value and slope continuous) to Ron at Von,
    and while the anode current stays above the holding current IH, vConmain = Von holds it
    there, whatever the gate does. Below IH (and vAK below VDRM) vControl falls back with
    0.638·TOFF. Reverse, it is Roff down to −VRRM and breaks through exponentially below.
    The gate circuit does not depend on the main circuit; dv/dt switch-on is not modelled
    (as in the MSL).

    vConmain is discontinuous: it is the mode ``hold`` (1: Von, 0: 0), switched by state events
    where Anode.i − IH or vAK − VDRM crosses zero, as the MSL's ``if`` makes them. Everything
    else is continuous (the rate of vControl too: where its time constant switches, the
    difference it divides is zero) and is written without events, as the MSL's ``smooth``.
    At a steady state vControl = vContot, exactly where the time constant switches: a
    linearization there takes the one of the side the rounding of vContot − vControl falls
    on (0.638·TOFF at exactly zero), which moves vControl's pole but no steady-state gain.

    Parameters (the MSL's names and defaults): VDRM [V] forward breakthrough voltage (> 0,
    100); VRRM [V] reverse breakthrough voltage (>= 0, 100); IDRM [A] saturation current (0.1;
    declared by the MSL, which does not use it either); VTM [V] conducting voltage (> 0.7 V,
    1.7); IH [A] holding current (> 0, 6e-3); ITM [A] conducting current (> 0, 25); VGT [V]
    gate trigger voltage (> vRef, 0.7); IGT [A] gate trigger current (> 0, 5e-3); TON [s]
    switch-on time (> 0, 1e-6); TOFF [s] switch-off time (> 0, 15e-6); Vt [V] voltage
    equivalent of temperature kT/(q·n) (> 0, 0.04); Nbv [1] reverse breakthrough emission
    coefficient (> 0, 0.74); vRef [V] gate knee voltage (0.65); vControl_start [V] the
    control voltage at the start (0: blocking); T [K] the device temperature without heat
    port (the MSL's, 293.15; physlib uses it for the noise only); use_heat_port (structural)
    the port ``heat_port``, which takes the loss (heat_port.Q = −LossPower) and gives the
    temperature.
    Variables: vAK, vGK [V], iGK [A], vControl [V] (the state), vContot, vConmain [V].
    Modes: hold = 1 while vConmain = Von. Dissipates LossPower = Anode.v·Anode.i +
    Cathode.v·Cathode.i + Gate.v·Gate.i = vAK·Anode.i + vGK·iGK (it stores nothing: vControl
    is a control voltage, not a charge).

    Noise (the convention of the MSL-style ZDiode: thermal, no shot noise): two sources, each a
    current in parallel with a conductance, 4kT·G at T (or heat_port.T): ``"<name>.ak"`` of
    the anode–cathode conductance ∂Anode.i/∂vAK with vControl held (1/Roff blocking, 1/Ron
    conducting, the breakthrough's slope below −VRRM) and ``"<name>.gk"`` of the gate's
    (IGT/VGT, or IGT/(VGT − vRef) above the knee). Where a gate current near IGT makes
    vContot follow vAK, the small-signal device is no longer a plain conductance and the
    sources are not in equilibrium with it.
    """

    Anode = Port(electrical, "anode")
    Cathode = Port(electrical, "cathode")
    Gate = Port(electrical, "gate")
    VDRM = Parameter(100.0, unit="V", description="forward breakthrough voltage", positive=True)
    VRRM = Parameter(100.0, unit="V", description="reverse breakthrough voltage", nonnegative=True)
    IDRM = Parameter(0.1, unit="A", description="saturation current (unused, as in the MSL)")
    VTM = Parameter(1.7, unit="V", description="conducting voltage", positive=True)
    IH = Parameter(6e-3, unit="A", description="holding current", positive=True)
    ITM = Parameter(25.0, unit="A", description="conducting current", positive=True)
    VGT = Parameter(0.7, unit="V", description="gate trigger voltage", positive=True)
    IGT = Parameter(5e-3, unit="A", description="gate trigger current", positive=True)
    TON = Parameter(1e-6, unit="s", description="switch-on time", positive=True)
    TOFF = Parameter(15e-6, unit="s", description="switch-off time", positive=True)
    Vt = Parameter(0.04, unit="V", description="voltage equivalent of temperature (kT/qn)", positive=True)
    Nbv = Parameter(0.74, unit="1", description="reverse breakthrough emission coefficient", positive=True)
    vRef = Parameter(0.65, unit="V", description="gate knee voltage")
    vControl_start = Parameter(0.0, unit="V", description="control voltage at the start")
    T = Parameter(293.15, unit="K", description="device temperature without heat port (its noise's)",
                  positive=True)
    use_heat_port = Parameter(False, description="give the thyristor its heat port", structural=True)
    heat_port = Port(thermal, "heat port taking the loss", condition="use_heat_port")
    vAK = Variable("V", "voltage between anode and cathode")
    vGK = Variable("V", "voltage between gate and cathode")
    iGK = Variable("A", "gate current")
    vControl = Variable("V", "control voltage (the state)")
    vContot = Variable("V", "control voltage vControl follows")
    vConmain = Variable("V", "holding part of vContot: Von or 0")
    hold = Mode({"released": 0, "held": 1}, start="released",
                description="vConmain = Von: Anode.i > IH or vAK > VDRM")
    # the MSL's protected Von, Voff, and Ron's knee, in volts
    VON, VOFF, KNEE = 5.0 * unit_voltage, 1.5 * unit_voltage, 0.7 * unit_voltage

    def validate(self):
        if self.VTM <= self.KNEE:
            raise ParameterError(f"Thyristor {self.name!r}: VTM = {self.VTM} V must exceed 0.7 V "
                                 "(the on-resistance is (VTM − 0.7 V)/ITM)")
        if self.VGT <= self.vRef:
            raise ParameterError(f"Thyristor {self.name!r}: VGT = {self.VGT} V must exceed vRef = "
                                 f"{self.vRef} V, or the gate characteristic falls where it bends")

    @classmethod
    def resistances(cls, p):
        """(Ron, Roff) [Ohm], the conducting and the blocking resistance, of the parameters
        ``p`` (by name: symbols or numbers)."""
        return (p["VTM"] - cls.KNEE) / p["ITM"], p["VDRM"]**2 / p["VTM"] / p["IH"]

    @classmethod
    def passage(cls, vControl, Ron, Roff):
        """The anode resistance [Ohm] while vControl passes from Voff (Roff) to Von (Ron),
        value and slope continuous at both ends (symbols or numbers)."""
        x = (2 * vControl - cls.VON - cls.VOFF) / (2 * (cls.VON - cls.VOFF))
        return (Ron * Roff) ** 0.5 * (Ron / Roff) ** ((3 * x - 4 * x**3) / 2)

    def anode_current(self):
        """Anode.i of vAK and vControl: reverse breakthrough, blocking, the smooth passage
        and conducting."""
        Ron, Roff = self.resistances({n: getattr(self, n) for n in ("VTM", "ITM", "VDRM", "IH")})
        vAK, vControl = self.vAK, self.vControl
        breakthrough = -self.VRRM / Roff * sp.exp(-(vAK + self.VRRM) / (self.Nbv * self.Vt))
        return sp.Piecewise((breakthrough, vAK < -self.VRRM), (vAK / Roff, vControl < self.VOFF),
                            (vAK / self.passage(vControl, Ron, Roff), vControl < self.VON),
                            (vAK / Ron, True))

    def equations(self):
        VGT, IGT, vRef, iGK, vAK = self.VGT, self.IGT, self.vRef, self.iGK, self.vAK
        through = iGK - self._noise("gk")        # the gate conductance's current
        gate = sp.Piecewise((VGT / IGT * through, through < vRef * IGT / VGT),
                            (vRef**2 / VGT + through * (VGT - vRef) / IGT, True))
        # the MSL's 10000 [1/A] and 1e-3 [A], written with their units
        fired = sp.Piecewise((0, iGK < 0.95 * IGT),
                             (1e4 / unit_current * (iGK - 0.95 * IGT) * vAK, iGK < 0.95 * IGT + 1e-3 * unit_current),
                             (10 * vAK, True))
        lag = self.vContot - self.vControl
        time_constant = sp.Piecewise((1.87 * self.TON, lag > 0), (0.638 * self.TOFF, True))
        eqs = [sp.Eq(self.Anode.i + self.Gate.i + self.Cathode.i, 0),
               sp.Eq(self.vGK, self.Gate.v - self.Cathode.v),
               sp.Eq(self.vAK, self.Anode.v - self.Cathode.v),
               sp.Eq(self.iGK, self.Gate.i), sp.Eq(self.vGK, gate),
               sp.Eq(self.vContot, self.vConmain + fired),
               sp.Eq(der(self.vControl), lag / time_constant),
               sp.Eq(self.Anode.i, self.anode_current() + self._noise("ak")),
               sp.Eq(self.vConmain, sp.Piecewise((self.VON, sp.Eq(self.hold, 1)), (0, True)))]
        if self.use_heat_port:
            eqs.append(sp.Eq(self.heat_port.Q, -self.dissipation()[0]))
        return eqs

    def initial(self):
        return {self.vControl: self.vControl_start}

    def guards(self):
        return [self.Anode.i - self.IH, self.vAK - self.VDRM]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # Released, both conditions were false, so a fired guard has risen: it counts as met
        # even where it was located exactly at zero. Held, a fired guard has fallen (or risen
        # while the other one held): it counts as met only while still above zero. Changing
        # the mode moves no current at the event (vConmain only drives der(vControl)), so
        # later rounds of the event iteration find the same values and the same mode.
        released = v["pre(hold)"] == 0
        above = (v["Anode.i"] - v["IH"], v["vAK"] - v["VDRM"])
        met = [where(f, where(released, g >= 0, g > 0), g > 0) for f, g in zip(fired, above)]
        return {"hold": where(any_of(*met), 1, 0)}

    def dissipation(self):
        return self.vAK * self.Anode.i + self.vGK * self.iGK, sp.Integer(1)

    # --- noise: the Johnson noise of the anode and the gate conductance, each a current in
    # parallel with it (see physlib.components.noise_variants)

    NOISE_PARTS = {"ak": "thermal", "gk": "thermal"}

    def _noise(self, part):
        return 0     # the noise variant's noise current of ``part`` [A]

    def noise_parts(self, params):
        return dict(self.NOISE_PARTS)

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient) of ``part``: 4kT·G of the anode–cathode ("ak")
        or gate–cathode ("gk") small-signal conductance at the operating point (``values`` by
        local name, ``params`` by name), vControl held (it is a state), at heat_port.T or T."""
        T = values.get("heat_port.T", params["T"])
        if part == "gk":
            below = values["iGK"] < params["vRef"] * params["IGT"] / params["VGT"]
            G = params["IGT"] / (params["VGT"] if below else params["VGT"] - params["vRef"])
            return 4 * BOLTZMANN * T * G, 0.0
        Ron, Roff = self.resistances(params)
        vAK, vControl, Vb = values["vAK"], values["vControl"], params["Nbv"] * params["Vt"]
        if vAK < -params["VRRM"]:
            G = params["VRRM"] / (Roff * Vb) * math.exp(-(vAK + params["VRRM"]) / Vb)
        elif vControl < self.VOFF:
            G = 1 / Roff
        else:
            G = 1 / (self.passage(vControl, Ron, Roff) if vControl < self.VON else Ron)
        return 4 * BOLTZMANN * T * G, 0.0

    def noise_variant(self):
        return noisy_class(type(self))(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        return "noise_" + part
