"""Electrical components (analog, lumped).

Sign convention: the current of a port is positive *into* the component; a one-port's ``v`` is
``p.v - n.v`` and its ``i`` flows from ``p`` through the component to ``n``. The cross-domain
parts at the end (EMF, HeatingResistor) follow the rotational and thermal conventions on
their other ports.
"""

import math

from ..core import Component, Input, Mode, Output, Parameter, ParameterError, Port, Variable, der
from ..core import symbols
from ..core.lazy import lazy_module
from ..core.logic import all_of, switched_once, where
from ..domains import electrical, rotational, thermal
from .junctions import (BOLTZMANN, ELEMENTARY_CHARGE, PositiveOrInfinite, depletion_charge, forward_current,
                        limited_exp, reverse_current, saturation_scale)
from .noise_variants import noisy_class
from .rotational.interfaces import Supported

sp = lazy_module("sympy")     # imported when equations are derived


# --- partial bases ----------------------------------------------------------------------------

class TwoPin(Component):
    """Two pins ``p``, ``n`` and the voltage between them.

    Variables: v [V] = p.v − n.v.
    """

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Variable("V", "voltage drop p.v - n.v")

    def equations(self):
        return [sp.Eq(self.v, self.p.v - self.n.v)]


class OnePort(TwoPin):
    """A two-pin whose pin currents balance: the current ``i`` enters ``p`` and leaves ``n``.

    Variables: v [V], i [A] (from p to n through the component).
    """

    i = Variable("A", "current from p to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]


# --- basic ----------------------------------------------------------------------------------

class Ground(Component):
    """Reference potential: ``p.v = 0``. Every circuit needs one."""

    p = Port(electrical, "ground pin")
    is_reference = True

    def equations(self):
        return [sp.Eq(self.p.v, 0)]


class Resistor(OnePort):
    """Ideal linear resistor: v = R·i.

    Parameters: R [Ohm] resistance (> 0).
    Dissipates v·i.
    """

    R = Parameter(unit="Ohm", description="resistance", positive=True)

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.R * self.i)]

    def dissipation(self):
        return self.v, self.i


class Capacitor(OnePort):
    """Ideal capacitor: i = C·dv/dt.

    Parameters: C [F] capacitance (> 0); v0 [V] initial voltage.
    States: v. Stores C·v²/2.
    """

    C = Parameter(unit="F", description="capacitance", positive=True)
    v0 = Parameter(0.0, unit="V", description="initial voltage")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.C * der(self.v))]

    def initial(self):
        return {self.v: self.v0}

    def energy(self):
        return self.C * self.v**2 / 2


class Inductor(OnePort):
    """Ideal inductor: v = L·di/dt.

    Parameters: L [H] inductance (> 0); i0 [A] initial current.
    States: i. Stores L·i²/2.
    """

    L = Parameter(unit="H", description="inductance", positive=True)
    i0 = Parameter(0.0, unit="A", description="initial current")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.L * der(self.i))]

    def initial(self):
        return {self.i: self.i0}

    def energy(self):
        return self.L * self.i**2 / 2


class MutualInductance(Component):
    """The magnetic coupling of two inductors (SPICE's K element), placed in series with each:
    side 1 (p1, n1) in series with an inductor L1, side 2 (p2, n2) with an inductor L2.

    Equations (i1: current p1 → n1, i2: p2 → n2; each side a one-port)::

        v1 = M·di2/dt,    v2 = M·di1/dt

    so that each winding, its inductor and its side together, is the coupled pair
    v1 = L1·di1/dt + M·di2/dt, v2 = M·di1/dt + L2·di2/dt, the dots on the p pins (currents
    entering both p pins add flux). SPICE gives M = k·√(L1·L2), |k| < 1 for a pair that stores
    energy for every current (|k| = 1 makes the inductance matrix singular). Several couplings
    in series with one inductor build multi-winding transformers.

    Parameters: M [H] mutual inductance (any sign). Stores M·i1·i2 (the pair's energy
    L1·i1²/2 + L2·i2²/2 + M·i1·i2 with the inductors').
    """

    p1 = Port(electrical, "side 1 positive pin")
    n1 = Port(electrical, "side 1 negative pin")
    p2 = Port(electrical, "side 2 positive pin")
    n2 = Port(electrical, "side 2 negative pin")
    M = Parameter(unit="H", description="mutual inductance")
    v1 = Variable("V", "side 1 voltage p1.v - n1.v")
    i1 = Variable("A", "side 1 current from p1 to n1")
    v2 = Variable("V", "side 2 voltage p2.v - n2.v")
    i2 = Variable("A", "side 2 current from p2 to n2")

    def equations(self):
        return [sp.Eq(self.v1, self.p1.v - self.n1.v), sp.Eq(self.p1.i + self.n1.i, 0),
                sp.Eq(self.i1, self.p1.i), sp.Eq(self.v2, self.p2.v - self.n2.v),
                sp.Eq(self.p2.i + self.n2.i, 0), sp.Eq(self.i2, self.p2.i),
                sp.Eq(self.v1, self.M * der(self.i2)), sp.Eq(self.v2, self.M * der(self.i1))]

    def energy(self):
        return self.M * self.i1 * self.i2

    def port_groups(self):
        return [("p1", "n1"), ("p2", "n2")]


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
        linear extension above FC·VJ (:func:`~physlib.components.junctions.depletion_charge`).
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


