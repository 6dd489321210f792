"""Group B of the MSL corpus, analog electrical part: the Electrical.Analog examples that need
issue 36's op-amp with supply limits, variable and saturating elements (tests/msl_corpus.py
collects this module's EXAMPLES; tests/data/README.md lists what is compared and why).

Each builder rebuilds the MSL example (tag v4.1.0) with the MSL's instance names; start values
the MSL gives as initial equations are worked out in the docstring."""
from __future__ import annotations

import math

from physlib import Model
from physlib.components.electrical import (Capacitor, Ground, Inductor, OpAmp, Resistor,
                                           VoltageSensor, VoltageSource)

from msl_corpus import Example, trapezoid_input


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


EXAMPLES = [
    Example("Comparator", "Modelica.Electrical.Analog.Examples.OpAmps.Comparator", comparator,
            1.0, 1e-7),
    Example("InvertingSchmittTrigger",
            "Modelica.Electrical.Analog.Examples.OpAmps.InvertingSchmittTrigger",
            inverting_schmitt_trigger, 1.0, 1e-7),
]
