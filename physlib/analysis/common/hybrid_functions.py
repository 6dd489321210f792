"""A compiled model's behaviour at events as CasADi functions, for code generation (an FMI 2.0
Model Exchange FMU, standalone C), where no Python runs.

The components' own :meth:`~physlib.core.component.Component.transition`,
:meth:`~physlib.core.component.Component.update` and
:meth:`~physlib.core.component.Component.next_time_event`, written with
:mod:`physlib.core.logic`, are called once with CasADi ``SX`` symbols; what they return is the
expression these functions compile. The values they read come from the solver vectors through
:class:`~physlib.analysis.common.hybrid_components.HybridInstance`, as in the simulator, so a
mode or a discrete variable sits in the same parameter-vector slot for both.

- :func:`transition_function`: ``transitions(values, p, pre, fired) -> p``, one round of the
  event iteration's mode changes (:func:`~.hybrid_components.mode_requests` then
  :func:`~.hybrid_components.set_modes`) for all components at once;
- :func:`update_function`: ``updates(values, p, pre, t) -> p``, the discrete variables of the
  components with a sample instant at t updated (:meth:`HybridInstance.update
  <physlib.analysis.common.hybrid_components.HybridInstance.update>`);
- :func:`next_time_function`: ``next_time_event(p, t) -> t_next``, the model's next time event;
- :func:`impacts_first_function`: ``impacts_first(x, z, p, p_next, t) -> p_next``, one round's
  changes with the releases of mode constraints held back while others impose one.

The caller iterates as the simulator does (:meth:`~physlib.analysis.simulation.events.
HybridStepper.iterate_modes`): solve the algebraic variables, call ``transitions`` and
``updates`` with ``pre`` held at the vector from before the instant, until p stops changing.
Discrete variables that start from a parameter (``Discrete(start="y0")``) take its value
before the first call, as :meth:`HybridStepper.start
<physlib.analysis.simulation.events.HybridStepper.start>` does.
"""
from __future__ import annotations

from contextlib import contextmanager

import casadi as cs

from ...core.component import Component
from ...core.errors import ExportError, PhyslibError
from ...core.logic import maximum, minimum
from .hybrid_components import HybridInstance, hybrid_instances

DUE_TOLERANCE = 1e-12
"""A component's sample instant within DUE_TOLERANCE·max(1 s, |t|) of t is due at t. It is 100
times the tolerance within which a waveform or sampled block counts t as at its instant
(:data:`physlib.components.signals.edges.EDGE_TOLERANCE`·(|t| + |t0|)), and far below any sample
period, so an instant the caller reached by its own arithmetic (``0.30000000000000004`` for
0.3) is due, and the one before or after it is not. (The one case beyond it: a schedule
whose first instant t0 is negative and more than 99·max(1 s, |t|) in magnitude, where the
block's own tolerance is the wider one.)"""


def transition_function(model) -> cs.Function:
    """``transitions(values, p, pre, fired) -> p_next``: every component's requested modes.

    Inputs: ``values`` [n_out]: the model's outputs at the point, as
    ``model.system.outputs(x, z, p, t)`` gives them; ``p`` [n_p]: the parameter vector with
    the current modes; ``pre`` [n_p]: the parameter vector from before the event instant (for
    ``pre(mode)``); ``fired`` [n_guards]: 1 where a guard crossed zero, 0 elsewhere (row
    order of ``model.system.guard_owner``). Output ``p_next`` [n_p]: ``p`` with the mode
    codes every component's transition asks for written into its slots, as one round of
    ``mode_requests`` and ``set_modes`` gives on the same numbers. A component whose
    transition cannot be traced is an :class:`~physlib.core.errors.ExportError`."""
    values, p, pre = _symbols(model)
    fired = cs.SX.sym("fired", len(model.system.guard_owner))
    entries = _entries(p)
    for inst in hybrid_instances(model):
        if not inst.mode_slot:
            continue
        codes = _traced(inst.component, inst.path, "transition",
                        lambda: inst.requested_modes(values, p, pre, fired))
        for name, code in codes.items():
            entries[_mode_slot(inst, name)] = code
    return cs.Function("transitions", [values, p, pre, fired], [cs.vertcat(*entries)],
                       ["values", "p", "pre", "fired"], ["p_next"])


