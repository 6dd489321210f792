"""Group B of the MSL corpus, analog electrical part: the Electrical.Analog examples that need
issue 36's op-amp with supply limits, variable and saturating elements and the thyristor (tests/msl_corpus.py
collects this module's EXAMPLES; tests/data/README.md lists what is compared and why).

Each builder rebuilds the MSL example (tag v4.1.0) with the MSL's instance names; start values
the MSL gives as initial equations are worked out in the docstring."""
from __future__ import annotations

import math

from physlib import Model
from physlib.components.electrical import (Capacitor, CurrentSource, Ground, IdealTransformer,
                                           Inductor, OpAmp, Resistor, SaturatingInductor,
                                           Thyristor, Transformer, VariableResistor, VoltageSensor,
                                           VoltageSource)
from physlib.components.signals import Pulse, Ramp, Sine

from msl_corpus import Example, four_pin_example, trapezoid_input


def supplied_potentiometer(m: Model, ground, R: float, k: float, Vps: float, Vns: float):
    """The MSL's SupplyVoltage (Vps and Vns from ground) across a Potentiometer of resistance
    R whose contact sits at the fraction k from pin_n (rConstant = k): the part R·k between
    contact and pin_n, R·(1 − k) between pin_p and contact. Returns the contact pin."""
    positive = m.add(VoltageSource("supplyVoltage_p", V=Vps))
    negative = m.add(VoltageSource("supplyVoltage_n", V=-Vns))
    upper = m.add(Resistor("potentiometer_p", R=R * (1 - k)))
    lower = m.add(Resistor("potentiometer_n", R=R * k))
    m.connect(positive.n, negative.p, ground.p)
    m.connect(positive.p, upper.p)
    m.connect(upper.n, lower.p)
    m.connect(lower.n, negative.n)
    return upper.n


def comparator() -> Model:
    """OpAmps.Comparator: the trapezoid ±5 V (10 Hz) on the op-amp's non-inverting input, the
    reference Vref = 0 V from a 1 kΩ potentiometer across the ±15 V supply (k = 0.5) on the
    inverting one; the output (only a voltage sensor on it) jumps between the supplies."""
    m = Model("Comparator")
    ground = m.add(Ground("ground"))
    vin = m.add(VoltageSource("vIn", V=trapezoid_input(10.0, -5.0)))
    op_amp = m.add(OpAmp("opAmp", Vps=15.0, Vns=-15.0))
    v_out = m.add(VoltageSensor("vOut"))
    contact = supplied_potentiometer(m, ground, 1e3, 0.5, 15.0, -15.0)
    m.connect(vin.p, op_amp.in_p)
    m.connect(contact, op_amp.in_n)
    m.connect(op_amp.out, v_out.p)
    m.connect(ground.p, vin.n, v_out.n)
    return m


def inverting_schmitt_trigger() -> Model:
    """OpAmps.InvertingSchmittTrigger: the trapezoid ±5 V (10 Hz) on the inverting input, the
    output divided by r2 = (1 − k)/k·R1 over r1 = R1 = 1 kΩ (k = vHys/Vps = 1/15) onto the
    non-inverting input: the output switches to −15 V when the input rises above +1 V and to
    +15 V when it falls below −1 V. At t = 0 the input is +5 V, so the output starts at −15 V
    (the only consistent mode)."""
    R1, k = 1e3, 1.0 / 15.0
    m = Model("InvertingSchmittTrigger")
    ground = m.add(Ground("ground"))
    vin = m.add(VoltageSource("vIn", V=trapezoid_input(10.0, -5.0)))
    op_amp = m.add(OpAmp("opAmp", Vps=15.0, Vns=-15.0))
    r1, r2 = m.add(Resistor("r1", R=R1)), m.add(Resistor("r2", R=(1 - k) / k * R1))
    v_out = m.add(VoltageSensor("vOut"))
    m.connect(r2.n, r1.p, op_amp.in_p)
    m.connect(op_amp.out, r2.p, v_out.p)
    m.connect(vin.p, op_amp.in_n)
    m.connect(ground.p, r1.n, vin.n, v_out.n)
    return m


