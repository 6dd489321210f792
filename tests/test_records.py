"""physlib.core.records.record: a dataclass's behaviour without compiling methods per class."""
import dataclasses
from functools import cached_property

import pytest

from physlib.core.records import record


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


def test_a_record_compiles_no_method(monkeypatch):
    # what @dataclass costs at start-up is compiling each generated method with exec
    made = []
    monkeypatch.setattr(dataclasses, "_create_fn", lambda *a, **k: made.append(a) or (lambda *x: None))
    make_classes()
    assert made == []


def test_a_record_is_made_and_read_as_a_dataclass():
    Frozen, Mutable = make_classes()
    r = Frozen(1, c="z")
    assert (r.a, r.b, r.c, r.hidden) == (1, [], "z", 0)
    assert Frozen(2).b is not Frozen(2).b                      # a factory per instance
    assert repr(r) == "make_classes.<locals>.Frozen(a=1, b=[], c='z')"      # repr=False left out
    assert dataclasses.is_dataclass(r)
    assert [f.name for f in dataclasses.fields(r)] == ["a", "b", "c", "hidden"]
    assert dataclasses.replace(r, a=5) == Frozen(5, [], "z")
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
