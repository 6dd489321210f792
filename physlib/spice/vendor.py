"""Entries of vendors' model cards that only PSpice reads: ngspice-39 ignores each with a
warning ("unrecognized parameter (vceo) - ignored"), and so does physlib, naming them."""
from __future__ import annotations

__all__ = ["PSPICE_ONLY", "without_pspice_entries"]

# PSpice's informational model entries as vendors publish them (ratings, maker, device type)
# on D, Q and M cards: no simulator equation reads them.
PSPICE_ONLY = ("iave", "vpk", "ipk", "vceo", "icrating", "mfg", "type", "vds", "ron", "qg")


def without_pspice_entries(b, params: list[str], model_card) -> list[str]:
    """``params`` (a .model card's tokens) without its PSpice-only ``key = value`` entries,
    warned about once per card."""
    kept, ignored, pos = [], [], 0
    while pos < len(params):
        key = params[pos].lower()
        if key in PSPICE_ONLY and pos + 2 < len(params) and params[pos + 1] == "=":
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
