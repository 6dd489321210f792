"""The Modelica Standard Library's translational examples of issue [catalog]'s group B
(Modelica.Mechanics.Translational.Examples and ModelicaTest.Translational), rebuilt from
physlib's components with the MSL's instance names; ``tests/msl_corpus.py`` collects
``EXAMPLES`` and ``tests/test_msl_corpus.py`` runs them in MAP-LIB's 2e-3 tube."""
from physlib import Model
from physlib.components import translational as tr
from physlib.components.signals import Step

from msl_corpus import MODE_FLAGS, Example


def brake() -> Model:
    """Translational.Examples.Brake: two masses (1 kg, 1 m/s at s = 0) braked from 0.1 s on by a
    Brake (fn_max = 1 N, mu_pos = [0, 0.5], pressed with a step of height 2: fn = 2 N, so 1 N of
    friction), brake's housing fixed inside it, brake1's through its support flange on a Fixed.
    Each mass stops at 1.1 s, 0.6 m on, and stays stuck."""
    m = Model("Brake")
    for brake_name, mass_name, supported in (("brake", "mass1", False), ("brake1", "mass2", True)):
        brake = m.add(tr.Brake(brake_name, fn_max=1.0, use_support=supported,
                               f_normalized=Step(height=2.0, t0=0.1)))
        mass = m.add(tr.Mass(mass_name, m=1.0, v0=1.0))
        m.connect(mass.flange_b, brake.flange_a)
        if supported:
            m.connect(brake.support, m.add(tr.Fixed("fixed")).flange)
    return m


def mode_flags(*names: str) -> dict:
    return {f"{c}.{flag}": MODE_FLAGS for c in names for flag in ("startBackward", "startForward")}


EXAMPLES = [
    Example("Brake", "Modelica.Mechanics.Translational.Examples.Brake", brake, 2.0, 1e-6,
            not_compared=mode_flags("brake", "brake1")),
]
