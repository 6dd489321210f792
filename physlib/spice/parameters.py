"""A deck's ``.param`` names as model parameters of its physlib model.

Each top-level ``.param`` becomes a model parameter of ``deck.model`` (:meth:`physlib.Model.
parameter`) whose default is its expression (:class:`ParamExpression`: ``rser={rload/4}``
follows rload). Each element value the reader computed (a *binding* of
:mod:`physlib.spice.elements`: ``r1.R``, ``v1.V.offset``, a B source's ``b1.k1``, …) is
given to its component as an :class:`ElementValue`, an expression of those model
parameters, so the compiled model recomputes it when a run sets a ``.param``
(``sim.simulate(params={"rload": 2e3})``, ``physlib.sweep``) without recompiling, with the
deck's own rules: subcircuit parameters, ``.func``, ngspice's source defaults.

The element values are evaluated by :class:`DeckValues`, the reader's value functions with
the top-level ``.param`` values overridden, all at once per set of values. A compiled model
pickles with it (sweep workers): it then travels as the sorted deck and the options, and
the process that loads it builds the value functions again, once, as reading the deck does.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..assembly.netlist import Netlist
from ..core.model_parameters import ParameterExpression
from .cards import OPTIONS
from .errors import SpiceError
from .expressions import Scope, evaluate
from .numbers import Constant

__all__ = ["DeckValues", "ParamExpression", "ElementValue", "declare_parameters"]


class _Quiet:
    """The context a loaded :class:`DeckValues` builds with: the options, ``.tran`` values and
    physical constants (the set a resistor's thermal noise reads) of the deck it was made from;
    warnings were given when the deck was read."""

    def __init__(self, options: dict, tran_values: tuple, constants):
        self.options, self.tran_values, self.constants = options, tran_values, constants

    def tran(self):
        return self.tran_values

    def option(self, name):
        return self.options[name]

    def warn(self, where, message):
        pass


class DeckValues:
    """Every element value of a deck (parameter path → value) with given ``.param`` values.

    ``netlist``: the sorted deck; ``name``: the model's name; ``builder``: the reader's
    :class:`~physlib.spice.elements.Builder` (its value functions, top scope and subcircuit
    scopes); ``ctx``: the deck's context (``.tran`` values and options); ``parameters``:
    ``.param`` name → its :class:`~physlib.core.model_parameters.ModelParameter`."""

    def __init__(self, netlist, name: str, builder, ctx):
        self.netlist, self.name, self.builder, self.ctx = netlist, name, builder, ctx
        self.parameters: dict = {}
        self._last = (None, None)          # (key, values): the last set evaluated

    @contextmanager
    def overridden(self, values: dict):
        """The reader's scopes with the top-level ``.param`` values ``values`` (name → value)."""
        builder = self._built()
        builder.scope.overrides = values
        for s in builder.scopes:
            s.forget()
        try:
            yield
        finally:
            builder.scope.overrides = {}
            for s in builder.scopes:
                s.forget()

    def values(self, value_of) -> dict:
        """{parameter path: value} of every element value that is not a number (those a
        ``.param`` value, the temperature or the .tran card can change), with ``value_of(p)``
        the value of model parameter ``p``."""
        overrides = {name: value_of(p) for name, p in self.parameters.items()}
        key = (tuple(overrides.values()), tuple(self.ctx.tran()), self.ctx.option("temp"))
        if self._last[0] != key:
            with self.overridden(overrides):
                values = {path: function() for path, (function, _) in self._built().bindings.recorded.items()
                          if type(function) is not Constant}
            self._last = (key, values)
        return self._last[1]

    def _built(self):
        """The Builder, made again from the sorted deck in a process that loaded this."""
        if self.builder is None:
            from .elements import Builder
            self.builder = Builder(self.netlist, self.name, self.ctx)
            self.builder.dc_joins = None        # the deck's DC paths were checked when it was read
        return self.builder

    def __getstate__(self):
        return {"netlist": self.netlist, "name": self.name, "parameters": self.parameters,
                "options": {name: self.ctx.option(name) for name in OPTIONS},
                "tran_values": tuple(self.ctx.tran()), "constants": self.ctx.constants}

    def __setstate__(self, state):
        self.__init__(state["netlist"], state["name"], None,
                      _Quiet(state["options"], state["tran_values"], state["constants"]))
        self.parameters = state["parameters"]


class ElementValue(ParameterExpression):
    """One element value of a deck (``path``: its physlib parameter path; ``where``: its card)
    as an expression of the deck's ``.param`` model parameters."""

    def __init__(self, deck_values: DeckValues, path: str, where):
        self.deck_values, self.path, self.where = deck_values, path, where

    def evaluate(self, value_of) -> float:
        return self.deck_values.values(value_of)[self.path]

    def parameters(self):
        return tuple(self.deck_values.parameters.values())

    def __str__(self):
        return f"its value on {self.where}" if self.where is not None else "its deck value"


class _Resolved(Scope):
    """The deck's top scope with each ``.param`` name read as a model parameter's value."""

    def __init__(self, functions: dict, parameters: dict, value_of):
        super().__init__(label="deck")
        self.functions = functions
        self._parameters, self._value_of = parameters, value_of

    def value(self, name, where):
        parameter = self._parameters.get(name)
        if parameter is not None:
            return self._value_of(parameter)
        return super().value(name, where)


class ParamExpression(ParameterExpression):
    """A top-level ``.param``'s expression (``tree``, parsed; ``where`` its card) over the
    other ``.param`` names, with the deck's ``.func`` definitions (``functions``)."""

    def __init__(self, tree, where, functions: dict, parameters: dict):
        self.tree, self.where, self.functions, self.names = tree, where, functions, parameters

    def evaluate(self, value_of) -> float:
        return evaluate(self.tree, _Resolved(self.functions, self.names, value_of), self.where)

    def parameters(self):
        return tuple(self.names.values())

    def __str__(self):
        return self.where.text if self.where is not None else "a .param expression"


def declare_parameters(model, builder, ctx, netlist, name) -> DeckValues:
    """Declare the top-level ``.param`` names of a deck as model parameters of ``model`` and
    give every element value to its component as an :class:`ElementValue`; returns the
    :class:`DeckValues` that evaluates them. A deck without ``.param`` keeps numbers, brought
    up to date with the context (the ``.tran`` card's values, read after the elements)."""
    deck_values = DeckValues(netlist, name, builder, ctx)
    scope = builder.scope
    for param in scope.trees:
        if not param.isidentifier():
            raise SpiceError(f".param {param}: physlib keeps .param names as model parameters, "
                             "whose names are identifiers (letters, digits, '_'); rename it",
                             scope.places[param])
        expression = ParamExpression(scope.trees[param], scope.places[param], scope.functions,
                                     deck_values.parameters)
        deck_values.parameters[param] = model.parameter(param, expression)
    members = model.components
    given = bool(deck_values.parameters)
    for path, (function, where) in builder.bindings.recorded.items():
        if type(function) is Constant:
            continue        # a number: its component was made with it, and nothing changes it
        target, key = _target(model, path, members)
        if given:
            setattr(target, key, ElementValue(deck_values, path, where))
            continue
        value = function()
        parameters = target.parameters      # (input values only read when needed: both copy)
        if value != (parameters[key] if key in parameters else target.input_values.get(key)):
            setattr(target, key, value)
    return deck_values


def _target(model, path: str, members: dict):
    """(component, parameter or input name) of a parameter path of ``model``, whose members
    are ``members``: ``x1.r1.R`` → (x1's r1, "R"); ``v1.V.offset`` → (the waveform given to
    v1's V, "offset")."""
    owner, _, name = path.rpartition(".")
    target = members.get(owner)         # most paths: a value of a top-level element, "r1.R"
    if target is not None:
        return target, name
    *parts, name = path.split(".")
    target = model
    for part in parts:
        target = target[part] if isinstance(target, Netlist) else target.input_values[part]
    return target, name
