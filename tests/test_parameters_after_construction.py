"""Parameters assigned after construction (``r.R = 5e3``) are validated exactly like constructor
values and take effect at the next ``Model.compile()``; a compiled model keeps the values it
was compiled with. Structural parameters, variables and ports cannot be assigned.

Closed form: a 1 V step into R–C from v0 gives v(t) = 1 + (v0 − 1)·exp(−t/(R·C)).
Tolerance: 1e-7 absolute on volts of order 1 (simulated with rtol 1e-10, atol 1e-12).
"""
import math

import numpy as np
import pytest

from physlib import InitializationError, MissingPortError, Model, ParameterError, PortConnectionError
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.rotational import IdealGear
from physlib.components.signals import Pulse

T_END = 1e-3
TOL = 1e-7


def rc(R=1e3, C=1e-6, **c_kw):
    m = Model("rc")
    src = m.add(VoltageSource("src", V=1.0))
    r = m.add(Resistor("R1", R=R))
    c = m.add(Capacitor("C1", C=C, **c_kw))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m, src, r, c


def v_end(sim, **options):
    res = sim.simulate(T_END, rtol=1e-10, atol=1e-12, t_eval=[0.0, T_END], **options)
    return res["C1.v"][-1]


def exact(R, C, v0=0.0, V=1.0, t=T_END):
    return V + (v0 - V) * math.exp(-t / (R * C))


def test_assigned_resistance_takes_effect_at_the_next_compile():
    m, _, r, _ = rc(R=1e3)
    before = m.compile()
    r.R = 5e3
    assert r.R == 5e3 and r.parameters["R"] == 5e3
    after = m.compile()
    assert after.parameters["R1.R"] == 5e3
    assert v_end(after) == pytest.approx(exact(5e3, 1e-6), abs=TOL)
    # The model compiled before the assignment is not changed retroactively.
    assert before.parameters["R1.R"] == 1e3
    assert v_end(before) == pytest.approx(exact(1e3, 1e-6), abs=TOL)


def test_params_override_still_applies_on_top_of_an_assigned_value():
    m, _, r, c = rc()
    c.C = 2e-6
    sim = m.compile()
    assert v_end(sim) == pytest.approx(exact(1e3, 2e-6), abs=TOL)
    assert v_end(sim, params={"R1.R": 250.0}) == pytest.approx(exact(250.0, 2e-6), abs=TOL)


@pytest.mark.parametrize("value", [np.float32(2000.0), np.int64(2000), np.float64(2e3), 2000])
def test_numpy_scalars_are_accepted_and_stored_as_float(value):
    m, _, r, _ = rc()
    r.R = value
    assert type(r.R) is float and r.R == 2000.0
    assert v_end(m.compile()) == pytest.approx(exact(2e3, 1e-6), abs=TOL)


@pytest.mark.parametrize("value, says", [
    (-1.0, "must be > 0"), (0.0, "must be > 0"), (math.nan, "finite"), (math.inf, "finite"),
    ("5e3", "real number"), (True, "real number"), ([5e3], "real number"), (None, "real number"),
    (1 + 2j, "real number"),
])
def test_invalid_assignment_raises_naming_component_and_parameter_and_keeps_the_old_value(value, says):
    m, _, r, _ = rc(R=1e3)
    with pytest.raises(ParameterError, match=says) as err:
        r.R = value
    assert "parameter R of R1" in str(err.value)
    assert r.R == 1e3
    assert v_end(m.compile()) == pytest.approx(exact(1e3, 1e-6), abs=TOL)


def test_assigned_start_value_counts_as_given():
    m, _, _, c = rc()
    c.v0 = 0.25
    res = m.compile().simulate(T_END, rtol=1e-10, atol=1e-12, t_eval=[0.0, T_END])
    assert res["C1.v"][0] == pytest.approx(0.25, abs=1e-12)
    assert res["C1.v"][-1] == pytest.approx(exact(1e3, 1e-6, v0=0.25), abs=TOL)
    # Given explicitly after construction, a start value the constraints cannot honour is
    # reported just as when it is given to the constructor.
    m2 = Model("across")
    src = m2.add(VoltageSource("src", V=1.0))
    c2 = m2.add(Capacitor("C1", C=1e-6))
    gnd = m2.add(Ground("gnd"))
    m2.connect(src.p, c2.p)
    m2.connect(src.n, c2.n, gnd.p)
    assert m2.compile().simulate(T_END)["C1.v"][0] == pytest.approx(1.0, rel=1e-12)
    c2.v0 = 0.0
    with pytest.raises(InitializationError, match=r"C1\.v0"):
        m2.compile().simulate(T_END)


