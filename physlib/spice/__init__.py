"""Read SPICE netlists (ngspice-39 dialect) into physlib models and run their analyses.

>>> deck = physlib.spice.read("filter.cir")        # doctest: +SKIP
>>> deck.op()["v(out)"], deck.ac("dec", 10, 1, 1e6)["v(out)"]   # doctest: +SKIP

:func:`read` takes a path or the deck's text and returns a :class:`SpiceDeck` (``.model``,
``.analyses``, ``.params``, ``.title``, ``.warnings`` and the analyses ``op``, ``dc``,
``tran``, ``ac``, ``run``). Anything physlib cannot read is a :class:`SpiceError` naming the
file, line and text; likely mistakes ngspice accepts are :class:`SpiceWarning`.
:func:`write` turns a physlib model (or a deck) into an ngspice netlist;
``python -m physlib.spice deck.cir`` runs a deck's cards from the command line.
"""
from __future__ import annotations

import os
import re

from ..constants import CONSTANT_SETS
from ..core.bulk import bulk_build
from .errors import SpiceError, SpiceWarning
from .results import read_csv

__all__ = ["read", "write", "read_csv", "SpiceDeck", "SpiceError", "SpiceWarning"]


def read(source, *, name: str | None = None, constants: str = "ngspice"):
    """Read a deck: ``source`` is a path (str or os.PathLike) or the deck's text (a string
    with a line break). ``name`` is the model's name (default: from the file name, else
    ``"deck"``). ``.include``/``.lib`` paths are relative to the deck's folder (the current
    folder for text). ``constants``: the Boltzmann constant and elementary charge of the
    deck's diodes, transistors and resistor noise, ``"ngspice"`` (ngspice-39's CODATA 2014
    values, so that the deck computes as ngspice does) or ``"SI"`` (SI 2019's, as physlib's
    components by default). Returns a :class:`SpiceDeck`."""
    from .deck import SpiceDeck
    from .lexer import read_cards
    from .netlist import Netlist
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        path = os.fspath(source)
        try:
            with open(path) as handle:
                text = handle.read()
        except OSError as err:
            raise SpiceError(f"cannot read the deck {path}: {err.strerror}") from None
        file, folder = path, os.path.dirname(os.path.abspath(path))
        default = os.path.splitext(os.path.basename(path))[0]
    elif isinstance(source, str):
        text, file, folder, default = source, "<text>", None, "deck"
    else:
        raise SpiceError(f"read() takes a path or the deck's text, not {type(source).__name__}")
    if not isinstance(constants, str) or constants not in CONSTANT_SETS:
        raise SpiceError(f"constants={constants!r}: give one of {', '.join(map(repr, CONSTANT_SETS))}")
    model_name = name or re.sub(r"\W", "_", default)
    if not model_name.isidentifier():
        model_name = "deck_" + model_name
    # A large deck makes many small objects (cards, tokens, components): a third of the time of
    # a 10,000-element deck went to the cyclic garbage collector traversing them.
    with bulk_build():
        warnings: list = []
        title, cards = read_cards(text, file, folder, warnings)
        netlist = Netlist(cards, warnings)
        deck = SpiceDeck(getattr(netlist, "title", title), netlist, model_name, warnings, constants)
    return deck


def __getattr__(attr):
    if attr == "SpiceDeck":
        from .deck import SpiceDeck
        return SpiceDeck
    if attr == "write":                   # physlib.spice.write(model, path=None, ...)
        from .writer import write
        return write
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
