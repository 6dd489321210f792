"""physlib.spice's .tf, .dc over two sources and over TEMP, .four, .sens and .temp lists against
ngspice-39 references (tests/data/spice/analyses, made by its make_references.py, each analysis
alone in its own ngspice process; ngspice is not needed here).

Tolerances, and why:

* ``.tf`` 1e-9 relative (each of the three vectors): one linear solve at the operating point in
  both programs; the references use tight options (ngspice's .tf takes the Jacobian of its last
  Newton iteration, which its default reltol leaves 3e-5 of the gain away). Measured 3.4e-12
  (the decks compute with ngspice's k and q; SI 2019's, 3.4e-7 off its kT/q, would leave 1.9e-7
  through the BJT's and the diode's conductances).
* ``.dc`` over sources and TEMP: 1e-8 relative at each point (1e-12 of the vector's range where it
  crosses zero); both programs' Newton iterations converge at the decks' tight options: measured
  6.7e-10 (the diode's current; SI 2019's k and q would leave 1.3e-6: vt's 3.4e-7 times
  ln(I/IS)). Every point has the temperature's element values: a sweep that kept the deck's
  27 °C values would be off by 1e-1 at −40 °C.
* ``.four``: each harmonic as a phasor (magnitude, phase) within 1e-6 of the fundamental's
  magnitude, THD within 1e-5 relative (ngspice prints it with 6 digits) or 1e-6 % where it is
  zero. ngspice resamples its own time steps (at most 0.1 µs apart, the deck's tmax: its linear
  interpolation is within 5e-8 of a 1 kHz sine), physlib its tstep grid, which holds the 200
  resampled points; measured 3.6e-7 (v(out)'s fundamental: the two transients differ by that).
* ``.sens`` 3e-6 relative (measured 1.0e-6 on the resistors: ngspice's forward difference of
  1e-6 of the value; 2.0e-6 on the diode's TNOM), but a
  diode's N 3e-5: ngspice differentiates by a forward difference of 1e-6 of the parameter,
  which the exponential's curvature leaves 1.3e-5 from the derivative. ngspice-39 lists 0 for a
  diode's RS and 8 times the derivative for its ``_temp``; those two are checked against the
  central differences of two ngspice operating points (3e-6; measured 1e-6). An R with m=2:
  ngspice differentiates with respect to the card's resistance, physlib to the effective one;
  the relative sensitivities agree (3e-6).
* ``.temp`` lists: each temperature's .op and .dc against ngspice-39 run at that single
  temperature (ngspice-39 itself warns on a list and runs at 27 °C), 1e-8 relative as ``.dc``
  (measured 5.1e-10; 1.3e-6 with SI 2019's k and q).
"""
import csv
import io
import math
import warnings

import numpy as np
import pytest

import physlib.spice as spice
from physlib.spice.errors import SpiceError

from test_spice_reader import DATA as READER

DATA = READER.parent / "analyses"


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        return spice.read(DATA / name)


def reference(name):
    return spice.read_csv(DATA / name)


@pytest.fixture(scope="module")
def tf_stage():
    return deck("tf_stage.cir")


@pytest.mark.parametrize("key, output, src", [
    ("tf", "v(out)", "vin"), ("tf2", "v(out,mid)", "vin"), ("tf3", "i(vsense)", "vin"),
    ("tf4", "v(coll)", "ib2"), ("tf5", "i(vin)", "vin")])
def test_tf_equals_ngspice(tf_stage, key, output, src):
    ref = reference(f"tf_stage_{key}.csv")
    result = tf_stage.tf(output, src)
    assert result.names == list(ref)              # ngspice's names, in its printed order
    for name, value in ref.items():
        assert result[name] == pytest.approx(value[0], rel=1e-9), name


def test_tf_card_runs_with_the_deck(tf_stage):
    out = tf_stage.run()
    assert [k for k in out] == ["tf", "tf2", "tf3", "tf4", "tf5"]
    # an open output (a V source's current that falls as its voltage rises) reads 1e20, as ngspice
    assert out["tf3"]["vsense#output_impedance"] == 1e20


