"""The behaviour of hybrid components at events as CasADi functions (for an FMU's C code) gives
what the simulator's Python path gives: physlib.core.logic on floats and on symbols, every
catalog transition and update through transition_function / update_function against
mode_requests + set_modes / HybridInstance.update on compiled models, next_time_event against
time_events, and the ExportError of behaviour that cannot be traced."""
import math

import casadi as cs
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings, strategies as st

from physlib import Model
from physlib.analysis.common.hybrid_components import hybrid_instances, mode_requests, set_modes
from physlib.analysis.common.hybrid_functions import (next_time_function, transition_function,
                                                      update_function)
from physlib.components.discrete import DiscretePID, Discrete, Sampled, UnitDelay, ZeroOrderHold
from physlib.components.electrical import (CurrentControlledSwitch, Ground, IdealDiode, Resistor,
                                           Switch, VoltageControlledSwitch, VoltageSource)
from physlib.components.hydraulic import CheckValve, FixedPressure, LaminarResistance, PressureSource
from physlib.components.rotational import Brake, Clutch, Inertia, OneWayClutch, Torque
from physlib.components.signals import (PWM, DampedSine, Exponentials, Pulse, Ramp, Relay, Sawtooth,
                                        SignalPWM, Sine, Step, Table, Trapezoid, Triangle, Waveform)
from physlib.components.translational import Fixed, Force, HardStop, Mass
from physlib.core import Input, Mode, Output, logic
from physlib.core.component import Component
from physlib.core.errors import ExportError

# --- physlib.core.logic ---------------------------------------------------------------------------

NUMBERS = st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0]) | st.floats(-10, 10)


def symbolic(helper, *args):
    """helper evaluated through a CasADi function of SX symbols for args."""
    xs = [cs.SX.sym(f"a{k}") for k in range(len(args))]
    return float(cs.Function("f", xs, [cs.SX(helper(*xs))])(*args))


@given(NUMBERS, NUMBERS, NUMBERS)
def test_logic_helpers_give_python_results_on_numbers_and_the_same_on_symbols(a, b, c):
    cases = [(lambda x, y, z: logic.where(x > y, y, z), b if a > b else c),
             (lambda x, y, z: logic.all_of(x > 0, y > 0, z > 0), a > 0 and b > 0 and c > 0),
             (lambda x, y, z: logic.any_of(x > 0, y > 0, z > 0), a > 0 or b > 0 or c > 0),
             (lambda x, y, z: logic.negate(x > y), not a > b),
             (lambda x, y, z: logic.minimum(x, y, z), min(a, b, c)),
             (lambda x, y, z: logic.maximum(x, y, z), max(a, b, c)),
             (lambda x, y, z: logic.absolute(x), abs(a)),
             (lambda x, y, z: logic.floor(x), math.floor(a))]
    for helper, python in cases:
        plain = helper(a, b, c)
        assert plain == python and type(plain) is type(python)    # no CasADi on the Python path
        assert symbolic(helper, a, b, c) == python


def test_logic_helpers_mix_plain_and_symbolic_values():
    x = cs.SX.sym("x")
    assert logic.where(True, x, 1.0) is x                  # a plain condition picks a branch
    assert logic.all_of(False, x > 0) is False and logic.any_of(True, x > 0) is True
    assert logic.is_symbolic(logic.all_of(True, x > 0)) and not logic.is_symbolic(2.0)


def test_the_logic_module_explains_why_and_every_helper_says_what_it_replaces():
    doc = logic.__doc__
    for word in ("simulator", "C", "if_else", "truth value", "float()"):
        assert word in doc
    for name in ("where", "all_of", "any_of", "negate", "minimum", "maximum", "absolute", "floor",
                 "next_instant", "is_symbolic"):
        assert getattr(logic, name).__doc__, name


# --- transitions and updates: compiled catalog models ---------------------------------------------

