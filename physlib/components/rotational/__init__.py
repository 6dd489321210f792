"""Rotational mechanics (1-D, velocity-based), grouped as the Modelica Standard Library's
Mechanics.Rotational: ``interfaces`` (partial bases), ``components``, ``friction`` (stick-slip
and freewheel), ``sources``, ``sensors``. Each class is imported from here; its module is
loaded when the class is first asked for.

Sign convention (as in the Modelica Standard Library): a flange's torque ``tau`` is positive
*into* the component; relative quantities are flange_b minus flange_a (``w_rel = flange_b.w −
flange_a.w``, ``phi_rel`` likewise). Flanges carry speeds, not angles: components that need an
angle (Inertia.phi, spring deflections, AngleSensor) integrate it as a state of their own.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".interfaces": ("TwoFlange", "Compliant", "Supported"),
    ".components": ("Fixed", "Inertia", "Spring", "Damper", "SpringDamper", "IdealGear", "IdealPlanetary",
                    "ElastoBacklash", "IdealRollingWheel"),
    ".friction": ("StickSlip", "HousingSlip", "Clutch", "Brake", "OneWayClutch"),
    ".losses": ("BearingFriction", "LossyGear"),
    ".sources": ("Torque", "Speed", "SpeedDependentTorque", "ConstantTorque", "LinearSpeedDependentTorque",
                 "QuadraticSpeedDependentTorque", "InverseSpeedDependentTorque", "SignTorque", "TorqueStep",
                 "EddyCurrentTorque", "ConstantSpeed", "DrivenFlange", "Accelerate", "Position", "Move"),
    ".sensors": ("SpeedSensor", "TorqueSensor", "AngleSensor"),
})
