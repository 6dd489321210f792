"""Issue 36's DC machines, DC-DC converters, batteries and thermal parts against closed forms, and acceptance 3 for each:
an FMU in FMPy agrees with ``simulate``, ``linearize`` agrees with finite differences, and the
dissipative ones give kT-equipartition.

(The MSL examples using them are in tests/msl_corpus_machines.py; their FMUs are cases of
tests/test_export_fmu_differential.py.)
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components import rotational as rot
from physlib.components.electrical import (Capacitor, CellRCStack, CellStack, ChopperStepDown, ChopperStepUp,
                                           CurrentSource, DC_ElectricalExcited, SuperCap,
                                           DC_PermanentMagnet, DC_SeriesExcited, Ground, HBridge, Inductor,
                                           Resistor, VoltageSource)
from physlib.components.signals import Ramp, SignalPWM, Sine, Step
from physlib.components.thermal import (FixedTemperature, HeatCapacitor, PrescribedHeatFlow,
                                        PrescribedTemperature, TemperatureDependentConductor,
                                        VariableConvection)
from physlib.core.errors import ParameterError

from fmu_runs import away_from_events

COPPER = 3.92e-3                               # 1/K at 20 °C
LOSSES = dict(friction_PRef=400.0, core_PRef=300.0, strayLoad_PRef=200.0, brush_V=1.0,
              alpha20a=COPPER)                  # every loss of the machine, none zero
CONDUCTANCE = [(250.0, 40.0), (350.0, 20.0), (450.0, 15.0)]   # (T [K], G [W/K])


def lossy_motor_with_cooling(Va=Step(height=20.0, offset=80.0, t0=0.05), Gc=Sine(amplitude=5.0, f=4.0, offset=30.0),
                             T_amb=Ramp(height=10.0, duration=0.2, offset=300.0), Q_flow=Step(height=200.0, t0=0.1)):
    """A DC permanent-magnet motor with every loss, driving an inertia against a linear drag,
    cooled as one body: its heat port on a heat capacitor (the windings), through a conductor
    whose conductance is a table over temperature to a second capacitor (the frame), which
    convects (Gc a signal) to a prescribed ambient; a prescribed heat flow (alpha ≠ 0) heats
    the windings. Every new thermal class and the machine's every loss in one model."""
    m = Model("cooled_motor")
    ground = m.add(Ground("ground"))
    supply = m.add(VoltageSource("supply", V=Va))
    motor = m.add(DC_PermanentMagnet("motor", use_heat_port=True, **LOSSES))
    load = m.add(rot.Inertia("load", J=0.1))
    drag = m.add(rot.Damper("drag", d=0.3))
    fixed = m.add(rot.Fixed("fixed"))
    windings = m.add(HeatCapacitor("windings", C=200.0, T0=300.0))
    frame = m.add(HeatCapacitor("frame", C=800.0, T0=300.0))
    path = m.add(TemperatureDependentConductor("path", points=CONDUCTANCE))
    convection = m.add(VariableConvection("convection", Gc=Gc))
    ambient = m.add(PrescribedTemperature("ambient", T=T_amb))
    heater = m.add(PrescribedHeatFlow("heater", Q_flow=Q_flow, alpha=0.01, T_ref=300.0))
    m.connect(supply.p, motor.pin_ap)
    m.connect(supply.n, motor.pin_an, ground.p)
    m.connect(motor.flange, load.flange_a)
    m.connect(load.flange_b, drag.flange_a)
    m.connect(drag.flange_b, fixed.flange)
    m.connect(motor.heat_port, windings.port, path.port_a, heater.port)
    m.connect(path.port_b, frame.port, convection.port_a)
    m.connect(convection.port_b, ambient.port)
    return m


@pytest.fixture(scope="module")
def cooled():
    return lossy_motor_with_cooling(Va=100.0, Gc=30.0, T_amb=300.0, Q_flow=200.0).compile()


# --- closed forms ------------------------------------------------------------------------------

