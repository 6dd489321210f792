"""From a deck's text to its cards, as ngspice-39 reads them.

The first line is the title. Comment lines start with ``*``; inline comments start with ``;``
anywhere, or with ``$ ``, ``//`` or ``--`` at the start of a word. A line starting with ``+``
continues the card before it (comment and blank lines may come between). Reading stops at
``.end``. ``.include file`` inserts a file's cards; ``.lib file section`` inserts the cards
between ``.lib section`` and ``.endl`` of that file; paths are relative to the folder of the
file that names them. A ``.control`` … ``.endc`` block (an ngspice script) becomes one
:class:`ControlBlock` card holding its lines (:mod:`physlib.spice.control` runs it).
:func:`split` turns a card's text into tokens.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, itemgetter

from .errors import Location, SpiceError

__all__ = ["Card", "CardLines", "ControlBlock", "read_cards", "card_texts", "card_firsts", "split", "first_word"]

_INLINE = re.compile(r";|(?:(?<=\s)|^)(?:\$(?=\s|$)|//|--)")
_MARKERS = (";", "$", "//", "--")      # what _INLINE looks for, wherever it is
_EXPANDED = (".control", ".include", ".inc", ".lib")   # the dot cards _expand replaces or removes


class Card(Location):
    """One logical line of a deck: its ``text`` and where it came from, ``where`` (file, the
    number of its first physical line and this text). A card is its own :class:`Location`: a
    million-element deck kept a million Location objects beside its cards (60 MB)."""

    __slots__ = ()

    @property
    def where(self) -> Location:
        return self

    def __repr__(self):
        return f"Card({self.text!r} at {self.file}:{self.line})"


class ControlBlock(Card):
    """A ``.control`` … ``.endc`` block: its ``.control`` line and ``cards``, the script's
    lines in order (continuation lines joined)."""

    __slots__ = ("cards",)

    def __init__(self, file: str, line: int, text: str):
        super().__init__(file, line, text)
        self.cards: list[Card] = []


class CardLines(Sequence):
    """Cards that are each one line of ``file``, in order: their ``texts``, the first on line
    ``first``, the others on the lines after it; card ``k`` is made when read, equal to the
    one the lexer would have made. A large deck's element lines pass so from the lexer through
    the sorting of its cards to its card store: a million card objects made, read for their
    texts and dropped took a third of a second. A slice is a :class:`CardLines` too."""

    __slots__ = ("file", "first", "texts", "_firsts")

    def __init__(self, file: str, first: int, texts: list[str]):
        self.file, self.first, self.texts = file, first, texts
        self._firsts = None

    @property
    def firsts(self) -> str:
        """The first character of each card's text."""
        if self._firsts is None:
            self._firsts = "".join(map(itemgetter(0), self.texts))
        return self._firsts

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, k):
        if isinstance(k, slice):
            start, stop, step = k.indices(len(self.texts))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return CardLines(self.file, self.first + start, self.texts[start:stop])
        text = self.texts[k]            # (an IndexError out of range)
        return Card(self.file, self.first + (k if k >= 0 else k + len(self.texts)), text)


def card_texts(cards: Sequence[Card]) -> list[str]:
    """The texts of ``cards``, a list of cards or :class:`CardLines`."""
    return cards.texts if isinstance(cards, CardLines) else list(map(attrgetter("text"), cards))


def card_firsts(cards: Sequence[Card]) -> str:
    """The first character of each of ``cards``' texts (a list of cards or :class:`CardLines`)."""
    return cards.firsts if isinstance(cards, CardLines) else "".join(map(itemgetter(0), card_texts(cards)))


def _strip(line: str) -> str:
    """The line without its inline comment (quotes and braces are not searched)."""
    depth, quote = 0, False
    for match in _INLINE.finditer(line):
        before = line[:match.start()]
        depth = before.count("{") - before.count("}")
        quote = before.count("'") % 2 == 1
        if depth == 0 and not quote:
            return before
    return line


def first_word(text: str) -> str:
    """The first word of a card's text (which starts with it: no leading blank), lower case."""
    return text.split(None, 1)[0].lower()


def _join(lines: list[str], file: str, first: int, comments: bool) -> Sequence[Card]:
    """Cards of ``lines`` (the first one numbered ``first``) with comment and blank lines left
    out, inline comments removed where ``comments`` says the text has some, continuation lines
    joined; stops at .end. Lines that are each a card of their own (most decks' lines, a
    large deck's all) are stripped in one pass; otherwise one pass over the lines, no text or
    list made for a line that only becomes a card."""
    texts = list(map(str.strip, lines)) if not comments else []
    # each line's first character, where no line is blank
    firsts = "".join(map(itemgetter(0), texts)) if all(texts) else ""
    whole = bool(texts) and len(firsts) == len(texts) and "*" not in firsts and "+" not in firsts
    if not whole:
        numbers, texts = _joined(lines, file, first, comments)
        firsts = "".join(map(itemgetter(0), texts))
    # .end among the cards starting with a dot (found in their first characters at once)
    end = next((k for k in (found.start() for found in re.finditer(r"\.", firsts))
                if first_word(texts[k]) == ".end"), len(texts))
    if whole:
        return CardLines(file, first, texts if end == len(texts) else texts[:end])
    return list(map(Card, repeat(file), numbers[:end], texts[:end]))


def _joined(lines: list[str], file: str, first: int, comments: bool) -> tuple[list[int], list[str]]:
    """(the number of each card's first line, its text) of ``lines`` as :func:`_join` takes
    them, a line at a time."""
    numbers: list[int] = []
    texts: list[str] = []
    for number, raw in enumerate(lines, first):
        stripped = (_strip(raw) if comments else raw).strip()
        if not stripped or stripped[0] == "*":
            continue
        if stripped[0] == "+":
            if not texts:
                raise SpiceError("a continuation line '+' with no card before it",
                                 Location(file, number, (_strip(raw) if comments else raw).rstrip()))
            texts[-1] += " " + stripped[1:]
            continue
        numbers.append(number)
        texts.append(stripped)
    return numbers, texts


