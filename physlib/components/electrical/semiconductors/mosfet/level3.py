"""The level-3 channel current (the semi-empirical short-channel model of SPICE2; ngspice-39's
mos3load.c and mos3temp.c), in stages: each stage an intermediate variable of the MOSFET with
an equation of the voltages and the stages before it, so the equations stay small enough for
their derivatives to be derived (inlined into one expression they would not).

:func:`level3_stages` gives the stages; :class:`~.staged.StagedChannel` makes them the
MOSFET's variables and equations and computes the transconductance the channel's thermal
noise reads from them, in numbers at the operating point.
"""
from .....constants import Constant
from .....core.lazy import lazy_module
from ...interfaces import constant_set
from .channel import effective_length
from .noise import EPS_OX, TOX_ABSENT

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["EPS_SI", "STAGES", "level3_stages", "depletion_coefficient", "oxide_capacitance", "is_present"]

EPS_SI = Constant(11.7 * 8.854214871e-12, "F/m", "EPS_SI")     # ngspice's silicon permittivity
ETA_SCALE = Constant(8.15e-22, "F.m", "ETA_SCALE")   # mos3load.c's scale of ETA (static feedback)
GDSAT_MIN = Constant(1e-12, "S", "GDSAT_MIN")        # mos3load.c's least saturation conductance
VOLT = Constant(1.0, "V", "VOLT")      # a stand-in where a voltage's branch is not taken
# the depletion-layer width at the drain's edge against the junction depth (Dang's fit, mos3load.c)
WIDTH_FIT = (0.0631353, 0.8013292, -0.01110777)

# intermediate variables of level 3: name -> (unit, description), in the order of their stages
STAGES = {
    "vgc": ("V", "gate voltage against the channel's source end (conducting direction)"),
    "vxc": ("V", "drain voltage against the channel's source end (conducting direction, >= 0)"),
    "vbc": ("V", "bulk voltage against the channel's source end (conducting direction)"),
    "sqphbs": ("V(1/2)", "square root of the surface potential PHI(T) − vbc (level 3)"),
    "fshort": ("1", "short-channel factor of the body effect (level 3, XJ and NSUB)"),
    "vth": ("V", "threshold voltage in strong inversion (level 3)"),
    "xn": ("1", "weak-inversion slope factor n (level 3)"),
    "vdsc": ("V", "velocity-saturation voltage Leff·VMAX/μs (level 3; 1 V without VMAX)"),
    "idrift": ("A", "channel current before channel-length modulation and weak inversion (level 3)"),
    "delxl": ("m", "channel shortening by the saturated region (level 3)"),
}


def depletion_coefficient(dev):
    """α = 2·εSi/(q·NSUB) [m²/V] (0 without NSUB): the depletion width is √(α·V)."""
    doping = sp.Piecewise((dev.NSUB, dev.NSUB > 0), (1, True))      # no division by 0 untaken
    return sp.Piecewise((2 * EPS_SI / (constant_set(dev).q * doping), dev.NSUB > 0), (0, True))


def oxide_capacitance(dev):
    """Cox = 3.9·ε0/TOX [F/m²], ngspice's TOX = 1e-7 m where TOX is 0 (not given; whether it
    is is part of the device's structure, :meth:`~.device.MOSFET.present`)."""
    return EPS_OX / (dev.TOX if dev.level == 1 or "TOX" in dev.present() else Constant(TOX_ABSENT, "m", "TOX_ABSENT"))


def is_present(name, present):
    """Whether level 3's stage ``name`` is part of a device whose :meth:`~.device.MOSFET.present`
    is ``present`` (delxl only with channel-length modulation)."""
    return name != "delxl" or "KAPPA" in present


