"""The user-facing classes: :class:`Model` and :class:`CompiledModel`.

:class:`Model` builds a system and compiles it to a :class:`CompiledModel`, which holds the
compiled equations and has the analyses as methods (:mod:`physlib.analyses`). That class, and
with it the analyses, is imported when first needed (a model is compiled, or the name is
asked for), so that importing physlib loads only what building a model takes.
"""
from __future__ import annotations

from .assembly import model

__all__ = ["Model", "CompiledModel"]


class Model(model.Model):
    __doc__ = model.Model.__doc__

    @property
    def compiled_class(self) -> type:
        """What :meth:`compile` returns: the analysing :class:`CompiledModel`."""
        from .analyses import CompiledModel
        return CompiledModel


def __getattr__(name):
    if name == "CompiledModel":
        from .analyses import CompiledModel
        return CompiledModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
