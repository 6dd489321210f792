"""The MOSFET's charge storage as ngspice-39's mos1, mos2 and mos3 load it: Meyer's gate
capacitances (DEVqmeyer), the gate overlap capacitances and the bulk junctions' depletion
charges (bottom and sidewall), and the rates of their voltages in terms of the derivatives of
a spanning forest of them (the states).

Every function returns SymPy expressions of its arguments (symbols or numbers).
"""
from .....constants import Constant
from .....core import der
from .....core.lazy import lazy_module
from ...interfaces import constant_set
from ..junctions import depletion_charge, junction_temperature

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["BRANCHES", "ORDER", "MAGIC_VDS", "meyer_capacitances", "junction_charge", "junction_capacitance", "state_branches",
           "branch_rates"]

# branch -> (pin the charge current enters, pin it leaves by, voltage across it); the gate
# branches hold Meyer's and the overlap capacitances, the bulk ones the junctions' charges
BRANCHES = {"gs": ("g", "s", "vgs"), "bs": ("b", "s", "vbs"), "gd": ("g", "d", "vgd"),
            "bd": ("b", "d", "vbd"), "gb": ("g", "b", "vgb")}
ORDER = ("gs", "bs", "gd", "bd", "gb")      # the order states are chosen in
MAGIC_VDS = Constant(0.025, "V", "MAGIC_VDS")   # DEVqmeyer's least saturation voltage


def meyer_capacitances(vgst, vds, vdsat, phi):
    """(channel share, source fraction, drain fraction, bulk share) of Meyer's gate
    capacitances per oxide capacitance Cox [1] for a channel with gate overdrive ``vgst`` =
    vgs − von, drain–source voltage ``vds`` >= 0 and saturation voltage ``vdsat`` [V] and
    surface potential ``phi`` [V] (ngspice's DEVqmeyer, doubled: ngspice keeps half of each
    capacitance and adds the previous step's half): Cgs = Cox·share·source, Cgd =
    Cox·share·drain, Cgb = Cox·bulk, where::

        bulk   = 1                     vgst <= −phi   (accumulation)
               = −vgst/phi             vgst <= 0      (depletion)
               = 0                     vgst > 0       (inversion)
        share  = 0                     vgst <= −phi/2
               = 2/3 + 4/3·vgst/phi    vgst <= 0
               = 2/3                   vgst > 0
        source = 1 − (vs − vds)²/(2·vs − vds)²,  drain = 1 − vs²/(2·vs − vds)²    vds < vs
        source = 1,  drain = 0                                                  vds >= vs

    with vs = max(vdsat, 0.025 V). Charge non-conserving: no charge is a function of the
    voltages, each is integrated as C(v)·dv/dt."""
    share = sp.Piecewise((sp.Rational(2, 3), vgst > 0), ((2 + 4 * vgst / phi) / 3, vgst > -phi / 2), (0, True))
    source, drain = [], []
    for vs, at in ((vdsat, vdsat > MAGIC_VDS), (MAGIC_VDS, True)):   # conditions on symbols only
        vddif = 2 * vs - vds
        source.append((sp.Piecewise((1 - (vs - vds)**2 / vddif**2, vds < vs), (1, True)), at))
        drain.append((sp.Piecewise((1 - vs**2 / vddif**2, vds < vs), (0, True)), at))
    bulk = sp.Piecewise((1, vgst <= -phi), (-vgst / phi, vgst <= 0), (0, True))
    return share, sp.Piecewise(*source), sp.Piecewise(*drain), bulk


def junction_charge(v, bottom, sidewall, dev, integral=False):
    """The depletion charge [C] of a bulk junction at its voltage ``v`` with zero-bias bottom
    and sidewall capacitances ``bottom``, ``sidewall`` [F] at TNOM: the sum of two
    :func:`~physlib.components.electrical.semiconductors.junctions.depletion_charge`, graded MJ
    and MJSW, with the device ``dev``'s PB, FC, T and TNOM (``integral``: ∫₀^v Q dv)."""
    constants = constant_set(dev)
    charge = depletion_charge(v, bottom, dev.PB, dev.MJ, dev.FC, dev.T, dev.TNOM, integral, constants=constants)
    if sidewall == 0:
        return charge
    return charge + depletion_charge(v, sidewall, dev.PB, dev.MJSW, dev.FC, dev.T, dev.TNOM, integral,
                                     constants=constants)


def junction_capacitance(v, bottom, sidewall, dev):
    """dQ/dv [F] of :func:`junction_charge`: for each part with zero-bias capacitance C graded
    m, C(T)·(1 − v/PB(T))^(−m) below v = FC·PB(T), C(T)/(1 − FC)^(1+m)·(1 − FC·(1 + m) +
    m·v/PB(T)) above (the charge's linear continuation, as ngspice's capbd, capbs)."""
    total = 0
    for cap, grading in ((bottom, dev.MJ), (sidewall, dev.MJSW)):
        if cap == 0:
            continue
        vj, cj = junction_temperature(cap, dev.PB, grading, dev.T, dev.TNOM, constants=constant_set(dev))
        above = cj / (1 - dev.FC)**(1 + grading) * (1 - dev.FC * (1 + grading) + grading * v / vj)
        total += sp.Piecewise((cj * (1 - v / vj)**(-grading), v < dev.FC * vj), (above, True))
    return total


def state_branches(present) -> list[str]:
    """The ``present`` branches (of :data:`ORDER`) whose voltages are the device's states: a
    spanning forest of them, in that order; the voltages of branches that close a loop follow
    from the others', so no two states are tied by the device's own equations."""
    parent, forest = {pin: pin for pin in "gdsb"}, []

    def root(pin):
        while parent[pin] != pin:
            pin = parent[pin]
        return pin
    for name in (n for n in ORDER if n in present):
        a, b, _ = BRANCHES[name]
        if root(a) != root(b):
            parent[root(a)] = root(b)
            forest.append(name)
    return forest


def branch_rates(present, voltages):
    """{branch: d(its voltage)/dt} for the ``present`` branches (of :data:`ORDER`), in terms of
    the derivatives of the voltages of :func:`state_branches` (``voltages``: branch voltage by
    name)."""
    forest = [(BRANCHES[n][0], BRANCHES[n][1], voltages[BRANCHES[n][2]]) for n in state_branches(present)]
    connected = {pin: pin for pin in "gdsb"}
    for a, b, _ in forest:
        old = connected[a]
        connected = {pin: connected[b] if tree == old else tree for pin, tree in connected.items()}
    rate = {pin: 0 for pin in "gdsb" if connected[pin] == pin}   # each tree's potential reference
    while len(rate) < 4:
        for a, b, v in forest:
            if b in rate and a not in rate:
                rate[a] = rate[b] + der(v)
            elif a in rate and b not in rate:
                rate[b] = rate[a] - der(v)
    return {name: rate[BRANCHES[name][0]] - rate[BRANCHES[name][1]] for name in ORDER if name in present}
