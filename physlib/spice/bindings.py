"""The element values of a deck as *bindings*: parameter path → (value function of the
``.param`` scope, the card's location), which :mod:`physlib.spice.parameters` turns into
expressions of the deck's ``.param`` values.

Most values of a large deck are numbers on plain cards (``R1 a b 1k``: an R, C or L with two
nodes and a number): nothing recomputes them, and a record per card took 150 MB and 1.3 s of
a million-element ladder's read. Those are read from their cards when asked for; every other
value is recorded as it is bound.
"""
from __future__ import annotations

from collections.abc import Mapping

from .devices import PASSIVE_CLASSES
from .lexer import split

__all__ = ["Bindings"]

# the parameter a plain card's number gives, by the card's letter
CARD_PARAMETERS = {letter: param for letter, (_, param, _) in PASSIVE_CLASSES.items()}


class Bindings(Mapping):
    """Parameter path → (value function, location) of every element value: the ``recorded``
    ones and those read from plain cards. ``elements``: element path → card (the builder's,
    filled as the deck is built); ``constants``: number token → its shared value function
    (:class:`~physlib.spice.numbers.Constant`)."""

    def __init__(self, elements: dict, constants: dict):
        self.recorded: dict = {}
        self._elements, self._constants = elements, constants

    def record(self, path: str, function, where) -> None:
        self.recorded[path] = (function, where)

    def on_card(self, tokens: list[str], function) -> bool:
        """Whether the value ``function`` of an R, C or L card split into ``tokens`` (no
        options) is read from its card rather than recorded: a plain card whose number has
        its shared value function (a number that warned has one of its own)."""
        return len(tokens) == 4 and self._constants.get(tokens[3]) is function

    def _read(self, element: str, card):
        """(path, (function, where)) of the value of ``element`` read from its ``card``, or
        None where it has none there."""
        param = CARD_PARAMETERS.get(card.text[0].upper())
        if param is None:
            return None
        tokens = split(card.text, card.where)
        function = self._constants.get(tokens[3]) if len(tokens) == 4 else None
        return None if function is None else (f"{element}.{param}", (function, card.where))

    def __getitem__(self, path: str):
        found = self.recorded.get(path)
        if found is not None:
            return found
        element = path.rpartition(".")[0]
        card = self._elements.get(element)
        read = None if card is None else self._read(element, card)
        if read is None or read[0] != path:
            raise KeyError(path)
        return read[1]

    def items(self):
        """The recorded bindings, then those read from plain cards, in card order."""
        yield from self.recorded.items()
        for element, card in self._elements.items():
            read = self._read(element, card)
            if read is not None:
                yield read

    def __iter__(self):
        return (path for path, _ in self.items())

    def __len__(self) -> int:
        return sum(1 for _ in self.items())
