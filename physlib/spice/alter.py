"""``alter`` and ``altermod`` of ngspice's ``.control`` scripts on a :class:`SpiceDeck`.

``alter`` changes one element value without compiling again: the value's parameter path
(``r1.R``, ``c1.C``, ``l1.L``, a V or I source's DC value ``v1.V``) is given to the compiled
model with the run's parameters (a new R, C or L value is the card's: its ``m=``, ``tc1=``, …
still apply, as in ngspice-39). ``altermod`` changes ``.model`` parameters: the deck is built
again from its cards with the new values (and compiled again when it runs).
"""
from __future__ import annotations

import copy
import re
import warnings

from .errors import SpiceError, SpiceWarning

__all__ = ["altered_path", "altered_model", "element_factor"]

# the parameter ngspice's alter changes for each element letter, by its names there
VALUE_NAMES = {"r": ("resistance", "r"), "c": ("capacitance", "c"), "l": ("inductance", "l"),
               "v": ("dc",), "i": ("dc",)}
PHYSLIB_NAMES = {"r": "R", "c": "C", "l": "L"}
_DEVICE = re.compile(r"^@([^\[\s]+)\[([^\]]+)\]\s*=?\s*(.+)$")


def _target(rest: str, card):
    """(name, parameter or None, value text) of ``name [param] [=] value`` or
    ``@name[param] = value``."""
    rest = rest.strip()
    match = _DEVICE.match(rest)
    if match:
        return match.group(1).lower(), match.group(2).lower(), match.group(3)
    words = rest.replace("=", " = ").split()
    parameter = None
    if len(words) > 2 and words[1][0].isalpha():
        parameter = words.pop(1).lower()
    value = words[1:]
    while value and value[0] == "=":
        value.pop(0)
    if not value:
        raise SpiceError("expected alter name [parameter] = value", card.where)
    return words[0].lower(), parameter, " ".join(value)


def altered_path(deck, rest: str, card, number):
    """(parameter path, value) of an ``alter`` line's arguments ``rest``; ``number(words)``
    evaluates the value."""
    name, parameter, text = _target(rest, card)
    letter = name.rsplit(".", 1)[-1][:1]
    if name not in deck.elements or letter not in VALUE_NAMES:
        raise SpiceError(f"alter {name}: physlib alters R, C and L values and the DC value of "
                         f"V and I sources (elements: {', '.join(sorted(deck.elements))})",
                         card.where)
    if parameter is not None and parameter not in VALUE_NAMES[letter]:
        raise SpiceError(f"alter {name} {parameter}: physlib alters only its "
                         f"{VALUE_NAMES[letter][0]}", card.where)
    if letter in "vi":
        source = deck.sources[name]
        if source["waveform"]:
            raise SpiceError(f"alter {name}: a source with a {source['waveform']} waveform "
                             "cannot be altered here (its DC value and the waveform's "
                             "follow each other); use a .param and alterparam", card.where)
        path = source["input"]
        return path, number(text.split())
    path = f"{name}.{PHYSLIB_NAMES[letter]}"
    return path, number(text.split()) * element_factor(deck, path)


def element_factor(deck, path: str) -> float:
    """What an R, C or L card's options (m, tc1, tc2, temp, dtemp) multiply its value by, at
    the deck's temperature: a new value given to ``alter`` or swept by ``.dc`` is the card's
    value, as ngspice-39 takes it."""
    factor = deck._builder.factors.get(path)
    return 1.0 if factor is None else factor()


def altered_model(deck, rest: str, card, number):
    """A new :class:`SpiceDeck` with ``.model`` parameters changed: ``altermod name param =
    value [param = value ...]`` or ``altermod @name[param] = value``."""
    rest = rest.strip()
    match = _DEVICE.match(rest)
    if match:
        name, changes = match.group(1).lower(), [(match.group(2), match.group(3))]
    else:
        name, _, assignments = rest.partition(" ")
        name = name.lower()
        changes = re.findall(r"([A-Za-z]\w*)\s*=?\s*([^\s=]+)", assignments)
    if not changes:
        raise SpiceError("expected altermod model param = value", card.where)
    values = [(p.lower(), repr(number([v]))) for p, v in changes]
    netlist = copy.copy(deck._netlist)
    netlist.top = _with_model(netlist.top, name, values)
    if netlist.top is None:
        raise SpiceError(f"altermod {name}: no .model {name} in the deck", card.where)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpiceWarning)     # warned when the deck was read
        return type(deck)(deck.title, netlist, deck.model.name, [], deck._ctx.constants)


def _with_model(body, name, values):
    """A copy of ``body`` with model ``name`` (here or in its subcircuits) changed, or None
    when it has none."""
    new = copy.copy(body)
    new.models, new.subckts, found = dict(body.models), dict(body.subckts), False
    if name in body.models:
        kind, tokens, card = body.models[name]
        tokens = list(tokens)
        for parameter, value in values:
            at = next((k for k in range(len(tokens) - 2) if tokens[k].lower() == parameter
                       and tokens[k + 1] == "="), None)
            if at is None:
                tokens += [parameter, "=", value]
            else:
                tokens[at + 2] = value
        new.models[name], found = (kind, tokens, card), True
    for key, sub in body.subckts.items():
        inner = _with_model(sub.body, name, values)
        if inner is not None:
            sub = copy.copy(sub)
            sub.body, new.subckts[key], found = inner, sub, True
    return new if found else None
