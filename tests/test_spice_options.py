"""What ngspice-39 accepts on element lines, accepted (issue 37, build 8): R's instance options
against ngspice-39 (tests/data/spice/options, made by its make_references.py), the lines ngspice
reads with a warning; and ``.temp`` against ``.options temp=`` (ngspice-39: the ``.temp`` card
wins in either order).

The R deck is linear: its .op and .noise agree to rounding (1e-9 relative; .noise measured
6.2e-16: a deck's resistors take ngspice's CODATA-2014 Boltzmann constant, whose 4kT/R the SI
one would leave 1.7e-7 off in V/√Hz).
"""
import pathlib
import warnings

import numpy as np
import pytest

import physlib.spice as spice

DATA = pathlib.Path(__file__).resolve().parent / "data" / "spice" / "options"


def deck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # the deck reads without a warning
        return spice.read(DATA / name)


def test_resistor_options_operating_point_equals_ngspice():
    # m=, tc1=, tc2= at .temp 50, dtemp=, temp=, noisy=0: each changes the divider's currents
    op, ref = deck("r_options.cir").op(), spice.read_csv(DATA / "r_options_op.csv")
    for name, value in ref.items():
        assert abs(op[name] - value[0]) <= 1e-9 * abs(value[0]), name


def test_resistor_options_noise_equals_ngspice_and_noisy_0_is_silent():
    noise = deck("r_options.cir").noise("v(c)", "v1", "dec", 5, 10, 10e6)
    ref = spice.read_csv(DATA / "r_options_noise.csv")
    for name, expected in ref.items():
        if name != "frequency":
            assert np.all(np.abs(np.asarray(noise[name]) - expected) <= 1e-9 * expected + 1e-30), name
    assert "onoise_r4" not in ref and "onoise_r4" not in noise.names       # noisy=0
    assert "onoise_r6" in noise.names


@pytest.mark.parametrize("line, message", [
    ("R1 a 0 1k m=0", "m = 0 must be > 0"),
    ("R1 a 0 1k noisy=2", "noisy = 2; give 0 or 1"),
    ("R1 a 0 1k tc=1e-3", "tc= is not supported here"),
])
def test_a_bad_resistor_option_is_an_error(line, message):
    with pytest.raises(spice.SpiceError, match=message):
        spice.read(f"t\nV1 a 0 1\n{line}\n.op\n.end\n")


def test_distortion_inputs_on_sources_are_read_with_a_warning():
    # ngspice-39 reads DISTOF1/DISTOF2 [mag [phase]] silently (they feed its .disto analysis)
    text = "t\nV1 a 0 DC 1 AC 1 DISTOF1 0 DISTOF2 0\nI1 a b DC 1m distof1 1 90\nR1 a b 1k\nR2 b 0 1k\n.op\n.end\n"
    with pytest.warns(spice.SpiceWarning, match="DISTOF1 and DISTOF2 ignored"):
        op = spice.read(text).op()
    assert op["v(b)"] == pytest.approx(1.0, rel=1e-12)     # (1 V + 1 mA·1k)/2: the values stay
    assert op["v(a)"] == pytest.approx(1.0, rel=1e-12)


def test_pspice_only_diode_entries_are_ignored_with_a_warning_naming_them():
    text = ("t\nV1 a 0 1\nR1 a k 1k\nD1 k 0 dx\n"
            ".model dx D(Is=2.52n Rs=.568 N=1.752 Iave=200m Vpk=75 mfg=OnSemi type=silicon)\n.op\n.end\n")
    with pytest.warns(spice.SpiceWarning, match="IAVE=, VPK=, MFG=, TYPE= ignored"):
        deck = spice.read(text)
    assert deck.model.d1.N == 1.752


def test_meas_param_is_an_expression_of_earlier_measurements_and_params():
    # ngspice's .meas ... param='expr': the measurements above it by name and the .param names
    text = """rc
.param k=3
V1 in 0 DC 1 AC 1
R1 in out 1k
C1 out 0 1u
.ac dec 10 10 100k
.meas ac gain_lo FIND vm(out) AT=10
.meas ac gain_hi FIND vm(out) AT=100k
.meas ac ratio param='gain_lo/gain_hi*k'
.meas ac bw_chk param='(gain_hi < 0.01) ? 1 : 0'
.end
"""
    results = spice.read(text).run()
    meas = results["meas"]
    assert meas["ratio"] == pytest.approx(meas["gain_lo"] / meas["gain_hi"] * 3, rel=1e-15)
    # |H| at 100 kHz = 1/sqrt(1 + (2π·100k·1k·1u)²) = 1.59e-3 < 0.01
    assert meas["gain_hi"] == pytest.approx(1 / np.sqrt(1 + (2 * np.pi * 100.0) ** 2), rel=1e-9)
    assert meas["bw_chk"] == 1.0


TEMP_DECK = ("t\nV1 1 0 5\nR1 1 2 1k\nD1 2 0 dd\n.model dd D(IS=1e-14)\n{cards}"
             ".options reltol=1e-8\n.op\n.end\n")


# (cards, temperature [°C] ngspice-39 reported, its v(2) [V])
TEMP_ORDERS = [
    (".temp 30\n.options temp=50\n", 30.0, 0.6879689518482081),
    (".options temp=50\n.temp 30\n", 30.0, 0.6879689518482081),
    (".options temp=50\n", 50.0, 0.6550006762757329),
    (".temp 30\n.temp 40\n", 40.0, 0.6715227757024100),
    (".options temp=50\n.options temp=60\n", 60.0, 0.6384051980539954),
]


def test_a_temp_card_sets_the_temperature_whatever_options_temp_says():
    """ngspice-39 on these decks (.control: op, print v(2); 'Doing analysis at TEMP = ...'):
    a .temp card sets the temperature before or after .options temp= (30 °C: v(2) =
    0.6879689518482081 both ways, where physlib let the later card win: 0.655001, 50 °C);
    of two .temp cards, or of two .options temp=, the later one. The diode's Newton ends at
    reltol 1e-8 in both programs: 1e-9 relative (measured 1.1e-15)."""
    for cards, celsius, expected in TEMP_ORDERS:
        deck = spice.read(TEMP_DECK.format(cards=cards))
        assert deck.options["temp"] == celsius, cards
        assert deck.op()["v(2)"] == pytest.approx(expected, rel=1e-9), cards


def test_several_temp_values_stay_ahead_of_options_temp():
    # physlib's .temp t1 t2 (ngspice-39 warns "Could not set temperature" and runs at 27 °C,
    # even beside .options temp=50): each card at each .temp value, the single runs at the
    # first; v(2) as ngspice-39 printed at .temp 30 and .temp 40 alone
    deck = spice.read(TEMP_DECK.format(cards=".temp 30 40\n.options temp=50\n"))
    assert deck.options["temp"] == 30.0 and deck.temperatures == [30.0, 40.0]
    runs = deck.run()
    assert sorted(runs) == ["op@30", "op@40"]
    assert runs["op@30"]["v(2)"] == pytest.approx(0.6879689518482081, rel=1e-9)
    assert runs["op@40"]["v(2)"] == pytest.approx(0.6715227757024100, rel=1e-9)
