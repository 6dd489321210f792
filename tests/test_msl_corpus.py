"""The Modelica Standard Library corpus: each example of tests/msl_corpus.py, simulated at the
experiment settings MAP-LIB used, against MAP-LIB's reference result in tests/data/msl/.

The pass rule is MAP-LIB's own: every comparison signal of the example (its
comparisonSignals.txt) stays in the CSV-compare tube of relative width 2e-3 around the
reference (tests/reference.py), except the signals the example lists as not compared, each
with the reason physlib has no counterpart. That tube is what the Modelica Association accepts
between two tools; physlib runs at the reference's own tolerance (the experiment's Tolerance,
1e-6 to 1e-8), whose integration error is far inside it.
"""
import numpy as np
import pytest

from msl_corpus import EXAMPLES
from reference import REFERENCE, load_msl, reference_file, tube_usage


def comparison_signals(name: str) -> list[str]:
    """The signals MAP-LIB compares for ``name``: comparisonSignals.txt without ``time``."""
    lines = reference_file("msl", name, "comparisonSignals.txt").read_text().split()
    return [s for s in lines if s != "time"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_stays_in_the_msl_tube(example):
    ref = load_msl(example.name)
    signals = comparison_signals(example.name)
    assert not (set(example.signals) | set(example.not_compared)) - set(signals), \
        "the example maps or excludes a signal MAP-LIB does not compare"
    compared = [s for s in signals if s not in example.not_compared]
    t_ref = ref["time"]
    # The experiment's tolerance as rtol; atol 1e-9 is far inside the narrowest tube of a
    # signal that moves (7.5e-7 rad, PID_Controller's spring.phi_rel). The signals of
    # InitialConditions' chain at rest are exactly 0 in both (a tube of 2e-15).
    res = example.build().compile().simulate(example.stop_time, t_eval=np.unique(t_ref),
                                             rtol=example.tolerance, atol=1e-9)
    for claim, holds in example.premises:
        assert holds(res), f"{example.msl_class}: the stand-in needs that {claim}"
    failures = []
    for name in compared:
        y = np.interp(t_ref, res.t, example.physlib_signal(res, name))
        usage = tube_usage(t_ref, ref[name], y)
        worst = int(np.argmax(usage))
        if usage[worst] > 1:
            failures.append(f"{name}: {np.count_nonzero(usage > 1)} of {len(t_ref)} points "
                            f"outside the tube; worst at t = {t_ref[worst]}: {y[worst]} vs "
                            f"{ref[name][worst]}, {usage[worst]:.3g} half-widths beyond the "
                            "reference's envelope")
    assert not failures, f"{example.msl_class}:\n" + "\n".join(failures)


def test_every_reference_folder_belongs_to_an_example():
    # A folder no example reads is data nobody checks; an example without one fails above.
    folders = {p.name for p in (REFERENCE / "msl").iterdir() if p.is_dir()}
    assert folders == {e.name for e in EXAMPLES}
