"""The :class:`CompiledModel`: the reduced DAE as CasADi functions, ready for analysis."""
from __future__ import annotations

import pickle
from dataclasses import field
from functools import cached_property

import casadi as cs
import numpy as np

from ..core.component import Component, Mode
from ..core.errors import UnknownNameError
from ..core.logic import is_symbolic
from ..core.memory import LARGE, release_free_memory
from ..core.records import record
from .finiteness import FiniteGuard
from .flatten import FlatSystem
from .forced_jumps import check_forced_jumps
from .names import PositionNames
from .parameter_vector import derived_from, model_parameter_values, parameter_vector, structural_error, unknown_name
from .path_units import path_unit
from .pickling import dumps
from .templates import ClassTemplate


@record
class DaeSystem:
    """x' = f(x, z, p, t), 0 = g(x, z, p, t), and the values of all variables, as CasADi functions."""

    dae: cs.Function           # (x, z, p, t) -> (ode, alg)
    start: cs.Function         # (p, t) -> start values of the states x and algebraic variables z
    quantities: dict           # "energy", "dissipation" -> ComponentQuantity (functions built on demand)
    guards: cs.Function        # (x, z, p, t) -> zero-crossing functions of hybrid components
    guard_owner: list[tuple]   # (group, instance, guard index) per guard
    constraints: cs.Function   # (x, z, p, t) -> (mode constraint expressions, active flags)
    constraint_owner: list[tuple]
    state_pos: np.ndarray      # state i -> representative position
    z_pos: np.ndarray          # algebraic variable i -> representative position
    position_names: PositionNames  # name of each representative position
    var_col: np.ndarray        # raw variable id -> representative position
    var_sign: np.ndarray       # raw variable value = sign * representative value
    start_check: cs.Function   # (x, z, p, t) -> (explicitly given start values, values reached)
    start_check_info: list     # per checked value: (variable path, (parameter path, what decides it))
    defining_equation: np.ndarray  # representative position -> equation it is solved from (-1: state)
    defining_block: np.ndarray     # representative position -> its block in evaluation order
    describe_equation: object      # equation id -> readable text
    stats: dict                # equation/variable counts of each reduction step
    differentiated: list[str]  # equations differentiated by index reduction
    dummy_states: list[str]    # variables that would be states but are fixed by constraints
    cache: dict = field(default_factory=dict)   # integrators and Jacobians built on demand
    forced_inputs: tuple = ()  # time-dependent inputs that fix dummy states (forced_jumps)
    affine: bool = False       # every class's equations affine in the unknowns for fixed modes
    nominal: np.ndarray | None = None  # [x; z] -> declared nominal size (Variable.nominal); None: all 1
    output_function: cs.Function | None = None  # :attr:`outputs` once built
    # the class solutions the values use, which tell from the parameters whether every value
    # is finite at a point (physlib.assembly.finiteness); None where they cannot
    finite_guard: FiniteGuard | None = None

    @property
    def outputs(self) -> cs.Function:
        """(x, z, p, t) -> value of every representative variable: built on first use from the
        expressions the compiler leaves, not by the compiler, where it walked the whole graph
        beside the compiler's intermediate forms (a million-element model's peak: +200 MB)."""
        if self.output_function is None:
            d = self.dae_dict()
            self.output_function = cs.Function("outputs", [d["x"], d["z"], d["p"], d["t"]],
                                               [self.cache["output_sx"]], ["x", "z", "p", "t"], ["values"])
            if self.output_function.n_instructions() >= LARGE:     # its construction's temporaries
                release_free_memory()
        return self.output_function

    @property
    def n_positions(self) -> int:
        """The number of representative positions (the length of :attr:`outputs`' values),
        known without building that function."""
        return len(self.defining_block)

    def with_outputs(self) -> DaeSystem:
        """This system, its :attr:`outputs` built (before it travels without the cache)."""
        self.outputs
        return self

    def symbols(self, kind=cs.SX) -> tuple:
        """Fresh symbols (x, z, p, t) of the sizes the functions of (x, z, p, t) take; ``kind``
        is ``casadi.SX`` or ``casadi.MX``. The one place that rebuilds them."""
        return tuple(kind.sym(n, self.dae.size1_in(i)) for i, n in enumerate("xzpt"))

    @property
    def energy(self) -> cs.Function:
        """(x, z, p, t) -> stored energy [J] of each energy-storing component (``energy_owner``)."""
        return self._quantity("energy")

    @property
    def dissipation(self) -> cs.Function:
        """(x, z, p, t) -> dissipated power [W] of each dissipative component (``dissipation_owner``)."""
        return self._quantity("dissipation")

    @property
    def energy_owner(self) -> list[str]:
        return self.quantities["energy"].owners

    @property
    def dissipation_owner(self) -> list[str]:
        return self.quantities["dissipation"].owners

    def _quantity(self, kind: str) -> cs.Function:
        if kind not in self.cache:
            self.cache[kind] = self.quantities[kind].function(self)
        return self.cache[kind]

    def dae_dict(self) -> dict:
        """The DAE as a dict of SX expressions, the form CasADi's integrators take."""
        if "dae_dict" not in self.cache:
            x, z, p, t = self.symbols()
            ode, alg = self.dae(x, z, p, t)
            self.cache["dae_dict"] = {"x": x, "z": z, "p": p, "t": t, "ode": ode, "alg": alg}
        return self.cache["dae_dict"]

    def output_expressions(self) -> cs.SX:
        """Every output position's value as an SX expression in the symbols of
        :meth:`dae_dict`, made once per compiled model (5 ms at 10,000 elements) and shared by
        the linearization, the inputs' gains and the results' single-output rows."""
        if "output_sx" not in self.cache:
            d = self.dae_dict()
            self.cache["output_sx"] = self.outputs(d["x"], d["z"], d["p"], d["t"])
        return self.cache["output_sx"]

    def dae_jacobian(self) -> cs.SX:
        """∂[ode; alg]/∂[x; z], sparse, in the symbols of :meth:`dae_dict`: derived once per
        compiled model and shared by the operating point, the linearization and the stepped
        solver (a 10,000-element circuit's takes 40 ms)."""
        if "dae_jacobian" not in self.cache:
            d = self.dae_dict()
            self.cache["dae_jacobian"] = cs.jacobian(cs.vertcat(d["ode"], d["alg"]), cs.vertcat(d["x"], d["z"]))
        return self.cache["dae_jacobian"]

    def __getstate__(self):
        """Picklable with the standard ``pickle`` module: the CasADi functions travel as
        ``Function.serialize()`` strings; ``cache`` (integrators, Jacobians, call buffers, the
        lock) is left behind and rebuilt on demand by the process that loads it."""
        return {"payload": dumps(self.with_outputs(), (ClassTemplate, DaeSystem))}

    def __setstate__(self, state):
        self.__dict__.update(pickle.loads(state["payload"]).__dict__)


