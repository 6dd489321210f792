"""The MSL examples of issue [catalog]'s DC machines and thermal parts (group B of the corpus,
and the group-A examples that waited for them), built from physlib's catalog with the MSL's
instance names; tests/msl_corpus.py collects this module's EXAMPLES (see its docstring for
the conventions) and tests/test_msl_corpus.py runs them in MAP-LIB's tube."""
from __future__ import annotations

import math

import numpy as np

from physlib import Model
from physlib.components import rotational as rot
from physlib.components.electrical import (CurrentSensor, DC_ElectricalExcited, DC_PermanentMagnet,
                                           DC_SeriesExcited, Ground, VoltageSource)
from physlib.components.signals import Exponentials, Product, Ramp, Step
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


FORWARD = ("the load turns forward (w >= 0), where w·w is the MSL's signed square",
           lambda res: bool(np.min(res["loadInertia.w"]) >= 0.0))

EXAMPLES = [
    Example("DCPM_Temperature", "Modelica.Electrical.Machines.Examples.DCMachines.DCPM_Temperature",
            dcpm_temperature, 3.0, 1e-7, signals={"dcpm.la.i": "dcpm.i_la"}),
    Example("DCEE_Start", "Modelica.Electrical.Machines.Examples.DCMachines.DCEE_Start",
            dcee_start, 2.0, 1e-7, signals={"dcee.la.i": "dcee.i_la", "dcee.airGapDC.psi_e": "dcee.psi_e"}),
    Example("DCSE_Start", "Modelica.Electrical.Machines.Examples.DCMachines.DCSE_Start",
            dcse_start, 2.0, 1e-7, signals={"dcse.la.i": "dcse.i_la"}, premises=(FORWARD,)),
]
