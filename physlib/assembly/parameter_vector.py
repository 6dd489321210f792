"""A compiled model's parameter vector from names: parameter paths (``"R1.R"``) and model
parameters (``"rload"``, :mod:`physlib.core.model_parameters`).

Each parameter entry holds one component parameter (or mode); model parameters have no
entries of their own. Setting one recomputes the entries given as expressions of model
parameters (:attr:`~physlib.assembly.flatten.FlatSystem.derived_slots`), each checked by its
component's declaration; an entry also given by its own path keeps that value.
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping

import numpy as np

from ..core.component import Component, Mode, as_real
from ..core.errors import ParameterError, StructureChangeError
from ..core.model_parameters import depends_on, resolver, value_in
from ..core.units import quantity_value

__all__ = ["parameter_vector", "model_parameter_values", "derived_from", "structural_error", "unknown_name"]


def parameter_vector(flat, params: dict | None) -> np.ndarray:
    """The parameter vector of ``flat`` (a :class:`~physlib.assembly.flatten.FlatSystem`) with
    its compiled-in values and ``params`` ({parameter path or model parameter name: value},
    each in its parameter's unit)."""
    values = flat.param_values.copy()
    if params is not None and not isinstance(params, Mapping):
        raise ParameterError(f"params must be a dict of parameter paths to values, e.g. "
                             f"{{'R1.R': 2e3}}; got {type(params).__name__} {params!r:.60}")
    given, chosen = [], {}
    model_parameters = flat.model_parameters
    for name, value in (params or {}).items():
        parameter = model_parameters.get(name) if isinstance(name, str) else None
        if parameter is not None:
            number = as_real(value)
            if number is None:
                number = quantity_value(value, parameter.unit, f"model parameter {name}")
            if number is None or not np.isfinite(number):
                raise ParameterError(f"model parameter {name} must be a finite real number "
                                     f"[{parameter.unit}], got {value!r:.60}")
            chosen[parameter] = number
            continue
        i = flat.param_names.find(name)
        if i is None:
            raise (structural_error(flat, name)
                   or ParameterError(unknown_name("parameter", name, [*model_parameters, *flat.param_names])))
        declaration, owner = flat.param_checks[i]
        if isinstance(declaration, Mode):
            raise ParameterError(f"{name} is a mode of {owner}; modes change only at events")
        values[i] = declaration.validate(value, owner)
        given.append(i)
    if chosen:
        given += _derive(flat, values, chosen, set(given))
    if given:
        _check_components(flat, values, given)
    return values


def model_parameter_values(flat, params: dict | None) -> dict[str, float]:
    """Every model parameter's value in a run given ``params``: the real numbers it gives model
    parameters, the others' defaults (expressions of those given computed again)."""
    declared = flat.model_parameters
    chosen = {declared[name]: number for name, value in (params or {}).items()
              if isinstance(name, str) and name in declared and (number := as_real(value)) is not None}
    value_of = resolver(chosen)
    return {name: value_of(parameter) for name, parameter in declared.items()}


def derived_from(flat, name: str) -> list[str]:
    """The paths of the parameter entries computed from model parameter ``name``."""
    parameter = flat.model_parameters[name]
    return [flat.param_names[slot] for slot, expression
            in zip(flat.derived_slots.tolist(), flat.derived_expressions)
            if depends_on(expression, parameter)]


def _derive(flat, values: np.ndarray, chosen: dict, explicit: set) -> list[int]:
    """Recompute in ``values`` the entries given as model-parameter expressions, with the
    model parameters ``chosen`` ({ModelParameter: value}) and the others at their defaults,
    except the ``explicit`` entries; returns the entries recomputed."""
    value_of = resolver(chosen)
    setting = ", ".join(f"{p.name} = {v:g}" for p, v in chosen.items())
    done = []
    for slot, expression in zip(flat.derived_slots.tolist(), flat.derived_expressions):
        if slot in explicit:
            continue
        declaration, owner = flat.param_checks[slot]
        try:
            values[slot] = declaration.validate(value_in(expression, declaration.unit, value_of), owner)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise ParameterError(f"{flat.param_names[slot]} = {expression} with {setting}: "
                                 f"{err}") from None
        done.append(slot)
    return done


def _check_components(flat, values: np.ndarray, given: list[int]) -> None:
    """Check each component with an entry ``given`` by name or through a model parameter,
    with the values it would run with: a :class:`StructureChangeError` if they need other
    equations than the ones compiled in (:meth:`Component.structure_change`), and the
    :class:`ParameterError` of its checks that involve several parameters
    (:meth:`Component.validate`: a relief valve's A_max above its A_leak), which a constructor
    runs and ``params=`` would otherwise bypass."""
    checked = set()
    for i in given:
        g, row, _ = flat.param_names.locate(i)
        if (g, row) in checked:
            continue
        checked.add((g, row))
        group = flat.groups[g]
        comp = group.components[row]
        changes, validates = (getattr(type(comp), check) is not getattr(Component, check)
                              for check in ("structure_change", "validate"))
        if not (changes or validates):      # a resistor of a million-element sweep: nothing to do
            continue
        path, names = group.paths[row], group.template.param_names
        ids = group.param_ids[row][:len(names)]
        asked = dict(zip(names, values[ids].tolist()))
        if changes:
            why = comp.structure_change(dict(zip(names, flat.param_values[ids].tolist())), asked)
            if why:
                raise StructureChangeError(
                    f"params for {type(comp).__name__} {path}: {why}; a compiled model keeps "
                    f"the equations it was compiled with. Set the value before compiling "
                    f"({path.rsplit('.', 1)[-1]}.<parameter> = value, or in the constructor) "
                    "and compile again")
        if validates:
            _validate_with(comp, path, asked)


def _validate_with(comp: Component, path: str, asked: dict) -> None:
    """Run ``comp``'s :meth:`Component.validate` on a copy holding the values ``asked`` (by
    name; the component itself keeps its own), its ParameterError naming the path and params."""
    trial = object.__new__(type(comp))
    trial.__dict__.update(comp.__dict__)
    object.__setattr__(trial, "_values", {**comp._values, **asked})
    try:
        trial.validate()
    except ParameterError as err:
        raise ParameterError(f"params for {type(comp).__name__} {path}: {err}") from None


def structural_error(flat, name) -> StructureChangeError | None:
    """The error for ``name`` when it is a structural parameter of one of the model's components
    (its value chose the equations: it has no entry in the parameter vector), else None."""
    path, _, local = name.rpartition(".") if isinstance(name, str) else ("", "", "")
    for group in flat.groups:
        if path in group.paths:
            comp = group.components[group.paths.index(path)]
            declaration = type(comp)._parameters.get(local)
            if declaration is not None and declaration.structural:
                return StructureChangeError(
                    f"{name} is a structural parameter of {type(comp).__name__} {path}: its value chose "
                    "the equations compiled in, so params= cannot change it. Set it on the component "
                    f"({local}=... in the constructor) and compile again; sweep such values over "
                    "models compiled one per value")
    return None


def unknown_name(kind: str, name: str, known, unread=frozenset()) -> str:
    """The message for an unknown variable or parameter path ``name``, with the close ones
    among ``known``; ``unread``: position variables the model does not compute."""
    if not isinstance(name, str):
        return f"unknown {kind} {name!r}: give its path as a string, e.g. 'C1.v' or 'R1.R'"
    if name in unread:
        return (f"{name} is not computed: nothing in the model reads that position and no body or "
                "spring fixes it, so physlib does not integrate it; to have it, put an AngleSensor "
                "(rotational) or PositionSensor (translational) on one of its flanges")
    close = difflib.get_close_matches(name, list(known), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown {kind} {name!r}{hint}"
