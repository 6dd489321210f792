"""Electrical domain: potential v [V], current i [A] (positive into the component)."""
from .base import Domain

electrical = Domain("electrical", "v", "V", "i", "A", needs_reference=True)

CHARGE_NOMINAL = 1e-8
"""The nominal size [C] of a charge state (:class:`~physlib.core.component.Variable`'s
``nominal``): SPICE's charge tolerance relative to its voltage one (chgtol/vntol = 1e-14 C /
1e-6 V), so that the solvers' atol of 1e-8 V holds charges to 1e-16 C. Under the voltages' own
atol a junction's few picocoulombs would be out of the error test altogether: a saturating
NPN's turn-off came out 11 % of the collector swing off."""

CURRENT_NOMINAL = 1e-4
"""The nominal size [A] of an inductor's current state: the solvers' atol of 1e-8 then holds it
to 1e-12 A, SPICE's abstol. Under the volts' own atol a microampere R-L circuit's current came
out 8.6e-3 of its amplitude off the closed form at the default tolerances."""

FLUX_NOMINAL = 1e-8
"""The nominal size [Wb] of a flux state: SPICE tests an inductor's flux against the same
tolerance as a charge (ngspice's INDtrunc calls CKTterr, chgtol, on it). A microhenry at 10 mA
holds 1e-8 Wb: under the volts' atol of 1e-8 its current came out 1.3e-3 of its amplitude off
the closed form."""
