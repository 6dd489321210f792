"""Model construction (the netlist) and flattening: large models keep their checks, nested
models flatten like flat ones, and flattening does not depend on the compiler's entry point."""
import ast
import gc
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physlib
from physlib import (Component, DomainMismatchError, DuplicateNameError, Input, MissingReferenceError, Model, Output,
                     PortConnectionError)
from physlib.assembly.flatten import flatten
from physlib.assembly.netlist import ExposedPort, Netlist
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.rotational import Inertia
from physlib.components.signals import Gain, Step
from test_hierarchy import rc_section
from test_results import rc_ladder

ASSEMBLY = pathlib.Path(physlib.__file__).parent / "assembly"


def ladder(n):
    """The RC ladder of test_results behind a 1 V step."""
    return rc_ladder(n, V=Step(height=1.0))


def nested_ladder(n):
    """The same ladder, each stage a subsystem, the stages themselves inside one more level."""
    m = Model("nested")
    src, gnd = m.add(VoltageSource("src", V=Step(height=1.0))), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    chain = m.add(Model("chain"))
    stages = [chain.add(rc_section(f"s{k}", C=1e-3)) for k in range(1, n + 1)]
    for left, right in zip(stages, stages[1:]):
        chain.connect(left.b, right.a)
    chain.expose(stages[0].a, "a")
    for k, stage in enumerate(stages, 1):
        chain.expose(stage.g, f"g{k}")
    m.connect(src.p, chain.a)
    m.connect(gnd.p, *[getattr(chain, f"g{k}") for k in range(1, n + 1)])
    return m


@pytest.mark.parametrize("stages", [1, 3000])
def test_construction_errors_read_the_same_in_a_large_model(stages):
    m = ladder(stages)
    with pytest.raises(DuplicateNameError, match=r"model 'ladder' already has a member named 'R1' "
                                                 r"\(Resistor\('R1'\)\); give each component a unique name"):
        m.add(Resistor("R1", R=1.0))
    stray = Resistor("stray", R=1.0)
    with pytest.raises(PortConnectionError, match=r"stray.p \(electrical\) belongs to 'stray', which is "
                                                  r"not a member of model 'ladder'"):
        m.connect(m.R1.n, stray.p)
    shaft = m.add(Inertia("J", J=1.0))
    with pytest.raises(DomainMismatchError, match=r"cannot connect R1.p \(electrical\) to "
                                                  r"J.flange_a \(rotational\)"):
        m.connect(m.R1.p, shaft.flange_a)
    with pytest.raises(PortConnectionError, match=r"port C1.p is connected to itself"):
        m.connect(m.C1.p, m.R1.n, m.C1.p)
    with pytest.raises(PortConnectionError, match="not a port"):
        m.connect(m.R1.p, "C1.p")
    # A refused connection leaves nothing behind: the model still flattens as before.
    assert len(flatten(m).through_sums) == stages + 2 + 2     # nodes, and the free flanges of J