def drivetrain():
    m = Model("drivetrain")
    j1, j2, j3 = (m.add(Inertia(f"J{k}", J=1.0)) for k in (1, 2, 3))
    drive = m.add(Torque("drive", tau=Sine(amplitude=5.0, f=1.0)))
    clutch = m.add(Clutch("clutch", fn_max=10.0, f_normalized=Step(t0=0.5)))
    freewheel = m.add(OneWayClutch("freewheel"))
    brake = m.add(Brake("brake", fn_max=5.0, f_normalized=0.5))
    m.connect(drive.flange, j1.flange_a)
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    m.connect(j2.flange_b, freewheel.flange_a)
    m.connect(freewheel.flange_b, j3.flange_a)
    m.connect(j3.flange_b, brake.flange_a)
    return m


def switches():
    m = Model("switches")
    src, gnd = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=50.0))), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    parts = [IdealDiode("D", Vknee=0.7), Switch("S", control=Pulse(width=0.01, period=0.02)),
             VoltageControlledSwitch("VS", VT=1.0, VH=0.5),
             CurrentControlledSwitch("CS", ic=Sine(amplitude=1.0, f=30.0), IT=0.1, IH=0.05)]
    for k, part in enumerate(parts):
        r = m.add(Resistor(f"R{k}", R=10.0))
        m.add(part)
        m.connect(src.p, r.p)
        m.connect(r.n, part.p)
        m.connect(part.n, gnd.p)
    m.connect(parts[2].pc, src.p)
    m.connect(parts[2].nc, gnd.p)
    return m


def contacts_and_valves():
    m = Model("contacts")
    floor, mass = m.add(Fixed("floor")), m.add(Mass("M", m=2.0))
    stop, push = m.add(HardStop("stop", e=0.5)), m.add(Force("push", f=Sine(amplitude=30.0)))
    m.connect(floor.flange, stop.flange_a)
    m.connect(stop.flange_b, mass.flange_a)
    m.connect(mass.flange_b, push.flange)
    tank = m.add(FixedPressure("tank", p=0.0))
    pump = m.add(PressureSource("pump", P=Sine(amplitude=2e5, f=5.0)))
    valve, r = m.add(CheckValve("valve", p_crack=1e4)), m.add(LaminarResistance("R", R=1e9))
    m.connect(tank.port_a, pump.port_a, r.port_b)
    m.connect(pump.port_b, valve.port_a)
    m.connect(valve.port_b, r.port_a)
    return m


def signal_blocks():
    m = Model("blocks")
    m.add(Relay("relay", u=Sine(amplitude=2.0), u_on=0.5, u_off=-0.5))
    m.add(SignalPWM("pwm", duty=Sine(amplitude=0.5, offset=0.5), f=10.0, t0=0.05))
    m.add(ZeroOrderHold("zoh", u=Sine(amplitude=2.0, f=3.0), Ts=0.1))
    m.add(UnitDelay("delay", u=Ramp(height=2.0), Ts=0.25, t0=0.1, y0=-1.0))
    m.add(DiscretePID("pid", u=Sine(amplitude=3.0, f=2.0), Ts=0.05, kp=0.8, ki=1.5, kd=0.05,
                      y_min=-1.0, y_max=1.2))
    return m


MODELS = {"drivetrain": drivetrain, "switches": switches, "contacts": contacts_and_valves,
          "blocks": signal_blocks}


@pytest.fixture(scope="module", params=list(MODELS))
def compiled(request):
    sim = MODELS[request.param]().compile()
    return sim, transition_function(sim), update_function(sim)


def test_every_catalog_class_with_modes_or_discrete_variables_is_covered():
    catalog = {Clutch, Brake, OneWayClutch, IdealDiode, Switch, VoltageControlledSwitch,
               CurrentControlledSwitch, HardStop, CheckValve, Relay, SignalPWM, ZeroOrderHold,
               UnitDelay, DiscretePID}
    used = {type(c) for build in MODELS.values() for c in build().components.values()}
    assert catalog <= used