# --- ideal ----------------------------------------------------------------------------------

class IdealTransformer(Component):
    """Ideal transformer: v1 = ratio·v2, i2 = −ratio·i1 (no losses, no storage).

    Parameters: ratio [1] turns ratio n1/n2 (!= 0).
    Primary side p1/n1, secondary side p2/n2; each side needs its own ground.
    """

    p1 = Port(electrical, "primary positive pin")
    n1 = Port(electrical, "primary negative pin")
    p2 = Port(electrical, "secondary positive pin")
    n2 = Port(electrical, "secondary negative pin")
    ratio = Parameter(1.0, unit="1", description="turns ratio n1/n2", nonzero=True)

    def equations(self):
        v1, v2 = self.p1.v - self.n1.v, self.p2.v - self.n2.v
        return [sp.Eq(self.p1.i + self.n1.i, 0), sp.Eq(self.p2.i + self.n2.i, 0),
                sp.Eq(v1, self.ratio * v2), sp.Eq(self.p2.i, -self.ratio * self.p1.i)]

    def port_groups(self):
        return [("p1", "n1"), ("p2", "n2")]


class IdealOpAmp(Component):
    """Ideal operational amplifier (nullor): in_p.v = in_n.v, no input currents, and the
    output delivers whatever current the circuit needs (referred to ground)."""

    in_p = Port(electrical, "non-inverting input")
    in_n = Port(electrical, "inverting input")
    out = Port(electrical, "output")

    def equations(self):
        return [sp.Eq(self.in_p.v, self.in_n.v), sp.Eq(self.in_p.i, 0), sp.Eq(self.in_n.i, 0)]


# --- sources ----------------------------------------------------------------------------------

class VoltageSource(OnePort):
    """Ideal voltage source: v = V.

    Inputs: V [V] a number, a waveform (``V=Step(...)``) or a connected signal.
    """

    V = Input("V", "source voltage")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.V)]


class CurrentSource(OnePort):
    """Ideal current source: i = I, flowing from p through the source to n.

    Inputs: I [A] a number, a waveform or a connected signal.
    """

    I = Input("A", "source current")  # noqa: E741

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.I)]


# --- sensors ----------------------------------------------------------------------------------

class VoltageSensor(Component):
    """Ideal voltmeter: output v = p.v − n.v, no current drawn."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    v = Output("V", "measured voltage")

    def equations(self):
        return [sp.Eq(self.p.i, 0), sp.Eq(self.n.i, 0), sp.Eq(self.v, self.p.v - self.n.v)]


class CurrentSensor(Component):
    """Ideal ammeter in series: output i = current from p to n, no voltage drop."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    i = Output("A", "measured current")

    def equations(self):
        return [sp.Eq(self.p.v, self.n.v), sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]


# --- cross-domain -----------------------------------------------------------------------------

