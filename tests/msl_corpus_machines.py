"""The MSL examples of issue [catalog]'s DC machines and thermal parts (group B of the corpus,
and the group-A examples that waited for them), built from physlib's catalog with the MSL's
instance names; tests/msl_corpus.py collects this module's EXAMPLES (see its docstring for
the conventions) and tests/test_msl_corpus.py runs them in MAP-LIB's tube."""
from __future__ import annotations

import math

import numpy as np

from physlib import Model
from physlib.components import rotational as rot
from physlib.components.electrical import (Capacitor, CCCVcharger, CellStack, ChopperStepDown, CurrentSensor, DC_ElectricalExcited,
                                           DC_PermanentMagnet, DC_SeriesExcited, Ground, HBridge, Inductor,
                                           Resistor, VoltageSensor, VoltageSource)
from physlib.components.signals import (Exponentials, Gain, Integrator, Limiter, Product, Ramp, SignalPWM,
                                        Step, ZeroOrderHold)
from physlib.components.thermal import PrescribedTemperature

from msl_corpus import Example, quadratic_speed_dependent_torque

T_LOAD = 63.66      # N·m: the examples' nominal load torque
J_LOAD = 0.15       # kg·m²: their load inertia

ALPHA20_COPPER = 3.92e-3     # 1/K: Modelica.Electrical.Machines.Thermal.Constants.alpha20Copper


def dcpm_temperature() -> Model:
    """Machines.Examples.DCMachines.DCPM_Temperature: a DC permanent-magnet motor
    (DcPermanentMagnetData with copper armature, alpha20a = 3.92e-3 1/K, TaNominal = TaRef =
    353.15 K: ViNominal = 95 V) on 100 V runs at no-load speed 1500 rpm (w0 = 157.08 rad/s, ia
    = 0, angles 0) with the load inertia (0.15 kg·m²); a load step of −63.66 N·m at 0.1 s,
    when the armature temperature starts rising from 293.15 K towards 353.15 K as
    293.15 + 60·(1 − exp(−(t − 0.1)/0.5)) (the MSL's Exponentials, its fall at 3600.1 s after
    the run). The MSL's ThermalAmbientDCPM with temperature inputs is a PrescribedTemperature
    on the machine's heat port (the permanent magnet's temperature, 293.15 K, has no effect)."""
    m = Model("DCPM_Temperature")
    ground = m.add(Ground("groundArmature"))
    supply = m.add(VoltageSource("armatureVoltage", V=100.0))
    dcpm = m.add(DC_PermanentMagnet("dcpm", alpha20a=ALPHA20_COPPER, TaNominal=353.15, TaRef=353.15,
                                    use_heat_port=True, w0=1500 * 2 * math.pi / 60))
    load = m.add(rot.Inertia("loadInertia", J=J_LOAD, w0=1500 * 2 * math.pi / 60))
    torque = m.add(rot.Torque("loadTorque", tau=Step(height=-T_LOAD, t0=0.1)))
    armature = m.add(PrescribedTemperature("thermalAmbientDCPM", T=Exponentials(
        amplitude=60.0, offset=293.15, t_rise=0.1, tau_rise=0.5, t_fall=3600.1, tau_fall=0.5)))
    m.connect(supply.p, dcpm.pin_ap)
    m.connect(supply.n, dcpm.pin_an, ground.p)
    m.connect(dcpm.flange, load.flange_a)
    m.connect(load.flange_b, torque.flange)
    m.connect(dcpm.heat_port, armature.port)
    return m


def dcee_start() -> Model:
    """Machines.Examples.DCMachines.DCEE_Start: a DC machine with separate excitation
    (DcElectricalExcitedData: 100 V, 100 A, 1425 rpm, Ra 0.05 Ω, La 1.5 mH, Jr 0.15 kg·m²,
    IeNominal 1 A, Re 100 Ω, Le 1 H; no losses) with 100 V on its field from t = 0, its
    armature voltage ramping 0 → 100 V from 0.2 s over 0.8 s, drives the load inertia
    (0.15 kg·m²); a load step of −63.66 N·m at 1.5 s. All currents, speeds and angles 0."""
    m = Model("DCEE_Start")
    ground, ground_excitation = m.add(Ground("ground")), m.add(Ground("groundExcitation"))
    armature = m.add(VoltageSource("signalVoltage", V=Ramp(height=100.0, duration=0.8, t0=0.2)))
    field = m.add(VoltageSource("constantVoltage", V=100.0))
    dcee = m.add(DC_ElectricalExcited("dcee"))
    load = m.add(rot.Inertia("loadInertia", J=J_LOAD))
    torque = m.add(rot.Torque("loadTorqueStep", tau=Step(height=-T_LOAD, t0=1.5)))
    m.connect(armature.p, dcee.pin_ap)
    m.connect(armature.n, dcee.pin_an, ground.p)
    m.connect(field.p, dcee.pin_ep)
    m.connect(field.n, dcee.pin_en, ground_excitation.p)
    m.connect(dcee.flange, load.flange_a)
    m.connect(load.flange_b, torque.flange)
    return m


