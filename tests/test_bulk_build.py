"""physlib.core.bulk.bulk_build: the cyclic garbage collector paused while a large model is
built, what was built promoted to its oldest generation, and the collector left as it was."""
import gc

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
