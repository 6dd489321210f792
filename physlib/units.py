"""Units: Modelica unit strings, and quantities of pint, astropy and unyt.

``parse("kg.m2")``, ``parse("m3/(s.Pa)")``, ``parse("V(1/2)")`` read a unit string in the
Modelica grammar (the one of the Modelica Standard Library and FMI) into a :class:`Unit`: the
factor and offset to the coherent SI unit and the exponents over the SI base dimensions and
angle. Component parameters, signal inputs, model parameters, ``params=`` and ``x0=`` take a
quantity of pint, astropy or unyt wherever they take a number: it is converted to the declared
unit (``Resistor("R1", R=Q_(10, "kohm"))`` is ``R=1e4``), and a quantity of another dimension
is a :class:`~physlib.ParameterError` naming both units. Cycles and radians never cross: rpm
converts to rad/s, Hz (cycles per second) to neither. physlib imports none of these libraries:
it recognises their quantities when it is given one.

``UnitWarning``: ``Model.compile(units="warn")`` (the default) warns when the equations of a
component class add, compare or take functions of quantities whose units disagree;
``units="strict"`` makes it an error, ``units="off"`` skips it.
"""
from .core.errors import UnitCheckError
from .core.units import (BASE_DIMENSIONS, PREFIXES, SYMBOLS, Unit, UnitError, UnitWarning, conversion, divided,
                         factors, format_factors, parse, quantity_unit, quantity_value, raised)

__all__ = ["BASE_DIMENSIONS", "PREFIXES", "SYMBOLS", "Unit", "UnitError", "UnitWarning", "UnitCheckError", "conversion", "divided",
           "factors", "format_factors", "parse", "quantity_unit", "quantity_value", "raised"]