def update_function(model) -> cs.Function:
    """``updates(values, p, pre, t) -> p_next``: the discrete variables at a sample instant.

    Inputs: ``values`` [n_out], ``p`` [n_p], ``pre`` [n_p] as for :func:`transition_function`
    (``pre(name)`` of a discrete variable is its value in ``pre``); ``t`` [1] the time [s].
    Output ``p_next`` [n_p]: ``p`` with the discrete variables of every component due at t
    (a sample instant within :data:`DUE_TOLERANCE` of t, from its ``next_time_event``) set
    to what its update gives, the others unchanged. A component whose update or
    next_time_event cannot be traced, or whose class overrides ``time_events`` but not
    ``next_time_event``, is an :class:`~physlib.core.errors.ExportError`."""
    values, p, pre = _symbols(model)
    t = cs.SX.sym("t")
    entries = _entries(p)
    margin = DUE_TOLERANCE * maximum(1.0, cs.fabs(t))
    for inst in hybrid_instances(model):
        if not inst.discrete_slot:
            continue
        parameters = {name: p[slot] for name, slot in inst.param_slots.items()}
        due = _next_time(inst.component, inst.path, parameters, t - margin) <= t + margin
        new = _traced(inst.component, inst.path, "update",
                      lambda: inst.requested_discrete(values, p, pre, t))
        for name, value in new.items():
            slot = inst.discrete_slot[name]      # requested_discrete checked the names
            entries[slot] = cs.if_else(due, value, entries[slot])
    return cs.Function("updates", [values, p, pre, t], [cs.vertcat(*entries)],
                       ["values", "p", "pre", "t"], ["p_next"])


def next_time_function(model) -> cs.Function:
    """``next_time_event(p, t) -> t_next``: the model's first time event after t [s].

    Inputs: ``p`` [n_p] the parameter vector; ``t`` [1] the time [s]. Output ``t_next`` [1]:
    the earliest :meth:`~physlib.core.component.Component.next_time_event` of the components
    whose class declares time events (+inf if none has one after t), each given its
    parameters as :meth:`~physlib.assembly.compiled.CompiledModel.time_events` gives them. A t
    at an event up to rounding gives the event after it. A class that overrides
    ``time_events`` but not ``next_time_event``, or whose next_time_event cannot be traced, is
    an :class:`~physlib.core.errors.ExportError`."""
    p, t = cs.SX.sym("p", model.system.dae.size1_in(2)), cs.SX.sym("t")
    times = [_next_time(component, path, parameters, t)
             for path, component, parameters in model.components_overriding("time_events", p)]
    return cs.Function("next_time_event", [p, t], [cs.SX(minimum(cs.inf, *times))], ["p", "t"], ["t_next"])


def impacts_first_function(model) -> cs.Function:
    """``impacts_first(x, z, p, p_next, t) -> p_kept``: the rule of the event iteration that
    impulses come before forces, shared by the simulator and the exported model.

    Inputs: the point (x, z, t), the parameter vector ``p`` with the current modes and
    ``p_next`` with the modes one round of transitions asks for. When those changes make a
    mode constraint active (a lock, a contact: an impact that moves the states), a component
    whose change would release one of its active constraints keeps its modes this round; it
    is asked again on the state projected onto the new constraints. A release is decided on
    forces (a freewheel's locking torque pulls, a clutch's exceeds its static limit) computed
    on the speeds before the impact, which the impact changes: three shafts on two
    freewheels, both overrun at once, would otherwise lock one, release it as the other locks,
    and so on for ever. Output ``p_kept``: ``p_next`` with those modes held back, or
    ``p_next`` itself when holding them back would leave nothing to change."""
    system = model.system
    x, z, p, t = system.symbols(cs.SX)
    p_next = cs.SX.sym("p_next", p.numel())
    names = (["x", "z", "p", "p_next", "t"], ["p_kept"])
    if not system.constraints.nnz_out(0):
        return cs.Function("impacts_first", [x, z, p, p_next, t], [p_next], *names)
    active = system.constraints(x, z, p, t)[1] > 0.5
    active_next = system.constraints(x, z, p_next, t)[1] > 0.5
    released = cs.logic_and(active, cs.logic_not(active_next))
    imposing = cs.sum1(cs.logic_and(active_next, cs.logic_not(active))) > 0
    entries = _entries(p_next)
    for inst in hybrid_instances(model):
        if not inst.constraint_rows:
            continue
        hold = cs.logic_and(imposing, cs.sum1(released[inst.constraint_rows]) > 0)
        for slot in inst.mode_slot.values():
            entries[slot] = cs.if_else(hold, p[slot], p_next[slot])
    kept = cs.vertcat(*entries)
    changes_left = cs.sum1(kept != p) > 0
    return cs.Function("impacts_first", [x, z, p, p_next, t], [cs.if_else(changes_left, kept, p_next)], *names)