class EMF(OnePort, Supported):
    """Ideal electromechanical converter (DC machine): v = k·w, flange.tau = −k·i; no losses.

    Parameters: k [N.m/A] transformation coefficient, equal to V.s/rad (!= 0);
    use_support (structural) housing flange (fixed by default).
    Variables: w [rad/s] shaft speed relative to the housing.
    """

    flange = Port(rotational, "shaft")
    k = Parameter(unit="N.m/A", description="transformation coefficient", nonzero=True)
    w = Variable("rad/s", "shaft speed relative to the housing")

    def equations(self):
        return super().equations() + [
            sp.Eq(self.w, self.flange.w - self.support_w()),
            sp.Eq(self.v, self.k * self.w),
            sp.Eq(self.flange.tau, -self.k * self.i),
            *self.support_reaction(self.k * self.i)]


class HeatingResistor(OnePort):
    """Resistor whose resistance follows its temperature: R = R_ref·(1 + alpha·(T − T_ref)),
    v = R·i; its loss v·i leaves through ``heat_port`` (heat_port.Q = −v·i).

    Parameters: R_ref [Ohm] resistance at T_ref (> 0); T_ref [K] reference temperature (> 0);
    alpha [1/K] temperature coefficient.
    Variables: R [Ohm] actual resistance. Dissipates v·i.
    """

    heat_port = Port(thermal, "heat port at the resistor temperature")
    R_ref = Parameter(unit="Ohm", description="resistance at T_ref", positive=True)
    T_ref = Parameter(300.15, unit="K", description="reference temperature", positive=True)
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of resistance")
    R = Variable("Ohm", "actual resistance", start=1.0)

    def equations(self):
        return super().equations() + [
            sp.Eq(self.R, self.R_ref * (1 + self.alpha * (self.heat_port.T - self.T_ref))),
            sp.Eq(self.v, self.R * self.i),
            sp.Eq(self.heat_port.Q, -self.v * self.i)]

    def dissipation(self):
        return self.v, self.i


# --- switching ------------------------------------------------------------------------------

class _IdealSwitching(OnePort):
    """The curve-parameter form of an ideal switching element (the Modelica Standard Library's
    ideal diode and switches): one variable s runs along the characteristic,

        closed/conducting:  v = Ron·s·(1 A),  i = s·(1 A)          (s is the current)
        open/blocking:      v = s·(1 V),      i = Goff·s·(1 V)     (s is the voltage)

    plus the knee voltage Vknee where a subclass has one. In every mode one of the two
    coefficients of s is 1, so the equations stay regular with Ron = 0 or Goff = 0 (an ideal
    short or an ideal open), which a plain ``v = Ron·i`` / ``i = Goff·v`` pair does not.
    """

    Ron = Parameter(1e-5, unit="Ohm", description="closed (forward) resistance", nonnegative=True)
    Goff = Parameter(1e-5, unit="S", description="open (blocking) conductance", nonnegative=True)
    s = Variable("1", "curve parameter: current [A] when closed, voltage [V] when open")

    def _closed(self):
        raise NotImplementedError

    def _knee(self):
        return 0

    def equations(self):
        closed = self._closed()
        return super().equations() + [
            sp.Eq(self.v, self.s * sp.Piecewise((self.Ron, closed), (1, True)) + self._knee()),
            sp.Eq(self.i, self.s * sp.Piecewise((1, closed), (self.Goff, True)) + self.Goff * self._knee()),
        ]

    def dissipation(self):
        return self.v, self.i


class Switch(_IdealSwitching):
    """Switch closed while its control signal exceeds 0.5 (v = Ron·i closed, i = Goff·v open).

    Parameters: Ron [Ohm] closed resistance (>= 0, default 1e-5; 0 is an ideal short);
    Goff [S] open conductance (>= 0, default 1e-5; 0 is an ideal open). The defaults are the
    Modelica Standard Library's: small enough for power circuits, large enough that a node
    between an open switch and an off diode is never left floating.
    Inputs: control [1] closes the switch above 0.5.
    Modes: closed = 1 closed, 0 open.
    """

    control = Input("1", "closes the switch above 0.5")
    closed = Mode({"open": 0, "closed": 1}, start="open", description="switch position")

    def _closed(self):
        return sp.Eq(self.closed, 1)

    def guards(self):
        return [self.control - 0.5]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard: the control just crossed 0.5 (it may sit exactly on it now).
        return {"closed": switched_once(fired[0], v["closed"], v["pre(closed)"], v["control"] - 0.5,
                                        where(v["control"] > 0.5, 1, 0))}


