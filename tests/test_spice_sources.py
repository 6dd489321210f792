"""physlib.spice's sources, element aliases, initial conditions and the syntax decks against
ngspice-39 references (tests/data/spice/reader, made by its make_references.py; ngspice is
not needed here).

Tolerances as in tests/test_spice_reader.py: linear .op/.ac 1e-9 relative (one linear solve
in both programs), the switches' hybrid .op 1e-5 (Newton iterations ended at reltol 1e-6),
.tran 1e-4 of each signal's range after interpolating ngspice's points
onto physlib's (trapezoidal against BDF at rtol 1e-6).
"""

import warnings

import numpy as np
import pytest

import physlib.spice as spice
from test_spice_reader import DATA, assert_close, deck, reference, vectors


def tran_error(name: str, vector: str, result, ref) -> float:
    """Largest |physlib − ngspice| over ngspice's points' span (with uic its first point is
    after t = 0), as a fraction of the signal's range."""
    t = result["time"]
    keep = t >= ref["time"][0]
    expected = np.interp(t[keep], ref["time"], ref[vector])
    return float(np.max(np.abs(result[vector][keep] - expected)) / (np.ptp(ref[vector]) or 1.0))


def tran_errors_at_ngspice_points(name: str) -> dict:
    """{vector: largest |physlib − ngspice| as a fraction of its range} of the deck's .tran,
    run at ngspice's own time points."""
    ref = reference(f"{name}_tran.csv")
    d = deck(f"{name}.cir")
    result = d.tran(**next(a for k, a in d.analyses if k == "tran"), t_eval=ref["time"])
    return {v: float(np.max(np.abs(result[v] - ref[v])) / np.ptp(ref[v])) for v in vectors(ref, "time")}


def run_card(d, kind):
    args = next(a for k, a in d.analyses if k == kind)
    return getattr(d, kind)(**args)


# (deck, analysis, tolerance); measured worst errors in the comments
DECKS = [
    ("aliases", "op", 1e-9),          # 1.8e-14
    ("aliases", "ac", 1e-9),          # 8.3e-15
    ("aliases", "tran", 1e-4),        # 3.3e-5
    ("switch_flags", "op", 1e-5),     # 8.7e-16 (switch positions: a hybrid .op)
    ("switch_flags", "tran", 1e-4),   # 1.1e-15
    ("ic_uic", "tran", 1e-4),         # 8.0e-5 (i(v1), v(a) in the first 30 µs)
]


@pytest.mark.parametrize("name, kind, tol", DECKS, ids=[f"{d}-{k}" for d, k, _ in DECKS])
def test_deck_equals_ngspice(name, kind, tol):
    ref = reference(f"{name}_{kind}.csv")
    result = run_card(deck(f"{name}.cir"), kind)
    if kind == "tran":
        for vector in vectors(ref, "time"):
            assert tran_error(name, vector, result, ref) < tol, vector
        return
    if kind == "ac":
        assert np.allclose(result["frequency"], ref["frequency"], rtol=1e-13, atol=0)
    for vector in vectors(ref, "frequency"):
        assert_close(result[vector], ref[vector], tol, f"{name} {vector}")


def test_pulse_cut_at_period_np_and_pwl_repeat_equal_ngspice():
    # V1's TR + PW + TF overruns PER: ngspice cuts the shape at PER (physlib once stretched
    # the period instead, 100 % of the range off after the first period); V2 stops after
    # NP = 2.5 periods; V3 and V4 are PWLs with td= and r=. Measured 7e-5 of the range
    # at most (v(d2), ngspice's steps next to a repeat's jump); the sources 1e-14.
    ref = reference("pulse_pwl_tran.csv")
    result = run_card(deck("pulse_pwl.cir"), "tran")
    for vector in vectors(ref, "time"):
        assert tran_error("pulse_pwl", vector, result, ref) < 1e-4, vector


def test_waveform_defaults_from_the_tran_line_equal_ngspice():
    # PULSE's TR, TF (also given as 0), PW, PER; SIN's FREQ (also 0); EXP's TAU1, TD2, TAU2
    # from .tran 2u 200u. At ngspice's own points: the sources to 1e-12 of their range
    # (measured 3.4e-14: ngspice's 15 printed digits), the RC nodes and currents within 1e-4
    # (measured 2.8e-5, v(d2); the deck's reltol 1e-8 makes ngspice's EXP fall accurate).
    for vector, worst in tran_errors_at_ngspice_points("tran_defaults").items():
        source = vector in ("v(a)", "v(b)", "v(c)", "v(d)", "v(f)", "i(v5)")
        assert worst < (1e-12 if source else 1e-4), f"{vector}: {worst:.3g} of its range"