def _next_time(component, path: str, parameters: dict, t):
    """The component's next_time_event traced at the symbolic time t."""
    cls = type(component)
    if cls.time_events is not Component.time_events and \
            cls.next_time_event is Component.next_time_event:
        raise ExportError(
            f"{cls.__name__} {path!r} declares time events (time_events) but not "
            f"next_time_event, which an exported model needs to schedule them in C: define "
            f"{cls.__name__}.next_time_event(values, t), the first event after t, with the "
            "helpers of physlib.core.logic")
    return _traced(component, path, "next_time_event",
                   lambda: component.next_time_event(parameters, t))


def _traced(component, path: str, method: str, call):
    """``call()``, the component's ``method`` run on CasADi symbols; what fails there (Python's
    ``if``, ``and``, ``min`` or ``int()`` on a symbol) is an ExportError naming the method.
    ``float()`` of a symbol, which CasADi answers with NaN (so ``float(v["w"]) > 0`` would
    quietly compile as False), raises while tracing."""
    try:
        with _float_of_symbol_raises():
            return call()
    except PhyslibError:         # already says what is wrong (a name that is no discrete variable)
        raise
    except Exception as err:     # whatever the user's code does with a symbol it cannot take
        name = type(component).__name__
        raise ExportError(
            f"{name} {path!r}: {name}.{method}() cannot be compiled to C ({type(err).__name__}: "
            f"{err}). Write it with the helpers of physlib.core.logic (where, all_of, any_of, "
            "negate, minimum, maximum, absolute, floor) instead of if/and/or/not/min/max/int()/"
            "float() on values, so that the simulator and the exported model run one "
            "definition") from err


@contextmanager
def _float_of_symbol_raises():
    """Within the block, ``float()`` of a non-constant SX raises TypeError instead of giving NaN."""
    numeric = cs.SX.__float__

    def strict(value):
        if value.is_constant():
            return numeric(value)
        raise TypeError("float() of a CasADi symbol (it has no value while tracing)")
    cs.SX.__float__ = strict
    try:
        yield
    finally:
        cs.SX.__float__ = numeric


def _mode_slot(inst: HybridInstance, name: str) -> int:
    """The parameter-vector slot of a mode a component's transition named."""
    if name not in inst.mode_slot:
        raise ExportError(f"{type(inst.component).__name__} {inst.path!r}: transition() gives "
                          f"{name!r}, which is none of its modes ({', '.join(inst.mode_slot)})")
    return inst.mode_slot[name]


def _symbols(model) -> tuple:
    """Symbol vectors (values, p, pre): the model's outputs (values of its representative
    variables) and two parameter vectors (parameters, modes and discrete variables)."""
    n_p = model.system.dae.size1_in(2)
    return (cs.SX.sym("values", model.system.n_positions),
            cs.SX.sym("p", n_p), cs.SX.sym("pre", n_p))


def _entries(vector: cs.SX) -> list:
    """The entries of a symbol vector, as a list to replace some of and join again."""
    return [vector[i] for i in range(vector.numel())]