class IdealDiode(_IdealSwitching):
    """Ideal diode: conducting (v = Vknee + Ron·i) while current flows forward, blocking
    (i = Goff·v) while the voltage is below the knee.

    Parameters: Ron [Ohm] forward resistance (>= 0, default 1e-5); Goff [S] blocking
    conductance (>= 0, default 1e-5); Vknee [V] forward voltage (>= 0, default 0).
    Modes: on = 1 conducting, 0 blocking. It switches where the curve parameter s crosses
    zero: the current while conducting, the voltage above the knee while blocking.
    """

    Vknee = Parameter(0.0, unit="V", description="forward (knee) voltage", nonnegative=True)
    on = Mode({"blocking": 0, "conducting": 1}, start="blocking", description="diode state")

    def _closed(self):
        return sp.Eq(self.on, 1)

    def _knee(self):
        return self.Vknee

    def guards(self):
        return [self.s]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard: s just crossed zero, and the diode switches once. Solved again in the
        # new mode, s may come out a rounding error on the old side (a turn-off located 1e-10 s
        # past the current's zero leaves a blocking voltage of ±1e-12 V); switching back on
        # that would be chattering within one instant.
        on, s = v["on"], v["s"]
        follows_s = where(all_of(on != 0, s < 0), 0, where(all_of(on == 0, s > 0), 1, on))
        return {"on": switched_once(fired[0], on, v["pre(on)"], s, follows_s)}


class BehaviouralSource(OnePort):
    """A voltage or current given by an expression (SPICE's B element): ``kind="V"``:
    v = expr; ``kind="I"``: i = expr (from p through the source to n).

    The expression (a SymPy expression or its text) may use time ``t``, the potentials of
    sense pins ``s1``, ``s2``, … (electrical pins that draw no current: ``s1`` is the
    potential of the node it is connected to, measured from ground), control currents ``c1``,
    ``c2``, … (signal inputs [A], e.g. a :class:`SensingVoltageSource`'s ``i_sense``) and
    parameters ``k1``, ``k2``, … given as keywords, which ``params=`` may change after compiling.
    The numbers of pins, inputs and parameters follow from the symbols used (one class per
    combination, as :class:`~physlib.components.signals.StateSpace`).

    ``BehaviouralSource("B1", kind="V", expr="k1*(s1 - s2)**2", k1=0.5)``

    Parameters: kind, expr (structural: changing them means compiling again); k1, k2, … [1].
    The expression should be smooth; steps in it (Piecewise, Heaviside) are not time events.
    """

    kind = Parameter("V", description='"V": v = expr, "I": i = expr', structural=True)
    expr = Parameter(description="SymPy expression of t, s1…, c1…, k1…", structural=True)
    senses, currents, constants = (), (), ()        # names, set per class

    def __new__(cls, name=None, *positional, **values):
        if cls is BehaviouralSource:
            used = _behavioural_symbols(values.get("expr"), name)
            cls = _behavioural_class(*(max((int(n[1:]) for n in used if n[0] == letter), default=0)
                                       for letter in "sck"))
        return super().__new__(cls)

    def validate(self):
        if self.kind not in ("V", "I"):
            raise ParameterError(f"BehaviouralSource {self.name!r}: kind must be 'V' or 'I', got {self.kind!r}")
        self._values["expr"] = sp.srepr(_behavioural_expression(self.expr, self.name))

    def equations(self):
        mapping = {sp.Symbol(n): getattr(self, n).v for n in self.senses}
        mapping.update({sp.Symbol(n): getattr(self, n) for n in self.currents + self.constants})
        mapping[sp.Symbol("t")] = symbols.t
        value = _behavioural_expression(self.expr, self.name).xreplace(mapping)
        return super().equations() + [sp.Eq(getattr(self, n).i, 0) for n in self.senses] + \
            [sp.Eq(self.v if self.kind == "V" else self.i, value)]

    def port_groups(self):
        return [("p", "n")] + [(n,) for n in self.senses]


def _behavioural_expression(expr, name):
    """The SymPy expression of a BehaviouralSource's ``expr``, its symbols checked."""
    if isinstance(expr, str):
        try:
            expr = sp.sympify(expr, locals={"t": sp.Symbol("t")})
        except (sp.SympifyError, SyntaxError, TypeError) as err:
            raise ParameterError(f"BehaviouralSource {name!r}: cannot read expr: {err}") from None
    if not isinstance(expr, sp.Basic):
        raise ParameterError(f"BehaviouralSource {name!r}: expr must be a SymPy expression or its text")
    _behavioural_symbols(expr, name)
    return expr


