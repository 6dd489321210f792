"""physlib.spice.write: a model written as a netlist and read back gives the same results.

The round trip compares physlib's result on the original model with physlib's result on the
re-read one (both the same solver on the same equations, so they agree to rounding: 1e-12
relative to each vector's largest value); the netlists themselves are checked against
ngspice in tests/test_spice_reader.py, which reads the same decks. A part SPICE has no element
for is a SpiceError naming it.
"""
import pathlib
import re
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from physlib import Model
from physlib.components import electrical as el
from physlib.components import signals as sg
from physlib.spice import write
from doc_pages import code_block
from test_electrical_transients import rc_model

DECKS = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "reader"


def read(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        return spice.read(source)


def assert_same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.max(np.abs(a)), 1e-300)
    assert a.shape == b.shape and np.max(np.abs(a - b)) <= 1e-12 * scale, what


def assert_same_runs(original, copy):
    ours, theirs = original.run(), copy.run()
    assert list(ours) == list(theirs)
    for kind, result in ours.items():
        for name in result.names:
            assert_same(result[name], theirs[kind][name], f"{kind} {name}")


def guide_deck_text():
    block = code_block("docs/guide/spice.md", "physlib.spice.read")
    return re.search(r'read\("""(.*?)"""\)', block, flags=re.S).group(1)


def test_quickstart_circuit_round_trip():
    model = rc_model()                            # the Quickstart's circuit
    text = write(model)
    assert "Vsrc src_p 0 DC 1.0" in text and "C1 r1_n 0 1e-06" in text
    copy = read(text).model
    a, b = model.compile().simulate(5e-3), copy.compile().simulate(5e-3)
    assert_same(a.t, b.t, "time")
    for name in ("C1.v", "R1.i", "src.i"):
        assert_same(a[name], b[name.lower().replace("src", "vsrc")], name)


@pytest.mark.parametrize("subcircuits", [False, True])
def test_guide_deck_round_trip_with_its_cards(subcircuits):
    deck = read(guide_deck_text())
    text = write(deck, subcircuits=subcircuits)
    assert text.startswith("RC low-pass\n") and ".ac dec 10" in text and "AC 1.0 0.0" in text
    assert_same_runs(deck, read(text))


@pytest.mark.parametrize("name", ["subckt_nested", "controlled", "diode_dc", "exp_pwl",
                                  "rlc_sine", "dc_sweep"])
@pytest.mark.parametrize("subcircuits", [False, True])
def test_reader_decks_round_trip(name, subcircuits):
    deck = read(DECKS / f"{name}.cir")
    assert_same_runs(deck, read(write(deck, subcircuits=subcircuits)))


def test_subcircuits_become_one_definition_each_and_x_lines(tmp_path):
    inner = Model("stage")
    r, c, g = inner.add(el.Resistor("R1", R=1e3)), inner.add(el.Capacitor("C1", C=1e-9)), \
        inner.add(el.Ground("g"))
    inner.connect(r.n, c.p)
    inner.connect(c.n, g.p)
    inner.expose(r.p, "a")
    inner.expose(r.n, "b")
    top = Model("top")
    src = top.add(el.VoltageSource("V1", V=sg.Trapezoid(rising=1e-6, falling=1e-6, width=5e-6,
                                                         period=20e-6)))
    sec, load, gnd = top.add(inner), top.add(el.Resistor("load", R=1e4)), top.add(el.Ground("gnd"))
    top.connect(src.p, sec.a)
    top.connect(sec.b, load.p)
    top.connect(load.n, src.n, gnd.p)
    path = tmp_path / "top.cir"
    text = write(top, path, subcircuits=True, ac={"V1": 1.0}, analyses=[".ac dec 5 1k 1meg"])
    assert path.read_text() == text
    assert ".subckt stage a b" in text and "Xstage v1_p stage_b stage" in text
    assert "Rload stage_b 0 10000.0" in text
    deck = read(path)
    assert deck.analyses[0][0] == "ac"
    a = top.compile().simulate(40e-6)
    b = deck.model.compile().simulate(40e-6)
    assert_same(a["load.v"], b["rload.v"], "load.v")
    flat = write(top)
    assert "Rstage_R1 v1_p stage_r1_n 1000.0" in flat and ".subckt" not in flat