def test_lossy_motor_steady_state_obeys_each_loss_law_and_the_energy_balance(cooled):
    op = cooled.operating_point(x_guess={"motor.w": 140.0, "load.w": 140.0, "windings.T": 400.0,
                                         "frame.T": 350.0})
    wN, IN = 1425 * 2 * math.pi / 60, 100.0
    w, ia, Ta = op["motor.w"], op["motor.ia"], op["windings.T"]
    vi = 100.0 - 0.05 * IN - 1.0                       # ViNominal: Ra at TaNominal = TaRef, brush 1 V
    R = 0.05 * (1 + COPPER * (Ta - 293.15))
    # The laws of the module notes, at the operating point (1e-9: a Newton solution at 1e-12).
    assert op["motor.tau_friction"] == pytest.approx(-400.0 / wN * (w / wN) ** 2, rel=1e-9)
    assert op["motor.tau_strayLoad"] == pytest.approx(-200.0 / wN * (ia / IN) ** 2 * (w / wN), rel=1e-9)
    assert op["motor.v_brush"] == pytest.approx(1.0, rel=1e-12)          # ia far beyond 1 A
    assert ia - op["motor.i_la"] == pytest.approx(300.0 / vi**2 * op["motor.v_core"], rel=1e-9)
    assert op["motor.v_core"] == pytest.approx(vi / wN * w, rel=1e-9)    # La·di/dt = 0
    assert 100.0 == pytest.approx(R * ia + op["motor.v_core"] + 1.0, rel=1e-9)
    # Energy: electrical power in = the drag's power + the losses; the losses leave as heat,
    # and with the heater's flow cross the path and the convection to the ambient.
    assert 100.0 * ia == pytest.approx(0.3 * w**2 + op["motor.lossPower"], rel=1e-9)
    heater = 200.0 * (1 + 0.01 * (Ta - 300.0))
    assert op["path.Q"] == pytest.approx(op["motor.lossPower"] + heater, rel=1e-9)
    Tm = (Ta + op["frame.T"]) / 2
    G = np.interp(Tm, *zip(*CONDUCTANCE))
    assert op["path.Q"] == pytest.approx(G * (Ta - op["frame.T"]), rel=1e-9)
    assert op["convection.Q"] == pytest.approx(30.0 * (op["frame.T"] - 300.0), rel=1e-9)


def test_permanent_magnet_no_load_speed_and_stall_torque():
    # Lossless: w0 = Va/(ViNominal/wNominal), the stall torque (ViNominal/wNominal)·Va/Ra.
    m = Model("pm")
    ground, supply = m.add(Ground("g")), m.add(VoltageSource("V", V=50.0))
    motor = m.add(DC_PermanentMagnet("dcpm"))
    m.connect(supply.p, motor.pin_ap)
    m.connect(supply.n, motor.pin_an, ground.p)
    sim = m.compile()
    k = 95.0 / (1425 * 2 * math.pi / 60)
    assert sim.operating_point()["dcpm.w"] == pytest.approx(50.0 / k, rel=1e-12)
    start = sim.simulate(1e-6, rtol=1e-10, atol=1e-12)       # at rest: ia from 0 with La
    assert start["dcpm.tauElectrical"][-1] == pytest.approx(k * 50.0 / 0.0015 * 1e-6, rel=1e-3)


def test_series_machine_torque_is_quadratic_in_the_current():
    # tau = ViNominal/(wNominal·Lme·IaNominal)·Lme·ie·ia = 94/(wNominal·100)·ia² at standstill.
    m = Model("se")
    ground, supply = m.add(Ground("g")), m.add(VoltageSource("V", V=6.0))
    motor = m.add(DC_SeriesExcited("dcse"))
    shaft = m.add(rot.Fixed("fixed"))
    m.connect(supply.p, motor.pin_ap)
    m.connect(motor.pin_an, motor.pin_ep)
    m.connect(motor.pin_en, supply.n, ground.p)
    m.connect(motor.flange, shaft.flange)
    op = m.compile().operating_point()
    ia = 6.0 / 0.06
    assert op["dcse.ia"] == pytest.approx(ia, rel=1e-12)
    assert op["dcse.tauElectrical"] == pytest.approx(94.0 / (1410 * 2 * math.pi / 60) / 100.0 * ia**2, rel=1e-12)



@pytest.mark.parametrize("cls, values, vi", [
    (DC_PermanentMagnet, dict(VaNominal=4.0), -1.0),                  # 4 − 0.05·100
    (DC_ElectricalExcited, dict(VaNominal=6.0, brush_V=1.0), 0.0),    # 6 − 0.05·100 − 1
    (DC_SeriesExcited, dict(VaNominal=5.5), -0.5)])                   # 5.5 − (0.05 + 0.01)·100
def test_machine_whose_nominal_point_leaves_no_induced_voltage_is_refused(cls, values, vi):
    # ViNominal <= 0 made the flux zero or negative: a PM motor on 50 V with VaNominal = 4 V
    # ran at −21 rad/s. The MSL asserts ViNominal > 0; so does the constructor, and params=.
    with pytest.raises(ParameterError, match=rf"{cls.__name__} 'M'.*ViNominal = {vi:g} V"):
        cls("M", **values)
    m = Model("pm")
    ground, supply, motor = m.add(Ground("g")), m.add(VoltageSource("V", V=50.0)), m.add(DC_PermanentMagnet("M"))
    m.connect(supply.p, motor.pin_ap)
    m.connect(supply.n, motor.pin_an, ground.p)
    with pytest.raises(ParameterError, match="params for DC_PermanentMagnet M.*ViNominal"):
        m.compile().simulate(0.01, params={"M.VaNominal": 4.0})


