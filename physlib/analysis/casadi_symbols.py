"""CasADi symbols for the arguments (x, z, p, t) of a compiled model's functions.

Every function of the compiled system — the DAE, its outputs, guards, constraints — takes the
states x, the algebraic variables z, the parameters p and the time t. Analyses that build
functions of their own on top of these (Jacobians, residuals of a steady state, single output
rows) start from symbols of the same sizes, named ``"x"``, ``"z"``, ``"p"`` and ``"t"``.
"""
from __future__ import annotations

import casadi as cs


def dae_symbols(system, kind=cs.SX) -> list:
    """[x, z, p, t]: symbols of ``kind`` (``casadi.SX`` or ``casadi.MX``) sized like the
    arguments of ``system.dae``."""
    return [kind.sym(name, system.dae.size1_in(i)) for i, name in enumerate("xzpt")]
