"""The Gummel–Poon equations of :class:`~physlib.components.electrical.BJT` as ngspice-39's
bjtload.c and bjttemp.c evaluate them (TLEV = TLEVC = 0): SymPy expressions of a transistor's
parameters (its symbols) and junction voltages, type-normalized as ngspice's ``type``.

* :func:`transport` — the transport currents, the base charge qb and the B-E diode current;
* :func:`base_resistance` — RB with its high-current modulation (RBM, IRB);
* :func:`junction_charges` — the B-E (with XTF, VTF, ITF), B-C (its XCJC part at B'), external
  B-C and substrate charges;
* :func:`substrate_current` — the substrate diode (ISS, NS) and GMIN;
* :func:`excess_phase` — Weil's second-order filter on the forward current (PTF);
* :func:`start_values` — the charges' start from the junction voltages (ngspice's ``uic``).
"""
import math
import weakref

from ....core import der
from ....core.lazy import lazy_module
from ..interfaces import constant_set
from .junctions import depletion_charge, junction_current, junction_temperature, saturation_scale

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["inverse", "transport", "base_resistance", "junction_charges", "substrate_current",
           "excess_phase", "start_values"]

# 144/π² and 24/π² as bjtload.c writes them (the IRB base-resistance rule)
IRB_A, IRB_B = 14.59025, 2.4317


def inverse(x):
    """1/x, and 0 for x = +inf (a parameter left out: no Early effect, no high injection)."""
    return sp.Piecewise((1 / x, x < 1e300), (0, True))


# transistor -> {(structure, vbe, vbc, forward): transport's result}, while it is derived
_DERIVED = weakref.WeakKeyDictionary()


def transport(q, vbe, vbc, forward=None):
    """(cc, cb, cbe, qb, cbc) [A, A, A, 1, A] of the Gummel–Poon transport model of transistor
    ``q`` at the junction voltages: ngspice's qb = q1·(1 + (1 + 4·q2)^NKF)/2 (NKF = 1/2 is
    the classic square root) and its temperature rules (the class docstring). ``forward``
    stands for cbe/qb in cc where given (the excess phase's filtered current).

    While ``q``'s equations are derived (its parameters are symbols) a result is built once:
    the equations, the charges and the start values ask for the same voltages, and SymPy takes
    about a second for each (qb's Piecewise on a condition holding the junction currents')."""
    if not getattr(q, "_deriving", False):
        return _transport(q, vbe, vbc, forward)
    built = _DERIVED.setdefault(q, {})
    key = (q.structure_key(), vbe, vbc, forward)
    if key not in built:
        built[key] = _transport(q, vbe, vbc, forward)
    return built[key]


def _transport(q, vbe, vbc, forward):
    vt, limit, constants = q.thermal_voltage(), q.EXP_LIMIT, constant_set(q)
    i_sat = q.IS * saturation_scale(q.T, q.TNOM, q.EG, q.XTI, constants=constants)
    beta_scale = (q.T / q.TNOM) ** q.XTB
    ise = q.ISE * saturation_scale(q.T, q.TNOM, q.EG, q.XTI, q.NE, constants=constants) / beta_scale
    isc = q.ISC * saturation_scale(q.T, q.TNOM, q.EG, q.XTI, q.NC, constants=constants) / beta_scale
    bf, br = q.BF * beta_scale, q.BR * beta_scale
    cbe = junction_current(vbe, i_sat, q.NF * vt, limit)
    cbc = junction_current(vbc, i_sat, q.NR * vt, limit)
    cben = junction_current(vbe, ise, q.NE * vt, limit) + q.GMIN * vbe
    cbcn = junction_current(vbc, isc, q.NC * vt, limit) + q.GMIN * vbc
    q1 = 1 / (1 - vbc * inverse(q.VAF) - vbe * inverse(q.VAR))
    arg = 1 + 4 * (cbe * inverse(q.IKF) + cbc * inverse(q.IKR))
    qb = q1 * (1 + sp.Piecewise((arg ** q.NKF, arg > 0), (1, True))) / 2
    cc = ((cbe - cbc) / qb if forward is None else forward - cbc / qb) - cbc / br - cbcn
    cb = cbe / bf + cben + cbc / br + cbcn
    return cc, cb, cbe, qb, cbc


def base_resistance(q, cb, qb):
    """The base resistance [Ω] at transport base current ``cb`` and base charge ``qb``, as
    bjtload.c: RB when RBM is not given (inf) and IRB = 0; else RBM + (RB − RBM)/qb, or with
    IRB > 0 RBM + 3·(RB − RBM)·(tan z − z)/(z·tan² z),
    z = (−1 + sqrt(1 + 144/π²·x))/(24/π²·sqrt(x)), x = max(cb/IRB, 1e-9)."""
    rbm = sp.Piecewise((q.RB, q.RBM >= 1e300), (q.RBM, True))
    irb = sp.Piecewise((q.IRB, q.IRB > 0), (1, True))          # no 1/0 in the unused branch
    x = sp.Max(cb / irb, 1e-9)
    z = (-1 + sp.sqrt(1 + IRB_A * x)) / IRB_B / sp.sqrt(x)
    tan = sp.tan(z)
    return sp.Piecewise((rbm + 3 * (q.RB - rbm) * (tan - z) / z / tan**2, q.IRB > 0),
                        (rbm + (q.RB - rbm) / qb, True))


