"""A deck's cards sorted into what they declare: elements and subcircuit instances (per
subcircuit body), ``.subckt`` definitions, ``.model``, ``.param``, ``.func``, ``.global``, the
analysis cards, ``.options``/``.temp``, ``.ic``/``.nodeset``. Nothing is built here: that is
:mod:`physlib.spice.elements`; every card is either sorted or refused with a SpiceError.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .errors import Location, SpiceError
from .expressions import Scope, parse
from .cards import SUPPORTED, parse_assignments, sort_card
from .lexer import Card, CardLines, card_firsts, card_texts, first_word, split

__all__ = ["Body", "Subckt", "Netlist", "parse_assignments", "ELEMENT_LETTERS"]

ELEMENT_LETTERS = "RCLVIDEFGHXKBSWQMJ"
_SUPPORTED_LETTERS = frozenset(ELEMENT_LETTERS)

UNSUPPORTED_ELEMENTS = {
    "A": "XSPICE code models", "T": "lossless transmission lines",
    "O": "lossy transmission lines", "U": "RC lines",
    "Y": "transmission lines",
    "Z": "MESFETs/HFETs", "N": "OSDI devices", "P": "coupled transmission lines"}


class Body:
    """The contents of the deck or of one subcircuit: element cards (in order), local
    ``.param``/``.func`` definitions (a Scope filled when instantiated), ``.model`` cards and
    nested ``.subckt`` definitions."""

    def __init__(self):
        self.elements: Sequence[Card] = []      # a list, or a CardLines (extend_elements)
        # the tokens of the element cards with braces or quotes (position in elements ->
        # tokens), split when sorted, where a malformed one is an error; the others (most cards
        # of a large deck) are split when built: a list of tokens per card would be a third of
        # a large deck's memory while it is built (see compact)
        self.tokens: dict[int, list[str]] = {}
        self.params: list[tuple[str, str, Location]] = []       # name, expression text
        self.functions: list[tuple[str, list[str], str, Location]] = []
        self.models: dict[str, tuple[str, list[str], Card]] = {}  # name -> (type, tokens, card)
        self.subckts: dict[str, "Subckt"] = {}

    def fill(self, scope: Scope):
        """Define this body's .param and .func in ``scope``."""
        for name, text, where in self.params:
            scope.define(name, parse(text, where), where)
        for name, args, text, where in self.functions:
            scope.functions[name] = (args, parse(text, where), where)

    def add_element(self, card: Card):
        """Add an element card, split now if it has braces or quotes (an unbalanced one is an
        error of the deck's sorting, before anything is built)."""
        text = card.text
        if "{" in text or "'" in text:
            self.tokens[len(self.elements)] = split(text, card.where)
        self.extend_elements([card])

    def extend_elements(self, cards) -> None:
        """Add element cards that have no braces or quotes: a body's first run of lines
        (:class:`~physlib.spice.lexer.CardLines`) kept as it is, no card made."""
        if not self.elements and isinstance(cards, CardLines):
            self.elements = cards
            return
        if not isinstance(self.elements, list):
            self.elements = list(self.elements)
        self.elements.extend(cards)

    def element_cards(self, letters: str | None = None):
        """(card, tokens) of each element card, in order, or of those whose letter is one of
        ``letters`` (upper case); the tokens split here unless kept (:meth:`add_element`)."""
        cards = self.elements
        positions = range(len(cards))
        if letters is not None:
            firsts = card_firsts(cards)
            if firsts.isascii():        # those cards found among the letters at once (few or none)
                positions = [found.start() for found in re.finditer(f"[{re.escape(letters)}]", firsts.upper())]
            else:
                positions = [k for k, letter in enumerate(firsts) if letter.upper() in letters]
        for position in positions:
            card = cards[position]
            yield card, self._tokens(position, card)

    def element_chunks(self, size: int):
        """(cards, their texts, their tokens or None) of the element cards in order, ``size``
        cards at a time; None for a chunk of words alone (no ``=``, parentheses or commas; no
        braces or quotes, whose cards' tokens are kept), whose tokens are each text's words
        (``str.split``), split by the caller as it reads them."""
        cards = self.elements
        for start in range(0, len(cards), size):
            chunk = cards[start:start + size]
            texts = card_texts(chunk)
            whole = "".join(texts)
            if not self.tokens and not any(mark in whole for mark in "=(),"):
                yield chunk, texts, None
            else:
                yield chunk, texts, list(map(self._tokens, range(start, start + len(chunk)), chunk))

    def _tokens(self, position: int, card: Card) -> list[str]:
        """The tokens of the element card at ``position``: kept, or split now."""
        tokens = self.tokens.get(position)
        return tokens if tokens is not None else split(card.text, card.where)

    def compact(self):
        """Drop the kept tokens (:meth:`add_element`), here and in every subcircuit definition:
        once the deck's components are built they are read again only to build them anew (a
        deck loaded from a pickle), which splits the cards again."""
        self.tokens = {}
        for subckt in self.subckts.values():
            subckt.body.compact()


