"""Model parameters (issue 24, build item 5): named values declared on a model
(``m.parameter("rload", 1e3)``) that component parameters are given as expressions of, and a
SPICE deck's ``.param`` names as such parameters. A run's ``params=`` (simulate, operating
point, sweeps, Monte Carlo) sets them on the model compiled once.

Tolerances, and why:

* Operating points of the linear dividers: 1e-12 relative, the closed form to rounding (the
  Newton solve of a linear system; measured below 3e-16).
* The RC transients: 1e-7 of the step's height, the closed form 1 − e^(−t/τ) at rtol = 1e-10
  and atol = 1e-12 (measured 2e-9).
* Noise: 1e-9 relative, 4kT·(R1∥R2) of two resistors at 300.15 K (the linearized noise
  of a linear network is that to rounding; measured 1e-15).
* A deck's ``.ac``: 1e-9 relative (a linear network's response, to rounding; measured 0).
* A deck's ``.tran``: 1e-5 relative, the reader's transient at rtol = 1e-6 against the RC's
  ramp response (measured 2.7e-7).
"""
import math
import pickle

import numpy as np
import pytest

import physlib
import physlib.spice as spice
from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import Step

BOLTZMANN = 1.380649e-23           # J/K, SI 2019 (physlib's)
VALUES = [200.0, 500.0, 1e3, 2e3, 5e3]


@pytest.fixture
def compiles(monkeypatch):
    """The names of the models compiled while a test runs."""
    names = []
    original = physlib.Model.compile
    monkeypatch.setattr(physlib.Model, "compile",
                        lambda self, **kw: names.append(self.name) or original(self, **kw))
    return names


def divider():
    """5 V (vin) into R1 = 1 kΩ, then R2 = 2·rload to ground with C1 = 1 µF across it."""
    m = Model("divider")
    rload = m.parameter("rload", 1e3, unit="Ohm", description="load resistance")
    vin = m.parameter("vin", 5.0, unit="V")
    src = m.add(VoltageSource("src", V=Step(height=vin, t0=0.0)))
    r1 = m.add(Resistor("R1", R=1e3))
    r2 = m.add(Resistor("R2", R=2 * rload))
    c1 = m.add(Capacitor("C1", C=1e-6))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r1.p)
    m.connect(r1.n, r2.p, c1.p)
    m.connect(r2.n, c1.n, src.n, gnd.p)
    return m


def test_native_model_parameters_reach_every_analysis_without_recompiling(compiles):
    m = divider()
    assert m["R2"].R == 2e3 and m["R2"].parameter_expressions["R"].parameters() == (m.model_parameters["rload"],)
    sim = m.compile()
    assert sim.model_parameters == {"rload": 1e3, "vin": 5.0}
    assert sim.parameters["R2.R"] == 2e3                      # the entry compiled in
    for rload in VALUES:
        r2 = 2 * rload
        thevenin, tau = 3.0 * r2 / (1e3 + r2), 1e-6 * 1e3 * r2 / (1e3 + r2)
        op = sim.operating_point(params={"rload": rload, "vin": 3.0}, t=1.0)
        assert op["C1.v"] == pytest.approx(thevenin, rel=1e-12)
        t = np.linspace(0.0, 5 * tau, 11)
        res = sim.simulate(t[-1], t_eval=t, params={"rload": rload, "vin": 3.0}, rtol=1e-10,
                           atol=1e-12)
        assert np.max(np.abs(res["C1.v"] - thevenin * (1 - np.exp(-t / tau)))) < 1e-7 * 3.0
    assert compiles == ["divider"]
    # Noise at the output node: 4kT·(R1 ∥ R2) [V²/Hz] through the RC roll-off 1/(1 + (ω·C·R1 ∥ R2)²)
    # (2.5e-5 at 1 Hz), R2 from the model parameter (noise compiles its own copy of the model
    # with the noise sources, once).
    op = sim.operating_point(params={"rload": 2e3}, t=1.0)
    psd = sim.noise("C1.v", [1.0], T=300.15, at=op).psd
    parallel = 1e3 * 4e3 / 5e3
    expected = 4 * BOLTZMANN * 300.15 * parallel / (1 + (2 * np.pi * 1.0 * 1e-6 * parallel) ** 2)
    assert psd[0] == pytest.approx(expected, rel=1e-9, abs=0)
    # Sweeps and Monte Carlo name model parameters like parameter paths; the relative
    # spread's nominal is the compiled-in value.
    table = physlib.sweep(sim, {"rload": VALUES}, analysis="operating_point",
                          summary=lambda op: {"v": op["C1.v"]}, t=1.0)
    assert np.allclose(table["v"], [5.0 * 2 * r / (1e3 + 2 * r) for r in VALUES], rtol=1e-12)
    mc = physlib.monte_carlo(sim, {"rload": physlib.normal(None, 0.05, relative=True)}, n=5,
                             seed=3, analysis="operating_point",
                             summary=lambda op: {"v": op["C1.v"]}, t=1.0)
    assert np.allclose(mc["v"], [5.0 * 2 * r / (1e3 + 2 * r) for r in mc["rload"]], rtol=1e-12)
    assert 900 < np.mean(mc["rload"]) < 1100
    # A compiled model pickles with its expressions (sweep workers).
    again = pickle.loads(pickle.dumps(sim))
    assert again.operating_point(params={"rload": 5e3}, t=1.0)["C1.v"] == \
        pytest.approx(5.0 * 1e4 / 1.1e4, rel=1e-12)
    assert compiles == ["divider", "divider"]


