"""A module imported on first use: ``sp = lazy_module("sympy")`` makes ``sp.Eq`` import SymPy
the first time it is read. The component libraries declare their equations with SymPy, but
only deriving them needs it, and a class whose derivation is cached on disk never does."""
import importlib


class LazyModule:
    """Stands for the module ``name``; each attribute is looked up in it on first access."""

    def __init__(self, name: str):
        self.__dict__["_module_name"] = name

    def __getattr__(self, attr: str):
        value = getattr(importlib.import_module(self._module_name), attr)
        self.__dict__[attr] = value         # later reads are plain attribute reads
        return value

    def __repr__(self) -> str:
        return f"<module {self._module_name!r}, imported on first use>"


def lazy_module(name: str) -> LazyModule:
    """The module ``name``, imported when one of its attributes is first read."""
    return LazyModule(name)
