"""Errors and warnings of the SPICE reader.

Every problem with a deck is a :class:`SpiceError` naming the file, the line number, the
line's text and what is supported instead; likely mistakes that ngspice accepts are a
:class:`SpiceWarning` with the same location (also collected in ``deck.warnings``).
"""
from __future__ import annotations

from ..core.errors import PhyslibError

__all__ = ["SpiceError", "SpiceWarning", "Location"]


class Location:
    """Where a card came from: file name (``"<text>"`` for a deck given as text), the number of
    its first physical line (1-based) and the card's text after joining continuation lines."""

    __slots__ = ("file", "line", "text")

    def __init__(self, file: str, line: int, text: str):
        self.file, self.line, self.text = file, line, text

    def __str__(self):
        return f"{self.file}, line {self.line}: {self.text.strip()!r}"


class SpiceError(PhyslibError, ValueError):
    """A deck physlib cannot read: unsupported element, card, model parameter or option, a
    duplicate element name, an unknown subcircuit, recursion, a malformed value.

    ``err.file``, ``err.line`` and ``err.text`` locate it (None when not tied to one line).
    """

    def __init__(self, message: str, where: Location | None = None):
        self.file = where.file if where else None
        self.line = where.line if where else None
        self.text = where.text if where else None
        super().__init__(f"{where}: {message}" if where else message)


class SpiceWarning(UserWarning):
    """A line ngspice accepts but that is probably not what was meant (``1M`` read as milli),
    or an option physlib ignores. ``w.file``/``w.line``/``w.text`` locate it."""

    def __init__(self, message: str, where: Location | None = None):
        self.file = where.file if where else None
        self.line = where.line if where else None
        self.text = where.text if where else None
        super().__init__(f"{where}: {message}" if where else message)
