"""Sphinx hooks for physlib's docstrings, which are reStructuredText written to read well in
``help()`` too:

* ``|x|`` is a magnitude there (``|v|``, ``|s_rel − s_rel0|^n``), never a reST substitution:
  bars outside inline literals are escaped before the docstring is parsed. Every other markup
  error still fails the build.
* Module data and class attributes without a docstring of their own (``MIN_CHUNK_SECONDS``, a
  dict; ``t``, a SymPy symbol) would show their type's docstring: they show none.
* A cross-reference by a short name (``:class:`ParameterError```, ``:func:`uniform```) resolves
  to the one documented object of that name, as a reader of the module where it is written
  would expect; ambiguous or unknown names stay unresolved (and fail a nitpicky build).
"""
from __future__ import annotations

import re

from docutils import nodes

LITERAL = re.compile(r"(``.+?``)")


def escape_magnitude_bars(app, what, name, obj, options, lines):
    for index, line in enumerate(lines):
        if "|" not in line:
            continue
        parts = LITERAL.split(line)
        lines[index] = "".join(part if part.startswith("``") else part.replace("|", r"\|")
                               for part in parts)


def drop_docstrings_of_types(app, what, name, obj, options, lines):
    if what in ("data", "attribute") and lines and not isinstance(obj, type):
        own = getattr(type(obj), "__doc__", None)
        if isinstance(own, str) and lines[0].strip() and lines[0].strip() in own:
            lines.clear()


def resolve_short_names(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if not target:
        return None
    domain = env.get_domain("py")
    suffix = "." + target.lstrip(".~")
    matches = {name: entry for name, entry in domain.objects.items()
               if name.endswith(suffix) and not entry.aliased}
    if len(matches) != 1:
        return None
    (name, entry), = matches.items()
    return domain.resolve_xref(env, node.get("refdoc"), app.builder, node.get("reftype"), name,
                               node, contnode)


def setup(app):
    app.connect("autodoc-process-docstring", drop_docstrings_of_types)
    app.connect("autodoc-process-docstring", escape_magnitude_bars)
    app.connect("missing-reference", resolve_short_names)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
