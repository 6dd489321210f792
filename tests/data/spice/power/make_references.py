"""Run the power-MOSFET decks of this folder in ngspice-39 (batch mode) and write their reference CSVs.

    cd tests/data/spice/power && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments). The work is that of
``tests/data/spice/reader/make_references.py``, reused here with this folder as its home: each
analysis card runs alone in its own ngspice process and becomes ``<deck>_<kind>.csv``. The
decks set ``.options interp`` (rows on the .tran step grid, interpolated by ngspice from its
own steps), and this script then keeps only the top-level vectors (no subcircuit-internal
``v(x1.9)``, ``i(v.x1.vfi2)``): the switching transients take thousands of steps. Needs
ngspice-39 on the PATH; the tests never run it.
"""
import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402


def top_level_only(path: pathlib.Path) -> None:
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    keep = [k for k, name in enumerate(rows[0]) if "." not in name.partition("(")[2]]
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows([row[k] for k in keep] for row in rows)


if __name__ == "__main__":
    names = sys.argv[1:]
    references.main(HERE, names)
    for deck in [HERE / name for name in names] or sorted(HERE.glob("*.cir")):
        for table in HERE.glob(f"{deck.stem}_*.csv"):
            top_level_only(table)
