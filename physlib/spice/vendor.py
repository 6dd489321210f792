"""Entries of vendors' model cards that only PSpice reads: ngspice-39 ignores each with a
warning ("unrecognized parameter (vceo) - ignored"), and so does physlib, naming them; but for
``VDS=`` on a MOSFET card, on which ngspice-39 stops, and so does physlib."""
from __future__ import annotations

from .errors import SpiceError

__all__ = ["MOSFET_STOPS", "PSPICE_ONLY", "ignoring_pspice_entries", "without_pspice_entries"]

# PSpice's informational model entries as vendors publish them (ratings, maker, device type)
# on D, Q and M cards: no simulator equation reads them.
PSPICE_ONLY = ("iave", "vpk", "ipk", "vceo", "icrating", "mfg", "type", "vds", "ron", "qg")
# ngspice-39 ignores VDS= on D, Q and J cards but stops on it on an NMOS/PMOS card ("vds: no
# such parameter on this device", at any level): it hands the name to the MOSFET instance.
MOSFET_STOPS = ("vds",)


def without_pspice_entries(b, params: list[str], model_card, stops=(), only_pspice=()) -> list[str]:
    """``params`` (a .model card's tokens) without its PSpice-only ``key = value`` entries
    (:data:`PSPICE_ONLY` and this kind of card's ``only_pspice``: model parameters PSpice has
    and ngspice-39 ignores), warned about once per card; an entry of ``stops`` (on which
    ngspice-39 stops for this kind of card) is an error."""
    kept, ignored, pos = [], [], 0
    while pos < len(params):
        key = params[pos].lower()
        if (key in PSPICE_ONLY or key in only_pspice) and pos + 2 < len(params) \
                and params[pos + 1] == "=":
            if key in stops:
                raise SpiceError(f"{key.upper()}= (a PSpice-only rating) on this card stops "
                                 "ngspice-39 too ('no such parameter on this device'): remove it",
                                 model_card.where)
            ignored.append(key)
            pos += 3
            continue
        kept.append(params[pos])
        pos += 1
    if ignored and id(model_card) not in b.warned:
        b.warned.add(id(model_card))
        names = ", ".join(f"{key.upper()}=" for key in ignored)
        b.ctx.warn(model_card.where, f"{names} ignored: PSpice-only entries of a vendor card, "
                   "which ngspice-39 ignores with a warning too (it stops on a value that is no "
                   "number, such as mfg=Philips, unless ngbehavior=ps)")
    return kept


def ignoring_pspice_entries(b, find_model, stops=(), only_pspice=()):
    """``find_model(scope, name, where)`` whose cards come without their PSpice-only entries
    (:func:`without_pspice_entries`), for the devices that look their models up themselves."""
    def find(scope, name, where):
        kind, params, model_card, model_scope = find_model(scope, name, where)
        return kind, without_pspice_entries(b, params, model_card, stops, only_pspice), \
            model_card, model_scope
    return find