EDGES = [0.0, 0.5, 1.0, -1.0, 0.7, 1e4, 0.1, 2.0, -0.5, 1e-12, -1e-12]   # thresholds of the models


def draw_point(data, sim):
    """Random (values, p, pre, fired): variables and parameters from EDGES (so a value often
    sits exactly on a threshold) or anywhere, modes and pre(mode) any of their codes."""
    value = st.sampled_from(EDGES) | st.floats(-3, 3)
    n_out, n_p = sim.system.outputs.size1_out(0), sim.system.dae.size1_in(2)
    values = np.array(data.draw(st.lists(value, min_size=n_out, max_size=n_out)))
    p, pre = (np.array(data.draw(st.lists(value, min_size=n_p, max_size=n_p))) for _ in "ab")
    for inst in hybrid_instances(sim):
        for name, slot in inst.mode_slot.items():
            codes = list(getattr(type(inst.component), name).codes.values())
            p[slot], pre[slot] = data.draw(st.sampled_from(codes)), data.draw(st.sampled_from(codes))
    fired = np.array(data.draw(st.lists(st.booleans(), min_size=len(sim.system.guard_owner),
                                        max_size=len(sim.system.guard_owner))))
    return values, p, pre, fired


# 100 points a model (four models): the time is the Python event iteration's, 0.1 s a point
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_transition_function_gives_the_modes_of_the_python_event_iteration(compiled, data):
    sim, transitions, _ = compiled
    values, p, pre, fired = draw_point(data, sim)
    expected = p.copy()
    set_modes(mode_requests(hybrid_instances(sim), values, p, pre, fired), expected, 0.0, "state")
    got = np.array(transitions(values, p, pre, fired.astype(float))).ravel()
    np.testing.assert_array_equal(got, expected)


@pytest.fixture(scope="module")
def sampled():
    sim = signal_blocks().compile()
    return sim, update_function(sim)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_update_function_gives_the_discrete_values_of_the_python_sample_instants(sampled, data):
    sim, updates = sampled
    values, p, pre, _ = draw_point(data, sim)
    p0 = sim.parameter_vector(None)
    instances = hybrid_instances(sim)
    instants = sorted({te for inst in instances if inst.discrete_slot
                       for te in inst.component.time_events(parameters(inst, p0), 0.0, 1.0)})
    t = data.draw(st.sampled_from(instants) | st.floats(0.0, 1.0)
                  | st.sampled_from(instants).map(lambda te: te + 1e-9))
    # Within DUE_TOLERANCE of an instant the function counts t as at it; the simulator stops
    # at the instants themselves.
    assume(all(t == te or abs(t - te) > 1e-11 for te in instants))
    for inst in instances:        # the blocks' timing parameters as compiled; the rest random
        for name, slot in inst.param_slots.items():
            p[slot] = p0[slot] if name in ("Ts", "t0") else p[slot]
            pre[slot] = p[slot]   # parameters do not change at an event
    expected = p.copy()
    for inst in instances:
        if inst.discrete_slot and t in inst.component.time_events(parameters(inst, p), t - 1, t + 1):
            inst.update(values, pre, pre, t)          # the first round: pre(...) taken before t
            for name, value in inst.update(values, p, pre, t).items():
                expected[inst.discrete_slot[name]] = value
    got = np.array(updates(values, p, pre, t)).ravel()
    np.testing.assert_array_equal(got, expected)


def test_the_update_function_of_a_model_without_discrete_variables_changes_nothing(compiled):
    sim, _, updates = compiled
    p = np.random.default_rng(0).normal(size=sim.system.dae.size1_in(2))
    values = np.ones(sim.system.outputs.size1_out(0))
    if not any(inst.discrete_slot for inst in hybrid_instances(sim)):
        np.testing.assert_array_equal(np.array(updates(values, p, p, 0.0)).ravel(), p)


def parameters(inst, p):
    return {name: float(p[slot]) for name, slot in inst.param_slots.items()}


# --- next_time_event against time_events ----------------------------------------------------------

