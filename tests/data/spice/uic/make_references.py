"""Run the uic decks of this folder in ngspice-39 (batch mode) and write their reference CSVs.

    cd tests/data/spice/uic && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments). The work is that of
``tests/data/spice/reader/make_references.py``, reused here with this folder as its home:
each analysis card runs alone in its own ngspice process and becomes ``<deck>_<kind>.csv``.
ngspice-39 ignores ``interp`` in a ``uic`` transient of the BJT deck and writes every step
(40 000 rows at tmax 0.1 ps): a table longer than ``KEEP`` rows keeps its first
``START_ROWS`` rows (the start-up) and then every k-th row and the last, ngspice's own values
at its own times, ``KEEP`` rows or fewer. Needs ngspice-39 on the PATH; the tests never run it.
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

KEEP, START_ROWS = 500, 20


def thin(path: pathlib.Path):
    """Keep ``path``'s first START_ROWS rows, every k-th row after them and its last row."""
    header, *rows = path.read_text().splitlines()
    if len(rows) <= KEEP:
        return
    step = -(-(len(rows) - START_ROWS) // (KEEP - START_ROWS - 1))
    kept = rows[:START_ROWS] + rows[START_ROWS:-1:step] + rows[-1:]
    path.write_text("\n".join([header, *kept]) + "\n")


if __name__ == "__main__":
    references.main(HERE, sys.argv[1:])
    for table in sorted(HERE.glob("*_tran.csv")):
        thin(table)
