"""Hydraulics: lumped networks of (slightly compressible) liquid, grouped as Simscape's
hydraulic library (the Modelica Standard Library has none): ``interfaces`` (partial base),
``components``, ``valves``, ``machines`` (pumps and cylinders), ``sources``, ``sensors``. Each
class is imported from here; its module is loaded when the class is first asked for.

Sign convention: a port's volume flow ``q`` is positive *into* the component. A two-port's
``dp`` is ``port_a.p − port_b.p`` and its ``q`` flows from ``port_a`` through the component to
``port_b``. Pressures are absolute or gauge as the user chooses: nothing here depends on the
zero of pressure except FluidCapacitance's stored energy, which counts from p = 0.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".interfaces": ("TwoPort",),
    ".components": ("LaminarResistance", "Orifice", "FluidCapacitance", "Inertance"),
    ".valves": ("CheckValve", "VariableOrifice", "ReliefValve", "SpoolValve"),
    ".machines": ("Pump", "Cylinder", "VariableDisplacementPump", "HydraulicMotor"),
    ".cylinders": ("DoubleActingCylinder",),
    ".accumulators": ("Accumulator",),
    ".pipes": ("Pipe",),
    ".sources": ("FixedPressure", "PressureSource", "FlowSource"),
    ".sensors": ("PressureSensor", "FlowSensor"),
})
