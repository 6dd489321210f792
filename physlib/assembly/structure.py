"""Structural analysis on sparse incidence matrices: matching and block-lower-triangular order.

Equations are rows and unknowns columns of a sparse incidence matrix. A perfect matching
assigns each equation the unknown it determines; the strongly connected components of the
resulting dependency graph are the blocks that must be solved together, in dependency order.
When no perfect matching exists, the Dulmage–Mendelsohn reachability sets name the equations
that over-determine, or the unknowns left undetermined.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import StructuralError
from .ir import BlockOrder
from .matching import block_order, dulmage_mendelsohn, maximum_matching
from .sparse import CSR


def match_and_order(incidence: CSR, preferred, describe_eq, describe_var, match=None) -> BlockOrder:
    """Match equations to unknowns (trying the edges of ``preferred()`` first) unless ``match``
    is one already, and order the blocks."""
    n_eq, n_var = incidence.shape
    if n_eq != n_var:
        diagnose(incidence, describe_eq, describe_var)
    if match is None:
        match = maximum_matching(preferred())
    if np.any(match < 0):
        match = maximum_matching(incidence)
        if np.any(match < 0):
            diagnose(incidence, describe_eq, describe_var)

    # Equation e depends on equation f when e contains the unknown f is solved for.
    owner = np.empty(n_var, dtype=np.int64)
    owner[match] = np.arange(n_eq)
    rows, dep = incidence.row_of_entries(), owner[incidence.indices]
    keep = dep != rows
    labels, n_blocks = block_order(CSR.from_entries(rows[keep], dep[keep], (n_eq, n_eq)))
    return BlockOrder(match, labels, n_blocks)


def diagnose(incidence: CSR, describe_eq, describe_var):
    """Raise a StructuralError naming the over-determined equations or undetermined unknowns:
    the parts of the Dulmage–Mendelsohn decomposition, the equations and unknowns reachable
    from an unmatched equation (or unknown) by alternating paths."""
    over_eqs, over_vars, under_vars, under_eqs = dulmage_mendelsohn(incidence)
    if len(over_eqs):
        eqs = over_eqs.tolist()
        raise StructuralError(
            "the system is over-determined: these equations constrain the same unknowns "
            f"({_names(over_vars.tolist(), describe_var)}) more than once:\n  "
            + "\n  ".join(describe_eq(e) for e in eqs[:12])
            + ("\n  ..." if len(eqs) > 12 else "")
            + "\n(e.g. two ideal voltage sources in parallel, or a current source in series with "
            "another; remove one or put a resistance between them)")
    raise StructuralError(
        "the system is under-determined: nothing fixes "
        f"{_names(under_vars.tolist(), describe_var)}"
        + (f" (equations involved: {'; '.join(describe_eq(e) for e in under_eqs.tolist()[:6])})"
           if len(under_eqs) else "")
        + ". Is a component missing a connection to a reference (Fixed, Ground, a source)?")


def _names(ids, describe_var, limit=12):
    names = [describe_var(i) for i in ids[:limit]]
    return ", ".join(names) + (", ..." if len(ids) > limit else "")
