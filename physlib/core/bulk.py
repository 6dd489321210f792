"""Building a large model without the cyclic garbage collector in the way."""
from __future__ import annotations

import atexit
import gc
import importlib
import importlib.util
import sys
from contextlib import contextmanager

# Python schedules a full collection when the objects that reached its oldest generation since
# the last one outnumber a quarter of those it kept then; objects promoted here bypass that
# count, so the same rule is kept here, with the whole count instead of a quarter (collections
# cost time, and the garbage of a dropped model is freed at most one model later).
_promoted = 0           # objects the builds promoted since the last full collection
_survivors = None       # tracked objects after the last full collection (None: not counted yet)

# As the interpreter exits it runs full collections over every object still alive: 30-40 ms of
# a 0.3 s script that compiles and simulates a small model (CasADi's and physlib's modules, the
# model, its functions), a tenth of the process. Nothing is left to collect that matters then:
# the process's memory goes back with it, and Python does not promise to finalize the objects
# alive at exit. Frozen objects are skipped by those collections; weakref.finalize callbacks
# and other exit hooks still run.
atexit.register(gc.freeze)


@contextmanager
def bulk_build(collect: bool = True):
    """Pause Python's cyclic garbage collector while a large model is built, then promote what
    was built to the collector's oldest generation.

    Reading or compiling a 10,000-element circuit makes a few hundred thousand small objects
    (cards, components, names, equations) that live as long as the model. The collector,
    triggered by their number, would traverse the whole heap several times during the build,
    and after it every young collection would traverse them again until they reach the oldest
    generation: 20–250 ms a collection on a 10,000-element deck, against a compile of 130 ms.
    ``gc.freeze()`` then ``gc.unfreeze()`` moves every tracked object into the oldest
    generation at once, without traversing it.

    A model refers to its components and they to it, so a model the user drops is freed by a
    full collection, and Python would never schedule one for these objects (they never pass
    through its younger generations, where it counts them): reading and dropping one
    10,000-element deck after another grew the process by 100 MB a deck. So a build first runs
    a full collection when the builds since the last one promoted more objects than it left
    (see ``_promoted``). Nested builds promote once, at the outermost. Counting the tracked
    objects walks the whole heap (6 ms after importing physlib's compiler and simulator), so it
    waits until a build has promoted something: a script that builds one model never pays it.

    ``collect=False``: a build whose products hold no reference cycles (a compile: a dropped
    compiled model is freed at once) leaves that collection to the next build that may find
    garbage (reading a deck, whose structures refer to each other); its objects still count.
    Otherwise compiling a deck just read would traverse the whole deck for nothing, 2.7 s for
    a million elements."""
    global _promoted, _survivors
    if not gc.isenabled():          # paused already (an outer build, or the user's choice)
        yield
        return
    if _survivors is None and _promoted:
        _survivors = _tracked() - _promoted     # what the process held before its first build
    if collect and _survivors is not None and _promoted > _survivors:
        gc.collect()
        _promoted, _survivors = 0, _tracked()
    gc.disable()
    try:
        yield
    finally:
        _promoted += gc.get_count()[0]      # tracked objects made since the last collection
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def promote_young() -> None:
    """Move the objects made since the collector last ran into its oldest generation, without
    traversing them, as :func:`bulk_build` does at its end; nothing while the collector is
    paused.

    A model built in Python (``Model.add`` and ``connect`` in the user's own loop) makes
    millions of objects that live as long as the model, outside any bulk build. Python runs
    a full collection, which traverses the whole heap, each time the objects that reached
    its oldest generation grow by a quarter: ten of them, 1.1 s of the 6.2 s a
    million-element ladder took to build. ``Netlist.add`` calls this every PROMOTE_EVERY
    members of a large netlist (from PROMOTE_FROM): what is promoted here bypasses that
    count, as bulk builds' products do, and counts toward the collection a later bulk build
    runs (see ``_promoted``). The members of a dropped model are freed when it is (a
    component refers to its model through a weak reference: no cycle waits for the
    collector)."""
    global _promoted
    if gc.isenabled():
        _promoted += gc.get_count()[0]
        gc.freeze()
        gc.unfreeze()


def import_lasting(name: str, package: str | None = None):
    """``importlib.import_module(name, package)``; where the module is not loaded yet, with the
    collector paused while it loads and what it made moved to the collector's oldest generation
    without traversing it (as :func:`bulk_build` does): a module's functions, classes and
    tables live as long as the process and are never garbage. Importing the compiler and the
    simulator (CasADi's module among them) ran 23 young collections over such objects, 2 ms of
    a small compile-and-simulate script. ``import physlib`` does the same in the package's
    ``__init__``, before this module can be imported."""
    module = sys.modules.get(importlib.util.resolve_name(name, package))
    if module is not None or not gc.isenabled():
        return module or importlib.import_module(name, package)
    gc.disable()
    try:
        return importlib.import_module(name, package)
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()


PROMOTE_FROM = 8192     # members of a netlist from which its additions promote (promote_young)
PROMOTE_EVERY = 1024    # ... every so many members


def _tracked() -> int:
    """The number of objects the collector tracks (counted while they are frozen: no copy)."""
    gc.freeze()
    count = gc.get_freeze_count()
    gc.unfreeze()
    return count
