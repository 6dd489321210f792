"""The Python examples of the README and the user guide (docs/) run as written and do what the
text says. (docs/tests/test_code_blocks.py runs every block of every page after the docs build;
these check what the blocks compute.)"""
import numpy as np
from doc_pages import ROOT, code_block, code_blocks


def test_quickstart_runs_and_charges_the_capacitor():
    namespace = {}
    exec(code_blocks("README.md")[0], namespace)
    assert abs(namespace["res"]["C1.v"][-1] - (1 - np.exp(-5))) < 1e-4
    assert namespace["slow"]["C1.v"][-1] < namespace["res"]["C1.v"][-1]


def test_custom_component_from_the_guide_obeys_its_law():
    block = code_block("docs/guide/writing_components.md", "class Varistor")
    namespace = {}
    exec(block, namespace)
    Varistor = namespace["Varistor"]
    assert len(block.strip().splitlines()) <= 15

    from physlib import Model
    from physlib.components.electrical import Ground, Resistor, VoltageSource

    m = Model("varistor")
    src = m.add(VoltageSource("src", V=30.0))
    r = m.add(Resistor("R1", R=100.0))
    var = m.add(Varistor("X1"))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, var.p)
    m.connect(var.n, src.n, gnd.p)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    v, i = res["X1.v"][0], res["X1.i"][0]
    # A converged Newton solve: both laws hold to rounding (currents are O(0.1 A)).
    assert abs(i - 1e-3 * np.sinh(v / 10.0)) < 1e-12
    assert abs(v + 100.0 * i - 30.0) < 1e-9        # Kirchhoff's voltage law around the loop
    assert abs(res.dissipated_power("X1")[0] - v * i) < 1e-12


def test_minimal_realization_snippet_keeps_the_names_and_the_response(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    block = code_block("docs/guide/linearization.md", "lin.minimal()")
    namespace = {}
    exec(block, namespace)
    assert namespace["lin"].states == ["L1.i", "rotor.phi", "rotor.w"]
    assert namespace["small"].states == ["L1.i", "rotor.w"]
    assert namespace["same"]


def test_units_snippet_converts_its_quantities():
    import pytest
    pytest.importorskip("pint")
    block = code_block("docs/guide/units.md", "import pint")
    namespace = {}
    exec(block, namespace)
    res = namespace["res"]
    # 0.5 V at the start, charging towards 1 V with tau = 2 kohm * 100 nF = 0.2 ms
    assert res["C1.v"][0] == pytest.approx(0.5, abs=1e-9)
    assert res["C1.v"][-1] == pytest.approx(1 - 0.5 * np.exp(-5e-3 / 2e-4), abs=1e-5)
