"""The dot cards: ``.param``, ``.func``, ``.model``, ``.global``, ``.options``, ``.temp``,
``.ic``, ``.nodeset``, the analyses (kept as tokens; :mod:`physlib.spice.analyses` reads
them), ``.control`` blocks (kept for :mod:`physlib.spice.control`), output requests (``.print`` & co., accepted with a warning: every vector is returned)
and everything else (a SpiceError naming what is supported)."""
from __future__ import annotations

import re

from .errors import Location, SpiceError
from .lexer import first_word, split

__all__ = ["sort_card", "OPTIONS", "parse_assignments", "SUPPORTED"]

ANALYSES = (".op", ".dc", ".tran", ".ac", ".noise", ".pz", ".tf", ".sens", ".four", ".fourier",
            ".meas", ".measure")
UNSUPPORTED_CARDS = (".disto", ".sp", ".pss", ".hb", ".if", ".else",
                     ".endif", ".csparam")
OUTPUT_CARDS = (".print", ".plot", ".probe", ".save", ".width")
SUPPORTED = ("elements R C L K V I D E F G H B S W Q M X; cards .param .func .subckt/.ends "
             ".model (D, SW, CSW, NPN, PNP, NMOS, PMOS levels 1-3) "
             ".global .include .lib .options .temp .ic .nodeset .op .dc .tran .ac .noise .pz .tf .sens "
             ".four .meas "
             ".end")


_ASSIGN = re.compile(r"([A-Za-z_][\w.]*)\s*=\s*")


def parse_assignments(text: str, where: Location) -> list[tuple[str, str, Location]]:
    """``a=1 b = {2*a} c='a+1'`` (``.param`` lines, subcircuit defaults and overrides) as
    (lower-case name, expression text) pairs; an expression runs up to the next ``name =``
    outside braces and quotes, so unbraced expressions with blanks (``.param c = a + 1``) work."""
    starts, depth, quote, pos = [], 0, False, 0
    while pos < len(text):
        char = text[pos]
        if char == "'":
            quote = not quote
        elif char in "{}" and not quote:
            depth += 1 if char == "{" else -1
        elif not quote and depth == 0 and (pos == 0 or text[pos - 1] in " \t,"):
            match = _ASSIGN.match(text, pos)
            if match and not text[match.end():match.end() + 1] == "=":
                starts.append(match)
                pos = match.end()
                continue
        pos += 1
    if not starts or text[:starts[0].start()].strip(" ,"):
        raise SpiceError("expected name=value assignments", where)
    out = []
    for k, match in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        value = text[match.end():end].strip(" ,")
        if not value:
            raise SpiceError(f"no value for {match.group(1)}", where)
        out.append((match.group(1).lower(), value, where))
    return out



OPTIONS = {"reltol": 1e-3, "abstol": 1e-12, "vntol": 1e-6, "gmin": 1e-12, "temp": 27.0,
           "tnom": 27.0, "nfreqs": 10, "fourgridsize": 200}   # the last two: .four's (fourier.py)
MODEL_TYPES = {"d": "diode", "sw": "voltage switch", "csw": "current switch", "npn": "NPN BJT",
               "pnp": "PNP BJT", "nmos": "N-channel MOSFET", "pmos": "P-channel MOSFET",
               "njf": "N-channel JFET", "pjf": "P-channel JFET"}
_FUNC = re.compile(r"\.func\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*=?\s*(.+)$", re.I | re.S)
_NODE_VALUE = re.compile(r"v\s*\(\s*([^)\s]+)\s*\)\s*=\s*(\{[^}]*\}|'[^']*'|\S+)", re.I)


