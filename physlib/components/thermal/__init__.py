"""Lumped heat transfer, temperatures in kelvin, grouped as the Modelica Standard Library's
Thermal.HeatTransfer: ``interfaces`` (partial base), ``components``, ``sources``, ``sensors``.
Each class is imported from here; its module is loaded when the class is first asked for.

Sign convention: a port's heat flow ``Q`` is positive *into* the component. A two-port's ``dT``
is ``port_a.T − port_b.T`` and its ``Q`` flows from ``port_a`` through the component to
``port_b``. Heat flow is itself a power: see :mod:`.components` for what the thermal parts
declare as stored energy and dissipation.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".interfaces": ("TwoPort", "ConditionalHeatPort"),
    ".components": ("HeatCapacitor", "ThermalConductor", "Convection", "BodyRadiation", "STEFAN_BOLTZMANN",
                    "TemperatureDependentConductor", "VariableConvection"),
    ".sources": ("FixedTemperature", "HeatFlowSource", "PrescribedTemperature", "PrescribedHeatFlow"),
    ".sensors": ("TemperatureSensor", "HeatFlowSensor"),
})
