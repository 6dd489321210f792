"""The ``<UnitDefinitions>`` of an exported FMU's modelDescription.xml (FMI 2.0, section 2.2.2).

Each unit a variable names is defined once, with its ``<BaseUnit>``: the exponents of kg, m,
s, A, K, mol, cd and rad and the factor and offset to them (``value_SI = factor·value +
offset``), so an importer can convert between FMUs (a ``kOhm`` is factor 1000 of
kg·m²·s⁻³·A⁻², a ``degC`` offset 273.15 of K). Display units chosen at export
(``display_units={"rotor.w": "rpm"}``) become ``<DisplayUnit>`` entries of their variable's
unit (``display = factor·value + offset``) and the variable's ``displayUnit``.

A unit FMI cannot define, with a non-integer exponent (``V(1/2)``, a MOSFET's body-effect
coefficient) or outside the Modelica grammar, is listed by name alone.
"""
from __future__ import annotations

from xml.etree import ElementTree as ET

from ...core.errors import ExportError, ParameterError
from ...core.units import BASE_DIMENSIONS, UnitError, parse
from ..common.display_units import display_conversion

# FMI's attribute of each of physlib's base dimensions (the same names, in FMI's order)
FMI_BASE_UNITS = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")
assert set(FMI_BASE_UNITS) == set(BASE_DIMENSIONS)


def display_units_of(table, display_units) -> dict[str, tuple[str, float, float]]:
    """{variable name: (display unit, factor, offset)} for ``display_units`` ({path: unit});
    an :class:`~physlib.core.errors.ExportError` names a path that is no exported variable, or
    a unit of another dimension."""
    units = {v.name: v.unit for v in table}
    out = {}
    for name, display in dict(display_units or {}).items():
        if name not in units:
            raise ExportError(f"display_units: {name!r} is no variable or parameter of the FMU")
        try:
            factor, offset = display_conversion(units[name], display, name)
        except (ParameterError, UnitError) as err:
            raise ExportError(f"display_units: {err}") from None
        out[name] = (display, factor, offset)
    return out


def unit_definitions(parent: ET.Element, table, display: dict) -> None:
    """Append ``<UnitDefinitions>`` to ``parent``: every unit of ``table`` (the FMU's variables)
    with its base unit, and the display units ``display`` of :func:`display_units_of`."""
    units = sorted({v.unit for v in table if v.unit})
    if not units:
        return
    shown: dict[str, dict[str, tuple[float, float]]] = {}
    for v in table:
        if v.name in display:
            name, factor, offset = display[v.name]
            shown.setdefault(v.unit, {})[name] = (factor, offset)
    definitions = ET.SubElement(parent, "UnitDefinitions")
    for unit in units:
        element = ET.SubElement(definitions, "Unit", {"name": unit})
        base = _base_unit(unit)
        if base is not None:
            ET.SubElement(element, "BaseUnit", base)
        for name, (factor, offset) in sorted(shown.get(unit, {}).items()):
            attributes = {"name": name, "factor": repr(factor)}
            if offset:
                attributes["offset"] = repr(offset)
            ET.SubElement(element, "DisplayUnit", attributes)


def _base_unit(unit: str) -> dict[str, str] | None:
    """The attributes of ``<BaseUnit>`` for ``unit``, or None where FMI has none for it."""
    try:
        parsed = parse(unit)
    except UnitError:
        return None
    exponents = dict(zip(BASE_DIMENSIONS, parsed.exponents))
    if any(power.denominator != 1 for power in exponents.values()):
        return None
    attributes = {name: str(int(exponents[name])) for name in FMI_BASE_UNITS if exponents[name]}
    if parsed.factor != 1.0:
        attributes["factor"] = repr(parsed.factor)
    if parsed.offset:
        attributes["offset"] = repr(parsed.offset)
    return attributes
