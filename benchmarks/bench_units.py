"""Units benchmark: what checking the equations' units and taking quantities cost.

Measured in one run (wall clock, ``time.perf_counter``):

* ``check cold``  the dimension check (``physlib.assembly.unit_check.check``) of every concrete
  catalog class and each of its structural variants (tests/test_units_equations.py's set), with
  the unit-string caches emptied first: the time spent inside the check, not the SymPy work of
  building the equations, which deriving a class does anyway. ``--quick``: the first 12 classes.
* ``check warm``  the checks run while compiling an RC circuit whose class templates are
  derived already (cached in memory, as they are on disk between processes): the check runs
  where equations are derived and its findings are cached with the template, so none.
* ``floats`` / ``quantities``  building N resistors ``Resistor(name, R=value)`` from floats and
  from pint quantities in kOhm (made beforehand: pint's own cost of making a quantity is
  printed apart), best of 3; and their difference. N = 10,000 (1,000 with ``--quick``).

Targets (issue "[units]", acceptance 4): check cold <= 0.5 s; no check warm; quantities cost
<= 0.2 s more than floats at N = 10,000. Correctness: the resistances built from quantities
equal those from floats bit for bit. Printed as PASS/FAIL; the script exits 0 whatever they
say (1 only if a case crashed). Run from the repository root:

    python benchmarks/bench_units.py            # full run (about half a minute: SymPy builds 240 classes)
    python benchmarks/bench_units.py --quick    # a few seconds (run by the tests)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

from benchlib import machine, ms, timed  # noqa: E402

CHECK_TARGET = 0.5          # s, the whole catalog cold
QUANTITY_TARGET = (10000, 0.2)   # (N, s more than floats)


class CheckTimer:
    """Wraps ``unit_check.check`` (derivation calls it through the module) to add up the
    calls and the time spent in them."""

    def __init__(self):
        from physlib.assembly import unit_check
        self.module, self.original = unit_check, unit_check.check
        self.calls, self.seconds = 0, 0.0

    def __enter__(self):
        def check(*args, **kwargs):
            started = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1
        self.module.check = check
        return self

    def __exit__(self, *exc):
        self.module.check = self.original


def check_catalog(quick: bool) -> dict:
    """The catalog's check with the unit-string caches emptied: (calls, seconds in the check,
    seconds in all, SymPy included)."""
    from physlib.assembly import unit_check
    from physlib.core import units
    from test_units_equations import check_class, concrete_classes

    classes = concrete_classes()[:12] if quick else concrete_classes()
    for cached in (units.parse, units.factors, units.divided, units.raised, unit_check._parsed):
        cached.cache_clear()
    started = time.perf_counter()
    with CheckTimer() as timer:
        for cls in classes:
            check_class(cls)
    return {"classes": len(classes), "calls": timer.calls, "check_s": timer.seconds,
            "total_s": time.perf_counter() - started}


def check_warm() -> dict:
    """Checks run by a compile whose templates are cached (after a first compile)."""
    from test_electrical_transients import rc_model

    rc_model().compile()
    with CheckTimer() as timer:
        compile_s, _ = timed(lambda: rc_model().compile())
    return {"calls": timer.calls, "check_s": timer.seconds, "compile_s": compile_s}


def resistors(n: int) -> dict:
    import pint
    from physlib.components.electrical import Resistor

    registry = pint.UnitRegistry()
    names = [f"R{k}" for k in range(n)]
    kilo = [1.0 + k * 1e-3 for k in range(n)]
    floats = [x * 1000.0 for x in kilo]
    make_s, quantities = timed(lambda: [registry.Quantity(x, "kohm") for x in kilo])
    Resistor("warm", R=quantities[0])             # the class's first instance, outside the timing
    float_s, from_floats = timed(lambda: [Resistor(a, R=v) for a, v in zip(names, floats)], 3)
    quantity_s, from_quantities = timed(lambda: [Resistor(a, R=q) for a, q in zip(names, quantities)], 3)
    same = all(a.R == b.R for a, b in zip(from_floats, from_quantities))
    return {"n": n, "float_s": float_s, "quantity_s": quantity_s, "make_s": make_s, "same": same}


def report(catalog, warm, built, quick) -> list[str]:
    print(f"\n== unit check of the catalog ({catalog['classes']} classes, {catalog['calls']} variants), "
          "unit-string caches emptied")
    print(f"check cold        {ms(catalog['check_s']):>8} ms   (building the equations with SymPy: "
          f"{catalog['total_s'] - catalog['check_s']:.2f} s more)")
    print(f"check warm        {ms(warm['check_s']):>8} ms   ({warm['calls']} checks in a compile of "
          f"{ms(warm['compile_s'])} ms with cached templates)")
    n = built["n"]
    print(f"\n== {n} resistors, Resistor(name, R=...)")
    print(f"floats            {ms(built['float_s']):>8} ms")
    print(f"pint quantities   {ms(built['quantity_s']):>8} ms   (+{ms(built['quantity_s'] - built['float_s'])} ms; "
          f"making the {n} quantities with pint: {ms(built['make_s'])} ms more)")
    lines = []

    def add(passed, text):
        lines.append(f"[{'n/a ' if passed is None else 'PASS' if passed else 'FAIL'}] {text}")

    add(None if quick else catalog["check_s"] <= CHECK_TARGET,
        f"checking the whole catalog cold <= {CHECK_TARGET:g} s: {catalog['check_s']:.3f} s"
        + (" (quick: part of the catalog)" if quick else ""))
    add(warm["calls"] == 0, f"no check with cached templates: {warm['calls']} checks")
    limit_n, limit = QUANTITY_TARGET
    extra = built["quantity_s"] - built["float_s"]
    add(None if n != limit_n else extra <= limit,
        f"{limit_n} resistors from quantities <= {limit:g} s more than from floats: {extra:+.3f} s"
        + ("" if n == limit_n else f" (not run: N = {n})"))
    add(built["same"], "resistances from quantities equal those from floats bit for bit")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="12 classes and 1,000 resistors (tests)")
    args = parser.parse_args(argv)
    print(machine())
    failed = 0
    try:
        catalog = check_catalog(args.quick)
        warm = check_warm()
        built = resistors(1000 if args.quick else QUANTITY_TARGET[0])
    except Exception as err:          # a crash is reported, not hidden: exit status 1
        print(f"ERROR {type(err).__name__}: {err}")
        failed = 1
    else:
        lines = report(catalog, warm, built, args.quick)
        print("\ntargets")
        for line in lines:
            print("  " + line)
    print(f"bench_units: done ({failed} case(s) failed to run)")
    return failed


if __name__ == "__main__":
    sys.exit(main())
