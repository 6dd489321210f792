"""The SPICE level-1 MOSFET (Shichman–Hodges), N and P channel, as ngspice-39's ``mos1``.

Re-exported as :class:`physlib.components.electrical.MOSFET`.
"""
from ....core import Component, Parameter, ParameterError, Port, Variable, der
from ....core.lazy import lazy_module
from ....domains import electrical
from .junctions import (BOLTZMANN, ELEMENTARY_CHARGE, REFTEMP, band_gap, bulk_junction_current,
                        depletion_charge, potential_shift)
from ...noise_variants import noisy_class

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["MOSFET"]

EPS_OX = 3.9 * 8.854214871e-12   # F/m: ngspice's oxide permittivity (3.9·ε0)
TOX_ABSENT = 1e-7                # m: the oxide thickness ngspice's noise assumes without TOX


class MOSFET(Component):
    """SPICE level-1 MOSFET (Shichman & Hodges 1968; ngspice-39's ``mos1``), N or P channel:
    drain ``d``, gate ``g``, source ``s`` and bulk ``b`` pins, series resistances RD, RS to an
    internal drain d' and source s', the channel current between them, bulk–drain and
    bulk–source diodes with their depletion charge, overlap capacitances, temperature
    dependence, thermal and flicker noise.

    Parameters (SPICE names; lengths in metres, the ``.model`` and instance parameters alike):

    ======= ======== ================================================= ===========
    name    unit     meaning                                           default
    ======= ======== ================================================= ===========
    channel          "N" or "P" (structural)                           "N"
    VTO     V        zero-bias threshold voltage (< 0 for enhancement  0
                     PMOS)
    KP      A/V²     transconductance parameter at TNOM (> 0)          2e-5
    GAMMA   √V       body-effect coefficient (>= 0)                    0
    PHI     V        surface potential at TNOM (> 0)                   0.6
    LAMBDA  1/V      channel-length modulation (>= 0)                  0
    RD, RS  Ohm      drain, source resistance (>= 0; divided by M)     0
    CBD,CBS F        zero-bias bulk–drain, bulk–source capacitance     0
    IS      A        bulk junction saturation current (> 0)            1e-14
    PB      V        bulk junction potential (> 0)                     0.8
    MJ      1        bulk junction grading coefficient [0, 0.9]        0.5
    FC      1        forward-bias depletion capacitance coeff. [0, 1)  0.5
    CGSO    F/m      gate–source overlap capacitance per width         0
    CGDO    F/m      gate–drain overlap capacitance per width          0
    CGBO    F/m      gate–bulk overlap capacitance per length          0
    TOX     m        oxide thickness (>= 0; 0: not given, see below)   0
    KF      1        flicker noise coefficient (>= 0)                  0
    AF      1        flicker noise exponent (> 0)                      1
    W, L    m        channel width, length (> 0)                       100e-6
    M       1        multiplier: M devices in parallel (> 0)           1
    T       K        device (circuit) temperature (> 0)                300.15
    TNOM    K        temperature the parameters were measured at       300.15
    GMIN    S        conductance across each bulk junction; ngspice:   0
                     1e-12 (the SPICE reader sets it)
    ======= ======== ================================================= ===========

    Variables (in the channel's own polarity: tp = +1 for N, −1 for P, so a conducting PMOS has
    vgs, vds > 0 here): vgs = tp·(g.v − v_s'), vds = tp·(v_d' − v_s'), vbs = tp·(b.v − v_s'),
    vbd = vbs − vds, vgd = vgs − vds, vgb = vgs − vbs [V]; vdi = v_d', vsi = v_s' [V] the
    internal nodes; ids [A] the channel current d' → s'; ibs, ibd [A] the bulk diodes'
    currents (b → s', b → d'); gm [S] the transconductance ∂|ids|/∂vgs in the conducting
    direction (ngspice's gm).

    Equations (ngspice-39's mos1temp.c and mos1load.c; vt = k·T/q, Eg: silicon's band gap)::

        KP(T)  = KP·(TNOM/T)^1.5
        PHI(T) = T/REFTEMP·(PHI − pbfact(TNOM))·REFTEMP/TNOM + pbfact(T)
        Vbi(T) = VTO − tp·GAMMA·√PHI + (Eg(TNOM) − Eg(T))/2 + tp·(PHI(T) − PHI)/2
        IS(T)  = IS·exp(Eg(TNOM)/vt(TNOM) − Eg(T)/vt)
        β = KP(T)·M·W/L
        forward (vds >= 0): (vg, vx, vb) = (vgs, vds, vbs); reverse: (vgd, −vds, vbd)
        σ = √(PHI(T) − vb)                               vb <= 0
          = max(0, √PHI(T) − vb/(2·√PHI(T)))              vb > 0
        von = tp·Vbi(T) + GAMMA·σ,   vgst = vg − von
        I = 0                                            vgst <= 0          (cut-off)
          = β·(1 + LAMBDA·vx)·vgst²/2                     0 < vgst <= vx     (saturation)
          = β·(1 + LAMBDA·vx)·vx·(vgst − vx/2)            vgst > vx          (linear)
        ids = ±I (+ forward)
        ibs = M·IS(T)·(exp(vbs/vt) − 1) + GMIN·vbs  (vbs > −3·vt), −M·IS(T) + GMIN·vbs below;
        ibd likewise of vbd
        d.i = tp·(ids − ibd − dQbd/dt − CGDO·M·W·dvgd/dt)
        g.i = tp·(CGSO·M·W·dvgs/dt + CGDO·M·W·dvgd/dt + CGBO·M·L·dvgb/dt)
        b.i = tp·(ibs + ibd + dQbs/dt + dQbd/dt − CGBO·M·L·dvgb/dt)
        d.i + g.i + s.i + b.i = 0
        d.v − v_d' = RD/M·d.i,    v_s' − s.v = −RS/M·s.i

    Qbd, Qbs are :func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge` of vbd, vbs with
    M·CBD, M·CBS, PB, MJ, FC (ngspice's temperature rule, no 1/FC limit on PB(T)). The
    exponentials continue as their tangents above 40·vt, where ngspice limits its argument
    at 709 instead (a bulk junction forward-biased by more than 1 V; not reached in use).
    Where vb > 0 physlib's small-signal gmbs is the exact derivative of the current; ngspice
    loads gm·GAMMA/(2σ) there, which differs (its .ac disagrees with its own .op slope).

    Meyer's gate capacitances: ngspice adds them when TOX is given (Cox = 3.9·ε0/TOX per area,
    charge non-conserving, integrated as capacitances); physlib does not model them: a TOX > 0
    is a :class:`ParameterError` unless ``meyer=False`` acknowledges that they are left out
    (then TOX sets Cox for the flicker noise only). Without TOX (0) ngspice has no Meyer
    capacitances either, and its flicker noise assumes TOX = 1e-7 m, as here.

    Structure: each capacitance (CBD, CBS, CGSO, CGDO, CGBO > 0) adds a charge state, decided
    when the model is compiled; ``params=`` may change their values but not whether they are
    0 (a :class:`~physlib.core.errors.StructureChangeError`).

    Noise (ngspice-39's mos1noi.c, at T): ``"M1.rd"``, ``"M1.rs"`` thermal 4kT·M/RD, 4kT·M/RS
    in parallel with RD, RS (only when > 0); ``"M1.id"`` channel thermal 4kT·(2/3)·|gm| and
    ``"M1.1overf"`` flicker KF·|ids − ibd|^AF/(f·W·M·L·Cox²) [A²/Hz], both between d' and s'.

    Dissipates RD/M·d.i² + RS/M·s.i² + ids·vds + ibs·vbs + ibd·vbd; stores the junction charges'
    energy and CGSO·M·W·vgs²/2 + CGDO·M·W·vgd²/2 + CGBO·M·L·vgb²/2.

    References: H. Shichman, D. A. Hodges, "Modeling and simulation of insulated-gate
    field-effect transistor switching circuits", IEEE J. Solid-State Circuits 3(3), 1968;
    the ngspice manual, chapter "MOSFETs" (level 1).
    """

    d = Port(electrical, "drain")
    g = Port(electrical, "gate")
    s = Port(electrical, "source")
    b = Port(electrical, "bulk (body)")

    channel = Parameter("N", description='"N" or "P"', structural=True)
    meyer = Parameter(True, description="TOX > 0 asks for Meyer's gate capacitances (not "
                      "modelled: False leaves them out knowingly)", structural=True)
    VTO = Parameter(0.0, unit="V", description="zero-bias threshold voltage")
    KP = Parameter(2e-5, unit="A/V2", description="transconductance parameter", positive=True)
    GAMMA = Parameter(0.0, unit="V(1/2)", description="body-effect coefficient", nonnegative=True)
    PHI = Parameter(0.6, unit="V", description="surface potential", positive=True)
    LAMBDA = Parameter(0.0, unit="1/V", description="channel-length modulation", nonnegative=True)
    RD = Parameter(0.0, unit="Ohm", description="drain resistance", nonnegative=True)
    RS = Parameter(0.0, unit="Ohm", description="source resistance", nonnegative=True)
    CBD = Parameter(0.0, unit="F", description="zero-bias bulk-drain capacitance", nonnegative=True)
    CBS = Parameter(0.0, unit="F", description="zero-bias bulk-source capacitance", nonnegative=True)
    IS = Parameter(1e-14, unit="A", description="bulk junction saturation current", positive=True)
    PB = Parameter(0.8, unit="V", description="bulk junction potential", positive=True)
    MJ = Parameter(0.5, unit="1", description="bulk junction grading coefficient",
                   check=(lambda m: 0.0 <= m <= 0.9, "the grading coefficient must be in [0, 0.9]"))
    FC = Parameter(0.5, unit="1", description="forward-bias depletion capacitance coefficient",
                   check=(lambda fc: 0.0 <= fc < 1.0, "FC must be in [0, 1)"))
    CGSO = Parameter(0.0, unit="F/m", description="gate-source overlap capacitance per width",
                     nonnegative=True)
    CGDO = Parameter(0.0, unit="F/m", description="gate-drain overlap capacitance per width",
                     nonnegative=True)
    CGBO = Parameter(0.0, unit="F/m", description="gate-bulk overlap capacitance per length",
                     nonnegative=True)
    TOX = Parameter(0.0, unit="m", description="oxide thickness (0: not given)", nonnegative=True)
    KF = Parameter(0.0, unit="1", description="flicker noise coefficient", nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise exponent", positive=True)
    W = Parameter(100e-6, unit="m", description="channel width", positive=True)
    L = Parameter(100e-6, unit="m", description="channel length", positive=True)
    M = Parameter(1.0, unit="1", description="multiplier (devices in parallel)", positive=True)
    T = Parameter(300.15, unit="K", description="device temperature", positive=True)
    TNOM = Parameter(300.15, unit="K", description="temperature the parameters were measured at",
                     positive=True)
    GMIN = Parameter(0.0, unit="S", description="conductance across each bulk junction "
                     "(ngspice: 1e-12)", nonnegative=True)

    vgs = Variable("V", "gate-source voltage (channel polarity)")
    vds = Variable("V", "drain-source voltage (channel polarity)")
    vbs = Variable("V", "bulk-source voltage (channel polarity)")
    vbd = Variable("V", "bulk-drain voltage (channel polarity)")
    vgd = Variable("V", "gate-drain voltage (channel polarity)")
    vgb = Variable("V", "gate-bulk voltage (channel polarity)")
    vdi = Variable("V", "internal drain potential (after RD)")
    vsi = Variable("V", "internal source potential (after RS)")
    ids = Variable("A", "channel current d' -> s' (channel polarity)")
    ibs = Variable("A", "bulk-source diode current (channel polarity)")
    ibd = Variable("A", "bulk-drain diode current (channel polarity)")
    gm = Variable("S", "transconductance in the conducting direction")

    EXP_LIMIT = 40.0
    CAPACITANCES = ("CGSO", "CBS", "CGDO", "CBD", "CGBO")   # the order states are chosen in

    def validate(self):
        if self.channel not in ("N", "P"):
            raise ParameterError(f"MOSFET {self.name!r}: channel must be 'N' or 'P', got {self.channel!r}")
        if self.TOX > 0 and self.meyer:
            raise ParameterError(
                f"MOSFET {self.name!r}: TOX = {self.TOX:g} m asks for Meyer's gate capacitances "
                "(ngspice adds them to level 1 when TOX is given), which physlib does not model; "
                "give meyer=False to use TOX for the flicker noise only, or leave TOX at 0")

    # --- structure --------------------------------------------------------------------------

    def present(self, values=None) -> tuple:
        """The series resistances and capacitances that are > 0, by parameter name: each
        resistance an internal node (as ngspice), each capacitance a charge."""
        values = self._values if values is None else values
        return tuple(name for name in ("RD", "RS") + self.CAPACITANCES if values[name] > 0)

    def structure_key(self):
        return (self.channel, self.present())      # meyer only guards TOX (same equations)

    def structure_change(self, compiled, asked):
        if self.present(compiled) == self.present(asked):
            return None
        return (f"the resistances and capacitances > 0 would change from "
                f"{', '.join(self.present(compiled)) or 'none'} to {', '.join(self.present(asked)) or 'none'} "
                "(a resistance > 0 is an internal node, a capacitance > 0 a charge state)")

    # --- equations --------------------------------------------------------------------------

    def _polarity(self):
        return 1 if self.channel == "N" else -1

    def _temperature(self):
        """(vt, KP(T), PHI(T), Vbi(T), IS(T)) as mos1temp.c."""
        tp, T, tnom = self._polarity(), self.T, self.TNOM
        vt, vtnom = BOLTZMANN * T / ELEMENTARY_CHARGE, BOLTZMANN * tnom / ELEMENTARY_CHARGE
        ratio = T / tnom
        kp = self.KP / (ratio * sp.sqrt(ratio))
        phi = T / REFTEMP * (self.PHI - potential_shift(tnom)) / (tnom / REFTEMP) + potential_shift(T)
        eg1, eg = band_gap(tnom), band_gap(T)
        vbi = self.VTO - tp * self.GAMMA * sp.sqrt(self.PHI) + (eg1 - eg) / 2 + tp * (phi - self.PHI) / 2
        i_sat = self.IS * sp.exp(-eg / vt + eg1 / vtnom)
        return vt, kp, phi, vbi, i_sat

    def channel_current(self, vg, vx, vb, kp, phi, vbi):
        """(I, ∂I/∂vg) [A, S] of the channel in one direction (gate, drain and bulk voltages
        against the source end: ``vg``, ``vx`` >= 0, ``vb``), as mos1load.c."""
        beta = kp * self.M * self.W / self.L
        root = sp.sqrt(phi)
        sarg = sp.Piecewise((sp.sqrt(phi - vb), vb <= 0), (root - vb / (2 * root), vb < 2 * phi),
                            (0, True))
        vgst = vg - (self._polarity() * vbi + self.GAMMA * sarg)
        betap = beta * (1 + self.LAMBDA * vx)
        current = sp.Piecewise((0, vgst <= 0), (betap * vgst**2 / 2, vgst <= vx),
                               (betap * vx * (vgst - vx / 2), True))
        gm = sp.Piecewise((0, vgst <= 0), (betap * vgst, vgst <= vx), (betap * vx, True))
        return current, gm

    # capacitance -> (pin the charge current enters, pin it leaves by, voltage across it)
    BRANCHES = {"CGSO": ("g", "s", "vgs"), "CBS": ("b", "s", "vbs"), "CGDO": ("g", "d", "vgd"),
                "CBD": ("b", "d", "vbd"), "CGBO": ("g", "b", "vgb")}

    def _charge(self, name, v, integral=False):
        """The charge [C] of capacitance ``name`` at its voltage ``v`` (``integral``: ∫₀^v Q dv)."""
        if name in ("CBD", "CBS"):
            return depletion_charge(v, self.M * getattr(self, name), self.PB, self.MJ, self.FC,
                                    self.T, self.TNOM, integral)
        cap = getattr(self, name) * self.M * (self.L if name == "CGBO" else self.W)
        return cap * v**2 / 2 if integral else cap * v

    def _rates(self, present):
        """{capacitance: d(its voltage)/dt} in terms of the derivatives of a spanning forest
        of the capacitances (the states): the voltages of capacitances that close a loop
        follow from the others', so no two states are tied by the device's own equations."""
        parent, forest = {pin: pin for pin in "gdsb"}, []

        def root(pin):
            while parent[pin] != pin:
                pin = parent[pin]
            return pin
        for name in (n for n in self.CAPACITANCES if n in present):
            a, b, v = self.BRANCHES[name]
            if root(a) != root(b):
                parent[root(a)] = root(b)
                forest.append((a, b, getattr(self, v)))
        rate = {pin: 0 for pin in "gdsb" if root(pin) == pin}   # each tree's potential reference
        while len(rate) < 4:
            for a, b, v in forest:
                if b in rate and a not in rate:
                    rate[a] = rate[b] + der(v)
                elif a in rate and b not in rate:
                    rate[b] = rate[a] - der(v)
        return {name: rate[self.BRANCHES[name][0]] - rate[self.BRANCHES[name][1]]
                for name in self.CAPACITANCES if name in present}

    def equations(self):
        tp = self._polarity()
        vt, kp, phi, vbi, i_sat = self._temperature()
        forward = self.channel_current(self.vgs, self.vds, self.vbs, kp, phi, vbi)
        reverse = self.channel_current(self.vgd, -self.vds, self.vbd, kp, phi, vbi)
        present = self.present()
        into = {"g": 0, "d": 0, "b": 0, "s": 0}      # charge currents into the pins (channel polarity)
        for name, rate in self._rates(present).items():
            a, b, v = self.BRANCHES[name]
            v = getattr(self, v)
            flow = sp.diff(self._charge(name, v), v) * rate
            into[a] += flow
            into[b] -= flow                          # the source's share follows from KCL
        drain = self.RD / self.M * (self.d.i - self._noise("rd")) if "RD" in present else 0
        source = self.RS / self.M * (-self.s.i - self._noise("rs")) if "RS" in present else 0
        i_sat = self.M * i_sat
        return [
            sp.Eq(self.vgs, tp * (self.g.v - self.vsi)),
            sp.Eq(self.vds, tp * (self.vdi - self.vsi)),
            sp.Eq(self.vbs, tp * (self.b.v - self.vsi)),
            sp.Eq(self.vbd, self.vbs - self.vds),
            sp.Eq(self.vgd, self.vgs - self.vds),
            sp.Eq(self.vgb, self.vgs - self.vbs),
            sp.Eq(self.ids, sp.Piecewise((forward[0], self.vds >= 0), (-reverse[0], True))),
            sp.Eq(self.gm, sp.Piecewise((forward[1], self.vds >= 0), (reverse[1], True))),
            sp.Eq(self.ibs, bulk_junction_current(self.vbs, i_sat, vt, self.GMIN, self.EXP_LIMIT)),
            sp.Eq(self.ibd, bulk_junction_current(self.vbd, i_sat, vt, self.GMIN, self.EXP_LIMIT)),
            sp.Eq(self.g.i, tp * into["g"]),
            sp.Eq(self.b.i, tp * (self.ibs + self.ibd + into["b"])),
            sp.Eq(self.d.i, tp * (self.ids - self.ibd + into["d"]) + self._noise("id")
                  + self._noise("1overf")),
            sp.Eq(self.d.i + self.g.i + self.s.i + self.b.i, 0),
            sp.Eq(self.d.v - self.vdi, drain),
            sp.Eq(self.vsi - self.s.v, source),
        ]

    def energy(self):
        """The energy the capacitances store [J]: W(v) = v·Q(v) − ∫₀^v Q dv for each (C·v²/2 for
        the overlaps), so dW/dt = v·dQ/dt (None without capacitances)."""
        present = [name for name in self.CAPACITANCES if name in self.present()]
        if not present:
            return None
        stored = 0
        for name in present:
            v = getattr(self, self.BRANCHES[name][2])
            stored += v * self._charge(name, v) - self._charge(name, v, integral=True)
        return stored

    def dissipation(self):
        """RD/M·d.i² + RS/M·s.i² + ids·vds + ibs·vbs + ibd·vbd [W] as (power, 1): the series
        resistances, the channel and the bulk diodes' conduction currents (the charge currents'
        power is stored, :meth:`energy`)."""
        power = self.RD / self.M * self.d.i**2 + self.RS / self.M * self.s.i**2 + \
            self.ids * self.vds + self.ibs * self.vbs + self.ibd * self.vbd
        return power, sp.Integer(1)

    # --- noise ------------------------------------------------------------------------------

    NOISE_PARTS = {"rd": "thermal", "rs": "thermal", "id": "thermal", "1overf": "flicker"}

    def _noise(self, part):
        """The zero-valued noise current of ``part`` (only in :meth:`noise_variant`'s class)."""
        return 0

    def noise_parts(self, params):
        """The noise sources inside the MOSFET, ``{part: kind}``, with its parameter values
        ``params`` (by name): the thermal noise of RD and RS where they are > 0, the channel's
        thermal and flicker noise."""
        return {part: kind for part, kind in self.NOISE_PARTS.items()
                if part not in ("rd", "rs") or params[part.upper()] > 0}

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient [A²]) of ``part`` at an operating point
        (``values``: the MOSFET's variables by local name, ``params``: its parameters), as
        ngspice-39's mos1noi.c."""
        kt4 = 4 * BOLTZMANN * params["T"]
        if part in ("rd", "rs"):
            return kt4 * params["M"] / params[part.upper()], 0.0
        if part == "id":
            return kt4 * 2 / 3 * abs(values["gm"]), 0.0
        cox = EPS_OX / (params["TOX"] if params["TOX"] > 0 else TOX_ABSENT)
        current = abs(values["ids"] - values["ibd"])
        return 0.0, params["KF"] * current ** params["AF"] / (params["W"] * params["M"] * params["L"] * cox**2)

    def noise_variant(self):
        """A copy of this MOSFET whose noise currents are zero-valued parameters (named by
        :meth:`noise_input`): the inputs a noise analysis linearizes from."""
        return noisy_class(MOSFET)(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant` that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)

