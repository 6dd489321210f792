"""Components made with plain float values take a short path through the constructor
(Component._plain_plan): the same component as the general path makes, and every value the
general path refuses still refused by it."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from physlib import ParameterError
from physlib.components.electrical import Capacitor, Diode, Inductor, Resistor
from physlib.components.rotational import IdealGear, Inertia

CLASSES = [Resistor, Capacitor, Inductor, Inertia, Diode]


def state(component) -> tuple:
    """What a constructor leaves on a component: its values (in order), the given names, the
    inputs and expressions it was given."""
    return (list(component._values.items()), component._given, dict(component._input_values),
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
    try:
        expected = state(general(cls, "X", **values))
    except ParameterError as general_error:
        with pytest.raises(ParameterError) as short_error:
            cls("X", **values)
        assert str(short_error.value) == str(general_error)
        return
    assert state(cls("X", **values)) == expected
    assert state(cls("Y", **values)) == expected          # the plan, as the second one uses it


@pytest.mark.parametrize("cls, name, value", [
    (Resistor, "R", 0.0), (Resistor, "R", -1.0), (Resistor, "R", math.nan), (Resistor, "R", math.inf),
    (Capacitor, "C", 5e-324 * 0.0), (Capacitor, "v0", -math.inf), (Capacitor, "v0", math.nan)])
def test_values_the_parameter_refuses_are_refused_on_the_short_path_too(cls, name, value):
    required = {"C": 1e-6} if name == "v0" else {}
    cls("ok", **required, **{name: 1.0})                   # the plan for these keywords made
    with pytest.raises(ParameterError, match=name):
        cls("X", **required, **{name: value})


def test_a_missing_required_parameter_and_a_structural_one_take_the_general_path():
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
