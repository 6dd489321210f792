"""The declared unit of any path of a flattened model: variable, derivative, parameter, mode
or model parameter."""
from __future__ import annotations

from ..core.errors import UnknownNameError
from .parameter_vector import unknown_name


def path_unit(flat, name: str) -> str:
    """The unit ``name`` is declared in, a string in the Modelica grammar: a variable's
    (``"V"`` for ``"C1.v"``), a derivative's, composed from its variable's (``"m/s2"`` for
    ``"der(M1.v)"``), a parameter's (``"Ohm"`` for ``"R1.R"``), a mode's (``"1"`` unless it
    declares one) or a model parameter's. A path that is none of these is an
    :class:`~physlib.core.errors.UnknownNameError` naming the close ones."""
    i = flat.var_names.find(name)
    if i is not None:
        group, _, local = flat.var_names.locate(i)
        return flat.groups[group].template.local_units[local]
    i = flat.param_names.find(name)
    if i is not None:
        return getattr(flat.param_checks[i][0], "unit", "1")
    parameter = flat.model_parameters.get(name) if isinstance(name, str) else None
    if parameter is not None:
        return parameter.unit
    raise UnknownNameError(unknown_name("variable or parameter", name,
                                        [*flat.var_names, *flat.param_names, *flat.model_parameters],
                                        flat.unread_positions))
