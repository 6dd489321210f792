"""The SPICE MOSFET (ngspice-39's ``mos1``, ``mos2`` and ``mos3``), N and P channel:
:class:`MOSFET` (in :mod:`.device`), its level-1 channel current and temperature rules
(:mod:`.channel`), its level-2 and level-3 channel currents in stages (:mod:`.level2`,
:mod:`.level3`, :mod:`.staged`) and its charges — Meyer's gate capacitances, overlaps, bulk
junctions (:mod:`.capacitances`).

Re-exported as :class:`physlib.components.electrical.MOSFET`.
"""
from .device import EPS_OX, MOSFET, TOX_ABSENT

__all__ = ["MOSFET", "EPS_OX", "TOX_ABSENT"]