def signal_generator() -> Model:
    """OpAmps.SignalGenerator: a Schmitt trigger (opAmp1, r2 = R1·Vps/VAmp = 1.5 kΩ from its
    output to its non-inverting input, r1 = 1 kΩ from there to the integrator's output) and an
    integrator (opAmp2, r = 1 kΩ into its inverting input, c = Vps/VAmp/(4·f·R) = 37.5 µF
    back from its output), VAmp = 10 V, f = 10 Hz: a rectangle of ±15 V and a triangle of
    ±10 V at 10 Hz. c starts uncharged; opAmp1 starts at its lower limit (the MSL's
    homotopyType LowerLimit), the linear start being the unstable equilibrium 0."""
    Vps, VAmp, R1, f, R = 15.0, 10.0, 1e3, 10.0, 1e3
    m = Model("SignalGenerator")
    ground = m.add(Ground("ground"))
    op_amp1 = m.add(OpAmp("opAmp1", Vps=Vps, Vns=-Vps, homotopy_type="lower_limit"))
    op_amp2 = m.add(OpAmp("opAmp2", Vps=Vps, Vns=-Vps))
    r1, r2 = m.add(Resistor("r1", R=R1)), m.add(Resistor("r2", R=R1 * Vps / VAmp))
    r = m.add(Resistor("r", R=R))
    c = m.add(Capacitor("c", C=Vps / VAmp / (4 * f * R)))
    rectangle, triangle = m.add(VoltageSensor("vOutRectangle")), m.add(VoltageSensor("vOutTriangle"))
    m.connect(op_amp1.out, r2.n, r.p, rectangle.p)
    m.connect(op_amp1.in_p, r2.p, r1.p)
    m.connect(r.n, c.n, op_amp2.in_n)
    m.connect(op_amp2.out, c.p, r1.n, triangle.p)
    m.connect(ground.p, op_amp1.in_n, op_amp2.in_p, rectangle.n, triangle.n)
    return m


def lc_oscillator() -> Model:
    """OpAmps.LCOscillator: an op-amp amplifying by A = 1 + R2/R1 = 1.001 (R1 = 10 kΩ,
    R2 = 10 Ω) drives through r = 10 kΩ a parallel LC tank (L = 1 mH, C = 1/((2π·1 kHz)²·L))
    on its non-inverting input: a 1 kHz oscillation of 10 V, c starting at 10 V and l at 0."""
    VAmp, f, A, L, R, R1 = 10.0, 1000.0, 1.001, 1e-3, 1e4, 1e4
    m = Model("LCOscillator")
    ground = m.add(Ground("ground"))
    op_amp = m.add(OpAmp("opAmp"))
    r, r1, r2 = m.add(Resistor("r", R=R)), m.add(Resistor("r1", R=R1)), m.add(Resistor("r2", R=(A - 1) * R1))
    c = m.add(Capacitor("c", C=1 / ((2 * math.pi * f) ** 2 * L), v0=VAmp))
    l = m.add(Inductor("l", L=L))
    v_out = m.add(VoltageSensor("vOut"))
    m.connect(op_amp.out, r.p, r2.p)
    m.connect(r2.n, r1.p, op_amp.in_n)
    m.connect(r.n, op_amp.in_p, l.p, c.p, v_out.p)
    m.connect(ground.p, r1.n, l.n, c.n, v_out.n)
    return m


def differentiating(name: str, k: float, f: float, R: float = 1e3) -> Model:
    """OpAmpCircuits.Der: capacitor c = k/(2π·f·R) from p1 to the inverting input, r = R back
    from the output (gain k at f); n1 = n2 = the non-inverting input, p2 = the output; c starts
    uncharged (its v(fixed = true) at the start value 0)."""
    circuit = Model(name)
    op_amp = circuit.add(OpAmp("opAmp"))
    c = circuit.add(Capacitor("c", C=k / (2 * math.pi * f * R)))
    r = circuit.add(Resistor("r", R=R))
    circuit.connect(c.n, r.n, op_amp.in_n)
    circuit.connect(op_amp.out, r.p)
    for pin_name, pin in {"p1": c.p, "n1": op_amp.in_p, "p2": op_amp.out, "n2": op_amp.in_p}.items():
        circuit.expose(pin, pin_name)
    return circuit


