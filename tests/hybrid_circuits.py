"""Random hybrid circuits and output grids for differential tests of the variable-step runs,
and the helpers those tests share: the two stepping loops, the row block size, and the
comparison of two runs bit for bit.

A circuit is a voltage source ("src", node 1 to ground) feeding a chain of one or two nodes,
each joined to the node before it by an ideal diode (either way round), a switch driven by its
own control waveform, a resistor or an inductor (at least one diode or switch in the chain).
Every chain node has a resistor to ground, so no node floats and an inductor's current always
has a path, and may have a capacitor, an inductor or both to ground. The source is a sine, a
pulse train or a step; a switch's control is a pulse train (time events), a sine around the
switch's threshold 0.5 (state events) or a step.

A structure (:func:`draw_structure`) is compiled once (:func:`compiled`, cached); its element
values and waveform parameters are drawn separately (:func:`draw_values`) and passed as
``params=``, so the examples of a test reuse a few compiled models. The values keep a run of
HORIZON seconds to a few hundred solver steps and a few dozen events.

Output grids (:func:`draw_grid`) are drawn from a first run's event times as well as at random:
points at the events, a hair before and after them (one rounding step, below and above the
event tolerance), grids spaced as the events are, several points per interval between events
with the last a hair before the event (the steps just before an event then leave rows
pending), uneven grids and single points.
"""
from __future__ import annotations

import contextlib
import functools

import casadi as cs
import numpy as np
from hypothesis import strategies as st

