"""The level-2 MOSFET (``level=2``, ngspice-39's ``mos2``) against ngspice-39, on the decks and
references in tests/data/spice/mosfet (made by make_references.py there; no ngspice needed
here): output characteristics of an NMOS (channel-length modulation from NSUB or LAMBDA, weak
inversion, velocity saturation) and of a PMOS at 50 °C into punch-through, transfer
characteristics with and without body bias, a common-source stage's .op, .ac and .noise and a
CMOS inverter's .tran.

The decks' NMOS cards without VMAX share one structure (RD, RS, junction, overlap and Meyer
capacitances), so the MOSFET's level-2 equations are derived once for them; those with VMAX
(the quartic's stages), and the PMOS cards, are two more.
The common-source stage has XJ = 0: with XJ > 0 ngspice-39's small-signal conductances are
not the derivatives of its own drain current (mos2load.c leaves out how the shortened body
effect moves the threshold and vdsat with VDS). On that stage with XJ = 0.2 µm ngspice's .ac
gain at 1 Hz is −5.7494, the slope of its own .dc curve around the operating point −5.78 to
−5.80 (central differences of ±1e-5 to ±1e-3 V; its .dc is noisy at that scale), and
physlib's .ac −5.78086, the slope of its own .dc −5.78086 (±1e-4 V), its operating point
1.2e-7 V from ngspice's: physlib linearizes the current it solves, which agrees with ngspice's
.dc, not with its .ac, there. With XJ = 0 ngspice's .ac and physlib's agree to 1e-9.

Physical constants: ngspice-39 uses CODATA 2014, and so do the decks here; see tests/test_mosfet.py.
"""
import pytest

import physlib.spice
from physlib.components.electrical import MOSFET
from physlib.core.errors import ParameterError

from mosfet_decks import (assert_card_error, assert_characteristics, assert_inverter_transient,
                          assert_ring_oscillator_transient, assert_stage_op_ac_noise, read)


@pytest.mark.parametrize("name, key, values, sweep, source, currents", [
    # channel-length modulation from NSUB (no LAMBDA), UCRIT and UEXP, XJ, DELTA with M = 2,
    # LD, RD, RS; VSB = 1 V; from reverse (VDS < 0) through the linear region into saturation.
    # Measured 6.7e-9 (every point, all four VGS).
    ("mos2_dc", "vgs", {0: 1.0, 3: 4.0}, (-0.5, 5.0, 0.05), "vds", ("i(vds)",)),
    # the same card with LAMBDA and NFS, VGS = 0.8 V in weak inversion. Measured 3.1e-9.
    ("mos2_lambda_dc", "vgs", {0: 0.8, 1: 2.0}, (-0.5, 5.0, 0.05), "vds", ("i(vds)",)),
    # ID(VGS) at VDS = 3 V and 0.1 V (VLIN), VBS = 0, -2 and +0.3 V (the body effect's
    # forward-bias branch): weak inversion into strong. Measured 4.3e-9.
    ("mos2_transfer", "vbs", {0: 0.0, 1: -2.0, 2: 0.3}, (0.0, 4.0, 0.05), "vgs", ("i(vds)", "i(vlin)")),
    # a PMOS at 50 °C (TNOM 27 °C): PHI, GAMMA, VTO from NSUB, NSS, KP from UO and TOX, RD, RS
    # from RSH; L = 0.6 µm: channel-length modulation into punch-through (PB(T)). Within 1e-8
    # (measured 7.2e-10): PHI from NSUB carries k/q, through the threshold, so SI 2019's k and q
    # would leave 3.5e-7.
    # velocity saturation (VMAX, NEFF: the quartic's saturation voltage) with NFS, VGS = 0.8 V
    # in weak inversion; and ID(VGS) with it at VBS = -2 and +0.3 V. Measured 3.0e-9, 3.4e-9.
    ("mos2_vmax_dc", "vgs", {0: 0.8, 3: 4.0}, (-0.5, 5.0, 0.05), "vds", ("i(vds)",)),
    ("mos2_vmax_transfer", "vbs", {1: -2.0, 2: 0.3}, (0.0, 4.0, 0.05), "vgs", ("i(vds)", "i(vlin)")),
    ("pmos2_dc", "vgs", {0: -0.6, 3: -4.5}, (0.5, -5.0, -0.05), "vds", ("i(vds)",)),
])
def test_characteristics_equal_ngspice(name, key, values, sweep, source, currents):
    assert_characteristics(name, key, values, sweep, source, currents,
                           1e-8 if name == "pmos2_dc" else 1e-6)