def _behavioural_symbols(expr, name) -> set[str]:
    """Names of the symbols of ``expr`` other than t: s1…, c1…, k1… only."""
    if isinstance(expr, str):
        expr = _behavioural_expression(expr, name)
    if expr is None:
        raise ParameterError(f"BehaviouralSource {name!r} needs parameter expr")
    names = {str(x) for x in expr.free_symbols} - {"t"}
    bad = sorted(n for n in names if not (n[:1] in ("s", "c", "k") and n[1:].isdigit() and int(n[1:]) > 0))
    if bad:
        raise ParameterError(f"BehaviouralSource {name!r}: expr may use t, s1…, c1…, k1… only, "
                             f"not {', '.join(bad)}")
    return names


_behavioural_classes: dict = {}


def _behavioural_class(senses: int, currents: int, constants: int) -> type:
    """The BehaviouralSource class with sense pins s1…, control inputs c1… and parameters k1…."""
    key = (senses, currents, constants)
    if key not in _behavioural_classes:
        names = [tuple(f"{letter}{j}" for j in range(1, n + 1)) for letter, n in zip("sck", key)]
        members = {n: Port(electrical, "sense pin (draws no current)") for n in names[0]}
        members.update({n: Input("A", "control current") for n in names[1]})
        members.update({n: Parameter(unit="1", description="expression parameter") for n in names[2]})
        _behavioural_classes[key] = type("BehaviouralSource", (BehaviouralSource,), {
            **members, "senses": names[0], "currents": names[1], "constants": names[2],
            "__module__": __name__, "__qualname__": "BehaviouralSource",
            "__doc__": BehaviouralSource.__doc__})
    return _behavioural_classes[key]


class _HysteresisSwitch(OnePort):
    """A resistor of Ron (closed) or Roff (open) whose position follows a control quantity
    with hysteresis, as ngspice's SW and CSW models (its SWload/CSWload): it closes when the
    control rises above threshold + hysteresis, opens when it falls below threshold −
    hysteresis, and keeps its position in between. With hysteresis 0 it is closed above the
    threshold and open below. Subclasses give the control (:meth:`_control`) and the names of
    threshold and hysteresis.

    Parameters: Ron, Roff [Ohm] closed and open resistance (> 0; ngspice: 1 and 1/GMIN).
    Modes: closed = 1 closed, 0 open; it starts open (ngspice without ``on``) and, from the
    start values, closes at once if the control is above the upper threshold.
    """

    Ron = Parameter(1.0, unit="Ohm", description="closed resistance", positive=True)
    Roff = Parameter(1e12, unit="Ohm", description="open resistance", positive=True)
    closed = Mode({"open": 0, "closed": 1}, start="open", description="switch position")
    THRESHOLD, HYSTERESIS = "", ""

    def _control(self):
        raise NotImplementedError

    def _levels(self, values=None):
        """(upper, lower) thresholds: threshold ± hysteresis."""
        get = (lambda n: getattr(self, n)) if values is None else values.__getitem__
        threshold, hysteresis = get(self.THRESHOLD), get(self.HYSTERESIS)
        return threshold + hysteresis, threshold - hysteresis

    def equations(self):
        conductance = sp.Piecewise((1 / self.Ron, sp.Eq(self.closed, 1)), (1 / self.Roff, True))
        return super().equations() + [sp.Eq(self.i, conductance * self.v)]

    def guards(self):
        upper, lower = self._levels()
        return [self._control() - upper, self._control() - lower]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        upper, lower = self._levels(v)
        control, was = v[self.CONTROL], v["pre(closed)"]
        rose = all_of(fired[0], was == 0)     # rose through the upper threshold (may sit on it)
        fell = all_of(fired[1], was != 0)     # fell through the lower threshold
        beyond = where(control > upper, 1, where(control < lower, 0, v["closed"]))
        return {"closed": where(rose, 1, where(fell, 0, beyond))}

    def dissipation(self):
        return self.v, self.i


