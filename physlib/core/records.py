"""Record classes: :func:`dataclasses.dataclass` without its start-up cost.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (when
frozen) ``__setattr__``/``__delattr__`` as source text and compiles it with ``exec``: 1–1.5 ms a
class on a 2-core VM, 30–40 ms of every process that compiles and simulates a model (28 such
classes on that path), a tenth of a small script's whole run. :func:`record` lets
``dataclasses`` find the fields (so ``dataclasses.fields``, ``replace`` and ``is_dataclass``
work as before) and gives the class shared methods that read them instead, with the same
behaviour: keyword or positional arguments in field order, defaults and default factories,
``repr`` of the fields marked so, equality of instances of the same class field by field,
hashing of frozen records and :class:`dataclasses.FrozenInstanceError` on assignment to a
frozen one. Construction costs a few microseconds more, so records are for classes made a
handful of times per compile or run, not once per component or per step (``Unit`` and
``PositionState`` stay dataclasses), and for the layers above ``domains``, which imports
nothing of physlib (its ``Domain`` stays a dataclass).
"""
from __future__ import annotations

import dataclasses

__all__ = ["record"]


def record(cls=None, /, *, frozen: bool = False):
    """``@record`` or ``@record(frozen=True)``: a dataclass (equality, repr, hash when frozen)
    whose methods are shared functions, not compiled per class."""
    def make(cls):
        cls = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
        fields = dataclasses.fields(cls)
        cls._record_init = tuple(f for f in fields if f.init)
        cls._record_fields = tuple(f.name for f in fields)
        cls._record_repr = tuple(f.name for f in fields if f.repr)
        cls.__init__ = _init
        cls.__repr__ = _repr
        cls.__eq__ = _eq
        if frozen:
            cls.__setattr__, cls.__delattr__, cls.__hash__ = _frozen_setattr, _frozen_delattr, _hash
        else:
            cls.__hash__ = None         # mutable and compared by value: unhashable, as a dataclass
        return cls
    return make if cls is None else make(cls)


def _init(self, *args, **kwargs):
    fields = type(self)._record_init
    if len(args) > len(fields):
        raise TypeError(f"{type(self).__name__}() takes {len(fields)} positional arguments but "
                        f"{len(args)} were given")
    store = object.__setattr__
    for field, value in zip(fields, args):
        store(self, field.name, value)
    for field in fields[len(args):]:
        if field.name in kwargs:
            value = kwargs.pop(field.name)
        elif field.default is not dataclasses.MISSING:
            value = field.default
        elif field.default_factory is not dataclasses.MISSING:
            value = field.default_factory()
        else:
            raise TypeError(f"{type(self).__name__}() missing required argument: {field.name!r}")
        store(self, field.name, value)
    if kwargs:
        name = next(iter(kwargs))
        given = any(f.name == name for f in fields[:len(args)])
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
