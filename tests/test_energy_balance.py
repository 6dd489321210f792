"""Energy bookkeeping from the components' stored-energy and dissipation declarations."""
import numpy as np
from scipy.integrate import simpson

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor, VoltageSource
from physlib.components.signals import Sine


def test_source_energy_equals_stored_plus_dissipated():
    # Source → R1 → node a; L1 from a to ground; C1 + R2 from a to ground; C2 across R1.
    m = Model("rlc_net")
    src = m.add(VoltageSource("src", V=Sine(amplitude=3.0, f=120.0, offset=1.0)))
    r1, r2 = m.add(Resistor("R1", R=50.0)), m.add(Resistor("R2", R=20.0))
    l1 = m.add(Inductor("L1", L=0.2, i0=0.05))
    c1, c2 = m.add(Capacitor("C1", C=20e-6, v0=0.5)), m.add(Capacitor("C2", C=1e-6))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r1.p, c2.p)
    m.connect(r1.n, c2.n, l1.p, c1.p)
    m.connect(c1.n, r2.p)
    m.connect(l1.n, r2.n, src.n, gnd.p)
    t = np.linspace(0.0, 0.05, 20001)
    res = m.compile().simulate(0.05, t_eval=t, rtol=1e-11, atol=1e-13)

    delivered = -res["src.v"] * res["src.i"]      # i flows into the source's p pin
    source_energy = simpson(delivered, x=t)
    losses = simpson(res.dissipated_power(), x=t)
    stored = res.stored_energy()
    # Each side is O(0.1 J); Simpson on 20,001 points and rtol 1e-11 put the quadrature and
    # solver errors near 1e-10 relative, so 1e-6 checks the declarations, not the numerics.
    assert abs(source_energy - (stored[-1] - stored[0] + losses)) < 1e-6 * abs(source_energy)
    assert set(res.model.system.energy_owner) == {"L1", "C1", "C2"}
    assert set(res.model.system.dissipation_owner) == {"R1", "R2"}
    np.testing.assert_allclose(res.stored_energy("C1"), 0.5 * 20e-6 * res["C1.v"] ** 2, rtol=1e-12)
    np.testing.assert_allclose(res.dissipated_power("R1"), res["R1.v"] ** 2 / 50.0, rtol=1e-12)
