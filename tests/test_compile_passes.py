"""The compiler as passes over a frozen intermediate form: repeatable, no shared state, readable."""
import ast
import dataclasses
import logging
from pathlib import Path

import numpy as np
import pytest

import physlib.assembly.ir as ir
from physlib import Model
from physlib.core import records
from physlib.assembly.flatten import flatten
from physlib.assembly.passes.aliases import find_aliases
from physlib.assembly.passes.incidence import EquationDescriber, build_equations
from physlib.assembly.passes.index_reduction import reduce_equations
from physlib.assembly.passes.instantiate import GroupLocals
from physlib.assembly.templates import template_for
from physlib.components.electrical import Capacitor, Diode, Ground, Inductor, Resistor, Switch, VoltageSource
from physlib.components.rotational import IdealGear, Inertia, SpringDamper
from physlib.components.signals import Step

from test_index_reduction import parallel_capacitors
from test_results import rc_ladder

ASSEMBLY = Path(__file__).resolve().parents[1] / "physlib" / "assembly"


def test_compiling_twice_leaves_the_first_compiled_model_intact():
    model = parallel_capacitors()
    first = model.compile()
    before = first.simulate(5e-3, rtol=1e-10, atol=1e-12)
    second = model.compile()
    assert second.states == first.states == ["C2.v"]
    assert second.summary() == first.summary()
    after = first.simulate(5e-3, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(after["C1.v"], before["C1.v"])
    np.testing.assert_array_equal(second.simulate(5e-3, rtol=1e-10, atol=1e-12)["C1.v"], before["C1.v"])


def test_compiling_after_adding_a_component():
    model = Model("rc")
    src = model.add(VoltageSource("src", V=1.0))
    r, c = model.add(Resistor("R1", R=1e3)), model.add(Capacitor("C1", C=1e-6, v0=0.0))
    gnd = model.add(Ground("gnd"))
    model.connect(src.p, r.p)
    model.connect(r.n, c.p)
    model.connect(c.n, src.n, gnd.p)
    first = model.compile()
    load = model.add(Resistor("R2", R=1e3))              # a 1 kΩ load across C1: v -> 0.5 V
    model.connect(load.p, c.p)
    model.connect(load.n, gnd.p)
    second = model.compile()
    assert "R2.i" in second.variables and "R2.i" not in first.variables
    assert first.simulate(20e-3)["C1.v"][-1] == pytest.approx(1.0, abs=1e-6)
    assert second.simulate(20e-3)["C1.v"][-1] == pytest.approx(0.5, abs=1e-6)


def capacitor_across_source():
    """A capacitor whose voltage a source fixes: index reduction differentiates the constraint."""
    m = Model("c_across_v")
    src, c, r = m.add(VoltageSource("V", V=1.0)), m.add(Capacitor("C1", C=1e-6)), m.add(Resistor("R1", R=1e3))
    gnd = m.add(Ground("g"))
    m.connect(src.p, c.p, r.p)
    m.connect(src.n, c.n, r.n, gnd.p)
    return m


def test_passes_do_not_change_their_inputs():
    flat = flatten(capacitor_across_source())
    aliases = find_aliases(flat)
    eqs = build_equations(flat, aliases, {})
    copies = {name: np.copy(getattr(eqs, name)) for name in records.fields(eqs)
              if isinstance(getattr(eqs, name), np.ndarray)}
    through = [np.copy(part) for part in (eqs.through.indptr, eqs.through.indices, eqs.through.data)]
    reduced = reduce_equations(flat, aliases, eqs, EquationDescriber(flat, eqs, aliases))
    assert reduced.equations is not eqs and reduced.new_eqs
    for name, value in copies.items():
        np.testing.assert_array_equal(getattr(eqs, name), value)
    for part, before in zip((eqs.through.indptr, eqs.through.indices, eqs.through.data), through):
        np.testing.assert_array_equal(part, before)
    assert eqs.derivative_of == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        eqs.n_eq = 0


def test_intermediate_forms_are_frozen_dataclasses():
    forms = [obj for obj in vars(ir).values() if isinstance(obj, type) and records.is_record(obj)
             and obj.__module__ == ir.__name__]
    assert len(forms) >= 8
    for form in forms:          # assigning to any instance's field is refused
        with pytest.raises(dataclasses.FrozenInstanceError):
            object.__new__(form).n = 1


def test_each_pass_logs_its_time_and_counts_at_debug(caplog):
    with caplog.at_level(logging.DEBUG, logger="physlib.compile"):
        parallel_capacitors().compile()
    text = caplog.text
    for name in ["flatten", "aliases", "incidence", "index reduction", "matching/BLT",
                 "instantiation", "hidden dependencies", "tearing", "explicit solutions", "emission"]:
        assert f"{name} " in text, name
    assert "ms" in text


def test_no_long_functions_or_modules_in_assembly():
    too_long = []
    for path in sorted(ASSEMBLY.rglob("*.py")):
        source = path.read_text()
        if len(source.splitlines()) > 400:
            too_long.append(f"{path.name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 60:
                    too_long.append(f"{path.name}:{node.name}: {length} lines")
    assert not too_long, too_long


@pytest.mark.parametrize("build", [parallel_capacitors, lambda: _ladder_with_a_source_capacitor()],
                         ids=["combinations", "index-reduced ladder"])
def test_a_compiled_model_describes_every_equation_as_the_compiler_does(build, monkeypatch):
    """The compiled model keeps a compact describer (what the error messages read, not the
    incidence and alias tables): its text equals the compiler's own for every equation, the
    combinations, derivative rows, connection sums and template equations alike."""
    import physlib.assembly.compile as compile_module
    captured = []
    original = compile_module._run

    def run(name, function, *args):
        result = original(name, function, *args)
        if name == "emission":
            captured.append((args[-1], result))
        return result

    monkeypatch.setattr(compile_module, "_run", run)
    build().compile()
    full, system = captured[-1]
    kinds = {"combination": 0, "d/dt": 0, "connection": 0}
    for e in range(full.eqs.n_eq):
        text = system.describe_equation(e)
        assert text == full(e)
        kinds.update({k: kinds[k] + 1 for k in kinds if text.startswith(k)})
    assert system.describe_equation is not full and not hasattr(system.describe_equation.eqs, "rows")
    assert kinds["d/dt"] and kinds["connection"]
    assert kinds["combination"] or build is not parallel_capacitors


def _ladder_with_a_source_capacitor():
    """A capacitor across the source (its voltage no state: a derivative row) before an RC
    ladder."""
    m = rc_ladder(5)
    across = m.add(Capacitor("C0", C=1e-6))
    m.connect(m["src"].p, across.p)
    m.connect(m["src"].n, across.n)
    return m


NARROW_CLASSES = [Resistor("R", R=1e3), Capacitor("C", C=1e-6), VoltageSource("V", V=1.0),
                  Inductor("L", L=1e-3), Diode("D"), Switch("S", control=Step(t0=1e-3), Ron=1e-3, Goff=1e-9),
                  Inertia("J", J=2.0), SpringDamper("SD", c=1e3, d=1.0), IdealGear("G", ratio=3.0)]


@pytest.mark.parametrize("component", NARROW_CLASSES, ids=lambda c: type(c).__name__)
def test_a_narrow_solution_reads_only_its_locals_and_equals_the_full_one(component):
    # The explicit solutions gather only the locals a solution reads (one of a resistor's six
    # for i = v/R): the same value as the solution of all the locals, bit for bit, whatever
    # the others hold.
    tpl = template_for(component)
    rng = np.random.default_rng(7)
    assert tpl.solutions
    for equation, local in tpl.solutions:
        full = tpl.solution_function(equation, local)
        narrow, used = tpl.narrow_solution(equation, local)
        for _ in range(3):
            v, p, t = rng.normal(size=len(tpl.local_names)), rng.uniform(0.5, 2, tpl.n_inputs), rng.uniform()
            expected = float(full(v, p, t))
            assert float(narrow(v[used], p, t)) == expected
            other = v.copy()
            other[[k for k in range(len(v)) if k not in used]] = rng.normal(size=len(v) - len(used))
            assert float(full(other, p, t)) == expected


def test_a_model_solved_explicitly_without_guards_gathers_no_locals_of_its_classes(monkeypatch):
    # The explicit solutions read the positions directly; a class's matrix of locals (6.5
    # million entries in a million-element ladder, 2.2 s) is made only where a guard, a mode
    # constraint or an implicit equation of the class needs it.
    asked = []
    original = GroupLocals.__getitem__
    monkeypatch.setattr(GroupLocals, "__getitem__", lambda self, gi: asked.append(gi) or original(self, gi))
    ladder = rc_ladder(20).compile()
    assert asked == []
    assert ladder.simulate(1.0)["C1.v"][-1] == pytest.approx(1 - np.exp(-1.0), abs=0.2)  # a ladder: slower than one RC
    switched = Model("switched")
    src, sw, r, gnd = (switched.add(x) for x in (VoltageSource("V", V=1.0), Switch("S", control=Step(t0=1e-3)),
                                                 Resistor("R", R=1e3), Ground("g")))
    switched.connect(src.p, sw.p)
    switched.connect(sw.n, r.p)
    switched.connect(r.n, src.n, gnd.p)
    compiled = switched.compile()
    assert asked                                                  # the switch's guards
    res = compiled.simulate(2e-3, t_eval=[0.5e-3, 1.5e-3])
    np.testing.assert_allclose(res["R.i"], [1.0 / (1e3 + 1e5), 1.0 / (1e3 + 1e-5)], rtol=1e-6)


def wheatstone_bridge() -> Model:
    """A source feeding a resistor bridge (R5 across it), a capacitor on one of its nodes: the
    bridge's currents form a linear loop, solved symbolically."""
    m = Model("bridge")
    v, g, c = m.add(VoltageSource("V", V=1.0)), m.add(Ground("g")), m.add(Capacitor("C", C=1e-6))
    r = [m.add(Resistor(f"R{k}", R=100.0 * k)) for k in range(1, 6)]
    m.connect(v.p, r[0].p, r[1].p)
    m.connect(r[0].n, r[2].p, r[4].p, c.p)
    m.connect(r[1].n, r[3].p, r[4].n)
    m.connect(r[2].n, r[3].n, v.n, g.p, c.n)
    return m


def test_only_the_states_and_algebraic_variables_are_symbols_where_nothing_else_needs_one(monkeypatch):
    # The explicit solutions write every other position's value before anything reads it: a
    # million-element ladder's 2.5 million solved positions made no symbols (190 MB, 0.5 s).
    # A linear loop solved symbolically needs its unknowns as symbols: there every position is.
    import casadi as cs

    import physlib.assembly.compile as compile_module
    made = []
    original = compile_module.instantiate
    monkeypatch.setattr(compile_module, "instantiate", lambda *args: made.append(original(*args)) or made[-1])
    ladder = rc_ladder(20).compile()
    symbols = [s.name() for s in cs.symvar(made[-1].R)]
    assert not made[-1].all_symbols and sorted(symbols) == sorted(f"x_{i}" for i in range(20))
    # each stage's resistor current from its capacitors' voltages (Ohm's law, to rounding)
    res = ladder.simulate(2.0)
    np.testing.assert_allclose(res["R2.i"], (res["C1.v"] - res["C2.v"]) / 1e3, rtol=1e-12, atol=1e-15)
    bridge = wheatstone_bridge().compile()
    assert made[-1].all_symbols and made[-1].R.is_valid_input() and bridge.states == ["C.v"]
    # at rest the bridge is a divider: C.v is R3 against R1 with R5 and R2 + R4 beside it
    g1, g2, g3, g4, g5 = (1 / (100.0 * k) for k in range(1, 6))
    a = np.array([[g1 + g3 + g5, -g5], [-g5, g2 + g4 + g5]])
    v_c, _ = np.linalg.solve(a, [g1, g2])
    assert bridge.simulate(0.1)["C.v"][-1] == pytest.approx(v_c, rel=1e-6)


def test_large_constructions_hand_the_memory_they_freed_back(monkeypatch):
    # A compile of LARGE positions, a function of every variable's value of LARGE instructions
    # and a solver set up for LARGE / 10 unknowns free as much as they keep, which glibc would
    # hold in its heap while the next allocations take fresh pages: each hands the freed pages
    # back (a million-element ladder's peak 1,927 -> 1,868 MiB). Smaller ones skip the 10 ms.
    import physlib.analysis.simulation.hybrid_simulation as hybrid_module
    import physlib.assembly.compile as compile_module
    import physlib.assembly.compiled as compiled_module
    from physlib.core.memory import release_free_memory

    import physlib.analysis.simulation.simulate as simulate_module

    release_free_memory()                       # glibc's malloc_trim here; nothing elsewhere
    monkeypatch.setattr(simulate_module, "DENSE_LIMIT", 10)    # the ladder stepped, as a large one
    modules = (compile_module, compiled_module, hybrid_module)
    calls = []
    for module in modules:
        monkeypatch.setattr(module, "release_free_memory", lambda name=module.__name__: calls.append(name))
    rc_ladder(20).compile().simulate(1.0)
    assert calls == []
    for module in modules:
        monkeypatch.setattr(module, "LARGE", 10)
    rc_ladder(20).compile().simulate(1.0)
    assert calls == [module.__name__ for module in modules]


def diode_switch_ladder(stages: int) -> Model:
    """A step through ``stages`` stages of a Shockley diode (exp), a switch (modes, if_else), a
    resistor, an inductor and a capacitor each: classes whose functions hold many kinds of
    operation, several instances of each."""
    m = Model("diode_switch_ladder")
    src, gnd = m.add(VoltageSource("src", V=Step(height=5.0))), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(stages):
        d = m.add(Diode(f"D{k}", Is=1e-14, N=1.0, Rs=0.1))
        s = m.add(Switch(f"S{k}", control=Step(height=1.0, t0=1e-4 * (k + 1)), Ron=0.01, Goff=1e-6))
        r, ind, c = m.add(Resistor(f"R{k}", R=100.0)), m.add(Inductor(f"L{k}", L=1e-3)), \
            m.add(Capacitor(f"C{k}", C=1e-6))
        m.connect(node, d.p)
        m.connect(d.n, s.p)
        m.connect(s.n, r.p, c.p)
        m.connect(r.n, ind.p)
        m.connect(ind.n, c.n, gnd.p)
        node = s.n
    return m


def test_class_functions_replayed_on_rows_make_the_mapped_calls_expressions(monkeypatch):
    """From VECTOR_FROM instances a class's functions run instruction by instruction on rows of
    all its instances instead of as a mapped call. Both must build the same expressions: the
    compiled model's DAE, its Jacobian and its values take as many operations and give the same
    numbers bit for bit, whichever way every class of a model of diodes, switches and storage
    went."""
    from physlib.assembly.passes import mapped_calls
    models = {}
    for label, start in (("mapped", 10**9), ("rows", 1)):
        monkeypatch.setattr(mapped_calls, "VECTOR_FROM", start)
        models[label] = diode_switch_ladder(6).compile().system
    mapped, rows = models["mapped"], models["rows"]
    rng = np.random.default_rng(3)
    for name in ("dae", "outputs"):
        f, g = getattr(mapped, name), getattr(rows, name)
        assert f.n_instructions() == g.n_instructions(), name
        args = [rng.uniform(0.5, 2.0, f.nnz_in(i)) for i in range(f.n_in())]
        for a, b in zip(f.call(args), g.call(args)):
            assert np.array_equal(np.asarray(a), np.asarray(b)), name


@pytest.mark.parametrize("build", [parallel_capacitors, lambda: rc_ladder(3)])
def test_the_number_of_positions_is_the_length_of_the_values_of_every_variable(build):
    # n_positions is read without building the function of every variable (linearize sizes
    # its position maps by it); with index reduction's derivatives (parallel capacitors) too.
    system = build().compile().system
    assert system.differentiated or build is not parallel_capacitors
    assert system.n_positions == system.outputs.size1_out(0) == len(system.position_names)
