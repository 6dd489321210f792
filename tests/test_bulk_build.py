"""physlib.core.bulk.bulk_build: the cyclic garbage collector paused while a large model is
built, what was built promoted to its oldest generation, and the collector left as it was."""
import gc
import json
import pathlib
import subprocess
import sys

import physlib.spice
from physlib.core.bulk import bulk_build

DECK = "t\nV1 a 0 DC 1\n" + "".join(f"R{k} a 0 1k\n" for k in range(1, 200)) + ".op\n.end\n"


def test_the_build_promotes_what_it_made_and_restores_the_collector():
    assert gc.isenabled()
    gc.collect()
    with bulk_build():
        assert not gc.isenabled()
        with bulk_build():                      # nested: the outer build promotes
            assert not gc.isenabled()
        made = [[k] for k in range(1000)]       # tracked containers, young
    assert gc.isenabled()
    # promoted to the oldest generation: a young collection no longer looks at them
    assert not any(obj is made for obj in gc.get_objects(generation=0))
    assert any(obj is made for obj in gc.get_objects(generation=2))


def test_reading_and_compiling_leave_a_paused_collector_paused():
    gc.disable()
    try:
        physlib.spice.read(DECK).compile()
        assert not gc.isenabled()
    finally:
        gc.enable()
    physlib.spice.read(DECK).compile()
    assert gc.isenabled()