def differentiator() -> Model:
    """OpAmps.Differentiator: the trapezoid ±5 V (10 Hz) into OpAmpCircuits.Der (k = 2 at
    10 Hz). At t = 0 the input is +5 V on an uncharged capacitor, so the output starts clipped
    at −15 V; on the trapezoid's edges (10 V in 20 ms, 500 V/s) the ideal output −R·C·dv/dt
    would be ∓15.9 V, so it clips there too."""
    return four_pin_example("Differentiator", differentiating("der_", k=2.0, f=10.0),
                            {"p1": trapezoid_input(10.0, -5.0)})


def show_variable_resistor() -> Model:
    """Analog.Examples.ShowVariableResistor: a sine source (1 V, 1 Hz; its p on ground) feeds
    two branches to a second ground, R1–R2–R3 (1 Ω each) and R4–VariableResistor–R5, the
    variable resistance ramping from 2 Ω to 7 Ω over 2 s."""
    m = Model("ShowVariableResistor")
    ground1, ground2 = m.add(Ground("Ground1")), m.add(Ground("Ground2"))
    sine = m.add(VoltageSource("SineVoltage1", V=Sine(amplitude=1.0, f=1.0)))
    r1, r2, r3, r4, r5 = (m.add(Resistor(f"R{k}", R=1.0)) for k in range(1, 6))
    variable = m.add(VariableResistor("VariableResistor", R=Ramp(height=5.0, offset=2.0, duration=2.0)))
    m.connect(sine.p, ground1.p)
    m.connect(sine.n, r1.p, r4.p)
    m.connect(r1.n, r2.p)
    m.connect(r2.n, r3.p)
    m.connect(r4.n, variable.p)
    m.connect(variable.n, r5.p)
    m.connect(ground2.p, r3.n, r5.n)
    return m


def show_saturating_inductor() -> Model:
    """Analog.Examples.ShowSaturatingInductor: a cosine source (1.25 V, 1/(2π) Hz, phase π/2)
    across a SaturatingInductor (Lzer = 2 H, Lnom = 1 H at Inom = 1 A, Linf = 0.5 H) and, in
    parallel, a linear Inductor of Lnom; both start without current."""
    U, f = 1.25, 1 / (2 * math.pi)
    m = Model("ShowSaturatingInductor")
    ground = m.add(Ground("Ground1"))
    source = m.add(VoltageSource("SineVoltage1", V=Sine(amplitude=U, f=f, phase=math.pi / 2)))
    saturating = m.add(SaturatingInductor("SaturatingInductance1", Lzer=2.0, Lnom=1.0, Inom=1.0,
                                          Linf=0.5))
    linear = m.add(Inductor("Inductance1", L=1.0))
    m.connect(source.p, saturating.p, linear.p)
    m.connect(source.n, ground.p, saturating.n, linear.n)
    return m


def thyristor_behaviour_test() -> Model:
    """Analog.Examples.ThyristorBehaviourTest: a 30 V, 10 kHz sine on the anode of a Thyristor
    (the MSL's defaults) whose cathode feeds a 10 Ω resistor in series with a 2 µH inductor to
    ground; a pulse current source (5 mA = IGT for 10 % of the 100 µs period, from 20 µs on)
    from the cathode into the gate. vControl and the inductor's current start at 0 (fixed).
    Fired at 20 µs in the first positive half-wave, the thyristor conducts until its current
    falls below the holding current near 50 µs and blocks the negative half-wave; the second
    pulse, at 120 µs, fires it again."""
    m = Model("ThyristorBehaviourTest")
    ground = m.add(Ground("ground"))
    sine = m.add(VoltageSource("sineVoltage", V=Sine(amplitude=30.0, f=1e4)))
    resistor = m.add(Resistor("resistor", R=10.0))
    pulse = m.add(CurrentSource("pulseCurrent", I=Pulse(amplitude=5e-3, width=1e-5, period=1e-4,
                                                        t0=2e-5)))
    thyristor = m.add(Thyristor("thyristor_v4_1"))
    inductor = m.add(Inductor("inductor", L=2e-6))
    m.connect(sine.p, thyristor.Anode)
    m.connect(thyristor.Cathode, resistor.p, pulse.p)
    m.connect(pulse.n, thyristor.Gate)
    m.connect(resistor.n, inductor.p)
    m.connect(ground.p, sine.n, inductor.n)
    return m