def test_new_cards_are_written_back_and_printed(tmp_path, capfd):
    from physlib.spice.__main__ import main
    text = ("t\nV1 in 0 DC 2\nR1 in out 1k\nR2 out 0 3k\n.dc v1 0 1 0.5 temp 0 50 50\n"
            ".tf v(out) v1\n.sens v(out)\n.end\n")
    written = spice.read(spice.write(spice.read(text)))
    assert [kind for kind, _ in written.analyses] == ["dc", "tf", "sens"]
    assert written.analyses[0][1]["src2"] == "temp"
    (tmp_path / "d.cir").write_text(text)
    assert main([str(tmp_path / "d.cir")]) == 0
    lines = capfd.readouterr().out.splitlines()
    k = lines.index("Transfer function information:")     # as ngspice -b prints a .tf
    assert lines[k + 1:k + 4] == ["transfer_function = 7.500000e-01",
                                  "output_impedance_at_v(out) = 7.500000e+02",
                                  "v1#input_impedance = 4.000000e+03"]
    assert "r1 = -3.75000e-04" in lines                     # ngspice: 12 characters


def test_tf_closed_form_of_a_divider():
    d = spice.read("t\nV1 in 0 DC 1\nR1 in out 1k\nR2 out 0 3k\nI1 0 out 1m\n.end\n")
    voltage, current = d.tf("v(out)", "v1"), d.tf("v(in,out)", "i1")
    assert voltage["transfer_function"] == pytest.approx(0.75, rel=1e-12)
    assert voltage["output_impedance_at_v(out)"] == pytest.approx(750.0, rel=1e-12)
    assert voltage["v1#input_impedance"] == pytest.approx(4000.0, rel=1e-12)
    # 1 A from I1 into out: v(out) rises by R1||R2, v(in) is held by V1
    assert current["transfer_function"] == pytest.approx(-750.0, rel=1e-12)
    assert current["i1#input_impedance"] == pytest.approx(750.0, rel=1e-12)
    assert current["output_impedance_at_v(in,out)"] == pytest.approx(750.0, rel=1e-12)


@pytest.mark.parametrize("card, message", [
    (".tf v(out) vx", "no independent source 'vx'"),
    (".tf i(r1) v1", "V source"),
    (".tf v(nowhere) v1", "no node 'nowhere'"),
    (".tf v(out)", "an output and an input source")])
def test_tf_bad_cards_say_what_to_give(card, message):
    with pytest.raises(SpiceError, match=message):
        spice.read(f"t\nV1 in 0 DC 1\nR1 in out 1k\nR2 out 0 3k\n{card}\n.end\n").run()


@pytest.fixture(scope="module")
def sweeps():
    return deck("dc_sweeps.cir").run()


@pytest.mark.parametrize("key, scale, points", [("dc", "v-sweep", 55), ("dc2", "temp-sweep", 11),
                                                 ("dc3", "v-sweep", 12), ("dc4", "temp-sweep", 15)])
def test_dc_over_two_sources_and_temp_equals_ngspice(sweeps, key, scale, points):
    ref = reference(f"dc_sweeps_{key}.csv")
    result = sweeps[key]
    assert result.scale == scale and len(result[scale]) == points
    for name, expected in ref.items():
        ours = np.asarray(result[name])
        floor = 1e-12 * np.ptp(expected)
        assert np.all(np.abs(ours - expected) <= 1e-8 * np.abs(expected) + floor), name