TIMES = st.floats(-5.0, 5.0)
PERIODS = st.floats(1e-3, 10.0)
FRACTIONS = st.floats(0.01, 0.99)


@st.composite
def waveforms(draw):
    """A waveform or sampled block of each class that declares time events, random parameters."""
    t0, period = draw(TIMES), draw(PERIODS)
    kinds = {
        "step": lambda: Step(t0=t0),
        "ramp": lambda: Ramp(t0=t0, duration=period),
        "sine": lambda: Sine(t0=t0, f=1 / period),
        "damped": lambda: DampedSine(t0=t0, f=1 / period),
        "exp": lambda: Exponentials(t_rise=t0, t_fall=t0 + draw(PERIODS), tau_rise=1.0, tau_fall=1.0),
        "pulse": lambda: Pulse(t0=t0, period=period, width=period * draw(FRACTIONS | st.just(1.0))),
        "pwm": lambda: PWM(t0=t0, f=1 / period, duty=draw(FRACTIONS | st.sampled_from([0.0, 1.0]))),
        "sawtooth": lambda: Sawtooth(t0=t0, period=period),
        "triangle": lambda: Triangle(t0=t0, period=period),
        "trapezoid": lambda: Trapezoid(t0=t0, period=period, rising=period * draw(FRACTIONS) / 2,
                                       width=period * draw(FRACTIONS), falling=period * draw(FRACTIONS) / 2,
                                       pulses=draw(st.sampled_from([0.0, 1.0, 2.5, 4.0]))),
        "table": lambda: table(draw),
        "signal_pwm": lambda: SignalPWM(f=1 / period, t0=t0),
        "sampled": lambda: ZeroOrderHold(Ts=period, t0=t0),
    }
    return kinds[draw(st.sampled_from(sorted(kinds)))]()


def table(draw):
    times = np.cumsum(draw(st.lists(st.floats(0.01, 2.0), min_size=2, max_size=5))) + draw(TIMES)
    points = [(float(tk), 0.0) for tk in times]
    repeat = draw(st.sampled_from([None] + [tk for tk, _ in points[:-1]]))
    return Table(points=points, repeat=repeat)


def next_after(component, values, t):
    """The next event from time_events: the first later than t by more than 1e-12 of the
    magnitudes involved (None where one lies between that and rounding of t: ambiguous)."""
    t0 = values.get("t0", values.get("t_rise", 0.0))
    later = []
    # The interval holds the next event: periods are at most 10 s, the first is at t0.
    for te in component.time_events(values, t - 1.0, max(t, t0) + 11.0):
        gap, scale = te - t, abs(t) + abs(te) + abs(t0)
        if gap > 1e-12 * scale:
            later.append(te)
        elif gap > 1e-15 * scale:
            return None
    return min(later, default=math.inf)


def traced_next(component, values, t):
    """next_time_event compiled from SX symbols, evaluated at the same numbers."""
    names = sorted(values)
    symbols = {name: cs.SX.sym(name) for name in names}
    ts = cs.SX.sym("t")
    f = cs.Function("next", [ts, *symbols.values()], [cs.SX(component.next_time_event(symbols, ts))])
    return float(f(t, *(values[n] for n in names)))


@settings(max_examples=400, deadline=None)     # each traces and builds a CasADi function
@given(waveforms(), st.data())
def test_next_time_event_is_the_first_time_event_after_t_also_at_an_event(component, data):
    values = {k: v for k, v in component.parameters.items() if isinstance(v, float)}
    events = component.time_events(values, -20.0, 20.0)
    at_event = st.sampled_from(events) if events else st.nothing()
    t = data.draw(st.floats(-10.0, 10.0) | at_event | at_event.map(lambda te: te * (1 + 2**-52)))
    expected = next_after(component, values, t)
    assume(expected is not None)
    got = component.next_time_event(values, t)
    assert type(got) is float
    assert got == expected or abs(got - expected) <= 1e-15 * (abs(t) + abs(got) + 10)
    # CasADi may round differently: it folds k·(1/f) into k/f.
    assert traced_next(component, values, t) == pytest.approx(got, rel=1e-15, abs=1e-15)


