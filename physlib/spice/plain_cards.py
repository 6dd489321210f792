"""The components of plain R, C and L cards: ``R1 a b 1k``, two nodes and a value alone, most
cards of a large deck. They are made without the general path's dispatch on the letter or
parsing of options (they record no controls or senses), and a run of consecutive plain cards
is made at once: each step a pass over the whole run in C (its words read by column
(:class:`Columns`), a run of cards alone split as one text; joining, lower-casing and splitting
their names and nodes as one text, numbering the nodes, making the components of each kind
(``Component.many``) and adding them to the model), where a loop over a million-element
ladder's cards spent two microseconds a card in calls.
A card the general path must read (a name that is no identifier, a value that is no plain
number, a capacitor the deck's .ic may start) is made on its own between such runs; a run in
which a name is taken or a component refuses its value is made card by card, which says which
card.
"""
from __future__ import annotations

from collections import deque
from itertools import chain
from operator import and_, itemgetter
from typing import NamedTuple

import numpy as np

from ..core.errors import DuplicateNameError, PhyslibError
from .devices import passive, plain_passive
from .errors import SpiceError
from .numbers import farad_warning

__all__ = ["Columns", "PlainCards", "made_at", "element_name", "duplicate_name"]

_PLAIN_LETTERS = frozenset("RCLrcl")
# a plain card's letter (lower case) -> whether it joins its nodes at DC: R and L do, C does not
_CONDUCTING = bytes.maketrans(b"rlc", b"\x01\x01\x00")


class Columns(NamedTuple):
    """The words of consecutive plain cards by column, as written: their ``names``, their
    ``nodes`` (two a card, in card order) and their ``values``."""

    names: list[str]
    nodes: list[str]
    values: list[str]

    @classmethod
    def of_tokens(cls, tokens: list[list[str]]) -> Columns:
        """The columns of plain cards' tokens (four a card)."""
        return cls(list(map(itemgetter(0), tokens)), list(chain.from_iterable(map(itemgetter(1, 2), tokens))),
                   list(map(itemgetter(3), tokens)))

    @classmethod
    def of_texts(cls, texts: list[str]) -> Columns | None:
        """The columns of cards whose texts are words alone (no ``=``, parentheses, commas,
        braces or quotes: their tokens are their words), if every one is a plain card (four
        words, the first an R, C or L element's name); else None. The words of all of them
        in one split, with a word of its own between two cards that says where each ends: a
        list of words per card took five times as long (a million-element deck's 0.5 s)."""
        joined = " \0 ".join(texts)
        words = joined.split()
        count = len(texts)
        names = words[0::5]
        if len(words) != 5 * count - 1 or words[4::5].count("\0") != count - 1 \
                or joined.count("\0") != count - 1 or not _PLAIN_LETTERS.issuperset(map(itemgetter(0), names)):
            return None
        nodes = [""] * (2 * count)
        nodes[0::2], nodes[1::2] = words[1::5], words[2::5]
        return cls(names, nodes, words[3::5])

    def part(self, start: int, stop: int) -> Columns:
        """The columns of cards ``start`` to ``stop`` (excluded)."""
        return Columns(self.names[start:stop], self.nodes[2 * start:2 * stop], self.values[start:stop])

    def tokens(self, k: int) -> list[str]:
        """The tokens of card ``k``."""
        return [self.names[k], self.nodes[2 * k], self.nodes[2 * k + 1], self.values[k]]