@pytest.mark.parametrize("cls", [DC_PermanentMagnet, DC_ElectricalExcited])
def test_machine_on_a_free_housing_conserves_angular_momentum(cls):
    # The rotor's air-gap, friction and stray-load torques act between rotor and stator: with
    # the housing (use_support) on a free inertia nothing outside acts on the shafts, so
    # Jr·w + J_housing·w_housing + J_load·w_load stays 0 (it grew to 300 N·m·s in 0.5 s when
    # the housing took the torque with the rotor's sign) and the housing turns backwards.
    # Tolerance: 1e-6 of the rotor's momentum, the solver's rtol.
    m = Model("free_housing")
    ground, supply = m.add(Ground("g")), m.add(VoltageSource("V", V=100.0))
    motor = m.add(cls("motor", use_support=True, friction_PRef=500.0, strayLoad_PRef=300.0))
    housing, load = m.add(rot.Inertia("housing", J=2.0)), m.add(rot.Inertia("load", J=0.5))
    m.connect(supply.p, motor.pin_ap)
    m.connect(supply.n, motor.pin_an, ground.p)
    if cls is DC_ElectricalExcited:
        m.connect(supply.p, motor.pin_ep)
        m.connect(supply.n, motor.pin_en)
    m.connect(motor.support, housing.flange_a)
    m.connect(motor.flange, load.flange_a)
    res = m.compile().simulate(0.5, rtol=1e-8, atol=1e-10)
    momentum = 0.15 * res["motor.w"] + 2.0 * res["housing.w"] + 0.5 * res["load.w"]
    assert res["motor.w"][-1] > 10.0 and res["housing.w"][-1] < -1.0
    assert np.abs(momentum).max() < 1e-6 * 0.15 * np.abs(res["motor.w"]).max()
    assert res["motor.wMechanical"][-1] == pytest.approx(res["motor.w"][-1] - res["housing.w"][-1], rel=1e-12)

def test_prescribed_heat_flow_and_conductor_table_closed_forms():
    # A heat flow of 100 W (alpha 0.01/K about 300 K) through the table conductor to 300 K:
    # Q = 100·(1 + 0.01·(T − 300)) = G((T + 300)/2)·(T − 300).
    m = Model("th")
    source = m.add(PrescribedHeatFlow("q", Q_flow=100.0, alpha=0.01, T_ref=300.0))
    cap = m.add(HeatCapacitor("cap", C=1.0, T0=300.0))
    path = m.add(TemperatureDependentConductor("path", points=CONDUCTANCE))
    sink = m.add(PrescribedTemperature("sink", T=300.0))
    m.connect(source.port, cap.port, path.port_a)
    m.connect(path.port_b, sink.port)
    op = m.compile().operating_point(x_guess={"cap.T": 305.0})
    T = op["cap.T"]
    assert 100.0 * (1 + 0.01 * (T - 300.0)) == pytest.approx(np.interp((T + 300) / 2, *zip(*CONDUCTANCE)) * (T - 300),
                                                              rel=1e-10)
    assert op["path.G"] == pytest.approx(np.interp((T + 300) / 2, *zip(*CONDUCTANCE)), rel=1e-12)


@pytest.mark.parametrize("points, message", [
    ([(300.0, 1.0)], "at least two"), ([(300.0, 1.0), (300.0, 2.0)], "strictly increasing"),
    ([(300.0, 1.0), (400.0, 0.0)], "must be > 0"), ([(300.0, "a"), (400.0, 1.0)], "pairs of numbers")])
def test_conductor_table_bad_points_are_named(points, message):
    with pytest.raises(ParameterError, match=message) as err:
        TemperatureDependentConductor("wall", points=points)
    assert "'wall'" in str(err.value)


# --- acceptance 3 ------------------------------------------------------------------------------