def test_nested_subsystems_flatten_like_the_flat_model():
    n = 4
    flat, nested = flatten(ladder(n)), flatten(nested_ladder(n))
    rename = {"src": "src", "gnd": "gnd", "src.V": "src.V"}
    rename.update({f"chain.s{k}.R1": f"R{k}" for k in range(1, n + 1)})
    rename.update({f"chain.s{k}.C1": f"C{k}" for k in range(1, n + 1)})

    def renamed(name):
        for old in sorted(rename, key=len, reverse=True):
            if name.startswith(old + ".") or name == old:
                return rename[old] + name[len(old):]
            if name.startswith(f"der({old}."):
                return f"der({rename[old]}{name[len(old) + 4:]}"
        raise AssertionError(name)

    assert sorted(map(renamed, nested.var_names)) == sorted(flat.var_names)
    assert sorted(map(renamed, nested.param_names)) == sorted(flat.param_names)
    assert sorted(tuple(sorted(map(renamed, node))) for node in nested.nodes) == \
        sorted(tuple(node) for node in flat.nodes)

    # The same equalities and through sums, as sets of variable names.
    def equalities(fs, rename_to):
        return sorted(tuple(sorted((rename_to(fs.var_names[int(a)]), rename_to(fs.var_names[int(b)]))))
                      for a, b in fs.equalities)

    def sums(fs, rename_to):
        return sorted(tuple(sorted(rename_to(fs.var_names[i]) for i in s)) for s in fs.through_sums)

    assert sums(nested, renamed) == sums(flat, str)
    # Which member carries a node's potential may differ (the first by path), the sets may not.
    def potentials(fs, rename_to):
        parent = {}

        def find(x):
            while parent.get(x, x) != x:
                x = parent[x]
            return x
        for a, b in fs.equalities:
            parent[find(rename_to(fs.var_names[int(a)]))] = find(rename_to(fs.var_names[int(b)]))
        groups = {}
        for name in parent:
            groups.setdefault(find(name), set()).add(name)
        return sorted(sorted(g | {root}) for root, g in groups.items())

    assert potentials(nested, renamed) == potentials(flat, str)
    t = np.linspace(0.0, 3.0, 31)
    a = nested_ladder(n).compile().simulate(3.0, t_eval=t, rtol=1e-10, atol=1e-12)
    b = ladder(n).compile().simulate(3.0, t_eval=t, rtol=1e-10, atol=1e-12)
    for k in range(1, n + 1):
        np.testing.assert_allclose(a[f"chain.s{k}.C1.v"], b[f"C{k}.v"], rtol=0, atol=1e-9)


def test_connection_sets_order_members_by_port_path():
    """A node's first member (by port path) carries its potential: R10 sorts before R2."""
    m = Model("m")
    gnd = m.add(Ground("gnd"))
    rs = [m.add(Resistor(f"R{k}", R=1.0)) for k in (2, 10, 1)]
    m.connect(rs[0].p, rs[1].p, rs[2].p, gnd.p)
    m.connect(*[r.n for r in rs])
    fs = flatten(m)
    assert list(fs.nodes) == [["R1", "R10", "R2", "gnd"], ["R1", "R10", "R2"]]
    assert fs.nodes[-1] == fs.nodes[1] == ["R1", "R10", "R2"] and len(fs.nodes) == 2
    names = [(fs.var_names[int(a)], fs.var_names[int(b)]) for a, b in fs.equalities]
    assert names[:3] == [("R1.p.v", "R10.p.v"), ("R1.p.v", "R2.p.v"), ("R1.p.v", "gnd.p.v")]
    assert [[fs.var_names[i] for i in s] for s in fs.through_sums[:1]] == \
        [["R1.p.i", "R10.p.i", "R2.p.i", "gnd.p.i"]]


def test_members_sort_as_the_strings_do():
    """Paths sorted as bytes, as the strings sort: "_" after capitals, before small letters."""
    names = ["R_b", "Ra", "R0", "RZ", "R"]
    m = Model("m")
    rs = [m.add(Resistor(name, R=1.0)) for name in names]
    m.connect(*[r.p for r in rs], m.add(Ground("gnd")).p)
    m.connect(*[r.n for r in rs])
    assert list(flatten(m).nodes)[1] == sorted(names)


class Débit(Component):
    """A block named, with its input, in no ASCII word (Python allows both in a class)."""

    entrée = Input()
    y = Output()

    def equations(self):
        return [self.y - 2 * self.entrée]


def test_a_class_and_an_input_named_in_unicode_compile_and_run():
    """The inline value's source path (``d.entrée``) is no ASCII text: the paths sort as
    strings then. The class's CasADi functions get ASCII names (``D_bit_expressions``)."""
    m = Model("m")
    d = m.add(Débit("d", entrée=1.5))
    m.connect(d.y, m.add(Gain("g", k=1.0)).u)
    assert list(flatten(m).nodes) == [["d", "d.entrée"], ["d", "g"]]
    assert m.compile().simulate(1.0)["g.y"][-1] == 3.0


