"""Run the coupled-inductor decks (K) of this folder in ngspice-39 (batch mode) and write their reference CSVs.

    cd tests/data/spice/coupled && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments), with ``tests/data/spice/reader/make_references.py``
doing the work (each analysis card alone in its own ngspice process; ``*SWEEP`` runs each .dc
once per value; ``.noise`` also writes ``<deck>_noise_total.csv``). Needs ngspice-39 on the
PATH; the tests never run it.
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

if __name__ == "__main__":
    references.main(HERE, sys.argv[1:])
