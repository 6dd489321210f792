"""SimulationResult: values around time events, interpolation, CSV, plots."""
import csv

import numpy as np
import pytest

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import Step


def stepped_rc():
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=1.234e-3)))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m.compile()


@pytest.mark.parametrize("solver, options", [("idas", {}), ("rk4", {"dt": 1e-4})])
def test_rows_just_before_and_after_a_time_event(solver, options):
    res = stepped_rc().simulate(3e-3, solver=solver, **options)
    before, after = np.flatnonzero(res.t == 1.234e-3)
    # The source has not switched in the row before the step and has in the row after it.
    assert res["src.V"][before] == 0.0 and res["R1.i"][before] == 0.0
    assert res["src.V"][after] == 1.0 and res["R1.i"][after] == pytest.approx(1e-3)


def test_at_interpolates_and_csv_round_trips(tmp_path):
    res = stepped_rc().simulate(3e-3, rtol=1e-10, atol=1e-12)
    op = res.at(2.5e-3)
    assert op["C1.v"] == pytest.approx(1 - np.exp(-(2.5e-3 - 1.234e-3) / 1e-3), abs=1e-4)
    path = tmp_path / "rc.csv"
    res.to_csv(path, names=["C1.v", "R1.i"])
    with open(path) as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["time", "C1.v", "R1.i"] and len(rows) == len(res.t) + 1
    assert float(rows[-1][1]) == res["C1.v"][-1]


def test_plot_returns_a_figure_with_units():
    fig = stepped_rc().simulate(3e-3).plot("C1.v", "R1.i")
    assert [ax.get_ylabel() for ax in fig.axes] == ["C1.v [V]", "R1.i [A]"]


def test_unknown_name_suggests_close_ones():
    res = stepped_rc().simulate(1e-3)
    with pytest.raises(KeyError, match="C1.v"):
        res["C1.V"]


def test_modes_are_listed_and_readable_like_variables():
    from physlib.components.electrical import Switch
    m = Model("sw")
    src, sw = m.add(VoltageSource("src", V=1.0)), m.add(Switch("S1", Goff=1e-9, control=Step(t0=1e-3)))
    r, gnd = m.add(Resistor("R1", R=10.0)), m.add(Ground("gnd"))
    m.connect(src.p, sw.p)
    m.connect(sw.n, r.p)
    m.connect(r.n, src.n, gnd.p)
    res = m.compile().simulate(2e-3)
    assert "S1.closed" in res and "S1.closed" in res.names
    assert res["S1.closed"][0] == 0 and res["S1.closed"][-1] == 1
    assert "S1.closed" not in res.model.parameters          # a mode is not a parameter


def test_connection_graph_has_ports_as_nodes():
    from test_electrical_transients import rc_model
    g = rc_model().graph
    assert {"R1.p", "R1.n", "C1.p", "src.p", "gnd.p"} <= set(g.nodes)
    assert g.has_edge("src.p", "R1.p") and g.nodes["R1.p"]["domain"] == "electrical"


def test_reading_a_variable_evaluates_only_its_own_row():
    # A 200-stage RC ladder (R = 1 kΩ, C = 1 mF per stage). Reading one resistor current must
    # compute that row alone: states come straight from the solution, and nothing else of the
    # output map is evaluated (reading all rows at once costs seconds and GB at 10,000 stages).
    m = Model("ladder")
    src, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, 201):
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-3))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    sim = m.compile()
    res = sim.simulate(2.0, t_eval=np.linspace(0.0, 2.0, 11))
    assert res._evaluated == {}
    i5 = res["R5.i"]
    assert list(res._evaluated) == [sim.variable("R5.i")[0]]
    # Ohm's law between the two capacitor voltages (states, read without evaluating anything);
    # the row is the resistor's own equation, so it holds to rounding.
    np.testing.assert_allclose(i5, (res["C4.v"] - res["C5.v"]) / 1e3, rtol=1e-9, atol=1e-15)
    assert len(res._evaluated) == 1
    # The source delivers R1's current: the current into its p pin is the negative of it.
    np.testing.assert_allclose(res["src.p.i"], -res["R1.i"], rtol=1e-12, atol=1e-18)
    assert len(res._evaluated) <= 3