def test_derived_values_defaults_and_overrides():
    m = Model("chain")
    base = m.parameter("base", 100.0, unit="Ohm")
    top = m.parameter("top", 3 * base + 50.0, unit="Ohm")     # a default that follows base
    sub = Model("sub")
    sub_gain = sub.parameter("k", 2.0)                        # declared on a subsystem
    r = sub.add(Resistor("R", R=top * sub_gain))
    sub.expose(r.p, "a")
    sub.expose(r.n, "b")
    src = m.add(VoltageSource("src", V=1.0))
    gnd = m.add(Ground("gnd"))
    m.add(sub)
    m.connect(src.p, sub.a)
    m.connect(sub.b, src.n, gnd.p)
    assert r.R == 700.0 and top.value == 350.0
    sim = m.compile()
    assert sim.model_parameters == {"base": 100.0, "top": 350.0, "k": 2.0}

    def current(params):
        return -sim.operating_point(params=params)["src.i"]
    assert current({}) == pytest.approx(1 / 700.0, rel=1e-12)
    assert current({"base": 200.0}) == pytest.approx(1 / 1300.0, rel=1e-12)    # top follows
    assert current({"base": 200.0, "top": 10.0}) == pytest.approx(1 / 20.0, rel=1e-12)
    assert current({"k": 3.0}) == pytest.approx(1 / 1050.0, rel=1e-12)
    # An entry given by its own path keeps that value: it overrides its expression.
    assert current({"base": 200.0, "sub.R.R": 50.0}) == pytest.approx(1 / 50.0, rel=1e-12)
    # A number given afterwards replaces the expression; the next compile keeps the number.
    r.R = 25.0
    assert not r.parameter_expressions
    assert -m.compile().operating_point(params={"base": 1.0})["src.i"] == pytest.approx(1 / 25.0)
    r.R = top
    assert r.R == 350.0 and r.parameter_expressions["R"] is top


def test_bad_names_and_values_are_named_errors():
    m = divider()
    sim = m.compile()
    with pytest.raises(physlib.ParameterError, match="unknown parameter 'rlaod'; did you mean rload"):
        sim.operating_point(params={"rlaod": 1.0})
    with pytest.raises(physlib.ParameterError, match="sweep: .*'rlaod'"):
        physlib.sweep(sim, {"rlaod": [1.0]}, analysis="operating_point")
    with pytest.raises(physlib.ParameterError, match=r"model parameter rload must be a finite real number \[Ohm\]"):
        sim.operating_point(params={"rload": "1k"})
    # A derived value the component refuses names the entry, the expression and the setting.
    with pytest.raises(physlib.ParameterError,
                       match=r"R2.R = 2.0 \* rload with rload = -1: parameter R of R2 must be > 0"):
        sim.operating_point(params={"rload": -1.0})
    with pytest.raises(physlib.UnknownNameError, match="rload is a model parameter.*it sets R2.R"):
        sim.parameter_slot("rload")
    with pytest.raises(physlib.DuplicateNameError, match="already has a model parameter named 'rload'"):
        m.parameter("rload", 1.0)
    with pytest.raises(physlib.ParameterError, match="model parameter name 'a.b' is not valid"):
        m.parameter("a.b", 1.0)
    with pytest.raises(physlib.ParameterError, match="model parameter x: give a finite real number"):
        m.parameter("x", float("nan"))
    with pytest.raises(physlib.ParameterError, match="parameter R of bad must be > 0"):
        Resistor("bad", R=-1 * m.model_parameters["rload"])
    with pytest.raises(physlib.ParameterError, match="is a model-parameter expression, not a number"):
        bool(m.model_parameters["rload"] + 1)
    # Two different parameters of one name in one compiled model.
    top, sub = Model("top"), Model("sub")
    a, b = top.parameter("g", 1.0), sub.parameter("g", 2.0)
    r1, r2 = top.add(Resistor("R1", R=a)), sub.add(Resistor("R2", R=b))
    sub.expose(r2.p, "p")
    sub.expose(r2.n, "n")
    top.add(sub)
    gnd = top.add(Ground("gnd"))
    top.connect(r1.p, sub.p)
    top.connect(r1.n, sub.n, gnd.p)
    with pytest.raises(physlib.ModelError, match="two model parameters named 'g' .*'top' and 'sub'"):
        top.compile()


def test_structural_parameters_take_no_expressions():
    from physlib.components.signals import Table
    repeat = Model("m").parameter("repeat", 1.0, unit="s")
    with pytest.raises(physlib.ParameterError, match="repeat of table is structural"):
        Table("table", points=[(0.0, 0.0), (1.0, 1.0)], repeat=repeat)


