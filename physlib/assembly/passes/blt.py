"""Pass 5: matching of equations to unknowns and block-lower-triangular order
(see :mod:`physlib.assembly.structure`)."""
from __future__ import annotations

from ..ir import BlockOrder, Reduced
from ..structure import match_and_order


def order_blocks(reduced: Reduced, describe) -> BlockOrder:
    """Which unknown each equation determines, and the blocks in evaluation order."""
    eqs, n_unknown = reduced.equations, len(reduced.unknown_pos)
    return match_and_order(eqs.incidence(None, n_unknown, reduced.unknown),
                           lambda: eqs.incidence(eqs.preferred, n_unknown, reduced.unknown), describe,
                           lambda u: reduced.names[reduced.unknown_pos[u]], reduced.match)
