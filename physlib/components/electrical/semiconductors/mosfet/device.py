"""The SPICE MOSFET class (ngspice-39's ``mos1``, ``mos2``, ``mos3``), N and P channel: pins,
parameters, equations, stored energy, dissipation and noise; its channel current in
:mod:`.channel` (levels 2, 3: :mod:`.staged`), its charges in :mod:`.capacitances`."""
from .....core import Component, Parameter, ParameterError, Port, Variable
from .....core.lazy import lazy_module
from .....domains import electrical
from ...interfaces import ConstantsChoice
from ..junctions import EXP_LIMIT, bulk_junction_current
from ....noise_variants import noisy_class
from .capacitances import BRANCHES, ORDER
from .channel import level1_current, level1_threshold, temperature
from .charges import MOSFETCharges
from .noise import EPS_OX, TOX_ABSENT, MOSFETNoise
from .staged import StagedChannel

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["MOSFET", "EPS_OX", "TOX_ABSENT"]


grading = (lambda m: 0.0 <= m <= 0.9, "a grading coefficient must be in [0, 0.9]")


class MOSFET(StagedChannel, MOSFETCharges, MOSFETNoise, Component):
    """SPICE MOSFET of level 1 (Shichman & Hodges 1968; ngspice-39's ``mos1``), level 2 (the
    Grove–Frohman charge-sheet model with Baum's velocity saturation; ``mos2``) or level 3 (the
    semi-empirical short-channel model; ``mos3``), N or P channel:
    drain ``d``, gate ``g``, source ``s`` and bulk ``b`` pins, series resistances RD, RS to an
    internal drain d' and source s', the channel current between them, bulk–drain and
    bulk–source diodes with their depletion charge (bottom and sidewall), Meyer's gate
    capacitances and the overlap capacitances, temperature dependence, thermal and flicker
    noise.

    Parameters (SPICE names; lengths in metres, areas in m², the ``.model`` and instance
    parameters alike):

    ======= ======== ================================================= ===========
    name    unit     meaning                                           default
    ======= ======== ================================================= ===========
    channel          "N" or "P" (structural)                           "N"
    level            1, 2 or 3: the channel model (structural)         1
    meyer            Meyer's gate capacitances when TOX > 0 (struct.)  True
    VTO     V        zero-bias threshold voltage (< 0 for enhancement  0
                     PMOS)
    KP      A/V²     transconductance parameter at TNOM (> 0)          2e-5
    GAMMA   √V       body-effect coefficient (>= 0)                    0
    PHI     V        surface potential at TNOM (> 0)                   0.6
    LAMBDA  1/V      channel-length modulation (>= 0; levels 1, 2)     0
    RD, RS  Ohm      drain, source resistance (>= 0; divided by M)     0
    CBD,CBS F        zero-bias bulk–drain, bulk–source capacitance     0
                     (> 0: in place of CJ·AD, CJ·AS)
    CJ      F/m²     zero-bias bulk junction bottom capacitance        0
    CJSW    F/m      zero-bias bulk junction sidewall capacitance      0
    AD, AS  m²       drain, source diffusion area                      0
    PD, PS  m        drain, source diffusion perimeter                 0
    IS      A        bulk junction saturation current (> 0)            1e-14
    JS      A/m²     saturation current density (> 0 with AD, AS > 0:  0
                     JS·AD, JS·AS in place of IS)
    PB      V        bulk junction potential (> 0)                     0.8
    MJ      1        bottom grading coefficient [0, 0.9]               0.5
    MJSW    1        sidewall grading coefficient [0, 0.9] (ngspice's  0.5
                     level 3: 0.33, which its SPICE reader sets)
    FC      1        forward-bias depletion capacitance coeff. [0, 1)  0.5
    CGSO    F/m      gate–source overlap capacitance per width         0
    CGDO    F/m      gate–drain overlap capacitance per width          0
    CGBO    F/m      gate–bulk overlap capacitance per length          0
    TOX     m        oxide thickness (>= 0; 0: not given, see below;   0
                     levels 2, 3: 0 is ngspice's 1e-7 m)
    LD      m        lateral diffusion (L − 2·LD is the channel)       0
    UO      m²/V·s   surface mobility (levels 2, 3: with VMAX)         0.06
    THETA   1/V      mobility modulation by the gate (level 3)         0
    ETA     1        static feedback on the threshold (level 3)        0
    KAPPA   1        saturation field factor (level 3, with NSUB)      0.2
    VMAX    m/s      maximum drift velocity (levels 2, 3; 0: none)     0
    NFS     1/m²·V   fast surface states (levels 2, 3; 0: none)        0
    XJ      m        junction depth (levels 2, 3, with NSUB)           0
    DELTA   1        width effect on the threshold (levels 2, 3)       0
    NSUB    1/m³     substrate doping (levels 2, 3: α = 2·εSi/(q·NSUB)  0
                     of XJ, KAPPA, level 2's λ; 0: not given)
    UCRIT   V/m      critical field of mobility reduction (level 2)    1e6
    UEXP    1        its exponent (level 2; 0: none)                   0
    NEFF    1        channel charge coefficient (level 2, with VMAX)   1
    KF      1        flicker noise coefficient (>= 0)                  0
    AF      1        flicker noise exponent (> 0)                      1
    W, L    m        channel width, drawn length (> 0)                 100e-6
    M       1        multiplier: M devices in parallel (> 0)           1
    T       K        device (circuit) temperature (> 0)                300.15
    TNOM    K        temperature the parameters were measured at       300.15
    GMIN    S        bulk junctions' conductance (SPICE reader: 1e-12) 0
    vds0    V        vds the capacitances start from (uic; vgs0, vbs0: 0
                     vgs, vbs likewise; ngspice's IC=vds,vgs,vbs)
    ======= ======== ================================================= ===========

    ``constants``: k, q of vt and noise, ``"SI"`` (2019, default) or ``"ngspice"`` (CODATA 2014).

    Variables (in the channel's own polarity: tp = +1 for N, −1 for P, so a conducting PMOS has
    vgs, vds > 0 here): vgs = tp·(g.v − v_s'), vds = tp·(v_d' − v_s'), vbs = tp·(b.v − v_s'),
    vbd = vbs − vds, vgd = vgs − vds, vgb = vgs − vbs [V]; vdi = v_d', vsi = v_s' [V] the
    internal nodes; ids [A] the channel current d' → s'; ibs, ibd [A] the bulk diodes'
    currents (b → s', b → d'); gm [S] the transconductance ∂|ids|/∂vgs in the conducting
    direction (ngspice's gm); von, vdsat [V] the threshold and saturation voltages in the
    conducting direction (ngspice's); cgs, cgd, cgb [F] the gate capacitances (overlap and
    Meyer's, as ngspice reports them).

    Equations (ngspice-39's mos1temp.c and mos1load.c; the channel current and the temperature
    rules: :func:`~.channel.level1_threshold`, :func:`~.channel.level1_current`,
    :func:`~.channel.temperature`; at level 3 mos3temp.c and mos3load.c, the channel current
    ``mosfet.level3.level3_stages``, each stage an internal variable (vgc, vxc, vbc, sqphbs,
    fshort, vth, xn, vdsc, idrift, delxl), and no gm variable; level 2 likewise, mos2temp.c,
    mos2load.c and ``mosfet.level2.level2_stages``; vt = k·T/q)::

        forward (vds >= 0): I(vgs, vds, vbs); reverse: −I(vgd, −vds, vbd)   = ids
        ibs = M·IS(T)·(exp(vbs/vt) − 1) + GMIN·vbs  (vbs > −3·vt), −M·IS(T) + GMIN·vbs below;
        ibd likewise of vbd
        d.i = tp·(ids − ibd − dQbd/dt − Cgd·dvgd/dt)
        g.i = tp·(Cgs·dvgs/dt + Cgd·dvgd/dt + Cgb·dvgb/dt)
        b.i = tp·(ibs + ibd + dQbs/dt + dQbd/dt − Cgb·dvgb/dt)
        d.i + g.i + s.i + b.i = 0
        d.v − v_d' = RD/M·d.i,    v_s' − s.v = −RS/M·s.i

    Qbd = :func:`~.capacitances.junction_charge` of vbd with the bottom capacitance M·CBD (or
    M·CJ·AD) graded MJ and the sidewall M·CJSW·PD graded MJSW (ngspice's temperature rule, no
    1/FC limit on PB(T)); Qbs likewise with CBS, AS, PS. Cgs = M·W·CGSO + Meyer's Cgs, Cgd =
    M·W·CGDO + Meyer's Cgd, Cgb = M·(L − 2·LD)·CGBO + Meyer's Cgb: with TOX > 0 (and
    ``meyer``), :func:`~.capacitances.meyer_capacitances` of the conducting direction's
    overdrive and saturation voltage, PHI(T) and Cox = 3.9·ε0/TOX·M·W·(L − 2·LD), gate–source
    and gate–drain exchanged in reverse (vds < 0), as ngspice. Without TOX (0) ngspice has no
    Meyer capacitances, and its flicker noise assumes TOX = 1e-7 m, as here; ``meyer=False``
    leaves them out with TOX > 0 (TOX then sets Cox for the flicker noise only). Exponentials
    continue as tangents past 10 kA, where ngspice limits its argument at 709 (not reached in use).
    Where vb > 0 physlib's small-signal gmbs is the exact derivative of the current; ngspice
    loads gm·GAMMA/(2σ) there, which differs (its .ac disagrees with its own .op slope).

    Structure: each charge (a bulk junction with a capacitance > 0, a gate branch with an
    overlap or Meyer's capacitances) and each resistance > 0 is decided when the model is
    compiled; ``params=`` may change their values but not whether they are 0 (a
    :class:`~physlib.core.errors.StructureChangeError`); at level 3 also whether TOX > 0 and
    whether KAPPA and NSUB are both > 0 (channel-length modulation, the delxl stage); at level
    2 whether TOX > 0 and whether VMAX > 0 (the velocity saturation's stages).

    Noise (ngspice-39's mos1noi.c, at T): ``"M1.rd"``, ``"M1.rs"`` thermal 4kT·M/RD, 4kT·M/RS
    in parallel with RD, RS (only when > 0); ``"M1.id"`` channel thermal 4kT·(2/3)·|gm| and
    ``"M1.1overf"`` flicker KF·|ids − ibd|^AF/(f·W·M·(L − 2·LD)·Cox²) [A²/Hz], both between d'
    and s'. Levels 2 and 3 as mos2noi.c, mos3noi.c: gm the current's derivative by the gate
    voltage at the operating point (``StagedChannel.staged_transconductance``),
    level 3's flicker area without M.

    Dissipates RD/M·d.i² + RS/M·s.i² + ids·vds + ibs·vbs + ibd·vbd; stores the junction charges'
    energy and the overlaps' M·W·CGSO·vgs²/2 + M·W·CGDO·vgd²/2 + M·(L − 2·LD)·CGBO·vgb²/2.
    Meyer's capacitances conserve neither charge nor energy (no stored energy is a function of
    the voltages): the power they take, vgs·Cgs·dvgs/dt + vgd·Cgd·dvgd/dt + vgb·Cgb·dvgb/dt of
    their parts, is booked with the dissipation, so the energy books balance (that part may
    be negative).

    References: H. Shichman, D. A. Hodges, "Modeling and simulation of insulated-gate
    field-effect transistor switching circuits", IEEE J. Solid-State Circuits 3(3), 1968;
    J. E. Meyer, "MOS models and circuit simulation", RCA Review 32, 1971; A. Vladimirescu,
    S. Liu, "The simulation of MOS integrated circuits using SPICE2", UCB/ERL M80/7, 1980
    (levels 2, 3); the ngspice manual, chapter "MOSFETs".
    """

    d = Port(electrical, "drain")
    g = Port(electrical, "gate")
    s = Port(electrical, "source")
    b = Port(electrical, "bulk (body)")

    channel = Parameter("N", description='"N" or "P"', structural=True)
    level = Parameter(1, description="the channel model: 1 (Shichman-Hodges), 2 (Grove-Frohman) or 3 "
                      "(semi-empirical short-channel)", structural=True)
    meyer = Parameter(True, description="Meyer's gate capacitances when TOX > 0 (False: TOX sets "
                      "the flicker noise's Cox only)", structural=True)
    constants = ConstantsChoice()
    VTO = Parameter(0.0, unit="V", description="zero-bias threshold voltage")
    KP = Parameter(2e-5, unit="A/V2", description="transconductance parameter", positive=True)
    GAMMA = Parameter(0.0, unit="V(1/2)", description="body-effect coefficient", nonnegative=True)
    PHI = Parameter(0.6, unit="V", description="surface potential", positive=True)
    LAMBDA = Parameter(0.0, unit="1/V", description="channel-length modulation", nonnegative=True)
    RD = Parameter(0.0, unit="Ohm", description="drain resistance", nonnegative=True)
    RS = Parameter(0.0, unit="Ohm", description="source resistance", nonnegative=True)
    CBD = Parameter(0.0, unit="F", description="zero-bias bulk-drain capacitance", nonnegative=True)
    CBS = Parameter(0.0, unit="F", description="zero-bias bulk-source capacitance", nonnegative=True)
    CJ = Parameter(0.0, unit="F/m2", description="zero-bias bulk junction bottom capacitance per area",
                   nonnegative=True)
    CJSW = Parameter(0.0, unit="F/m", description="zero-bias bulk junction sidewall capacitance per "
                     "length", nonnegative=True)
    AD = Parameter(0.0, unit="m2", description="drain diffusion area", nonnegative=True)
    AS = Parameter(0.0, unit="m2", description="source diffusion area", nonnegative=True)
    PD = Parameter(0.0, unit="m", description="drain diffusion perimeter", nonnegative=True)
    PS = Parameter(0.0, unit="m", description="source diffusion perimeter", nonnegative=True)
    IS = Parameter(1e-14, unit="A", description="bulk junction saturation current", positive=True)
    JS = Parameter(0.0, unit="A/m2", description="bulk junction saturation current density",
                   nonnegative=True)
    PB = Parameter(0.8, unit="V", description="bulk junction potential", positive=True)
    MJ = Parameter(0.5, unit="1", description="bulk junction bottom grading coefficient", check=grading)
    MJSW = Parameter(0.5, unit="1", description="bulk junction sidewall grading coefficient", check=grading)
    FC = Parameter(0.5, unit="1", description="forward-bias depletion capacitance coefficient",
                   check=(lambda fc: 0.0 <= fc < 1.0, "FC must be in [0, 1)"))
    CGSO = Parameter(0.0, unit="F/m", description="gate-source overlap capacitance per width",
                     nonnegative=True)
    CGDO = Parameter(0.0, unit="F/m", description="gate-drain overlap capacitance per width",
                     nonnegative=True)
    CGBO = Parameter(0.0, unit="F/m", description="gate-bulk overlap capacitance per length",
                     nonnegative=True)
    TOX = Parameter(0.0, unit="m", description="oxide thickness (0: not given)", nonnegative=True)
    LD = Parameter(0.0, unit="m", description="lateral diffusion", nonnegative=True)
    UO = Parameter(0.06, unit="m2/(V.s)", description="surface mobility (levels 2, 3: with VMAX)",
                   positive=True)
    THETA = Parameter(0.0, unit="1/V", description="mobility modulation by the gate (level 3)",
                      nonnegative=True)
    ETA = Parameter(0.0, unit="1", description="static feedback on the threshold (level 3)",
                    nonnegative=True)
    KAPPA = Parameter(0.2, unit="1", description="saturation field factor (level 3, with NSUB)",
                      nonnegative=True)
    VMAX = Parameter(0.0, unit="m/s", description="maximum drift velocity (levels 2, 3; 0: none)",
                     nonnegative=True)
    NFS = Parameter(0.0, unit="1/(m2.V)", description="fast surface state density (levels 2, 3; 0: no "
                    "weak inversion)", nonnegative=True)
    XJ = Parameter(0.0, unit="m", description="metallurgical junction depth (levels 2, 3, with NSUB)",
                   nonnegative=True)
    DELTA = Parameter(0.0, unit="1", description="width effect on the threshold (levels 2, 3)",
                      nonnegative=True)
    NSUB = Parameter(0.0, unit="1/m3", description="substrate doping (levels 2, 3: the depletion "
                     "widths of XJ, KAPPA, level 2's LAMBDA; 0: not given)", nonnegative=True)
    UCRIT = Parameter(1e6, unit="V/m", description="critical field for mobility reduction (level 2)",
                      positive=True)
    UEXP = Parameter(0.0, unit="1", description="critical field exponent (level 2; 0: none)", nonnegative=True)
    NEFF = Parameter(1.0, unit="1", description="channel charge coefficient (level 2, with VMAX)", positive=True)
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
    von = Variable("V", "threshold voltage in the conducting direction (channel polarity)")
    vdsat = Variable("V", "saturation voltage in the conducting direction (channel polarity)")
    cgs = Variable("F", "gate-source capacitance (overlap and Meyer's)")
    cgd = Variable("F", "gate-drain capacitance (overlap and Meyer's)")
    cgb = Variable("F", "gate-bulk capacitance (overlap and Meyer's)")
    cbd = Variable("F", "bulk-drain junction capacitance dQbd/dvbd")
    cbs = Variable("F", "bulk-source junction capacitance dQbs/dvbs")

    EXP_LIMIT = EXP_LIMIT
    LABELS = {"gs": "gate-source capacitance (CGSO, Meyer's)", "gd": "gate-drain capacitance "
              "(CGDO, Meyer's)", "gb": "gate-bulk capacitance (CGBO, Meyer's)",
              "bd": "bulk-drain charge (CBD or CJ·AD, CJSW·PD)", "bs": "bulk-source charge (CBS or "
              "CJ·AS, CJSW·PS)", "sidewalls": "sidewall charges (CJSW)", "RD": "RD", "RS": "RS",
              "meyer": "Meyer's capacitances (TOX)", "TOX": "TOX (0: ngspice's 1e-7 m)",
              "KAPPA": "channel-length modulation (KAPPA and NSUB > 0)",
              "VMAX": "velocity saturation (VMAX > 0, level 2's quartic)"}

    def validate(self):
        if self.channel not in ("N", "P"):
            raise ParameterError(f"MOSFET {self.name!r}: channel must be 'N' or 'P', got {self.channel!r}")
        if self.level not in (1, 2, 3):
            raise ParameterError(f"MOSFET {self.name!r}: level must be 1, 2 or 3, got {self.level!r}")
        if self.L <= 2 * self.LD:
            raise ParameterError(f"MOSFET {self.name!r}: the channel length L = {self.L:g} m must exceed "
                                 f"twice the lateral diffusion LD = {self.LD:g} m")

    # --- structure --------------------------------------------------------------------------

    def present(self, values=None) -> tuple:
        """What the values make part of the equations: the series resistances > 0 (each an
        internal node, as ngspice), the charge branches (of :data:`~.capacitances.ORDER`) with a
        capacitance > 0, and "sidewalls" when CJSW > 0 makes both junctions' sidewall charges."""
        v = self._values if values is None else values
        meyer = self.meyer and (v["TOX"] > 0 or self.level != 1)
        branches = {name: meyer or v[cap] > 0 for name, cap in self.OVERLAPS.items()}
        branches.update({name: v[cap] > 0 or v["CJ"] * v[area] > 0 or v["CJSW"] * v[perimeter] > 0
                         for name, (cap, area, perimeter) in self.JUNCTIONS.items()})
        sidewalls = ("sidewalls",) if v["CJSW"] > 0 and (branches["bd"] or branches["bs"]) else ()
        return tuple(n for n in ("RD", "RS") if v[n] > 0) + tuple(n for n in ORDER if branches[n]) + \
            sidewalls + (("meyer",) if meyer else ()) + (("TOX",) if self.level != 1 and v["TOX"] > 0 else ()) + \
            (("KAPPA",) if self.level == 3 and v["KAPPA"] > 0 and v["NSUB"] > 0 else ()) + \
            (("VMAX",) if self.level == 2 and v["VMAX"] > 0 else ())

    def structure_key(self):
        return (self.channel, self.level, self.constants, self.present())

    def variables(self):
        """The declared variables; at levels 2 and 3 the stages of the channel current
        (``mosfet.level2.STAGES``, ``mosfet.level3.STAGES``) and no gm
        (``StagedChannel.staged_transconductance``)."""
        own = super().variables()
        if self.level != 1:
            del own["gm"]
            own.update(self._stage_variables())
        return own

    def structure_change(self, compiled, asked):
        if self.present(compiled) == self.present(asked):
            return None

        def listed(values):
            return ", ".join(self.LABELS[n] for n in self.present(values)) or "none"
        return (f"the resistances and charges would change from {listed(compiled)} to {listed(asked)} "
                "(a resistance > 0 is an internal node, a capacitance > 0 a charge state)")

    # --- equations --------------------------------------------------------------------------

    def _polarity(self):
        return 1 if self.channel == "N" else -1

    def _saturation_currents(self, temp):
        """(drain, source) junction saturation currents at T [A]: M·JS·AD, M·JS·AS with JS, AD,
        AS > 0, else M·IS each (mos1load.c)."""
        dense = sp.And(self.JS > 0, self.AD > 0, self.AS > 0)
        return tuple(self.M * temp.saturation * sp.Piecewise((self.JS * area, dense), (self.IS, True))
                     for area in (self.AD, self.AS))

    def _conducting(self):
        """(vg, vx, vb): the gate, drain and bulk voltages against the channel's source end in
        the conducting direction, (vgs, vds, vbs) forward (vds >= 0), (vgd, −vds, vbd) reverse."""
        forward = self.vds >= 0
        return tuple(sp.Piecewise((f, forward), (r, True)) for f, r in
                     ((self.vgs, self.vgd), (self.vds, -self.vds), (self.vbs, self.vbd)))

    def _channel_equations(self, temp):
        """von, vdsat, ids and gm of the channel in the conducting direction (level 1; levels 2
        and 3 without gm)."""
        tp = self._polarity()
        if self.level != 1:
            return self._staged_equations(temp)
        vg, vx, _ = self._conducting()
        vgst = vg - self.von
        current, gm = level1_current(self, vgst, vx, temp)
        return [sp.Eq(self.von, sp.Piecewise((level1_threshold(self, tp, self.vbs, temp), self.vds >= 0),
                                             (level1_threshold(self, tp, self.vbd, temp), True))),
                sp.Eq(self.vdsat, sp.Piecewise((vgst, vgst > 0), (0, True))),
                sp.Eq(self.ids, sp.Piecewise((current, self.vds >= 0), (-current, True))),
                sp.Eq(self.gm, gm)]

    def equations(self):
        tp = self._polarity()
        temp = temperature(self, tp)
        into = {"g": 0, "d": 0, "b": 0, "s": 0}      # charge currents into the pins (channel polarity)
        for name, flow in self._charge_currents().items():
            a, b, _ = BRANCHES[name]
            into[a] += flow
            into[b] -= flow                          # the source's share follows from KCL
        present = self.present()
        drain = self.RD / self.M * (self.d.i - self._noise("rd")) if "RD" in present else 0
        source = self.RS / self.M * (-self.s.i - self._noise("rs")) if "RS" in present else 0
        i_drain, i_source = self._saturation_currents(temp)
        return self._channel_equations(temp) + self._gate_capacitance_equations(temp) + \
            self._junction_capacitance_equations() + [
            sp.Eq(self.vgs, tp * (self.g.v - self.vsi)),
            sp.Eq(self.vds, tp * (self.vdi - self.vsi)),
            sp.Eq(self.vbs, tp * (self.b.v - self.vsi)),
            sp.Eq(self.vbd, self.vbs - self.vds),
            sp.Eq(self.vgd, self.vgs - self.vds),
            sp.Eq(self.vgb, self.vgs - self.vbs),
            sp.Eq(self.ibs, bulk_junction_current(self.vbs, i_source, temp.vt, self.GMIN, self.EXP_LIMIT)),
            sp.Eq(self.ibd, bulk_junction_current(self.vbd, i_drain, temp.vt, self.GMIN, self.EXP_LIMIT)),
            sp.Eq(self.g.i, tp * into["g"]),
            sp.Eq(self.b.i, tp * (self.ibs + self.ibd + into["b"])),
            sp.Eq(self.d.i, tp * (self.ids - self.ibd + into["d"]) + self._noise("id")
                  + self._noise("1overf")),
            sp.Eq(self.d.i + self.g.i + self.s.i + self.b.i, 0),
            sp.Eq(self.d.v - self.vdi, drain),
            sp.Eq(self.vsi - self.s.v, source),
        ]

    def dissipation(self):
        """RD/M·d.i² + RS/M·s.i² + ids·vds + ibs·vbs + ibd·vbd [W] as (power, 1): the series
        resistances, the channel and the bulk diodes' conduction currents; with Meyer's
        capacitances, the power they take (charge non-conserving: it has no stored energy,
        and may be negative). The other charge currents' power is stored, :meth:`energy`."""
        power = self.RD / self.M * self.d.i**2 + self.RS / self.M * self.s.i**2 + \
            self.ids * self.vds + self.ibs * self.vbs + self.ibd * self.vbd
        if "meyer" in self.present():
            rates = self._rates()
            for name, overlap in self._overlaps().items():
                v = getattr(self, BRANCHES[name][2])
                power += (getattr(self, "c" + name) - overlap) * v * rates[name]
        return power, sp.Integer(1)

    # --- noise (the sources: :class:`~.noise.MOSFETNoise`) ----------------------------------

    def noise_variant(self):
        """A copy of this MOSFET whose noise currents are zero-valued parameters (named by
        :meth:`noise_input`): the inputs a noise analysis linearizes from."""
        return noisy_class(MOSFET)(self.name, **self._values)
