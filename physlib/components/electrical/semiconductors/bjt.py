"""The bipolar junction transistor: ngspice-39's Gummel–Poon model (its ``Q`` element, level 1)
for NPN and PNP, re-exported as :class:`physlib.components.electrical.BJT`."""
import math

from ....core import Component, Parameter, Port, Variable, der
from ....domains import electrical
from ....core.lazy import lazy_module
from ...noise_variants import noisy_class
from .junctions import (BOLTZMANN, ELEMENTARY_CHARGE, PositiveOrInfinite, depletion_charge,
                        junction_current, junction_temperature, saturation_scale)

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["BJT"]


def _grading(name):
    return (lambda m: 0.0 <= m < 1.0, f"{name} must be in [0, 1)")


def _inverse(x):
    """1/x, and 0 for x = +inf (a parameter left out: no Early effect, no high injection)."""
    return sp.Piecewise((1 / x, x < 1e300), (0, True))


class BJT(Component):
    """Bipolar junction transistor, SPICE Gummel–Poon model as ngspice-39's ``Q`` element
    (bjtload.c, bjttemp.c, bjtnoise.c; H. K. Gummel and H. C. Poon, "An integral charge control
    model of bipolar transistors", Bell Syst. Tech. J. 49, 1970): NPN (default) or PNP
    (``pnp=True``), series resistances RB, RC, RE to internal nodes B', C', E', Early effect,
    high injection, base leakage, depletion and diffusion charges, temperature dependence,
    noise; an optional substrate pin ``s`` (``substrate=True``; without it there is no
    substrate junction at all), vertical (to the collector, default) or ``lateral=True``.

    Pins ``c``, ``b``, ``e`` [, ``s``]; the pin currents flow into the transistor.

    Parameters (SPICE names and defaults; area = 1):

    ====== ====== =============================================================== =========
    name   unit   meaning                                                         default
    ====== ====== =============================================================== =========
    IS     A      transport saturation current at TNOM (> 0)                      1e-16
    BF     1      ideal maximum forward beta (> 0)                                100
    BR     1      ideal maximum reverse beta (> 0)                                1
    NF     1      forward emission coefficient (> 0)                              1
    NR     1      reverse emission coefficient (> 0)                              1
    VAF    V      forward Early voltage (> 0; inf: none)                          inf
    VAR    V      reverse Early voltage (> 0; inf: none)                          inf
    IKF    A      forward beta high-current roll-off corner (> 0; inf: none)      inf
    IKR    A      reverse beta high-current roll-off corner (> 0; inf: none)      inf
    ISE    A      B-E leakage saturation current (>= 0)                           0
    NE     1      B-E leakage emission coefficient (> 0)                          1.5
    ISC    A      B-C leakage saturation current (>= 0)                           0
    NC     1      B-C leakage emission coefficient (> 0)                          2
    RB     Ohm    base resistance (>= 0; RBM = RB, IRB = 0: constant)             0
    RC     Ohm    collector resistance (>= 0)                                     0
    RE     Ohm    emitter resistance (>= 0)                                       0
    CJE    F      B-E zero-bias depletion capacitance (>= 0)                      0
    VJE    V      B-E built-in potential (> 0)                                    0.75
    MJE    1      B-E junction grading coefficient [0, 1)                         0.33
    CJC    F      B-C zero-bias depletion capacitance (>= 0; XCJC = 1: at B')     0
    VJC    V      B-C built-in potential (> 0)                                    0.75
    MJC    1      B-C junction grading coefficient [0, 1)                         0.33
    CJS    F      substrate zero-bias capacitance (>= 0; with the pin)            0
    VJS    V      substrate junction built-in potential (> 0)                     0.75
    MJS    1      substrate junction grading coefficient [0, 1)                   0
    FC     1      forward-bias depletion capacitance coefficient [0, 0.9999]      0.5
    TF     s      ideal forward transit time (>= 0; XTF = 0)                      0
    TR     s      ideal reverse transit time (>= 0)                               0
    XTB    1      forward and reverse beta temperature exponent                   0
    EG     eV     energy gap for the temperature effect on IS (> 0)               1.11
    XTI    1      temperature exponent for the effect on IS                       3
    KF     1      flicker noise coefficient (>= 0)                                0
    AF     1      flicker noise exponent (> 0)                                    1
    T      K      device (circuit) temperature (> 0)                              300.15
    TNOM   K      temperature the parameters were measured at (> 0)               300.15
    GMIN   S      conductance across each junction (>= 0); ngspice: 1e-12         0
    ====== ====== =============================================================== =========

    Variables (type-normalized: for a PNP every voltage and current below is the negative of
    the physical one, as ngspice's ``type``): vbe, vbc [V] junction voltages at the internal
    nodes, vsub [V] substrate junction voltage (s against C'; 0 without the pin), cc, cb [A]
    the transport model's collector and base currents (the shot noise follows them), qbe, qbc,
    qsub [C] the junction charges, states where the junction stores charge (charges rather than
    voltages: two junction capacitances in a loop with a source, through a zero RB or RE, then
    make no dependent states).

    Equations (vt = k·T/q; junction(v, I, n) = I·(exp(v/(n·vt)) − 1) for v >= −3·n·vt and
    −I·(1 + (3·n·vt/(e·v))³) below, as ngspice)::

        cbe = junction(vbe, IS(T), NF)            cbc = junction(vbc, IS(T), NR)
        cben = junction(vbe, ISE(T), NE) + GMIN·vbe     cbcn = junction(vbc, ISC(T), NC) + GMIN·vbc
        q1 = 1/(1 − vbc/VAF − vbe/VAR),  q2 = cbe/IKF + cbc/IKR
        qb = q1·(1 + sqrt(1 + 4·q2))/2          (sqrt → 1 where 1 + 4·q2 <= 0, as ngspice)
        cc = (cbe − cbc)/qb − cbc/BR(T) − cbcn    cb = cbe/BF(T) + cben + cbc/BR(T) + cbcn
        qbe = TF·cbe/qb (vbe > 0; TF·cbe below) + Qj(vbe; CJE, VJE, MJE)
        qbc = TR·cbc + Qj(vbc; CJC, VJC, MJC)
        qsub = Qs(vsub): VJS·CJS·(1 − (1 − vsub/VJS)^(1−MJS))/(1 − MJS) for vsub < 0,
                         CJS·vsub·(1 + MJS·vsub/(2·VJS)) above
        cdsub = GMIN·vsub                          (ISS = 0)
        b.i = type·(cb + dqbe/dt + dqbc/dt)
        e.i = −type·(cc + cb + dqbe/dt)
        c.i = type·(cc − dqbc/dt) − s.i,   s.i = type·(cdsub + dqsub/dt)
        type·vbe = (b.v − RB·b.i) − (e.v − RE·e.i),  type·vbc = (b.v − RB·b.i) − (c.v − RC·c.i)
        type·vsub = s.v − (c.v − RC·c.i)           (vertical: the substrate junction to C')

    A lateral transistor (``lateral=True``; ngspice's default for a PNP, SUBS = −1) has its
    substrate junction to B' instead, with the opposite sign: −type·vsub = s.v − B',
    s.i = −type·(cdsub + dqsub/dt), taken from the base current instead of the collector's.

    Qj is the junction depletion charge of :func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`
    (linear capacitance above FC·VJ). Temperature as bjttemp.c (TLEV = TLEVC = 0):
    IS(T) = IS·exp((T/TNOM − 1)·EG/vt)·(T/TNOM)^XTI, BF(T), BR(T) = BF, BR·(T/TNOM)^XTB,
    ISE(T) = ISE·[IS's factor]^(1/NE)/(T/TNOM)^XTB (ISC likewise with NC), VJ and CJ of each
    junction by ngspice's band-gap rule (TLEVC = 0). The exponentials continue as
    their tangents above 40·n·vt so Newton steps from a poor guess cannot overflow.

    Structure: the B-E junction stores charge when CJE > 0 or TF > 0, the B-C junction when
    CJC > 0 or TR > 0, the substrate junction when the pin exists and CJS > 0 (then its charge
    is a state), decided with the values at compile; ``params=`` values
    that would add or remove one are a :class:`~physlib.core.errors.StructureChangeError`.
    The charges' power is neither stored energy nor dissipation in the energy books
    (:meth:`dissipation` books the resistors and the transport currents).

    Noise (bjtnoise.c; parts ``"Q1.rc"``, ``"Q1.rb"``, ``"Q1.re"``, ``"Q1.ic"``, ``"Q1.ib"``,
    ``"Q1.1overf"``): thermal 4kT/RC, 4kT/RB, 4kT/RE [A²/Hz] in parallel with each resistance
    (0 where it is 0), shot 2q·|cc| from C' to E' and 2q·|cb| from B' to E', flicker
    KF·|cb|^AF/f from B' to E'.

    ngspice parameters not modelled: XTF, VTF, ITF, PTF, IRB, RBM, XCJC, ISS, NS, NKF, the
    temperature coefficients (TLEV > 0) and area; :mod:`physlib.spice` refuses them.
    """

    pnp = Parameter(False, description="PNP (True) or NPN (False)", structural=True)
    substrate = Parameter(False, description="give the transistor its substrate pin s", structural=True)
    lateral = Parameter(False, description="substrate junction to the base B' (lateral) instead of "
                        "the collector C' (vertical)", structural=True)
    c = Port(electrical, "collector")
    b = Port(electrical, "base")
    e = Port(electrical, "emitter")
    s = Port(electrical, "substrate", condition="substrate")

    IS = Parameter(1e-16, unit="A", description="transport saturation current", positive=True)
    BF = Parameter(100.0, unit="1", description="ideal maximum forward beta", positive=True)
    BR = Parameter(1.0, unit="1", description="ideal maximum reverse beta", positive=True)
    NF = Parameter(1.0, unit="1", description="forward emission coefficient", positive=True)
    NR = Parameter(1.0, unit="1", description="reverse emission coefficient", positive=True)
    VAF = PositiveOrInfinite(math.inf, unit="V", description="forward Early voltage (inf: none)",
                             positive=True)
    VAR = PositiveOrInfinite(math.inf, unit="V", description="reverse Early voltage (inf: none)",
                             positive=True)
    IKF = PositiveOrInfinite(math.inf, unit="A", description="forward high-current corner (inf: none)",
                             positive=True)
    IKR = PositiveOrInfinite(math.inf, unit="A", description="reverse high-current corner (inf: none)",
                             positive=True)
    ISE = Parameter(0.0, unit="A", description="B-E leakage saturation current", nonnegative=True)
    NE = Parameter(1.5, unit="1", description="B-E leakage emission coefficient", positive=True)
    ISC = Parameter(0.0, unit="A", description="B-C leakage saturation current", nonnegative=True)
    NC = Parameter(2.0, unit="1", description="B-C leakage emission coefficient", positive=True)
    RB = Parameter(0.0, unit="Ohm", description="base resistance", nonnegative=True)
    RC = Parameter(0.0, unit="Ohm", description="collector resistance", nonnegative=True)
    RE = Parameter(0.0, unit="Ohm", description="emitter resistance", nonnegative=True)
    CJE = Parameter(0.0, unit="F", description="B-E zero-bias depletion capacitance", nonnegative=True)
    VJE = Parameter(0.75, unit="V", description="B-E built-in potential", positive=True)
    MJE = Parameter(0.33, unit="1", description="B-E grading coefficient", check=_grading("MJE"))
    CJC = Parameter(0.0, unit="F", description="B-C zero-bias depletion capacitance", nonnegative=True)
    VJC = Parameter(0.75, unit="V", description="B-C built-in potential", positive=True)
    MJC = Parameter(0.33, unit="1", description="B-C grading coefficient", check=_grading("MJC"))
    CJS = Parameter(0.0, unit="F", description="substrate zero-bias capacitance", nonnegative=True)
    VJS = Parameter(0.75, unit="V", description="substrate built-in potential", positive=True)
    MJS = Parameter(0.0, unit="1", description="substrate grading coefficient", check=_grading("MJS"))
    FC = Parameter(0.5, unit="1", description="forward-bias depletion capacitance coefficient",
                   check=(lambda fc: 0.0 <= fc <= 0.9999, "FC must be in [0, 0.9999] (ngspice's limit)"))
    TF = Parameter(0.0, unit="s", description="ideal forward transit time", nonnegative=True)
    TR = Parameter(0.0, unit="s", description="ideal reverse transit time", nonnegative=True)
    XTB = Parameter(0.0, unit="1", description="beta temperature exponent")
    EG = Parameter(1.11, unit="eV", description="energy gap for the temperature effect on IS", positive=True)
    XTI = Parameter(3.0, unit="1", description="temperature exponent of IS")
    KF = Parameter(0.0, unit="1", description="flicker noise coefficient (KF·|cb|^AF/f [A²/Hz])",
                   nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise exponent", positive=True)
    T = Parameter(300.15, unit="K", description="device temperature", positive=True)
    TNOM = Parameter(300.15, unit="K", description="temperature the parameters were measured at",
                     positive=True)
    GMIN = Parameter(0.0, unit="S", description="conductance across each junction (ngspice: 1e-12)",
                     nonnegative=True)

    vbe = Variable("V", "B'-E' junction voltage (type-normalized)")
    vbc = Variable("V", "B'-C' junction voltage (type-normalized)")
    vsub = Variable("V", "substrate junction voltage s-C' (type-normalized; 0 without the pin)")
    cc = Variable("A", "transport collector current (type-normalized)")
    cb = Variable("A", "transport base current (type-normalized)")
    qbe = Variable("C", "B-E junction charge (type-normalized)")
    qbc = Variable("C", "B-C junction charge (type-normalized)")
    qsub = Variable("C", "substrate junction charge (type-normalized)")

    EXP_LIMIT = 40.0
    NOISE_PARTS = {"rc": "thermal", "rb": "thermal", "re": "thermal", "ic": "shot", "ib": "shot",
                   "1overf": "flicker"}

    # --- structure --------------------------------------------------------------------------

    def charges(self, values=None) -> tuple[bool, bool, bool]:
        """Which of the B-E, B-C and substrate junctions store charge (their charge is a state)
        with the parameter values
        ``values`` (default: the component's)."""
        v = self._values if values is None else values
        return (v["CJE"] > 0 or v["TF"] > 0, v["CJC"] > 0 or v["TR"] > 0,
                bool(self._values["substrate"]) and v["CJS"] > 0)

    def structure_key(self):
        return super().structure_key() + self.charges()      # pnp, substrate, lateral first

    def structure_change(self, compiled, asked):
        names = (("of the B-E junction", "CJE", "TF"), ("of the B-C junction", "CJC", "TR"),
                 ("of the substrate junction", "CJS", "CJS"))
        changes = [f"{a} = {asked[a]:g}, {b} = {asked[b]:g} {'give' if now else 'remove'} the charge "
                   f"{q} (compiled with {a} = {compiled[a]:g}, {b} = {compiled[b]:g}; whether the "
                   "junction stores charge decides whether its charge is a state)"
                   for (q, a, b), was, now in zip(names, self.charges(compiled), self.charges(asked))
                   if was != now]
        return "; ".join(changes) or None

    # --- equations --------------------------------------------------------------------------

    def thermal_voltage(self):
        """vt = k·T/q [V]."""
        return BOLTZMANN * self.T / ELEMENTARY_CHARGE

    def transport(self, vbe, vbc):
        """(cc, cb, cbe, qb, cbc) [A, A, A, 1, A] of the Gummel–Poon transport model at the junction
        voltages (type-normalized), with the temperature rules of the class docstring."""
        vt, limit = self.thermal_voltage(), self.EXP_LIMIT
        i_sat = self.IS * saturation_scale(self.T, self.TNOM, self.EG, self.XTI)
        beta_scale = (self.T / self.TNOM) ** self.XTB
        ise = self.ISE * saturation_scale(self.T, self.TNOM, self.EG, self.XTI, self.NE) / beta_scale
        isc = self.ISC * saturation_scale(self.T, self.TNOM, self.EG, self.XTI, self.NC) / beta_scale
        bf, br = self.BF * beta_scale, self.BR * beta_scale
        cbe = junction_current(vbe, i_sat, self.NF * vt, limit)
        cbc = junction_current(vbc, i_sat, self.NR * vt, limit)
        cben = junction_current(vbe, ise, self.NE * vt, limit) + self.GMIN * vbe
        cbcn = junction_current(vbc, isc, self.NC * vt, limit) + self.GMIN * vbc
        q1 = 1 / (1 - vbc * _inverse(self.VAF) - vbe * _inverse(self.VAR))
        arg = 1 + 4 * (cbe * _inverse(self.IKF) + cbc * _inverse(self.IKR))
        qb = q1 * (1 + sp.Piecewise((sp.sqrt(arg), arg > 0), (1, True))) / 2
        cc = (cbe - cbc) / qb - cbc / br - cbcn
        cb = cbe / bf + cben + cbc / br + cbcn
        return cc, cb, cbe, qb, cbc

    def junction_charges(self, vbe, vbc, vsub):
        """(qbe, qbc, qsub) [C] at the junction voltages (type-normalized)."""
        T, tnom, fc = self.T, self.TNOM, self.FC
        _, _, cbe, qb, cbc = self.transport(vbe, vbc)
        qbe = self.TF * sp.Piecewise((cbe / qb, vbe > 0), (cbe, True)) + \
            depletion_charge(vbe, self.CJE, self.VJE, self.MJE, fc, T, tnom)
        qbc = self.TR * cbc + depletion_charge(vbc, self.CJC, self.VJC, self.MJC, fc, T, tnom)
        if not self.substrate:
            return qbe, qbc, 0
        # The substrate junction's potential and capacitance follow the same band-gap rule;
        # its charge has no FC extension (bjtload.c): above 0 a first-order expansion.
        vjs, cjs = junction_temperature(self.CJS, self.VJS, self.MJS, T, tnom)
        mjs = self.MJS
        qsub = sp.Piecewise((vjs * cjs * (1 - (1 - vsub / vjs) ** (1 - mjs)) / (1 - mjs), vsub < 0),
                            (vsub * cjs * (1 + mjs * vsub / (2 * vjs)), True))
        return qbe, qbc, qsub

    def charge_currents(self):
        """(dqbe/dt, dqbc/dt, dqsub/dt) [A]: the derivatives of the charge states qbe, qbc,
        qsub [C] (0 for a junction without charge)."""
        be, bc, sub = self.charges()
        return (der(self.qbe) if be else 0, der(self.qbc) if bc else 0, der(self.qsub) if sub else 0)

    def _noise(self, part):
        """The noise current of ``part`` [A]: 0 here, a parameter in the noise copy
        (:meth:`noise_variant`)."""
        return 0

    def equations(self):
        tp = -1 if self.pnp else 1
        n = self._noise
        base = self.b.v - self.RB * (self.b.i - n("rb"))          # B'
        collector = self.c.v - self.RC * (self.c.i - n("rc"))     # C'
        emitter = self.e.v - self.RE * (self.e.i - n("re"))       # E'
        cc, cb, _, _, _ = self.transport(self.vbe, self.vbc)
        dqbe, dqbc, dqsub = self.charge_currents()
        qbe, qbc, qsub = self.junction_charges(self.vbe, self.vbc, self.vsub)
        eqs = [sp.Eq(tp * self.vbe, base - emitter), sp.Eq(tp * self.vbc, base - collector),
               sp.Eq(self.cc, cc), sp.Eq(self.cb, cb),
               sp.Eq(self.qbe, qbe), sp.Eq(self.qbc, qbc), sp.Eq(self.qsub, qsub)]
        into_base = into_collector = 0       # the substrate current, from s to B' or C'
        if self.substrate:
            sign = -tp if self.lateral else tp
            into = sign * (self.GMIN * self.vsub + dqsub)
            eqs += [sp.Eq(sign * self.vsub, self.s.v - (base if self.lateral else collector)),
                    sp.Eq(self.s.i, into)]
            into_base, into_collector = (into, 0) if self.lateral else (0, into)
        else:
            eqs.append(sp.Eq(self.vsub, 0))
        shot = n("ib") + n("1overf")
        return eqs + [
            sp.Eq(self.b.i, tp * (self.cb + shot + dqbe + dqbc) - into_base),
            sp.Eq(self.e.i, -tp * (self.cc + self.cb + shot + n("ic") + dqbe)),
            sp.Eq(self.c.i, tp * (self.cc + n("ic") - dqbc) - into_collector),
        ]

    def dissipation(self):
        """RB·ib² + RC·ic² + RE·ie² + vbe·cb + (vbe − vbc)·cc + vsub·GMIN·vsub [W]: the series
        resistances and the transport currents (the charges' power is not booked). The terms
        share no flow, so the pair is (power, 1)."""
        power = self.RB * self.b.i**2 + self.RC * self.c.i**2 + self.RE * self.e.i**2 + \
            self.vbe * self.cb + (self.vbe - self.vbc) * self.cc + self.GMIN * self.vsub**2
        return power, sp.Integer(1)

    # --- noise ------------------------------------------------------------------------------

    def noise_parts(self, params):
        """The noise sources inside the transistor, ``{part: kind}`` (all six, as ngspice lists
        them; a resistance of 0 has a source of density 0)."""
        return dict(self.NOISE_PARTS)

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient [A²]) of ``part`` at an operating point
        (``values``: the variables by local name, ``params``: the parameters by name)."""
        if part in ("rb", "rc", "re"):
            r = params[part.upper()]
            return (4 * BOLTZMANN * params["T"] / r if r > 0 else 0.0), 0.0
        if part == "ic":
            return 2 * ELEMENTARY_CHARGE * abs(values["cc"]), 0.0
        if part == "ib":
            return 2 * ELEMENTARY_CHARGE * abs(values["cb"]), 0.0
        return 0.0, params["KF"] * abs(values["cb"]) ** params["AF"]

    def noise_variant(self):
        """A ``NoisyBJT`` (:func:`~physlib.components.noise_variants.noisy_class`) with this
        transistor's values: its noise currents are zero-valued
        parameters (named by :meth:`noise_input`), the inputs a noise analysis linearizes from."""
        return noisy_class(BJT)(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        """The parameter of the noise copy that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)