def test_assigned_signal_input_takes_effect_at_the_next_compile():
    m, src, _, _ = rc()
    src.V = np.float32(2.0)
    assert v_end(m.compile()) == pytest.approx(exact(1e3, 1e-6, V=2.0), abs=TOL)
    with pytest.raises(ParameterError, match="input V of src"):
        src.V = "2 V"


def test_structural_parameter_cannot_be_assigned_and_says_to_build_a_new_component():
    gear = IdealGear("g1", ratio=2.0)
    with pytest.raises(ParameterError, match="use_support of IdealGear 'g1' is structural") as err:
        gear.use_support = True
    assert "new component" in str(err.value) and "IdealGear('g1', use_support=True" in str(err.value)
    assert gear.use_support is False
    # The missing conditional port is an AttributeError too.
    assert not hasattr(gear, "support") and getattr(gear, "support", None) is None
    with pytest.raises(MissingPortError, match="g1.*no port .support. with use_support=False.*use_support=True"):
        gear.support


def test_variables_and_ports_cannot_be_assigned():
    _, _, r, c = rc()
    with pytest.raises(ParameterError, match=r"C1\.v is a variable of Capacitor 'C1'"):
        c.v = 1.0
    assert c.v == "C1.v"
    with pytest.raises(PortConnectionError, match="p is a port of Resistor 'R1'.*Model.connect"):
        r.p = 1.0


def test_checks_across_parameters_run_at_compile_so_related_values_change_one_at_a_time():
    def pulse_model():
        m = Model("pm")
        p = Pulse("P1", width=1e-3, period=2e-3)
        src = m.add(VoltageSource("src", V=p))
        r = m.add(Resistor("R1", R=1.0))
        gnd = m.add(Ground("gnd"))
        m.connect(src.p, r.p)
        m.connect(src.n, r.n, gnd.p)
        return m, p

    m, p = pulse_model()
    p.period = 0.5e-3           # width > period for a moment: allowed ...
    with pytest.raises(ParameterError, match="P1.*width"):
        m.compile()             # ... but not at compile
    p.width = 0.25e-3
    res = m.compile().simulate(1e-3, solver="rk4", dt=1e-5, t_eval=[0.1e-3, 0.3e-3])
    assert res["R1.i"] == pytest.approx([1.0, 0.0], abs=1e-12)


def test_other_instances_of_the_class_keep_their_values():
    m, _, r, _ = rc()
    other = Resistor("R2", R=1e3)
    r.R = 3e3
    assert other.R == 1e3
    assert v_end(m.compile()) == pytest.approx(exact(3e3, 1e-6), abs=TOL)


def test_params_that_break_a_check_across_parameters_are_refused_as_at_construction():
    """params= used to bypass Component.validate: a width beyond the period (or set so through
    a model parameter) ran as a pulse that never falls. The run must refuse it by path, and
    the compiled model keep its own values: a valid run after it gives the exact pulse."""
    m = Model("pm")
    period = m.parameter("period", 2e-3, unit="s")
    src = m.add(VoltageSource("src", V=Pulse(width=1e-3, period=period)))
    r = m.add(Resistor("R1", R=1.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n, gnd.p)
    sim = m.compile()
    with pytest.raises(ParameterError, match=r"params for Pulse src\.V: .*width \(0\.003\) exceeds period"):
        sim.simulate(1e-3, params={"src.V.width": 3e-3})
    with pytest.raises(ParameterError, match=r"params for Pulse src\.V: .*exceeds period \(0\.0005\)"):
        sim.simulate(1e-3, params={"period": 0.5e-3})
    res = sim.simulate(2e-3, solver="rk4", dt=1e-5, t_eval=[0.5e-3, 1.5e-3])
    assert res["R1.i"] == pytest.approx([1.0, 0.0], abs=1e-12)
