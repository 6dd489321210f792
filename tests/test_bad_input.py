"""Every bad input across the API raises a PhyslibError subclass whose message names the
component, port, parameter or option involved -- never a foreign (CasADi, SymPy, NumPy,
Python) exception, never silent acceptance.

One table: (id, callable, expected exception class, substrings the message must contain).
"""
import functools
import io
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from physlib import (Component, DeclarationError, DomainMismatchError, DuplicateNameError,
                     MissingPortError, MissingReferenceError, Mode, Model, ModelError, Parameter,
                     ParameterError, PhyslibError, Port, PortConnectionError, StructuralError,
                     UnconnectedPortError, UnknownAttributeError, UnknownNameError, Variable, der)
from physlib.components import signals as sig
from physlib.components import translational as tr
from physlib.components.electrical import (Capacitor, Diode, Ground, Inductor, Resistor,
                                           VoltageSource)
from physlib.components.rotational import IdealGear, Inertia
from physlib.domains import electrical
from physlib.analysis.common.options import OptionError
from physlib import ExportError, Experiment, FitError, fit

HERE = Path(__file__).parent       # a folder: to_csv cannot write a file there


# --- models the cases use ----------------------------------------------------------------------

def rc(**r_kw):
    m = Model("rc")
    src = m.add(VoltageSource("src", V=1.0))
    r = m.add(Resistor("R1", R=1e3, **r_kw))
    c = m.add(Capacitor("C1", C=1e-6))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


@functools.cache
def sim():
    return rc().compile()


@functools.cache
def result():
    return sim().simulate(1e-3)


def experiment(**kw):
    """An RC charging curve measured at 11 times."""
    t = np.linspace(0.0, 1e-3, 11)
    return Experiment((t, {"C1.v": 1 - np.exp(-t / 1e-3)}), **kw)


def grouped(owners, ports, sizes):
    """``Model.connect_groups`` on resistors R0, R1, ... added for the classes in ``owners``."""
    m = Model("m")
    members = [m.add(kind(f"R{k}", R=1.0)) if kind else kind for k, kind in enumerate(owners)]
    m.connect_groups(members, ports, sizes)


def model_with(*members):
    m = Model("m")
    for member in members:
        m.add(member)
    return m


def custom(compile_it=True, **attrs):
    """A custom component class ``Osc`` with a variable x and the given declarations."""
    attrs = {"x": Variable(start=1.0), **attrs}
    cls = type("Osc", (Component,), attrs)
    if not compile_it:
        return cls
    return model_with(cls("o1")).compile()


def eqs(f):
    return {"equations": f}


def connect(make_ports):
    m = Model("m")
    m.connect(*make_ports(m))


def resistor_in(m, name="R1"):
    return m.add(Resistor(name, R=1.0))


def assign(obj, name, value):
    setattr(obj, name, value)


def compile_pulse_changed_after_construction():
    m = Model("pm")
    pulse = sig.Pulse("P1", width=1e-3, period=2e-3)
    src = m.add(VoltageSource("src", V=pulse))
    r = m.add(Resistor("R1", R=1.0))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n, gnd.p)
    pulse.period = 0.5e-3
    m.compile()


def signal_pair(link):
    m = Model("m")
    g1, g2 = m.add(sig.Gain("g1")), m.add(sig.Gain("g2"))
    link(m, g1, g2)
    m.compile()


def source_given_and_connected():
    m = Model("m")
    src = m.add(VoltageSource("src", V=1.0))
    step = m.add(sig.Step("st"))
    r, gnd = m.add(Resistor("R1", R=1.0)), m.add(Ground("gnd"))
    m.connect(step.y, src.V)
    m.connect(src.p, r.p)
    m.connect(src.n, r.n, gnd.p)
    m.compile()


def source_without_value():
    m = Model("m")
    src = m.add(VoltageSource("src"))
    r, gnd = m.add(Resistor("R1", R=1.0)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n, gnd.p)
    m.compile()


def no_ground():
    m = Model("m")
    src, r = m.add(VoltageSource("src", V=1.0)), m.add(Resistor("R1", R=1.0))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n)
    m.compile()


def dangling_resistor():
    m = rc()
    m.add(Resistor("R9", R=1.0))
    m.connect(m.R9.p, m.R1.p)
    m.compile()


def subsystem():
    inner = Model("inner")
    r = inner.add(Resistor("R1", R=1.0))
    inner.expose(r.p, "a")
    return inner, r


def inner_port_from_outside():
    inner, r = subsystem()
    outer = Model("outer")
    outer.add(inner)
    r2 = outer.add(Resistor("R2", R=1.0))
    outer.connect(r.n, r2.p)