def test_exp_values_left_out_or_given_as_zero_equal_ngspice():
    # ngspice-39 (vsrcload.c, isrcload.c) reads each of EXP's TD1, TAU1, TD2, TAU2 missing OR
    # given as 0 as its default: TD1, TAU1, TAU2 = tstep (10 us here), TD2 = TD1 + tstep.
    # physlib once took TD1 = 0 when missing and every written 0 literally: v(a), v(b), v(f)
    # rose from t = 0 (v(a) 100 % of its range off), and V3 (TAU1 = 0), V4 (TD2 = 0 before
    # TD1), V5 and I6 stopped the read. At ngspice's own points the sources and their
    # resistors' currents to 1e-12 of their range (formulas in both programs; measured
    # 5.3e-15, ngspice's 15 printed digits), the RC node v(b2) and i(v2) within 1e-4 (measured
    # 2.9e-5: ngspice's trapezoidal steps at reltol 1e-8 against physlib's rtol 1e-8). Its .op
    # (run alone, ngspice's step then 0): every source at V1, to 1e-12.
    for vector, worst in tran_errors_at_ngspice_points("exp_defaults").items():
        assert worst < (1e-4 if vector in ("v(b2)", "i(v2)") else 1e-12), f"{vector}: {worst:.3g} of its range"
    op, ref_op = deck("exp_defaults.cir").op(), reference("exp_defaults_op.csv")
    for vector in vectors(ref_op):
        assert abs(op[vector] - ref_op[vector][0]) <= 1e-12, vector


