"""The level-3 MOSFET (``level=3``, ngspice-39's ``mos3``) against ngspice-39, on the decks and
references in tests/data/spice/mosfet (made by make_references.py there; no ngspice needed
here): output characteristics of an NMOS (with and without velocity saturation and weak
inversion) and of a PMOS at 50 °C, transfer characteristics with and without body bias, a
common-source stage's .op, .ac and .noise and a CMOS inverter's .tran.

The decks' NMOS cards share one structure (RD, RS, junction, overlap and Meyer capacitances,
channel-length modulation), so the MOSFET's level-3 equations are derived once for them; the
common-source stage has KAPPA = 0 (no channel-length modulation), another structure: with
KAPPA > 0 or VMAX > 0 in saturation ngspice-39's small-signal conductances are not the
derivatives of its own drain current (its .ac gain differs from the slope of its own .dc
curve by 1.8 % and 6 % on that stage; physlib linearizes the current it solves, so it agrees
with ngspice's .dc, not with its .ac, there).

Physical constants: ngspice-39 uses CODATA 2014, and so do the decks here; see tests/test_mosfet.py.
"""
import numpy as np
import pytest

import physlib.spice
from physlib import Model
from physlib.components.electrical import MOSFET, Ground, VoltageSource
from physlib.core.errors import ParameterError

from mosfet_decks import (assert_card_error, assert_characteristics, assert_inverter_transient,
                          assert_ring_oscillator_transient, assert_stage_op_ac_noise, read)


@pytest.mark.parametrize("name, key, values, sweep, source, currents", [
    # THETA, ETA, DELTA, KAPPA with NSUB, XJ (short-channel body effect), LD, RD, RS; VSB = 1 V;
    # from reverse (VDS < 0) through the linear region into saturation. Measured 4.6e-9.
    ("mos3_dc", "vgs", {1: 1.5, 3: 4.0}, (-0.5, 5.0, 0.05), "vds", ("i(vds)",)),
    # the same with VMAX (velocity saturation) and NFS, VGS = 0.9 V in weak inversion.
    # Measured 9.3e-10.
    ("mos3_vmax_dc", "vgs", {0: 0.9, 2: 2.0}, (-0.5, 5.0, 0.05), "vds", ("i(vds)",)),
    # ID(VGS) at VDS = 3 V and 0.1 V (VLIN), VBS = 0, -2 and +0.3 V (the body effect's
    # forward-bias branch): weak inversion into strong. Measured 1.6e-9.
    ("mos3_transfer", "vbs", {0: 0.0, 1: -2.0, 2: 0.3}, (0.0, 4.0, 0.05), "vgs", ("i(vds)", "i(vlin)")),
    # a PMOS at 50 °C (TNOM 27 °C): PHI, GAMMA, VTO from NSUB, NSS with mos3's intrinsic
    # density, KP from UO and TOX, RD, RS from RSH. Within 1e-8 (measured 9.1e-10): PHI from
    # NSUB carries k/q, through the threshold, so SI 2019's k and q would leave 3.1e-7.
    ("pmos3_dc", "vgs", {0: -0.9, 3: -4.5}, (0.5, -5.0, -0.05), "vds", ("i(vds)",)),
])
def test_characteristics_equal_ngspice(name, key, values, sweep, source, currents):
    assert_characteristics(name, key, values, sweep, source, currents,
                           1e-8 if name == "pmos3_dc" else 1e-6)


def test_common_source_stage_op_ac_and_noise_equal_ngspice():
    # Acceptance 2: .op within 1e-6 V/A (measured 1.7e-9), .ac to 1 GHz through Meyer's,
    # overlap and junction capacitances within 1e-5 of |H| (measured 1.9e-10), .noise of each
    # source (RD, RS, channel thermal 4kT·2/3·gm, flicker KF·|ID|^AF/(f·W·Leff·Cox²) without
    # M as mos3noi.c) and the totals within 1e-8 (measured 1.4e-12; 1.7e-7 with SI 2019's k).
    assert_stage_op_ac_noise("mos3_cs")


def test_cmos_inverter_transient_equals_ngspice():
    # Acceptance 2: within 1e-3 of the 3.3 V range on ngspice's 0.05 ns grid (ngspice stepping
    # at most 1 ps, reltol 1e-7). Level-3 NMOS (VMAX, NFS, KAPPA) and PMOS with Meyer's,
    # overlap and junction capacitances. Measured 5.2e-6 of the range.
    assert_inverter_transient("mos3_inverter")