def test_signal_sets_equal_the_output_and_inline_values_drive_their_input():
    m = Model("m")
    src, gnd = m.add(VoltageSource("src")), m.add(Ground("gnd"))
    step, gain = m.add(Step("st", height=2.0)), m.add(Gain("k", k=3.0))
    m.connect(step.y, gain.u)
    m.connect(gain.y, src.V)
    m.connect(src.n, gnd.p)
    r = m.add(Resistor("R1", R=1.0))
    m.connect(src.p, r.p)
    m.connect(r.n, gnd.p)
    fs = flatten(m)
    pairs = {(fs.var_names[int(a)], fs.var_names[int(b)]) for a, b in fs.equalities}
    assert {("k.u", "st.y"), ("src.V", "k.y")} <= pairs
    assert ["k", "st"] in fs.nodes and ["k", "src"] in fs.nodes
    res = m.compile().simulate(1e-3)
    assert res["R1.i"][-1] == pytest.approx(6.0)


def test_flatten_leaves_the_garbage_collector_as_it_found_it():
    m = ladder(3)
    assert gc.isenabled()
    flatten(m)
    assert gc.isenabled()
    gc.disable()
    try:
        flatten(m)
        assert not gc.isenabled()
    finally:
        gc.enable()
    bad = Model("bad")
    bad.add(Resistor("R1", R=1.0))
    with pytest.raises(physlib.UnconnectedPortError):
        flatten(bad)
    assert gc.isenabled()


def test_connection_graph_star_per_connection():
    m = ladder(2)
    g = m.graph
    assert g.has_edge("src.n", "gnd.p") and g.has_edge("C1.n", "gnd.p") and g.has_edge("R1.n", "C1.p")
    assert g.has_edge("R1.n", "R2.p") and g.nodes["C2.n"]["domain"] == "electrical"
    nested = nested_ladder(2)
    assert set(nested.graph.edges) >= {("src.p", "chain.a")}
    assert nested["chain"].graph.has_edge("s1.b", "s2.a")


def _imports(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("module", ["flatten.py", "connection_sets.py", "netlist.py"])
def test_flattening_does_not_import_the_model_or_the_compiler(module):
    imports = _imports(ASSEMBLY / module)
    assert not imports & {".model", ".compile", ".compiled", "physlib.assembly.model"}, imports


def test_public_names_of_the_model_module_stay():
    from physlib.assembly import model as model_module
    # physlib.Model is the assembly layer's Model with analyses on what it compiles to.
    assert issubclass(physlib.Model, model_module.Model) and model_module.Model is physlib.assembly.Model
    assert model_module.ExposedPort is ExposedPort
    m = Model("m")
    assert isinstance(m, Netlist) and repr(m) == "Model('m', 0 members)"
    sub = m.add(rc_section("sub"))
    assert isinstance(sub.a, ExposedPort) and sub.a.path == "sub.a"


def diode_chain(n):
    """src -R0- D0 - node0 -R1- D1 - node1 ...; C_k from node k to ground."""
    from physlib.components.electrical import Diode
    m = Model("chain")
    src, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(n):
        r, d, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Diode(f"D{k}")), m.add(Capacitor(f"C{k}", C=1e-6))
        m.connect(node, r.p)
        m.connect(r.n, d.p)
        m.connect(d.n, c.p)
        m.connect(c.n, gnd.p)
        node = d.n
    return m