def dcse_start() -> Model:
    """Machines.Examples.DCMachines.DCSE_Start: a series-excited DC machine
    (DcSeriesExcitedData: 100 V, 100 A, 1410 rpm, Ra 0.05 Ω, La 1.5 mH, Re 0.01 Ω, Le 0.5 mH;
    no losses), its field in series after the armature (pin_an to pin_ep), on 100 V through a
    series resistor falling 1 → 0 Ω from 0.1 s over 0.9 s, drives the load inertia
    (0.15 kg·m²) against a quadratic load torque (−63.66 N·m at 1410 rpm). All at rest.

    The MSL's VariableResistor (R = the ramp) is a current sensor, a product R·i and a
    voltage source, v = R·i: the same element. QuadraticSpeedDependentTorque has
    TorqueDirection = false: w·w is its signed square while the load turns forward (checked)."""
    m = Model("DCSE_Start")
    ground = m.add(Ground("ground"))
    supply = m.add(VoltageSource("constantVoltage", V=100.0))
    current = m.add(CurrentSensor("variableResistor_i"))
    drop = m.add(Product("variableResistor_Ri", u1=Ramp(height=-1.0, duration=0.9, offset=1.0, t0=0.1)))
    resistor = m.add(VoltageSource("variableResistor"))
    dcse = m.add(DC_SeriesExcited("dcse"))
    load = m.add(rot.Inertia("loadInertia", J=J_LOAD))
    m.connect(supply.p, current.p)
    m.connect(current.n, resistor.p)
    m.connect(current.i, drop.u2)
    m.connect(drop.y, resistor.V)
    m.connect(resistor.n, dcse.pin_ap)
    m.connect(dcse.pin_an, dcse.pin_ep)
    m.connect(dcse.pin_en, supply.n, ground.p)
    m.connect(dcse.flange, load.flange_a)
    m.connect(load.flange_b, quadratic_speed_dependent_torque(m, "quadraticLoadTorque", -T_LOAD,
                                                               1410 * 2 * math.pi / 60))
    return m


def chopper_step_down(load_inductance: float | None) -> Model:
    """PowerConverters.Examples.DCDC.ChopperStepDown_R (``load_inductance`` None) and _RL
    (0.025 H): a step-down chopper on 60 V feeds, through L = 25 mH (i = 0 at the start), a
    capacitor C = 20 µF (starting at V0 = 12 V) with the load R = V0/ILoad = 12/1.2 = 10 Ω
    across it (in series with the load inductor, i = 0 at the start, for _RL). The reference
    voltage ramps 0 → 12 V from 0.025 s over 0.05 s; the adaptor (Voltage2DutyCycle, unipolar,
    VLim = 60 V) makes it the duty cycle v/60, which the MSL's SignalPWM limits to [0, 1],
    samples every 1 ms from t = 0 (ZeroOrderHold) and compares with a 1 kHz sawtooth: fire
    while the held duty exceeds it."""
    m = Model("ChopperStepDown_RL" if load_inductance else "ChopperStepDown_R")
    ground = m.add(Ground("ground"))
    supply = m.add(VoltageSource("constantVoltage", V=60.0))
    adaptor = m.add(Gain("adaptor", k=1 / 60.0, u=Ramp(height=12.0, duration=0.05, t0=0.025)))
    limiter = m.add(Limiter("signalPWM_limiter", u_max=1.0, u_min=0.0))
    hold = m.add(ZeroOrderHold("signalPWM_zeroOrderHold", Ts=1e-3))
    pwm = m.add(SignalPWM("signalPWM", f=1000.0))
    chopper = m.add(ChopperStepDown("chopperStepDown"))
    inductor = m.add(Inductor("inductor", L=25e-3))
    capacitor = m.add(Capacitor("capacitor", C=20e-6, v0=12.0))
    load = m.add(Resistor("loadResistor", R=10.0))
    current = m.add(CurrentSensor("currentSensor"))
    m.connect(adaptor.y, limiter.u)
    m.connect(limiter.y, hold.u)
    m.connect(hold.y, pwm.duty)
    m.connect(pwm.y, chopper.fire_p)
    m.connect(supply.p, chopper.dc_p1)
    m.connect(supply.n, chopper.dc_n1, ground.p)
    m.connect(chopper.dc_p2, inductor.p)
    m.connect(inductor.n, capacitor.p, load.p)
    if load_inductance:
        load_inductor = m.add(Inductor("loadInductor", L=load_inductance))
        m.connect(load.n, load_inductor.p)
        m.connect(load_inductor.n, current.p)
    else:
        m.connect(load.n, current.p)
    m.connect(current.n, capacitor.n, chopper.dc_n2)
    return m