def test_fmu_of_the_cooled_lossy_motor_agrees_with_simulate(tmp_path):
    # Every new thermal class and the machine with every loss in one FMU (time events of the
    # step, ramp; a sine Gc). FMPy's CVODE and physlib at rtol 1e-10 agree to ~1e-8 of each
    # signal's range; 1e-6 leaves room and would catch a wrong law (off by a good part).
    fmpy = pytest.importorskip("fmpy")
    sim = lossy_motor_with_cooling().compile()
    signals = ["motor.i_la", "motor.w", "windings.T", "frame.T", "path.G", "convection.Q",
               "heater.port.Q", "motor.lossPower"]
    path = sim.export_fmu(tmp_path / "cooled_motor", outputs=signals)
    fmu = fmpy.simulate_fmu(str(path), stop_time=0.3, relative_tolerance=1e-10, solver="CVode",
                            output=signals, output_interval=0.003)
    t = fmu["time"]
    keep = away_from_events(t) & np.all(np.abs(t[:, None] - np.array([0.05, 0.1])) > 1e-9, axis=1)
    res = sim.simulate(0.3, t_eval=t[keep], rtol=1e-10, atol=1e-12)
    for s in signals:
        assert np.max(np.abs(fmu[s][keep] - res[s])) <= 1e-6 * max(np.ptp(res[s]), 1e-9), s


MACHINES = {
    # name: (builder of a model with the machine at a non-trivial operating point, inputs, outputs)
    "DC_PermanentMagnet": ("cooled", ["supply.V", "convection.Gc", "heater.Q_flow"],
                           ["motor.w", "motor.i_la", "windings.T", "frame.T"]),
}


def _dc_gain_by_finite_differences(sim, op, inputs, outputs, base, guess):
    """d(output)/d(input) between steady states, central differences (step 1e-4 relative)."""
    gains = np.zeros((len(outputs), len(inputs)))
    for j, name in enumerate(inputs):
        h = 1e-4 * abs(base[name])
        ops = [sim.operating_point(inputs={**base, name: base[name] + s * h}, x_guess=guess) for s in (1, -1)]
        gains[:, j] = [(ops[0][o] - ops[1][o]) / (2 * h) for o in outputs]
    return gains


def test_linearize_of_the_machine_and_thermal_parts_agrees_with_finite_differences(cooled):
    # The static gain −C·A⁻¹·B + D of the linear model (the rotor's and load's angles, free
    # integrals nothing reads, left out) against central differences of steady states: both
    # are 1e-8-accurate (steps of 1e-4, second-order differences); 1e-6 relative.
    base = {"supply.V": 100.0, "convection.Gc": 30.0, "heater.Q_flow": 200.0}
    guess = {"motor.w": 140.0, "load.w": 140.0, "windings.T": 400.0, "frame.T": 350.0}
    op = cooled.operating_point(inputs=base, x_guess=guess)
    inputs, outputs = list(base), ["motor.w", "motor.i_la", "windings.T", "frame.T", "path.G"]
    lin = cooled.linearize(inputs, outputs, at=op)
    keep = [k for k, s in enumerate(lin.states) if not s.endswith("phi") and not s.endswith("phiMechanical")]
    A, B, C = lin.A[np.ix_(keep, keep)], lin.B[keep], lin.C[:, keep]
    gain = -C @ np.linalg.solve(A, B) + lin.D
    np.testing.assert_allclose(gain, _dc_gain_by_finite_differences(cooled, op, inputs, outputs, base, guess),
                               rtol=1e-6, atol=1e-9)


def _field_machines(kind: str) -> Model:
    """A machine whose armature (and field) are short circuits or ideal sources, its shaft
    on nothing but its rotor, everything at 300.15 K: the windings' resistances are the only
    dissipation."""
    m = Model(kind)
    ground = m.add(Ground("g"))
    T = dict(TaOperational=300.15)
    if kind == "pm":
        motor = m.add(DC_PermanentMagnet("dc", **T))
        m.connect(motor.pin_ap, motor.pin_an, ground.p)
    elif kind == "ee":
        motor = m.add(DC_ElectricalExcited("dc", TeOperational=300.15, **T))
        field = m.add(VoltageSource("field", V=100.0))
        m.connect(motor.pin_ap, motor.pin_an, ground.p)
        m.connect(field.p, motor.pin_ep)
        m.connect(field.n, motor.pin_en, ground.p)
    else:
        motor = m.add(DC_SeriesExcited("dc", TeOperational=300.15, **T))
        m.connect(motor.pin_ap, ground.p, motor.pin_en)
        m.connect(motor.pin_an, motor.pin_ep)
    return m


