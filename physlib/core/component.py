"""The :class:`Component` base class and its declarations: ports, parameters, variables.

A component class declares, once, its ports (typed by domain), its parameters (default, unit,
description, validation), its internal variables, and its equations in SymPy. physlib derives
the equations once per class (see :mod:`physlib.assembly.templates`) and instantiates them for
every component cheaply, so a model with 10,000 resistors costs one SymPy derivation.

Inside :meth:`Component.equations` (and the other declaration methods) attribute access yields
SymPy symbols: ``self.R`` is the resistance symbol, ``self.p.v`` the potential of pin ``p``.
Outside them ``self.R`` is the numeric value and ``self.v`` the variable's path (``"R1.v"``).
"""
from __future__ import annotations

import difflib
import math
import numbers
import sys
import weakref
from collections import deque
from itertools import repeat
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from ..domains import Domain, signal
from .errors import (DeclarationError, MissingPortError, ModelError, ParameterError, PhyslibError,
                     PortConnectionError, UnknownAttributeError)
from .model_parameters import ParameterExpression, check_dimension, nominal_value, value_in
from .units import quantity_value
from . import symbols

_REQUIRED = object()
_LARGEST = sys.float_info.max
_SMALLEST_POSITIVE = 5e-324     # the smallest positive float: x > 0 exactly when x >= this


def check_name(name: Any, what: str) -> str:
    """Validate a component/model/port name: an identifier (dots separate path levels)."""
    # An ASCII identifier is exactly [A-Za-z_][A-Za-z0-9_]*; two string methods check it faster
    # than a regular expression, for the thousands of names of a large model.
    if not isinstance(name, str) or not (name.isascii() and name.isidentifier()):
        raise ParameterError(
            f"{what} name {name!r} is not valid: use letters, digits and '_' "
            "(not starting with a digit); dots are reserved for paths like 'sub.R1.v'"
        )
    return name


def check_rename(member: Any, new: Any) -> None:
    """Refuse ``member.name = new`` (a component or a model) once a model holds ``member``:
    the model files its members, their ports and variable paths (``"R1.v"``) under the name
    they had when added, and would go on using the old one."""
    ref = member._member_of         # a weak reference to the model, set by Model.add
    model = None if ref is None else ref()
    old = member.__dict__.get("name")
    if model is None or new == old or not model.holds(member):
        return
    if isinstance(member, Component):
        kind = type(member).__name__
        raise ModelError(
            f"cannot rename {kind} {old!r} to {new!r}: it is already a member of model "
            f"{model.name!r}, which knows it and its variables ({old}.…) by its old name; give "
            f"the name when creating it, before adding it: {kind}({new!r}, ...), then "
            f"{model.name}.add(...)")
    raise ModelError(
        f"cannot rename model {old!r} to {new!r}: it is already a subsystem of model "
        f"{model.name!r}, which knows it and its variables ({old}.…) by its old name; name it "
        f"when creating it, before adding it: Model({new!r})")


def as_real(value: Any) -> float | None:
    """``float(value)`` for a real number -- Python, NumPy (``np.float32``, ``np.int64``, 0-d
    arrays) or SymPy (``sp.Rational(1, 3)``, ``sp.pi``) -- and None for anything else: strings
    (even ``"1e3"``), booleans, lists, complex numbers, symbols."""
    if type(value) is float or type(value) is int:      # the common case, without ABC checks
        return float(value)
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    # A plain 0-d array only: subclasses of ndarray are astropy and unyt quantities, whose
    # float() would drop (unyt) or refuse (astropy) their unit; quantity_value converts them.
    if type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "iuf":
        return float(value)
    sympy = sys.modules.get("sympy")      # without SymPy imported, value is no SymPy number
    if sympy is not None and isinstance(value, sympy.Basic) and getattr(value, "is_number", False) \
            and value.is_real:
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    return None