def hbridge(load_inductance: float | None) -> Model:
    """PowerConverters.Examples.DCDC.HBridge_R (``load_inductance`` None) and _RL (1 H): an H
    bridge on 100 V, fired by a 1 kHz PWM of constant duty 0.6 (fire_p; fire_n its inverse,
    the MSL's notFire: a second SignalPWM of the same duty and carrier with output 1 − fire),
    feeds R = 100 Ω (in series with L = 1 H, i = 0 at the start, for _RL) between its side-2
    pins."""
    m = Model("HBridge_RL" if load_inductance else "HBridge_R")
    ground = m.add(Ground("ground"))
    supply = m.add(VoltageSource("constantVoltage", V=100.0))
    fire = m.add(SignalPWM("signalPWM", f=1000.0, duty=0.6))
    not_fire = m.add(SignalPWM("signalPWM_notFire", f=1000.0, duty=0.6, amplitude=-1.0, offset=1.0))
    bridge = m.add(HBridge("hbridge"))
    resistor = m.add(Resistor("resistor", R=100.0))
    current = m.add(CurrentSensor("currentSensor"))
    m.connect(fire.y, bridge.fire_p)
    m.connect(not_fire.y, bridge.fire_n)
    m.connect(supply.p, bridge.dc_p1)
    m.connect(supply.n, bridge.dc_n1, ground.p)
    m.connect(bridge.dc_p2, resistor.p)
    if load_inductance:
        inductor = m.add(Inductor("inductor", L=load_inductance))
        m.connect(resistor.n, inductor.p)
        m.connect(inductor.n, current.p)
    else:
        m.connect(resistor.n, current.p)
    m.connect(current.n, bridge.dc_n2)
    return m


# Batteries.ParameterRecords.ExampleData's OCV/OCVmax over SOC (Akima spline in the MSL)
EXAMPLE_OCV_SOC = ((0.00, 0.595), (0.01, 0.656), (0.02, 0.688), (0.03, 0.714), (0.04, 0.737), (0.05, 0.744),
                   (0.06, 0.750), (0.07, 0.754), (0.08, 0.756), (0.09, 0.758), (0.10, 0.761), (0.15, 0.774),
                   (0.20, 0.786), (0.25, 0.795), (0.30, 0.804), (0.35, 0.811), (0.40, 0.818), (0.45, 0.826),
                   (0.50, 0.835), (0.55, 0.843), (0.60, 0.855), (0.65, 0.871), (0.70, 0.888), (0.75, 0.905),
                   (0.80, 0.926), (0.85, 0.943), (0.90, 0.964), (0.95, 0.980), (1.00, 1.00))


