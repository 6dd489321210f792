"""Electrical components (analog, lumped), grouped as the Modelica Standard Library's
Electrical.Analog: ``interfaces`` (partial bases), ``basic``, ``variable`` (resistor, capacitor
and inductor set by a signal) and ``inductors`` (saturating inductor, transformer) of its
Basic, ``ideal``, ``opamps`` (the op-amp clipped at its supplies), ``semiconductors`` (Diode,
BJT, MOSFET, JFET and their pn-junction functions, ZDiode, Thyristor), ``sources``, ``sensors``,
``machines`` (DC machines), ``converters`` (DC-DC), ``batteries``. Each class is imported from
here; its module is loaded when the class is first asked for.

Sign convention: the current of a port is positive *into* the component; a one-port's ``v`` is
``p.v - n.v`` and its ``i`` flows from ``p`` through the component to ``n``. The cross-domain
parts (EMF, HeatingResistor) follow the rotational and thermal conventions on their other ports.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".interfaces": ("TwoPin", "OnePort", "TwoPort"),
    ".basic": ("Ground", "Resistor", "Capacitor", "Inductor", "MutualInductance", "HeatingResistor", "EMF",
               "VCVS", "VCCS", "CCCS", "CCVS"),
    ".ideal": ("IdealTransformer", "IdealOpAmp", "Switch", "IdealDiode", "VoltageControlledSwitch",
               "CurrentControlledSwitch", "IdealThyristor", "IdealGTOThyristor",
               "IdealTwoWaySwitch", "IdealCommutingSwitch"),
    ".semiconductors": ("Diode", "BJT", "MOSFET", "JFET", "ZDiode", "Thyristor"),
    ".sources": ("VoltageSource", "CurrentSource", "SensingVoltageSource", "BehaviouralSource"),
    ".sensors": ("VoltageSensor", "CurrentSensor", "PowerSensor"),
    ".opamps": ("OpAmp",),
    ".variable": ("VariableResistor", "VariableCapacitor", "VariableInductor"),
    ".inductors": ("SaturatingInductor", "Transformer"),
    ".machines": ("DC_PermanentMagnet", "DC_ElectricalExcited", "DC_SeriesExcited"),
    ".converters": ("ChopperStepDown", "ChopperStepUp", "HBridge"),
    ".batteries": ("CellStack", "CellRCStack", "SuperCap", "CCCVcharger"),
})