def test_common_source_stage_op_ac_and_noise_equal_ngspice():
    # Acceptance 2: .op within 1e-6 V/A (measured 4.1e-9), .ac to 1 GHz through Meyer's,
    # overlap and junction capacitances within 1e-5 of |H| (measured 1.3e-9), .noise of each
    # source (RD, RS, channel thermal 4kT·2/3·gm, flicker KF·|ID|^AF/(f·W·M·Leff·Cox²) as
    # mos2noi.c) and the totals within 1e-8 (measured 2.2e-12; 1.7e-7 with SI 2019's k).
    ref = read("mos2_cs_op.csv")
    # the reference obeys KCL: the load's current is the source resistor's (no gate current)
    assert (ref["v(vdd)"] - ref["v(out)"]) / 5e3 == pytest.approx(-ref["i(vdd)"], rel=1e-9)
    assert ref["v(src)"] / 200 == pytest.approx(-ref["i(vdd)"], rel=1e-6)
    assert_stage_op_ac_noise("mos2_cs")


def test_velocity_saturated_stage_op_and_ac_equal_ngspice():
    # Acceptance 2 with VMAX: the common-source stage with the quartic's saturation voltage,
    # .op within 1e-6 V/A (measured 2.6e-9), .ac to 1 GHz within 1e-5 of |H| (measured 1.6e-6,
    # 1.2e-6 at 1 Hz: ngspice's .ac gain there is −5.1350629, physlib's −5.1350568, which is
    # the slope of physlib's .dc; without VMAX the two .ac agree to 1.3e-9, so the difference
    # is ngspice's small-signal conductances with VMAX, which mos2load.c derives from Baum's
    # equation rather than from the quartic's root it uses).
    assert_stage_op_ac_noise("mos2_vmax_cs", noise=False)


def test_cmos_inverter_transient_equals_ngspice():
    # Acceptance 2: within 1e-3 of the 3.3 V range on ngspice's 0.05 ns grid (ngspice stepping
    # at most 1 ps, reltol 1e-7). Level-2 NMOS and PMOS with Meyer's, overlap and junction
    # capacitances. Measured 1.7e-5 of the range.
    assert_inverter_transient("mos2_inverter")


def test_ring_oscillator_with_velocity_saturation_equals_ngspice():
    # Acceptance 2: a three-stage ring oscillator of the level-2 cards with VMAX (period
    # 0.32 ns: three periods after the kick), kicked through 5 fF by a pulsed inverter: every
    # vector within 1e-3 of its range. ngspice ran at reltol 1e-7 stepping at most 0.05 ps: at
    # reltol 1e-8 its nodes move by 3.5e-7 of the range, at tmax 0.1 ps by 1.4e-5. Measured
    # 1.4e-5 (the supply current), 8.2e-6 (the ring's nodes); with VMAX 10 % higher 0.29.
    assert_ring_oscillator_transient("mos2_ring", 1.5e-9)


@pytest.mark.parametrize("card, message", [
    ("level=2 theta=0.1", "theta= not supported on a level-2 MOSFET"),
    ("level=2 xd=1u", "xd= not supported on a level-2 MOSFET"),
    ("level=3 ucrit=2e4", "ucrit= not supported on a level-3 MOSFET"),
    ("level=4 vto=1", "level=4 is not supported"),
])
def test_unsupported_parameters_are_errors_naming_them(card, message):
    assert_card_error(card, message)


def test_level2_defaults_follow_ngspice_and_utra_is_a_warning():
    with pytest.raises(ParameterError, match="M1.*level must be 1, 2 or 3"):
        MOSFET("M1", level=0)
    # mos2set.c, mos2temp.c: TOX 1e-7 m, MJSW 0.33, KP from UO and Cox; UCRIT in V/cm, NFS
    # per cm²·V; ngspice-39 ignores UTRA (no level has it) with a warning, so does the reader
    read_deck = physlib.spice.read("d\nV1 d 0 1\nM1 d d 0 0 nch\n.model nch NMOS(level=2 uo=500 ucrit=2e4 "
                              "nfs=1e11 lambda=0.02 utra=0.3)\n.end\n")
    m1 = read_deck.model["m1"]
    assert m1.level == 2 and m1.TOX == 1e-7 and m1.MJSW == 0.33 and m1.LAMBDA == 0.02
    assert m1.KP == pytest.approx(500 * 3.9 * 8.854214871e-12 / 1e-7 * 1e-4, rel=1e-12)
    assert m1.UCRIT == pytest.approx(2e6, rel=1e-12) and m1.NFS == pytest.approx(1e15, rel=1e-12)
    assert any("utra= ignored" in w for w in read_deck.warnings)
