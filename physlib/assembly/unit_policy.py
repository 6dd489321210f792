"""What ``Model.compile(units=...)`` does with the unit problems found in the equations of
the classes it compiles (found once per class where its equations are derived, by
:mod:`physlib.assembly.unit_check`, and cached with the class template: nothing to check
again here, and no SymPy)."""
from __future__ import annotations

import warnings

from ..core.errors import ParameterError, UnitCheckError
from ..core.units import UnitWarning

POLICIES = ("warn", "strict", "off")


def check_policy(units) -> None:
    """A :class:`ParameterError` for a ``units=`` that is none of :data:`POLICIES`."""
    if units not in POLICIES:
        raise ParameterError(f"compile(units={units!r}): give one of {', '.join(map(repr, POLICIES))}")


def report(groups, policy: str) -> None:
    """Act on the unit problems of the compiled classes (``groups`` of instances, each with its
    class template): ``"warn"`` (a :class:`UnitWarning` each), ``"strict"`` (a
    :class:`UnitCheckError` listing them all) or ``"off"``."""
    if policy == "off":
        return
    problems = list(dict.fromkeys(p for group in groups for p in group.template.unit_issues))
    if not problems:
        return
    if policy == "strict":
        raise UnitCheckError("the units of these equations disagree (compile(units='warn') goes on with "
                             "warnings):\n  " + "\n  ".join(problems))
    for problem in problems:
        warnings.warn(UnitWarning(problem), stacklevel=4)