class CompiledModel:
    """A compiled model as the compiler leaves it: the flattened system, the DAE's CasADi
    functions and accessors by name. The analyses (simulate, operating_point, linearize, noise,
    ...) are methods of :class:`physlib.CompiledModel`, a subclass in the layer above this one
    and :mod:`physlib.analysis` (:mod:`physlib.api`), which ``physlib.Model.compile`` returns.

    Parameters stay symbolic inputs of the compiled functions, so ``simulate(...,
    params={"R1.R": 2e3})`` reuses them without recompiling. Model parameters
    (:meth:`Model.parameter <physlib.Model.parameter>`) are set the same way,
    ``params={"rload": 2e3}``: the component parameters given as expressions of them are
    recomputed (:meth:`parameter_vector`).
    """

    def __init__(self, flat: FlatSystem, system: DaeSystem):
        self._flat = flat
        self.system = system
        self.name = flat.name
        self.source_model = None    # the physlib.Model compiled (set by Model.compile)

    # --- names -------------------------------------------------------------------------------

    @property
    def variables(self) -> list[str]:
        """Every variable path (``"C1.v"``, ``"R1.p.i"``, ``"der(C1.v)"``)."""
        return list(self._flat.var_names)

    @property
    def modes(self) -> list[str]:
        """Paths of the discrete modes of hybrid components (``"clutch1.mode"``)."""
        slots = [g.param_ids[:, len(g.template.param_names):].ravel()
                 for g in self._flat.groups if g.template.mode_names]
        # Parameter entries are numbered in the order this list keeps: group, instance, mode.
        ordered = np.sort(np.concatenate(slots)).tolist() if slots else []
        return [self._flat.param_names[i] for i in ordered]

    @property
    def parameters(self) -> dict[str, float]:
        """Every parameter path with its compiled-in value (modes excluded)."""
        return {n: v for (n, v), (decl, _) in zip(zip(self._flat.param_names, self._flat.param_values.tolist()),
                                                  self._flat.param_checks) if not isinstance(decl, Mode)}

    @property
    def model_parameters(self) -> dict[str, float]:
        """Every model parameter's name with its compiled-in value (no entry of its own in the
        parameter vector: a run that sets one recomputes the parameters given as expressions of it)."""
        return {name: p.value for name, p in self._flat.model_parameters.items()}

    @property
    def states(self) -> list[str]:
        return self._names("state_pos")

    @property
    def algebraic(self) -> list[str]:
        return self._names("z_pos")

    def _names(self, positions: str) -> list[str]:
        """Names made once (a run from an operating point reads them thrice), as copies sharing the strings."""
        made = self.system.cache.setdefault("position names", {})
        if positions not in made:
            made[positions] = tuple(self.system.position_names.take(getattr(self.system, positions)))
        return list(made[positions])

    def has_variable(self, name: str) -> bool:
        """Whether ``name`` is a variable path of this model."""
        return self._flat.var_names.find(name) is not None

    @property
    def component_groups(self) -> list:
        """The flattened components, grouped by class and structure: each group has
        ``template`` (the class's derived equations: ``local_names``, ``param_names``,
        ``mode_names``), ``components``, ``paths``, ``var_ids`` and ``param_ids`` (one row per
        instance: where its variables and parameters sit in the model's vectors)."""
        return self._flat.groups

    @cached_property
    def has_modes(self) -> bool:
        """Whether some component has discrete modes (a hybrid model: simulated with events)."""
        return any(g.template.mode_names for g in self._flat.groups)

    def variable(self, name: str) -> tuple[int, float]:
        """(representative position, sign) of a variable path; unknown names get suggestions."""
        i = self._flat.var_names.find(name)
        if i is None:
            raise UnknownNameError(unknown_name("variable", name, self._flat.var_names,
                                           self._flat.unread_positions))
        return int(self.system.var_col[i]), float(self.system.var_sign[i])

    def variable_positions(self, names) -> tuple[np.ndarray, np.ndarray]:
        """(representative positions, signs) of many variable paths, as arrays: a linear model
        of every node of a million-element circuit asks for half a million. An unknown name
        raises as in :meth:`variable`."""
        find = self._flat.var_names.find
        ids = [find(name) for name in names]
        if None in ids:
            self.variable(names[ids.index(None)])       # raises, with suggestions
        ids = np.array(ids, dtype=np.int64)
        return self.system.var_col[ids], self.system.var_sign[ids].astype(float)

    def mode_slot(self, name: str) -> int | None:
        """Position of a mode (``"clutch1.mode"``) in the parameter vector, or None."""
        i = self._flat.param_names.find(name)
        if i is not None and isinstance(self._flat.param_checks[i][0], Mode):
            return i
        return None

    def has_parameter(self, name: str) -> bool:
        """Whether ``name`` is a parameter (not a mode) with a slot in the parameter vector; a
        lookup, without building :attr:`parameters` (35 ms at 10 000 elements)."""
        i = self._flat.param_names.find(name) if isinstance(name, str) else None
        return i is not None and not isinstance(self._flat.param_checks[i][0], Mode)

    def refuse_structural(self, name: str) -> None:
        """A :class:`StructureChangeError` if ``name`` is a component's structural parameter (no run sets it)."""
        if (error := structural_error(self._flat, name)) is not None:
            raise error

    def parameter_slot(self, name: str) -> int:
        """Position of a parameter (not a mode) in the parameter vector; unknown names get suggestions."""
        i = self._flat.param_names.find(name)
        if i is None or isinstance(self._flat.param_checks[i][0], Mode):
            if isinstance(name, str) and name in self._flat.model_parameters:
                raise UnknownNameError(
                    f"{name} is a model parameter: it has no entry of its own in the parameter "
                    f"vector (it sets {_short(derived_from(self._flat, name), 5) or 'nothing'}); set it "
                    f"with params={{{name!r}: value}}")
            raise (structural_error(self._flat, name)
                   or UnknownNameError(unknown_name("parameter", name, self.parameters)))
        return i

    def parameter_declaration(self, name: str):
        """The :class:`~physlib.core.component.Parameter` that declares a parameter path: its
        unit and the checks a value must pass (``positive``, ``nonnegative``, ``nonzero``)."""
        return self._flat.param_checks[self.parameter_slot(name)][0]

    def unit(self, name: str) -> str:
        """The declared unit of a path, in the Modelica grammar: a variable's (``"V"`` for
        ``"C1.v"``), a derivative's (``"V/s"`` for ``"der(C1.v)"``), a parameter's (``"Ohm"``
        for ``"R1.R"``), a mode's or a model parameter's (:func:`~physlib.assembly.path_units.path_unit`)."""
        return path_unit(self._flat, name)

    def parameter_vector(self, params: dict | None) -> np.ndarray:
        """The parameter vector with the compiled-in values and ``params`` ({parameter path or
        model parameter name: value}, each in its parameter's unit). Setting a model parameter
        recomputes every entry given as an expression of model parameters (the others at their
        compiled-in values); an entry given by its own path as well keeps that value (an
        explicit value overrides its expression)."""
        return parameter_vector(self._flat, params)

    def model_parameter_values(self, params: dict | None = None) -> dict[str, float]:
        """Every model parameter's value in a run given ``params`` (see the function's)."""
        return model_parameter_values(self._flat, params)

    def time_events(self, p: np.ndarray, t0: float, t1: float) -> list[float]:
        """Times in (t0, t1) where some equation is not smooth in time (e.g. a step).

        Every run asks for them with its parameters and interval: an input that would jump
        where constraints tie a state to it (a current step through an inductor) is an
        :class:`~physlib.core.errors.ImpulseError` here (:mod:`physlib.assembly.forced_jumps`)."""
        if self.system.forced_inputs:
            check_forced_jumps(self, p, t0, t1)
        events = {te for comp, values in self._declaring("time_events", p)
                  for te in comp.time_events(values, t0, t1) if t0 < te < t1}
        return sorted(events)

    def input_time_scale(self, p: np.ndarray) -> float | None:
        """The shortest :meth:`~physlib.core.component.Component.time_scale` of the components
        (a sine source's period) with the parameter vector ``p``; None if none has one."""
        scales = [scale for comp, values in self._declaring("time_scale", p)
                  if (scale := comp.time_scale(values)) is not None and scale > 0]
        return min(scales) if scales else None

    def _declaring(self, method: str, p: np.ndarray):
        """(component, its parameter values in ``p``) for every component whose class
        overrides the Component method ``method``."""
        for _, comp, values in self.components_overriding(method, p):
            yield comp, values

    def components_overriding(self, method: str, p):
        """(path, component, its parameter values by local name) for every component whose
        class overrides the :class:`~physlib.core.component.Component` method ``method``
        (``"time_events"``), the values read from the parameter vector ``p``: floats from a
        NumPy vector, entries from a CasADi symbol vector (an export,
        :mod:`physlib.analysis.common.hybrid_functions`)."""
        symbolic = is_symbolic(p)
        for group in self._flat.groups:
            comps = group.components
            if getattr(type(comps[0]), method) is getattr(Component, method):
                continue
            names = group.template.param_names
            for row, comp in enumerate(comps):
                ids = group.param_ids[row][:len(names)]
                entries = [p[i] for i in ids.tolist()] if symbolic else p[ids].tolist()
                yield group.paths[row], comp, dict(zip(names, entries))

    @cached_property
    def partitions(self) -> list:
        """Linear and nonlinear portions of the model (see :mod:`physlib.assembly.partition`)."""
        from .partition import partition
        return partition(self._flat)

    def summary(self) -> str:
        """Equation and variable counts before and after each reduction step, states, algebraic
        variables and partitions."""
        s, st = self.system, self.system.stats
        lines = [
            f"model {self.name}: {sum(len(g.paths) for g in self._flat.groups)} components "
            f"in {len(self._flat.groups)} classes",
            f"  flattened:         {st['equations']} equations, {st['variables']} variables "
            "(incl. derivatives)",
            f"  alias elimination: {st['equations'] - st['alias_equations']} equations, "
            f"{st['variables'] - st['alias_equations']} variables",
            *([f"  index reduction:   +{len(s.differentiated)} differentiated equations; "
               f"{_short(s.dummy_states)} fixed by constraints instead of being states"]
              if s.differentiated else []),
            f"  BLT and tearing:   {st['explicit']} equations solved explicitly, "
            f"{len(s.z_pos)} left for Newton/DAE solver in {st['loops']} algebraic loops",
            f"  states ({len(s.state_pos)}): {_short(self.states)}",
            f"  algebraic variables ({len(s.z_pos)}): {_short(self.algebraic)}",
            f"  parameters: {len(self._flat.param_names)}"
            + (f"; model parameters: {_short(list(self._flat.model_parameters))}"
               if self._flat.model_parameters else ""),
            "  partitions: " + "; ".join(
                f"{'linear' if p.linear else 'nonlinear'} [{_short(p.components, 6)}]" for p in self.partitions),
        ]
        return "\n".join(lines)

    # --- pickling ------------------------------------------------------------------------------

    def __getstate__(self):
        """A compiled model pickles with the standard ``pickle`` module and works in another
        process (``multiprocessing`` with spawn, dask workers): simulate, operating_point, trim,
        linearize and noise give there what they give here, bit for bit.

        What travels: the CasADi functions as ``Function.serialize()`` strings, the flattened
        system (component objects, their class templates' SymPy equations without the CasADi
        functions derived from them) and ``source_model`` (the :class:`~physlib.Model`, which
        noise analysis copies and compiles with its noise sources). What does not:
        ``system.cache`` (integrators, Jacobians, call buffers, the lock), rebuilt on first use,
        so the first run after loading costs what a first run costs. Component classes must be
        importable where the model is loaded (defined in a module, not typed into a session)."""
        return {"payload": dumps({"flat": self._flat, "system": self.system.with_outputs(), "name": self.name,
                                  "source_model": self.source_model}, (ClassTemplate, DaeSystem))}

    def __setstate__(self, state):
        parts = pickle.loads(state["payload"])
        self._flat, self.system, self.name = parts["flat"], parts["system"], parts["name"]
        self.source_model = parts["source_model"]

    def __repr__(self):
        return f"<CompiledModel {self.name}: {len(self.system.state_pos)} states, {len(self.system.z_pos)} algebraic>"


def _short(names, limit=10):
    return ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")
