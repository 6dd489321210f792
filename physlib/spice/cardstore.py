"""A large deck's element cards kept compactly once its model is built.

A card object is 56 bytes, its text 50 bytes more than its characters and its line number
28: a million-element deck's cards held 155 MB through its compile and runs, where the same
cards as one text, with where each starts and its line, take 35 MB. :class:`CardStore` keeps
a body's cards so and makes a :class:`~physlib.spice.lexer.Card` when one is read (a rebuild,
an error message, a value read from its card); :class:`ElementCards` maps each element's path
to its card, as a dict does, in the store once the deck is built.
"""
from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import accumulate

from .lexer import Card

__all__ = ["CardStore", "ElementCards"]


class CardStore(Sequence):
    """Cards (none a :class:`~physlib.spice.lexer.ControlBlock`) as one text: card ``k`` is
    made again, equal to the one stored, when read."""

    def __init__(self, cards: Sequence[Card]):
        number: dict[str, int] = {}       # file name -> its place in _files
        self._file = array("i", [number.setdefault(c.file, len(number)) for c in cards])
        self._files = list(number)
        self._line = array("i", [c.line for c in cards])
        texts = [c.text for c in cards]
        self._text = "".join(texts)
        self._start = array("q", accumulate(map(len, texts), initial=0))

    def __len__(self) -> int:
        return len(self._line)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        return Card(self._files[self._file[k]], self._line[k], self._text[self._start[k]:self._start[k + 1]])


class ElementCards(Mapping):
    """Element path → its card, in the order the elements were added: a dict while the deck
    is built; :meth:`compact` then keeps the deck's own cards in their body's
    :class:`CardStore` and each path's place there (the cards of subcircuit bodies, which
    every instance shares, stay as they are)."""

    def __init__(self):
        self._paths: dict = {}          # path -> card; once compact, -> its place
        self._top: CardStore | None = None
        self._shared: list[Card] = []   # subcircuit bodies' cards (place -1, -2, …)

    def __setitem__(self, path: str, card: Card) -> None:
        self.setter()(path, card)

    def setter(self):
        """A function adding (path, card) while the deck is built (a million cards' adds cost
        a method call each less than through ``elements[path] = card``)."""
        if self._top is not None:
            raise TypeError("the deck's element cards are read only once it is built")
        return self._paths.__setitem__

    def __getitem__(self, path: str) -> Card:
        found = self._paths[path]
        if self._top is None:
            return found
        return self._top[found] if found >= 0 else self._shared[~found]

    def __contains__(self, path) -> bool:
        return path in self._paths

    def __iter__(self):
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def compact(self, body) -> None:
        """Keep the cards of ``body`` (the deck's own level, whose cards are its elements'
        with no '.' in their paths, in card order) in a :class:`CardStore`, which becomes
        ``body.elements`` too, and each path's place."""
        cards, paths = body.elements, self._paths
        shared: dict[int, int] = {}
        k = 0
        for path, card in paths.items():
            if "." in path:             # inside a subcircuit instance: a shared card
                place = shared.get(id(card))
                if place is None:
                    place = shared[id(card)] = ~len(self._shared)
                    self._shared.append(card)
                paths[path] = place
                continue
            while not _same(cards[k], card):   # the K cards between (no element of theirs)
                k += 1
            paths[path] = k
        body.elements = self._top = cards if isinstance(cards, CardStore) else CardStore(cards)


def _same(stored: Card, card: Card) -> bool:
    """Whether ``card`` is ``stored``, or made from the same place of a store (a deck read
    again from another's sorted cards, as ``altermod`` does)."""
    return stored is card or (stored.line == card.line and stored.text == card.text and stored.file == card.file)
