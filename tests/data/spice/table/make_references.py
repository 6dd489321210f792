"""Run the TABLE deck of this folder in ngspice-39 (batch mode) and write its reference CSVs.

    cd tests/data/spice/table && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments). The work is that of
``tests/data/spice/reader/make_references.py``, reused here with this folder as its home: each
analysis card runs alone in its own ngspice process and becomes ``<deck>_<kind>.csv``.
ngspice-39 turns each TABLE source into a B source, an XSPICE ``pwl`` code model and a linear
E or G between internal nodes (``e1_int1``, ``e1_int2``), whose vectors also land in the
tables; the tests compare the deck's own nodes and V sources. Needs ngspice-39 on the PATH;
the tests never run it.
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

if __name__ == "__main__":
    references.main(HERE, sys.argv[1:])