def test_models_read_and_dropped_one_after_another_are_freed():
    # A model and its components refer to each other, so a dropped one waits for a full
    # collection, which Python never scheduled for promoted objects: the tracked objects grew
    # by a deck's worth at every read (16 decks: 16 decks' worth). The builds keep Python's
    # rule for them: a full collection once they promoted more than the last one left, so the
    # garbage stays below what the process keeps (``base``) plus a deck or two. In a fresh
    # process, as a user's script: in a test worker that holds millions of objects the rule
    # needs a hundred reads to fire (40 s).
    result = subprocess.run([sys.executable, "-c", READ_AND_DROP], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    base, one, counts = json.loads(result.stdout)
    # a 2,000-element deck leaves garbage in cycles (its builder, bindings and cards): about
    # 1,700 tracked objects with a fresh template cache, 4,200 with a filled one (each card was
    # two objects before a card became its own location)
    assert one > 1_000
    assert max(counts) < base + 2 * one, (base, one, counts)
    assert any(later < earlier - one for earlier, later in zip(counts, counts[1:])), counts


READ_AND_DROP = """
import gc, json
import physlib.spice

def tracked():
    gc.freeze()
    count = gc.get_freeze_count()
    gc.unfreeze()
    return count

deck = "t\\nV1 n0 0 DC 1\\n" + "".join(f"R{k} n{k - 1} n{k} 1k\\nC{k} n{k} 0 1n\\n"
                                    for k in range(1, 1001)) + ".op\\n.end\\n"
# the process's caches (modules, templates) filled; twice, as a fresh template cache derives the
# classes in the first read with SymPy, whose garbage the second read's collection frees
physlib.spice.read(deck).compile()
physlib.spice.read(deck).compile()
gc.collect()
base = tracked()
physlib.spice.read(deck).compile()
one = tracked() - base                  # a dropped deck's objects, not collected yet
counts = []
for _ in range(base // one + 3):        # the rule collects once a process's worth was promoted
    physlib.spice.read(deck).compile()
    counts.append(tracked() - base)
print(json.dumps([base, one, counts]))
"""


def test_compiled_and_built_models_hold_no_reference_cycles():
    # Why a compile starts no full collection (bulk_build(collect=False)): what it makes is
    # freed by reference counting once dropped, leaving the collector nothing to find. In a
    # fresh process: a test worker's other tests leave their own garbage (dask's, say).
    result = subprocess.run([sys.executable, "-c", DROP_COMPILED], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [0, 0]


DROP_COMPILED = f"""
import gc, json, sys
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
from test_results import rc_ladder as ladder

ladder(30).compile().simulate(1.0)     # the process's caches: class templates, modules
gc.collect()
model = ladder(30)
found = []
del model
found.append(gc.collect())             # a built model
model = ladder(30)
sim = model.compile()
sim.simulate(1.0)
del sim, model
found.append(gc.collect())             # a compiled and simulated one
print(json.dumps(found))
"""


def test_compiling_a_deck_just_read_starts_no_full_collection():
    # A full collection after reading a million-element deck traversed it for 2.7 s and found
    # nothing; the reads that follow a dropped deck are where garbage waits.
    result = subprocess.run([sys.executable, "-c", COMPILE_AFTER_READ], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    full_collections = json.loads(result.stdout)
    # The dropped deck's garbage waits for Python's rule (a full collection once more was
    # promoted than a quarter of what the process keeps: the next read or a later one, see
    # the test above).
    assert full_collections["read"] == 0 and full_collections["compile"] == 0, full_collections
    assert full_collections["next read"] <= 1, full_collections


COMPILE_AFTER_READ = """
import gc, json
import physlib.spice

deck = "t\\nV1 n0 0 DC 1\\n" + "".join(f"R{k} n{k - 1} n{k} 1k\\nC{k} n{k} 0 1n\\n"
                                    for k in range(1, 3001)) + ".op\\n.end\\n"
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None)
counts = {}
read = physlib.spice.read(deck)
counts["read"] = len(full)
read.compile()
counts["compile"] = len(full) - counts["read"]
del read
physlib.spice.read(deck)              # the dropped deck's cycles: collected here
counts["next read"] = len(full) - counts["read"] - counts["compile"]
print(json.dumps(counts))
"""


def test_a_large_model_built_in_python_starts_no_full_collection():
    # Model.add in the user's loop, outside any bulk build: a large netlist promotes what was
    # made every PROMOTE_EVERY members, so the objects that live as long as the model never
    # trigger the full collections Python schedules as its oldest generation grows (ten of
    # them, 1.1 s, building a million-element ladder). Without the promotion the same build
    # starts some; a model dropped afterwards is still freed at once (no cycles).
    result = subprocess.run([sys.executable, "-c", BUILD_IN_PYTHON], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    counts = json.loads(result.stdout)
    assert counts["promoted"] == 0 and counts["not promoted"] >= 1 and counts["freed"], counts


BUILD_IN_PYTHON = f"""
import gc, json, sys, weakref
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
from physlib.core import bulk
from physlib.assembly import netlist
from test_results import rc_ladder as ladder

full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None)
counts = {{}}
for label, start in (("promoted", 8192), ("not promoted", 10**9)):
    netlist.PROMOTE_FROM = start
    gc.collect()
    before = len(full)
    model = ladder(60_000)
    counts[label] = len(full) - before
    alive = weakref.ref(model)
    del model
    counts["freed"] = counts.get("freed", True) and alive() is None
print(json.dumps(counts))
"""


def test_the_exit_collections_skip_what_is_alive_at_exit():
    # Python's collections as it exits traversed every live object of a script that compiled
    # and simulated a small model: 30-40 ms of a 0.3 s process. The exit hook freezes them
    # first; a hook registered before physlib's import runs after physlib's (last in, first
    # out) and sees them frozen.
    result = subprocess.run([sys.executable, "-c", EXIT_FREEZE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    frozen, alive = json.loads(result.stdout)
    assert frozen > 0.9 * alive > 10_000, (frozen, alive)


EXIT_FREEZE = """
import atexit, gc, json
atexit.register(lambda: print(json.dumps([gc.get_freeze_count(), ALIVE])))
from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
m = Model("rc")
v, r, c, g = (m.add(x) for x in (VoltageSource("V", V=1.0), Resistor("R", R=1e3),
                                   Capacitor("C", C=1e-6), Ground("g")))
m.connect(v.p, r.p); m.connect(r.n, c.p); m.connect(v.n, c.n, g.p)
m.compile().simulate(1e-3)
ALIVE = len(gc.get_objects())
"""


IMPORTS = """
import gc, json, sys
enabled = gc.isenabled()
{setup}
imported = gc.get_stats()[0]["collections"]
import physlib
from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
m = Model("rc")
v, r, c, g = (m.add(x) for x in (VoltageSource("V1", V=1.0), Resistor("R1", R=1e3),
                                  Capacitor("C1", C=1e-6), Ground("gnd")))
m.connect(v.p, r.p); m.connect(r.n, c.p); m.connect(c.n, v.n, g.p)
collections = gc.get_stats()[0]["collections"]
m.compile().simulate(1e-3)
print(json.dumps({{"enabled": gc.isenabled(), "before": enabled,
                  "on_import": collections - imported,
                  "collections": gc.get_stats()[0]["collections"] - collections}}))
"""


def test_importing_physlib_and_its_compiler_leaves_no_collections_to_run():
    # Modules live as long as the process: collecting over them on import (NumPy's, CasADi's,
    # physlib's) ran some 60 collections, 6 ms of a small script. What they made goes to the
    # oldest generation untraversed; the collector stays on.
    out = json.loads(subprocess.run([sys.executable, "-c", IMPORTS.format(setup="")], capture_output=True,
                                    text=True, check=True).stdout)
    assert out["enabled"] and out["before"]
    assert out["on_import"] <= 3                # 37 over NumPy's and physlib's modules
    assert out["collections"] <= 5              # 26, most over the compiler's and simulator's


def test_a_collector_the_user_paused_stays_paused_through_the_imports():
    out = json.loads(subprocess.run([sys.executable, "-c", IMPORTS.format(setup="gc.disable()")],
                                    capture_output=True, text=True, check=True).stdout)
    assert not out["enabled"] and out["collections"] == 0
