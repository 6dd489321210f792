"""The MOSFET decks of tests/data/spice/mosfet and the checks the MOSFET tests of each level
run on them against ngspice-39's references (made by make_references.py there)."""
import warnings

import numpy as np
import pytest

import physlib.spice

from reference import assert_within_range, reference_file


def read(name):
    """Columns of tests/data/spice/mosfet/<name> by ngspice's vector names."""
    return physlib.spice.read_csv(reference_file("spice", "mosfet", name))


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # .options method, interp: ignored
        return physlib.spice.read(reference_file("spice", "mosfet", name))


def assert_characteristics(name, key, values, sweep, source, currents, tolerance=1e-6):
    """Acceptance 2: the .dc of deck ``name`` (``sweep`` = (start, stop, step) of ``source``)
    at each of ``values`` ({k: value of the deck's parameter ``key``}, the k-th of its
    ``*SWEEP``) within ``tolerance`` (the issue's 1e-6 by default) of each of ``currents``'
    largest current in ngspice's reference.
    ngspice ran to reltol 1e-9; physlib sweeps every other point of ngspice's (twice its step:
    the time is the points')."""
    d = deck(f"{name}.cir")
    start, stop, step = sweep
    for k, value in values.items():
        ref = {column: values[::2] for column, values in read(f"{name}_dc_{key}{k}.csv").items()}
        result = d.dc(source, start, stop, 2 * step, params={key: value})
        for current in currents:
            assert len(result[current]) == len(ref[current])
            scale = np.max(np.abs(ref[current]))
            assert np.max(np.abs(np.asarray(result[current]) - ref[current])) < tolerance * scale, (value, current)


def assert_stage_op_ac_noise(name, noise=True):
    """Acceptance 2 on the common-source stage ``name`` (.op, .ac dec 10 1 1g, .noise v(out)
    vin): .op within 1e-6 V/A, .ac within 1e-5 of |H|, each noise source's and the total
    densities within 1e-8 of ngspice's (the decks compute with ngspice's k and q: measured
    2.2e-12; SI 2019's Boltzmann constant would leave 1.7e-7) (``noise``: False for a deck
    without .noise)."""
    stage = deck(f"{name}.cir")
    op, ref = stage.op(), read(f"{name}_op.csv")
    for vector, value in ref.items():
        assert op[vector] == pytest.approx(value, abs=1e-6), vector
    ref = read(f"{name}_ac.csv")
    h = np.asarray(stage.ac("dec", 10, 1, 1e9)["v(out)"])
    assert np.max(np.abs(h - ref["v(out)"]) / np.abs(ref["v(out)"])) < 1e-5
    if not noise:
        return
    ref = read(f"{name}_noise.csv")
    result = stage.noise("v(out)", "vin", "dec", 10, 1, 1e9)
    for vector in ref:
        if vector != "frequency" and np.any(ref[vector]):
            assert np.max(np.abs(np.asarray(result[vector]) - ref[vector]) / ref[vector]) < 1e-8, vector


def assert_inverter_transient(name):
    """Acceptance 2 on the CMOS inverter ``name`` (.tran 0.05n 20n from 3.3 V): v(out) within
    1e-3 of the 3.3 V range on ngspice's 0.05 ns grid."""
    ref = read(f"{name}_tran.csv")
    out = np.asarray(deck(f"{name}.cir").tran(0.05e-9, 20e-9, t_eval=ref["time"])["v(out)"])
    assert np.max(np.abs(out - ref["v(out)"])) < 1e-3 * 3.3


def assert_ring_oscillator_transient(name, t_end):
    """Acceptance 2 on the three-stage ring oscillator ``name`` (started from its metastable
    operating point by a 5 fF kick at 0.1 ns, .tran 0.01n ``t_end``): every vector within 1e-3
    of its range on ngspice's 0.01 ns grid, over the few periods the deck runs, but at the
    kicking pulse's corners (0.1, 0.2, 1.2, 1.3 ns), where the sources' currents jump: ngspice
    prints there the current of its step ending at the corner, physlib the one after it."""
    ref = read(f"{name}_tran.csv")
    smooth = ~np.isin(np.round(ref["time"] / 1e-11), [10, 20, 120, 130])
    result = deck(f"{name}.cir").tran(0.01e-9, t_end, t_eval=ref["time"][smooth])
    assert_within_range(result, ref, rows=smooth)


def assert_card_error(card, message):
    """A diode-connected NMOS with ``.model nch NMOS(<card>)`` is a SpiceError matching ``message``."""
    text = f"mos\nV1 d 0 1\nM1 d d 0 0 nch W=10u L=1u\n.model nch NMOS({card})\n.end\n"
    with pytest.raises(physlib.spice.SpiceError, match=message):
        physlib.spice.read(text)