class PlainCards:
    """Adds the components of plain cards of one level (``prefix``: its instance's path) to
    ``model``, as :meth:`~physlib.spice.elements.Builder._component` would; their pins to
    ``nets`` (:class:`~physlib.spice.elements.LevelNodes`) and, where ``dc`` is given, the
    nodes they join at DC (:class:`~physlib.spice.checks.DcJoins`). A card whose number has its
    shared value function (:meth:`Builder.number <physlib.spice.elements.Builder.number>`)
    makes its component with the float itself: the value is read from the card again when
    asked for (:class:`~physlib.spice.bindings.Bindings`)."""

    def __init__(self, builder, model, nets, dc, scope, prefix: str):
        self.builder, self.model, self.nets, self.dc = builder, model, nets, dc
        self.scope, self.prefix = scope, prefix
        constants = builder.ctx.constants
        self.makers = {letter: plain_passive(letter.upper(), constants) for letter in "rcl"}
        if builder.netlist.nodeset or builder.netlist.ic:   # a capacitor may start at their values
            del self.makers["c"]
        # one float per number token (the components of a million-element ladder share two),
        # not a float object of its own for each component
        self.floats: dict[str, float] = {}

    def one(self, card, tokens: list[str]) -> None:
        """The component of one plain card."""
        name, letter = tokens[0].lower(), card.text[0].upper()
        value = self.builder.number(tokens[3])
        plain = value is not None and name.isidentifier() and name.isascii() and not (
            name[:1] == "c" and farad_warning(tokens[3]))
        make = self.makers.get(name[:1]) if plain else None
        if make is None:
            comp = made_at(card, passive, self.builder, letter, element_name(card, tokens), tokens[3], {}, tokens,
                           card, self.scope, self.prefix)
        else:
            try:
                comp = make([name], [self._float(tokens[3], value)])[0]
            except PhyslibError as err:
                raise SpiceError(str(err), card.where) from None
        try:
            self.model.add(comp)
        except DuplicateNameError:
            raise duplicate_name(name, card) from None
        self.builder.elements.setter()(self.prefix + name, card)
        a, b = self.nets[tokens[1].lower()], self.nets[tokens[2].lower()]
        self._pins([comp], [a, b], [letter != "C"])

    def run(self, cards: list, columns: Columns) -> None:
        """The components of consecutive plain cards (``columns``: their words), in their
        order, as :meth:`one` would make them one after another: a card whose name is no
        identifier, whose value is no number with its shared value function, or a capacitor
        the deck's .ic may start, by :meth:`one`, and the cards between them at once."""
        names = "\n".join(columns.names).lower().split("\n")
        number, makers, values = self.builder.number, self.makers, columns.values
        numbers = {token for token in set(values) if number(token) is not None}
        # a capacitor's farad-like value (10F) is warned about by the card's own path
        farads = {token for token in numbers if farad_warning(token)}
        if farads:
            numbers -= {value for value, name in zip(values, names) if name[:1] == "c" and value in farads}
        letters = "".join(map(itemgetter(0), names))
        if numbers.issuperset(values) and makers.keys() >= set(letters) and "".join(names).isascii() \
                and all(map(str.isidentifier, names)):      # most runs: made at once, no card looked for
            self._at_once(cards, columns, names, letters)
            return
        fit = list(map(and_, map(and_, map(str.isidentifier, names), map(str.isascii, names)),
                       map(and_, map(numbers.__contains__, values), map(makers.__contains__, letters))))
        start = 0
        for k in [k for k, fits in enumerate(fit) if not fits] + [len(cards)]:
            if k - start > 1:
                self._at_once(cards[start:k], columns.part(start, k), names[start:k], letters[start:k])
            elif k - start == 1:
                self.one(cards[start], columns.tokens(start))
            if k < len(cards):
                self.one(cards[k], columns.tokens(k))
            start = k + 1

    def _at_once(self, cards: list, columns: Columns, names: list[str], letters: str) -> None:
        """Cards that :meth:`run` makes at once (``names``: their names in lower case,
        ``letters`` their first letters); card by card if a component refuses its value or a
        name is taken, to say which."""
        for token in set(columns.values).difference(self.floats):
            self._float(token, None)
        try:
            components = self._made(names, letters, list(map(self.floats.__getitem__, columns.values)))
            self.model.add_components(components)
        except PhyslibError:            # a name taken, a value refused (DuplicateNameError is one)
            for k, card in enumerate(cards):
                self.one(card, columns.tokens(k))
            return
        prefix = self.prefix
        self.builder.elements.extend(map(prefix.__add__, names) if prefix else names, cards)
        nodes = columns.nodes
        text = "\n".join(nodes)
        if not text.islower():              # else every node is in lower case already
            nodes = text.lower().split("\n")
        self._pins(components, list(map(self.nets.__getitem__, nodes)), letters.encode().translate(_CONDUCTING))

    def _made(self, names: list[str], letters: str, values: list[float]) -> list:
        """The components named ``names`` (plain cards' names in lower case; ``letters``: their
        first letters) with ``values``, in their order: those of each letter made at once."""
        if len(set(letters)) == 1:
            return self.makers[letters[0]](names, values)
        made = [None] * len(names)
        codes = np.frombuffer(letters.encode(), dtype=np.uint8)     # (ASCII: plain names are)
        for letter in set(letters):
            places = np.flatnonzero(codes == ord(letter)).tolist()
            deque(map(made.__setitem__, places, self.makers[letter](list(map(names.__getitem__, places)),
                                                                   list(map(values.__getitem__, places)))), maxlen=0)
        return made

    def _float(self, token: str, value) -> float:
        number = self.floats.get(token)
        if number is None:
            number = self.floats[token] = float(value if value is not None else self.builder.number(token))
        return number

    def _pins(self, components: list, numbers: list[int], conducting) -> None:
        """The two pins of each of ``components`` on the nodes numbered ``numbers`` (two a
        component); ``conducting``: whether each joins its nodes at DC (R and L, not C), a
        truth value each."""
        self.nets.add_two_pins(components, numbers)
        if self.dc is not None:
            self.dc.passives(numbers, conducting)


def made_at(card, make, *args):
    """``make(*args)``, a physlib error raised in it reported as a SpiceError at ``card``."""
    try:
        return make(*args)
    except SpiceError:
        raise
    except PhyslibError as err:
        raise SpiceError(str(err), card.where) from None


def element_name(card, tokens) -> str:
    """The element's name in lower case; a SpiceError if it is no identifier."""
    name = tokens[0].lower()
    if not (name.isascii() and name.isidentifier()):
        raise SpiceError(f"element name {tokens[0]!r}: physlib needs letters, digits and "
                         "'_' only", card.where)
    return name


def duplicate_name(name: str, card) -> SpiceError:
    return SpiceError(f"duplicate element name {name} (names are case-insensitive)", card.where)
