"""Subcircuit instances: ``Xname nodes... subname [params:] a=1 b={2*r}``.

Each instance is a physlib subsystem named like the X element; its parameters are the
definition's defaults, replaced by the instance's values (evaluated where the X line is),
then the definition's own ``.param`` lines, then the deck's parameters (the definition's
lexical scope). Nodes of the definition's port list and ``.global`` nodes are connected to
the caller's nodes; any other node is local and printed ``x1.node`` as ngspice does.
"""
from __future__ import annotations

import re

from .errors import SpiceError
from .expressions import Scope, evaluate, parse
from .cards import parse_assignments

__all__ = ["instantiate", "find_subckt"]

GROUNDS = ("0", "gnd")


def find_subckt(scope, name: str, where):
    """(Subckt, the scope it is defined in) for ``name`` seen from ``scope``."""
    while scope is not None:
        body = getattr(scope, "body", None)
        if body is not None and name in body.subckts:
            return body.subckts[name], scope
        scope = scope.parent
    raise SpiceError(f"unknown subcircuit {name!r} (no .subckt {name} before .end)", where)


def _split(card):
    text = card.text
    marker = re.search(r"\sparams:", text, re.I) or re.search(r"\s[A-Za-z_][\w.]*\s*=", text)
    if marker is None:
        return text.split(), ""
    skip = marker.end() if marker.group(0).strip().lower() == "params:" else marker.start()
    return text[:marker.start()].split(), text[skip:]


def instantiate(b, card, tokens, body, scope, prefix, parents):
    """(child Model, [(caller's node, exposed port name)]) for one X card."""
    words, overrides = _split(card)
    if len(words) < 2:
        raise SpiceError("X needs nodes and a subcircuit name", card.where)
    name = words[0].lower()
    if not (name.isascii() and name.isidentifier()):
        raise SpiceError(f"instance name {words[0]!r}: physlib needs letters, digits and '_' "
                         "only", card.where)
    sub, home = find_subckt(scope, words[-1].lower(), card.where)
    if sub.name in parents:
        chain = " -> ".join(parents + [sub.name])
        raise SpiceError(f"subcircuit recursion: {chain}", card.where)
    nodes = [w.lower() for w in words[1:-1]]
    if len(nodes) != len(sub.ports):
        raise SpiceError(f"subcircuit {sub.name} has {len(sub.ports)} ports "
                         f"({' '.join(sub.ports)}), the instance gives {len(nodes)}", card.where)
    child = Scope(parent=home, label=prefix + name)
    child.body = sub.body
    b.scopes.append(child)
    for key, text, where in sub.defaults:
        child.define(key, parse(text, where), where)
    for key, text, where in (parse_assignments(overrides, card.where) if overrides.strip() else []):
        if key not in child.trees:
            raise SpiceError(f"subcircuit {sub.name} has no parameter {key} (it has "
                             f"{', '.join(child.trees) or 'none'})", card.where)
        tree = parse(text, where)
        child.define(key, ("thunk", lambda tree=tree, where=where: evaluate(tree, scope, where)), where)
    sub.body.fill(child)
    outer = {port: _outer(b, node, prefix, scope) for port, node in zip(sub.ports, nodes)
             if port not in GROUNDS}
    outer.update({g: g for g in b.netlist.globals_})
    model, exposed = b.level(sub.body, child, f"{prefix}{name}.", name, outer, parents + [sub.name])
    pairs = []
    for port, node in zip(sub.ports, nodes):
        if port in GROUNDS:
            continue
        if port not in exposed:
            raise SpiceError(f"port {port} of subcircuit {sub.name} is connected to nothing "
                             "inside it", sub.card.where)
        pairs.append((node, exposed[port]))
    pairs += [(g, exposed[g]) for g in b.netlist.globals_ if g in exposed and g not in sub.ports]
    return model, pairs


def _outer(b, node, prefix, scope):
    """The node name ngspice prints for the caller's ``node``."""
    if node in GROUNDS:
        return "0"
    if node in b.netlist.globals_:
        return node
    return b.port_names.get((prefix, node), prefix + node)
