"""Large decks take the paths small ones do not: the operating point of more than
``COMPILED_NEWTON_SIZE`` unknowns by Newton's method written out, the .ac of more than
``DENSE_STATES`` states by banded solves a chunk of frequencies at a time, the elements'
currents linearized when first read. Each is compared here with the circuit solved
independently (nodal analysis with NumPy)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import physlib.spice as spice
from physlib.analysis.linear.direct_newton import COMPILED_NEWTON_SIZE

R, C = 1e3, 1e-9            # each stage's resistor [Ω] and capacitor [F]


def ladder(stages: int, card: str) -> str:
    """A 1 V source (AC 1), ``stages`` RC stages and a resistor R from the last node to ground."""
    lines = ["RC ladder", "V1 n0 0 DC 1 AC 1"]
    for k in range(1, stages + 1):
        lines += [f"R{k} n{k - 1} n{k} {R:g}", f"C{k} n{k} 0 {C:g}"]
    return "\n".join(lines + [f"Rend n{stages} 0 {R:g}", card, ".end"]) + "\n"


def read(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spice.read(text)


def node_voltages(stages: int, f: float) -> np.ndarray:
    """v(n1) … v(n_stages) [V] at frequency f [Hz] (f = 0: DC) from the nodal equations."""
    s, g = 2j * np.pi * f, 1.0 / R
    Y = np.zeros((stages, stages), dtype=complex)
    for k in range(stages):
        Y[k, k] = 2 * g + s * C           # to the node before and after (Rend after the last)
        if k:
            Y[k, k - 1] = Y[k - 1, k] = -g
    rhs = np.zeros(stages, dtype=complex)
    rhs[0] = g                             # v(n0) = 1 V through R1
    return np.linalg.solve(Y, rhs)


def test_operating_point_of_a_large_linear_circuit_by_newton_written_out():
    stages = COMPILED_NEWTON_SIZE + 200      # one state per stage: above the compiled Newton
    result = read(ladder(stages, ".op")).op()
    expected = node_voltages(stages, 0.0).real          # a divider: 1 − k/(stages + 1)
    got = np.array([result[f"v(n{k})"] for k in range(1, stages + 1)])
    assert np.max(np.abs(got - expected)) <= 1e-12
    assert result["i(v1)"] == pytest.approx(-1.0 / ((stages + 1) * R), rel=1e-12)


def test_ac_of_a_banded_ladder_equals_nodal_analysis_also_the_element_currents():
    stages = 60
    result = read(ladder(stages, ".ac dec 1 1 10meg")).ac("dec", 1, 1.0, 1e7)
    for j, f in enumerate(result["frequency"]):
        expected = node_voltages(stages, f)
        got = np.array([result[f"v(n{k})"][j] for k in range(1, stages + 1)])
        assert np.max(np.abs(got - expected)) <= 1e-9 * np.max(np.abs(expected))
        # the currents, read after the voltages (linearized then): R2 from n1 to n2, C2 into n2
        assert result["i(r2)"][j] == pytest.approx((expected[0] - expected[1]) / R, rel=1e-9)
        assert result["i(c2)"][j] == pytest.approx(2j * np.pi * f * C * expected[1], rel=1e-9)


def test_reading_one_node_lists_no_vector_names_and_the_names_follow_ngspice():
    # A million-element deck's names (v(node) of every node) and element table took 1.4 s of
    # its .tran: made when first asked for now, and a run that reads v(n2) never asks.
    deck = read(ladder(300, ".op"))
    result = deck.op()
    expected = node_voltages(300, 0.0).real
    assert result["v(n2)"] == pytest.approx(expected[1], abs=1e-12)
    assert result["i(v1)"] == pytest.approx(-1.0 / (301 * R), rel=1e-12)
    made = vars(deck.circuit_vectors)
    assert "names" not in made and "currents" in made        # i(v1) needed the element table
    result.let("mine", 1.0)              # added before the names are made: listed last
    assert result.names == [f"v(n{k})" for k in range(301)] + ["i(v1)", "mine"]
    assert "names" in vars(deck.circuit_vectors)
