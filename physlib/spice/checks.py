"""Checks of a deck once its model is built: every node needs a DC path to ground.

At DC a capacitor is open and a current source (also a G or F output, or the control pins of
E and G) passes a fixed current whatever its voltage, so a node reached only through them has
no defined voltage: ngspice stops at the operating point with "singular matrix". Here that is
a :class:`SpiceError` naming the node and the first line that uses it, before any analysis.
Decks whose analyses are all ``.tran ... uic`` are exempt, as in ngspice (no operating point
is computed). Every other component conducts between its pins (unknown kinds too, so this
check never refuses a deck that could be solved).
"""
from __future__ import annotations

from ..components import electrical as el
from ..domains import electrical
from .errors import SpiceError
from .topology import Nets

__all__ = ["check_dc_paths"]

# class -> the groups of pins joined at DC (absent: all electrical pins of the component)
DC_GROUPS = {el.Capacitor: (), el.CurrentSource: (), el.VCCS: (), el.CCCS: (),
             el.VCVS: (("p", "n"),), el.CCVS: (("p", "n"),)}


def check_dc_paths(deck):
    """Raise :class:`SpiceError` for the first node of ``deck`` (in deck order) without a DC
    path to ground."""
    if deck.analyses and all(kind == "tran" and args.get("uic") for kind, args in deck.analyses):
        return
    nets = Nets(deck.model, joins=_dc_groups())
    pins = [(node, pin) for node, pin in deck.nodes.items() if pin is not None]
    grounded = nets.grounded
    floating = next((k for k, net in enumerate(nets.nets_of([pin for _, pin in pins]).tolist())
                     if net not in grounded), None)
    if floating is not None:
        node, pin = pins[floating]
        cards = deck.elements
        users = [t.rpartition(".")[0] for t in nets.members(nets.net(pin))]   # along DC paths
        where = next((cards[u].where for u in users if u in cards), None)
        raise SpiceError(f"node {node} has no DC path to ground: only capacitors, current "
                         "sources or controlled-source outputs reach it, so its DC voltage is "
                         "undefined (ngspice: 'singular matrix'); add a resistor to ground "
                         "(e.g. 1G) or a path through a resistor, inductor or voltage source",
                         where)


def _dc_groups():
    """A function giving the groups of a component's pins joined at DC, remembering those of
    each class whose pins do not depend on its parameters (one deck's classes)."""
    known = dict(DC_GROUPS)

    def groups_of(component):
        groups = known.get(type(component))
        if groups is None:
            groups = (tuple(p for p, port in component.ports().items() if port.domain is electrical),)
            if all(port.condition is None for port in component._ports.values()):
                known[type(component)] = groups
        return groups
    return groups_of