class VoltageControlledSwitch(_HysteresisSwitch):
    """Voltage-controlled switch with hysteresis (SPICE's S element with ``.model SW``): closed
    (Ron) once pc.v − nc.v exceeds VT + VH, open (Roff) once it falls below VT − VH. The control
    pins draw no current.

    Parameters: VT [V] threshold; VH [V] hysteresis (>= 0); Ron, Roff [Ohm].
    """

    pc = Port(electrical, "positive control pin")
    nc = Port(electrical, "negative control pin")
    VT = Parameter(0.0, unit="V", description="threshold voltage")
    VH = Parameter(0.0, unit="V", description="hysteresis voltage", nonnegative=True)
    vc = Variable("V", "control voltage pc.v - nc.v")
    THRESHOLD, HYSTERESIS, CONTROL = "VT", "VH", "vc"

    def _control(self):
        return self.vc

    def equations(self):
        return super().equations() + [sp.Eq(self.pc.i, 0), sp.Eq(self.nc.i, 0),
                                      sp.Eq(self.vc, self.pc.v - self.nc.v)]

    def port_groups(self):
        return [("p", "n"), ("pc", "nc")]


class CurrentControlledSwitch(_HysteresisSwitch):
    """Current-controlled switch with hysteresis (SPICE's W element with ``.model CSW``):
    closed (Ron) once the control current ic exceeds IT + IH, open (Roff) once it falls below
    IT − IH; ic is a signal, e.g. the ``i_sense`` output of a :class:`SensingVoltageSource`.

    Parameters: IT [A] threshold; IH [A] hysteresis (>= 0); Ron, Roff [Ohm].
    Inputs: ic [A] control current.
    """

    ic = Input("A", "control current")
    IT = Parameter(0.0, unit="A", description="threshold current")
    IH = Parameter(0.0, unit="A", description="hysteresis current", nonnegative=True)
    THRESHOLD, HYSTERESIS, CONTROL = "IT", "IH", "ic"

    def _control(self):
        return self.ic


# --- linear controlled sources (SPICE's E, G, F, H) ---------------------------------------------

class _VoltageControlled(OnePort):
    """Output pins p, n (a one-port: v, i) controlled by the voltage between pc and nc, which
    draw no current."""

    pc = Port(electrical, "positive control pin")
    nc = Port(electrical, "negative control pin")

    def equations(self):
        return super().equations() + [sp.Eq(self.pc.i, 0), sp.Eq(self.nc.i, 0)]

    def port_groups(self):
        return [("p", "n"), ("pc", "nc")]


class VCVS(_VoltageControlled):
    """Voltage-controlled voltage source (SPICE's E): v = gain·(pc.v − nc.v).

    Parameters: gain [1] voltage gain.
    """

    gain = Parameter(1.0, unit="1", description="voltage gain")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.gain * (self.pc.v - self.nc.v))]


class VCCS(_VoltageControlled):
    """Voltage-controlled current source (SPICE's G): i = gm·(pc.v − nc.v), flowing from p
    through the source to n.

    Parameters: gm [S] transconductance.
    """

    gm = Parameter(1.0, unit="S", description="transconductance")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.gm * (self.pc.v - self.nc.v))]


class CCCS(OnePort):
    """Current-controlled current source (SPICE's F): i = gain·ic, flowing from p through the
    source to n; ic is a signal, e.g. the ``i_sense`` output of a :class:`SensingVoltageSource`.

    Parameters: gain [1] current gain. Inputs: ic [A] controlling current.
    """

    gain = Parameter(1.0, unit="1", description="current gain")
    ic = Input("A", "controlling current")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.gain * self.ic)]


class CCVS(OnePort):
    """Current-controlled voltage source (SPICE's H): v = r·ic.

    Parameters: r [Ohm] transresistance. Inputs: ic [A] controlling current.
    """

    r = Parameter(1.0, unit="Ohm", description="transresistance")
    ic = Input("A", "controlling current")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.r * self.ic)]


class SensingVoltageSource(VoltageSource):
    """A :class:`VoltageSource` that also outputs its current as a signal ``i_sense`` [A] (from
    p through the source to n), to control a :class:`CCCS` or :class:`CCVS` (SPICE's F and H
    name such a source)."""

    i_sense = Output("A", "source current, from p through the source to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.i_sense, self.i)]


from .bjt import BJT  # noqa: E402  (its own module; listed here with the catalog)
from .mosfet import MOSFET  # noqa: E402  (likewise)
