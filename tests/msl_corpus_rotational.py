"""The Modelica Standard Library's rotational examples of issue 36's catalog (group B): the
lossy gear, bearing friction, rolling wheel, eddy-current brake and the ModelicaTest
rotational sources, rebuilt from physlib's components with the MSL's instance names (see
msl_corpus.py for how examples are described and compared)."""
from __future__ import annotations

from physlib import Model
from physlib.components import rotational as rot
from physlib.components.signals import Ramp, Sine

from msl_corpus import Example


def lossy_gear_demo(with_bearing_friction: bool) -> Model:
    """Rotational.Examples.LossyGearDemo1 (``with_bearing_friction``: LossyGearDemo2).

    A sine torque (10 N·m, 1 Hz) drives Inertia1 (1 kg·m²) through a LossyGear (ratio 2,
    lossTable [0, 0.5, 0.5, 0, 0]: mesh efficiency 0.5 both ways, no bearing friction) to
    Inertia2 (1.5 kg·m²), loaded by a torque ramping from −10 to −5 N·m over 2 s. Everything at
    rest. LossyGearDemo2 puts a BearingFriction (tau_pos [0, 0.5; 1, 1]) between the sine
    source and Inertia1. The gear, the sources and the bearing have their housings on
    ``fixed``."""
    m = Model("LossyGearDemo2" if with_bearing_friction else "LossyGearDemo1")
    gear = m.add(rot.LossyGear("gear", ratio=2.0, lossTable=[(0, 0.5, 0.5, 0, 0)], use_support=True))
    inertia1 = m.add(rot.Inertia("Inertia1", J=1.0))
    inertia2 = m.add(rot.Inertia("Inertia2", J=1.5))
    torque1 = m.add(rot.Torque("torque1", tau=Sine(amplitude=10.0, f=1.0), use_support=True))
    torque2 = m.add(rot.Torque("torque2", tau=Ramp(height=5.0, duration=2.0, offset=-10.0),
                               use_support=True))
    fixed = m.add(rot.Fixed("fixed"))
    m.connect(inertia1.flange_b, gear.flange_a)
    m.connect(gear.flange_b, inertia2.flange_a)
    m.connect(torque2.flange, inertia2.flange_b)
    housings = [fixed.flange, gear.support, torque1.support, torque2.support]
    if with_bearing_friction:
        bearing = m.add(rot.BearingFriction("bearingFriction", tau_pos=[(0, 0.5), (1, 1)],
                                            use_support=True))
        m.connect(torque1.flange, bearing.flange_a)
        m.connect(bearing.flange_b, inertia1.flange_a)
        housings.append(bearing.support)
    else:
        m.connect(torque1.flange, inertia1.flange_a)
    m.connect(*housings)
    return m


EXAMPLES = [
    Example("LossyGearDemo1", "Modelica.Mechanics.Rotational.Examples.LossyGearDemo1",
            lambda: lossy_gear_demo(False), 0.5, 1e-6),
    Example("LossyGearDemo2", "Modelica.Mechanics.Rotational.Examples.LossyGearDemo2",
            lambda: lossy_gear_demo(True), 0.5, 1e-6),
]
