"""The SPICE MOSFET (ngspice-39's level-1 ``mos1``), N and P channel: :class:`MOSFET` (in
:mod:`.device`), its channel current and temperature rules (:mod:`.channel`) and its charges —
Meyer's gate capacitances, overlaps, bulk junctions (:mod:`.capacitances`).

Re-exported as :class:`physlib.components.electrical.MOSFET`.
"""
from .device import EPS_OX, MOSFET, TOX_ABSENT

__all__ = ["MOSFET", "EPS_OX", "TOX_ABSENT"]
