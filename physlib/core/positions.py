"""Declarations of positions in the velocity-based mechanical domains.

Flanges carry speeds, not positions. A component that needs a position (an inertia's angle, a
spring's deflection, a position sensor's output) integrates a speed as a state of its own, and
declares it here, so that the compiler can integrate each position at most once
(:mod:`physlib.assembly.positions`): a spring between two masses then reads its deflection as
the difference of the masses' positions instead of integrating it a second time, and a damper's
relative angle costs no state at all.

A class declares, as class attributes:

``position_states``
    :class:`PositionState` entries: a state ``x`` with ``der(x) = plus.speed − minus.speed``
    (either port may be absent: its speed is zero), starting from the parameter ``start``.
``rigid_ports``
    Tuples of ports that always move together (an inertia's two flanges).
``fixed_ports``
    Ports that never move (a fixed flange).

These must be identities of the class's equations in every mode; the compiler relies on them.
"""
from __future__ import annotations

from .records import record


@record(frozen=True)
class PositionState:
    """A state integrating a flange speed: ``der(state) = plus.speed − minus.speed``.

    ``state``: the variable's name; ``start``: the parameter holding its value at the start;
    ``plus``/``minus``: port names, or None for a port that stands still (an absolute position
    has no ``minus``); a conditional port the component does not have (a housing flange
    without ``use_support``) stands still too. ``reads``: whether the class uses the position
    for anything but its own integration (a spring's force, a stop's gap); a position nobody
    reads is never integrated: it follows from the others, or is not computed at all.
    """

    state: str
    start: str
    plus: str | None
    minus: str | None = None
    reads: bool = True