def sort_card(netlist, card, key: str, body):
    """Record one dot card in ``netlist`` (``body``: where .param/.func/.model go)."""
    text = card.text
    if key == ".param":
        body.params += parse_assignments(text[len(".param"):], card.where)
    elif key == ".func":
        match = _FUNC.match(text)
        if not match:
            raise SpiceError("expected .func name(arg, ...) {expression}", card.where)
        args = [a.strip().lower() for a in match.group(2).split(",") if a.strip()]
        body.functions.append((match.group(1).lower(), args, match.group(3), card.where))
    elif key == ".model":
        _model(card, body)
    elif key == ".global":
        netlist.globals_ += [w.lower() for w in text.split()[1:]]
    elif key in ANALYSES:
        kind = "four" if key == ".fourier" else key[1:]
        netlist.analyses.append((kind, split(text, card.where)[1:], card))
    elif key in (".options", ".option", ".opt", ".opts"):
        _options(netlist, card)
    elif key == ".temp":
        words = split(text, card.where)
        if len(words) < 2:
            raise SpiceError(".temp takes temperatures [°C]: .temp 27 or .temp 0 27 85", card.where)
        # ngspice-39: a .temp card sets the temperature whatever .options temp= says, before
        # or after it (_options leaves it); of two .temp cards the later one counts
        netlist.options["temp"] = (words[1], card)
        netlist.temperatures = words[1:] if len(words) > 2 else []
    elif key in (".ic", ".nodeset"):
        found = _NODE_VALUE.findall(text[len(key):])
        if not found:
            raise SpiceError(f"expected {key} v(node)=value ...", card.where)
        target = netlist.ic if key == ".ic" else netlist.nodeset
        target.update({node.lower(): (value, card) for node, value in found})
    elif key == ".control":
        netlist.control += card.cards
    elif key in OUTPUT_CARDS:
        netlist.warnings.append((card.where, f"{key} is ignored: the results hold every node "
                                 "voltage and source current"))
    elif key == ".title":
        netlist.title = text[len(".title"):].strip()
    elif key in UNSUPPORTED_CARDS:
        raise SpiceError(f"{key} is not supported yet; supported: {SUPPORTED}", card.where)
    else:
        raise SpiceError(f"unknown card {key}; supported: {SUPPORTED}", card.where)


def _model(card, body):
    tokens = split(card.text, card.where)
    if len(tokens) < 3:
        raise SpiceError(".model needs a name and a type, e.g. .model dmod D(IS=1e-14)", card.where)
    name, kind = tokens[1].lower(), tokens[2].lower()
    if kind not in MODEL_TYPES:
        raise SpiceError(f".model type {tokens[2]} is not supported; supported: D (diode), "
                         "SW and CSW (switches), NPN and PNP (bipolar transistors), NMOS and PMOS (level-1, level-2 and level-3 MOSFETs), NJF and PJF (JFETs)",
                         card.where)
    if name in body.models:
        raise SpiceError(f".model {name} is defined twice", card.where)
    body.models[name] = (kind, tokens[3:], card)


def _options(netlist, card):
    tokens = split(card.text, card.where)[1:]
    pos = 0
    while pos < len(tokens):
        name = tokens[pos].lower()
        value = None
        if pos + 2 < len(tokens) + 1 and pos + 1 < len(tokens) and tokens[pos + 1] == "=":
            if pos + 2 >= len(tokens):
                raise SpiceError(f"option {name} has no value", card.where)
            value = tokens[pos + 2]
            pos += 3
        else:
            pos += 1
        if name in OPTIONS:
            if value is None:
                raise SpiceError(f"option {name} needs a value ({name}=...)", card.where)
            if name == "temp" and _from_temp_card(netlist):
                continue                       # a .temp card's temperature wins, as ngspice-39's
            netlist.options[name] = (value, card)
        else:
            netlist.warnings.append((card.where, f"option {name} is ignored by physlib (it uses "
                                     f"only {', '.join(OPTIONS)})"))


def _from_temp_card(netlist) -> bool:
    """Whether the deck's temperature so far comes from a ``.temp`` card."""
    given = netlist.options.get("temp")
    return given is not None and first_word(given[1].text) == ".temp"
