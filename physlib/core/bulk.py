"""Building a large model without the cyclic garbage collector in the way."""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def bulk_build():
    """Pause Python's cyclic garbage collector while a large model is built, then promote what
    was built to the collector's oldest generation.

    Reading or compiling a 10,000-element circuit makes a few hundred thousand small objects
    (cards, components, names, equations) that live as long as the model. The collector,
    triggered by their number, would traverse the whole heap several times during the build,
    and after it every young collection would traverse them again until they reach the oldest
    generation: 20–250 ms a collection on a 10,000-element deck, against a compile of 130 ms.
    ``gc.freeze()`` then ``gc.unfreeze()`` moves every tracked object into the oldest
    generation at once, without traversing it; it is examined at the next full collection,
    as any long-lived object is. Nested builds promote once, at the outermost."""
    if not gc.isenabled():          # paused already (an outer build, or the user's choice)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()