def _describe_value(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


class Parameter:
    """A component parameter: ``R = Parameter(unit="Ohm", description="Resistance", positive=True)``.

    Without a default the parameter is required. Values must be finite real numbers; the
    flags add checks (``positive``: > 0, ``nonnegative``: >= 0, ``nonzero``: != 0), ``check``
    is a predicate with its own message. A ``structural`` parameter changes the equations'
    structure (e.g. whether a gear has a support flange); it is a plain Python value inside
    the equations and part of the class template's cache key.
    """

    def __init__(self, default: Any = _REQUIRED, unit: str = "1", description: str = "", *,
                 positive: bool = False, nonnegative: bool = False, nonzero: bool = False,
                 check: tuple[Callable[[float], bool], str] | None = None, structural: bool = False):
        self.default = default
        self.unit = unit
        self.description = description
        self.positive = positive
        self.nonnegative = nonnegative
        self.nonzero = nonzero
        self.check = check
        self.structural = structural
        self.name = ""
        # Floats from _plain_from up to the largest finite float pass validate() unchanged (+inf:
        # validate has more to check). Lets a constructor skip the call for most values.
        more = structural or nonzero or check is not None or type(self).validate is not Parameter.validate
        self._plain_from = math.inf if more else \
            _SMALLEST_POSITIVE if positive else 0.0 if nonnegative else -_LARGEST

    def __set_name__(self, owner, name):
        self.name = name

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def invalid(self, component: str, problem: str) -> ParameterError:
        """The error for a bad value of this parameter of ``component``."""
        return ParameterError(f"parameter {self.name} of {component} {problem}")

    def validate(self, value: Any, component: str) -> Any:
        """The value as stored (a float for ordinary parameters), or a :class:`ParameterError`
        naming the parameter and ``component``."""
        if self.structural:
            # A flag (default True/False) must be a bool: use_support="no" would be truthy.
            if isinstance(self.default, bool):
                if not isinstance(value, (bool, np.bool_)):
                    raise self.invalid(component, f"is a flag: give True or False, got {_describe_value(value)}")
                return bool(value)
            # a quantity in its unit (Filter's f_cut in kHz), as ordinary parameters take one
            number = quantity_value(value, self.unit, f"parameter {self.name} of {component}")
            return value if number is None else number
        number = value if type(value) is float else as_real(value)
        if number is None:
            number = quantity_value(value, self.unit, f"parameter {self.name} of {component}")
        if number is None:
            raise self.invalid(component, f"must be a real number [{self.unit}], got {_describe_value(value)}")
        value = number
        if not math.isfinite(value):
            raise self.invalid(component, f"is {value}; give a finite value in {self.unit}")
        if self.positive and value <= 0:
            raise self.invalid(component, f"must be > 0 {self.unit}, got {value:g}")
        if self.nonnegative and value < 0:
            raise self.invalid(component, f"must be >= 0 {self.unit}, got {value:g}")
        if self.nonzero and value == 0:
            raise self.invalid(component, "must not be zero")
        if self.check is not None and not self.check[0](value):
            raise self.invalid(component, f"= {value:g}: {self.check[1]}")
        return value

    def validate_expression(self, expression: ParameterExpression, component: str) -> float:
        """The value of a model-parameter expression (``R=2*rload``) with the model parameters
        at their defaults, checked as :meth:`validate` checks a number."""
        if self.structural:
            raise self.invalid(component, f"is structural (it decides the component's ports and "
                                          f"equations): give a value, not the model-parameter "
                                          f"expression {expression}")
        check_dimension(expression, self.unit, f"parameter {self.name} of {component}")
        try:
            value = value_in(expression, self.unit)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise self.invalid(component, f"= {expression} cannot be evaluated: {err}") from None
        return self.validate(value, component)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        if instance._deriving and not self.structural:
            return symbols.parameter_symbol(self.name)
        return instance._values[self.name]

    def __set__(self, instance, value):
        """``r.R = 5e3``: validated like a constructor value; takes effect at the next
        ``Model.compile()`` (a compiled model keeps the values it was compiled with).
        Checks that involve several parameters (:meth:`Component.validate`) run at compile,
        so related parameters can be changed one after the other. A model-parameter
        expression (``r.R = 2*rload``) replaces the value or expression the parameter had,
        and a number replaces an expression."""
        kind = type(instance).__name__
        if self.structural:
            raise ParameterError(
                f"parameter {self.name} of {kind} {instance.name!r} is structural (it decides the "
                f"component's ports and equations) and cannot be changed after construction; create "
                f"a new component instead: {kind}({instance.name!r}, {self.name}={value!r}, ...)")
        if isinstance(value, ParameterExpression):
            instance._values[self.name] = self.validate_expression(value, instance.name)
            # A new table: the class's shared empty one stays empty.
            object.__setattr__(instance, "_expressions", {**instance._expressions, self.name: value})
        else:
            instance._values[self.name] = self.validate(value, instance.name)
            if self.name in instance._expressions:
                object.__setattr__(instance, "_expressions", {k: v for k, v in instance._expressions.items()
                                                              if k != self.name})
        # A new set: the one the component has is shared with others made with the same keywords.
        object.__setattr__(instance, "_given", instance._given | {self.name})


class Variable:
    """An internal variable of a component, with unit, description and start value.

    A variable whose derivative appears in the equations (``der(self.v)``) is a state; its
    initial value is ``start`` unless :meth:`Component.initial` says otherwise.

    ``nominal`` (> 0, in the variable's unit) scales the solvers' absolute tolerance for it:
    they hold its error within rtol·|value| + atol·nominal, as Modelica tools scale theirs by
    a variable's ``nominal`` attribute. The default 1 suits volts, amperes, metres, radians;
    a quantity whose values are many decades smaller needs its own. A junction charge of a
    few picocoulombs under atol = 1e-8 (C) would be left out of the error test altogether:
    its charge states declare 1e-8 C, SPICE's charge tolerance relative to its voltage one
    (chgtol/vntol = 1e-14 C / 1e-6 V), so atol 1e-8 V holds them to 1e-16 C.
    """

    def __init__(self, unit: str = "1", description: str = "", start: float = 0.0, nominal: float = 1.0):
        if not (isinstance(nominal, (int, float)) and 0 < nominal < float("inf")):
            raise DeclarationError(f"a variable's nominal size must be a positive number, got {nominal!r}")
        self.unit = unit
        self.description = description
        self.start = start
        self.nominal = float(nominal)
        self.name = ""

    def __set_name__(self, owner, name):
        self.name = name

    def symbol(self):
        return symbols.VariableSymbol(self.name, real=True)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        if instance._deriving:
            return self.symbol()
        return f"{instance.name}.{self.name}"

    def __set__(self, instance, value):
        path = f"{instance.name}.{self.name}"
        raise ParameterError(
            f"{path} is a variable of {type(instance).__name__} {instance.name!r}, not a parameter: "
            f"give its start value with the component's start parameter or "
            f"simulate(x0={{{path!r}: ...}}); read it from results with res[{path!r}]")


class Mode(Variable):
    """A discrete variable of a hybrid component (a clutch's stick/slip state, a switch's
    position), with named integer codes: ``mode = Mode({"stuck": 0, "free": 2}, start="free")``.

    The solver integrates with all modes frozen; inside equations a mode is a symbol, usually
    used in ``Piecewise((expr_stuck, Eq(self.mode, 0)), ...)``. Modes change only at events,
    through :meth:`Component.transition`; the result reports them like variables
    (``res["clutch1.mode"]``).
    """

    def __init__(self, codes: dict[str, int], start: str | int, description: str = ""):
        if not isinstance(codes, dict) or not codes or \
                not all(isinstance(k, str) and isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                        for k, v in codes.items()):
            raise DeclarationError(f"Mode codes must be a dict of names to integers, e.g. "
                                   f"{{'stuck': 0, 'free': 1}}; got {codes!r}")
        code = codes.get(start) if isinstance(start, str) else \
            (int(start) if isinstance(start, (int, np.integer)) and not isinstance(start, bool) else None)
        if code is None or code not in codes.values():
            raise DeclarationError(f"Mode start {start!r} is not one of the codes {codes}")
        super().__init__("1", description, code)
        self.codes = dict(codes)

    def symbol(self):
        return symbols.ModeSymbol(self.name, integer=True)


class Discrete(Mode):
    """A real-valued discrete variable (a sampled input, a digital controller's memory):
    ``held = Discrete(unit="V", start=0.0)``, or ``start="y0"`` to start from the value of the
    class's parameter ``y0``.

    Like a :class:`Mode` it sits in the parameter vector and is constant while the solver
    integrates; it changes only at the component's sample instants (its :meth:`time_events`),
    through :meth:`Component.update`. Results read it like a variable (``res["zoh.held"]``).
    Inside equations it is a real-valued symbol, usable in any expression.
    """

    def __init__(self, unit: str = "1", description: str = "", start: float | str = 0.0):
        # A parameter's name is checked against the class in Component.__init_subclass__; the
        # parameter vector holds 0 there until a run copies the parameter's value in.
        self.start_parameter = start if isinstance(start, str) else None
        Variable.__init__(self, unit, description, 0.0 if isinstance(start, str) else start)

    def symbol(self):
        return symbols.ModeSymbol(self.name, real=True)     # real-valued, unlike a mode's integer codes


class Port:
    """A physical connector of a domain: ``p = Port(electrical, "positive pin")``.

    ``condition`` names a structural boolean parameter; the port exists only when it is true
    (``support = Port(rotational, "housing", condition="use_support")``).
    """

    causality: str | None = None  # "input"/"output" for signal ports

    def __init__(self, domain: Domain, description: str = "", *, condition: str | None = None):
        self.domain = domain
        self.description = description
        self.condition = condition
        self.name = ""
        # Read at every port access; a non-domain is refused when the class is declared.
        self._signal = isinstance(domain, Domain) and domain.is_signal

    def __set_name__(self, owner, name):
        self.name = name

    def variable_names(self) -> list[str]:
        """Local names of the port's variables: ``["p.v", "p.i"]``, or ``["u"]`` for a signal."""
        if self.domain.is_signal:
            return [self.name]
        return [f"{self.name}.{self.domain.across}", f"{self.name}.{self.domain.through}"]

    def __get__(self, instance, owner):
        if instance is None:
            return self
        if self.condition is not None and not instance._values[self.condition]:
            raise self._missing(instance)
        if self._signal and instance._deriving:
            return symbols.VariableSymbol(self.name, real=True)
        # Without calling PortRef.__init__: a large model takes a port for every connection.
        ref = _new_object(PortRef)
        ref.owner = instance
        ref.port = self
        return ref

    def _missing(self, instance) -> MissingPortError:
        return MissingPortError(
            f"{type(instance).__name__} {instance.name!r} has no port {self.name!r} with "
            f"{self.condition}={instance._values[self.condition]!r}: create the component with "
            f"{self.condition}=True to have it")

    def __set__(self, instance, value):
        kind = f"{type(instance).__name__} {instance.name!r}"
        if self.causality != "input":
            raise PortConnectionError(
                f"{self.name} is a port of {kind}; ports cannot be assigned, connect them with "
                f"Model.connect({instance.name}.{self.name}, ...)")
        if self.name not in instance.ports():
            raise self._missing(instance)
        # src.V = 2.0 after construction: like the keyword argument, used at the next compile.
        values = dict(instance._input_values)    # the shared empty table of the class stays empty
        values[self.name] = _input_value(value, instance.name, self.name, self.unit)
        object.__setattr__(instance, "_input_values", values)


class Input(Port):
    """A causal signal input (a source's value, a clutch's normal force, a switch command).

    It can be given a number or a waveform as the keyword argument of the same name, or be
    connected to a signal output.
    """

    causality = "input"

    def __init__(self, unit: str = "1", description: str = "", *, condition: str | None = None):
        super().__init__(signal, description, condition=condition)
        self.unit = unit


class Output(Port):
    """A causal signal output (a sensor reading, a waveform's value)."""

    causality = "output"

    def __init__(self, unit: str = "1", description: str = "", *, condition: str | None = None):
        super().__init__(signal, description, condition=condition)
        self.unit = unit


class PortRef:
    """A port of a particular component (what :meth:`Model.connect` takes).

    Inside equations its across/through attributes are symbols (``self.p.v``); outside, they
    are variable paths (``"R1.p.v"``).
    """

    __slots__ = ("owner", "port")

    def __init__(self, owner, port: Port):
        self.owner = owner
        self.port = port

    @property
    def name(self) -> str:
        return self.port.name

    @property
    def domain(self) -> Domain:
        return self.port.domain

    @property
    def path(self) -> str:
        return f"{self.owner.name}.{self.port.name}"

    def __getattr__(self, attr):
        port = object.__getattribute__(self, "port")
        if attr in (port.domain.across, port.domain.through) and attr is not None:
            owner = object.__getattribute__(self, "owner")
            if owner._deriving:
                return symbols.VariableSymbol(f"{port.name}.{attr}", real=True)
            return f"{owner.name}.{port.name}.{attr}"
        raise UnknownAttributeError(f"port {self.path} ({port.domain.name}) has no attribute {attr!r}; "
                                    f"its variables: {', '.join(port.variable_names())}")

    def __eq__(self, other):
        return isinstance(other, PortRef) and other.owner is self.owner and other.port is self.port

    def __hash__(self):
        return hash((id(self.owner), self.port.name))

    def __repr__(self):
        return f"<port {self.path} ({self.port.domain.name})>"


# The kinds of declaration, in the order of a component class's tables. Mode subclasses
# Variable: it comes last so that a mode counts among the modes only.
_KINDS = (Parameter, Variable, Port, Mode)
_DECLARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _own_declarations(klass: type) -> tuple:
    """(name, declaration, index of its kind in _KINDS) for each declaration in the body of
    ``klass`` itself. Found once per class, not again for each subclass that inherits it: a
    class body of methods scanned for every subclass was most of the time of importing the
    component catalog."""
    found = _DECLARED.get(klass)
    if found is None:
        found = _DECLARED[klass] = tuple(
            (key, value, max(k for k, kind in enumerate(_KINDS) if isinstance(value, kind)))
            for key, value in vars(klass).items() if isinstance(value, _KINDS))
    return found


class Component:
    """Base class of every physical component.

    Subclasses declare class attributes of type :class:`Port`, :class:`Input`,
    :class:`Output`, :class:`Parameter` and :class:`Variable`, and override
    :meth:`equations` (and, where they apply, :meth:`initial`, :meth:`energy`,
    :meth:`dissipation`, :meth:`time_events`).

    ``Component(name, **values)`` sets parameters and signal-input values by keyword; an
    unknown keyword is a :class:`ParameterError` listing the valid names.
    """

    _parameters: dict[str, Parameter] = {}
    _variables: dict[str, Variable] = {}
    _modes: dict[str, Mode] = {}
    _ports: dict[str, Port] = {}
    _given_sets: dict[tuple[str, ...], frozenset] = {}   # see _given_names
    _valid_defaults: dict[str, Any] = {}   # see _add_defaults
    _plans: dict[tuple[str, ...], Any] = {}   # see _plain_plan
    # Signal-input values given by keyword, shared while a component has none (most have none).
    _input_values: Mapping[str, Any] = MappingProxyType({})
    # Parameters given as model-parameter expressions, shared likewise (see parameter_expressions).
    _expressions: Mapping[str, ParameterExpression] = MappingProxyType({})
    _deriving = False   # True on a component only while its class's equations are derived
    _member_of = None   # a weak reference to the model it was added to (set by Model.add)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        tables = params, variables, ports, modes = {}, {}, {}, {}
        for klass in reversed(cls.__mro__):
            for key, value, kind in _own_declarations(klass):
                for table in tables:        # a subclass may redeclare a name as another kind
                    table.pop(key, None)
                tables[kind][key] = value
        cls._parameters, cls._variables, cls._ports, cls._modes = params, variables, ports, modes
        cls._input_names = frozenset(n for n, p in ports.items() if p.causality == "input")
        cls._structural = tuple(n for n, p in params.items() if p.structural)
        cls._given_sets = {}
        cls._valid_defaults = {}
        cls._plans = {}     # keywords -> _plain_plan
        for name, var in variables.items():
            if as_real(var.start) is None:
                raise DeclarationError(f"variable {name} of {cls.__name__} has start "
                                       f"{_describe_value(var.start)}; give a real number")
        for name, var in modes.items():
            if not isinstance(var, Discrete):
                continue
            given, number = var.start_parameter, as_real(var.start)
            if (given is None and (number is None or not math.isfinite(number))) or \
                    (given is not None and (given not in params or params[given].structural)):
                numeric = ", ".join(n for n, p in params.items() if not p.structural) or "none"
                raise DeclarationError(
                    f"discrete variable {name} of {cls.__name__} has start "
                    f"{_describe_value(var.start if given is None else given)}; give a finite number "
                    f"or the name of one of its (non-structural) parameters: {numeric}")
        for name, port in ports.items():
            if not isinstance(port.domain, Domain):
                raise DeclarationError(
                    f"port {name} of {cls.__name__} is declared with {_describe_value(port.domain)}; "
                    "give a domain object, e.g. Port(electrical) with "
                    "'from physlib.domains import electrical'")
            cond = port.condition
            if cond is not None and (cond not in params or not params[cond].structural):
                raise DeclarationError(
                    f"port {name} of {cls.__name__} has condition {cond!r}, which is not a structural "
                    f"parameter of the class; declare {cond} = Parameter(False, structural=True)")

    def __init__(self, name: str | None = None, *positional: Any, **values: Any):
        cls = type(self)
        # A waveform given inline as an input value (V=Step(...)) needs no name: it is
        # named after the input it drives. Model.add insists on a name.
        if name is not None and not (type(name) is str and name.isascii() and name.isidentifier()):
            check_name(name, cls.__name__)      # (the test of check_name, without the call)
        # Stored with object.__setattr__, not through self.__dict__: reading the instance
        # dictionary makes it a separate object, one more for the garbage collector to traverse
        # in every component of a large model.
        store = object.__setattr__
        store(self, "name", name)
        if positional:
            raise self._positional_error(positional)
        keywords = tuple(values)
        plan = cls._plans.get(keywords)
        if plan is None:
            plan = cls._plans[keywords] = cls._plain_plan(keywords)
        if plan and _fits(values, plan):
            # Every value a float its parameter takes as it is (R=1e3 for a million
            # resistors), every structural one an object validated before: the keywords' own
            # dictionary becomes the values, with the defaults.
            if plan[1]:
                values.update(plan[1])
            store(self, "_values", values)
            store(self, "_given", plan[2])
            if plan[3]:
                self.validate()
            return
        parameters = cls._parameters
        own, inputs, expressions = {}, {}, {}
        label = name if name is not None else cls.__name__    # an inline waveform has no name yet
        for key in cls._structural:   # structural parameters first: they decide which ports exist
            if key in values:
                own[key] = parameters[key].validate(values[key], label)
        for key, value in values.items():
            param = parameters.get(key)
            if param is not None:
                if param.structural:        # validated above; refused as an expression
                    if isinstance(value, ParameterExpression):
                        param.validate_expression(value, label)
                    continue
                if type(value) is float and param._plain_from <= value <= _LARGEST:
                    own[key] = value
                elif isinstance(value, ParameterExpression):
                    own[key] = param.validate_expression(value, label)
                    expressions[key] = value
                else:
                    own[key] = param.validate(value, label)
            elif key in cls._input_names:
                inputs[key] = _input_value(value, name, key, cls._ports[key].unit)
            else:
                raise self._unknown_keyword_error(key)
        if len(own) < len(parameters):
            self._add_defaults(own)
        store(self, "_values", own)
        if expressions:
            store(self, "_expressions", expressions)
        # Parameters the user gave: a start value given explicitly must be honoured or reported.
        given = cls._given_sets.get(keywords)
        store(self, "_given", cls._given_names(keywords) if given is None else given)
        if inputs:
            store(self, "_input_values", inputs)
            self._check_inputs_exist()
        self.validate()
        if plan and plan[4]:
            _remember(values, own, plan[4])

    @classmethod
    def many(cls, names: list[str], key: str, values: list, /, **common: Any) -> list:
        """``[cls(name, **common, **{key: value}) for name, value in zip(names, values)]``:
        the same components, made one attribute at a time over all of them where every one
        takes the short path of ``__init__`` (``key`` a parameter given as a float it takes
        unchecked, ``common`` values the first component took unchanged, no ``validate`` of
        the class's own). Made one call each, a million-element deck's resistors and
        capacitors took three times as long. Otherwise made one by one, which says what is
        wrong."""
        if not names:
            return []
        first = cls(names[0], **common, **{key: values[0]})   # its plan made, its values taken
        rest, others = names[1:], values[1:]
        plan = cls._plans.get((*common, key)) if type(cls) is type and cls.__new__ is _new_object \
            and cls.__init__ is Component.__init__ else None
        low = dict(plan[0]).get(key) if plan and not plan[3] else None
        # floats all (then equal values compare alike: each distinct one compared once) and
        # names of ASCII letters, digits and '_' that are identifiers
        if low is None or not _fits({**common, key: values[0]}, plan) or not (
                set(map(type, others)) <= {float} and all(low <= v <= _LARGEST for v in set(others))
                and set(map(type, rest)) <= {str} and "".join(rest).isascii()
                and all(map(str.isidentifier, rest))):
            return [first, *(cls(name, **common, **{key: value}) for name, value in zip(rest, others))]
        # as __init__ stores them: the keywords' values then the defaults, in that order
        template = {**common, key: values[0], **plan[1]}
        dicts = list(map(dict.copy, repeat(template, len(rest))))
        deque(map(dict.__setitem__, dicts, repeat(key), others), maxlen=0)
        made = list(map(_new_object, repeat(cls, len(rest))))
        for attribute, column in (("name", rest), ("_values", dicts), ("_given", repeat(plan[2]))):
            deque(map(object.__setattr__, made, repeat(attribute), column), maxlen=0)
        return [first, *made]

    @classmethod
    def _plain_plan(cls, keywords: tuple[str, ...]):
        """How a component made with ``keywords`` (in this order) takes plain values: (each
        keyword with the least float its parameter takes unchecked, the defaults of the
        parameters not given, the given set, whether the class validates, a cell per
        structural keyword holding the last object it validated unchanged); False where
        that cannot be (an input, a required one missing, a default its parameter refuses,
        structural keywords not first or not in their declared order, which the general
        path's values keep: the general path says what is wrong)."""
        parameters = cls._parameters
        structural = tuple(key for key in cls._structural if key in keywords)
        if keywords[:len(structural)] != structural:
            return False
        lows = []
        for key in keywords[len(structural):]:
            param = parameters.get(key)
            if param is None or param._plain_from == math.inf:
                return False
            lows.append((key, param._plain_from))
        defaults = {}
        for key, param in parameters.items():
            if key in keywords:
                continue
            if param.required:
                return False
            try:
                defaults[key] = cls._default(key, param, cls.__name__)
            except PhyslibError:
                return False
        given = cls._given_sets.get(keywords) or cls._given_names(keywords)
        return (tuple(lows), defaults, given, cls.validate is not Component.validate,
                tuple((key, [_REQUIRED]) for key in structural))

    @classmethod
    def _given_names(cls, keywords: tuple[str, ...]) -> frozenset:
        """The parameters among ``keywords``, as a frozenset shared by every component of the
        class made with the same keywords (not one set per component)."""
        given = cls._given_sets[keywords] = frozenset(k for k in keywords if k in cls._parameters)
        return given

    def _positional_error(self, positional: tuple) -> ParameterError:
        kind, first = type(self).__name__, next(iter(self._parameters), "value")
        return ParameterError(
            f"{kind} {self.name!r}: give parameters by keyword, e.g. {kind}({self.name!r}, {first}=...); "
            f"got positional {', '.join(map(repr, positional))}")

    def _unknown_keyword_error(self, key: str) -> ParameterError:
        valid = sorted(set(self._parameters) | self._input_names)
        return ParameterError(f"{type(self).__name__} {self.name!r} has no parameter {key!r}; "
                              f"valid names: {', '.join(valid) if valid else '(none)'}")

    def _add_defaults(self, own: dict) -> None:
        """Adds to ``own`` the default values of the parameters it lacks; a missing required
        parameter is a :class:`ParameterError`."""
        # A default is validated for the first component that takes it, then kept by its class
        # (10,000 capacitors of a large model validated the same v0 = 0 10,000 times).
        for key, param in self._parameters.items():
            if key not in own:
                if param.required:
                    raise ParameterError(f"{type(self).__name__} {self.name!r} needs parameter {key} "
                                         f"[{param.unit}] ({param.description})")
                own[key] = self._default(key, param, self.name)

    @classmethod
    def _default(cls, key: str, param: Parameter, component: str):
        """The default of parameter ``key``: a structural one's as declared, another's as
        validated (for ``component``, named in the error) once for the class."""
        if param.structural:
            return param.default
        default = cls._valid_defaults.get(key, _REQUIRED)
        if default is _REQUIRED:
            default = cls._valid_defaults[key] = param.validate(param.default, component)
        return default

    def _check_inputs_exist(self) -> None:
        absent = [k for k in self._input_values if k not in self.ports()]
        if absent:
            raise ParameterError(f"{type(self).__name__} {self.name!r} has no input {absent[0]!r} "
                                 f"with these settings ({self._ports[absent[0]].condition}=False)")

    # --- declarations, overridden by subclasses -------------------------------------------

    def equations(self) -> list:
        """The component's equations, as SymPy ``Eq`` objects or residual expressions (= 0)."""
        return []

    def initial(self) -> dict:
        """Initial values of states, ``{self.v: self.v0}``; other states start at their ``start``."""
        return {}

    def energy(self):
        """Stored energy [J] as an expression of the states (energy-storing components)."""
        return None

    def dissipation(self):
        """The conjugate pair ``(effort, flow)`` whose product is the dissipated power [W]."""
        return None

    def guards(self) -> list:
        """Zero-crossing functions (hybrid components): an event occurs when one changes sign."""
        return []

    def transition(self, values: dict[str, float], fired: list[bool]) -> dict[str, int]:
        """New mode codes at an event, from this component's current values (variables,
        parameters and modes by local name) and which of its guards just crossed zero.
        Called repeatedly until no mode changes (event iteration). A mode left out, or given
        its current code, does not change.

        Written with the helpers of :mod:`physlib.core.logic` (``where``, ``all_of``, ... in
        place of ``if``, ``and``, ``min``, ``int()`` on values), one definition serves the
        simulator (floats and bools) and an exported model (CasADi symbols compiled to C)."""
        return {}

    def update(self, values: dict[str, float], t: float) -> dict[str, float]:
        """New values of the :class:`Discrete` variables at a sample instant ``t`` [s]: each
        time this component's :meth:`time_events` gives, and the start of a run when it is one.

        ``values`` are the component's values at the instant, by local name (inputs and other
        variables after the edges and mode changes at ``t``, as Modelica's ``sample()`` reads
        them; parameters; modes), the discrete variables, and ``pre(name)`` for their values
        just before the instant. Event iteration calls it until nothing changes, so the result
        should depend on the discrete variables only through ``pre(...)``."""
        return {}

    def constraints(self) -> list:
        """State constraints of modes: ``[(mode_condition, expr), ...]`` where ``expr = 0`` must
        hold while ``mode_condition`` is true (a stuck clutch: ``(Eq(self.mode, 0), w_rel)``).
        When an event makes one active, the states are projected onto it (by default to the
        nearest state in the metric of stored energy: a plastic lock, momentum conserved).
        A third entry, a restitution coefficient e, makes it an impact law instead: on becoming
        active, ``expr`` jumps to −e times its value before the event."""
        return []

    def time_events(self, values: dict[str, float], t0: float, t1: float) -> list[float]:
        """Times in [t0, t1] where the equations are not smooth in time (given parameter values)."""
        return []

    def next_time_event(self, values: dict[str, Any], t: Any) -> Any:
        """The first of this component's time events (:meth:`time_events`) strictly after t
        [s], +inf if there is none: what an exported model (an FMU) asks to schedule its next
        time event, in C.

        ``values`` are the parameters by local name, ``t`` the time: floats, or CasADi symbols
        when the model is exported, so a class that overrides :meth:`time_events` writes this
        with the helpers of :mod:`physlib.core.logic` (no ``if``, ``min``, ``int()`` on
        values). A t that equals an event up to rounding (``t0 + k·Ts`` computed another way)
        is at that event: the answer is the one after it, never the same instant again."""
        return math.inf

    def time_scale(self, values: dict[str, float]) -> float | None:
        """The time [s] over which the equations' explicit dependence on time changes shape (a
        sine's period), given parameter values; None if they do not depend on time between
        their time events other than linearly. A variable-step run keeps its steps well below
        it where algebraic variables follow such an input (see
        :meth:`~physlib.assembly.compiled.CompiledModel.input_time_scale`)."""
        return None

    def validate(self) -> None:
        """Checks that involve several parameters; raise :class:`ParameterError`."""

    def structure_key(self) -> tuple:
        """What, besides the class, decides the structure of the equations."""
        # cls._structural: the structural parameters' names in declaration order (a large model
        # asks this of every instance of a class with structural parameters)
        values = self._values
        return tuple([values[n] for n in self._structural])

    def structure_change(self, compiled: dict, asked: dict) -> str | None:
        """Why ordinary parameter values ``asked`` (by name) need other equations than the
        values ``compiled`` did, or None. A class whose structure follows the values of
        ordinary parameters (a diode has a charge state only when CJO or TT > 0) says so here,
        and a compiled model refuses such ``params=`` with a
        :class:`~physlib.core.errors.StructureChangeError` instead of ignoring them."""
        return None

    def variables(self) -> dict[str, Variable]:
        """The component's internal variables: the declared ones, plus any a subclass adds
        per instance (a state-space block has as many states as its matrix is large)."""
        return dict(self._variables)

    def var(self, name: str):
        """A variable by name, for variables added by :meth:`variables` (inside equations a
        symbol, outside its path)."""
        if name not in self.variables():
            raise UnknownAttributeError(f"{type(self).__name__} {self.name!r} has no variable {name!r}; "
                                        f"its variables: {', '.join(self.variables()) or '(none)'}")
        return symbols.VariableSymbol(name, real=True) if self._deriving else f"{self.name}.{name}"

    def ports(self) -> dict[str, Port]:
        """The ports this component has (conditional ports only when their condition holds)."""
        return {n: p for n, p in self._ports.items()
                if p.condition is None or self._values[p.condition]}

    def port_groups(self) -> list[tuple[str, ...]]:
        """Groups of ports joined inside the component (for the ground check of a network)."""
        by_domain: dict[str, list[str]] = {}
        for name, port in self.ports().items():
            by_domain.setdefault(port.domain.name, []).append(name)
        return [tuple(names) for names in by_domain.values()]

    is_reference = False
    """True for components that fix the potential of their network (Ground)."""

    units_checked = True
    """False where the equations hold an expression the user wrote with bare numbers (a
    behavioural source's ``expr``), which carries no units to check."""

    dissipates_power = True
    """False where the dissipation pair's product is not a power: heat conduction moves heat
    (effort K, flow W) without losing energy, yet it is the thermal noise source."""

    # --- helpers ------------------------------------------------------------------------

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameter values of this component, by name (an expression's value with the
        model parameters at their defaults)."""
        return dict(self._values)

    @property
    def parameter_expressions(self) -> Mapping[str, ParameterExpression]:
        """The parameters given as model-parameter expressions (``R=2*rload``), by name: a
        compiled model recomputes them when ``params=`` sets a model parameter. Empty (and
        false) when there are none."""
        return self._expressions

    @property
    def input_values(self) -> dict[str, Any]:
        """The numbers, model-parameter expressions and waveforms given to signal inputs by
        keyword (``VoltageSource("src", V=Step(...))``), by input name."""
        return dict(self._input_values)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: say what the component does have.
        if name.startswith("_"):
            raise AttributeError(name)
        cls = type(self)
        port = cls._ports.get(name)
        if port is not None and port.condition is not None and "_values" in self.__dict__:
            # Port.__get__ raised for a port absent with these settings; Python then lands here.
            raise port._missing(self)
        known = sorted(set(cls._ports) | set(cls._parameters) | set(cls._variables) | set(cls._modes))
        raise UnknownAttributeError(f"{cls.__name__} {self.__dict__.get('name')!r} has no port, parameter "
                             f"or variable {name!r}; it has: {', '.join(known)}")

    def __setattr__(self, name, value):
        # A mistyped parameter (``r.RR = 5e3`` for ``r.R``) would otherwise become a new
        # attribute that nothing reads. Names close to a declared one are refused; other new
        # attributes stay allowed, for subclasses that keep their own data.
        if name == "name":
            check_rename(self, value)
        cls = type(self)
        if not name.startswith("_") and name not in self.__dict__ and not hasattr(cls, name):
            known = set(cls._ports) | set(cls._parameters) | set(cls._variables) | set(cls._modes)
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6) \
                or [k for k in known if k.lower() == name.lower()]
            if close:
                raise UnknownAttributeError(
                    f"{cls.__name__} {self.__dict__.get('name')!r} has no port, parameter or "
                    f"variable {name!r}; did you mean {' or '.join(map(repr, close))}?")
        object.__setattr__(self, name, value)

    def __getstate__(self):
        # Pickles and copies leave the model behind: a weak reference cannot be pickled, and
        # a copy is not a member of the model. Model.__setstate__ restores it for members.
        state = self.__dict__
        if "_member_of" in state:
            state = dict(state)
            del state["_member_of"]
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


_new_object = object.__new__


def _fits(values: dict, plan: tuple) -> bool:
    """Whether ``values`` take the short path of ``plan`` (see ``Component._plain_plan``): each
    plain one a float from its least value up to the largest finite one, each structural one
    the object its cell holds (one its parameter validated unchanged). One call for both: a
    resistor took 0.08 µs more with two."""
    for key, low in plan[0]:
        value = values[key]
        if type(value) is not float or not low <= value <= _LARGEST:
            return False
    for key, cell in plan[4]:
        if values[key] is not cell[0]:
            return False
    return True


_IMMUTABLE = (str, bool, int, float, type(None))


def _remember(values: dict, validated: dict, cells: tuple) -> None:
    """Keep in each cell the structural value given in ``values`` where its parameter took
    it unchanged (``validated``) and it cannot change later: an immutable object."""
    for key, cell in cells:
        value = values[key]
        if validated[key] is value and type(value) in _IMMUTABLE:
            cell[0] = value


def _input_value(value: Any, component: str, port: str, unit: str = "1"):
    """A signal input given by keyword: a finite number or quantity (converted to the input's
    ``unit``), a model-parameter expression (kept, it becomes the value of the input's constant
    source) or a signal-source component."""
    if isinstance(value, ParameterExpression):
        check_dimension(value, unit, f"input {port} of {component}")
        try:
            number = nominal_value(value)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise ParameterError(f"input {port} of {component} = {value} cannot be evaluated: "
                                 f"{err}") from None
        if not math.isfinite(number):
            raise ParameterError(f"input {port} of {component} = {value} is {number}; give an "
                                 "expression with a finite value")
        return value
    if isinstance(value, Component):
        outputs = [p for p in value._ports.values() if p.causality == "output"]
        if len(outputs) != 1 or any(p.causality != "output" for p in value._ports.values()):
            raise ParameterError(
                f"input {port} of {component}: {value!r} is not a waveform (a component with a "
                "single output); connect it with Model.connect instead"
            )
        return value
    number = as_real(value)
    if number is None:
        number = quantity_value(value, unit, f"input {port} of {component}")
    if number is None or not math.isfinite(number):
        raise ParameterError(
            f"input {port} of {component} must be a finite number or a waveform "
            f"(physlib.components.signals), got {_describe_value(value)}"
        )
    return number
