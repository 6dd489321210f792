"""physlib.core.records.record: a dataclass's behaviour without compiling methods per class."""
import builtins
import dataclasses
from functools import cached_property

import pytest

from physlib.core.records import fields, is_record, record, replace


def make_classes():
    @record(frozen=True)
    class Frozen:
        """A frozen record."""
        a: int
        b: list = dataclasses.field(default_factory=list)
        c: str = "c"
        hidden: int = dataclasses.field(default=0, repr=False)

        @cached_property
        def total(self) -> int:
            return self.a + len(self.b)

    @record
    class Mutable:
        """A mutable record."""
        x: float
        y: float = 1.0

    return Frozen, Mutable


def test_a_record_compiles_no_method_and_reads_no_annotation(monkeypatch):
    # what @dataclass costs at start-up is compiling each generated method with exec, after
    # matching each field's annotation against its regular expressions
    made = []
    monkeypatch.setattr(dataclasses, "dataclass", lambda *a, **k: made.append(a))
    monkeypatch.setattr(builtins, "exec", lambda *a, **k: made.append(a))
    make_classes()
    assert made == []


def test_a_record_is_made_and_read_as_a_dataclass():
    Frozen, Mutable = make_classes()
    r = Frozen(1, c="z")
    assert (r.a, r.b, r.c, r.hidden) == (1, [], "z", 0)
    assert Frozen(2).b is not Frozen(2).b                      # a factory per instance
    assert repr(r) == "make_classes.<locals>.Frozen(a=1, b=[], c='z')"      # repr=False left out
    assert is_record(r) and is_record(Frozen) and not is_record(object())
    assert fields(r) == fields(Frozen) == ("a", "b", "c", "hidden")
    assert replace(r, a=5) == Frozen(5, [], "z")
    with pytest.raises(TypeError, match="no field 'd'"):
        replace(r, d=1)
    assert r.total == 1                                        # cached_property on a frozen one
    assert Mutable(x=2.0) == Mutable(2.0, 1.0) and Mutable(2.0) != Mutable(3.0)


def test_a_record_keeps_a_dataclass_s_rules():
    Frozen, Mutable = make_classes()
    r = Frozen(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.a = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.a
    assert hash(Frozen(1, (), "c")) == hash(Frozen(1, (), "c"))    # frozen: hashed by value
    with pytest.raises(TypeError):
        hash(Mutable(1.0))                                     # compared by value: unhashable
    m = Mutable(1.0)
    m.x = 4.0
    assert m == Mutable(4.0)
    assert Frozen(1).__eq__(Mutable(1.0)) is NotImplemented
    with pytest.raises(TypeError, match="missing required argument: 'a'"):
        Frozen()
    with pytest.raises(TypeError, match="unexpected keyword argument 'd'"):
        Frozen(1, d=2)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        Frozen(1, a=2)
    with pytest.raises(TypeError, match="takes 4 positional arguments but 5 were given"):
        Frozen(1, [], "c", 0, 9)


def test_a_record_keeps_the_methods_its_class_defines():
    # as a dataclass does: a record made once per event gives itself a faster __init__, and
    # an event's __repr__ is its own
    @record(frozen=True)
    class Own:
        a: int
        b: int = 2

        def __init__(self, a, b=2):
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b * 10)

        def __repr__(self):
            return "own"

    assert (Own(1).b, repr(Own(1))) == (20, "own")
    assert Own(1) == Own(1) and hash(Own(1)) == hash(Own(1))
