"""The SPICE level-1 JFET (Shichman–Hodges with the Sydney University doping-tail term B),
N and P channel, as ngspice-39's ``jfet``.

Re-exported as :class:`physlib.components.electrical.JFET`.
"""
from ....core import Component, Parameter, ParameterError, Port, Variable, der
from ....core.lazy import lazy_module
from ....domains import electrical
from .fet_noise import FETNoiseParts
from ..interfaces import ConstantsChoice, constant_set
from .junctions import EXP_LIMIT, depletion_charge, junction_current
from ...noise_variants import noisy_class

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["JFET"]

GRADING = 0.5                 # the gate junctions' grading coefficient (fixed in ngspice's JFET)


class JFET(FETNoiseParts, Component):
    """SPICE level-1 junction FET (ngspice-39's ``jfet``), N or P channel: drain ``d``, gate
    ``g`` and source ``s`` pins, series resistances RD, RS to an internal drain d' and source s',
    the channel current between them, gate–source and gate–drain diodes with their depletion
    charge, temperature dependence, thermal and flicker noise.

    Parameters (SPICE names):

    ======= ======== ================================================= ===========
    name    unit     meaning                                           default
    ======= ======== ================================================= ===========
    channel          "N" or "P" (structural)                           "N"
    VTO     V        threshold (pinch-off) voltage (< 0: depletion)    −2
    BETA    A/V²     transconductance parameter                        1e-4
    LAMBDA  1/V      channel-length modulation (>= 0)                  0
    RD, RS  Ohm      drain, source resistance (>= 0; divided by        0
                     AREA·M)
    CGS,CGD F        zero-bias gate–source, gate–drain capacitance     0
    PB      V        gate junction potential (> 0)                     1
    FC      1        forward-bias depletion capacitance coeff.         0.5
                     [0, 0.95]
    IS      A        gate junction saturation current (> 0)            1e-14
    B       1        doping-tail parameter (Sydney University)         1
    EG      V        band gap of IS's temperature rule, eV per e (> 0) 1.11
    KF      1        flicker noise coefficient (>= 0)                  0
    AF      1        flicker noise exponent (> 0)                      1
    AREA    1        area factor (> 0)                                 1
    M       1        multiplier: M devices in parallel (> 0)           1
    T       K        device (circuit) temperature (> 0)                300.15
    TNOM    K        temperature the parameters were measured at       300.15
    GMIN    S        conductance across each gate junction (per        0
                     device); ngspice: 1e-12, set by the SPICE reader
    vds0,   V        pin voltages the gate capacitances start from     0
    vgs0             (uic; ngspice's IC=vds,vgs)
    ======= ======== ================================================= ===========

    ``constants``: the k and q of vt = k·T/q and of the noise, ``"SI"`` (SI 2019, the default)
    or ``"ngspice"`` (ngspice-39's CODATA 2014 values, as :mod:`physlib.spice` reads a deck).

    Variables (channel polarity: tp = +1 for N, −1 for P): vgs = tp·(g.v − v_s'),
    vgd = tp·(g.v − v_d'), vds = vgs − vgd [V]; vdi = v_d', vsi = v_s' [V] the internal nodes;
    ids [A] the channel current d' → s'; igs, igd [A] the gate diodes' currents (g → s',
    g → d'); gm [S] the magnitude of the transconductance of one device (ngspice's |gm|).

    Equations (ngspice-39's jfettemp.c and jfetload.c; vt = k·T/q, A = AREA·M)::

        IS(T) = IS·exp((T/TNOM − 1)·EG/vt)
        bfac = (1 − B)/(PB − VTO)
        forward (vds >= 0): (vg, vx) = (vgs, vds); reverse: (vgd, −vds); vgst = vg − VTO
        β' = A·BETA·(1 + LAMBDA·vx)
        I = 0                                                    vgst <= 0     (cut-off)
          = β'·vgst²·(B + bfac·vgst)                               0 < vgst < vx (saturation)
          = β'·vx·(vx·(bfac·vx − B) + vgst·(2B + 3·bfac·(vgst − vx)))  vgst >= vx  (linear)
        ids = ±I (+ forward)
        igs = A·IS(T)·(exp(vgs/vt) − 1) + M·GMIN·vgs   (vgs >= −3·vt; below, the reverse knee
              −A·IS(T)·(1 + (3·vt/(e·vgs))³) + M·GMIN·vgs, as ngspice); igd likewise of vgd
        g.i = tp·(igs + igd + dQgs/dt + dQgd/dt)
        d.i = tp·(ids − igd − dQgd/dt)
        d.i + g.i + s.i = 0
        d.v − v_d' = RD/A·d.i,    v_s' − s.v = −RS/A·s.i

    With B = 1 the current is BETA·vgst²·(1 + LAMBDA·vds) in saturation (no factor 1/2, unlike
    the MOSFET's KP). Qgs, Qgd are :func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`
    of vgs, vgd with A·CGS, A·CGD, PB, grading 0.5 and FC (ngspice's temperature rule for PB
    and the capacitances). The exponentials continue as their tangents above 40·vt (a gate
    junction forward-biased by about 1 V; not reached in use). Temperature coefficients of VTO
    and BETA (ngspice's TCV, BEX) and XTI are not modelled: at their defaults they are none.

    Structure: each resistance > 0 is an internal node and each capacitance > 0 a charge state,
    decided when the model is compiled; ``params=`` may change their values but not whether
    they are 0 (a :class:`~physlib.core.errors.StructureChangeError`).

    Noise (ngspice-39's jfetnoi.c, its default NLEV = 2, at T): ``"J1.rd"``, ``"J1.rs"``
    thermal 4kT·A/RD, 4kT·A/RS in parallel with RD, RS (only when > 0); ``"J1.id"`` channel
    thermal 4kT·(2/3)·M·gm and ``"J1.1overf"`` flicker M·KF·|(ids − igd)/M|^AF/f [A²/Hz], both
    between d' and s'.

    Dissipates RD/A·d.i² + RS/A·s.i² + ids·vds + igs·vgs + igd·vgd; stores the junction
    charges' energy.

    References: the ngspice manual, chapter "JFETs"; A. E. Parker, D. J. Skellern, "A realistic
    large-signal MESFET model for SPICE", IEEE Trans. MTT 45(9), 1997 (the B parameter).
    """

    d = Port(electrical, "drain")
    g = Port(electrical, "gate")
    s = Port(electrical, "source")

    channel = Parameter("N", description='"N" or "P"', structural=True)
    constants = ConstantsChoice()
    VTO = Parameter(-2.0, unit="V", description="threshold voltage")
    BETA = Parameter(1e-4, unit="A/V2", description="transconductance parameter", positive=True)
    LAMBDA = Parameter(0.0, unit="1/V", description="channel-length modulation", nonnegative=True)
    RD = Parameter(0.0, unit="Ohm", description="drain resistance", nonnegative=True)
    RS = Parameter(0.0, unit="Ohm", description="source resistance", nonnegative=True)
    CGS = Parameter(0.0, unit="F", description="zero-bias gate-source capacitance", nonnegative=True)
    CGD = Parameter(0.0, unit="F", description="zero-bias gate-drain capacitance", nonnegative=True)
    PB = Parameter(1.0, unit="V", description="gate junction potential", positive=True)
    FC = Parameter(0.5, unit="1", description="forward-bias depletion capacitance coefficient",
                   check=(lambda fc: 0.0 <= fc <= 0.95, "FC must be in [0, 0.95] (ngspice "
                          "limits it to 0.95)"))
    IS = Parameter(1e-14, unit="A", description="gate junction saturation current", positive=True)
    B = Parameter(1.0, unit="1", description="doping-tail parameter")
    EG = Parameter(1.11, unit="V", description="band gap of the saturation current's "
                   "temperature rule, in eV per elementary charge (1.11 eV is 1.11 V)", positive=True)
    KF = Parameter(0.0, unit="1", description="flicker noise coefficient", nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise exponent", positive=True)
    AREA = Parameter(1.0, unit="1", description="area factor", positive=True)
    M = Parameter(1.0, unit="1", description="multiplier (devices in parallel)", positive=True)
    T = Parameter(300.15, unit="K", description="device temperature", positive=True)
    TNOM = Parameter(300.15, unit="K", description="temperature the parameters were measured at",
                     positive=True)
    GMIN = Parameter(0.0, unit="S", description="conductance across each gate junction "
                     "(ngspice: 1e-12)", nonnegative=True)
    vds0 = Parameter(0.0, unit="V", description="d - s voltage the gate capacitances start from")
    vgs0 = Parameter(0.0, unit="V", description="g - s voltage the gate capacitances start from")

    vgs = Variable("V", "gate-source voltage (channel polarity)")
    vgd = Variable("V", "gate-drain voltage (channel polarity)")
    vds = Variable("V", "drain-source voltage (channel polarity)")
    vdi = Variable("V", "internal drain potential (after RD)")
    vsi = Variable("V", "internal source potential (after RS)")
    ids = Variable("A", "channel current d' -> s' (channel polarity)")
    igs = Variable("A", "gate-source diode current (channel polarity)")
    igd = Variable("A", "gate-drain diode current (channel polarity)")
    gm = Variable("S", "transconductance magnitude of one device")

    EXP_LIMIT = EXP_LIMIT
    CAPACITANCES = ("CGS", "CGD")

    def validate(self):
        if self.channel not in ("N", "P"):
            raise ParameterError(f"JFET {self.name!r}: channel must be 'N' or 'P', got {self.channel!r}")
        if self.PB == self.VTO and self.B != 1:
            raise ParameterError(f"JFET {self.name!r}: B ≠ 1 needs PB ≠ VTO (its term divides by "
                                 "PB − VTO)")

    # --- structure --------------------------------------------------------------------------

    def present(self, values=None) -> tuple:
        """The series resistances and capacitances that are > 0, by parameter name."""
        values = self._values if values is None else values
        return tuple(name for name in ("RD", "RS") + self.CAPACITANCES if values[name] > 0)

    def structure_key(self):
        return (self.channel, self.constants, self.present())

    def structure_change(self, compiled, asked):
        if self.present(compiled) == self.present(asked):
            return None
        return (f"the resistances and capacitances > 0 would change from "
                f"{', '.join(self.present(compiled)) or 'none'} to {', '.join(self.present(asked)) or 'none'} "
                "(a resistance > 0 is an internal node, a capacitance > 0 a charge state)")

    # --- equations --------------------------------------------------------------------------

    def channel_current(self, vg, vx):
        """(I, ∂I/∂vg) [A, S] of the channel in one direction (gate and drain voltages against
        the source end: ``vg``, ``vx`` >= 0), as jfetload.c; ∂I/∂vg of one device (÷ M)."""
        b, area = self.B, self.AREA * self.M
        bfac = (1 - b) / (self.PB - self.VTO)
        vgst = vg - self.VTO
        betap = self.BETA * (1 + self.LAMBDA * vx)
        linear = vx * (vx * (bfac * vx - b) + vgst * (2 * b + 3 * bfac * (vgst - vx)))
        current = sp.Piecewise((0, vgst <= 0), (betap * linear, vgst >= vx),
                               (betap * vgst**2 * (b + bfac * vgst), True))
        gm = sp.Piecewise((0, vgst <= 0),
                          (betap * vx * (2 * b + 3 * bfac * (vgst - vx) + 3 * bfac * vgst), vgst >= vx),
                          (betap * vgst * (2 * b + 3 * bfac * vgst), True))
        return area * current, self.AREA * gm

    def _charge(self, name, v, integral=False):
        """The depletion charge [C] of ``name`` (CGS or CGD) at ``v`` (``integral``: ∫₀^v Q dv)."""
        return depletion_charge(v, self.AREA * self.M * getattr(self, name), self.PB, GRADING,
                                self.FC, self.T, self.TNOM, integral, constants=constant_set(self))

    def initial(self):
        """The junction voltages that are states (with CGS, CGD) start, without an operating
        point, at vgs = type·vgs0 and vgd = type·(vgs0 − vds0): ngspice-39's ``uic`` start
        (jfetload.c, MODEINITJCT with MODEUIC)."""
        tp = 1 if self.channel == "N" else -1
        starts = {"CGS": (self.vgs, tp * self.vgs0), "CGD": (self.vgd, tp * (self.vgs0 - self.vds0))}
        return dict(starts[name] for name in self.CAPACITANCES if name in self.present())

    def _diode(self, v, i_sat, vt):
        return junction_current(v, i_sat, vt, self.EXP_LIMIT) + self.M * self.GMIN * v

    def equations(self):
        tp = 1 if self.channel == "N" else -1
        vt = constant_set(self).thermal_voltage(self.T)
        i_sat = self.AREA * self.M * self.IS * sp.exp((self.T / self.TNOM - 1) * self.EG / vt)
        forward = self.channel_current(self.vgs, self.vds)
        reverse = self.channel_current(self.vgd, -self.vds)
        present = self.present()
        flows = {name: sp.diff(self._charge(name, v), v) * der(v) if name in present else 0
                 for name, v in (("CGS", self.vgs), ("CGD", self.vgd))}
        area = self.AREA * self.M
        drain = self.RD / area * (self.d.i - self._noise("rd")) if "RD" in present else 0
        source = self.RS / area * (-self.s.i - self._noise("rs")) if "RS" in present else 0
        return [
            sp.Eq(self.vgs, tp * (self.g.v - self.vsi)),
            sp.Eq(self.vgd, tp * (self.g.v - self.vdi)),
            sp.Eq(self.vds, self.vgs - self.vgd),
            sp.Eq(self.ids, sp.Piecewise((forward[0], self.vds >= 0), (-reverse[0], True))),
            sp.Eq(self.gm, sp.Piecewise((forward[1], self.vds >= 0), (reverse[1], True))),
            sp.Eq(self.igs, self._diode(self.vgs, i_sat, vt)),
            sp.Eq(self.igd, self._diode(self.vgd, i_sat, vt)),
            sp.Eq(self.g.i, tp * (self.igs + self.igd + flows["CGS"] + flows["CGD"])),
            sp.Eq(self.d.i, tp * (self.ids - self.igd - flows["CGD"]) + self._noise("id")
                  + self._noise("1overf")),
            sp.Eq(self.d.i + self.g.i + self.s.i, 0),
            sp.Eq(self.d.v - self.vdi, drain),
            sp.Eq(self.vsi - self.s.v, source),
        ]

    def energy(self):
        """The energy the gate junctions store [J]: W(v) = v·Q(v) − ∫₀^v Q dv for each, so
        dW/dt = v·dQ/dt (None without capacitances)."""
        present = [name for name in self.CAPACITANCES if name in self.present()]
        if not present:
            return None
        voltages = {"CGS": self.vgs, "CGD": self.vgd}
        return sum(voltages[name] * self._charge(name, voltages[name])
                   - self._charge(name, voltages[name], integral=True) for name in present)

    def dissipation(self):
        """RD/A·d.i² + RS/A·s.i² + ids·vds + igs·vgs + igd·vgd [W] as (power, 1)."""
        area = self.AREA * self.M
        power = self.RD / area * self.d.i**2 + self.RS / area * self.s.i**2 + \
            self.ids * self.vds + self.igs * self.vgs + self.igd * self.vgd
        return power, sp.Integer(1)

    # --- noise ------------------------------------------------------------------------------

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient [A²]) of ``part`` at an operating point
        (``values``: the JFET's variables by local name, ``params``: its parameters), as
        ngspice-39's jfetnoi.c."""
        kt4 = 4 * constant_set(self).k_B * params["T"]
        m = params["M"]
        if part in ("rd", "rs"):
            return kt4 * params["AREA"] * m / params[part.upper()], 0.0
        if part == "id":
            return kt4 * 2 / 3 * m * abs(values["gm"]), 0.0
        current = abs(values["ids"] - values["igd"]) / m
        return 0.0, m * params["KF"] * current ** params["AF"]

    def noise_variant(self):
        """A copy of this JFET whose noise currents are zero-valued parameters (named by
        :meth:`noise_input`): the inputs a noise analysis linearizes from."""
        return noisy_class(JFET)(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant` that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)
