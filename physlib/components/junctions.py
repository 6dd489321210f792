"""pn-junction functions shared by the semiconductor devices (Diode, MOSFET bulk diodes, BJT
junctions): SymPy expressions as ngspice-39 evaluates them, with SI units (V, A, F, C, K).

* :func:`limited_exp` — exp(x), continued as its tangent above a limit, and its integral;
* :func:`band_gap` — silicon's energy gap Eg(T) [eV] (ngspice's rule);
* :func:`potential_shift` — the temperature term of a junction potential (ngspice's pbfact);
* :func:`depletion_charge` — the depletion charge Qj(v) of a junction with ngspice's
  temperature rule for its potential and zero-bias capacitance (TLEVC = 0) and the linear
  extension of the capacitance above FC·VJ;
* :func:`bulk_junction_current` — the ideal junction current of ngspice's MOSFET bulk diodes.

Nothing here holds state: each function returns an expression of its arguments, which may be
SymPy symbols (parameters) or numbers.
"""
from ..core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

BOLTZMANN = 1.380649e-23      # J/K
ELEMENTARY_CHARGE = 1.602176634e-19  # C
REFTEMP = 300.15              # K: ngspice's reference temperature of the band-gap rule

__all__ = ["BOLTZMANN", "ELEMENTARY_CHARGE", "REFTEMP", "limited_exp", "band_gap",
           "potential_shift", "depletion_charge", "bulk_junction_current"]


def limited_exp(x, limit, integral=False):
    """exp(x) below ``limit``, continued as its tangent above (so Newton steps from a poor guess
    cannot overflow); ``integral``: ∫₀ˣ of it instead."""
    if integral:
        return sp.Piecewise((sp.exp(x) - 1, x < limit),
                            (sp.exp(limit) * (1 + (x - limit) + (x - limit)**2 / 2) - 1, True))
    return sp.Piecewise((sp.exp(x), x < limit), (sp.exp(limit) * (1 + x - limit), True))


def band_gap(T):
    """Eg(T) = 1.16 − 7.02e-4·T²/(T + 1108) [eV]: silicon's energy gap at T [K] (ngspice)."""
    return 1.16 - (7.02e-4 * T**2) / (T + 1108)


def potential_shift(T):
    """ngspice's pbfact(T) [V]: −2·vt·(1.5·ln(T/REFTEMP) + q·(−Eg(T)/(2kT) + 1.1150877/(2k·REFTEMP)))
    with vt = kT/q; a junction potential φ measured at TNOM is φ(T) = T/REFTEMP·φo + pbfact(T)
    with φo = (φ − pbfact(TNOM))/(TNOM/REFTEMP)."""
    k, q = BOLTZMANN, ELEMENTARY_CHARGE
    arg = -band_gap(T) / (2 * k * T) + 1.1150877 / (k * (REFTEMP + REFTEMP))
    return -2 * (k * T / q) * (sp.Rational(3, 2) * sp.log(T / REFTEMP) + q * arg)


def depletion_charge(v, cj0, vj, m, fc, T, tnom, integral=False, limit=False):
    """Qj(v) [C] of a junction with zero-bias capacitance ``cj0`` [F], potential ``vj`` [V] and
    grading ``m`` measured at ``tnom`` [K], at temperature ``T`` [K]; ``integral``: ∫₀^v Qj dv
    [C·V] instead (for stored energies).

    Temperature (ngspice's TLEVC = 0 rule): VJ(T) = T/REFTEMP·pbo + pbfact(T) with
    pbo = (vj − pbfact(tnom))/(tnom/REFTEMP), and
    CJ(T) = cj0·(1 + m·(4e-4·(T − REFTEMP) − γ(T)))/(1 + m·(4e-4·(tnom − REFTEMP) − γ(tnom))),
    γ = (VJ − pbo)/pbo. With ``limit`` VJ(T) is at most 1/fc (ngspice's diode does this; its
    MOSFET bulk junctions do not), F1 keeping the unlimited VJ(T) as ngspice's diotemp.

    Qj = VJ·CJ·(1 − (1 − v/VJ)^(1−m))/(1 − m)                                 v < fc·VJ
       = CJ·F1 + CJ/F2·(F3·(v − fc·VJ) + m/(2·VJ)·(v² − (fc·VJ)²))          v >= fc·VJ
    F1 = VJ·(1 − (1 − fc)^(1−m))/(1 − m),  F2 = (1 − fc)^(1+m),  F3 = 1 − fc·(1 + m).
    """
    fact1, fact2 = tnom / REFTEMP, T / REFTEMP
    pbo = (vj - potential_shift(tnom)) / fact1
    gma_old = (vj - pbo) / pbo
    vj = potential_shift(T) + fact2 * pbo
    gma_new = (vj - pbo) / pbo
    cj = cj0 / (1 + m * (400e-6 * (tnom - REFTEMP) - gma_old)) * (1 + m * (400e-6 * (T - REFTEMP) - gma_new))
    xfc = sp.log(1 - fc)
    f1 = vj * (1 - sp.exp((1 - m) * xfc)) / (1 - m)      # before the limit, as ngspice
    if limit:
        vj = sp.Piecewise((1 / fc, fc * vj > 1), (vj, True))   # VJ(T) at most 1/FC
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
    exponential continued as its tangent above v/vt = ``limit``."""
    return sp.Piecewise((i_sat * (limited_exp(v / vt, limit) - 1), v > -3 * vt),
                        (-i_sat, True)) + gmin * v
