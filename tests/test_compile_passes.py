"""The compiler as passes over a frozen intermediate form: repeatable, no shared state, readable."""
import ast
import dataclasses
import logging
from pathlib import Path

import numpy as np
import pytest

import physlib.assembly.ir as ir
from physlib import Model
from physlib.assembly.flatten import flatten
from physlib.assembly.passes.aliases import find_aliases
from physlib.assembly.passes.incidence import EquationDescriber, build_equations
from physlib.assembly.passes.index_reduction import reduce_equations
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource

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
    copies = {f.name: np.copy(getattr(eqs, f.name)) for f in dataclasses.fields(eqs)
              if isinstance(getattr(eqs, f.name), np.ndarray)}
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
    forms = [obj for obj in vars(ir).values() if isinstance(obj, type) and dataclasses.is_dataclass(obj)
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
