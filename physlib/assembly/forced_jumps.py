"""Jumps that constraints force on states: a current step through an inductor, a voltage step
directly across a capacitor.

Index reduction differentiates the constraint that ties such a state to a time-dependent input
(``L1.i = I1.I``), and the derivative of a waveform is taken piece by piece: a step's is zero
on both sides of the step, while the state it drives would have to jump there, its derivative
(and ``L1.v = L·der(L1.i)``) an impulse that no solver can represent. A run would report 0.

The compiler records here (:func:`forced_inputs`) every differentiated equation of a component
with time events (a waveform) whose value some demoted state (a dummy state) follows. Whether
the input actually jumps depends on the parameter values and the interval of a run, so
:func:`check_forced_jumps` looks when a run asks for its time events, and raises
:class:`~physlib.core.errors.ImpulseError` naming the input, the time and the state. Inputs
that are continuous (a ramp, a sine starting at zero, a table) pass: their corners only step
the derivative, a finite jump of ``L1.v``.
"""
from __future__ import annotations


import numpy as np

from ..core.arrays import sorted_unique
from ..core.component import Component
from ..core.errors import ImpulseError
from ..core.records import record
from .ir import AliasMap, BlockOrder, Reduced
from .sparse import CSR

JUMP_TOLERANCE = 1e-9   # relative change of an input at a time event that counts as a jump
MAX_NAMED = 4           # forced states described in a message


@record(frozen=True)
class ForcedInput:
    """A differentiated equation of a component with time events, and the states it forces."""

    group: int              # the component's group in FlatSystem.groups
    instance: int           # its row in the group
    residual: int           # the equation among its class template's residuals
    states: tuple           # (state path, its component's "Class path", its equation text)
    n_states: int           # how many states it forces (``states`` describes the first few)


def forced_inputs(flat, aliases: AliasMap, reduced: Reduced, order: BlockOrder) -> tuple:
    """The :class:`ForcedInput` of every differentiated equation of a time-dependent
    component whose value some dummy state depends on, in the evaluation order."""
    eqs = reduced.equations
    timed = [gi for gi, g in enumerate(flat.groups)
             if type(g.components[0]).time_events is not Component.time_events]
    if not reduced.dummies or not timed:
        return ()
    bases = sorted_unique(np.asarray(reduced.new_eqs, dtype=np.int64))
    bases = bases[bases < eqs.n_template]
    _, group_of, _ = eqs.blocks_of(bases)
    candidates = []
    for base in bases[np.isin(group_of, timed)].tolist():
        if base in eqs.combos:
            continue
        block, instance = eqs.block_of(base)
        if flat.groups[block.group].template.timed[block.residual]:
            candidates.append((base, block, instance))
    if not candidates:
        return ()
    users = eqs.incidence(None, reduced.n_pos).transpose()  # position -> equations containing it
    derivative_rows = {}
    for k, base in enumerate(reduced.new_eqs):
        derivative_rows.setdefault(base, []).append(eqs.n_base + k)
    dummies = set(reduced.dummies)
    found = []
    for base, block, instance in candidates:
        reached = sorted(dummies & _dependents([base, *derivative_rows.get(base, [])], users,
                                                reduced, order))
        if reached:
            # Messages name a few; the count says how many more there are.
            states = tuple(_describe_state(flat, aliases, d) for d in reached[:MAX_NAMED])
            found.append(ForcedInput(block.group, instance, block.residual, states, len(reached)))
    return tuple(found)


def _dependents(start_eqs, users: CSR, reduced: Reduced, order: BlockOrder) -> set:
    """Positions whose value depends on the equations ``start_eqs`` through the matching (each
    equation determines the position it is matched to from the others it contains)."""
    defined = np.full(len(order.match), -1, dtype=np.int64)
    matched = order.match >= 0
    defined[matched] = reduced.unknown_pos[order.match[matched]]
    seen_eqs, reached = set(start_eqs), set()
    todo = [int(defined[e]) for e in start_eqs if defined[e] >= 0]
    while todo:
        pos = todo.pop()
        if pos in reached:
            continue
        reached.add(pos)
        for e in users.row(pos).tolist():
            if e not in seen_eqs:
                seen_eqs.add(e)
                if defined[e] >= 0:
                    todo.append(int(defined[e]))
    return reached