def test_waveforms_round_trip():
    waves = [sg.Ramp(height=2.0, duration=1e-3, offset=-1.0, t0=0.5e-3),
             sg.Table(points=[(0.0, 0.0), (1e-3, 1.0), (3e-3, -0.5)]),
             sg.DampedSine(amplitude=1.0, f=2e3, phase=0.3, damping=100.0, t0=0.2e-3, offset=0.1),
             sg.Sine(amplitude=0.5, f=1e3, t0=0.1e-3),
             sg.Exponentials(amplitude=1.0, offset=0.2, t_rise=0.1e-3, tau_rise=0.2e-3,
                             t_fall=1e-3, tau_fall=0.3e-3),
             sg.Constant(k=0.7), 1.5,
             # (phases whose degrees, as written, read back to the same floats: 0.2 rad does not)
             sg.FrequencyModulatedSine(offset=0.1, amplitude=1.0, f_carrier=5e3, modulation_index=2.0,
                                       f_signal=500.0, phase_carrier=0.5, phase_signal=1.25),
             sg.AmplitudeModulatedSine(amplitude=1.0, offset=0.5, f_modulation=500.0, f_carrier=5e3,
                                       t0=0.3e-3, phase_modulation=0.7, phase_carrier=0.7),
             sg.AmplitudeModulatedSine(amplitude=1.0, offset=0.5, f_modulation=500.0, f_carrier=5e3,
                                       t0=-0.1e-3, phase_modulation=0.3, phase_carrier=0.3)]
    for wave in waves:
        model = rc_model(V=wave)
        copy = read(write(model)).model
        a, b = model.compile().simulate(4e-3), copy.compile().simulate(4e-3)
        assert_same(a["C1.v"], b["c1.v"], repr(wave))


def test_an_exponential_rising_from_zero_is_written_so_that_ngspice_starts_it_at_zero():
    """EXP's TD1 = 0 is the .tran step to ngspice-39 (and to the reader, which follows it): a
    rise from t = 0 is written with TD1 = 1e-30 s, which ngspice-39 takes as given (its run
    of the written source gave 1 − e^(−6.4/50) = 0.12015 at 6.4 µs under .tran 10u, where
    TD1 = 0 gives 0). The copy restarts its solver at that 1e-30 s event, so the two runs
    agree to the solver's tolerance (1e-6 of the range asked; measured far below)."""
    wave = sg.Exponentials(amplitude=1.0, t_rise=0.0, tau_rise=0.2e-3, t_fall=1e-3, tau_fall=0.3e-3)
    model = rc_model(V=wave)
    text = write(model)
    assert "EXP(0.0 1.0 1e-30 0.0002 0.001 0.0003)" in text
    t = np.linspace(0.0, 4e-3, 41)
    a = model.compile().simulate(4e-3, t_eval=t)["C1.v"]
    b = read(text).model.compile().simulate(4e-3, t_eval=t)["c1.v"]
    assert np.max(np.abs(a - b)) <= 1e-6 * np.max(np.abs(a))


def test_diode_model_and_temperature_are_written():
    m = Model("d")
    src, r = m.add(el.VoltageSource("V1", V=5.0)), m.add(el.Resistor("R1", R=1e3))
    d = m.add(el.Diode("D1", Is=2.52e-9, N=1.752, Rs=0.568, T=310.15))
    gnd = m.add(el.Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    text = write(m)
    assert ".model dm_d1 D(IS=2.52e-09 N=1.752 RS=0.568)" in text and "D1 r1_n 0 dm_d1" in text
    assert re.search(r"^\.temp 37\.0\d*$", text, re.M)


def bad(component):
    m = Model("bad")
    src, gnd = m.add(el.VoltageSource("V1", V=1.0)), m.add(el.Ground("gnd"))
    part = m.add(component)
    m.connect(src.p, part.p)
    m.connect(part.n, src.n, gnd.p)
    return m


@pytest.mark.parametrize("model, message", [
    (bad(el.Switch("S1", control=sg.Constant(k=1.0))), r"bad\.S1|S1: SPICE has no element for a Switch"),
    (rc_model(V=sg.Step(height=1.0, t0=1e-3)), r"src: its Step waveform.*Ramp"),
    (rc_model(V=sg.Pulse(width=1e-3, period=2e-3)), r"src: its Pulse waveform.*Trapezoid"),
])
def test_parts_spice_lacks_are_named_errors(model, message):
    with pytest.raises(spice.SpiceError, match=message):
        write(model)


def test_diodes_at_different_temperatures_are_refused():
    m = bad(el.Diode("D1", T=300.0))
    d2 = m.add(el.Diode("D2", T=350.0))
    m.connect(m["D1"].p, d2.p)
    m.connect(m["D1"].n, d2.n)
    with pytest.raises(spice.SpiceError, match="D2: its T"):
        write(m)


def test_an_am_that_ngspice_reads_otherwise_is_refused():
    # ngspice-39's AM gives both sines the seventh value's phase, and is 0 at TD itself
    for wave in (sg.AmplitudeModulatedSine(phase_modulation=0.1, phase_carrier=0.2),
                 sg.AmplitudeModulatedSine(phase_modulation=0.3, phase_carrier=0.3, t0=0.0)):
        with pytest.raises(spice.SpiceError, match="both sines one phase"):
            write(rc_model(V=wave))
