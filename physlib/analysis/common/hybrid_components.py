"""The components of a compiled model that have modes or discrete variables, as the event
iteration sees them.

Each :class:`HybridInstance` reads one component's local values (its port and internal
variables, parameters, modes and discrete variables, with ``pre(...)`` for the values before
the event) out of the solver vectors, asks the component for its next modes
(:meth:`~physlib.core.component.Component.transition`) or, at its sample instants, for new
discrete values (``update``), and returns only what changed.

One round of an event iteration is :func:`mode_requests` then :func:`set_modes`, repeated at
most :func:`max_mode_rounds` times before the modes count as not settling
(:class:`~physlib.core.errors.ModeSettlingError`). The simulator's event iteration
(:meth:`physlib.analysis.simulation.events.HybridStepper.iterate_modes`) solves the algebraic
variables again between rounds; an operating point
(:mod:`physlib.analysis.linear.steady_state`) solves the whole steady state again.

The instance reads numeric vectors (floats out) or CasADi symbol vectors (symbols out): an
export traces the components' behaviour through it (:mod:`.hybrid_functions`), so the slots of
values, modes and ``pre(...)`` are read in one place for both.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.component import Discrete, as_real
from ...core.errors import PhyslibError
from ...core.logic import is_symbolic
from ...core.records import record


@record
class Event:
    """A mode change: time [s], component path, modes before and after, and its cause."""

    t: float
    component: str
    before: dict
    after: dict
    cause: str      # "state" (a guard crossed zero), "time" (a scheduled time) or "initial"

    def __init__(self, t: float, component: str, before: dict, after: dict, cause: str):
        # its own: one per mode change, hundreds in a switching converter's run
        self.t, self.component, self.before, self.after, self.cause = t, component, before, after, cause

    def __repr__(self):
        return f"<Event t={self.t:.10g} {self.component}: {self.before} -> {self.after} ({self.cause})>"


class HybridInstance:
    """One component with modes or discrete variables: reads its values and asks it for its
    next modes (``transition``) or, at its sample instants, discrete values (``update``)."""

    def __init__(self, model, group, row, guard_rows, constraint_rows=()):
        self.component = group.components[row]
        self.path = group.paths[row]
        tpl = group.template
        self.local_pos = model.system.var_col[group.var_ids[row]]
        self.local_sign = model.system.var_sign[group.var_ids[row]]
        self.local_names = tpl.local_names
        self.param_slots = dict(zip(tpl.param_names, group.param_ids[row][:len(tpl.param_names)].tolist()))
        slots = dict(zip(tpl.mode_names, group.param_ids[row][len(tpl.param_names):].tolist()))
        declared = {n: getattr(type(self.component), n) for n in slots}   # the Mode declarations
        self.mode_slot = {n: s for n, s in slots.items() if not isinstance(declared[n], Discrete)}
        self.discrete_slot = {n: s for n, s in slots.items() if isinstance(declared[n], Discrete)}
        # discrete slot -> slot of the parameter it starts from
        self.start_slots = {s: self.param_slots[declared[n].start_parameter]
                            for n, s in self.discrete_slot.items() if declared[n].start_parameter}
        self.samples = frozenset()      # sample instants of the run (HybridStepper.start)
        # (instant, discrete values before it) of the latest sample: pre(...) stays the value
        # before the instant however often it is iterated there (a state event that lands on
        # an instant iterates there twice, with a settling probe in between).
        self._pre = (None, {})
        self.guard_rows = guard_rows
        self.constraint_rows = list(constraint_rows)   # rows of system.constraints it owns

    def modes(self, p) -> dict:
        """The mode codes in the parameter vector ``p``: ints, or entries of a symbolic ``p``."""
        return _codes(p, self.mode_slot)

    def discrete(self, p) -> dict:
        """The discrete values in ``p``: floats, or entries of a symbolic ``p``."""
        return _reals(p, self.discrete_slot)

    def _local(self, values, p, pre):
        """The component's values by local name, as its transition and update read them:
        floats (and int mode codes), or CasADi symbols where the vectors are symbolic (an
        export, :mod:`.hybrid_functions`)."""
        if _symbolic(values):
            signs = self.local_sign.tolist()
            local = {name: sign * values[pos] for name, pos, sign in
                     zip(self.local_names, self.local_pos.tolist(), signs)}
        else:
            local = dict(zip(self.local_names, (self.local_sign * values[self.local_pos]).tolist()))
        local.update(_reals(p, self.param_slots))
        local.update(self.modes(p))
        local.update({f"pre({name})": code for name, code in _codes(pre, self.mode_slot).items()})
        local.update(self.discrete(p))
        return local

    def requested_modes(self, values, p, pre, fired) -> dict:
        """The component's answer to :meth:`~physlib.core.component.Component.transition`,
        {mode: code}, codes unchanged included; on symbolic vectors (``fired``: 0/1 per guard
        of the model) symbolic codes."""
        flag = (lambda r: fired[r]) if _symbolic(fired) else (lambda r: bool(fired[r]))
        flags = [flag(r) for r in self.guard_rows]
        return self.component.transition(self._local(values, p, pre), flags) or {}

    def transition(self, values, p, pre, fired):
        """The modes that change, {mode: int code}, from numeric vectors (see
        :func:`mode_requests`)."""
        current = self.modes(p)
        new = {name: int(round(code)) for name, code in self.requested_modes(values, p, pre, fired).items()}
        return {name: code for name, code in new.items() if code != current[name]}

    def requested_discrete(self, values, p, pre, t, before=None) -> dict:
        """The component's answer to :meth:`~physlib.core.component.Component.update` at
        sample instant t [s], {discrete variable: value}; ``pre(name)`` of a discrete variable
        is its value in ``before`` (by name), else in ``pre``. Works on symbolic vectors and t
        as well. A name that is not one of its discrete variables is an error."""
        local = self._local(values, p, pre)
        before = self.discrete(pre) if before is None else before
        local.update({f"pre({name})": value for name, value in before.items()})
        new = self.component.update(local, t) or {}
        unknown = {name: value for name, value in new.items() if name not in self.discrete_slot}
        if unknown:
            raise self._bad_update(t, unknown)
        return new

    def update(self, values, p, pre, t):
        """Changed discrete values at sample instant t (``pre``: the parameter vector at the
        start of this event iteration, for the modes' ``pre(...)`` as in :meth:`transition`)."""
        if self._pre[0] != t:
            self._pre = (t, self.discrete(p))
        new = self.requested_discrete(values, p, pre, t, self._pre[1])
        bad = {name: value for name, value in new.items() if not math.isfinite(_real_or_nan(value))}
        if bad:
            raise self._bad_update(t, bad)
        return {name: float(value) for name, value in new.items()
                if float(value) != p[self.discrete_slot[name]]}

    def _bad_update(self, t, bad: dict) -> PhyslibError:
        at = "" if is_symbolic(t) else f" at t = {t:.10g} s"
        return PhyslibError(f"{type(self.component).__name__} {self.path!r}: update(){at} returned "
                            f"{bad}; it gives finite values of its discrete variables "
                            f"({', '.join(self.discrete_slot) or 'none'})")


def _symbolic(vector) -> bool:
    """Whether ``vector`` holds CasADi symbols (an export) rather than numbers; a NumPy array,
    the simulator's case, is recognized first."""
    return not isinstance(vector, np.ndarray) and is_symbolic(vector)


def _codes(vector, slots: dict) -> dict:
    """{name: mode code at its slot of ``vector``}: ints, or the entries of a symbolic vector."""
    if _symbolic(vector):
        return {name: vector[slot] for name, slot in slots.items()}
    return {name: int(vector[slot]) for name, slot in slots.items()}


def _reals(vector, slots: dict) -> dict:
    """{name: value at its slot of ``vector``}: floats, or the entries of a symbolic vector."""
    if _symbolic(vector):
        return {name: vector[slot] for name, slot in slots.items()}
    return {name: float(vector[slot]) for name, slot in slots.items()}


def _real_or_nan(value) -> float:
    """``value`` as a float, NaN if it is not a real number."""
    number = as_real(value)
    return math.nan if number is None else number


def hybrid_instances(model) -> list[HybridInstance]:
    """One :class:`HybridInstance` per component with modes or discrete variables, with the
    rows of the guards and of the mode constraints it owns."""
    system = model.system
    rows: dict[tuple[int, int], list[int]] = {}
    for r, (gi, inst, _) in enumerate(system.guard_owner):
        rows.setdefault((gi, inst), []).append(r)
    constraint_rows: dict[tuple[int, int], list[int]] = {}
    for r, (gi, inst, *_) in enumerate(system.constraint_owner):
        constraint_rows.setdefault((gi, inst), []).append(r)
    out = []
    for gi, group in enumerate(model.component_groups):
        if group.template.mode_names:
            for row in range(len(group.paths)):
                out.append(HybridInstance(model, group, row, rows.get((gi, row), []),
                                          constraint_rows.get((gi, row), [])))
    return out



def no_crossings(model) -> np.ndarray:
    """The guards' "fired" flags where none crossed zero (a time event, the start of a run, an
    operating point): all False."""
    return np.zeros(len(model.system.guard_owner), bool)


def mode_requests(instances, values, p, pre, fired) -> list[tuple[HybridInstance, dict]]:
    """The mode changes the components ask for at one point, ``(instance, {mode: code})`` for
    each component whose :meth:`~HybridInstance.transition` changes something. ``values``: the
    model's outputs there; ``p``: the parameter vector with the current modes; ``pre``: the one
    from before the instant (for ``pre(...)``); ``fired``: the guards that crossed zero."""
    return [(inst, new) for inst in instances if (new := inst.transition(values, p, pre, fired))]


def set_modes(requests, p, t: float, cause: str) -> list[Event]:
    """Write the modes of ``requests`` (from :func:`mode_requests`) into the parameter vector
    ``p``; one :class:`Event` per component, at time t with ``cause``."""
    events = []
    for inst, new in requests:
        before = inst.modes(p)
        for name, code in new.items():
            p[inst.mode_slot[name]] = code
        events.append(Event(t, inst.path, before, {**before, **new}, cause))     # new: int codes
    return events


def max_mode_rounds(instances) -> int:
    """Rounds of transitions an event iteration may take at one instant before its modes count
    as not settling: a chain of components that each switch once as the one before has
    switched takes one round per component."""
    return 20 + 2 * len(instances)