@pytest.mark.parametrize("kind, variances", [
    # ⟨x²⟩ = kT/(what stores x²/2): each inductance, the rotor's inertia (the air gap is
    # lossless; the PM and separately excited machines couple shaft and armature).
    ("pm", {"dc.i_la": 0.0015, "dc.w": 0.15}),
    ("ee", {"dc.i_la": 0.0015, "dc.w": 0.15, "dc.ie": 1.0}),
    # series: armature and field carry one current, La + Le; no current, no flux: the shaft
    # is then free (not asked).
    ("se", {"dc.i_la": 0.0015 + 0.0005}),
])
def test_machine_winding_noise_gives_equipartition(kind, variances):
    sim = _field_machines(kind).compile()
    op = sim.operating_point(x_guess={"dc.ie": 1.0} if kind == "ee" else None)
    kT = BOLTZMANN * 300.15
    for name, stored in variances.items():
        assert sim.noise(name, at=op).variance == pytest.approx(kT / stored, rel=1e-9, abs=0), name


def test_thermal_conductors_give_equipartition():
    # ⟨δT²⟩ = k·T²/C per capacitor, the table conductor and the convection (Gc a constant
    # input) being the dissipation, all at 350 K.
    m = Model("thermal")
    c1, c2 = m.add(HeatCapacitor("c1", C=10.0, T0=350.0)), m.add(HeatCapacitor("c2", C=4.0, T0=350.0))
    path = m.add(TemperatureDependentConductor("path", points=CONDUCTANCE))
    convection = m.add(VariableConvection("convection", Gc=0.7))
    ambient = m.add(FixedTemperature("ambient", T=350.0))
    m.connect(c1.port, path.port_a)
    m.connect(path.port_b, c2.port, convection.port_a)
    m.connect(convection.port_b, ambient.port)
    sim = m.compile()
    for name, C in (("c1.T", 10.0), ("c2.T", 4.0)):
        assert sim.noise(name).variance == pytest.approx(BOLTZMANN * 350.0**2 / C, rel=1e-9, abs=0), name


# --- DC-DC converters --------------------------------------------------------------------------
# (ChopperStepDown's and HBridge's FMUs: the corpus cases ChopperStepDown_R/_RL, HBridge_R/_RL of
# tests/test_export_fmu_differential.py.)

RON, GOFF = 1e-5, 1e-5      # the MSL's defaults, for transistors and diodes


def converter_circuit(kind: str, fire=1.0, V=12.0, R=10.0, L=1e-3, C=100e-6) -> Model:
    """A converter on a source V with an inductor L and a load R ∥ C: for the step-down chopper
    and the H bridge, L in series with the load on side 2; for the step-up chopper L in series
    with the supply (its input inductor). ``fire``: the fire input (and for the H bridge
    fire_n = 1 − fire_p)."""
    m = Model(kind)
    ground, supply = m.add(Ground("g")), m.add(VoltageSource("V", V=V))
    inductor, capacitor = m.add(Inductor("L", L=L)), m.add(Capacitor("C", C=C))
    load = m.add(Resistor("R", R=R))
    converter = m.add({"down": ChopperStepDown, "up": ChopperStepUp, "bridge": HBridge}[kind]("dcdc"))
    if isinstance(fire, float):
        converter.fire_p = fire
        if kind == "bridge":
            converter.fire_n = 1.0 - fire
    else:                       # a SignalPWM firing side p (the H bridge's other side its inverse)
        m.connect(m.add(fire).y, converter.fire_p)
        if kind == "bridge":
            m.connect(m.add(SignalPWM("notFire", f=fire.f, duty=fire.duty, amplitude=-1.0, offset=1.0)).y,
                      converter.fire_n)
    if kind == "up":
        m.connect(supply.p, inductor.p)
        m.connect(inductor.n, converter.dc_p1)
        m.connect(converter.dc_p2, capacitor.p, load.p)
    else:
        m.connect(supply.p, converter.dc_p1)
        m.connect(converter.dc_p2, inductor.p)
        m.connect(inductor.n, capacitor.p, load.p)
    m.connect(supply.n, converter.dc_n1, ground.p)
    m.connect(converter.dc_n2, capacitor.n, load.n)
    return m


def _bridge_output(V, R, fire_p):
    """vDC2 of an H bridge with constant fire inputs (fire_n = not fire_p) and a resistive
    load R: nodal analysis of the eight elements, each Ron (conducting) or 1/Goff."""
    g_on, g_off = 1 / RON, GOFF
    # conductances from p2 and n2 to dc_p1 (at V) and dc_n1 (at 0): a fired transistor
    # conducts; the diodes and the other transistors block (reverse biased).
    p2_top, p2_bottom = (g_on if fire_p else g_off) + g_off, (g_off if fire_p else g_on) + g_off
    n2_top, n2_bottom = (g_off if fire_p else g_on) + g_off, (g_on if fire_p else g_off) + g_off
    G = np.array([[p2_top + p2_bottom + 1 / R, -1 / R], [-1 / R, n2_top + n2_bottom + 1 / R]])
    vp2, vn2 = np.linalg.solve(G, [p2_top * V, n2_top * V])
    return vp2 - vn2