def cccv_cell() -> Model:
    """Batteries.Examples.CCCV_Cell: a cell (ExampleData: OCVmax 4.2 V, OCV over SOC the table
    above as an Akima spline, Qnom = 18000 A·s = 5 A·h, Ri = OCVmax/Isc = 4.2/1200 Ω, Idis =
    1 mA) at SOC = 0.1 is charged by a CC-CV charger (25 A = 5C, ramped up over 60 s, until
    4.2 V, then 4.2 V), for 1200 s. energy.y integrates the power into the cell (the
    MultiSensor's v·i: a voltage sensor, the charger's current, a product).

    The MSL's BatteryStacksWithSensors.Cell wraps the CellStack (``cell.cell``, its SOC
    ``limIntegrator.y``) and integrates the pin current itself in a LimIntegrator
    (``cell.limIntegrator.y``, the pin current over Qnom from 0.1, clipped at 1 − 1e-9): here
    a plain integrator, the same while it stays below the clip (checked: it may pass it by at
    most 1.8e-4, a tenth of the tube; it ends 5e-5 above it)."""
    m = Model("CCCV_Cell")
    ground = m.add(Ground("ground"))
    charger = m.add(CCCVcharger("cccvCharger", I=25.0, Vend=4.2))
    current = m.add(CurrentSensor("multiSensor"))
    voltage = m.add(VoltageSensor("multiSensor_v"))
    power = m.add(Product("multiSensor_power"))
    energy = m.add(Integrator("energy"))
    charge = m.add(Integrator("cell_limIntegrator", k=1 / 18000.0, y0=0.1))
    cell = m.add(CellStack("cell", Qnom=18000.0, OCVmax=4.2, OCVmin=2.5, OCV_SOC=EXAMPLE_OCV_SOC,
                           smoothness="akima", Ri=4.2 / 1200, Idis=0.001, SOC0=0.1))
    m.connect(charger.p, current.p)
    m.connect(current.n, cell.p, voltage.p)
    m.connect(cell.n, charger.n, voltage.n, ground.p)
    m.connect(current.i, power.u1, charge.u)
    m.connect(voltage.v, power.u2)
    m.connect(power.y, energy.u)
    return m


MEAN = ("the MSL's Mean block (the mean over each 1-ms period, and its integral x): physlib has "
        "no Mean block (issue [catalog]'s Blocks item)")


FORWARD = ("the load turns forward (w >= 0), where w·w is the MSL's signed square",
           lambda res: bool(np.min(res["loadInertia.w"]) >= 0.0))

EXAMPLES = [
    Example("DCPM_Temperature", "Modelica.Electrical.Machines.Examples.DCMachines.DCPM_Temperature",
            dcpm_temperature, 3.0, 1e-7, signals={"dcpm.la.i": "dcpm.i_la"}),
    Example("DCEE_Start", "Modelica.Electrical.Machines.Examples.DCMachines.DCEE_Start",
            dcee_start, 2.0, 1e-7, signals={"dcee.la.i": "dcee.i_la", "dcee.airGapDC.psi_e": "dcee.psi_e"}),
    Example("DCSE_Start", "Modelica.Electrical.Machines.Examples.DCMachines.DCSE_Start",
            dcse_start, 2.0, 1e-7, signals={"dcse.la.i": "dcse.i_la"}, premises=(FORWARD,)),
    Example("ChopperStepDown_R",
            "Modelica.Electrical.PowerConverters.Examples.DCDC.ChopperStepDown.ChopperStepDown_R",
            lambda: chopper_step_down(None), 0.1, 1e-7,
            not_compared={f"{m}.{x}": MEAN for m in ("meanCurrent", "meanVoltage") for x in "xy"}),
    Example("ChopperStepDown_RL",
            "Modelica.Electrical.PowerConverters.Examples.DCDC.ChopperStepDown.ChopperStepDown_RL",
            lambda: chopper_step_down(0.025), 0.1, 1e-7,
            not_compared={f"{m}.{x}": MEAN for m in ("meanCurrent", "meanVoltage") for x in "xy"}),
    Example("HBridge_R", "Modelica.Electrical.PowerConverters.Examples.DCDC.HBridge.HBridge_R",
            lambda: hbridge(None), 0.1, 1e-7, not_compared={f"{m}.y": MEAN for m in ("meanCurrent", "meanVoltage")}),
    Example("HBridge_RL", "Modelica.Electrical.PowerConverters.Examples.DCDC.HBridge.HBridge_RL",
            lambda: hbridge(1.0), 0.1, 1e-7, not_compared={f"{m}.y": MEAN for m in ("meanCurrent", "meanVoltage")}),
    Example("CCCV_Cell", "Modelica.Electrical.Batteries.Examples.CCCV_Cell", cccv_cell, 1200.0, 1e-7,
            signals={"cell.cell.limIntegrator.y": "cell.SOC", "cell.limIntegrator.y": "cell_limIntegrator.y"},
            premises=(("the pin current's integral passes the MSL's clip at 1 − 1e-9 by at most 1.8e-4",
                       lambda res: bool(np.max(res["cell_limIntegrator.y"]) < 1 - 1e-9 + 1.8e-4)),)),
]