def _transit_factor(q, cbe, vbc):
    """1 + XTF·exp(vbc/(1.44·VTF))·(cbe/(cbe + ITF))²: the bias dependence of the forward
    transit time (VTF = inf: no vbc term; ITF = 0: none of cbe)."""
    share = sp.Piecewise((cbe / (cbe + q.ITF), q.ITF > 0), (1, True))
    return 1 + q.XTF * sp.exp(vbc * inverse(q.VTF) / 1.44) * share**2


def junction_charges(q, vbe, vbc, vbx, vsub):
    """(qbe, qbc, qbx, qsub) [C] of transistor ``q`` at its junction voltages: the B-E charge
    TF·cbe·(1 + XTF·…)/qb (vbe > 0; TF·cbe below) + Qj(vbe), the B-C charge TR·cbc + Qj(vbc)
    with XCJC·CJC at B', the external base's XCJC-remainder (1 − XCJC)·CJC against C' at
    ``vbx``, and the substrate charge (0 without the substrate pin)."""
    T, tnom, fc, constants = q.T, q.TNOM, q.FC, constant_set(q)
    _, _, cbe, qb, cbc = transport(q, vbe, vbc)
    diffusion = sp.Piecewise((cbe * _transit_factor(q, cbe, vbc) / qb, vbe > 0), (cbe, True))
    qbe = q.TF * diffusion + depletion_charge(vbe, q.CJE, q.VJE, q.MJE, fc, T, tnom, constants=constants)
    qbc = q.TR * cbc + depletion_charge(vbc, q.CJC * q.XCJC, q.VJC, q.MJC, fc, T, tnom, constants=constants)
    qbx = depletion_charge(vbx, q.CJC * (1 - q.XCJC), q.VJC, q.MJC, fc, T, tnom, constants=constants) \
        if q.charges()[3] else 0
    if not q.substrate:
        return qbe, qbc, qbx, 0
    # The substrate junction's potential and capacitance follow the same band-gap rule;
    # its charge has no FC extension (bjtload.c): above 0 a first-order expansion.
    vjs, cjs = junction_temperature(q.CJS, q.VJS, q.MJS, T, tnom, constants=constants)
    mjs = q.MJS
    qsub = sp.Piecewise((vjs * cjs * (1 - (1 - vsub / vjs) ** (1 - mjs)) / (1 - mjs), vsub < 0),
                        (vsub * cjs * (1 + mjs * vsub / (2 * vjs)), True))
    return qbe, qbc, qbx, qsub


def substrate_current(q, vsub):
    """The substrate diode's current [A]: ISS(T)·(exp(vsub/(NS·vt)) − 1) with ngspice's
    reverse knee, ISS(T) = ISS·[IS's temperature factor] (ngspice-39's bjttemp.c: neither NS
    nor XTB enters it, measured), plus GMIN·vsub."""
    iss = q.ISS * saturation_scale(q.T, q.TNOM, q.EG, q.XTI, constants=constant_set(q))
    return junction_current(vsub, iss, q.NS * q.thermal_voltage(), q.EXP_LIMIT) + q.GMIN * vsub


def excess_phase(q, forward):
    """The equations of the excess phase (PTF) as bjtload.c's Weil approximation: the forward
    current cbe/qb (``forward``) through the second-order filter 3/(3 + 3·s·td + (s·td)²),
    td = PTF·π/180·TF (bjttemp.c), into the state ``cex``, with ``wex`` = td·d(cex)/dt (both in
    amperes, so the two states scale alike): td·d(cex)/dt = wex, td·d(wex)/dt = 3·(forward −
    cex − wex). ngspice integrates the same equation by backward differences in its
    transients; its .ac instead delays the transconductance by exp(−jω·td)."""
    td = q.PTF * math.pi / 180 * q.TF
    return [sp.Eq(der(q.cex), q.wex / td), sp.Eq(der(q.wex), 3 * (forward - q.cex - q.wex) / td)]


def start_values(q):
    """{state: start} of transistor ``q`` as ngspice-39 starts a ``uic`` transient (bjtload.c,
    MODEINITJCT with MODEUIC, then MODEINITTRAN): the junction charges at vbe = type·vbe0,
    vbc = vbe − type·vce0, the external base at vbc and the substrate at 0 (ngspice's vbx and
    vsub there), the excess-phase filter at rest (cex = cbe/qb, wex = 0). Only the charges that
    are states (:meth:`BJT.charges`) get a start: the others follow from the node voltages."""
    tp = -1 if q.pnp else 1
    vbe = tp * q.vbe0
    vbc = vbe - tp * q.vce0
    qbe, qbc, qbx, qsub = junction_charges(q, vbe, vbc, vbc, 0)
    stores_be, stores_bc, stores_sub, stores_bx = q.charges()
    starts = {state: value for state, value, stores in
              ((q.qbe, qbe, stores_be), (q.qbc, qbc, stores_bc), (q.qbx, qbx, stores_bx),
               (q.qsub, qsub, stores_sub)) if stores}
    if q.excess_phase():
        _, _, cbe, qb, _ = transport(q, vbe, vbc)
        starts[q.cex] = cbe / qb
    return starts