def test_partitions_of_a_chain_of_many_portions():
    """Every diode is a nonlinear portion of its own; the resistors and capacitors are one
    linear portion, joined through ground."""
    from physlib.assembly.partition import partition
    n = 300
    parts = partition(flatten(diode_chain(n)))
    assert [p.linear for p in parts] == [True] + [False] * n
    linear, nonlinear = parts[0], parts[1:]
    assert [p.components for p in nonlinear] == sorted([f"D{k}"] for k in range(n))
    assert all(p.memoryless for p in nonlinear) and not linear.memoryless
    assert len(linear.components) == 2 * n + 3                # R, C, src, its inline value, gnd
    d7 = next(p for p in nonlinear if p.components == ["D7"])
    assert d7.boundary == [("D7", "R7"), ("C7", "D7", "R8")]
    assert d7.connections == [("D7.p",), ("D7.n",)] and d7.ports == ["D7.p", "D7.n"]
    assert len(linear.boundary) == len(linear.ports) == 2 * n
    assert ("C7", "D7", "R8") in linear.boundary and ("C7.p", "R8.p") in linear.connections
    assert "C7.p" in linear.ports and "R8.p" not in linear.ports     # one port per shared node
    assert len(d7.equations) == len(nonlinear[0].equations) and d7.equations[0].startswith("D7: ")


def test_instances_of_a_class_with_structural_parameters_get_the_template_of_their_own_values():
    # Resistors whose `constants` differ have different equations (the 4kT of their noise):
    # flattening looks a template up once per distinct value, and every instance must land in
    # the group of its own value, whatever order the values come in.
    choices = ["SI", "ngspice", "ngspice", "SI", "ngspice", "SI", "SI"]
    m = Model("mixed")
    src, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    for k, constants in enumerate(choices):
        r = m.add(Resistor(f"R{k}", R=1e3 * (k + 1), constants=constants))
        m.connect(src.p, r.p)
        m.connect(r.n, gnd.p)
    groups = [g for g in flatten(m).groups if isinstance(g.components[0], Resistor)]
    assert len(groups) == 2 and groups[0].template is not groups[1].template
    for g in groups:
        assert len({c.constants for c in g.components}) == 1
        assert g.paths == [f"R{k}" for k, c in enumerate(choices) if c == g.components[0].constants]
    # and the compiled circuit is the one built: Ohm's law in every branch
    op = m.compile().operating_point()
    for k in range(len(choices)):
        assert op[f"R{k}.i"] == pytest.approx(1.0 / (1e3 * (k + 1)), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=1, max_size=5), st.data())
def test_every_network_without_a_ground_is_refused(islands, data):
    """Resistor rings (each node two ports at least), extra resistors between random nodes and
    grounds at random nodes: flattening refuses the model exactly when a network joined through
    the resistors has no ground, and names members of such a network. The networks here are
    found by an independent union-find over the resistors."""
    nodes = sum(islands)
    first = np.cumsum([0, *islands])
    pairs = [(a + k, a + (k + 1) % size) for a, size in zip(first, islands) for k in range(size)]
    pairs += data.draw(st.lists(st.tuples(st.integers(0, nodes - 1), st.integers(0, nodes - 1))
                                .filter(lambda p: p[0] != p[1]), max_size=4))
    grounded = data.draw(st.sets(st.integers(0, nodes - 1), max_size=3))
    m, at = Model("islands"), [[] for _ in range(nodes)]
    for k, (a, b) in enumerate(pairs):
        r = m.add(Resistor(f"R{k}", R=1.0))
        at[a].append(r.p)
        at[b].append(r.n)
    for node in grounded:
        at[node].append(m.add(Ground(f"g{node}")).p)
    for ports in at:
        m.connect(*ports)
    root = list(range(nodes))

    def find(i):
        while root[i] != i:
            i = root[i]
        return i
    for a, b in pairs:
        root[find(a)] = find(b)
    floating = {find(i) for i in range(nodes)} - {find(i) for i in grounded}
    if not floating:
        flatten(m)
        return
    with pytest.raises(MissingReferenceError) as err:
        flatten(m)
    named = {int(name[1:]) for name in str(err.value).split("network of ")[1].split(" has")[0]
             .replace(", ...", "").split(", ")}
    assert all(find(pairs[k][0]) in floating for k in named)
