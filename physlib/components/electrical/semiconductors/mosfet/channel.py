"""The MOSFET's temperature rules and its level-1 channel current (Shichman–Hodges), as
ngspice-39's mos1temp.c and mos1load.c compute them.

Each function takes the device ``dev`` (a :class:`~.device.MOSFET` while its equations are
derived: its parameters are SymPy symbols) and returns SymPy expressions.
"""
from .....core.lazy import lazy_module
from ...interfaces import constant_set
from ..junctions import REFTEMP, band_gap, potential_shift

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Temperature", "temperature", "effective_length", "level1_threshold", "level1_current"]


class Temperature:
    """The device's temperature-dependent quantities: ``vt`` = k·T/q [V], ``kp`` = KP(T)
    [A/V²], ``phi`` = PHI(T) [V], ``vbi`` = Vbi(T) [V] (the built-in part of the threshold),
    ``saturation`` = the factor IS(T)/IS, ``ratio4`` = (T/TNOM)^1.5 (the mobility's divisor)."""

    def __init__(self, vt, kp, phi, vbi, saturation, ratio4):
        self.vt, self.kp, self.phi, self.vbi = vt, kp, phi, vbi
        self.saturation, self.ratio4 = saturation, ratio4


def temperature(dev, polarity):
    """:class:`Temperature` of ``dev`` at T, its parameters measured at TNOM (mos1temp.c;
    mos2temp.c and mos3temp.c apply the same rules)::

        KP(T)  = KP·(TNOM/T)^1.5
        PHI(T) = T/REFTEMP·(PHI − pbfact(TNOM))·REFTEMP/TNOM + pbfact(T)
        Vbi(T) = VTO − tp·GAMMA·√PHI + (Eg(TNOM) − Eg(T))/2 + tp·(PHI(T) − PHI)/2
        IS(T)  = IS·exp(Eg(TNOM)/vt(TNOM) − Eg(T)/vt)
    """
    T, tnom, constants = dev.T, dev.TNOM, constant_set(dev)
    vt, vtnom = constants.thermal_voltage(T), constants.thermal_voltage(tnom)
    ratio = T / tnom
    ratio4 = ratio * sp.sqrt(ratio)
    phi = T / REFTEMP * (dev.PHI - potential_shift(tnom, constants=constants)) / (tnom / REFTEMP) + \
        potential_shift(T, constants=constants)
    eg1, eg = band_gap(tnom), band_gap(T)
    vbi = dev.VTO - polarity * dev.GAMMA * sp.sqrt(dev.PHI) + (eg1 - eg) / 2 + polarity * (phi - dev.PHI) / 2
    return Temperature(vt, dev.KP / ratio4, phi, vbi, sp.exp(-eg / vt + eg1 / vtnom), ratio4)


def effective_length(dev):
    """L − 2·LD [m]: the channel length between the lateral diffusions."""
    return dev.L - 2 * dev.LD


def level1_threshold(dev, polarity, vb, temp):
    """von [V]: the level-1 threshold with bulk voltage ``vb`` against the channel's source end
    (mos1load.c)::

        σ = √(PHI(T) − vb)                          vb <= 0
          = max(0, √PHI(T) − vb/(2·√PHI(T)))         vb > 0
        von = tp·Vbi(T) + GAMMA·σ
    """
    root = sp.sqrt(temp.phi)
    sarg = sp.Piecewise((sp.sqrt(temp.phi - vb), vb <= 0), (root - vb / (2 * root), vb < 2 * temp.phi),
                        (0, True))
    return polarity * temp.vbi + dev.GAMMA * sarg


def level1_current(dev, vgst, vx, temp):
    """(I [A], ∂I/∂vgst [S]): the level-1 channel current with gate overdrive ``vgst`` = vg −
    von and drain voltage ``vx`` >= 0 against the channel's source end (mos1load.c)::

        β = KP(T)·M·W/(L − 2·LD)
        I = 0                                       vgst <= 0          (cut-off)
          = β·(1 + LAMBDA·vx)·vgst²/2                0 < vgst <= vx     (saturation)
          = β·(1 + LAMBDA·vx)·vx·(vgst − vx/2)       vgst > vx          (linear)
    """
    betap = temp.kp * dev.M * dev.W / effective_length(dev) * (1 + dev.LAMBDA * vx)
    current = sp.Piecewise((0, vgst <= 0), (betap * vgst**2 / 2, vgst <= vx),
                           (betap * vx * (vgst - vx / 2), True))
    gm = sp.Piecewise((0, vgst <= 0), (betap * vgst, vgst <= vx), (betap * vx, True))
    return current, gm
