"""The options of :func:`~physlib.analysis.linear.linearize.linearize`, checked before any work:
a truthy string as ``descriptor``, a ``t`` or ``times`` that the chosen operating point would
leave unused, and inputs or outputs that are no list of paths are errors naming the option."""
from __future__ import annotations

import numpy as np

from ...core.errors import PhyslibError
from ..common.options import OptionError
from .analysis_points import AnalysisPoint


def path_list(name, paths) -> list:
    """``inputs`` or ``outputs`` as a list; one path (or analysis point) alone is a list of one."""
    if isinstance(paths, (str, AnalysisPoint)):
        return [paths]
    try:
        return list(paths)
    except TypeError:
        raise OptionError(f"linearize: {name} must be a list of paths, e.g. ['src.V'] or ['C1.v'], "
                          f"got {paths!r:.60}") from None


def descriptor_option(descriptor):
    """``descriptor``: True, False or "auto" (a string such as "yes", or 1, was truthy: the
    descriptor form without being asked for)."""
    if not (isinstance(descriptor, (bool, np.bool_)) or isinstance(descriptor, str) and descriptor == "auto"):
        raise OptionError(f"linearize: descriptor must be True, False or 'auto', got {descriptor!r}")
    return descriptor if isinstance(descriptor, str) else bool(descriptor)


def is_result(at) -> bool:
    """Whether ``at`` is a simulation result (it has ``at(t)``), told apart by behaviour so that
    linearization does not import the simulation package above it."""
    return callable(getattr(at, "at", None))


def refuse_steady_state_options(at, params, t, times) -> None:
    """Options of the default steady state given with an explicit ``at``, which would go unused."""
    if params is not None:
        raise PhyslibError("params= applies to the default steady state only; the operating point "
                           "given as `at` already has its parameters")
    if t != 0.0:
        raise OptionError(f"linearize: t= ({t:g} s) applies to the default steady state only; the "
                          "operating point given as `at` has its own time (a result: times=[...]): leave t out")
    if times is not None and not is_result(at):
        raise OptionError("linearize: times= picks points along a simulation result given as at=res; "
                          "with at= an operating point it has no use: leave it out")