def _has_comments(text: str, start: int = 0) -> bool:
    """Whether ``text`` may have inline comments from ``start`` on: most decks have no marker
    anywhere, and four substring searches of the whole text spare a regular-expression search
    of each line (a two-character marker searched for only where its first character is:
    a character alone is found faster)."""
    return any(text.find(marker[0], start) >= 0 and text.find(marker, start) >= 0 for marker in _MARKERS)


def read_cards(text: str, file: str = "<text>", folder: str | None = None,
               warnings: list | None = None, _seen=()) -> tuple[str, Sequence[Card]]:
    """(title, cards) of a deck; ``.include``/``.lib`` files are read from ``folder``. The
    cards are a list, or a :class:`CardLines` where each line is a card of its own."""
    lines = text.splitlines()
    title = lines[0].strip() if lines else ""
    cards = _join(lines[1:], file, 2, bool(lines) and _has_comments(text, len(lines[0])))
    return title, _expand(cards, folder, warnings, _seen + (os.path.abspath(file),))


def _words(card: Card) -> list[str]:
    return card.text.split()


def _expand(cards: Sequence[Card], folder, warnings, seen) -> Sequence[Card]:
    """Cards with .include/.lib calls replaced by what they name, each .control block made
    one :class:`ControlBlock` and .lib blocks (section definitions in the deck itself)
    removed: ``cards`` themselves where none of their dot cards is one of those."""
    if isinstance(cards, CardLines) and not any(
            first_word(cards.texts[found.start()]) in _EXPANDED for found in re.finditer(r"\.", cards.firsts)):
        return cards
    out, skip_until, block = [], None, None
    for card in cards:
        if card.text[0] != "." and block is None and not skip_until:
            out.append(card)             # an element line: the cards below all start with '.'
            continue
        words = _words(card)
        key = words[0].lower()
        if block is not None:
            if key == ".endc":
                out.append(block)
                block = None
            else:
                block.cards.append(card)
            continue
        if skip_until:
            if key == skip_until:
                skip_until = None
            continue
        if key == ".control":
            block = ControlBlock(card.file, card.line, card.text)
        elif key in (".include", ".inc") or (key == ".lib" and len(words) >= 3):
            out += _included(card, words, folder, warnings, seen)
        elif key == ".lib":
            skip_until = ".endl"         # a section defined in this file, used only if called
        else:
            out.append(card)
    if block is not None:
        raise SpiceError(".control without .endc", block.where)
    return out


def _included(card: Card, words, folder, warnings, seen) -> list[Card]:
    if len(words) < 2:
        raise SpiceError(f"{words[0]} needs a file name", card.where)
    name = words[1].strip("\"'")
    path = name if os.path.isabs(name) else os.path.join(folder or os.getcwd(), name)
    if os.path.abspath(path) in seen:
        raise SpiceError(f"{name} includes itself (recursion)", card.where)
    try:
        with open(path) as handle:
            text = handle.read()
    except OSError as err:
        raise SpiceError(f"cannot read {path}: {err.strerror}", card.where) from None
    cards = _join(text.splitlines(), path, 1, _has_comments(text))   # no title line
    if words[0].lower() == ".lib":
        cards = _section(cards, words[2].lower(), card)
    return _expand(cards, os.path.dirname(path), warnings, seen + (os.path.abspath(path),))


def _section(cards: list[Card], section: str, call: Card) -> list[Card]:
    """The cards between ``.lib section`` and ``.endl`` of a library file."""
    inside, out = False, []
    for card in cards:
        words = [w.lower() for w in _words(card)]
        if words[0] == ".lib" and len(words) == 2 and words[1] == section:
            inside = True
        elif inside and words[0] == ".endl":
            return out
        elif inside:
            out.append(card)
    raise SpiceError(f"no section {section!r} (.lib {section} … .endl) in that file", call.where)


_TOKEN = re.compile(r"\s+|[(),]|=|\{|'|[^\s(),={']+")
_PLAIN_TOKEN = re.compile(r"=|[^\s(),=]+")      # the same tokens in a card without { or '


def split(text: str, where: Location) -> list[str]:
    """Tokens of a card: words, ``=``, and ``{expr}`` / ``'expr'`` kept whole (with their
    delimiters). Parentheses and commas separate like blanks, as in ngspice's element lines
    (``PULSE(0 1 1n)``, ``D(IS=1e-14)``)."""
    if "{" not in text and "'" not in text:     # most cards: one regular-expression pass
        if "=" in text or "(" in text or ")" in text or "," in text:
            return _PLAIN_TOKEN.findall(text)
        return text.split()         # words alone ("R1 a b 1k"): the same tokens, 4x faster
    tokens, pos = [], 0
    while pos < len(text):
        char = text[pos]
        if char == "{":
            end, depth = pos, 0
            while end < len(text):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                if depth == 0:
                    break
                end += 1
            if depth:
                raise SpiceError("unbalanced braces '{'", where)
            tokens.append(text[pos:end + 1])
            pos = end + 1
        elif char == "'":
            end = text.find("'", pos + 1)
            if end < 0:
                raise SpiceError("unbalanced quote \"'\"", where)
            tokens.append(text[pos:end + 1])
            pos = end + 1
        else:
            match = _TOKEN.match(text, pos)
            word = match.group(0)
            if not word.isspace() and word not in "(),":
                tokens.append(word)
            pos = match.end()
    return tokens
