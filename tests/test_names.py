"""Name tables of a flattened model (physlib.assembly.names) against plain lists of names."""
import pickle

import numpy as np
import pytest

from physlib import Model
from physlib.assembly.flatten import flatten
from physlib.assembly.passes.aliases import find_aliases
from physlib.components.electrical import Capacitor, Inductor, Resistor, Switch, VoltageSource
from physlib.components.signals import Step, Table
from physlib.core.symbols import derivative_base

from test_hierarchy import rc_section, source_and_ground


def mixed_model():
    """Nested subsystems two levels deep, derivatives, inline sources (a number and waveforms,
    one of them structural), a mode."""
    mid = Model("mid")
    sub, rx = mid.add(rc_section("sub")), mid.add(Resistor("Rx", R=3.0))
    mid.connect(sub.b, rx.p)
    mid.expose(sub.a, "a")
    mid.expose(rx.n, "b")
    mid.expose(sub.g, "g")
    m = Model("top")
    src, gnd = source_and_ground(m)
    sw, inner = m.add(Switch("S1", Goff=1e-9, control=Step(t0=1e-3))), m.add(mid)
    coil, dc = m.add(Inductor("L1", L=1e-3)), m.add(VoltageSource("dc", V=2.0))
    table = m.add(VoltageSource("tab", V=Table(points=[(0, 0), (1, 1)])))
    m.connect(src.p, sw.p)
    m.connect(sw.n, inner.a)
    m.connect(inner.b, coil.p)
    m.connect(coil.n, dc.p)
    m.connect(dc.n, table.p)
    m.connect(table.n, inner.g, gnd.p)
    return m


def plain_names(flat):
    """The variable and parameter names as flattening used to list them."""
    variables, parameters = [], []
    for g in flat.groups:
        tpl = g.template
        pieces = [("der(", f".{derivative_base(n)})") if derivative_base(n) else ("", f".{n}")
                  for n in tpl.local_names]
        variables += [head + path + tail for path in g.paths for head, tail in pieces]
        own = [""] if tpl.class_name == "_ConstantInput" else [f".{n}" for n in tpl.param_names]
        parameters += [path + s for path in g.paths for s in own + [f".{n}" for n in tpl.mode_names]]
    return variables, parameters


@pytest.fixture(scope="module")
def flat():
    return flatten(mixed_model())


def test_tables_list_the_names_of_the_plain_lists(flat):
    variables, parameters = plain_names(flat)
    assert list(flat.var_names) == variables and len(flat.var_names) == len(variables)
    assert list(flat.param_names) == parameters
    assert [flat.var_names[i] for i in range(len(variables))] == variables
    assert flat.var_names[-1] == variables[-1] and flat.var_names[np.int64(3)] == variables[3]
    assert flat.var_names[2:5] == variables[2:5]
    assert flat.var_names.take(np.arange(len(variables))[::-1]) == variables[::-1]
    with pytest.raises(IndexError):
        flat.var_names[len(variables)]
    for name in ("der(mid.sub.C1.v)", "der(L1.i)", "mid.sub.R1.p.v", "dc.V.y", "tab.V.y", "S1.control.y"):
        assert name in variables
    assert {"dc.V", "S1.closed", "mid.sub.C1.C", "S1.control.t0"} <= set(parameters)


def test_lookup_by_name_finds_every_name_and_nothing_else(flat):
    variables, parameters = plain_names(flat)
    assert [flat.var_names.find(n) for n in variables] == list(range(len(variables)))
    assert [flat.param_names.find(n) for n in parameters] == list(range(len(parameters)))
    for wrong in ("C1.v", "mid.sub.C1", "der(mid.sub.C1.i)", "der(L1.i", "mid.sub.R1.p.v.", "",
                  "L1", ".L1.i", "S1.closed", ["L1.i"], None):
        assert flat.var_names.find(wrong) is None and wrong not in flat.var_names