S = sim


CASES = [
    # --- component construction: parameter values ------------------------------------------
    ("R negative", lambda: Resistor("R1", R=-1.0), ParameterError, ["parameter R of R1", "> 0"]),
    ("R zero", lambda: Resistor("R1", R=0.0), ParameterError, ["parameter R of R1", "> 0"]),
    ("R nan", lambda: Resistor("R1", R=math.nan), ParameterError, ["parameter R of R1", "finite"]),
    ("R inf", lambda: Resistor("R1", R=math.inf), ParameterError, ["parameter R of R1", "finite"]),
    ("R numeric string", lambda: Resistor("R1", R="1e3"), ParameterError,
     ["parameter R of R1", "real number", "'1e3'"]),
    ("R bool", lambda: Resistor("R1", R=True), ParameterError, ["parameter R of R1", "real number"]),
    ("R list", lambda: Resistor("R1", R=[1e3]), ParameterError, ["parameter R of R1", "real number"]),
    ("R None", lambda: Resistor("R1", R=None), ParameterError, ["parameter R of R1", "real number"]),
    ("R complex", lambda: Resistor("R1", R=1e3 + 1j), ParameterError, ["parameter R of R1", "real number"]),
    ("R array", lambda: Resistor("R1", R=np.array([1.0, 2.0])), ParameterError,
     ["parameter R of R1", "real number"]),
    ("R symbol", lambda: Resistor("R1", R=sp.Symbol("R")), ParameterError, ["parameter R of R1"]),
    ("R missing", lambda: Resistor("R1"), ParameterError, ["R1", "needs parameter R"]),
    ("C negative", lambda: Capacitor("C1", C=-1e-6), ParameterError, ["parameter C of C1"]),
    ("L string", lambda: Inductor("L1", L="1 mH"), ParameterError, ["parameter L of L1", "'1 mH'"]),
    ("mass zero", lambda: tr.Mass("M1", m=0.0), ParameterError, ["parameter m of M1"]),
    ("inertia bool", lambda: Inertia("J1", J=False), ParameterError, ["parameter J of J1"]),
    ("unknown keyword", lambda: Capacitor("C1", C=1e-6, V0=1.0), ParameterError,
     ["Capacitor 'C1'", "'V0'", "v0"]),
    ("output given as keyword", lambda: sig.Gain("g1", y=1.0), ParameterError, ["Gain 'g1'", "'y'"]),
    ("positional value", lambda: Resistor("R1", 1e3), ParameterError, ["Resistor 'R1'", "keyword", "R="]),
    ("diode positional value", lambda: Diode("D1", 1e-14), ParameterError, ["Diode 'D1'", "keyword"]),
    ("diode n and N", lambda: Diode("D1", n=1.0, N=1.0), ParameterError, ["D1", "n or N"]),
    ("step t0 string", lambda: sig.Step("st", t0="1"), ParameterError, ["parameter t0 of st"]),
    ("pulse wider than period", lambda: sig.Pulse("P1", width=2.0, period=1.0), ParameterError,
     ["P1", "width", "period"]),
    ("table times not increasing", lambda: sig.Table("T1", points=[(1, 1), (0, 2)]), ParameterError,
     ["T1", "increasing"]),
    ("three table points at one time", lambda: sig.Table("T1", points=[(0, 1), (0, 2), (0, 3)]),
     ParameterError, ["T1", "at most two at one time"]),
    ("state space shapes", lambda: sig.StateSpace("S1", A=[[1, 2]], B=[1], C=[1]), ParameterError,
     ["S1", "A"]),
    ("limiter bounds", lambda: sig.Limiter("lim", u_min=1.0, u_max=0.0), ParameterError,
     ["lim", "u_min", "u_max"]),
    # --- names -------------------------------------------------------------------------------
    ("name trailing newline", lambda: Resistor("R1\n", R=1.0), ParameterError, ["'R1\\n'", "not valid"]),
    ("name with dot", lambda: Resistor("a.b", R=1.0), ParameterError, ["'a.b'", "not valid"]),
    ("name a number", lambda: Resistor(5, R=1.0), ParameterError, ["Resistor name 5", "not valid"]),
    ("name empty", lambda: Resistor("", R=1.0), ParameterError, ["Resistor name ''"]),
    ("name leading digit", lambda: Resistor("1R", R=1.0), ParameterError, ["'1R'"]),
    ("model name with space", lambda: Model("my model"), ParameterError, ["Model name 'my model'"]),
    ("model name trailing newline", lambda: Model("m\n"), ParameterError, ["Model name 'm\\n'"]),
    # --- structural flags and signal inputs ---------------------------------------------------
    ("use_support string", lambda: IdealGear("g1", ratio=2.0, use_support="no"), ParameterError,
     ["parameter use_support of g1", "True or False", "'no'"]),
    ("use_support int", lambda: IdealGear("g1", ratio=2.0, use_support=1), ParameterError,
     ["parameter use_support of g1", "True or False"]),
    ("translational use_support string", lambda: tr.Force("F1", f=1.0, use_support="yes"), ParameterError,
     ["parameter use_support of F1"]),
    ("input value string", lambda: VoltageSource("src", V="1"), ParameterError, ["input V of src"]),
    ("input value list", lambda: VoltageSource("src", V=[1.0]), ParameterError, ["input V of src"]),
    ("input value nan", lambda: VoltageSource("src", V=math.nan), ParameterError, ["input V of src"]),
    ("input value a resistor", lambda: VoltageSource("src", V=Resistor("R1", R=1.0)), ParameterError,
     ["input V of src", "not a waveform"]),
    # --- assignment after construction -------------------------------------------------------
    ("assign negative", lambda: assign(Resistor("R1", R=1.0), "R", -1.0), ParameterError,
     ["parameter R of R1"]),
    ("assign string", lambda: assign(Resistor("R1", R=1.0), "R", "5e3"), ParameterError,
     ["parameter R of R1", "real number"]),
    ("assign structural", lambda: assign(IdealGear("g1", ratio=2.0), "use_support", True), ParameterError,
     ["use_support", "'g1'", "structural", "new component"]),
    ("assign variable", lambda: assign(Capacitor("C1", C=1e-6), "v", 1.0), ParameterError,
     ["C1.v", "variable"]),
    ("assign port", lambda: assign(Resistor("R1", R=1.0), "p", 1.0), PortConnectionError,
     ["Resistor 'R1'", "p", "Model.connect"]),
    ("assign input string", lambda: assign(VoltageSource("src", V=1.0), "V", "2"), ParameterError,
     ["input V of src"]),
    ("cross check at compile", compile_pulse_changed_after_construction, ParameterError, ["P1", "width"]),
    # --- ports and attributes ----------------------------------------------------------------
    ("missing conditional port", lambda: IdealGear("g1", ratio=2.0).support, MissingPortError,
     ["IdealGear 'g1'", "'support'", "use_support=True"]),
    ("unknown attribute", lambda: Resistor("R1", R=1.0).nope, UnknownAttributeError, ["Resistor 'R1'", "'nope'"]),
    ("unknown port variable", lambda: Resistor("R1", R=1.0).p.w, UnknownAttributeError, ["R1.p", "'w'"]),
    ("unknown var()", lambda: Resistor("R1", R=1.0).var("nope"), UnknownAttributeError, ["'R1'", "'nope'"]),
    # --- custom component declarations -------------------------------------------------------
    ("port typed by a string", lambda: custom(False, p=Port("electrical")), DeclarationError,
     ["port p of Osc", "'electrical'", "domain"]),
    ("port condition not structural", lambda: custom(False, k=Parameter(1.0), p=Port(electrical, condition="k")),
     DeclarationError, ["port p of Osc", "'k'", "structural"]),
    ("variable start string", lambda: custom(False, y=Variable(start="0")), DeclarationError,
     ["variable y of Osc", "'0'"]),
    ("mode start unknown", lambda: Mode({"stuck": 0, "free": 1}, start="slip"), DeclarationError,
     ["'slip'", "stuck"]),
    ("parameter default string", lambda: custom(False, k=Parameter("abc"))("o1"), ParameterError,
     ["parameter k of o1"]),
    ("equations returns a single Eq", lambda: custom(**eqs(lambda s: sp.Eq(der(s.x), -s.x))), DeclarationError,
     ["Osc 'o1'", "equations()", "single", "list"]),
    ("equations returns None", lambda: custom(**eqs(lambda s: None)), DeclarationError,
     ["Osc 'o1'", "equations()", "list"]),
    ("equation as string", lambda: custom(**eqs(lambda s: ["der(x) + x"])), DeclarationError,
     ["Osc 'o1'", "string"]),
    ("equation identically true", lambda: custom(**eqs(lambda s: [sp.Eq(s.x, s.x)])), DeclarationError,
     ["Osc 'o1'", "True"]),
    ("undeclared symbol", lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), sp.Symbol("y"))])), DeclarationError,
     ["Osc 'o1'", "y", "not a declared"]),
    ("math function on a symbol", lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), math.sin(s.x))])),
     DeclarationError, ["Osc 'o1'", "SymPy functions"]),
    ("if-test on a symbol", lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), 1 if s.x > 0 else -1)])),
     DeclarationError, ["Osc 'o1'", "Relational"]),
    ("unknown attribute in equations", lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), s.nope)])),
     UnknownAttributeError, ["Osc 'o1'", "'nope'"]),
    ("der of a parameter", lambda: custom(k=Parameter(1.0), **eqs(lambda s: [sp.Eq(der(s.k), s.x)])),
     DeclarationError, ["Osc 'o1'", "der(k)"]),
    ("der of a string", lambda: custom(**eqs(lambda s: [sp.Eq(der("x"), -s.x)])), DeclarationError,
     ["der('x')", "der(self.x)"]),
    ("initial returns a list", lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), -s.x)]), initial=lambda s: [1.0]),
     DeclarationError, ["Osc 'o1'", "initial()", "dict"]),
    ("initial of an unknown variable",
     lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), -s.x)]), initial=lambda s: {sp.Symbol("z"): 1.0}),
     DeclarationError, ["Osc 'o1'", "initial()", "z"]),
    # A start is set before any variable is solved: one read in it was silently 0 (x started at 0, not 5)
    ("initial reading a variable",
     lambda: custom(u=Variable(), **eqs(lambda s: [sp.Eq(der(s.x), s.u - s.x), sp.Eq(s.u, 5)]),
                    initial=lambda s: {s.x: s.u}),
     DeclarationError, ["Osc 'o1'", "initial()", "start of x reads u", "parameters only"]),
    ("guards returns a single expression",
     lambda: custom(**eqs(lambda s: [sp.Eq(der(s.x), -s.x)]), guards=lambda s: s.x),
     DeclarationError, ["Osc 'o1'", "guards()", "list"]),
    ("overdetermined", lambda: custom(**eqs(lambda s: [sp.Eq(s.x, 1), sp.Eq(s.x, 2)])), StructuralError,
     ["Osc o1: x - 1 = 0", "Osc o1: x - 2 = 0"]),
    # --- Model.add / connect / expose / lookups ----------------------------------------------
    ("add a string", lambda: Model("m").add("R1"), ModelError, ["Model.add", "'R1'"]),
    ("add an unnamed component", lambda: Model("m").add(sig.Step()), PortConnectionError, ["Step", "name", "'m'"]),
    ("add a duplicate name", lambda: model_with(Resistor("R1", R=1.0), Resistor("R1", R=2.0)),
     DuplicateNameError, ["'m'", "'R1'"]),
    ("add a model to itself", lambda: (lambda m: m.add(m))(Model("m")), PortConnectionError, ["'m'", "itself"]),
    ("connect one port", lambda: connect(lambda m: [resistor_in(m).p]), PortConnectionError, ["at least two"]),
    ("connect strings", lambda: connect(lambda m: [resistor_in(m) and "R1.p", "R1.n"]), PortConnectionError,
     ["'R1.p'", "not a port"]),
    ("connect components", lambda: connect(lambda m: [resistor_in(m), resistor_in(m, "R2")]), PortConnectionError,
     ["Resistor('R1')", "not a port"]),
    ("connect a variable path", lambda: connect(lambda m: [resistor_in(m).p.v, m.R1.n]), PortConnectionError,
     ["'R1.p.v'", "not a port"]),
    ("connect a non-member", lambda: connect(lambda m: [resistor_in(m).p, Resistor("R2", R=1.0).p]),
     PortConnectionError, ["R2.p", "not a member", "'m'"]),
    ("connect a port to itself", lambda: connect(lambda m: [resistor_in(m).p, m.R1.p]), PortConnectionError,
     ["R1.p", "itself"]),
    ("connect across domains", lambda: connect(lambda m: [resistor_in(m).p, m.add(Inertia("J1", J=1.0)).flange_a]),
     DomainMismatchError, ["R1.p (electrical)", "J1.flange_a (rotational)"]),
    ("connect signal to electrical", lambda: connect(lambda m: [m.add(sig.Gain("g1")).y, resistor_in(m).p]),
     DomainMismatchError, ["g1.y (signal)", "R1.p (electrical)"]),
    ("connect an inner port from outside", inner_port_from_outside, PortConnectionError,
     ["R1.n", "not a member", "'outer'"]),
    ("expose under a bad name", lambda: (lambda m: m.expose(resistor_in(m).p, "a b"))(Model("m")), ParameterError,
     ["exposed port name 'a b'"]),
    ("expose twice under one name", lambda: (lambda ir: ir[0].expose(ir[1].n, "a"))(subsystem()),
     DuplicateNameError, ["'inner'", "'a'"]),
    ("model unknown attribute", lambda: model_with(Resistor("R1", R=1.0)).nope, UnknownAttributeError,
     ["model 'm'", "'nope'", "R1"]),
    ("model unknown member", lambda: model_with(Resistor("R1", R=1.0))["nope"], UnknownNameError,
     ["model 'm'", "'nope'", "R1"]),
    ("model lookup by number", lambda: Model("m")[3], UnknownNameError, ["model 'm'", "3"]),
    # --- Model.compile ------------------------------------------------------------------------
    ("compile option", lambda: rc().compile(fast=True), ParameterError, ["compile", "fast"]),
    ("compile unconnected port", dangling_resistor, UnconnectedPortError, ["R9.n"]),
    ("compile without ground", no_ground, MissingReferenceError, ["src", "R1"]),
    ("compile input without value", source_without_value, UnconnectedPortError, ["src.V"]),
    ("input given and connected", source_given_and_connected, PortConnectionError, ["src.V", "st.y"]),
    ("two outputs joined", lambda: signal_pair(lambda m, a, b: m.connect(a.y, b.y)), PortConnectionError,
     ["g1.y", "g2.y", "2 outputs"]),
    ("inputs without an output", lambda: signal_pair(lambda m, a, b: m.connect(a.u, b.u)), PortConnectionError,
     ["g1.u", "g2.u", "0 outputs"]),
    # --- CompiledModel accessors --------------------------------------------------------------
    ("variable unknown", lambda: S().variable("nope"), UnknownNameError, ["variable 'nope'"]),
    ("variable typo suggests", lambda: S().variable("C1.vv"), UnknownNameError, ["'C1.vv'", "C1.v"]),
    ("unit unknown", lambda: S().unit("C1.q"), UnknownNameError, ["'C1.q'"]),
    ("parameter_vector unknown name", lambda: S().parameter_vector({"R1.Rx": 1.0}), ParameterError,
     ["'R1.Rx'", "R1.R"]),
    ("parameter_vector negative", lambda: S().parameter_vector({"R1.R": -1.0}), ParameterError,
     ["parameter R of R1"]),
    ("parameter_vector bool", lambda: S().parameter_vector({"R1.R": True}), ParameterError,
     ["parameter R of R1", "real number"]),
    ("parameter_vector string value", lambda: S().parameter_vector({"R1.R": "abc"}), ParameterError,
     ["parameter R of R1", "real number", "'abc'"]),
    ("parameter_vector not a dict", lambda: S().parameter_vector([("R1.R", 1.0)]), ParameterError,
     ["params", "dict"]),
    ("parameter_vector name not a string", lambda: S().parameter_vector({5: 1.0}), ParameterError,
     ["parameter 5", "string"]),
    ("variable name not a string", lambda: S().variable(5), UnknownNameError, ["variable 5", "string"]),
    ("unit of a list", lambda: S().unit(["C1.v"]), UnknownNameError, ["['C1.v']"]),
    # --- simulate options (those validated in physlib/analysis today) -------------------------
    ("unknown solver", lambda: S().simulate(1e-3, solver="rk5"), PhyslibError, ["rk5", "idas"]),
    ("rtol zero", lambda: S().simulate(1e-3, rtol=0.0), PhyslibError, ["rtol"]),
    ("rtol negative", lambda: S().simulate(1e-3, rtol=-1e-6), PhyslibError, ["rtol"]),
    ("t_end before t0", lambda: S().simulate(-1.0), PhyslibError, ["t_end"]),
    ("t_end equals t0", lambda: S().simulate(1.0, t0=1.0), PhyslibError, ["t_end"]),
    ("t_eval outside the run", lambda: S().simulate(1e-3, t_eval=[2e-3]), PhyslibError, ["t_eval"]),
    ("t_eval decreasing", lambda: S().simulate(1e-3, t_eval=[5e-4, 1e-4]), PhyslibError, ["t_eval"]),
    ("x0 of a non-state", lambda: S().simulate(1e-3, x0={"R1.v": 1.0}), PhyslibError, ["R1.v", "not a state"]),
    ("x0 of an unknown name", lambda: S().simulate(1e-3, x0={"nope": 1.0}), PhyslibError, ["nope"]),
    # every state by name, in order: the vector path of apply_x0 checks the values as well
    ("x0 of every state, a bool", lambda: S().simulate(1e-3, x0={n: True for n in S().states}),
     PhyslibError, ["x0", "finite number", "True"]),
    ("x0 of every state, a NaN", lambda: S().simulate(1e-3, x0={n: float("nan") for n in S().states}),
     PhyslibError, ["x0", "finite number"]),
    ("params unknown name", lambda: S().simulate(1e-3, params={"R1.X": 1.0}), ParameterError, ["'R1.X'"]),
    ("params negative", lambda: S().simulate(1e-3, params={"R1.R": -1.0}), ParameterError,
     ["parameter R of R1"]),
    ("fixed step without dt", lambda: S().simulate(1e-3, solver="rk4"), PhyslibError, ["dt"]),
    ("projection unknown", lambda: S().simulate(1e-3, projection="best"), PhyslibError, ["projection", "best"]),
    ("initial unknown", lambda: S().simulate(1e-3, initial="loose"), PhyslibError, ["initial", "loose"]),
    ("invariants with idas", lambda: S().simulate(1e-3, invariants=[sp.Symbol("C1.v")]), PhyslibError,
     ["invariants", "idas"]),
    # --- results --------------------------------------------------------------------------------
    ("result unknown name", lambda: result()["nope"], UnknownNameError, ["nope"]),
    ("result indexed by a number", lambda: result()[0], UnknownNameError, ["variable 0", "string"]),
    ("params value a string", lambda: S().simulate(1e-3, params={"R1.R": "2k"}), ParameterError,
     ["parameter R of R1", "'2k'"]),
    ("result typo suggests", lambda: result()["C1.vv"], UnknownNameError, ["C1.vv", "C1.v"]),
    ("result at after the run", lambda: result().at(1.0), PhyslibError, ["t = 1.0", "outside"]),
    ("result at before the run", lambda: result().at(-1.0), PhyslibError, ["t = -1.0", "outside"]),
    ("result plot unknown name", lambda: result().plot("nope"), UnknownNameError, ["nope"]),
    ("operating point unknown name", lambda: result().at(5e-4)["nope"], UnknownNameError, ["nope"]),
    ("result at a string time", lambda: result().at("0"), PhyslibError, ["at(t)", "'0'"]),
    ("simulate unknown option", lambda: S().simulate(1e-3, rtoll=1e-6), PhyslibError,
     ["rtoll", "did you mean 'rtol'", "max_step"]),
    ("linearize unknown option", lambda: S().linearize(["src.V"], ["C1.v"], t_op=0.0), PhyslibError,
     ["t_op", "descriptor"]),
    ("empty model compiled", lambda: Model("empty").compile(), ModelError, ["'empty'", "no components"]),
    ("mistyped parameter assigned", lambda: setattr(Resistor("R1", R=1.0), "RR", 5e3),
     UnknownAttributeError, ["R1", "'RR'", "did you mean 'R'"]),
    # --- operating_point / trim options: strings reached float() or CasADi, t = nan or tol <= 0
    # gave a point, a free_guess of a fixed name silently set it as an input --------------------
    ("operating point t a string", lambda: S().operating_point(t="0"), OptionError,
     ["operating_point: t", "number", "'0'"]),
    ("operating point t nan", lambda: S().operating_point(t=math.nan), OptionError, ["operating_point: t", "finite"]),
    ("operating point tol zero", lambda: S().operating_point(tol=0.0), OptionError,
     ["operating_point: tol", "positive"]),
    ("operating point max_iter float", lambda: S().operating_point(max_iter=2.5), OptionError,
     ["operating_point: max_iter", "positive integer"]),
    ("operating point input a string", lambda: S().operating_point(inputs={"src.V": "1"}), OptionError,
     ["inputs['src.V']", "number", "'1'"]),
    ("operating point inputs a list", lambda: S().operating_point(inputs=[1.0]), OptionError,
     ["operating_point: inputs", "dict", "list"]),
    ("operating point x_guess a string", lambda: S().operating_point(x_guess={"C1.v": "a"}), OptionError,
     ["x_guess['C1.v']", "number"]),
    ("trim targets a list", lambda: S().trim(["C1.v"], ["src.V"]), OptionError, ["trim: targets", "dict"]),
    ("trim target a string", lambda: S().trim({"C1.v": "a"}, ["src.V"]), OptionError, ["targets['C1.v']"]),
    ("trim free_guess of a fixed name", lambda: S().trim({"C1.v": 0.5}, ["src.V"], free_guess={"R1.R": 5.0}),
     OptionError, ["free_guess", "R1.R", "not among the free names", "inputs= or params="]),
    ("trim free_guess a string", lambda: S().trim({"C1.v": 0.5}, ["src.V"], free_guess={"src.V": "a"}),
     OptionError, ["free_guess['src.V']", "number"]),
    ("trim free a number", lambda: S().trim({"C1.v": 0.5}, 3), OptionError, ["trim: free", "list", "3"]),
    # --- linearize options: a string t reached CasADi, a truthy descriptor string chose the
    # descriptor form, times= and t= beside an operating point were silently unused -----------
    ("linearize t a string", lambda: S().linearize(["src.V"], ["C1.v"], t="0"), OptionError,
     ["linearize: t", "number", "'0'"]),
    ("linearize t nan", lambda: S().linearize(["src.V"], ["C1.v"], t=math.nan), OptionError,
     ["linearize: t", "finite"]),
    ("linearize descriptor a string", lambda: S().linearize(["src.V"], ["C1.v"], descriptor="yes"), OptionError,
     ["descriptor", "True, False or 'auto'", "'yes'"]),
    ("linearize inputs None", lambda: S().linearize(None, ["C1.v"]), OptionError, ["linearize: inputs", "list"]),
    ("linearize times without a result", lambda: S().linearize(["src.V"], ["C1.v"], times=[0.0]), OptionError,
     ["times=", "at=res", "leave it out"]),
    ("linearize times beside a point",
     lambda: S().linearize(["src.V"], ["C1.v"], at=S().operating_point(), times=[0.0]), OptionError,
     ["times=", "leave it out"]),
    ("linearize t beside a point", lambda: S().linearize(["src.V"], ["C1.v"], at=S().operating_point(), t=1.0),
     OptionError, ["t= (1 s)", "default steady state", "leave t out"]),
    ("linearize params beside results", lambda: S().linearize(["src.V"], ["C1.v"], at=result(), times=[1e-4],
                                                              params={"R1.R": 2e3}),
     PhyslibError, ["params=", "default steady state"]),
    # --- fit: options and specs reached SciPy, NumPy or float(); a DataFrame or an uncompiled
    # Model in place of an Experiment or a compiled model was an AttributeError --------------
    ("fit max_nfev zero", lambda: fit(S(), experiment(), {"R1.R": 1e3}, max_nfev=0), FitError,
     ["max_nfev", "positive integer", "0"]),
    ("fit tol negative", lambda: fit(S(), experiment(), {"R1.R": 1e3}, tol=-1.0), FitError, ["tol", "-1"]),
    ("fit log a string", lambda: fit(S(), experiment(), {"R1.R": 1e3}, log="yes"), FitError,
     ["log", "True or False", "'yes'"]),
    ("fit guess a string", lambda: fit(S(), experiment(), {"R1.R": "1e3"}), FitError,
     ["'R1.R'", "numbers", "'1e3'"]),
    ("fit bound None", lambda: fit(S(), experiment(), {"R1.R": (1e3, None, 1e4)}), FitError, ["'R1.R'", "numbers"]),
    ("fit bare data", lambda: fit(S(), [experiment().data], {"R1.R": 1e3}), FitError,
     ["experiment 0", "tuple", "Experiment(data"]),
    ("fit experiments None", lambda: fit(S(), None, {"R1.R": 1e3}), FitError, ["Experiment", "None"]),
    ("fit an uncompiled model", lambda: fit(rc(), experiment(), {"R1.R": 1e3}), FitError,
     ["compiled model", "model.compile()", "Model"]),
    ("experiment t0 a string", lambda: experiment(t0="0"), FitError, ["Experiment: t0", "'0'"]),
    ("experiment unknown option", lambda: experiment(options={"rtoll": 1e-8}), FitError,
     ["'rtoll'", "did you mean 'rtol'"]),
    ("experiment params in options", lambda: experiment(options={"params": {}}), FitError,
     ["params", "Experiment's own params="]),
    ("experiment x0_free a string", lambda: fit(S(), experiment(x0_free={"C1.v": "0"}), {"R1.R": 1e3}),
     FitError, ["x0_free['C1.v']", "numbers"]),
    # --- result files: OSErrors and csv's TypeError came out raw -------------------------------
    ("to_csv into a folder", lambda: result().to_csv(HERE), PhyslibError, ["to_csv cannot write", "folder"]),
    ("to_csv into a missing folder", lambda: result().to_csv(HERE / "no-such-folder" / "r.csv"), PhyslibError,
     ["to_csv cannot write", "no-such-folder", "existing, writable folder"]),
    ("to_csv into a binary file", lambda: result().to_csv(io.BytesIO()), PhyslibError,
     ["binary file", "mode 'w'"]),
    # --- bulk building: raw TypeErrors, NumPy's ValueError, an AttributeError for an owner None
    ("add_components of one component", lambda: Model("m").add_components(Resistor("R1", R=1.0)), ModelError,
     ["add_components", "'m'", "list of components", "Model.add"]),
    ("add_components of a generator", lambda: Model("m").add_components(Resistor(f"R{i}", R=1.0) for i in range(2)),
     ModelError, ["add_components", "list of components", "generator"]),
    ("connect_groups negative size", lambda: grouped([Resistor, Resistor], ["p", "p"], [-1, 3]), PortConnectionError,
     ["connect_groups", "'m'", "group of -1 ports"]),
    ("connect_groups owner None", lambda: grouped([Resistor, None], ["p", "p"], [2]), PortConnectionError,
     ["connect_groups", "None is not a component"]),
    ("connect_groups port a number", lambda: grouped([Resistor, Resistor], ["p", 1], [2]), PortConnectionError,
     ["connect_groups", "port names are strings", "got 1"]),
    ("noise f a string", lambda: S().noise("C1.v", "1k"), PhyslibError, ["noise: f", "frequencies", "'1k'"]),
    ("noise f 2-D", lambda: S().noise("C1.v", [[1.0, 2.0]]), PhyslibError, ["noise: f", "1-D"]),
    ("sensitivity relative a string", lambda: S().sensitivity(1e-3, params=["R1.R"], relative="no"), OptionError,
     ["sensitivity: relative", "True or False", "'no'"]),
    ("t_eval 2-D", lambda: S().simulate(1e-3, t_eval=[[0.0, 1e-4], [2e-4, 3e-4]]), OptionError,
     ["t_eval", "1-D", "(2, 2)"]),
    # --- export_fmu: checked before any file is made --------------------------------------------
    ("export_fmu path None", lambda: S().export_fmu(None), ExportError, ["export_fmu: path", "None"]),
    ("export_fmu binary a string", lambda: S().export_fmu(HERE / "x.fmu", binary="no"), ExportError,
     ["binary", "True", "'no'"]),
    ("export_fmu name no identifier", lambda: S().export_fmu(HERE / "x.fmu", name="a b"), ExportError,
     ["name 'a b'", "C identifier"]),
    ("transfer function text coefficients", lambda: sig.TransferFunction("G", num="a", den=[1, 1]),
     ParameterError, ["'G'", "num", "'a'"]),
]


