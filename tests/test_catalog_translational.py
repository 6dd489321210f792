"""Issue [catalog]'s translational classes (Brake, SupportFriction, MassWithStopAndFriction,
ElastoGap, Vehicle, the force and motion sources, EddyCurrentForce, heat ports on the dissipative
parts): closed forms, linearization against finite differences, thermal noise against
equipartition, and the part of the MSL's HeatLosses example its reference can check.

All classes sit in one model, :func:`catalog_model`, which tests/test_export_fmu_differential.py
also exports as an FMU and runs in FMPy against ``simulate`` (one FMU for the whole area).
"""
from functools import cache

import numpy as np
import pytest

import msl_corpus  # noqa: F401  (msl_corpus_translational imports its Example from it)
import msl_corpus_translational as corpus
from physlib import Model
from physlib.analysis.noise import BOLTZMANN
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.signals import Ramp, Sine
from physlib.components.thermal import FixedTemperature, HeatCapacitor
from reference import reference_file, tube_usage


def catalog_model() -> Model:
    """Every new translational class in one model: the MSL's HeatLosses chain (Brake,
    SupportFriction, MassWithStopAndFriction hitting its stop at 0.43 s, ElastoGap, Damper and
    SpringDampers, all with heat ports), a Vehicle in a gusting wind on a slope with its
    rolling resistance from an input and its wheels driven, each force source braking a mass,
    Accelerate and Position driving masses, and an eddy current brake heating a capacitor."""
    m = corpus.heat_losses()
    fixed = m.add(tr.Fixed("ground"))
    car = m.add(tr.Vehicle("vehicle", m=1200.0, J=2.3, R=0.31, A=2.2, Cd=0.31, v0=10.0,
                           useWindInput=True, vWind=Sine(amplitude=3.0, f=2.0, offset=-2.0),
                           vWind_start=-2.0, useCrInput=True, cr=0.013,
                           useInclinationInput=True, inclination=Sine(amplitude=0.05, f=1.0)))
    drive = m.add(rot.Torque("drive", tau=Ramp(height=300.0, duration=0.2, t0=0.1)))
    m.connect(drive.flange, car.flangeR)
    loads = [tr.ConstantForce("constant", f_constant=-3.0),
             tr.LinearSpeedDependentForce("linear", f_nominal=-2.0, v_nominal=1.0, ForceDirection=False),
             tr.QuadraticSpeedDependentForce("quadratic", f_nominal=-2.0, v_nominal=1.0, ForceDirection=False),
             tr.InverseSpeedDependentForce("inverse", f_nominal=-1.0, v_nominal=1.0, v0=0.5, ForceDirection=False),
             tr.SignForce("sign", f_nominal=-1.0, v0=0.2, reg="sine"),
             tr.EddyCurrentForce("eddy", f_nominal=5.0, v_nominal=1.0, alpha20=3.92e-3, use_heat_port=True,
                                 excitation=Ramp(height=1.0, duration=0.1, t0=0.05))]
    for load in loads:
        mass = m.add(tr.Mass(f"{load.name}_mass", m=1.0, v0=2.0))
        m.connect(mass.flange_b, m.add(load).flange)
    m.connect(loads[-1].heat_port, m.add(HeatCapacitor("fin", C=0.5, T0=293.15)).port)
    accelerate = m.add(tr.Accelerate("accelerate", a_ref=Sine(amplitude=2.0, f=2.0), v_start=0.5))
    position = m.add(tr.Position("position", s_ref=Sine(amplitude=0.1, f=3.0), f_crit=20.0))
    for source in (accelerate, position):
        mass = m.add(tr.Mass(f"{source.name}_mass", m=1.0, v0=source.v_start if source is accelerate else 0.0))
        spring = m.add(tr.Spring(f"{source.name}_spring", c=50.0))
        m.connect(source.flange, mass.flange_a)
        m.connect(mass.flange_b, spring.flange_a)
        m.connect(spring.flange_b, fixed.flange)
    return m
