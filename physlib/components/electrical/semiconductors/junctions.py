"""pn-junction functions shared by the semiconductor devices (Diode, MOSFET bulk diodes, BJT
junctions): SymPy expressions as ngspice-39 evaluates them, with SI units (V, A, F, C, K).

* :func:`limited_exp` — exp(x), continued as its tangent above a limit, and its integral;
* :func:`band_gap` — silicon's energy gap Eg(T) [eV] (ngspice's rule);
* :func:`potential_shift` — the temperature term of a junction potential (ngspice's pbfact);
* :func:`junction_temperature` — a junction's potential and zero-bias capacitance at T;
* :func:`depletion_charge` — the depletion charge Qj(v) of a junction with ngspice's
  temperature rule for its potential and zero-bias capacitance (TLEVC = 0) and the linear
  extension of the capacitance above FC·VJ;
* :func:`bulk_junction_current` — the ideal junction current of ngspice's MOSFET bulk diodes;
* :func:`saturation_scale` — a saturation current's temperature factor (ngspice's factlog);
* :func:`junction_current` — ngspice's pn current with its reverse knee below −3·n·vt (the D
  element's and the BJT's junctions), from :func:`forward_current` and :func:`reverse_current`;
* :class:`PositiveOrInfinite` — a parameter that is a positive number or +inf ("none", as a
  SPICE parameter left out: BV, VAF, IKF).

Nothing here holds state: each function returns an expression of its arguments, which may be
SymPy symbols (parameters) or numbers. The functions whose result depends on k or q take the
device's ``constants`` (a :class:`~physlib.constants.ConstantSet`: SI's or ngspice's).
"""
import math

from ....constants import Constant, k_B, unit_voltage
from ....core import Parameter
from ....core.component import as_real
from ....core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

BOLTZMANN = k_B              # J/K, with its unit (the 4kT noise of the SI-only components)
REFTEMP = Constant(300.15, "K", "REFTEMP")     # ngspice's reference temperature of the band-gap rule
# Silicon's band gap Eg(T) = EG_0 − EG_ALPHA·T²/(T + EG_BETA) (ngspice), its value at REFTEMP,
# and the temperature coefficient of a junction capacitance (ngspice's 4e-4 per kelvin):
# gaps are in volts here (energy per elementary charge: an EG of 1.11 eV is 1.11 V).
EG_0, EG_ALPHA, EG_BETA = Constant(1.16, "V", "EG_0"), Constant(7.02e-4, "V/K", "EG_ALPHA"), Constant(1108.0, "K", "EG_BETA")
EG_REFTEMP = Constant(1.1150877, "V", "EG_REFTEMP")
CAPACITANCE_TC = Constant(400e-6, "1/K", "CAPACITANCE_TC")

__all__ = ["BOLTZMANN", "REFTEMP", "limited_exp", "current_exp_limit", "limited_potential", "band_gap",
           "potential_shift", "junction_temperature", "depletion_charge", "bulk_junction_current",
           "saturation_scale", "forward_current", "reverse_current", "junction_current",
           "PositiveOrInfinite"]


class PositiveOrInfinite(Parameter):
    """A positive number, or +inf: the quantity is absent, as a SPICE model parameter left out
    (a diode's BV: no breakdown; a BJT's VAF: no Early effect, IKF: no high injection)."""

    def validate(self, value, component):
        number = as_real(value)
        if number == math.inf:
            return math.inf
        return super().validate(value, component)


# Where the junction exponentials continue as their tangent (so that Newton steps from a poor
# guess neither overflow nor crawl down an exponential one thermal voltage at a time): above
# x = v/(n·vt) = EXP_LIMIT, or above the x where the junction's current reaches CURRENT_LIMIT if
# that is higher. ngspice has no such limit (its pnjlim limits Newton steps instead), so the
# model must be the exponential wherever an operating point can lie: a 2N3904-like NPN at
# -40 °C carries 70 mA at vbe = 0.95 V, x = 47 (IS(T) is 2e-22 A there), which a fixed limit of
# 40 put on the tangent and 175 times too small. The limit never exceeds x = 200 (a saturation
# current of 0: no exponential to reach the current).
EXP_LIMIT = 40.0
CURRENT_LIMIT = Constant(1e4, "A", "CURRENT_LIMIT")     # beyond any semiconductor's operating current
EXP_LIMIT_MAX = 200.0