def level3_stages(dev, polarity, temp, conducting):
    """[(stage, its expression)] of the level-3 channel, each expression in the voltages and
    the stages before it (symbols ``dev.var(stage)``; von and vdsat are the device's
    variables), the last ("current") the channel current in the conducting direction (>= 0).
    ``conducting`` are (vg, vx, vb) against the channel's source end in the conducting
    direction. With Leff = L − 2·LD,
    Weff = W, Cox = 3.9·ε0/TOX, vt = k·T/q (mos3load.c, mos3temp.c)::

        sqphbs = √(PHI(T) − vb)                        vb <= 0
               = √PHI(T)/(1 + vb/(2·PHI(T)))            vb > 0;   phibs = sqphbs²
        fshort = 1 − XJ/Leff·(a·√(1 − c²) − LD/XJ)      (XJ > 0 and NSUB > 0; else 1)
                 wp = √α·sqphbs/XJ, a = 0.0631353 + 0.8013292·wp − 0.01110777·wp² + LD/XJ,
                 c = wp/(1 + wp), α = 2·εSi/(q·NSUB)
        fbody  = GAMMA·fshort/(4·sqphbs) + nf/Weff,   nf = DELTA·π/2·εSi/Cox
        vth    = tp·Vbi(T) − η·vx + GAMMA·fshort·sqphbs + nf·phibs/Weff,
                 η = ETA·8.15e-22 F·m/(Cox·Leff³)
        xn     = 1 + q·NFS/Cox + (GAMMA·fshort·sqphbs + nf·phibs/Weff)/(2·phibs)
        von    = vth + vt·xn  (NFS > 0),  vth  (NFS = 0)
        cut off: NFS = 0 and vg <= von: ids = 0, vdsat = 0
        vgsx   = max(vg, von),  fg = 1 + THETA·(vgsx − vth)
        vc     = Leff·VMAX·fg/UO(T)   (vdsc; VMAX > 0)
        vdsat  = (vgsx − vth)/(1 + fbody)                          VMAX = 0
               = va + vc − √(va² + vc²),  va = (vgsx − vth)/(1 + fbody)   VMAX > 0
        vdsx   = min(vx, vdsat)
        idrift = β/fg·(vgsx − vth − (1 + fbody)·vdsx/2)·vdsx·fd,  β = KP(T)·M·Weff/Leff,
                 fd = 1/(1 + vdsx/vc) (VMAX > 0, else 1)
        delxl  = √(KAPPA·α·vdsat/8)·(vx/vdsat)⁴       vx <= vdsat, VMAX = 0
               = √(KAPPA·α·(vx − vdsat + vdsat/8))     vx > vdsat, VMAX = 0
               = √(e² + KAPPA·α·(vx − vdsat)) − e      vx > vdsat, VMAX > 0,
                 e = KAPPA·α·idrift/(2·Leff·gdsat),
                 gdsat = max(1e-12 S, idrift·(1 − fd)/vc)
               = 0                                     vx <= vdsat, VMAX > 0; or cut off;
                                                       or KAPPA·α = 0 (no stage then)
        Δ      = delxl;  Leff − Leff²/(4·delxl) where delxl > Leff/2 (punch-through)
        I      = idrift/(1 − Δ/Leff)·exp((vg − von)/(xn·vt))   the exponential only where
                 vg < von (weak inversion, NFS > 0)

    UO(T) = UO·(TNOM/T)^1.5; KP(T), PHI(T) and Vbi(T) as level 1."""
    vg, vx, vb = (dev.var(n) for n in ("vgc", "vxc", "vbc"))
    stages = [("vgc", conducting[0]), ("vxc", conducting[1]), ("vbc", conducting[2])]
    body = _threshold_stages(dev, polarity, temp, stages)
    on = sp.Or(dev.NFS > 0, vg > dev.von)       # else cut off
    vgsx = sp.Piecewise((vg, vg > dev.von), (dev.von, True))
    _drift_stages(dev, temp, stages, body, on, vgsx)
    current = dev.var("idrift")
    if "KAPPA" in dev.present():                # channel-length modulation: KAPPA > 0, NSUB > 0
        stages.append(("delxl", _shortening(dev, on)))
        leff, delxl = effective_length(dev), dev.var("delxl")
        current /= 1 - sp.Piecewise((leff - leff**2 / (4 * delxl), delxl > leff / 2), (delxl, True)) / leff
    weak = sp.Piecewise((sp.exp((vg - dev.von) / (dev.var("xn") * temp.vt)), vg < dev.von), (1, True))
    return stages + [("current", current * weak)]