from physlib import Model
from physlib.analysis.simulation import compiled_stepping, output_rows
from physlib.components.electrical import (Capacitor, Ground, IdealDiode, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import Pulse, Sine, Step
from physlib.core.errors import PhyslibError

HORIZON = 2e-3          # run length [s]
WAVEFORMS = {"sine": Sine, "pulse": Pulse, "step": Step}
LINKS = ("diode", "reversed diode", "switch", "resistor", "inductor")
STORAGE = ("", "C", "L", "CL")


# --- circuits ---------------------------------------------------------------------------------

@st.composite
def draw_structure(draw):
    """(source waveform, ((link, storage, control waveform or None), ...)) for one or two
    chain nodes; the control is the switch link's."""
    source = draw(st.sampled_from(sorted(WAVEFORMS)))
    nodes = draw(st.integers(1, 2))
    links = draw(st.lists(st.sampled_from(LINKS), min_size=nodes, max_size=nodes)
                 .filter(lambda ls: any(link in ("diode", "reversed diode", "switch") for link in ls)))
    chain = tuple((link, draw(st.sampled_from(STORAGE)),
                   draw(st.sampled_from(sorted(WAVEFORMS))) if link == "switch" else None) for link in links)
    return source, chain


def _waveform(kind):
    """A waveform of ``kind`` with placeholder values (the runs pass theirs as params)."""
    if kind == "pulse":
        return Pulse(width=1e-4, period=2e-4)
    return WAVEFORMS[kind]()


@functools.lru_cache(maxsize=None)
def compiled(structure):
    """The compiled circuit of ``structure``. Names: source "src"; chain node k's (k = 2, 3)
    link "D{k}", "S{k}", "R{k}" or "L{k}", its load "R{k}g", capacitor "C{k}g" and inductor
    "L{k}g" to ground; a switch's control is "S{k}.control"."""
    source, chain = structure
    m = Model("hybrid")
    src = m.add(VoltageSource("src", V=_waveform(source)))
    ground = [m.add(Ground("gnd")).p, src.n]
    previous = src.p
    for k, (link, storage, control) in enumerate(chain, start=2):
        if link == "switch":
            element = m.add(Switch(f"S{k}", control=_waveform(control)))
        elif link == "resistor":
            element = m.add(Resistor(f"R{k}", R=1.0))
        elif link == "inductor":
            element = m.add(Inductor(f"L{k}", L=1.0))
        else:
            element = m.add(IdealDiode(f"D{k}"))
        a, b = (element.n, element.p) if link == "reversed diode" else (element.p, element.n)
        m.connect(previous, a)
        node = [b]
        for kind, cls, value in (("R", Resistor, {"R": 1.0}), ("C", Capacitor, {"C": 1.0}),
                                 ("L", Inductor, {"L": 1.0})):
            if kind == "R" or kind in storage:
                to_ground = m.add(cls(f"{kind}{k}g", **value))
                node.append(to_ground.p)
                ground.append(to_ground.n)
        m.connect(*node)
        previous = b
    m.connect(*ground)
    return m.compile()


@st.composite
def draw_values(draw, structure):
    """``params`` for a run of ``structure``'s circuit over HORIZON: element values and
    waveforms whose time scales (periods, RC and L/R constants) lie between about
    HORIZON/1000 and a few HORIZONs, so a run has a few hundred steps and up to a few dozen
    events."""
    source, chain = structure
    params = _draw_waveform(draw, "src.V", source, amplitude=(1.0, 20.0))
    for k, (link, storage, control) in enumerate(chain, start=2):
        params[f"R{k}g.R"] = draw(st.floats(10.0, 1e3))
        if "C" in storage:
            params[f"C{k}g.C"] = draw(st.floats(1e-7, 1e-5))
        if "L" in storage:
            params[f"L{k}g.L"] = draw(st.floats(1e-3, 1e-1))
        if link == "resistor":
            params[f"R{k}.R"] = draw(st.floats(1.0, 1e3))
        elif link == "inductor":
            params[f"L{k}.L"] = draw(st.floats(1e-4, 1e-2))
        elif link == "switch":
            params.update(_draw_waveform(draw, f"S{k}.control", control, amplitude=(0.6, 2.0)))
    return params


def _draw_waveform(draw, path, kind, amplitude):
    """A waveform's params: a sine of 1 to 10 periods over HORIZON, pulses of period
    HORIZON/10 to HORIZON/2, a step within the run. A switch's control (amplitude above 0.6,
    a sine's offset within half its amplitude of 0.5) crosses the switch's threshold 0.5.
    Edge times lie on a raster of HORIZON/10⁶ (2 ns), not a rounding error after the start:
    the grids, not the sources, are under test here (an edge 1e-20 s after the start is a
    failure of its own, reported)."""
    size = draw(st.floats(*amplitude))

    def time(low, high):
        return draw(st.integers(round(low * 1e6), round(high * 1e6))) * HORIZON / 1e6

    if kind == "sine":
        values = {"amplitude": size, "f": draw(st.floats(1.0, 10.0)) / HORIZON,
                  "phase": draw(st.floats(0.0, 2 * np.pi))}
        if path.endswith("control"):
            values["offset"] = 0.5 + draw(st.floats(-0.5, 0.5)) * size
    elif kind == "pulse":
        period = time(0.1, 0.5)
        width = draw(st.floats(0.1, 0.9)) * period
        values = {"amplitude": size, "period": period, "width": width, "t0": time(0.0, period / HORIZON)}
    else:
        values = {"height": size, "t0": time(0.0, 1.0)}
    return {f"{path}.{name}": value for name, value in values.items()}


@st.composite
def draw_circuit(draw):
    """(structure, params) of a random circuit (:func:`compiled` builds it); a failing
    example prints both."""
    structure = draw(draw_structure())
    return structure, draw(draw_values(structure))


def _guard_rates(system):
    x, z, p, t = system.symbols(cs.SX)
    rates, alg = system.dae(x, z, p, t)
    guards = system.guards(x, z, p, t)
    # along the solution 0 = alg: z' = −alg_z⁻¹ (alg_x x' + alg_t), dz/dx = −alg_z⁻¹ alg_x
    alg_z = cs.jacobian(alg, z)
    z_rate = -cs.solve(alg_z, cs.jacobian(alg, x) @ rates + cs.jacobian(alg, t)) if z.numel() else z
    z_x = -cs.solve(alg_z, cs.jacobian(alg, x)) if z.numel() else cs.SX(0, x.numel())
    guards_z = cs.jacobian(guards, z)
    rate = cs.jacobian(guards, x) @ rates + guards_z @ z_rate + cs.jacobian(guards, t)
    return cs.Function("guard_rates", [x, z, p, t], [guards, rate, cs.jacobian(guards, x) + guards_z @ z_x])


def guard_rates(sim, x, z, p, t):
    """The guards of ``sim`` at (x, z, p, t), their rates along the solution and their
    derivatives with respect to the states (the algebraic variables following them): NumPy
    arrays (guards; guards; guards × states)."""
    cache = sim.system.cache        # the compiled model's own, for functions made on demand
    if "tests: guard rates" not in cache:
        cache["tests: guard rates"] = _guard_rates(sim.system)
    guards, rates, by_state = cache["tests: guard rates"](x, z, p, t)
    return np.array(guards).reshape(-1), np.array(rates).reshape(-1), np.array(by_state)


# --- output grids -----------------------------------------------------------------------------

GRID_KINDS = ("linspace", "uneven", "single", "at events", "hair before", "hair after",
              "event spacing", "between events")
HAIRS = ("ulp", 1e-12, 1e-8, 1e-6)     # a rounding step of t, or these fractions of the run
MAX_POINTS = 4000


@st.composite
def draw_grid(draw, t_end, event_times):
    """Output times in [0, t_end] (strictly increasing, at least one, at most about
    MAX_POINTS), of a kind from GRID_KINDS, derived from the event times of a first run where
    the kind says so. The hairs put points a rounding step, 2e-15 s and 2e-11 s (inside the
    event tolerance, 1e-10 s) or 2e-9 s (outside it) from the events of a 2 ms run."""
    events = np.unique(np.asarray([t for t in event_times if 0.0 < t < t_end], dtype=float))
    kind = draw(st.sampled_from(GRID_KINDS if len(events) else GRID_KINDS[:3]))
    hair = draw(st.sampled_from(HAIRS))

    def shifted(times, sign):
        if hair == "ulp":
            return np.nextafter(times, sign * np.inf)
        return times + sign * hair * t_end

    if kind == "linspace":
        grid = np.linspace(0.0, t_end, draw(st.integers(2, MAX_POINTS)))
    elif kind == "uneven":
        grid = np.array(draw(st.lists(st.floats(0.0, t_end), min_size=1, max_size=60)))
    elif kind == "single":
        grid = np.array([draw(st.sampled_from([0.0, t_end, draw(st.floats(0.0, t_end))]))])
    elif kind == "at events":
        grid = events
    elif kind == "hair before":
        grid = shifted(events, -1)
    elif kind == "hair after":
        grid = shifted(events, +1)
    elif kind == "event spacing":     # the spacing of two events, slightly off or not
        gaps = np.diff(np.concatenate([[0.0], events]))
        spacing = draw(st.sampled_from(sorted(set(gaps[gaps > t_end / MAX_POINTS].tolist())) or [t_end]))
        spacing *= 1 + draw(st.sampled_from([0.0, 1e-9, -1e-9, 1e-3, -1e-3]))
        first = draw(st.sampled_from([0.0, float(events[0])]))
        grid = first + spacing * np.arange(int((t_end - first) / spacing) + 1)
    else:       # between events: k evenly spread points in each interval, then a hair before its event
        k = draw(st.integers(1, 5))
        starts = np.concatenate([[0.0], events[:-1]])
        inner = [a + (b - a) * np.arange(1, k + 1) / (k + 1) for a, b in zip(starts, events)]
        grid = np.concatenate(inner + [shifted(events, -1)])
    if draw(st.booleans()):
        grid = np.concatenate([grid, [t_end]])
    return np.unique(np.clip(grid, 0.0, t_end))


# --- the two stepping loops -------------------------------------------------------------------

@contextlib.contextmanager
def python_stepping_loop():
    """Runs within take the Python stepping loop (``_HybridRun._run_to``) instead of the C
    loop of :mod:`~physlib.analysis.simulation.compiled_stepping` (the solver's callbacks stay
    compiled)."""
    original = compiled_stepping.CompiledStepping.for_run
    compiled_stepping.CompiledStepping.for_run = staticmethod(lambda run: None)
    try:
        yield
    finally:
        compiled_stepping.CompiledStepping.for_run = original


@contextlib.contextmanager
def row_block_size(size: int):
    """Runs within complete their interpolated rows in blocks of ``size`` rows (a small block
    fills at every kind of step: before a crossing, at the target, at a row on a step)."""
    original = output_rows.BLOCK
    output_rows.BLOCK = size
    try:
        yield
    finally:
        output_rows.BLOCK = original


def run_or_error(sim, t_end, **options):
    """The run, or the PhyslibError it ended with (a solver failure, an event storm), so that
    two ways of running can be compared even where they fail."""
    try:
        return sim.simulate(t_end, **options)
    except PhyslibError as err:
        return err


def assert_identical_runs(a, b):
    """The same output times, values of every variable and mode, events and solver steps,
    bit for bit (or the same error, word for word)."""
    if isinstance(a, PhyslibError) or isinstance(b, PhyslibError):
        assert (type(a), str(a)) == (type(b), str(b))
        return
    assert np.array_equal(a.t, b.t)
    for name in a.names:
        assert np.array_equal(a[name], b[name], equal_nan=True), name
    assert [(e.t, e.component, e.before, e.after, e.cause) for e in a.events] == \
        [(e.t, e.component, e.before, e.after, e.cause) for e in b.events]
    assert a.stats["steps"] == b.stats["steps"]
