"""Level 2's velocity saturation (VMAX > 0; mos2load.c after Baum): the saturation voltage from
the smallest positive root of a quartic, solved as mos2load.c solves it (Ferrari's method with
its resolvent cubic by Cardano's formulas), in stages; and the channel-length modulation with
VMAX (NEFF)."""
from .....constants import Constant
from .....core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["VMAX_STAGES", "quartic_stages", "vmax_shortening"]

POLY_TOLERANCE = Constant(1e-6, "V2", "POLY_TOLERANCE")    # mos2load.c's test of a root
NO_ROOT = Constant(1e10, "V(1/2)", "NO_ROOT")              # above every root: none found yet
VOLT3 = Constant(1.0, "V3", "VOLT3")                       # a stand-in where a branch is not taken
SIGNS = ((1, 1), (-1, 1), (1, -1), (-1, -1))               # mos2load.c's sig1, sig2

VMAX_STAGES = {"qb1": ("V", "coefficient b1 of the velocity-saturation quartic (level 2)"),
               "qd1": ("V2", "coefficient d1 of the velocity-saturation quartic (level 2)"),
               "qr": ("V2", "r of the quartic's resolvent cubic (level 2)"),
               "qs": ("V3", "s of the quartic's resolvent cubic (level 2)"),
               "qp": ("V6", "discriminant p of the quartic's resolvent cubic (level 2)"),
               "y3": ("V", "root of the resolvent cubic of the velocity-saturation quartic (level 2)"),
               "a3": ("V(1/2)", "Ferrari's a3 of the velocity-saturation quartic (level 2)"),
               "b3": ("V", "Ferrari's b3 of the velocity-saturation quartic (level 2)")}
VMAX_STAGES.update({f"xq{k}": ("V(1/2)", f"root candidate {k} of the velocity-saturation quartic (level 2)")
                    for k in range(1, 9)})
VMAX_STAGES.update({f"xbest{k}": ("V(1/2)", f"least valid root among candidates 1-{k} (level 2)")
                    for k in range(1, 9)})


def quartic_stages(dev, stages, gammad, v1, v2, sarg, ueff):
    """Append y3, a3, b3, the root candidates xq1..xq8 and the running least valid root
    xbest1..xbest8 to ``stages``; (found, vdsat): whether a valid root was found and
    xbest8² − v2. The quartic x⁴ + a1·x³ + b1·x² + c1·x + d1 = 0 with a1 = γd/0.75,
    b1 = −2·(v1 + xv), c1 = −2·γd·xv, d1 = 2·v1·(v2 + xv) − v2² − 4/3·γd·sarg³,
    xv = VMAX·Leff/ueff, v1 = u + v2, v2 = PHI(T) − vb; a root is valid where it is > 0 and
    the quartic there is at most 1e-6 V² in magnitude (mos2load.c)."""
    xv = dev.VMAX * (dev.L - 2 * dev.LD) / ueff
    # b1, d1 (of the overdrive's cases), r, s, p stages: inlined, SymPy folds their cases slowly
    stages += [("qb1", -2 * (v1 + xv)), ("qd1", 2 * v1 * (v2 + xv) - v2**2 - 4 * gammad * sarg**3 / 3)]
    a1, b1, c1, d1 = gammad / 0.75, dev.var("qb1"), -2 * gammad * xv, dev.var("qd1")
    a, b = -b1, a1 * c1 - 4 * d1
    c = -d1 * (a1**2 - 4 * b1) - c1**2
    stages += [("qr", -a**2 / 3 + b), ("qs", 2 * a**3 / 27 - a * b / 3 + c)]
    r, s = dev.var("qr"), dev.var("qs")
    stages.append(("qp", s**2 / 4 + r**3 / 27))
    p = dev.var("qp")
    root_p = sp.sqrt(sp.Abs(p))
    s_safe = sp.Piecewise((s, sp.Ne(s, 0)), (VOLT3, True))                # no division by 0 untaken
    trigonometric = 2 * (s**2 / 4 + sp.Abs(p))**sp.Rational(1, 6) * sp.cos(sp.atan(-2 * root_p / s_safe) / 3)
    cardano = sp.Abs(-s / 2 + root_p)**sp.Rational(1, 3) + sp.Abs(-s / 2 - root_p)**sp.Rational(1, 3)
    stages.append(("y3", sp.Piecewise((trigonometric, p < 0), (cardano, True)) - a / 3))
    y3, a3, b3 = (dev.var(n) for n in ("y3", "a3", "b3"))
    stages.append(("a3", sp.sqrt(sp.Max(a1**2 / 4 - b1 + y3, 0))))
    stages.append(("b3", sp.sqrt(sp.Max(y3**2 / 4 - d1, 0))))
    best = NO_ROOT
    for i, (sig1, sig2) in enumerate(SIGNS):
        a4, b4 = a1 / 2 + sig1 * a3, y3 / 2 + sig2 * b3
        delta4 = a4**2 / 4 - b4
        for j, sign in enumerate((1, -1)):
            k = 2 * i + j + 1
            stages.append((f"xq{k}", -a4 / 2 + sign * sp.sqrt(sp.Max(delta4, 0))))
            x = dev.var(f"xq{k}")
            poly = x**4 + a1 * x**3 + b1 * x**2 + c1 * x + d1
            valid = sp.And(delta4 >= 0, x > 0, sp.Abs(poly) <= POLY_TOLERANCE, x < best)
            stages.append((f"xbest{k}", sp.Piecewise((x, valid), (best, True))))
            best = dev.var(f"xbest{k}")
    return best < NO_ROOT, best**2 - v2


def vmax_shortening(dev, vx, ueff, width):
    """λ·vx with VMAX (NSUB > 0, LAMBDA = 0): xdv/Leff·(√(xlv² + max(vx − vdsat, 0)) − xlv),
    xdv = xd/√NEFF, xlv = VMAX·xdv/(2·ueff) (mos2load.c; ``width`` = xd)."""
    xdv = width / sp.sqrt(dev.NEFF)
    xlv = dev.VMAX * xdv / (2 * ueff)
    excess = sp.Max(vx - dev.vdsat, 0)
    return xdv / (dev.L - 2 * dev.LD) * (sp.sqrt(xlv**2 + excess) - xlv)