def test_the_first_lookups_search_the_paths_then_a_table_answers_the_same():
    # A million-element model's table takes half a second; reading one result asks a few times.
    instances = flatten(mixed_model()).var_names.instances
    paths = [(g, row, path) for g, group in enumerate(instances.paths) for row, path in enumerate(group)]
    questions = [path for _, _, path in paths] + ["mid.sub", "nothing", "L1.i", ""]
    searched = [instances.where(q) for q in questions[:instances.SEARCHED]]
    assert instances._number is None                        # no table yet
    answers = searched + [instances.where(q) for q in questions[instances.SEARCHED:]]
    assert instances._number is not None
    assert answers == [(g, row) for g, row, _ in paths] + [None] * 4
    assert [instances._search(q) for q in questions] == answers


def test_parameter_checks_pair_declarations_with_component_paths(flat):
    _, parameters = plain_names(flat)
    checks = list(flat.param_checks)
    assert len(checks) == len(parameters)
    for name, (declaration, path) in zip(parameters, checks):
        assert name == path or name == f"{path}.{declaration.name}"


def test_position_names_are_the_names_of_the_representatives(flat):
    aliases = find_aliases(flat)
    expected = [flat.var_names[i] for i in aliases.reps]
    assert list(aliases.names) == expected and len(aliases.names) == aliases.n
    assert aliases.names[-1] == expected[-1] and aliases.names[np.int64(1)] == expected[1]
    more = aliases.names + ("der(x)",)
    assert list(more) == expected + ["der(x)"] and more[-1] == "der(x)" and len(more) == len(expected) + 1
    assert more.take([len(expected), 0, 2, len(expected)]) == ["der(x)", expected[0], expected[2], "der(x)"]
    with pytest.raises(IndexError):
        more[len(more)]


def test_tables_pickle_without_their_lookup(flat):
    names = flat.var_names
    names.find("L1.i")        # builds the lookup
    loaded = pickle.loads(pickle.dumps(names))
    assert list(loaded) == list(names) and loaded.find("der(L1.i)") == names.find("der(L1.i)")


def test_compiled_model_reads_names_through_the_tables():
    sim = mixed_model().compile()
    variables, parameters = plain_names(sim._flat)
    assert sim.variables == variables
    names = sim.system.position_names
    assert sim.states == [names[i] for i in sim.system.state_pos] == ["mid.sub.C1.v", "L1.i"]
    assert sim.algebraic == [names[i] for i in sim.system.z_pos]
    assert sim.modes == ["S1.closed"]
    assert list(sim.parameters) == [n for n in parameters if n != "S1.closed"]
    assert sim.has_variable("der(L1.i)") and not sim.has_variable("L1.x")
    assert sim.unit("mid.sub.C1.v") == "V" and sim.unit("der(L1.i)") == "A/s"
    assert sim.parameter_slot("dc.V") == parameters.index("dc.V")
    res = sim.simulate(2e-3)
    assert res["dc.V.y"][-1] == pytest.approx(2.0) and res["dc.V"] == pytest.approx(2.0)
    assert "mid.sub.C1.v" in res.names and "S1.closed" in res.names


def test_the_state_and_algebraic_names_are_made_once_and_handed_out_as_copies():
    """A run from an operating point reads the names several times, so the model makes them
    once; each read is a new list, so a caller that edits its list changes no other's."""
    sim = mixed_model().compile()
    first = sim.states
    first.append("not a state")
    first[0] = "edited"
    assert sim.states == ["mid.sub.C1.v", "L1.i"]
    assert sim.states is not sim.states and sim.states[1] is sim.states[1]     # shared strings
    algebraic = sim.algebraic
    algebraic.clear()
    assert sim.algebraic == [sim.system.position_names[i] for i in sim.system.z_pos] != []
    op = sim.operating_point()
    assert list(op.states) == sim.states and list(op.algebraic) == sim.algebraic