@pytest.mark.parametrize("key", ["dc", "dc2", "dc3", "dc4"])
def test_dc_references_obey_kirchhoff(key):
    """ngspice-39 can return wrong DC-sweep points after another analysis in the same run;
    these ran alone: VD delivers RD's current (100 Ω·(1 + 3e-3·ΔT + 1e-5·ΔT²)) and R2's."""
    ref = reference(f"dc_sweeps_{key}.csv")
    celsius = ref["temp-sweep"] if "temp-sweep" in ref else \
        np.repeat([0.0, 50.0, 100.0], 4) if key == "dc3" else 27.0
    delta = celsius - 27.0
    rd = 100.0 * (1 + 3e-3 * delta + 1e-5 * delta**2)
    branches = (ref["v(a)"] - ref["v(k)"]) / rd + ref["v(a)"] / 1e3
    np.testing.assert_allclose(-ref["i(vd)"], branches, rtol=1e-9)


def test_temperature_sweep_leaves_the_deck_at_its_temperature(sweeps):
    d = deck("dc_sweeps.cir")
    before = d.op()["v(k)"]
    hot = d.dc("temp", 100, 100, 1)["v(k)"][0]        # the reference: vd = 0.7 V, 100 °C
    assert d.options["temp"] == 27.0 and d.op()["v(k)"] == before
    assert hot == pytest.approx(reference("dc_sweeps_dc4.csv")["v(k)"][9], rel=1e-8)   # as .dc: 8e-14


def test_dc_sweeps_a_resistor_as_its_card_value():
    # ngspice-39 sweeps R (its res-sweep; physlib refused the card): 5.780347e-01,
    # 4.065041e-01, 4.484305e-01, 2.890173e-01 here, the closed form's
    # R2/(R·(1 + TC1·(T − 27)) + R2) with tc1 applied at each temperature
    d = spice.read("t\nV1 a 0 DC 1\nR1 a b 1k tc1=0.01\nR2 b 0 1k\n"
                   ".dc R1 1k 2k 1k temp 0 50 50\n.end\n")
    result = d.run()["dc"]
    assert result.scale == "res-sweep"
    r, t = np.array([1e3, 2e3, 1e3, 2e3]), np.array([0, 0, 50, 50])
    np.testing.assert_allclose(result["v(b)"], 1e3 / (r * (1 + 0.01 * (t - 27)) + 1e3),
                               rtol=1e-9)
    with pytest.raises(SpiceError, match="no independent source or resistor 'c1'"):
        spice.read("t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1n\n.dc c1 1n 2n 1n\n.end\n").run()


