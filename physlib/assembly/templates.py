"""Per-class equation templates: each component class's equations, derived once.

:func:`template_for` gives the :class:`ClassTemplate` of a component's class and structure:
from memory within a process, else from the disk cache (:mod:`physlib.assembly.template_cache`)
written by an earlier process, else derived with SymPy (:mod:`physlib.assembly.derivation`,
imported only then) and stored there for the next process.
"""
from __future__ import annotations

from ..core.component import Component
from . import template_cache
from .class_template import ClassTemplate, EquationError

__all__ = ["ClassTemplate", "EquationError", "template_for"]

_cache: dict[tuple, ClassTemplate] = {}


def template_for(component: Component, followers: frozenset[str] = frozenset(),
                 unread: frozenset[str] = frozenset()) -> ClassTemplate:
    """The template of ``component``'s class (and structure), derived on first use.

    Position states the instance does not integrate (:mod:`physlib.assembly.positions`) lose
    their ``der(x) = ...`` equation and start value: ``followers`` are determined from outside,
    ``unread`` ones are not variables at all."""
    structure = component.structure_key()
    key = (type(component), structure, followers, unread)
    template = _cache.get(key)
    if template is None:
        disk_key = template_cache.cache_key(type(component), structure, followers, unread)
        template = template_cache.load(disk_key)
        if template is None:
            template = _derive(component, followers, unread)
            template_cache.store(disk_key, template)
        _cache[key] = template
    return template


def _derive(comp: Component, followers: frozenset[str] = frozenset(),
            unread: frozenset[str] = frozenset()) -> ClassTemplate:
    from .derivation import derive       # SymPy: only when a class's equations must be derived
    return derive(comp, followers, unread)
