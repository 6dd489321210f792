"""A large deck's element cards kept compactly once its model is built.

A card object is 56 bytes, its text 50 bytes more than its characters and its line number
28: a million-element deck's cards held 155 MB through its compile and runs, where the same
cards as one text, with where each starts and its line, take 35 MB. :class:`CardStore` keeps
a body's cards so and makes a :class:`~physlib.spice.lexer.Card` when one is read (a rebuild,
an error message, a value read from its card); :class:`ElementCards` maps each element's path
to its card, as a dict does, in the store once the deck is built.
"""
from __future__ import annotations

import operator
from array import array
from collections.abc import Mapping, Sequence
from itertools import chain, repeat

import numpy as np

from .lexer import Card, CardLines, card_texts

__all__ = ["CardStore", "ElementCards"]


class CardStore(Sequence):
    """Cards (none a :class:`~physlib.spice.lexer.ControlBlock`) as one text: card ``k`` is
    made again, equal to the one stored, when read."""

    def __init__(self, cards: Sequence[Card]):
        if isinstance(cards, CardLines):        # lines one after another of one file
            files, self._files = (), [cards.file] if len(cards) else []
            lines = np.arange(cards.first, cards.first + len(cards), dtype=np.int32)
        else:
            files = list(map(operator.attrgetter("file"), cards))
            self._files = list(dict.fromkeys(files))
            lines = np.fromiter(map(operator.attrgetter("line"), cards), np.int32, len(cards))
        place = {name: k for k, name in enumerate(self._files)}
        # one file (a deck without .include): no number per card
        self._file = array("i", map(place.__getitem__, files)) if len(self._files) > 1 else None
        # the numbers through NumPy: an array extended from an iterator converts each number
        # on its own, half again as long for a million cards
        self._line = array("i", lines.tobytes())
        texts = card_texts(cards)
        self._text = "".join(texts)
        starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)), out=starts[1:])
        self._start = array("q", starts.tobytes())

    def __len__(self) -> int:
        return len(self._line)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        file = self._files[self._file[k]] if self._file is not None else self._files[0]
        return Card(file, self._line[k], self._text[self._start[k]:self._start[k + 1]])


