"""Components made with plain float values take a short path through the constructor
(Component._plain_plan): the same component as the general path makes, and every value the
general path refuses still refused by it."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from physlib import ParameterError
from physlib.core import Component, Parameter
from physlib.components.electrical import Capacitor, Diode, Inductor, Resistor
from physlib.components.rotational import IdealGear, Inertia

CLASSES = [Resistor, Capacitor, Inductor, Inertia, Diode, IdealGear]
# structural values to draw: valid ones, refused ones, and ones of other types
STRUCTURAL = {"constants": ["SI", "ngspice", "si", 1, None], "use_support": [True, False, 1, 0, "yes", None]}


def state(component) -> tuple:
    """What a constructor leaves on a component: its values (in order, with their types), the given names, the
    inputs and expressions it was given."""
    return ([(k, type(v), v) for k, v in component._values.items()], component._given,
            dict(component._input_values),
            dict(component.parameter_expressions))


def general(cls, name, **values):
    """The component the general path makes: the same values given as NumPy floats, which
    the short path leaves to it (it takes Python floats only) and it stores as floats."""
    import numpy as np
    return cls(name, **{k: np.float64(v) if type(v) is float else v for k, v in values.items()})


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@settings(max_examples=60, deadline=None)
@given(cls=st.sampled_from(CLASSES), data=st.data())
def test_the_short_path_makes_the_component_the_general_path_makes(cls, data):
    numeric = [n for n, p in cls._parameters.items() if not p.structural]
    keys = data.draw(st.lists(st.sampled_from(numeric), unique=True, min_size=1, max_size=len(numeric)))
    values = {k: data.draw(finite, label=k) for k in keys}
    structural = [n for n in cls._structural if data.draw(st.booleans(), label=f"give {n}")]
    if structural:      # first (the short path's order) or after the numbers
        given = {n: data.draw(st.sampled_from(STRUCTURAL[n]), label=n) for n in structural}
        values = {**given, **values} if data.draw(st.booleans(), label="first") else {**values, **given}
    try:
        expected = state(general(cls, "X", **values))
    except ParameterError as general_error:
        with pytest.raises(ParameterError) as short_error:
            cls("X", **values)
        assert str(short_error.value) == str(general_error)
        return
    assert state(cls("X", **values)) == expected
    assert state(cls("Y", **values)) == expected          # the plan, as the second one uses it


def test_a_structural_value_is_taken_unchecked_only_once_validated_unchanged():
    for _ in range(2):      # refused each time: a refused value is never remembered
        with pytest.raises(ParameterError, match="constants"):
            Resistor("r", constants="bogus", R=1.0)
    first = Resistor("a", constants="ngspice", R=1.0)
    assert first._values == {"constants": "ngspice", "R": 1.0}
    assert Resistor("b", constants="ngspice", R=2.0)._values == {"constants": "ngspice", "R": 2.0}
    with pytest.raises(ParameterError, match="constants"):
        Resistor("c", constants="SI!", R=1.0)
    assert Resistor("d", constants="SI", R=1.0).constants == "SI"


@pytest.mark.parametrize("cls, name, value", [
    (Resistor, "R", 0.0), (Resistor, "R", -1.0), (Resistor, "R", math.nan), (Resistor, "R", math.inf),
    (Capacitor, "C", 5e-324 * 0.0), (Capacitor, "v0", -math.inf), (Capacitor, "v0", math.nan)])
def test_values_the_parameter_refuses_are_refused_on_the_short_path_too(cls, name, value):
    required = {"C": 1e-6} if name == "v0" else {}
    cls("ok", **required, **{name: 1.0})                   # the plan for these keywords made
    with pytest.raises(ParameterError, match=name):
        cls("X", **required, **{name: value})


def test_a_missing_required_parameter_and_a_structural_one_after_the_numbers_take_the_general_path():
    Resistor("ok", R=1.0)
    with pytest.raises(ParameterError, match="needs parameter R"):
        Resistor("R1", constants="SI")                     # R is required
    with pytest.raises(ParameterError, match="needs parameter R"):
        Resistor("R2")
    gear = IdealGear("g", ratio=2.0, use_support=True)     # structural: the general path
    assert gear._values["use_support"] is True and gear._values["ratio"] == 2.0
    assert list(IdealGear("h", ratio=2.0)._values.items()) == [("ratio", 2.0), ("use_support", False)]


def test_each_component_owns_its_values():
    a, b = Resistor("a", R=1.0), Resistor("b", R=1.0)
    a.R = 2.0
    assert b.R == 1.0 and a._values is not b._values


class _Upper(Parameter):
    """A structural parameter that stores its value in upper case (validate converts)."""

    def validate(self, value, component):
        if not isinstance(value, str):
            raise self.invalid(component, "give a string")
        return value.upper()


class _Converting(Component):
    mode = _Upper("A", structural=True)
    x = Parameter(1.0)


def test_a_structural_value_its_parameter_converts_is_converted_every_time():
    for name in ("a", "b", "c"):        # the second and third would take the short path
        assert _Converting(name, mode="b", x=2.0)._values == {"mode": "B", "x": 2.0}


@settings(max_examples=60, deadline=None)
@given(cls=st.sampled_from(CLASSES), data=st.data())
def test_many_makes_the_components_one_call_each_makes(cls, data):
    """Component.many: the components ``cls(name, **common, key=value)`` makes one by one, or
    the error the first of them that is refused raises."""
    numeric = [n for n, p in cls._parameters.items() if not p.structural]
    key = data.draw(st.sampled_from(numeric), label="key")
    values = data.draw(st.lists(st.one_of(finite, st.sampled_from([1.0, 0.0, -1.0, 1, math.inf, math.nan])),
                                min_size=1, max_size=5), label="values")
    names = data.draw(st.lists(st.sampled_from(["a", "b1", "c_2", "1x", "é", "x y"]), min_size=len(values),
                               max_size=len(values)), label="names")
    common = {n: data.draw(st.sampled_from(STRUCTURAL[n]), label=n)
              for n in cls._structural if data.draw(st.booleans(), label=f"give {n}")}
    try:
        expected = [(c.name, state(c)) for c in (cls(n, **common, **{key: v}) for n, v in zip(names, values))]
    except ParameterError as one_error:
        with pytest.raises(ParameterError) as many_error:
            cls.many(names, key, values, **common)
        assert str(many_error.value) == str(one_error)
        return
    made = cls.many(names, key, values, **common)
    assert [(c.name, state(c)) for c in made] == expected
    assert len({id(c._values) for c in made}) == len(made)      # each its own values
