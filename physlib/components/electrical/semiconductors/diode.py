"""The junction diode: SPICE level 1 as ngspice-39's ``D`` element."""
import math

from ....core import Parameter, ParameterError, Variable, der
from ....core.lazy import lazy_module
from ...noise_variants import noisy_class
from ..interfaces import OnePort
from .junctions import (BOLTZMANN, ELEMENTARY_CHARGE, PositiveOrInfinite, depletion_charge, forward_current,
                        limited_exp, reverse_current, saturation_scale)

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Diode"]


class Diode(OnePort):
    """SPICE level-1 junction diode (SPICE2, Nagel 1975; ngspice-39's ``D`` model, level 1):
    series resistance RS to an internal junction, the diode current with reverse breakdown,
    depletion and diffusion charge, temperature dependence, shot, flicker and thermal noise.

    Parameters (SPICE names; ``n``, ``IS``, ``RS`` and ``CJ0`` are accepted for N, Is, Rs, CJO):

    ====== ======== ======================================================= =========
    name   unit     meaning                                                 default
    ====== ======== ======================================================= =========
    Is     A        saturation current at TNOM (> 0)                        1e-14
    N      1        emission coefficient (> 0)                              1
    Rs     Ohm      series resistance (>= 0)                                0
    CJO    F        zero-bias junction capacitance (>= 0)                   0
    VJ     V        junction potential (> 0)                                1
    M      1        grading coefficient (0 <= M <= 0.9)                     0.5
    FC     1        forward-bias depletion capacitance coefficient [0, 1)   0.5
    TT     s        transit time (>= 0)                                     0
    BV     V        reverse breakdown voltage (> 0; inf: no breakdown)      inf
    IBV    A        current at the breakdown voltage (> 0)                  1e-3
    EG     eV       activation energy (> 0)                                 1.11
    XTI    1        saturation-current temperature exponent                 3
    T      K        device (circuit) temperature (> 0)                      300.15
    TNOM   K        temperature the parameters were measured at (> 0)       300.15
    KF     A        flicker noise coefficient (>= 0)                        0
    AF     1        flicker noise exponent (> 0)                            1
    GMIN   S        conductance across the junction (>= 0); ngspice: 1e-12  0
    ====== ======== ======================================================= =========

    Variables: vd [V] junction voltage (after RS); id [A] junction current without the
    charge current (the diode equation plus GMIN·vd), the current shot and flicker noise
    follow. The defaults give the Shockley diode physlib has always had (no charge, no
    breakdown, GMIN = 0, no state), except below vd = −3·N·vt, where SPICE's reverse current
    differs from Shockley's by at most 0.4 % of Is; at T ≠ TNOM Is, VJ and CJO follow the
    temperature (before, Is did not).

    Equations (ngspice-39's level-1 diode; vt = k·T/q, vte = N·vt)::

        v  = vd + Rs·i
        i  = id + dQ/dt                       (Q: junction charge; only with CJO > 0 or TT > 0)
        id = IS(T)·(exp(vd/vte) − 1)                    vd >= −3·vte
           = −IS(T)·(1 + (3·vte/(e·vd))³)               −BVeff <= vd < −3·vte
           = −IS(T)·exp(−(BVeff + vd)/vte)              vd < −BVeff (only when BV is given)
           + GMIN·vd
        Q  = TT·id + Qj(vd)
        Qj = VJ·CJO·(1 − (1 − vd/VJ)^(1−M))/(1 − M)                       vd < FC·VJ
           = CJO·F1 + CJO/F2·(F3·(vd − FC·VJ) + M/(2·VJ)·(vd² − (FC·VJ)²))  vd >= FC·VJ
        F1 = VJ·(1 − (1 − FC)^(1−M))/(1 − M),  F2 = (1 − FC)^(1+M),  F3 = 1 − FC·(1 + M)
        IS(T) = Is·exp((T/TNOM − 1)·EG/vte)·(T/TNOM)^(XTI/N)

    BVeff matches the breakdown branch to IBV at −BV: ngspice's fixed-point iteration
    BVeff = BV − vte·ln(IBV/IS(T) + 1 − BVeff/vt) from BV − vte·ln(1 + IBV/IS(T)), run to
    its 25 steps (ngspice stops earlier, at its RELTOL); BVeff = BV when IBV < IS(T)·BV/vt.
    VJ(T) and CJO(T) follow ngspice's default (TLEVC = 0) rule from the silicon band gap
    Eg(T) = 1.16 − 7.02e-4·T²/(T + 1108) eV (the identity at T = TNOM), and VJ(T) is limited to
    1/FC as ngspice does. Above vd = 40·vte the exponentials continue as their tangents, so
    Newton steps from a poor guess cannot overflow; real diodes never get there.

    Structure: the charge (a state, vd) exists when CJO > 0 or TT > 0, and the breakdown branch
    when BV is finite, with the values the diode has when the model is compiled. ``params=``
    may change CJO, TT and BV within that structure; a value that would add or remove the
    charge or the breakdown branch (CJO = 1e-12 for a diode compiled with CJO = TT = 0) is a
    :class:`~physlib.core.errors.StructureChangeError`: set it before compiling.

    Noise (as ngspice's diode noise): with Rs > 0 three sources, ``"D1.rs"`` thermal
    4·k·T/Rs in parallel with Rs (T: the diode's temperature), ``"D1.id"`` shot 2·q·|id| and
    ``"D1.1overf"`` flicker KF·|id|^AF/f, both across the junction (inside Rs). With Rs = 0 the
    junction is the whole diode: one source ``"D1"`` (shot, with the 1/f part), as before.

    References: L. W. Nagel, "SPICE2: A computer program to simulate semiconductor circuits",
    ERL Memo ERL-M520, UC Berkeley, 1975; the ngspice manual, chapter "Diodes" (junction
    diode model, level 1).
    """

    noise_kind = "shot"
    noise_current = "id"          # the current shot and flicker noise follow (not the charge's)

    Is = Parameter(1e-14, unit="A", description="saturation current at TNOM", positive=True)
    N = Parameter(1.0, unit="1", description="emission coefficient", positive=True)
    Rs = Parameter(0.0, unit="Ohm", description="series resistance", nonnegative=True)
    CJO = Parameter(0.0, unit="F", description="zero-bias junction capacitance", nonnegative=True)
    VJ = Parameter(1.0, unit="V", description="junction potential", positive=True)
    M = Parameter(0.5, unit="1", description="grading coefficient",
                  check=(lambda m: 0.0 <= m <= 0.9, "the grading coefficient must be in [0, 0.9] "
                         "(ngspice limits it to 0.9)"))
    FC = Parameter(0.5, unit="1", description="forward-bias depletion capacitance coefficient",
                   check=(lambda fc: 0.0 <= fc < 1.0, "FC must be in [0, 1)"))
    TT = Parameter(0.0, unit="s", description="transit time", nonnegative=True)
    BV = PositiveOrInfinite(math.inf, unit="V", description="reverse breakdown voltage (inf: none)",
                           positive=True)
    IBV = Parameter(1e-3, unit="A", description="current at the breakdown voltage", positive=True)
    EG = Parameter(1.11, unit="eV", description="activation energy", positive=True)
    XTI = Parameter(3.0, unit="1", description="saturation-current temperature exponent")
    T = Parameter(300.15, unit="K", description="device temperature", positive=True)
    TNOM = Parameter(300.15, unit="K", description="temperature the parameters were measured at",
                     positive=True)
    KF = Parameter(0.0, unit="A", description="flicker noise coefficient (KF·|id|^AF/f [A²/Hz])",
                   nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise current exponent", positive=True)
    GMIN = Parameter(0.0, unit="S", description="conductance across the junction (ngspice: 1e-12)",
                     nonnegative=True)
    vd = Variable("V", "junction voltage")
    id = Variable("A", "junction current without the charge current")

    EXP_LIMIT = 40.0
    BREAKDOWN_STEPS = 25          # ngspice's iteration limit for BVeff
    ALIASES = {"n": "N", "IS": "Is", "RS": "Rs", "CJ0": "CJO"}

    def __init__(self, name=None, *positional, **values):
        for alias, canonical in self.ALIASES.items():
            if alias in values:
                if canonical in values:
                    what = "emission coefficient (n or N)" if alias == "n" else f"{canonical} once ({alias} or {canonical})"
                    raise ParameterError(f"Diode {name!r}: give the {what}")
                values[canonical] = values.pop(alias)
        super().__init__(name, *positional, **values)   # positional values: an error naming them

    # --- structure --------------------------------------------------------------------------

    def has_charge(self, values=None) -> bool:
        """Whether the junction stores charge (CJO > 0 or TT > 0): then vd is a state."""
        values = self._values if values is None else values
        return values["CJO"] > 0 or values["TT"] > 0

    def has_breakdown(self, values=None) -> bool:
        """Whether the reverse breakdown branch exists (BV finite)."""
        return math.isfinite((self._values if values is None else values)["BV"])

    def structure_key(self):
        return (self.has_charge(), self.has_breakdown())

    def structure_change(self, compiled, asked):
        changes = []
        if self.has_charge(compiled) != self.has_charge(asked):
            changes.append(f"CJO = {asked['CJO']:g} F, TT = {asked['TT']:g} s "
                           f"{'give' if self.has_charge(asked) else 'remove'} the junction charge "
                           f"(compiled with CJO = {compiled['CJO']:g} F, TT = {compiled['TT']:g} s; "
                           "whether one is > 0 decides whether vd is a state)")
        if self.has_breakdown(compiled) != self.has_breakdown(asked):
            changes.append(f"BV = {asked['BV']:g} V {'adds' if self.has_breakdown(asked) else 'removes'} "
                           f"the breakdown branch (compiled with BV = {compiled['BV']:g} V)")
        return "; ".join(changes) or None

    # --- equations --------------------------------------------------------------------------

    def _exp(self, x, integral=False):
        """exp(x), continued as its tangent above EXP_LIMIT (``integral``: ∫₀ˣ of it)."""
        return limited_exp(x, self.EXP_LIMIT, integral)

    def junction_current(self, vd, integral=False):
        """id(vd) [A]: ngspice's forward, reverse and breakdown branches plus GMIN·vd.
        ``integral``: ∫₀^vd id dv [A·V] instead (branch by branch, for the stored energy)."""
        vt = BOLTZMANN * self.T / ELEMENTARY_CHARGE
        vte = self.N * vt
        i_sat = self.Is * saturation_scale(self.T, self.TNOM, self.EG, self.XTI, self.N)
        if integral:
            knee = i_sat * vte * (sp.exp(-3) + 2)                     # the forward one at -3·vte
            forward = i_sat * (vte * self._exp(vd / vte, integral=True) - vd)

            def reverse(v):
                return knee - i_sat * (v + 3 * vte) + \
                    i_sat * (3 * vte / sp.E) ** 3 / 2 * (1 / v**2 - 1 / (9 * vte**2))
        else:
            forward = forward_current(vd, i_sat, vte, self.EXP_LIMIT)

            def reverse(v):
                return reverse_current(v, i_sat, vte)
        pieces = [(forward, vd >= -3 * vte)]
        if self.has_breakdown():
            bv_eff = self._breakdown_voltage(i_sat, vt, vte)
            pieces.append((reverse(vd), vd >= -bv_eff))
            beyond = -(bv_eff + vd) / vte
            pieces.append((reverse(-bv_eff) + i_sat * vte * self._exp(beyond, integral=True) if integral
                           else -i_sat * self._exp(beyond), True))
        else:
            pieces.append((reverse(vd), True))
        return sp.Piecewise(*pieces) + (self.GMIN * vd**2 / 2 if integral else self.GMIN * vd)

    def _breakdown_voltage(self, i_sat, vt, vte):
        """ngspice's BVeff (its temperature update): the fixed-point iteration, its 25 steps."""
        bv, ibv = self.BV, self.IBV
        x = bv - vte * sp.log(1 + ibv / i_sat)
        for _ in range(self.BREAKDOWN_STEPS):
            x = bv - vte * sp.log(ibv / i_sat + 1 - x / vt)
        return sp.Piecewise((bv, ibv < i_sat * bv / vt), (x, True))

    def depletion_charge(self, vd, integral=False):
        """Qj(vd) [C] with VJ(T), CJO(T) as ngspice's TLEVC = 0, VJ(T) at most 1/FC and the
        linear extension above FC·VJ (:func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`).
        ``integral``: ∫₀^vd Qj dv [C·V] instead (for the stored energy)."""
        return depletion_charge(vd, self.CJO, self.VJ, self.M, self.FC, self.T, self.TNOM,
                                integral, limit=True)

    def charge(self, vd, integral=False):
        """Q(vd) = TT·id(vd) + Qj(vd) [C]; ``integral``: ∫₀^vd Q dv [C·V]."""
        return self.TT * self.junction_current(vd, integral) + self.depletion_charge(vd, integral)

    def equations(self):
        eqs = super().equations() + [
            sp.Eq(self.v, self.vd + self.Rs * (self.i - self._noise("rs"))),
            sp.Eq(self.id, self.junction_current(self.vd)),
        ]
        junction = self.id + self._noise("id") + self._noise("1overf")
        if self.has_charge():
            junction += sp.diff(self.charge(self.vd), self.vd) * der(self.vd)
        return eqs + [sp.Eq(self.i, junction)]

    def energy(self):
        """The energy the junction charge stores [J]: W(vd) = ∫₀^vd v·dQ = vd·Q(vd) − ∫₀^vd Q dv,
        so dW/dt = vd·dQ/dt, the power the charge current takes (none without charge)."""
        if not self.has_charge():
            return None
        return self.vd * self.charge(self.vd) - self.charge(self.vd, integral=True)

    def dissipation(self):
        """Rs·i² + vd·id [W]: the series resistance and the junction's conduction current; the
        charge current's power vd·dQ/dt is stored (:meth:`energy`), not dissipated. The two
        terms share no flow, so the pair is (power, 1)."""
        return self.Rs * self.i**2 + self.vd * self.id, sp.Integer(1)

    # --- noise ------------------------------------------------------------------------------

    NOISE_PARTS = {"rs": "thermal", "id": "shot", "1overf": "flicker"}

    def _noise(self, part):
        """The zero-valued noise current of ``part`` (only in :meth:`noise_variant`'s class)."""
        return 0

    def noise_parts(self, params):
        """The noise sources inside the diode, ``{part: kind}``, with its parameter values
        ``params`` (by name): with Rs > 0 the thermal noise of Rs and the junction's shot and
        flicker noise; None with Rs = 0 (one shot source across the diode, which is then the
        junction)."""
        return dict(self.NOISE_PARTS) if params["Rs"] > 0 else None

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient [A²]) of ``part`` at an operating point
        (``values``: the diode's variables by local name, ``params``: its parameters)."""
        current = abs(values["id"])
        if part == "rs":
            return 4 * BOLTZMANN * params["T"] / params["Rs"], 0.0
        if part == "id":
            return 2 * ELEMENTARY_CHARGE * current, 0.0
        return 0.0, params["KF"] * current ** params["AF"]

    def noise_variant(self):
        """A copy of this diode whose noise currents are zero-valued parameters (named by
        :meth:`noise_input`): the inputs a noise analysis linearizes from."""
        return noisy_class(Diode)(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant` that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)