def current_exp_limit(i_sat, limit):
    """max(limit, ln(CURRENT_LIMIT/i_sat)) capped at EXP_LIMIT_MAX: the exponent up to which a
    junction of saturation current ``i_sat`` [A] follows its exponential."""
    return sp.Max(limit, sp.Min(sp.log(CURRENT_LIMIT / i_sat), EXP_LIMIT_MAX))


def limited_exp(x, limit, integral=False):
    """exp(x) below ``limit``, continued as its tangent above (so Newton steps from a poor guess
    cannot overflow); ``integral``: ∫₀ˣ of it instead."""
    if integral:
        return sp.Piecewise((sp.exp(x) - 1, x < limit),
                            (sp.exp(limit) * (1 + (x - limit) + (x - limit)**2 / 2) - 1, True))
    return sp.Piecewise((sp.exp(x), x < limit), (sp.exp(limit) * (1 + x - limit), True))


def limited_potential(vj, fc):
    """VJ(T) at most 1/FC volts, as ngspice's diotemp.c limits a diode's junction potential
    (its number 1/FC read as volts)."""
    return sp.Piecewise((unit_voltage / fc, fc * vj > unit_voltage), (vj, True))


def band_gap(T):
    """Eg(T) = 1.16 − 7.02e-4·T²/(T + 1108) [eV]: silicon's energy gap at T [K] (ngspice)."""
    return EG_0 - (EG_ALPHA * T**2) / (T + EG_BETA)


def potential_shift(T, *, constants):
    """ngspice's pbfact(T) [V]: −2·vt·(1.5·ln(T/REFTEMP) + q·(−Eg(T)/(2kT) + 1.1150877/(2k·REFTEMP)))
    with vt = kT/q; a junction potential φ measured at TNOM is φ(T) = T/REFTEMP·φo + pbfact(T)
    with φo = (φ − pbfact(TNOM))/(TNOM/REFTEMP)."""
    k, q = constants
    arg = -band_gap(T) / (2 * k * T) + EG_REFTEMP / (k * (REFTEMP + REFTEMP))
    return -2 * (k * T / q) * (sp.Rational(3, 2) * sp.log(T / REFTEMP) + q * arg)


def junction_temperature(cj0, vj, m, T, tnom, *, constants):
    """(VJ(T) [V], CJ(T) [F]) of a junction whose potential ``vj`` and zero-bias capacitance
    ``cj0`` with grading ``m`` were measured at ``tnom`` [K] (ngspice's TLEVC = 0 rule, see
    :func:`depletion_charge`)."""
    fact1, fact2 = tnom / REFTEMP, T / REFTEMP
    pbo = (vj - potential_shift(tnom, constants=constants)) / fact1
    gma_old = (vj - pbo) / pbo
    vj_t = potential_shift(T, constants=constants) + fact2 * pbo
    gma_new = (vj_t - pbo) / pbo
    cj = cj0 / (1 + m * (CAPACITANCE_TC * (tnom - REFTEMP) - gma_old)) * (1 + m * (CAPACITANCE_TC * (T - REFTEMP) - gma_new))
    return vj_t, cj