class Subckt:
    """A ``.subckt name ports... [params:] a=1 b={2*a}`` definition."""

    def __init__(self, name: str, ports: list[str], defaults: list, card: Card):
        self.name, self.ports, self.defaults, self.card = name, ports, defaults, card
        self.body = Body()


class Netlist:
    """The cards of a deck, sorted: ``top`` (a :class:`Body`), ``globals_``, ``analyses``
    (kind, tokens, card), ``options`` (name -> (value token or None, card)), ``ic`` and
    ``nodeset`` (node -> (expression text, card)), ``control`` (the lines of its ``.control``
    blocks, in order), ``warnings`` ((location, text) pairs)."""

    def __init__(self, cards: Sequence[Card], warnings: list):
        self.top = Body()
        self.globals_: list[str] = []
        self.analyses: list[tuple[str, list[str], Card]] = []
        self.options: dict[str, tuple] = {}
        self.ic: dict[str, tuple] = {}
        self.nodeset: dict[str, tuple] = {}
        self.control: list[Card] = []
        self.temperatures: list[str] = []        # a .temp card's values when it has several
        self.warnings = warnings
        self._sort(cards)

    def _sort(self, cards: Sequence[Card]):
        stack: list[tuple[Body, Subckt | None]] = [(self.top, None)]
        # the element cards between two dot cards a run at a time (a large deck's are most)
        firsts = card_firsts(cards)
        start = 0
        for k in [*(found.start() for found in re.finditer(r"\.", firsts)), len(cards)]:
            if k > start:
                self._elements(cards[start:k], firsts[start:k], stack[-1][0])
            start = k + 1
            if k == len(cards):
                break
            card = cards[k]
            body, current = stack[-1]
            key = first_word(card.text)
            if key == ".subckt":
                sub = self._subckt(card)
                if sub.name in body.subckts:
                    raise SpiceError(f"subcircuit {sub.name} is defined twice", card.where)
                body.subckts[sub.name] = sub
                stack.append((sub.body, sub))
            elif key == ".ends":
                if current is None:
                    raise SpiceError(".ends without .subckt", card.where)
                stack.pop()
            else:
                self._control(card, key, body, current)
        if len(stack) > 1:
            raise SpiceError(f"subcircuit {stack[-1][1].name} has no .ends", stack[-1][1].card.where)

    def _elements(self, cards: list[Card], letters: str, body: Body):
        """Element cards ``cards`` (``letters``: their first letters) into ``body``: at once
        where every letter is a supported element's and no card has braces or quotes, else
        one by one (which refuses the first bad one)."""
        joined = "".join(card_texts(cards))
        if letters.isascii() and set(letters.upper()) <= _SUPPORTED_LETTERS and "{" not in joined \
                and "'" not in joined:
            body.extend_elements(cards)
            return
        for card in cards:
            self._element(card, body)

    def _element(self, card: Card, body: Body):
        letter = card.text[0].upper()
        if letter in UNSUPPORTED_ELEMENTS or letter not in ELEMENT_LETTERS:
            what = UNSUPPORTED_ELEMENTS.get(letter, "an unknown element letter")
            raise SpiceError(f"{letter} elements ({what}) are not supported; supported: "
                             f"{SUPPORTED}", card.where)
        body.add_element(card)

    def _subckt(self, card: Card) -> Subckt:
        text = card.text
        marker = re.search(r"\sparams:", text, re.I) or re.search(r"\s[A-Za-z_][\w.]*\s*=", text)
        head, params = (text[:marker.start()], text[marker.end() if marker.group(0).lower().strip()
                        == "params:" else marker.start():]) if marker else (text, "")
        words = head.split()
        if len(words) < 2:
            raise SpiceError(".subckt needs a name", card.where)
        defaults = parse_assignments(params, card.where) if params.strip() else []
        return Subckt(words[1].lower(), [w.lower() for w in words[2:]], defaults, card)

    def _control(self, card: Card, key: str, body: Body, current):
        if current is not None and key not in (".param", ".func", ".model", ".subckt"):
            raise SpiceError(f"{key} inside .subckt {current.name} is not supported "
                             "(only .param, .func, .model and nested .subckt)", card.where)
        sort_card(self, card, key, body)
