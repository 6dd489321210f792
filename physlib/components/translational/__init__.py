"""Translational mechanics (1-D, velocity-based), grouped as the Modelica Standard Library's
Mechanics.Translational: ``interfaces`` (partial bases), ``components``, ``sources``,
``sensors``. Each class is imported from here; its module is loaded when the class is first
asked for.

Sign convention (as in the Modelica Standard Library): a flange's force ``f`` is positive *into*
the component; relative quantities are flange_b minus flange_a (``v_rel = flange_b.v −
flange_a.v``, ``s_rel`` likewise). Flanges carry velocities, not positions: components that
need a position (Mass.s, spring deflections, PositionSensor) integrate it as a state of their own.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".interfaces": ("TwoFlange", "Compliant", "Supported"),
    ".components": ("Fixed", "Mass", "Spring", "Damper", "SpringDamper", "ElastoGap", "IdealRackPinion",
                    "HardStop"),
    ".friction": ("Brake", "SupportFriction", "MassWithStopAndFriction"),
    ".vehicles": ("Vehicle",),
    ".sources": ("Force", "Velocity", "ConstantForce", "LinearSpeedDependentForce",
                 "QuadraticSpeedDependentForce", "InverseSpeedDependentForce", "SignForce", "Accelerate",
                 "Position", "Move", "EddyCurrentForce"),
    ".sensors": ("SpeedSensor", "ForceSensor", "PositionSensor"),
})