def test_ring_oscillator_equals_ngspice():
    # Acceptance 2: a three-stage ring oscillator of the level-3 cards (THETA, ETA, KAPPA,
    # VMAX, NFS; Meyer's, overlap and junction capacitances; period 1.42 ns: two and a half
    # periods after the kick), kicked through 5 fF by a pulsed inverter: every vector within
    # 1e-3 of its range. ngspice ran at reltol 1e-7 stepping at most 0.05 ps: at 0.025 ps its
    # nodes move by 7.5e-7 of the range. Measured 6.0e-6 (the ring's nodes), 4.4e-6 (the
    # supply current).
    assert_ring_oscillator_transient("mos3_ring", 5e-9)


@pytest.mark.parametrize("card, message", [
    ("level=3 xl=0.1u", "xl= not supported on a level-3 MOSFET"),
    ("level=3 lambda=0.02", "lambda= not supported on a level-3 MOSFET"),
    ("level=1 theta=0.1", "theta= not supported on a level-1 MOSFET"),
    ("level=3 nsub=1e8 tox=20n", "nsub=1e\\+08 is below the intrinsic carrier density"),
])
def test_unsupported_parameters_are_errors_naming_them(card, message):
    assert_card_error(card, message)


def test_level_is_checked_and_level3_defaults_follow_ngspice():
    with pytest.raises(ParameterError, match="M1.*level must be 1, 2 or 3"):
        MOSFET("M1", level=4)
    # mos3set.c: TOX 1e-7 m and MJSW 0.33 where the card has none; KP from UO and Cox
    model = physlib.spice.read("d\nV1 d 0 1\nM1 d d 0 0 nch\n.model nch NMOS(level=3 uo=500)\n.end\n").model
    assert model["m1"].level == 3 and model["m1"].TOX == 1e-7 and model["m1"].MJSW == 0.33
    assert model["m1"].KP == pytest.approx(500 * 3.9 * 8.854214871e-12 / 1e-7 * 1e-4, rel=1e-12)
    assert model["m1"].UO == pytest.approx(0.05, rel=1e-12)


def test_python_api_level3_in_si_units_equals_ngspice():
    # The card of mos3_transfer.cir given to MOSFET(level=3) in SI units (NSUB per m³, UO in
    # m²/V·s, NFS per m²·V; KP = UO·Cox as ngspice derives it): its drain current at VDS = 3 V,
    # VBS = -2 V in weak inversion, near threshold and in strong inversion equals ngspice's
    # ID(VGS) within 1e-6 of the curve's largest current. Measured 7.5e-11.
    eps_ox = 3.9 * 8.854214871e-12
    card = dict(level=3, VTO=0.7, GAMMA=0.5, PHI=0.7, NSUB=1e22, TOX=20e-9, UO=0.055,
                KP=550 * eps_ox / 20e-9 * 1e-4, THETA=0.08, ETA=0.05, KAPPA=0.6, XJ=0.2e-6, LD=0.1e-6,
                DELTA=0.4, VMAX=1.5e5, NFS=8e15, RD=15, RS=10, IS=1e-15, CJ=0.3e-3, CJSW=0.2e-9, MJ=0.45,
                MJSW=0.3, PB=0.8, CGSO=0.3e-9, CGDO=0.3e-9, CGBO=0.2e-9, KF=1e-27, AF=1.2, GMIN=1e-12,
                L=1.2e-6, W=20e-6, M=2, AD=40e-12, AS=40e-12, PD=44e-6, PS=44e-6)
    m = Model("mos3")
    vd, vg, vb = (m.add(VoltageSource(n, V=v)) for n, v in (("vd", 3.0), ("vg", 0.0), ("vb", -2.0)))
    nmos, ground = m.add(MOSFET("m1", **card)), m.add(Ground("gnd"))
    m.connect(vd.p, nmos.d)
    m.connect(vg.p, nmos.g)
    m.connect(vb.p, nmos.b)
    m.connect(nmos.s, vd.n, vg.n, vb.n, ground.p)
    sim = m.compile(units="strict")       # the level-3 equations' units agree (else an error)
    ref = read("mos3_transfer_dc_vbs1.csv")
    for k in (12, 20, 60):                # VGS = 0.6 V, 1.0 V, 3.0 V
        op = sim.operating_point(params={"vg.V": float(ref["v-sweep"][k])})
        assert abs(abs(op["m1.d.i"]) - abs(ref["i(vds)"][k])) < 1e-6 * np.max(np.abs(ref["i(vds)"])), k
