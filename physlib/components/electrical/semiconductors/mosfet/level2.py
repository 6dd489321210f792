"""The level-2 channel current (the Grove–Frohman charge-sheet model of SPICE2; ngspice-39's
mos2load.c and mos2temp.c), in stages: each stage an intermediate variable of the MOSFET with
an equation of the voltages and the stages before it (:class:`~.staged.StagedChannel` makes
them the device's variables and equations).

:func:`level2_stages` gives the stages; with VMAX > 0 (velocity saturation) the saturation
voltage and the channel-length modulation are :mod:`.level2_vmax`'s.
"""
import math

from .....constants import Constant
from .....core.lazy import lazy_module
from ...interfaces import constant_set
from ..junctions import junction_temperature
from .channel import effective_length
from .level2_vmax import VMAX_STAGES, quartic_stages, vmax_shortening
from .level3 import EPS_SI, oxide_capacitance

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["STAGES", "level2_stages", "is_present"]

PUNCH_THROUGH = Constant(0.25e-6, "m", "PUNCH_THROUGH")   # mos2load.c's depletion width without NSUB
VOLT = Constant(1.0, "V", "VOLT")           # mos2load.c's volts taken as numbers
ROOT_VOLT = Constant(1.0, "V(1/2)", "ROOT_VOLT")   # a stand-in where a branch is not taken

# intermediate variables of level 2: name -> (unit, description), in the order of their stages
STAGES = {
    "vgc": ("V", "gate voltage against the channel's source end (conducting direction)"),
    "vxc": ("V", "drain voltage against the channel's source end (conducting direction, >= 0)"),
    "vbc": ("V", "bulk voltage against the channel's source end (conducting direction)"),
    "sarg": ("V(1/2)", "square root of the surface potential PHI(T) − vbc (level 2)"),
    "barg": ("V(1/2)", "square root of the surface potential PHI(T) − vbc + vxc (level 2)"),
    "gamasd": ("V(1/2)", "body-effect coefficient shortened by the junctions' depletion (level 2)"),
    "xn": ("1", "weak-inversion slope factor n (level 2)"),
    "vsat0": ("V", "saturation voltage by the Grove–Frohman equation, before its limit at 0 (level 2)"),
    "bsarg": ("V(1/2)", "square root of the surface potential PHI(T) − vbc + vdsat (level 2)"),
    "clfact": ("1", "channel left by channel-length modulation, against L − 2·LD (level 2)"),
    "ufact": ("1", "mobility reduction by the gate field (level 2, UCRIT and UEXP)"),
}


STAGES.update(VMAX_STAGES)


def is_present(name, present):
    """Whether level 2's stage ``name`` is part of a device (the quartic's with VMAX > 0)."""
    return name not in VMAX_STAGES or "VMAX" in present


def _surface_root(phi, w):
    """√(PHI(T) − w) for w <= 0, √PHI(T)/(1 + w/(2·PHI(T))) above (mos2load.c's sarg, barg,
    bsarg with w = vb, vb − vx, vb − vdsat)."""
    return sp.Piecewise((sp.sqrt(phi - w), w <= 0), (sp.sqrt(phi) / (1 + w / (2 * phi)), True))


def _root_derivative(phi, w, root):
    """d(:func:`_surface_root`)/dw, as mos2load.c's dsrgdb, dbrgdb (its xn is made of them)."""
    return sp.Piecewise((-1 / (2 * root), w <= 0), (-root**2 / (2 * phi * sp.sqrt(phi)), True))