def _threshold_stages(dev, polarity, temp, stages):
    """Append sqphbs, fshort, vth, xn and von to ``stages``; fbody (an expression of them)."""
    vx, vb, sq, fshort, vth, xn = (dev.var(n) for n in ("vxc", "vbc", "sqphbs", "fshort", "vth", "xn"))
    phi, leff, weff, cox = temp.phi, effective_length(dev), dev.W, oxide_capacitance(dev)
    phibs = sp.Piecewise((phi - vb, vb <= 0), (sq**2, True))
    stages.append(("sqphbs", sp.Piecewise((sp.sqrt(phi - vb), vb <= 0),
                                          (sp.sqrt(phi) / (1 + vb / (2 * phi)), True))))
    junction = sp.Piecewise((dev.XJ, dev.XJ > 0), (1, True))      # no division by 0 untaken
    wp = sp.sqrt(depletion_coefficient(dev)) * sq / junction
    c0, c1, c2 = WIDTH_FIT
    arga = c0 + c1 * wp + c2 * wp**2 + dev.LD / junction
    argc = wp / (1 + wp)
    stages.append(("fshort", sp.Piecewise(
        (1 - dev.XJ / leff * (arga * sp.sqrt(1 - argc**2) - dev.LD / junction),
         sp.And(dev.XJ > 0, dev.NSUB > 0)), (1, True))))
    narrow = dev.DELTA * sp.pi / 2 * EPS_SI / cox
    qbonco = dev.GAMMA * fshort * sq + narrow * phibs / weff
    eta = dev.ETA * ETA_SCALE / (cox * leff**3)
    stages.append(("vth", polarity * temp.vbi - eta * vx + qbonco))
    stages.append(("xn", 1 + constant_set(dev).q * dev.NFS / cox + qbonco / (2 * phibs)))
    stages.append(("von", vth + sp.Piecewise((temp.vt * xn, dev.NFS > 0), (0, True))))
    return dev.GAMMA * fshort / (4 * sq) + narrow / weff


def _drift_stages(dev, temp, stages, fbody, on, vgsx):
    """Append vdsc, vdsat and idrift to ``stages`` (``fbody``: the body factor, ``on``: not cut
    off, ``vgsx`` = max(vg, von))."""
    vx, vth, vdsc = (dev.var(n) for n in ("vxc", "vth", "vdsc"))
    leff = effective_length(dev)
    onfg = 1 + dev.THETA * (vgsx - vth)
    stages.append(("vdsc", sp.Piecewise((leff * dev.VMAX * onfg / (dev.UO / temp.ratio4), dev.VMAX > 0),
                                        (VOLT, True))))
    va = (vgsx - vth) / (1 + fbody)
    vdsat = sp.Piecewise((va, dev.VMAX <= 0), (va + vdsc - sp.sqrt(va**2 + vdsc**2), True))
    stages.append(("vdsat", sp.Piecewise((vdsat, on), (0, True))))
    vdsx = sp.Piecewise((vx, vx < dev.vdsat), (dev.vdsat, True))
    fdrain = sp.Piecewise((1 / (1 + vdsx / vdsc), dev.VMAX > 0), (1, True))
    beta = temp.kp * dev.M * dev.W / leff
    current = beta / onfg * (vgsx - vth - (1 + fbody) * vdsx / 2) * vdsx * fdrain
    stages.append(("idrift", sp.Piecewise((current, on), (0, True))))


def _shortening(dev, on):
    """delxl [m]: the channel's shortening by channel-length modulation (``on``: not cut off)."""
    vx, vdsc, idrift = (dev.var(n) for n in ("vxc", "vdsc", "idrift"))
    # √(KAPPA·α) apart: a parameter, its derivatives by the voltages need no 1/α
    root = sp.sqrt(dev.KAPPA * depletion_coefficient(dev))
    vsat = sp.Piecewise((dev.vdsat, dev.vdsat > 0), (VOLT, True))      # no division by 0 untaken
    linear = sp.Piecewise((0, sp.Or(dev.VMAX > 0, sp.Not(on))),
                          (root * sp.sqrt(dev.vdsat / 8) * (vx / vsat)**4, True))
    gdsat = idrift * (dev.vdsat / (vdsc + dev.vdsat)) / vdsc       # idrift·(1 − fd)/vc at vdsat
    gdsat = sp.Piecewise((gdsat, gdsat > GDSAT_MIN), (GDSAT_MIN, True))
    half_field = root * idrift / (2 * effective_length(dev) * gdsat)     # e/√(KAPPA·α)
    saturated = root * sp.Piecewise(
        (sp.sqrt(vx - dev.vdsat + dev.vdsat / 8), dev.VMAX <= 0),
        (sp.sqrt(half_field**2 + vx - dev.vdsat) - half_field, True))
    return sp.Piecewise((linear, vx <= dev.vdsat), (saturated, True))
