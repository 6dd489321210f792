"""Record classes: what :func:`dataclasses.dataclass` gives a class, without its start-up cost.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (when
frozen) ``__setattr__``/``__delattr__`` as source text and compiles it with ``exec``, after
reading every field's annotation through its regular expressions: 0.4–1 ms a class on a 2-core
VM, several milliseconds of every process that compiles and simulates a model. :func:`record`
reads the fields from the class body itself (annotations in order; a default, or a
:func:`dataclasses.field` with ``default``, ``default_factory`` or ``repr=False``) and gives the
class shared methods that read them, with a dataclass's behaviour: keyword or positional
arguments in field order, defaults and default factories, ``repr`` of the fields marked so,
equality of instances of the same class field by field, hashing of frozen records and
:class:`dataclasses.FrozenInstanceError` on assignment to a frozen one. A method the class
body defines itself (a ``__repr__``, a faster ``__init__`` for a record made once per event)
is kept, as a dataclass keeps it. :func:`fields`, :func:`replace` and :func:`is_record`
stand for their :mod:`dataclasses` namesakes.
"""
from __future__ import annotations

import dataclasses

__all__ = ["record", "fields", "replace", "is_record"]


def record(cls=None, /, *, frozen: bool = False):
    """``@record`` or ``@record(frozen=True)``: a class with a dataclass's methods (equality,
    repr, hash when frozen), shared functions rather than compiled per class."""
    def make(cls):
        declared = [f for f in getattr(cls, "_record_init", ())     # a record base's fields first
                    if f[0] not in cls.__dict__.get("__annotations__", {})]
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = cls.__dict__.get(name, dataclasses.MISSING)
            if isinstance(value, dataclasses.Field):
                declared.append((name, value.default, value.default_factory, value.repr))
                if value.default is dataclasses.MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, value.default)
            else:
                declared.append((name, value, dataclasses.MISSING, True))
        cls._record_init = tuple(declared)
        cls._record_fields = tuple(name for name, *_ in declared)
        cls._record_repr = tuple(name for name, _, _, shown in declared if shown)
        methods = {"__init__": _init, "__repr__": _repr, "__eq__": _eq}
        if frozen:
            methods.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
        for name, method in methods.items():
            if name not in cls.__dict__:
                setattr(cls, name, method)
        if cls.__dict__.get("__hash__") is None:    # none of its own (None: Python's, beside an __eq__)
            cls.__hash__ = _hash if frozen else None    # mutable and compared by value: unhashable
        return cls
    return make if cls is None else make(cls)


def fields(obj) -> tuple[str, ...]:
    """The names of the fields of a record (class or instance), in their order."""
    return obj._record_fields


def is_record(obj) -> bool:
    """Whether ``obj`` is a record class or an instance of one."""
    return hasattr(obj, "_record_fields")


def replace(obj, **changes):
    """A new record of ``obj``'s class with ``obj``'s fields, ``changes`` in place of some."""
    unknown = sorted(set(changes).difference(obj._record_fields))
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {unknown[0]!r}")
    return type(obj)(**{**{name: getattr(obj, name) for name in obj._record_fields}, **changes})


def _init(self, *args, **kwargs):
    declared = type(self)._record_init
    if len(args) > len(declared):
        raise TypeError(f"{type(self).__name__}() takes {len(declared)} positional arguments but "
                        f"{len(args)} were given")
    store = object.__setattr__
    for (name, *_), value in zip(declared, args):
        store(self, name, value)
    for name, default, factory, _ in declared[len(args):]:
        if name in kwargs:
            value = kwargs.pop(name)
        elif default is not dataclasses.MISSING:
            value = default
        elif factory is not dataclasses.MISSING:
            value = factory()
        else:
            raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}")
        store(self, name, value)
    if kwargs:
        name = next(iter(kwargs))
        given = any(field[0] == name for field in declared[:len(args)])
        raise TypeError(f"{type(self).__name__}() got " + (f"multiple values for argument {name!r}" if given
                        else f"an unexpected keyword argument {name!r}"))


def _repr(self) -> str:
    return f"{type(self).__qualname__}(" + ", ".join(
        f"{name}={getattr(self, name)!r}" for name in self._record_repr) + ")"


def _values(self) -> tuple:
    return tuple(getattr(self, name) for name in self._record_fields)


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self) -> int:
    return hash(_values(self))


def _frozen_setattr(self, name, value):
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