def level2_stages(dev, polarity, temp, conducting):
    """[(stage, its expression)] of the level-2 channel, each expression in the voltages and
    the stages before it (symbols ``dev.var(stage)``; von and vdsat are the device's
    variables), the last ("current") the channel current in the conducting direction (>= 0).
    ``conducting`` are (vg, vx, vb) against the channel's source end in the conducting
    direction. With Leff = L − 2·LD, Cox = 3.9·ε0/TOX, vt = k·T/q, xd = √(2·εSi/(q·NSUB)) (0
    without NSUB), r(w) = √(PHI(T) − w) (w <= 0), √PHI(T)/(1 + w/(2·PHI(T))) (w > 0)
    (mos2load.c, mos2temp.c)::

        sarg   = r(vb),  barg = r(vb − vx)
        factor = DELTA·π·εSi/(4·Cox·M·W),  η = 1 + factor   (narrow width; M as ngspice)
        vbin   = tp·Vbi(T) + factor·(PHI(T) − vb)
        gamasd = GAMMA·(1 − XJ/(2·Leff)·(√(1 + 2·xd·sarg/XJ) − 1 + √(1 + 2·xd·barg/XJ) − 1))
                 (XJ > 0; else GAMMA)
        xn     = 1 + q·NFS/Cox − gamasd·sarg' − gamasd'·sarg + factor
                 (sarg', gamasd': mos2load.c's derivatives of sarg, gamasd by vb)
        von    = vbin + gamasd·sarg + vt·xn (NFS > 0; without NFS no vt·xn)
        cut off: NFS = 0 and vg <= vbin: I = 0, vdsat = 0
        vgsx   = max(vg, von) (NFS > 0), vg (NFS = 0);  γd = gamasd/η,  u = (vgsx − vbin)/η
        vdsat  = max(0, u + γd²·(1 − √(1 + 4·(u + PHI(T) − vb)/γd²))/2)   γd > 0
                 (0 where u + PHI(T) − vb <= 0);  max(0, u)   γd <= 0;  VMAX > 0: x² − PHI(T)
                 + vb, x the least valid root of :func:`~.level2_vmax.quartic_stages` if any
        bsarg  = r(vb − vdsat)
        λ·vx   = xd/Leff·√(a + √(1 + a²)),  a = (vx − vdsat)/4   NSUB > 0 and LAMBDA = 0
                 (VMAX > 0: :func:`~.level2_vmax.vmax_shortening`)
               = LAMBDA·vx                                       else
        clfact = 1 − λ·vx; where Leff·clfact < xwb (punch-through):
                 xwb/(Leff·(1 + (λ·vx·Leff − Leff + xd·√PB(T))/xwb)),
                 xwb = xd·√PB(T) (NSUB > 0), 0.25 µm (else)
        ufact  = (UCRIT·εSi/Cox/(vg − von))^UEXP where vg − von > UCRIT·εSi/Cox, else 1
        vd     = min(vx, vdsat);  b = barg (vx <= vdsat), bsarg (vx > vdsat)
        I      = β·ufact/clfact·((vgsx − vbin − η·vd/2)·vd − gamasd·(b³ − sarg³)/1.5)
                 ·exp((vg − von)/(xn·vt))   the exponential only where vg < von (NFS > 0),
                 β = KP(T)·M·W/Leff

    KP(T), PHI(T) and Vbi(T) as level 1, PB(T) as the bulk junctions'. mos2load.c's current is
    0 for vx <= 1e-10 V; here it is the formula's, below 1e-10·β·(vg − von) there."""
    vg, vx, vb = (dev.var(n) for n in ("vgc", "vxc", "vbc"))
    sarg, barg, gamasd, xn, bsarg, clfact, ufact = (
        dev.var(n) for n in ("sarg", "barg", "gamasd", "xn", "bsarg", "clfact", "ufact"))
    phi, cox = temp.phi, oxide_capacitance(dev)
    stages = [("vgc", conducting[0]), ("vxc", conducting[1]), ("vbc", conducting[2])]
    factor = dev.DELTA * math.pi / 4 * EPS_SI / (cox * dev.M * dev.W)
    eta = 1 + factor
    vbin = polarity * temp.vbi + factor * (phi - vb)
    _threshold_stages(dev, temp, stages, vbin, factor)
    weak_inversion = dev.NFS > 0
    on = sp.Or(weak_inversion, vg > vbin)
    vgsx = sp.Piecewise((dev.von, sp.And(weak_inversion, vg < dev.von)), (vg, True))
    stages.append(("ufact", _mobility_factor(dev, vg - dev.von, cox)))
    _saturation_stages(dev, stages, on, gamasd / eta, (vgsx - vbin) / eta, phi - vb)
    stages.append(("bsarg", _surface_root(phi, vb - dev.vdsat)))
    stages.append(("clfact", _channel_left(dev, vx)))
    saturated = vx > dev.vdsat
    vdson = sp.Piecewise((dev.vdsat, saturated), (vx, True))
    body = sp.Piecewise((bsarg, saturated), (barg, True))**3 - sarg**3
    beta = temp.kp * dev.M * dev.W / effective_length(dev)
    current = beta * ufact / clfact * ((vgsx - vbin - eta * vdson / 2) * vdson - gamasd * body / 1.5)
    weak = sp.Piecewise((sp.exp((vg - dev.von) / (xn * temp.vt)), sp.And(weak_inversion, vg < dev.von)), (1, True))
    return stages + [("current", sp.Piecewise((current * weak, on), (0, True)))]


def _mobility_factor(dev, overdrive, cox):
    """ufact of :func:`level2_stages` (``overdrive`` = vg − von)."""
    critical = dev.UCRIT * EPS_SI / cox
    degraded = overdrive > critical
    overdrive = sp.Piecewise((overdrive, degraded), (critical, True))      # no division by 0 untaken
    return sp.Piecewise(((critical / overdrive)**dev.UEXP, degraded), (1, True))