# Analog.Examples.CompareTransformers: its MAP-LIB reference is not in the mirror (over 4 MiB),
# so it is no corpus Example; tests/test_catalog_electrical.py checks it against the closed form.
TRANSFORMERS = dict(Vdc=0.1, Vpeak=0.1, f=10.0, n=2.0, R1=0.01, L1sigma=0.05 / (2 * math.pi * 10.0),
                    Lm1=10.0 / (2 * math.pi * 10.0), R2=0.01 / 4, RL=1 / 4,
                    L2sigma=0.05 / (2 * math.pi * 10.0) / 4)
"""CompareTransformers' parameters (n = 2; the secondary's values referred by 1/n²)."""


def compare_transformers() -> Model:
    """Analog.Examples.CompareTransformers (considerMagnetization = false): the same source
    (0.1 V DC + 0.1 V cosine at 10 Hz) through R1 into a Basic.Transformer (L1 = L1sigma +
    M·n, L2 = L2sigma + M/n, M = Lm1/n) loaded by R2 + RL, and through R1 and the primary
    leakage inductor21 into an IdealTransformer (n = 2, no magnetization) whose secondary feeds
    the leakage inductor22, R2 and RL. Every current starts at 0."""
    p = TRANSFORMERS
    M = p["Lm1"] / p["n"]
    m = Model("CompareTransformers")
    ground = m.add(Ground("ground"))
    V = Sine(amplitude=p["Vpeak"], f=p["f"], phase=math.pi / 2, offset=p["Vdc"])
    basic = m.add(Transformer("basicTransformer", L1=p["L1sigma"] + M * p["n"],
                              L2=p["L2sigma"] + M / p["n"], M=M))
    ideal = m.add(IdealTransformer("idealTransformer", ratio=p["n"]))
    inductor21 = m.add(Inductor("inductor21", L=p["L1sigma"]))
    inductor22 = m.add(Inductor("inductor22", L=p["L2sigma"]))
    for k, (primary, secondary) in enumerate(((basic.p1, basic.p2), (inductor21.p, inductor22.n)), 1):
        source = m.add(VoltageSource(f"sineVoltage{k}", V=V))
        r1 = m.add(Resistor(f"resistor{k}1", R=p["R1"]))
        r2, load = m.add(Resistor(f"resistor{k}2", R=p["R2"])), m.add(Resistor(f"load{k}", R=p["RL"]))
        m.connect(source.p, r1.p)
        m.connect(r1.n, primary)
        m.connect(secondary, r2.p)
        m.connect(r2.n, load.p)
        m.connect(ground.p, source.n, load.n)
    m.connect(inductor21.n, ideal.p1)
    m.connect(ideal.p2, inductor22.p)
    m.connect(ground.p, basic.n1, basic.n2, ideal.n1, ideal.n2)
    return m


EXAMPLES = [
    Example("Comparator", "Modelica.Electrical.Analog.Examples.OpAmps.Comparator", comparator,
            1.0, 1e-7),
    Example("InvertingSchmittTrigger",
            "Modelica.Electrical.Analog.Examples.OpAmps.InvertingSchmittTrigger",
            inverting_schmitt_trigger, 1.0, 1e-7),
    Example("SignalGenerator", "Modelica.Electrical.Analog.Examples.OpAmps.SignalGenerator",
            signal_generator, 1.0, 1e-7),
    Example("LCOscillator", "Modelica.Electrical.Analog.Examples.OpAmps.LCOscillator",
            lc_oscillator, 0.01, 1e-5),
    Example("Differentiator", "Modelica.Electrical.Analog.Examples.OpAmps.Differentiator",
            differentiator, 1.0, 1e-7),
    Example("ShowVariableResistor", "Modelica.Electrical.Analog.Examples.ShowVariableResistor",
            show_variable_resistor, 1.0, 1e-6),
    Example("ShowSaturatingInductor", "Modelica.Electrical.Analog.Examples.ShowSaturatingInductor",
            show_saturating_inductor, 6.2832, 1e-6),
    Example("ThyristorBehaviourTest", "Modelica.Electrical.Analog.Examples.ThyristorBehaviourTest",
            thyristor_behaviour_test, 2e-4, 1e-6),
]

# Examples with events whose classes an FMU test of their own covers (test_export_fmu_differential)
FMU_ELSEWHERE = {"ThyristorBehaviourTest": "the Thyristor and its hold events: the catalog FMU of "
                                           "tests/test_catalog_electrical.py (test_catalog_fmu_agrees_with_simulate)"}