def test_next_time_event_steps_past_an_instant_reached_by_other_arithmetic():
    zoh = ZeroOrderHold(Ts=0.1)
    values = zoh.parameters
    assert 3 * 0.1 != 0.3 and zoh.time_events(values, 0.0, 1.0)[3] == 0.3
    for t in (0.3, 3 * 0.1, 0.29999999999999993):
        assert zoh.next_time_event(values, t) == pytest.approx(0.4, rel=1e-15)
    assert zoh.next_time_event(values, -1.0) == 0.0
    assert Step(t0=1.0).next_time_event({"t0": 1.0}, 1.0) == math.inf


def test_the_next_time_function_is_the_models_first_time_event_after_t():
    sim = signal_blocks().compile()
    p = sim.parameter_vector({"pwm.t0": 0.03})
    next_time = next_time_function(sim)
    events = sim.time_events(p, -1.0, 2.0)
    for t in [0.0, *events[:40], 0.123]:
        later = [te for te in events if te > t * (1 + 1e-12) + 1e-15]
        assert float(next_time(p, t)) == pytest.approx(later[0], rel=1e-14, abs=1e-15)
    rc = rc_model().compile()
    assert float(next_time_function(rc)(rc.parameter_vector(None), 1.0)) == math.inf


def rc_model():
    m = Model("rc")
    src, r, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Resistor("R", R=1.0)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, src.n, gnd.p)
    return m


# --- what cannot be traced ----------------------------------------------------------------------

class PythonRelay(Component):
    """A user's relay written with Python's if on values: simulates, cannot be exported."""

    u = Input(description="input")
    y = Output(description="output")
    on = Mode({"off": 0, "on": 1}, start="off")

    def equations(self):
        return [sp.Eq(self.y, sp.Piecewise((1, sp.Eq(self.on, 1)), (0, True)))]

    def guards(self):
        return [self.u]

    def transition(self, v, fired):
        return {"on": 1 if v["u"] > 0 else 0}


class FloatRelay(PythonRelay):
    """float() of a value: CasADi answers NaN for a symbol, so this would compile as "never on"."""

    def transition(self, v, fired):
        return {"on": logic.where(float(v["u"]) > 0, 1, 0)}


class Blinker(Waveform):
    """Declares time events but no next_time_event."""

    def value(self):
        return sp.Integer(0)

    def time_events(self, values, t_start, t_stop):
        return [1.0]


class PythonCounter(Sampled):
    y = Output(description="count")
    count = Discrete()

    def equations(self):
        return [sp.Eq(self.y, self.count)]

    def update(self, v, t):
        return {"count": min(v["pre(count)"] + 1, 10)}


def test_untraceable_behaviour_is_an_export_error_naming_class_path_and_method():
    m = Model("user")
    m.add(PythonRelay("relay", u=Sine()))
    m.add(PythonCounter("counter", Ts=0.1))
    m.add(Blinker("blink"))
    sim = m.compile()
    assert sim.simulate(0.3).t[-1] == 0.3              # the simulator runs them as they are
    with pytest.raises(ExportError, match=r"PythonRelay 'relay': PythonRelay.transition\(\) cannot "
                                          r"be compiled.*physlib.core.logic"):
        transition_function(sim)
    with pytest.raises(ExportError, match=r"PythonCounter 'counter': PythonCounter.update\(\).*where"):
        update_function(sim)
    with pytest.raises(ExportError, match=r"Blinker 'blink' declares time events.*next_time_event"):
        next_time_function(sim)


def test_float_of_a_value_is_an_export_error_not_a_silent_nan():
    m = Model("user")
    m.add(FloatRelay("relay", u=Sine()))
    sim = m.compile()
    with pytest.raises(ExportError, match=r"FloatRelay.transition\(\).*float\(\) of a CasADi symbol"):
        transition_function(sim)