def _threshold_stages(dev, temp, stages, vbin, factor):
    """Append sarg, barg, gamasd, xn and von of :func:`level2_stages` to ``stages``."""
    vx, vb, sarg, barg, gamasd, xn = (dev.var(n) for n in ("vxc", "vbc", "sarg", "barg", "gamasd", "xn"))
    phi, leff, cox = temp.phi, effective_length(dev), oxide_capacitance(dev)
    stages += [("sarg", _surface_root(phi, vb)), ("barg", _surface_root(phi, vb - vx))]
    # the short-channel body effect: the source's and drain's depletion under the gate
    xd = sp.Piecewise((_depletion_width(dev), dev.NSUB > 0), (0, True))
    junction = sp.Piecewise((dev.XJ, dev.XJ > 0), (1, True))      # no division by 0 untaken
    args, argd = (sp.sqrt(1 + 2 * xd * root / junction) for root in (sarg, barg))
    shortened = dev.XJ > 0
    stages.append(("gamasd", sp.Piecewise(
        (dev.GAMMA * (1 - junction / (2 * leff) * (args - 1 + argd - 1)), shortened), (dev.GAMMA, True))))
    dsrgdb, dbrgdb = _root_derivative(phi, vb, sarg), _root_derivative(phi, vb - vx, barg)
    dgddvb = sp.Piecewise((-dev.GAMMA * xd / (2 * leff) * (dsrgdb / args + dbrgdb / argd), shortened), (0, True))
    stages.append(("xn", 1 + constant_set(dev).q * dev.NFS / cox - gamasd * dsrgdb - dgddvb * sarg + factor))
    stages.append(("von", vbin + gamasd * sarg + sp.Piecewise((temp.vt * xn, dev.NFS > 0), (0, True))))


def _saturation_stages(dev, stages, on, gammad, overdrive, surface):
    """Append vsat0 (the quartic's stages with VMAX > 0) and vdsat of :func:`level2_stages` to
    ``stages`` (``on``: not cut off; ``gammad``, ``overdrive``, ``surface``: γd, u, PHI(T) − vb)."""
    # vsat0 a stage of its own: SymPy's folding of the limit into the equation's cases took minutes
    stages.append(("vsat0", _saturation_voltage(gammad, overdrive, surface)))
    vdsat = [(dev.var("vsat0"), sp.And(on, dev.var("vsat0") > 0)), (0, True)]
    if "VMAX" in dev.present():
        found, quartic = quartic_stages(dev, stages, gammad, overdrive + surface, surface, dev.var("sarg"),
                                        dev.UO * dev.var("ufact"))
        vdsat.insert(0, (quartic, sp.And(on, found)))
    stages.append(("vdsat", sp.Piecewise(*vdsat)))


def _saturation_voltage(gammad, overdrive, surface):
    """vdsat [V] by the Grove–Frohman equation before its limit at 0 (``gammad`` = γd,
    ``overdrive`` = u, ``surface`` = PHI(T) − vb of :func:`level2_stages`)."""
    argv = overdrive + surface
    positive = sp.And(gammad > 0, argv > 0)
    gamma_safe = sp.Piecewise((gammad, gammad > 0), (ROOT_VOLT, True))   # no division by 0 untaken
    argv_safe = sp.Piecewise((argv, argv > 0), (0, True))                # no root of < 0 untaken
    return sp.Piecewise((overdrive + gamma_safe**2 * (1 - sp.sqrt(1 + 4 * argv_safe / gamma_safe**2)) / 2, positive),
                        (0, gammad > 0), (overdrive, True))


def _depletion_width(dev):
    """xd = √(2·εSi/(q·NSUB)) [m/V^½] where NSUB > 0 (a stand-in NSUB of 1/m³ else: the
    branches that take it are not taken, and a width of 0 would divide by 0 in them)."""
    doping = sp.Piecewise((dev.NSUB, dev.NSUB > 0), (1, True))
    return sp.sqrt(2 * EPS_SI / (constant_set(dev).q * doping))


def _channel_left(dev, vx):
    """clfact of :func:`level2_stages`: 1 − λ·vx, limited at punch-through."""
    leff, doped = effective_length(dev), dev.NSUB > 0
    argv = (vx - dev.vdsat) / (4 * VOLT)
    width = _depletion_width(dev)
    from_doping = width / leff * sp.sqrt(VOLT * (argv + sp.sqrt(1 + argv**2)))
    if "VMAX" in dev.present():
        from_doping = vmax_shortening(dev, vx, dev.UO * dev.var("ufact"), width)
    shortening = sp.Piecewise((from_doping, sp.And(doped, dev.LAMBDA <= 0)), (dev.LAMBDA * vx, True))
    bulk_potential, _ = junction_temperature(1, dev.PB, dev.MJ, dev.T, dev.TNOM, constants=constant_set(dev))
    depletion = width * sp.sqrt(bulk_potential)
    xwb = sp.Piecewise((depletion, doped), (PUNCH_THROUGH, True))
    xld = leff - sp.Piecewise((depletion, doped), (0, True))
    left = 1 - shortening
    limited = xwb / (1 + (shortening * leff - xld) / xwb) / leff
    return sp.Piecewise((limited, leff * left < xwb), (left, True))