def test_exp_defaults_without_a_tran_card_leave_the_sources_at_v1():
    """No .tran card: outside a transient ngspice-39's step is 0 and each source is at V1 (its
    value at t = 0 <= TD1). ngspice-39 on this deck (.control: op, print; ac lin 1 1k 1k,
    print) printed v(a) = 0.3, v(b) = 0, v(c) = 0.2, v(d) = 0 and the .ac's v(a) = 1, v(b) = 0.
    physlib once stopped reading it at I3 (TAU1 = 0) and V4 (TD2 = 0 taken as a fall before
    the rise). Then
    ``deck.tran`` with a step of 10 us sets the defaults as a .tran 10u card would: V1 holds
    0.3 until 10 us (ngspice on `.tran 10u 500u`: v = V1 at 6.4 us, 1 - exp(-2.8/50) of the
    swing at 12.8 us). Exact values: 1e-12."""
    text = ("exp without tran\nV1 a 0 EXP(0.3 1 0 50u) AC 1\nV2 b 0 EXP(0 1 0 50u 150u 40u)\n"
            "I3 0 c EXP(0.2m 1m 0 0 0 0)\nV4 d 0 EXP(0 1 20u 50u 0 50u)\n"
            "R1 a 0 1k\nR2 b 0 1k\nR3 c 0 1k\nR4 d 0 1k\n.end\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)      # no DC values: ngspice's too
        d = spice.read(text)
    op = d.op()
    assert [op[v] for v in ("v(a)", "v(b)", "v(c)", "v(d)")] == pytest.approx([0.3, 0, 0.2, 0], abs=1e-12)
    ac = d.ac("lin", 1, 1e3, 1e3)
    assert abs(ac["v(a)"][0] - 1) <= 1e-12 and abs(ac["v(b)"][0]) <= 1e-12
    v = d.tran(10e-6, 500e-6, t_eval=np.array([6.4e-6, 12.8e-6]))["v(a)"]
    assert v == pytest.approx([0.3, 0.3 + 0.7 * (1 - np.exp(-2.8 / 50))], abs=1e-12)


def test_exp_whose_fall_starts_before_its_defaulted_rise_jumps_at_the_rise_as_ngspice():
    """EXP(0 1 0 50u 150u 40u) under .tran 200u: TD1 defaults to the step, 200 µs, after the
    written TD2 = 150 µs. ngspice-39 holds 0 until 200 µs and then gives both terms' sum
    (its .tran printed 0 at 194.24 µs, −0.685287 at 202.24 µs and −0.593015 at 210.24 µs,
    the closed form's values). Exact: 1e-12."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        d = spice.read("e\nV1 a 0 EXP(0 1 0 50u 150u 40u)\nR1 a 0 1k\n.tran 200u 400u\n.end\n")
    t = np.array([100e-6, 194.24e-6, 202.24e-6, 210.24e-6, 300e-6])
    v = d.tran(200e-6, 400e-6, t_eval=t)["v(a)"]
    after = t >= 200e-6
    expected = np.where(after, (1 - np.exp(-(t - 200e-6) / 50e-6)) - (1 - np.exp(-(t - 150e-6) / 40e-6)), 0.0)
    assert v == pytest.approx(expected, abs=1e-12)
    assert v[1:4] == pytest.approx([0.0, -0.685287, -0.593015], abs=1e-6)


def test_pwl_points_sharing_a_time_are_a_jump_as_in_ngspice():
    """Two PWL points at one time: ngspice-39 warns ("non-increasing PWL time points") and
    jumps there; physlib once refused the deck. On PWL(0 0 100u 0 100u 1 300u 1 300u 0)
    ngspice's .tran printed 0 at 100 µs, 1 from 101 µs to 295 µs and 0 from 305 µs. A jump at
    t = 0 (PWL(0 0 0 1 1m 1) into 1 kΩ and 1 µF): its .op printed v(a) = 0 and its .tran
    charges the capacitor from 0 (v(b) = 0.407144 at 522.8 µs; 1 − e^(−t/1 ms) = 0.4071418)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        step = spice.read("p\nV1 a 0 PWL(0 0 100u 0 100u 1 300u 1 300u 0)\nR1 a 0 1k\n.end\n")
        at_zero = spice.read("p\nV1 a 0 PWL(0 0 0 1 1m 1)\nR1 a b 1k\nC1 b 0 1u\n.end\n")
    t = np.array([50e-6, 99e-6, 101e-6, 200e-6, 295e-6, 305e-6, 400e-6])
    assert step.tran(10e-6, 500e-6, t_eval=t)["v(a)"] == pytest.approx([0, 0, 1, 1, 1, 0, 0], abs=1e-12)
    assert at_zero.op()["v(a)"] == 0.0
    t = np.array([0.0, 522.8e-6, 1e-3, 2e-3])
    charge = at_zero.tran(10e-6, 2e-3, t_eval=t)["v(b)"]
    assert charge == pytest.approx(1 - np.exp(-t / 1e-3), abs=1e-6)       # the solver's tolerance
    assert charge[1] == pytest.approx(0.407144, abs=5e-6)     # ngspice's own error: 2.4e-6


def test_pulse_value_at_the_cut_and_after_its_last_pulse():
    d = spice.read("t\nV1 a 0 DC 0 PULSE(0 1 1m 2m 3m 4m 5m 1.5)\nR1 a 0 1\n.end\n")
    t = np.array([2e-3, 5.5e-3, 5.999e-3, 6e-3, 6.001e-3, 7e-3, 7.5e-3, 8e-3, 8.5e-3, 8.501e-3, 9e-3])
    v = d.tran(1e-4, 9e-3, t_eval=t)["v(a)"]
    # rising to 3 ms, on until the cut right after TD + PER = 6 ms (at 6 ms still on, as
    # ngspice-39: tests/data/spice/reader/pulse_period.cir), rising again, off right after
    # TD + 1.5·PER = 8.5 ms
    assert np.allclose(v, [0.5, 1, 1, 1, 0.0005, 0.5, 0.75, 1, 1, 0, 0], atol=1e-12)


def test_pulse_at_the_end_of_its_period_equals_ngspice():
    # Issue 35, defect 6: PULSE(0 1) under .tran 0.1 7.0 (PW = PER = TSTOP) is 1 at 7 s, not
    # 0. With PW and PER given, TD > 0, the cut at TD + PER (value before the jump) and at
    # TD + k·PER, k >= 2 (after it), NP periods ending at the stop time and mid-run, each on
    # ngspice's points, which include every cut (the deck's Vbp). The sources to 1e-12 of
    # their range (they are formulas; a cut's wrong side is the whole range off; measured
    # 9e-15); the RC nodes and currents behind V6 and V8, across their cuts, within 1e-4
    # (ngspice at reltol 1e-8; measured 2.4e-5 in the first ms, physlib's rtol 1e-6).
    ref = reference("pulse_period_tran.csv")
    result = deck("pulse_period.cir").tran(0.1, 7.0, t_eval=ref["time"])
    assert result["v(n1)"][-1] == 1.0
    for vector in vectors(ref, "time"):
        worst = np.max(np.abs(result[vector] - ref[vector])) / (np.ptp(ref[vector]) or 1.0)
        assert worst < (1e-12 if vector.startswith("v(n") else 1e-4), f"{vector}: {worst:.3g} of its range"


def test_pwl_repeat_from_a_point_with_delay():
    d = spice.read("t\nV1 a 0 DC 0 PWL(0 0 1m 1 2m 0.5 3m 2) td=0.5m r=1m\nR1 a 0 1\n.end\n")
    t = np.array([0.4e-3, 1e-3, 3e-3, 3.5e-3, 4e-3, 5.4e-3, 5.5e-3])
    v = d.tran(1e-4, 6e-3, t_eval=t)["v(a)"]
    assert np.allclose(v, [0, 0.5, 1.25, 1, 0.75, 1.85, 1], atol=1e-12)


BAD_SOURCES = [
    ("V1 a 0 PWL(0 0 1m 1 2m 0) r=1.5m", "repeat time must be the time of one of the points"),
    ("V1 a 0 PWL(0 0 1m 1 2m 0) r=2m", "repeat time must be the time of one of the points"),
    ("I1 a 0 PWL(0 0 1m 1 2m 0) td=1m", "r= and td= only on V sources"),
    ("V1 a 0 PULSE(0 1 0 1u 1u 1u 5u 2 1)", "PULSE takes 2 to 8 values"),
    ("V1 a 0 PWL(0 0 1m 1) r=0 r=0", "r= is given twice"),
    ("V1 a 0 TRNOISE(20n 0.5n 0 0)", "supported: .*PWL"),
    ("R1 a 0 1k resistance=2k", "R has its value twice"),
    ("C1 a 0 c=1n cap=2n", "C has its value twice"),
    ("E1 a 0 b 0 2 gain=2", r"E takes Ename n\+ n- nc\+ nc- value \(or gain=value\)"),
]


@pytest.mark.parametrize("line, message", BAD_SOURCES, ids=[b[0] for b in BAD_SOURCES])
def test_unsupported_source_forms_name_the_line(line, message):
    text = f"t\n{line}\nR1 a 0 1\n.end\n"
    with pytest.raises(spice.SpiceError, match=message) as caught:
        spice.read(text)
    assert caught.value.line == 2 and caught.value.text == line


def test_on_flag_of_a_w_switch_warns_that_ngspice_ignores_it():
    text = ("t\nV1 c 0 0.9\nVs c cs 0\nRs cs 0 1k\nW1 c o Vs wm on\nR1 o 0 1k\n"
            ".model wm CSW(IT=1m IH=0.2m)\n.end\n")
    with pytest.warns(spice.SpiceWarning, match="ngspice-39 starts a W switch open") as caught:
        d = spice.read(text)
    assert caught[0].message.line == 5
    assert d.op()["v(o)"] < 1e-6                 # open, as ngspice-39's


def test_an_explicit_dc_zero_beside_a_waveform_is_the_operating_points_value():
    """``DC 0`` given with a PULSE starting at 1 V: ngspice-39's .op prints v(a) = 0 (run by
    hand on this deck), not the waveform's t = 0 value. A number's value function is true
    whatever the number, as a function is (``spec.dc or ...`` picks it)."""
    text = "dc zero\nV1 a 0 DC 0 PULSE(1 2 1u 1u 1u 1 2)\nR1 a 0 1k\n.op\n.end\n"
    assert spice.read(text).run()["op"]["v(a)"] == 0.0


def test_sffm_and_am_sources_equal_ngspice_and_their_closed_forms():
    # SFFM(VO VA FC MDI FS PHASEC PHASES) and AM(VA VO MF FC TD PHASE6 PHASE7), which physlib
    # refused. Measured on ngspice-39: SFFM's FC and FS missing or 0 are 1/tstop, its phases in
    # degrees; AM's MF missing or 0 is 1/tstop, its FC missing 0, it is 0 up to TD and counts
    # time from TD, and both of its sines take the seventh value's phase (the sixth is
    # ignored: a warning). The sources at physlib's rows against the formulas, to 1e-12 of
    # their range (the same operations); the RC nodes behind them at ngspice's own points
    # (physlib's rows there; ngspice's dozen points within 1e-16 s of TD are one row) within
    # 1e-4 of the range (measured 8e-6: ngspice's trapezoidal steps at reltol 1e-8; 2e-6 at a
    # ten times smaller tmax).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = spice.read(DATA / "modulated.cir")
    assert sum("ignores its sixth value" in str(w.message) for w in caught) == 1
    ref = reference("modulated_tran.csv")
    result = d.tran(**next(a for k, a in d.analyses if k == "tran"), t_eval=ref["time"])
    t, w = result["time"], 2 * np.pi
    sffm = 0.5 + 2 * np.sin(w * 10e3 * t + np.radians(30) + 3 * np.sin(w * 1e3 * t + np.radians(60)))
    am = np.where(t < 0.2e-3, 0.0, 2 * (0.5 + np.sin(w * 1e3 * (t - 0.2e-3) + np.radians(60)))
                  * np.sin(w * 10e3 * (t - 0.2e-3) + np.radians(60)))
    default = np.sin(w * t / 2e-3 + 2 * np.sin(w * t / 2e-3))          # FC = FS = 1/tstop
    for vector, expected in (("v(a)", sffm), ("v(c)", am), ("v(e)", default)):
        assert np.max(np.abs(result[vector] - expected)) < 1e-12 * np.ptp(expected), vector
    for vector in ("v(b)", "v(d)", "i(v1)", "v(f)"):
        ours = np.interp(ref["time"], t, result[vector])
        assert np.max(np.abs(ours - ref[vector])) < 1e-4 * np.ptp(ref[vector]), vector