def depletion_charge(v, cj0, vj, m, fc, T, tnom, integral=False, limit=False, *, constants):
    """Qj(v) [C] of a junction with zero-bias capacitance ``cj0`` [F], potential ``vj`` [V] and
    grading ``m`` measured at ``tnom`` [K], at temperature ``T`` [K]; ``integral``: ∫₀^v Qj dv
    [C·V] instead (for stored energies).

    Temperature (ngspice's TLEVC = 0 rule): VJ(T) = T/REFTEMP·pbo + pbfact(T) with
    pbo = (vj − pbfact(tnom))/(tnom/REFTEMP), and
    CJ(T) = cj0·(1 + m·(4e-4·(T − REFTEMP) − γ(T)))/(1 + m·(4e-4·(tnom − REFTEMP) − γ(tnom))),
    γ = (VJ − pbo)/pbo. With ``limit`` VJ(T) is at most 1/fc (ngspice's diode does this; its
    MOSFET bulk junctions do not), F1 keeping the unlimited VJ(T) as ngspice's diotemp. The
    charge::

        Qj = VJ·CJ·(1 − (1 − v/VJ)^(1−m))/(1 − m)                                 v < fc·VJ
           = CJ·F1 + CJ/F2·(F3·(v − fc·VJ) + m/(2·VJ)·(v² − (fc·VJ)²))          v >= fc·VJ
        F1 = VJ·(1 − (1 − fc)^(1−m))/(1 − m),  F2 = (1 − fc)^(1+m),  F3 = 1 − fc·(1 + m).
    """
    vj, cj = junction_temperature(cj0, vj, m, T, tnom, constants=constants)
    xfc = sp.log(1 - fc)
    f1 = vj * (1 - sp.exp((1 - m) * xfc)) / (1 - m)      # before the limit, as ngspice
    if limit:
        vj = limited_potential(vj, fc)
    dep = fc * vj
    f2, f3 = sp.exp((1 + m) * xfc), 1 - fc * (1 + m)
    if integral:       # (1 - dep/vj) = 1 - FC also where VJ(T) is limited
        at_dep = vj * cj / (1 - m) * (dep - vj / (2 - m) * (1 - sp.exp((2 - m) * xfc)))
        below = vj * cj / (1 - m) * (v - vj / (2 - m) * (1 - sp.exp((2 - m) * sp.log(1 - v / vj))))
        above = at_dep + cj * f1 * (v - dep) + cj / f2 * (
            f3 * (v - dep)**2 / 2 + m / (2 * vj) * ((v**3 - dep**3) / 3 - dep**2 * (v - dep)))
    else:
        below = vj * cj * (1 - sp.exp((1 - m) * sp.log(1 - v / vj))) / (1 - m)
        above = cj * f1 + cj / f2 * (f3 * (v - dep) + m / (2 * vj) * (v**2 - dep**2))
    return sp.Piecewise((below, v < dep), (above, True))


def bulk_junction_current(v, i_sat, vt, gmin, limit):
    """ngspice's MOSFET bulk diode [A] (mos1load.c): i_sat·(exp(v/vt) − 1) + gmin·v above
    v = −3·vt, −i_sat + gmin·v at and below (no reverse knee, unlike the D element), the
    exponential continued as its tangent above :func:`current_exp_limit`."""
    return sp.Piecewise((i_sat * (limited_exp(v / vt, current_exp_limit(i_sat, limit)) - 1), v > -3 * vt),
                        (-i_sat, True)) + gmin * v


def saturation_scale(T, tnom, eg, xti, n=1, *, constants):
    """exp((T/tnom − 1)·eg/(n·vt) + xti/n·ln(T/tnom)) with vt = k·T/q: the factor a saturation
    current measured at ``tnom`` [K] has at ``T`` [K] (ngspice's factlog/n; the diode takes
    n = N, the BJT n = 1 for IS and n = NE, NC for its leakage currents)."""
    ratio = T / tnom
    vt = constants.thermal_voltage(T)
    return sp.exp((ratio - 1) * eg / (n * vt)) * ratio ** (xti / n)


def forward_current(v, i_sat, vte, limit):
    """i_sat·(exp(v/vte) − 1) [A], the exponential continued as its tangent above
    :func:`current_exp_limit` of ``i_sat`` and ``limit``."""
    return i_sat * (limited_exp(v / vte, current_exp_limit(i_sat, limit)) - 1)


def reverse_current(v, i_sat, vte):
    """−i_sat·(1 + (3·vte/(e·v))³) [A]: ngspice's reverse branch below v = −3·vte (dioload.c,
    bjtload.c), which meets the forward current and its slope there."""
    return -i_sat * (1 + (3 * vte / (sp.E * v)) ** 3)


def junction_current(v, i_sat, vte, limit):
    """ngspice's pn-junction current [A] without breakdown: :func:`forward_current` for
    v >= −3·vte, :func:`reverse_current` below (vte = n·k·T/q [V])."""
    return sp.Piecewise((forward_current(v, i_sat, vte, limit), v >= -3 * vte),
                        (reverse_current(v, i_sat, vte), True))