@pytest.mark.parametrize("kind, fire, expected", [
    # transistor on, diode blocking: p2 = V·(1/Ron)/(1/Ron + 1/R + Goff) (L shorts at DC)
    ("down", 1.0, 12.0 / RON / (1 / RON + 1 / 10.0 + GOFF)),
    # transistor off (Goff across the supply side), diode on: V·R/(R + Ron)
    ("up", 0.0, 12.0 * 10.0 / (10.0 + RON)),
    ("bridge", 1.0, _bridge_output(12.0, 10.0, True)),
    ("bridge", 0.0, _bridge_output(12.0, 10.0, False)),
])
def test_converter_steady_states_with_constant_firing(kind, fire, expected):
    op = converter_circuit(kind, fire).compile().operating_point()
    assert op["dcdc.vDC2"] == pytest.approx(expected, rel=1e-10)
    # what the elements dissipate is what the supply gives less what the load takes
    assert op["dcdc.lossPower"] == pytest.approx(op["dcdc.vDC1"] * op["dcdc.iDC1"] + op["dcdc.vDC2"] * op["dcdc.iDC2"],
                                                 rel=1e-9)


def test_step_up_chopper_fmu_agrees_with_simulate(tmp_path):
    # The boost converter at 10 kHz, duty 0.5, from rest: 20 periods (40 switchings of the
    # transistor and the diode, the diode's at its current's zero in discontinuous conduction).
    fmpy = pytest.importorskip("fmpy")
    sim = converter_circuit("up", SignalPWM("pwm", f=1e4, duty=0.5)).compile()
    signals = ["L.i", "C.v", "dcdc.on_transistor", "dcdc.on_diode"]
    path = sim.export_fmu(tmp_path / "boost", outputs=signals[:2])
    fmu = fmpy.simulate_fmu(str(path), stop_time=2e-3, relative_tolerance=1e-10, solver="CVode",
                            output=signals, output_interval=1e-5, record_events=True)
    keep = away_from_events(fmu["time"])
    res = sim.simulate(2e-3, t_eval=fmu["time"][keep], rtol=1e-10, atol=1e-12)
    assert np.ptp(res["C.v"]) > 12.0          # it boosts
    for s in signals:
        assert np.max(np.abs(fmu[s][keep] - res[s])) <= 1e-6 * max(np.ptp(res[s]), 1e-9), s