# --- a SPICE deck's .param names --------------------------------------------------------------

DIVIDER_DECK = """.param-driven divider
.param rload=1k
.param rser={rload/4}
.func half(x) = x/2
V1 in 0 DC 5 PULSE(0 5 0 1n 1n 1 2)
R1 in out {rser}
R2 out 0 {2*half(rload)}
X1 out 0 tail r={rload}
C1 out 0 1u
.subckt tail a b r=1
R3 a b {10*r}
.ends
.tran 1u 1m
.end
"""


def test_a_param_driven_deck_matches_the_closed_form_with_one_compile(compiles):
    deck = spice.read(DIVIDER_DECK)
    sim = deck.compile()
    assert sim.model_parameters == {"rload": 1e3, "rser": 250.0}
    for rload in VALUES:
        rp = 1 / (1 / rload + 1 / (10 * rload))                  # R2 ∥ x1.R3
        thevenin, tau = 5.0 * rp / (rload / 4 + rp), 1e-6 * (rload / 4) * rp / (rload / 4 + rp)
        op = sim.operating_point(params={"rload": rload}, inputs={"v1.V": 5.0})
        assert op["r2.v"] == pytest.approx(thevenin, rel=1e-12)
        assert deck.op(params={"RLOAD": rload})["v(out)"] == pytest.approx(thevenin, rel=1e-12)
        # The PULSE rises 0 → 5 V in tr = 1 ns: the response of an RC to that ramp.
        tr = 1e-9
        t = np.concatenate([[0.0, tr / 2], np.linspace(tr, 5 * tau, 10)])
        res = sim.simulate(t[-1], t_eval=t, params={"rload": rload}, rtol=1e-10, atol=1e-12)
        ramp = np.where(t <= tr, (t - tau * (1 - np.exp(-t / tau))) / tr,
                        1 - tau / tr * np.expm1(tr / tau) * np.exp(-t / tau))
        assert np.max(np.abs(res["r2.v"] - thevenin * ramp)) < 1e-7 * 5.0, rload
    assert compiles == ["deck"] and deck.compiles == 1


def test_param_names_of_a_deck_are_named_errors():
    deck = spice.read(DIVIDER_DECK)
    with pytest.raises(spice.SpiceError, match="no .param rlod in the deck"):
        deck.op(params={"rlod": 1.0})
    with pytest.raises(physlib.ParameterError, match="did you mean rload"):
        deck.compile().operating_point(params={"rlod": 1.0})
    with pytest.raises(physlib.ParameterError, match="r1.R = its value on <text>, line 6: 'R1 in out {rser}' with rload = -1: parameter R of r1 must be > 0"):
        deck.compile().operating_point(params={"rload": -1.0})


def test_param_values_reach_source_dc_and_ac_values_and_other_tran_steps():
    # V1's DC and AC values and its PULSE's level are .param expressions; the PULSE's rise
    # time is .tran's step by default (ngspice). Closed forms of the RC low-pass (τ = 1 ms).
    deck = spice.read(".params in sources\n.param vdc=2 amp=1 rload=1k\n"
                      "V1 in 0 DC {vdc} AC {amp} PULSE(0 {vdc} 0)\nR1 in out {rload}\n"
                      "C1 out 0 1u\n.tran 1u 1m\n.end\n")
    assert deck.op(params={"vdc": 3.0})["v(out)"] == pytest.approx(3.0, rel=1e-12)
    ac = deck.ac("lin", 2, 1.0, 1e3, params={"amp": 2.0, "rload": 2e3})
    gain = 2.0 / (1 + 2j * math.pi * ac["frequency"] * 2e3 * 1e-6)
    assert np.max(np.abs(ac["v(out)"] - gain) / np.abs(gain)) < 1e-9
    # A .tran with a 0.1 ms step: the PULSE rises in 0.1 ms (the step), so at 0.1 ms the
    # capacitor has the ramp's response vdc·(t − τ(1 − e^(−t/τ)))/tr.
    tran = deck.tran(1e-4, 1e-3, params={"vdc": 4.0})
    tau, tr = 1e-3, 1e-4
    expected = 4.0 * (tr - tau * (1 - math.exp(-tr / tau))) / tr
    assert tran["v(out)"][1] == pytest.approx(expected, rel=1e-5)
    assert deck.compiles == 1


def test_has_parameter_answers_without_building_the_parameters():
    # A lookup (the parameter dict of a large circuit takes tens of milliseconds to build):
    # parameters yes, modes, variables, unknown names and non-strings no.
    from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
    from physlib.components.signals import Sine
    m = Model("rect")
    src = m.add(VoltageSource("src", V=Sine(amplitude=1.0, f=50.0)))
    d, r, c, g = m.add(IdealDiode("D1")), m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("g"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, g.p)
    sim = m.compile()
    for name in ("R1.R", "C1.C", "src.V.amplitude", "D1.Ron"):
        assert sim.has_parameter(name) and name in sim.parameters
    for name in ("D1.on", "C1.v", "R1.X", 5, None):
        assert not sim.has_parameter(name)
