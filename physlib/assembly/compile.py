"""The compiler driver: from a :class:`Model` to a semi-explicit index-1 DAE as CasADi functions.

The pipeline is a list of passes (:mod:`physlib.assembly.passes`, one module each), each a
function from frozen intermediate forms (:mod:`physlib.assembly.ir`) to a new one:
flatten -> aliases -> incidence -> index reduction -> matching/BLT -> hidden dependencies
(a bounded fixed point over the three before it) -> tearing -> instantiation -> explicit
solutions -> emission. Each pass's time and counts are logged at DEBUG on ``physlib.compile``.
"""
from __future__ import annotations

import time
from contextlib import nullcontext

from ..core.bulk import bulk_build
from ..core.errors import StructuralError
from ..core.logs import DEBUG, logger
from ..core.memory import LARGE, LARGE_MODEL, large_construction, release_free_memory
from .compiled import CompiledModel, DaeSystem
from .flatten import FlatSystem, flatten
from .passes.aliases import find_aliases
from .passes.blt import order_blocks
from .passes.emit import emit
from .passes.explicit import solve_explicit
from .passes.hidden import hidden_dependencies
from .passes.incidence import EquationDescriber, build_equations
from .passes.index_reduction import reduce_equations
from .passes.instantiate import instantiate
from .passes.tear import tear
from .unit_policy import report

log = logger("physlib.compile")

MAX_COMBINATION_ROUNDS = 4  # rounds of finding dependent equations and reducing again


def compile_model(model, cls: type = CompiledModel, units: str = "warn") -> CompiledModel:
    """Compile ``model`` (a :class:`~physlib.assembly.model.Model`) into an instance of ``cls``
    (a :class:`CompiledModel` or a subclass); ``units`` says what to do with the unit problems
    of its classes' equations (see :func:`physlib.assembly.unit_policy.report`)."""
    started = time.perf_counter()
    # Compiling allocates many small objects and frees none of them early: the cyclic garbage
    # collector would only rescan them (about 20% of the time at 10,000 stages). What it makes
    # holds no reference cycles, so it starts no full collection either (bulk_build).
    # A large model's compile reuses the memory its passes free (see large_construction).
    large = model.component_count >= LARGE_MODEL
    with bulk_build(collect=False), large_construction() if large else nullcontext():
        flat = _run("flatten", flatten, model)
        report(flat.groups, units)
        system = build_system(flat)
    if not large and len(system.position_names) >= LARGE:    # the intermediate forms just freed
        release_free_memory()
    log.info("compiled %s in %.3f s", model.name, time.perf_counter() - started)
    return cls(flat, system)


def build_system(flat: FlatSystem) -> DaeSystem:
    """Passes 2-10 on a flat system."""
    aliases = _run("aliases", find_aliases, flat)
    combos: dict = {}
    for _ in range(MAX_COMBINATION_ROUNDS):
        eqs = _run("incidence", build_equations, flat, aliases, combos)
        reduced = _run("index reduction", reduce_equations, flat, aliases, eqs,
                       EquationDescriber(flat, eqs, aliases))
        describe = EquationDescriber(flat, reduced.equations, aliases)
        order = _run("matching/BLT", order_blocks, reduced, describe)
        hidden = _run("hidden dependencies", hidden_dependencies, flat, aliases, reduced, order, combos)
        if not hidden:
            break
        log.info("hidden dependencies: %s", [describe(e) for e in hidden])
        combos = {**combos, **hidden}
    else:
        # Every round found more dependent equations: compiling the last round's system would
        # silently keep dependencies it has not reduced.
        raise StructuralError(
            f"{flat.name}: after {MAX_COMBINATION_ROUNDS} rounds of reduction the equations still "
            "depend on each other numerically (" + "; ".join(describe(e) for e in list(hidden)[:6])
            + "). Ideal elements in parallel or in loops whose dependency needs more rounds: merge "
            "them or add a small series resistance")
    torn = _run("tearing", tear, reduced, order)
    symbolic = _run("instantiation", instantiate, flat, aliases, reduced, torn)
    solved = _run("explicit solutions", solve_explicit, flat, aliases, reduced, order, torn, symbolic)
    return _run("emission", emit, flat, aliases, reduced, order, torn, symbolic, solved, describe)


def _run(name: str, function, *args):
    """``function(*args)``, with its time and the counts of what it returns logged at DEBUG."""
    started, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    if log.isEnabledFor(DEBUG):
        log.debug("%-20s %8.1f ms (cpu %8.1f ms)  %s", name, 1e3 * (time.perf_counter() - started),
                  1e3 * (time.process_time() - cpu), _counts(result))
    return result


def _counts(result) -> str:
    if hasattr(result, "counts"):
        return result.counts()
    if isinstance(result, FlatSystem):
        return (f"{sum(len(g.paths) for g in result.groups)} components in {len(result.groups)} "
                f"classes, {len(result.var_names)} variables, {len(result.param_names)} parameters")
    if isinstance(result, DaeSystem):
        return f"{len(result.state_pos)} states, {len(result.z_pos)} algebraic variables"
    return f"{len(result)} found"