@pytest.mark.parametrize("kind, fire", [("down", 1.0), ("up", 0.0), ("bridge", 1.0)])
def test_converter_linearize_agrees_with_finite_differences(kind, fire):
    # The static gain from the supply to vDC2 and iDC1 in the operating point's modes, as above.
    sim = converter_circuit(kind, fire).compile()
    base, outputs = {"V.V": 12.0}, ["dcdc.vDC2", "dcdc.iDC1", "L.i"]
    op = sim.operating_point(inputs=base)
    lin = sim.linearize(list(base), outputs, at=op)
    gain = -lin.C @ np.linalg.solve(lin.A, lin.B) + lin.D
    np.testing.assert_allclose(gain, _dc_gain_by_finite_differences(sim, op, list(base), outputs, base, None),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("kind, fire", [("down", 1.0), ("up", 0.0), ("bridge", 0.0)])
def test_converter_noise_gives_equipartition(kind, fire):
    # The elements' Johnson noise (4kT·G in each state), the load's, all at 300.15 K: the
    # inductor holds kT/L, the capacitor kT/C.
    sim = converter_circuit(kind, fire).compile()
    kT = BOLTZMANN * 300.15
    assert sim.noise("L.i").variance == pytest.approx(kT / 1e-3, rel=1e-9, abs=0)
    assert sim.noise("C.v").variance == pytest.approx(kT / 100e-6, rel=1e-9, abs=0)


# --- batteries ---------------------------------------------------------------------------------
# (CellStack with the Akima table and the CCCVcharger: the corpus's CCCV_Cell and its FMU case.)

CELL = dict(Qnom=3600.0, OCVmax=4.0, OCVmin=3.0, Ri=0.05, Ns=3, Np=2)     # a 3s2p stack, linear OCV
RC = ((0.02, 500.0), (0.01, 5000.0))


def battery_circuit(kind: str, V=11.0, R=0.5, **options) -> Model:
    """A battery (``kind``: "cell", "rc" or "supercap") on a voltage source V through R."""
    m = Model(kind)
    ground, supply, resistor = m.add(Ground("g")), m.add(VoltageSource("V", V=V)), m.add(Resistor("R", R=R))
    if kind == "cell":
        battery = CellStack("bat", SOC0=0.5, **CELL, **options)
    elif kind == "rc":
        battery = CellRCStack("bat", SOC0=0.5, R0=0.02, rcData=RC, **{**CELL, "Ri": 0.0}, **options)
    else:
        battery = SuperCap("bat", Vnom=12.0, V0=6.0, C=100.0, Rs=0.01, **options)
    m.add(battery)
    m.connect(supply.p, resistor.p)
    m.connect(resistor.n, battery.p)
    m.connect(battery.n, supply.n, ground.p)
    return m


def test_cell_stack_charged_at_constant_current():
    # i = 2 A into a 3s2p stack of linear OCV 3 → 4 V: SOC = 0.5 + i·t/(Np·Qnom), v = Ns·OCV(SOC)
    # + Ns·Ri/Np·i, the loss Ns·Ri/Np·i²; its RC twin adds R_k·i·(1 − exp(−t/(R_k·C_k))) per
    # element (R_k = Ns·R/Np, C_k = Np·C/Ns). The run's own tolerance: 1e-8.
    for kind in ("cell", "rc"):
        m = Model(kind)
        ground, source = m.add(Ground("g")), m.add(CurrentSource("I", I=2.0))   # 2 A out of n into bat.p
        battery = m.add(CellStack("bat", SOC0=0.5, **CELL) if kind == "cell" else
                        CellRCStack("bat", SOC0=0.5, R0=0.05, rcData=RC, **{**CELL, "Ri": 0.0}))
        m.connect(source.n, battery.p)
        m.connect(battery.n, source.p, ground.p)
        res = m.compile().simulate(100.0, t_eval=[100.0], rtol=1e-10, atol=1e-12)
        soc = 0.5 + 2.0 * 100.0 / (2 * 3600.0)
        rc = sum(3 * Rk / 2 * 2.0 * (1 - np.exp(-100.0 / (3 * Rk / 2 * 2 * Ck / 3))) for Rk, Ck in RC) \
            if kind == "rc" else 0.0
        assert res["bat.SOC"][-1] == pytest.approx(soc, rel=1e-8)
        assert res["bat.v"][-1] == pytest.approx(3 * (3.0 + soc) + 3 * 0.05 / 2 * 2.0 + rc, rel=1e-8)


@pytest.mark.parametrize("soc_min, soc_max", [(0.5, 0.5), (0.9, 0.1)])
def test_cell_stack_line_with_soc_ends_equal_or_swapped_is_refused(soc_min, soc_max):
    # The straight OCV line divides by SOCmax − SOCmin: equal ends gave a stack at OCVmax
    # whatever its charge (4.21 V for 4.2 V + Ri·i), swapped ones an OCV that falls as it
    # charges; the MSL's table [SOCmin, ...; SOCmax, 1] refuses both. So must params=.
    values = {**CELL, "SOCmin": soc_min, "SOCmax": soc_max}
    with pytest.raises(ParameterError, match=r"CellStack 'bat': SOCmin = .* must be below SOCmax"):
        CellStack("bat", **values)
    sim = battery_circuit("cell", V=12.0, R=1.0).compile()
    with pytest.raises(ParameterError, match=r"params for CellStack bat: .*SOCmin = .* must be below"):
        sim.simulate(1.0, params={"bat.SOCmin": soc_min, "bat.SOCmax": soc_max})
    CellStack("bat", OCV_SOC=[(0.0, 0.7), (1.0, 1.0)], **values)     # the table's own ends count


def test_supercap_discharge_closed_form():
    # Into R: C·dv_C/dt = −v_C/(Rs + R) − G·v_C, G = Idis/Vnom.
    sim = battery_circuit("supercap", V=0.0, R=2.0, Idis=0.12).compile()
    res = sim.simulate(300.0, t_eval=[300.0], rtol=1e-10, atol=1e-12)
    rate = (1 / (0.01 + 2.0) + 0.12 / 12.0) / 100.0
    assert res["bat.v_C"][-1] == pytest.approx(6.0 * np.exp(-rate * 300.0), rel=1e-8)


def _soc_at_rest(V):
    """The SOC at which the CELL stack's OCV equals V (i = 0)."""
    return (V / 3 - 3.0) / (4.0 - 3.0)


@pytest.mark.parametrize("kind", ["cell", "rc", "supercap"])
def test_battery_linearize_agrees_with_finite_differences(kind):
    # At rest on V = 11 V: SOC where OCV = 11 V (or v_C = V/(1 + G·(Rs + R))); the static gain
    # from V to the states and the current (as the machine's, above).
    options = {} if kind == "supercap" else {"Idis": 0.0}
    sim = battery_circuit(kind, **options).compile()
    state = "bat.v_C" if kind == "supercap" else "bat.SOC"
    guess = {state: 11.0 if kind == "supercap" else 0.6}
    base = {"V.V": 11.0}
    op = sim.operating_point(inputs=base, x_guess=guess)
    if kind != "supercap":
        assert op["bat.SOC"] == pytest.approx(_soc_at_rest(11.0), rel=1e-10)
    outputs = [state, "bat.i", "bat.v"]
    lin = sim.linearize(list(base), outputs, at=op)
    gain = -lin.C @ np.linalg.solve(lin.A, lin.B) + lin.D
    np.testing.assert_allclose(gain, _dc_gain_by_finite_differences(sim, op, list(base), outputs, base, guess),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("kind, stored", [
    # kT/(what stores x²/2): the SOC's charge Np·Qnom against the OCV's slope Ns·OCVmax·f' =
    # 3·(4 − 3) V per unit SOC: ⟨δSOC²⟩ = kT/(Np·Qnom·3 V); the RC capacitors C_k = Np·C/Ns.
    ("cell", {"bat.SOC": 2 * 3600.0 * 3.0}),
    ("rc", {"bat.SOC": 2 * 3600.0 * 3.0, "bat.v_rc1": 2 * 500.0 / 3, "bat.v_rc2": 2 * 5000.0 / 3}),
    ("supercap", {"bat.v_C": 100.0}),
])
def test_battery_noise_gives_equipartition(kind, stored):
    # Every resistance and conductance at 293.15 K (the batteries' T_ref, and the load
    # resistor's noise taken at it too): each state holds kT/(its capacitance).
    sim = battery_circuit(kind, Idis=0.01).compile()
    state = "bat.v_C" if kind == "supercap" else "bat.SOC"
    op = sim.operating_point(x_guess={state: 11.0 if kind == "supercap" else 0.6})
    kT = BOLTZMANN * 293.15
    for name, capacitance in stored.items():
        assert sim.noise(name, at=op, T=293.15).variance == pytest.approx(kT / capacitance, rel=1e-9, abs=0), name


def test_cell_rc_stack_and_supercap_fmu_agrees_with_simulate(tmp_path):
    # Both on one 12-V source through 0.5 Ω each, from SOC 0.5 (11 V rest) and 6 V: 60 s.
    fmpy = pytest.importorskip("fmpy")
    m = battery_circuit("rc", V=12.0, Idis=0.01)
    cap = m.add(SuperCap("cap", Vnom=12.0, V0=6.0, C=100.0, Rs=0.01, Idis=0.12))
    resistor = m.add(Resistor("Rcap", R=0.5))
    m.connect(m["V"].p, resistor.p)
    m.connect(resistor.n, cap.p)
    m.connect(cap.n, m["g"].p)
    sim = m.compile()
    signals = ["bat.SOC", "bat.v_rc1", "bat.v_rc2", "cap.v_C", "bat.lossPower", "cap.lossPower"]
    path = sim.export_fmu(tmp_path / "batteries", outputs=signals)
    fmu = fmpy.simulate_fmu(str(path), stop_time=60.0, relative_tolerance=1e-10, solver="CVode",
                            output=signals, output_interval=0.5)
    res = sim.simulate(60.0, t_eval=fmu["time"], rtol=1e-10, atol=1e-12)
    for s in signals:
        assert np.max(np.abs(fmu[s] - res[s])) <= 1e-6 * max(np.ptp(res[s]), 1e-9), s


def test_akima_table_passes_its_points_with_a_continuous_slope():
    # The MSL's ContinuousDerivative: through every point, C1 at the knots, held beyond.
    import sympy as sp
    from physlib.core.tables import akima
    points = ((0.0, 0.5), (0.1, 0.7), (0.3, 0.75), (0.6, 0.9), (1.0, 1.0))
    u = sp.Symbol("u")
    f = sp.lambdify(u, akima(points, u))
    assert [f(x) for x, _ in points] == pytest.approx([y for _, y in points], abs=1e-15)
    for x, _ in points[1:-1]:
        assert (f(x + 1e-7) - f(x)) / 1e-7 == pytest.approx((f(x) - f(x - 1e-7)) / 1e-7, rel=1e-5)
    assert f(-1.0) == 0.5 and f(2.0) == 1.0
