"""Pickling of compiled models with the standard ``pickle`` module: what travels and how
(see :meth:`physlib.assembly.compiled.CompiledModel.__getstate__`)."""
from __future__ import annotations

import io
import pickle

import casadi as cs

from ..core.records import fields as record_fields
from ..core.component import Component, Parameter, Port, Variable
from ..core.errors import PhyslibError


class _Pickler(pickle.Pickler):
    """Pickles CasADi functions as their ``serialize()`` strings, the records ``records``
    without their ``cache`` field (class templates without the CasADi functions cached on
    them, rebuilt from their expressions on first use; a DaeSystem without its integrators),
    and the declarations of component classes (``Parameter``, ``Variable``, ``Mode``,
    ``Port``, which may hold lambdas) as references to the class attribute that declares
    them, so they stay the class's own objects when loaded; everything else as ``pickle``
    does."""

    def __init__(self, file, records: tuple):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._records = records
        self._declarations = {}       # id(declaration) -> (declaring class, attribute name)
        classes = [Component]
        while classes:
            cls = classes.pop()
            classes.extend(cls.__subclasses__())
            for name, value in vars(cls).items():
                if isinstance(value, (Parameter, Variable, Port)):
                    self._declarations[id(value)] = (cls, name)

    def reducer_override(self, obj):
        if isinstance(obj, cs.Function):
            return cs.Function.deserialize, (obj.serialize(),)
        if isinstance(obj, self._records):
            fields = {name: getattr(obj, name) for name in record_fields(obj) if name != "cache"}
            return _restore_dataclass, (type(obj), fields)
        if isinstance(obj, (Parameter, Variable, Port)) and id(obj) in self._declarations:
            return _declaration, self._declarations[id(obj)]
        return NotImplemented


def dumps(obj, records: tuple) -> bytes:
    """``obj`` pickled, the record classes ``records`` without their caches."""
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, records).dump(obj)
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise PhyslibError(f"cannot pickle the compiled model: {err}. Component classes and the "
                           "values given to them must be importable by name (defined at the top "
                           "level of a module, not inside a function or a session)") from err
    return buffer.getvalue()


def _restore_dataclass(cls, fields: dict):
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    if "cache" in record_fields(cls):
        obj.cache = {}
    return obj


def _declaration(cls, name: str):
    return vars(cls)[name]
