"""The MOSFET's charge storage as ngspice-39's mos1, mos2 and mos3 load it: Meyer's gate
capacitances (DEVqmeyer), the gate overlap capacitances and the bulk junctions' depletion
charges (bottom and sidewall), and the rates of their voltages in terms of the derivatives of
a spanning forest of them (the states).

Every function returns SymPy expressions of its arguments (symbols or numbers).
"""
from .....core import der
from .....core.lazy import lazy_module
from ..junctions import depletion_charge

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["BRANCHES", "ORDER", "MAGIC_VDS", "meyer_capacitances", "junction_charge", "branch_rates"]

# branch -> (pin the charge current enters, pin it leaves by, voltage across it); the gate
# branches hold Meyer's and the overlap capacitances, the bulk ones the junctions' charges
BRANCHES = {"gs": ("g", "s", "vgs"), "bs": ("b", "s", "vbs"), "gd": ("g", "d", "vgd"),
            "bd": ("b", "d", "vbd"), "gb": ("g", "b", "vgb")}
ORDER = ("gs", "bs", "gd", "bd", "gb")      # the order states are chosen in
MAGIC_VDS = 0.025                            # V: DEVqmeyer's least saturation voltage


def meyer_capacitances(vgst, vds, vdsat, phi, cox):
    """(Cgs, Cgd, Cgb) [F]: Meyer's gate capacitances of a channel with gate overdrive
    ``vgst`` = vgs − von, drain–source voltage ``vds`` >= 0 and saturation voltage ``vdsat``
    [V], surface potential ``phi`` [V] and oxide capacitance ``cox`` [F] (ngspice's DEVqmeyer,
    doubled: ngspice keeps half of each and adds the previous step's half)::

        Cgb = cox              vgst <= −phi   (accumulation)
            = −vgst·cox/phi    vgst <= 0      (depletion)
            = 0                vgst > 0       (inversion)
        Cs  = 0                vgst <= −phi/2
            = cox·(2/3 + 4/3·vgst/phi)        vgst <= 0
            = 2/3·cox          vgst > 0
        Cgs = Cs·(1 − (vs − vds)²/(2·vs − vds)²),  Cgd = Cs·(1 − vs²/(2·vs − vds)²)   vds < vs
        Cgs = Cs,  Cgd = 0                                                           vds >= vs

    with vs = max(vdsat, 0.025 V). Charge non-conserving: no charge is a function of the
    voltages, each is integrated as C(v)·dv/dt."""
    vs = sp.Max(vdsat, MAGIC_VDS)
    share = sp.Piecewise((2 * cox / 3, vgst > 0), (cox * (2 + 4 * vgst / phi) / 3, vgst > -phi / 2),
                         (0, True))
    vddif = 2 * vs - vds
    linear = vds < vs
    cgs = sp.Piecewise((share * (1 - (vs - vds)**2 / vddif**2), linear), (share, True))
    cgd = sp.Piecewise((share * (1 - vs**2 / vddif**2), linear), (0, True))
    cgb = sp.Piecewise((cox, vgst <= -phi), (-vgst * cox / phi, vgst <= 0), (0, True))
    return cgs, cgd, cgb


def junction_charge(v, bottom, sidewall, dev, integral=False):
    """The depletion charge [C] of a bulk junction at its voltage ``v`` with zero-bias bottom
    and sidewall capacitances ``bottom``, ``sidewall`` [F] at TNOM: the sum of two
    :func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`, graded MJ
    and MJSW, with the device ``dev``'s PB, FC, T and TNOM (``integral``: ∫₀^v Q dv)."""
    charge = depletion_charge(v, bottom, dev.PB, dev.MJ, dev.FC, dev.T, dev.TNOM, integral)
    if sidewall == 0:
        return charge
    return charge + depletion_charge(v, sidewall, dev.PB, dev.MJSW, dev.FC, dev.T, dev.TNOM, integral)


def branch_rates(present, voltages):
    """{branch: d(its voltage)/dt} for the ``present`` branches (of :data:`ORDER`), in terms of
    the derivatives of a spanning forest of them (``voltages``: branch voltage by name): the
    voltages of branches that close a loop follow from the others', so no two states are tied
    by the device's own equations."""
    parent, forest = {pin: pin for pin in "gdsb"}, []

    def root(pin):
        while parent[pin] != pin:
            pin = parent[pin]
        return pin
    for name in (n for n in ORDER if n in present):
        a, b, v = BRANCHES[name]
        if root(a) != root(b):
            parent[root(a)] = root(b)
            forest.append((a, b, voltages[v]))
    rate = {pin: 0 for pin in "gdsb" if root(pin) == pin}   # each tree's potential reference
    while len(rate) < 4:
        for a, b, v in forest:
            if b in rate and a not in rate:
                rate[a] = rate[b] + der(v)
            elif a in rate and b not in rate:
                rate[b] = rate[a] - der(v)
    return {name: rate[BRANCHES[name][0]] - rate[BRANCHES[name][1]] for name in ORDER if name in present}