class ElementCards(Mapping):
    """Element path → its card, in the order the elements were added: a dict while the deck
    is built; :meth:`compact` then keeps the deck's own cards in their body's
    :class:`CardStore`, read in order when the cards are iterated (the cards of subcircuit
    bodies, which every instance shares, stay as they are). A path's own card is found by
    its rank among the deck's own elements, ranked when first asked for."""

    def __init__(self):
        self._dict: dict = {}           # path -> card; once compact, None or a shared card's place
        # (paths, cards) lists extended while the deck is built, put in the dictionary when it
        # is first read: a flat deck's, every card its own, never are (see compact)
        self._pending: list = []
        self._top: CardStore | None = None
        self._places: array | None = None   # the store's place of each own element, in order
        self._shared: list[Card] = []   # subcircuit bodies' cards (place -1, -2, …)
        self._rank: dict | None = None  # own element path -> its rank

    def __setitem__(self, path: str, card: Card) -> None:
        self.setter()(path, card)

    def setter(self):
        """A function adding (path, card) while the deck is built (a million cards' adds cost
        a method call each less than through ``elements[path] = card``)."""
        self._building()
        return self._paths.__setitem__

    @property
    def _paths(self) -> dict:
        """The dictionary, with what was extended put in first."""
        for paths, cards in self._pending:
            self._dict.update(zip(paths, cards))
        self._pending = []
        return self._dict

    @_paths.setter
    def _paths(self, value: dict) -> None:
        self._pending, self._dict = [], value

    def _building(self) -> None:
        if self._top is not None:
            raise TypeError("the deck's element cards are read only once it is built")

    def extend(self, paths, cards) -> None:
        """Add each of ``paths`` with its card of ``cards`` while the deck is built."""
        self._building()
        self._pending.append((list(paths), cards))

    def __getitem__(self, path: str) -> Card:
        found = self._paths[path]
        if self._top is None:
            return found
        if found is not None:
            return self._shared[~found]
        if self._rank is None:
            self._rank = {p: k for k, p in enumerate(p for p, v in self._paths.items() if v is None)}
        return self._own(self._rank[path])

    def _own(self, rank: int) -> Card:
        return self._top[rank if self._places is None else self._places[rank]]

    def items(self):
        if self._top is None:
            return self._paths.items()
        return self._items()

    def _items(self):
        rank = 0
        for path, found in self._paths.items():
            if found is None:
                yield path, self._own(rank)
                rank += 1
            else:
                yield path, self._shared[~found]

    def values(self):
        return (card for _, card in self.items())

    def __contains__(self, path) -> bool:
        return path in self._paths

    def __iter__(self):
        if self._dict:      # (put in first: a look-up while iterating then changes nothing)
            return iter(self._paths)
        return chain.from_iterable([paths for paths, _ in self._pending])

    def __len__(self) -> int:
        return len(self._dict) + sum(len(paths) for paths, _ in self._pending)

    def compact(self, body) -> None:
        """Keep the cards of ``body`` (the deck's own level, whose cards are its elements'
        with no '.' in their paths, in card order) in a :class:`CardStore`, which becomes
        ``body.elements`` too."""
        cards, pending = body.elements, self._pending
        if len(self._dict) + sum(len(c) for _, c in pending) == len(cards) and \
                self._one_for_one(cards):                       # a flat deck without K cards
            # their paths, put in the dictionary (to None) only if it is read
            paths = list(chain(self._dict, chain.from_iterable(p for p, _ in pending)))
            self._dict, self._pending = {}, [(paths, repeat(None))]
        else:
            self._places = self._placed(cards)
        body.elements = self._top = cards if isinstance(cards, CardStore) else CardStore(cards)

    def _one_for_one(self, cards) -> bool:
        """Whether the cards added, in order (the dictionary's, then those extended since it
        was read), are ``cards``, as many: the same objects; for lines of a file
        (:class:`~physlib.spice.lexer.CardLines`, whose cards are made when read), equal cards
        (:func:`_same`), compared a run at a time."""
        if not isinstance(cards, CardLines):
            added = chain(self._dict.values(), chain.from_iterable(c for _, c in self._pending))
            return all(map(operator.is_, added, cards))
        k = 0
        for run in chain([list(self._dict.values())], (c for _, c in self._pending)):
            if not _are_lines(run, cards[k:k + len(run)]):
                return False
            k += len(run)
        return True

    def _placed(self, cards) -> array:
        """Each own element's place among ``cards``, its other elements' shared cards kept."""
        paths, places, shared = self._paths, array("i"), {}
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
            places.append(k)
            paths[path] = None
        return places


def _are_lines(cards, lines: CardLines) -> bool:
    """Whether ``cards`` (a list of cards, or lines) are ``lines``, card for card equal as
    :func:`_same` says, compared at once: a deck's cards read before it was built (its K
    cards' inductors, ...) are made from its lines one by one."""
    if isinstance(cards, CardLines):
        return (cards.file, cards.first) == (lines.file, lines.first) and cards.texts == lines.texts
    return set(map(operator.attrgetter("file"), cards)) <= {lines.file} and \
        list(map(operator.attrgetter("line"), cards)) == list(range(lines.first, lines.first + len(lines))) and \
        list(map(operator.attrgetter("text"), cards)) == lines.texts


def _same(stored: Card, card: Card) -> bool:
    """Whether ``card`` is ``stored``, or made from the same place of a store (a deck read
    again from another's sorted cards, as ``altermod`` does)."""
    return stored is card or (stored.line == card.line and stored.text == card.text and stored.file == card.file)
