"""Continuation of operating points (physlib.analysis.linear.homotopy, issue 25 build item 3 and
acceptance 5): a deck that ngspice-39 solves only with gmin stepping is solved by gmin stepping
here too, to ngspice's values, and the result says so; an easy circuit reports Newton.

The deck tests/data/spice/mosfet/inverter_chain.cir (30 level-1 CMOS inverters, the input at
2.45 V) and its reference inverter_chain_op.csv were made by
``cd tests/data/spice/mosfet && python3 make_references.py inverter_chain.cir``; ngspice-39
printed "Note: Starting dynamic gmin stepping" ... "Dynamic gmin stepping completed" on it
(its plain Newton from zero fails on such chains from about 30 stages).
"""
import csv
import warnings

import pytest
import sympy as sp
from scipy.optimize import brentq

import physlib.spice
from physlib.analysis.linear import steady_state
from physlib import Model, Parameter
from physlib.components.electrical import Ground, OnePort, Resistor, VoltageSource

from reference import reference_file


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return physlib.spice.read(reference_file("spice", "mosfet", name))


def reference(name):
    with open(reference_file("spice", "mosfet", name)) as fh:
        row = next(csv.DictReader(fh))
    return {key: float(value) for key, value in row.items()}


@pytest.fixture(scope="module")
def chain():
    return deck("inverter_chain.cir")


def test_a_deck_ngspice_solves_only_with_gmin_stepping_is_solved_by_gmin_stepping(chain):
    # op.method is "gmin stepping" only after the compiled and the damped Newton solve from
    # SPICE's start (all zero) both failed. ngspice ran at reltol 1e-9, vntol 1e-12: its values
    # are exact to ~1e-12 V. Tolerance 1e-6 of the supply (5 V) for the node voltages and of
    # the supply current for the currents (issue 25: "within 1e-6").
    res, ref = chain.op(), reference("inverter_chain_op.csv")
    assert res.raw.method == "gmin stepping"
    assert res.raw.steps >= 10        # 1e-3 S down to 1e-12 S by factors of at most 10
    for name, value in ref.items():
        scale = 5.0 if name.startswith("v(") else abs(ref["i(vdd)"])
        assert abs(res[name] - value) < 1e-6 * scale, name


def test_a_dc_sweep_starts_with_gmin_stepping_and_continues_with_newton(chain):
    # .dc solves its first point as .op does (gmin stepping from zero), each later one from the
    # point before, where Newton converges. The point at VIN = 2.45 V is the .op deck's.
    res, ref = chain.dc("vin", 2.45, 2.46, 0.005), reference("inverter_chain_op.csv")
    assert [op.method for op in res.raw] == ["gmin stepping", "newton", "newton"]
    assert abs(res["v(s2)"][0] - ref["v(s2)"]) < 1e-6 * 5.0


def test_an_easy_circuit_reports_newton():
    res = deck("cs_stage.cir").op()
    assert (res.raw.method, res.raw.steps) == ("newton", 0)


class Cubic(OnePort):
    """i = G·(v + v³/(1 V²)): a nonlinear conductance without a GMIN."""

    G = Parameter(1e-3, unit="S")

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.G * (self.v + self.v**3))]


def test_source_stepping_is_reported_when_there_is_no_junction_to_step(monkeypatch):
    # 10 V through 1 kOhm into the cubic conductance: no GMIN parameter, so with both Newton
    # solves made to fail, gmin stepping is skipped and source stepping solves it; the value
    # against the root of (10 − v)/R = G·(v + v³) to 1e-12 (both solves converge to rounding).
    m = Model("cubic")
    src, r1, n1, gnd = (m.add(c) for c in (VoltageSource("src", V=10.0), Resistor("R1", R=1e3),
                                             Cubic("N1"), Ground("gnd")))
    m.connect(src.p, r1.p)
    m.connect(r1.n, n1.p)
    m.connect(n1.n, src.n, gnd.p)
    monkeypatch.setattr(steady_state, "direct_newton", lambda *a: None)
    original, calls = steady_state.damped_newton, []

    def first_fails(evaluate, solve, w, **kw):
        calls.append(1)
        if len(calls) == 1:
            raise kw["fail"](w, evaluate(w)[0], "forced failure")
        return original(evaluate, solve, w, **kw)

    monkeypatch.setattr(steady_state, "damped_newton", first_fails)
    op = m.compile().operating_point()
    assert op.method == "source stepping" and op.steps >= 2
    v = brentq(lambda v: (10.0 - v) / 1e3 - 1e-3 * (v + v**3), 0.0, 10.0, xtol=1e-15)
    assert op["N1.v"] == pytest.approx(v, rel=1e-12)