@pytest.mark.parametrize("call, error, substrings", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_names_the_culprit(call, error, substrings):
    assert issubclass(error, PhyslibError)
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for part in substrings:
        assert part in message, f"{part!r} not in: {message}"


def test_the_table_is_large_and_ids_are_unique():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)


def test_missing_conditional_port_is_an_attribute_error():
    gear = IdealGear("g1", ratio=2.0)
    assert not hasattr(gear, "support")
    assert getattr(gear, "support", None) is None
    assert isinstance(IdealGear("g2", ratio=2.0, use_support=True).support.path, str)
    with pytest.raises(AttributeError):
        gear.support
    assert issubclass(MissingPortError, PortConnectionError)


@pytest.mark.parametrize("value", [np.float32(2e3), np.float64(2e3), np.int64(2000), np.int32(2000),
                                   np.array(2e3), sp.Float(2e3), sp.Integer(2000)])
def test_numpy_and_sympy_scalars_are_accepted_wherever_a_float_is(value):
    r = Resistor("R1", R=value)
    assert type(r.R) is float and r.R == 2000.0
    src = VoltageSource("src", V=value)
    assert src._input_values["V"] == 2000.0
    r.R = value
    assert r.R == 2000.0
    assert IdealGear("g1", ratio=2.0, use_support=np.bool_(True)).use_support is True
    p = S().parameter_vector({"R1.R": value})
    assert p[S().parameter_slot("R1.R")] == 2000.0
    # a NumPy scalar as a simulation input: RC at t = RC (1 V, R = 2 kΩ, C = 1 µF): 1 - e^-1,
    # within the solver tolerance (rtol 1e-8).
    res = S().simulate(np.float64(2e-3), params={"R1.R": value}, rtol=1e-8, atol=1e-10,
                       t_eval=np.array([0.0, 2e-3]))
    assert res["C1.v"][-1] == pytest.approx(1 - math.exp(-1), abs=1e-6)


def test_trim_takes_one_free_path_as_a_string():
    # a string was iterated into its letters: "2 free (s, r, c, ., V)" for one target
    assert S().trim({"C1.v": 0.5}, "src.V")["src.V"] == pytest.approx(0.5)


def test_one_path_names_one_column():
    # a string was iterated: to_pandas(names="C1.v") asked for the unknown variable 'C'
    out = io.StringIO()
    result().to_csv(out, names="C1.v", units=False)
    assert out.getvalue().splitlines()[0] == "time,C1.v"


def test_export_fmu_takes_one_output_path_as_a_string(tmp_path):
    # a string was iterated: outputs="C1.v" was the unknown output 'C'
    import zipfile
    fmu = S().export_fmu(tmp_path / "rc.fmu", outputs="C1.v", binary=False)
    assert 'causality="output"' in zipfile.ZipFile(fmu).read("modelDescription.xml").decode()