def test_nested_dc_closed_form():
    d = spice.read("t\nV1 a 0 DC 0\nV2 b 0 DC 0\nR1 a m 1k\nR2 m b 1k\n.end\n")
    result = d.dc("v1", 0, 2, 1, "v2", 0, 10, 5)
    np.testing.assert_allclose(result["v-sweep"], [0, 1, 2] * 3)
    np.testing.assert_allclose(result["v(m)"], [(a + b) / 2 for b in (0, 5, 10) for a in (0, 1, 2)],
                               rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def clipper():
    d = deck("fourier.cir")
    return d, d.run()


def test_four_equals_ngspice(clipper):
    assert_four_equals(clipper[1]["four"], "fourier_four.csv", ["i(v1)", "v(in)", "v(out)"], 10)


def test_four_takes_nfreqs_and_fourgridsize_from_options():
    # ngspice-39 reads both from .options (physlib warned and kept 10 harmonics on 200
    # points: a THD of 23.6882 % where ngspice's is 23.2787 %)
    result = deck("fourier_options.cir").run()["four"]
    assert result.gridsize == 400
    assert_four_equals(result, "fourier_options_four.csv", ["v(out)"], 5)


def assert_four_equals(result, reference, vectors, harmonics):
    """Each harmonic as a phasor within 1e-6 of the fundamental of ngspice's, THD 1e-5."""
    rows = list(csv.DictReader(open(DATA / reference)))
    assert sorted({row["vector"] for row in rows}) == vectors
    np.testing.assert_array_equal(result["frequency"], np.arange(harmonics) * 1e3)
    for row in rows:
        vector, k = row["vector"], int(row["harmonic"])
        fundamental = float(next(r["magnitude"] for r in rows
                                 if r["vector"] == vector and r["harmonic"] == "1"))
        expected = float(row["magnitude"]) * np.exp(1j * math.radians(float(row["phase"])))
        ours = result[f"magnitude({vector})"][k] * \
            np.exp(1j * math.radians(result[f"phase({vector})"][k]))
        assert abs(ours - expected) <= 1e-6 * fundamental, (vector, k)
        assert result[f"thd({vector})"] == pytest.approx(float(row["thd"]), rel=1e-5, abs=1e-6)


def test_four_of_a_known_waveform():
    """A sampled 3 + 2·sin(ωt + 30°) + 0.5·sin(3ωt): the components, exactly (the grid holds the
    samples), and THD 25 %."""
    from physlib.spice.fourier import fourier
    t = np.linspace(0.0, 2e-3, 401)
    w = 2 * math.pi * 1e3
    parts = fourier(t, 3 + 2 * np.sin(w * t + math.pi / 6) + 0.5 * np.sin(3 * w * t), 1e3)
    np.testing.assert_allclose(parts["magnitude"][:4], [3, 2, 0, 0.5], atol=1e-12)
    assert parts["phase"][1] == pytest.approx(30.0, abs=1e-9)
    assert parts["phase"][3] == pytest.approx(0.0, abs=1e-9)
    assert parts["norm_phase"][3] == pytest.approx(-30.0, abs=1e-9)
    assert parts["thd"] == pytest.approx(25.0, rel=1e-12)


def test_four_prints_ngspice_tables(clipper):
    from physlib.spice.__main__ import print_result
    text = io.StringIO()
    print_result("four", clipper[1]["four"], text)
    lines = text.getvalue().splitlines()
    assert lines[0] == "Fourier analysis for v(out):"
    assert lines[1].startswith("  No. Harmonics: 10, THD: 23.688") and "Gridsize: 200" in lines[1]
    assert lines[3].split() == ["Harmonic", "Frequency", "Magnitude", "Phase", "Norm.", "Mag",
                                "Norm.", "Phase"]
    assert lines[6].split()[:3] == ["1", "1000", "0.933649"]


def test_four_needs_a_period_and_a_transient():
    d = spice.read("t\nV1 a 0 DC 0 SIN(0 1 1k)\nR1 a 0 1k\n.tran 1u 0.5m\n.four 1k v(a)\n.end\n")
    with pytest.raises(SpiceError, match="less than one period"):
        d.run()
    with pytest.raises(SpiceError, match="no .tran card"):
        spice.read("t\nV1 a 0 1\nR1 a 0 1k\n.op\n.four 1k v(a)\n.end\n").run()


def test_sens_equals_ngspice():
    d = deck("sens_diode.cir")
    out = d.run()
    differences = {(row["name"], row["output"]): float(row["derivative"])
                   for row in csv.DictReader(open(DATA / "sens_diode_sens_diff.csv"))}
    for key, output in (("sens", "v(out)"), ("sens2", "i(v1)")):
        ref, result = reference(f"sens_diode_{key}.csv"), out[key]
        assert result.names == sorted(result.names) and set(result.names) <= set(ref)
        assert len(result.names) == 12              # R, V, I, the gains, the .model's and T
        for name in result.names:
            if (name, output) in differences:
                assert result[name] == pytest.approx(differences[name, output], rel=3e-6), name
            elif name == "r2":                      # m=2: 1 kΩ effective, 2 kΩ on the card
                assert result.relative[name] == pytest.approx(ref[name][0] * 2e3, rel=3e-6)
            else:
                assert result[name] == pytest.approx(ref[name][0],
                                                     rel=3e-5 if name == "d1:n" else 3e-6), name
        assert ref["d1:rs"][0] == 0.0 and result["d1:rs"] > 0      # ngspice-39's RS, left out


def test_sens_closed_form_of_a_divider():
    d = spice.read("t\nV1 in 0 DC 2\nR1 in out 1k\nR2 out 0 3k\n.end\n")
    result = d.sens("v(out)")
    # v = V·R2/(R1 + R2): ∂v/∂R1 = −V·R2/(R1+R2)², ∂v/∂R2 = V·R1/(R1+R2)², ∂v/∂V = 3/4
    assert result["r1"] == pytest.approx(-2 * 3e3 / 16e6, rel=1e-12)
    assert result["r2"] == pytest.approx(2 * 1e3 / 16e6, rel=1e-12)
    assert result["v1"] == pytest.approx(0.75, rel=1e-12)
    assert result.relative["r2"] == pytest.approx(3e3 * 2 * 1e3 / 16e6, rel=1e-12)


def _control_deck(name, script):
    """The deck ``name`` with its analysis cards replaced by a .control block."""
    lines = [line for line in (DATA / name).read_text().splitlines()
             if not line.lower().startswith((".tf", ".sens", ".four", ".tran", ".end"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        return spice.read("\n".join(lines + [".control", *script, ".endc", ".end"]) + "\n")


def test_control_tf_sens_and_fourier_equal_ngspice():
    out = _control_deck("sens_diode.cir", ["sens v(out)", "tf v(out) v1", "print all"]).run()
    assert out["sens"]["r1"] == pytest.approx(reference("sens_diode_sens.csv")["r1"][0], rel=3e-6)
    assert set(out["tf"].names) == {"transfer_function", "output_impedance_at_v(out)",
                                    "v1#input_impedance"}
    assert out["print"][0].vectors["transfer_function"] == out["tf"]["transfer_function"]
    # the transfer function from V1 is the sensitivity to V1's value
    assert out["tf"]["transfer_function"] == pytest.approx(out["sens"]["v1"], rel=1e-12)
    out = _control_deck("fourier.cir", ["tran 1u 3m 0 0.1u", "fourier 1k v(out)",
                                        "let fund = fourier11[11]", "print fund"]).run()
    rows = [r for r in csv.DictReader(open(DATA / "fourier_four.csv")) if r["vector"] == "v(out)"]
    fundamental = float(rows[1]["magnitude"])
    np.testing.assert_allclose(out["four"]["magnitude(v(out))"],
                               [float(r["magnitude"]) for r in rows], rtol=0, atol=1e-6 * fundamental)
    # ngspice's fourier11: the frequencies, then the magnitudes, then the phases
    assert out["print"][0].vectors["fund"] == pytest.approx(fundamental, rel=1e-6)


def test_temp_list_runs_every_card_at_each_temperature():
    out = deck("temp_list.cir").run()
    assert list(out) == ["op@-20", "dc@-20", "op@27", "dc@27", "op@85", "dc@85"]
    for k, celsius in enumerate((-20, 27, 85)):
        for kind in ("op", "dc"):
            result, ref = out[f"{kind}@{celsius}"], reference(f"temp_list_{kind}_temp{k}.csv")
            assert result.temperature == celsius
            for name, expected in ref.items():
                assert np.allclose(result[name], expected, rtol=1e-8, atol=0), (kind, celsius, name)
    # R1's tc1 and the diode move v(out): the temperatures are not the same circuit
    assert out["op@-20"]["v(out)"] - out["op@85"]["v(out)"] > 0.1


def test_temp_list_measures_at_each_temperature():
    text = ("t\nV1 in 0 DC 1\nR1 in out 1k tc1=0.01\nR2 out 0 1k\n.temp 27 127\n"
            ".dc V1 0 1 0.5\n.meas dc vmax max v(out)\n.end\n")
    out = spice.read(text).run()
    # R1 = 1 kΩ at 27 °C, 2 kΩ at 127 °C: v(out) = V1·R2/(R1 + R2)
    assert out["meas"] == pytest.approx({"vmax@27": 0.5, "vmax@127": 1 / 3}, rel=1e-12)