def _describe_state(flat, aliases: AliasMap, position: int) -> tuple:
    """(state path, "Class path" of its component, the component's equation with its derivative)
    of the dummy state at ``position``."""
    ids = aliases.state_ids[aliases.col[aliases.state_ids] == position]
    raw = int(ids[0]) if len(ids) else int(aliases.reps[position])
    g, row, local = flat.var_names.locate(raw)
    group = flat.groups[g]
    tpl = group.template
    owner = f"{tpl.class_name} {group.paths[row]}"
    ders = [d for d, base in tpl.der_of.items() if base == local]
    equation = next((f"{expr} = 0" for expr, locals_ in zip(tpl.residuals, tpl.incidence)
                     if ders and ders[0] in locals_), "")
    return flat.var_names[raw], owner, equation


def check_forced_jumps(compiled, p: np.ndarray, t0: float, t1: float) -> None:
    """Raise :class:`ImpulseError` if, with the parameter vector ``p``, an input recorded by
    :func:`forced_inputs` jumps at a time event in (t0, t1]: the state it forces would jump."""
    flat = compiled._flat
    for forced in compiled.system.forced_inputs:
        group = flat.groups[forced.group]
        component = group.components[forced.instance]
        tpl = group.template
        inputs = p[group.param_ids[forced.instance]]
        values = dict(zip(tpl.param_names, inputs.tolist()))
        value = _value(tpl, forced.residual, inputs)
        times = sorted(te for te in component.time_events(values, t0, t1) if t0 < te <= t1)
        # Rounding errors grow with the values the waveform takes, not with those at one edge
        # (a table that falls to 0 is 4e-16 just before, computed as 1 − 1).
        scale = max([abs(value(time)) for time in (t0, *times)], default=0.0)
        for te in times:
            before, after = _left_limit(value, te, t1 - t0), value(te)
            if abs(after - before) > JUMP_TOLERANCE * max(scale, abs(before)):
                raise _impulse(tpl.class_name, group.paths[forced.instance], te, before, after,
                               forced)


def _value(tpl, index: int, inputs: np.ndarray):
    """The value of the component's output at a time (a waveform's ``y = value(t)``, from the
    equation's explicit solution), or where the equation has none its residual with the
    variables at their start values; either jumps where the input does."""
    explicit = sorted(tpl.explicit[index])
    local = np.asarray(tpl.local_start, dtype=float)
    if len(explicit) == 1:
        function, row = tpl.solution_function(index, explicit[0]), 0
    else:
        function, row = tpl.residual_function, index
    return lambda time: float(np.asarray(function(local, inputs, time)).ravel()[row])


def _left_limit(value, te: float, span: float) -> float:
    """The limit of ``value`` from the left at ``te``, extrapolated linearly from two points
    just before it (exact for the constant and linear pieces of waveforms; a waveform takes the
    value after a jump at the jump itself, so ``value(te)`` is the value after)."""
    delta = max(1e-10 * span, 1e-13 * abs(te), 1e-300)
    return 2.0 * value(te - delta) - value(te - 2.0 * delta)


def _impulse(kind: str, path: str, te: float, before: float, after: float,
             forced: ForcedInput) -> ImpulseError:
    state, owner, equation = forced.states[0]
    others = [s for s, _, _ in forced.states[1:]]
    if forced.n_states > len(forced.states):
        others.append(f"{forced.n_states - len(forced.states)} more")
    more = f" (and {', '.join(others)})" if others else ""
    law = f" ({owner}: {equation})" if equation else ""
    return ImpulseError(
        f"{kind} {path} jumps from {before:g} to {after:g} at t = {te:g} s, and the constraints make "
        f"the state {state} of {owner}{more} follow it with nothing in between: {state} would jump "
        f"too, so der({state}) is an impulse there{law}, which a simulation cannot represent (it "
        f"would report 0). Let {state} change continuously: add a resistance to the loop (in "
        f"series with a capacitor, in parallel with an inductor or a current source; a damper "
        f"between a speed source and an inertia), or give {path} a waveform without jumps (a Ramp "
        f"instead of a Step, a Table)")
