"""The junction diode: SPICE level 1 as ngspice-39's ``D`` element."""
import math

from ....core import Parameter, ParameterError, Variable, der
from ....core.lazy import lazy_module
from ...noise_variants import noisy_class
from ..interfaces import ConstantsChoice, OnePort, constant_set
from .gummel_poon import inverse
from .junctions import (EXP_LIMIT, current_exp_limit, limited_potential, PositiveOrInfinite, depletion_charge, forward_current,
                        junction_temperature, limited_exp, reverse_current, saturation_scale)

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
    EG     V        activation energy, eV per elementary charge (> 0)       1.11
    XTI    1        saturation-current temperature exponent                 3
    T      K        device (circuit) temperature (> 0)                      300.15
    TNOM   K        temperature the parameters were measured at (> 0)       300.15
    KF     A        flicker noise coefficient (>= 0)                        0
    AF     1        flicker noise exponent (> 0)                            1
    GMIN   S        conductance across the junction (>= 0); ngspice: 1e-12  0
    ISR    A        recombination saturation current (>= 0)                 0
    NR     1        recombination emission coefficient (> 0)                2
    IKF    A        forward high-injection knee current (> 0; inf: none)    inf
    IKR    A        reverse high-injection knee current (> 0; inf: none)    inf
    NBV    1        breakdown emission coefficient (>= 0; 0: N)             0
    TRS    1/K      linear temperature coefficient of Rs                    0
    vd0    V        junction voltage the charge starts from (ngspice's IC=) 0
    ====== ======== ======================================================= =========

    ``constants``: the k and q of vt = k·T/q and of the noise, ``"SI"`` (SI 2019, the default)
    or ``"ngspice"`` (ngspice-39's CODATA 2014 values, as :mod:`physlib.spice` reads a deck).

    With ISR, IKF or IKR (ngspice-39, measured against it): the forward branch adds
    ISR(T)·(exp(vd/(NR·vt)) − 1)·((1 − vd/VJ(T))² + 0.005)^(M/2), ISR(T) = ISR·exp(factlog/NR)
    (factlog as IS's: ``saturation_scale``); then id → id/(1 + sqrt(id/IKF)) above 1e-18 A and
    id/(1 + sqrt(−id/IKR)) below −1e-18 A (each branch, before GMIN·vd). The breakdown branch
    and BVeff take NBV·vt for vte when NBV is given. Rs(T) = Rs·(1 + TRS·(T − TNOM)).

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
    EG = Parameter(1.11, unit="V", description="activation energy, in eV per elementary charge (1.11 eV is "
                   "1.11 V)", positive=True)
    XTI = Parameter(3.0, unit="1", description="saturation-current temperature exponent")
    T = Parameter(300.15, unit="K", description="device temperature", positive=True)
    TNOM = Parameter(300.15, unit="K", description="temperature the parameters were measured at",
                     positive=True)
    KF = Parameter(0.0, unit="A", description="flicker noise coefficient (KF·|id|^AF/f [A²/Hz])",
                   nonnegative=True)
    AF = Parameter(1.0, unit="1", description="flicker noise current exponent", positive=True)
    GMIN = Parameter(0.0, unit="S", description="conductance across the junction (ngspice: 1e-12)",
                     nonnegative=True)
    ISR = Parameter(0.0, unit="A", description="recombination saturation current", nonnegative=True)
    NR = Parameter(2.0, unit="1", description="recombination emission coefficient", positive=True)
    IKF = PositiveOrInfinite(math.inf, unit="A", description="forward high-injection knee current "
                             "(inf: none)", positive=True)
    IKR = PositiveOrInfinite(math.inf, unit="A", description="reverse high-injection knee current "
                             "(inf: none)", positive=True)
    NBV = Parameter(0.0, unit="1", description="breakdown emission coefficient (0: N)", nonnegative=True)
    TRS = Parameter(0.0, unit="1/K", description="linear temperature coefficient of Rs")
    constants = ConstantsChoice()
    vd0 = Parameter(0.0, unit="V", description="junction voltage the charge starts from")
    vd = Variable("V", "junction voltage")
    id = Variable("A", "junction current without the charge current")
    ij = Variable("A", "junction current before the high-injection knees (0 without ISR, IKF, IKR)")

    EXP_LIMIT = EXP_LIMIT
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

    def has_injection(self, values=None) -> bool:
        """Whether the recombination current or a high-injection knee exists (ISR > 0, IKF or
        IKR finite)."""
        v = self._values if values is None else values
        return v["ISR"] > 0 or math.isfinite(v["IKF"]) or math.isfinite(v["IKR"])

    def structure_key(self):
        # NBV > 0 or not: a Piecewise inside BVeff's 25 nested steps made compiling slow
        return (self.constants, self.has_charge(), self.has_breakdown(), self.has_injection(),
                self._values["NBV"] > 0)

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
        if (compiled["NBV"] > 0) != (asked["NBV"] > 0):
            changes.append(f"NBV = {asked['NBV']:g} switches between N and NBV in the breakdown "
                           f"branch (compiled with NBV = {compiled['NBV']:g})")
        if self.has_injection(compiled) != self.has_injection(asked):
            adds = self.has_injection(asked)
            changes.append(f"ISR = {asked['ISR']:g} A, IKF = {asked['IKF']:g} A, IKR = {asked['IKR']:g} A "
                           f"{'add' if adds else 'remove'} the recombination and knee terms "
                           f"(compiled {'without' if adds else 'with'} them)")
        return "; ".join(changes) or None

    # --- equations --------------------------------------------------------------------------

    def _exp(self, x, integral=False):
        """exp(x), continued as its tangent above EXP_LIMIT (``integral``: ∫₀ˣ of it)."""
        return limited_exp(x, self.EXP_LIMIT, integral)

    def junction_current(self, vd, integral=False, raw=False):
        """id(vd) [A]: ngspice's forward, reverse and breakdown branches plus GMIN·vd.
        ``integral``: ∫₀^vd id dv [A·V] instead (branch by branch, for the stored energy);
        ``raw``: the branches alone, before the knees and GMIN·vd."""
        constants = constant_set(self)
        vt = constants.thermal_voltage(self.T)
        vte = self.N * vt
        i_sat = self.Is * saturation_scale(self.T, self.TNOM, self.EG, self.XTI, self.N, constants=constants)
        if integral:
            knee = i_sat * vte * (sp.exp(-3) + 2)                     # the forward one at -3·vte
            forward = i_sat * (vte * limited_exp(vd / vte, current_exp_limit(i_sat, self.EXP_LIMIT), True) - vd)

            def reverse(v):
                return knee - i_sat * (v + 3 * vte) + \
                    i_sat * (3 * vte / sp.E) ** 3 / 2 * (1 / v**2 - 1 / (9 * vte**2))
        else:
            forward = forward_current(vd, i_sat, vte, self.EXP_LIMIT)

            def reverse(v):
                return reverse_current(v, i_sat, vte)
        injection = self.has_injection() and not integral     # (energy() has none with them)
        if injection:
            forward += self._recombination(vd, vt)
        pieces = [(forward, vd >= -3 * vte)]
        if self.has_breakdown():
            vtb = self.NBV * vt if self._values["NBV"] > 0 else vte         # NBV, else N
            bv_eff = self._breakdown_voltage(i_sat, vt, vtb)
            pieces.append((reverse(vd), vd >= -bv_eff))
            beyond = -(bv_eff + vd) / vtb
            pieces.append((reverse(-bv_eff) + i_sat * vtb * self._exp(beyond, integral=True) if integral
                           else -i_sat * self._exp(beyond), True))
        else:
            pieces.append((reverse(vd), True))
        current = sp.Piecewise(*pieces)
        if raw:
            return current
        if injection:
            current = self._knees(current)
        return current + (self.GMIN * vd**2 / 2 if integral else self.GMIN * vd)

    def _recombination(self, vd, vt):
        """ngspice-39's recombination current, forward branch only (measured): ISR(T)·(exp(vd/
        (NR·vt)) − 1)·((1 − vd/VJ(T))² + 0.005)^(M/2), ISR(T) with exponent 1/NR of IS's
        temperature factor."""
        constants = constant_set(self)
        isr = self.ISR * saturation_scale(self.T, self.TNOM, self.EG, self.XTI, self.NR, constants=constants)
        vj, _ = junction_temperature(self.CJO, self.VJ, self.M, self.T, self.TNOM, constants=constants)
        vj = limited_potential(vj, self.FC)          # as depletion_charge
        generation = ((1 - vd / vj)**2 + 0.005) ** (self.M / 2)
        return isr * (self._exp(vd / (self.NR * vt)) - 1) * generation

    def _knees(self, current, slope=False):
        """High injection as ngspice-39: i/(1 + sqrt(i/IKF)) above 1e-18 A, i/(1 + sqrt(−i/IKR))
        below −1e-18 A (IKF, IKR = inf: none); ``slope``: its derivative by i,
        (1 + s/2)/(1 + s)² with s the square root (written out: SymPy's derivative of the
        square root has 1/0 where IKF or IKR is none)."""
        def knee(s):
            return (1 + s / 2) / (1 + s)**2 if slope else current / (1 + s)
        return sp.Piecewise((knee(sp.sqrt(current * inverse(self.IKF))), current > 1e-18),
                            (knee(sp.sqrt(-current * inverse(self.IKR))), current < -1e-18),
                            (1 if slope else current, True))

    def series_resistance(self):
        """Rs(T) = Rs·(1 + TRS·(T − TNOM)) [Ω], as ngspice's diotemp.c."""
        return self.Rs * (1 + self.TRS * (self.T - self.TNOM))

    def _breakdown_voltage(self, i_sat, vt, vtb):
        """ngspice's BVeff (its temperature update): the fixed-point iteration, its 25 steps, with
        vtb = NBV·vt (N·vt without NBV)."""
        bv, ibv = self.BV, self.IBV
        x = bv - vtb * sp.log(1 + ibv / i_sat)
        for _ in range(self.BREAKDOWN_STEPS):
            x = bv - vtb * sp.log(ibv / i_sat + 1 - x / vt)
        return sp.Piecewise((bv, ibv < i_sat * bv / vt), (x, True))

    def depletion_charge(self, vd, integral=False):
        """Qj(vd) [C] with VJ(T), CJO(T) as ngspice's TLEVC = 0, VJ(T) at most 1/FC and the
        linear extension above FC·VJ (:func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`).
        ``integral``: ∫₀^vd Qj dv [C·V] instead (for the stored energy)."""
        return depletion_charge(vd, self.CJO, self.VJ, self.M, self.FC, self.T, self.TNOM,
                                integral, limit=True, constants=constant_set(self))

    def charge(self, vd, integral=False):
        """Q(vd) = TT·id(vd) + Qj(vd) [C]; ``integral``: ∫₀^vd Q dv [C·V]."""
        return self.TT * self.junction_current(vd, integral) + self.depletion_charge(vd, integral)

    def equations(self):
        eqs = super().equations() + [
            sp.Eq(self.v, self.vd + self.series_resistance() * (self.i - self._noise("rs")))]
        junction = self.id + self._noise("id") + self._noise("1overf")
        if self.has_injection():
            # the knees act on the variable ij: differentiating them around the breakdown
            # branch's BVeff iteration by vd took SymPy minutes. vd stays the state (a charge
            # state instead lost the 1N4007's charge while off: a 0.16 A spike at turn-on)
            raw = self.junction_current(self.vd, raw=True)
            eqs += [sp.Eq(self.ij, raw), sp.Eq(self.id, self._knees(self.ij) + self.GMIN * self.vd)]
            if self.has_charge():
                slope = self._knees(self.ij, slope=True) * sp.diff(raw, self.vd) + self.GMIN
                capacitance = self.TT * slope + sp.diff(self.depletion_charge(self.vd), self.vd)
                junction += capacitance * der(self.vd)
            return eqs + [sp.Eq(self.i, junction)]
        eqs += [sp.Eq(self.id, self.junction_current(self.vd)), sp.Eq(self.ij, 0)]
        if self.has_charge():
            junction += sp.diff(self.charge(self.vd), self.vd) * der(self.vd)
        return eqs + [sp.Eq(self.i, junction)]

    def initial(self):
        """The junction voltage (a state where it stores charge) starts at vd0, without an
        operating point: ngspice-39's ``uic`` start (dioload.c)."""
        return {self.vd: self.vd0} if self.has_charge() else {}

    def energy(self):
        """The energy the junction charge stores [J]: W(vd) = ∫₀^vd v·dQ = vd·Q(vd) − ∫₀^vd Q dv,
        so dW/dt = vd·dQ/dt, the power the charge current takes (none without charge)."""
        if not self.has_charge() or self.has_injection():   # no closed form of ∫id dv then
            return None
        return self.vd * self.charge(self.vd) - self.charge(self.vd, integral=True)

    def dissipation(self):
        """Rs·i² + vd·id [W]: the series resistance and the junction's conduction current; the
        charge current's power vd·dQ/dt is stored (:meth:`energy`), not dissipated. The two
        terms share no flow, so the pair is (power, 1)."""
        return self.series_resistance() * self.i**2 + self.vd * self.id, sp.Integer(1)

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
        current, (k, q) = abs(values["id"]), constant_set(self)
        if part == "rs":
            resistance = params["Rs"] * (1 + params["TRS"] * (params["T"] - params["TNOM"]))
            return 4 * k * params["T"] / resistance, 0.0
        if part == "id":
            return 2 * q * current, 0.0
        return 0.0, params["KF"] * current ** params["AF"]

    def noise_variant(self):
        """A copy of this diode whose noise currents are zero-valued parameters (named by
        :meth:`noise_input`): the inputs a noise analysis linearizes from."""
        return noisy_class(Diode)(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant` that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)
