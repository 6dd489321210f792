"""A module imported on first use: ``sp = lazy_module("sympy")`` makes ``sp.Eq`` import SymPy
the first time it is read. The component libraries declare their equations with SymPy, but
only deriving them needs it, and a class whose derivation is cached on disk never does.

The catalog's domain packages hand on their modules' classes the same way
(:func:`lazy_exports`): ``from physlib.components.electrical import Resistor`` imports the
module of the basic elements, not the semiconductor devices beside it."""
import importlib
import sys


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


def lazy_exports(package: str, modules: dict[str, tuple[str, ...]]):
    """``(__getattr__, __dir__, __all__)`` for a package that hands on the names of its modules
    (``{".basic": ("Resistor", ...)}``, each module relative to ``package`` or absolute) and
    imports a module only when one of its names is first read (PEP 562), so that building a
    model loads the modules of the classes it uses and not the whole catalog::

        __getattr__, __dir__, __all__ = lazy_exports(__name__, {".basic": ("Resistor",)})
    """
    home = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str):
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)      # later reads are plain attribute reads
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(home))

    return __getattr__, __dir__, list(home)
