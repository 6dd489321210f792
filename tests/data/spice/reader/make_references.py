"""Run every deck of this folder in ngspice (batch mode) and write its reference CSVs.

    cd tests/data/spice/reader && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments).

For each analysis card of a deck (``.op``, ``.dc``, ``.tran``, ``.ac``) ngspice runs a copy
of the deck with only that card, as a ``.control`` command, in its own process (ngspice-39
can return wrong DC-sweep points after another analysis in the same run). ``wrdata`` writes
every vector with 15 significant digits; this script turns the table into
``<deck>_<kind>.csv`` (``_dc2`` for a deck's second .dc card): the scale column (none for
.op), then ``v(node)`` and ``i(vname)`` (ngspice's ``vname#branch``), complex vectors as
``v(node).re`` and ``v(node).im``. Needs ngspice-39 on the PATH; the tests never run it.
"""
import csv
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ANALYSIS = re.compile(r"^\s*\.(op|dc|tran|ac)\b(.*)$", re.I)
CONTROL = """.control
set wr_singlescale
set wr_vecnames
option numdgt=15
{command}
wrdata {out} all
quit 0
.endc
"""


def vector_name(name: str) -> str:
    if name.endswith("#branch"):
        return f"i({name[:-len('#branch')]})"
    return f"v({name})"


def convert(dat: pathlib.Path, csv_path: pathlib.Path, scale: bool):
    lines = dat.read_text().split("\n")
    header = lines[0].split()
    rows = [[float(x) for x in line.split()] for line in lines[1:] if line.strip()]
    # With wr_singlescale the first column is the scale; an .op table has none, and its
    # first vector then stands in that column and again after it.
    columns, k = ([(header[0], 0)] if scale else []), 1
    names = []
    while k < len(header):
        name = header[k]
        pair = k + 1 < len(header) and header[k + 1] == name
        if not (scale and name == header[0]):      # .ac lists its scale again
            if pair:
                names += [(vector_name(name) + ".re", k), (vector_name(name) + ".im", k + 1)]
            else:
                names.append((vector_name(name), k))
        k += 2 if pair else 1
    columns += sorted(names)
    with open(csv_path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([name for name, _ in columns])
        for row in rows:
            writer.writerow([repr(row[index]) for _, index in columns])


def run(deck: pathlib.Path):
    lines = deck.read_text().splitlines()
    cards = [(k, m) for k, line in enumerate(lines) if (m := ANALYSIS.match(line))]
    body = [line for k, line in enumerate(lines) if k not in {c[0] for c in cards}]
    end = next(k for k, line in enumerate(body) if line.strip().lower() == ".end")
    seen = {}
    for _, match in cards:
        kind = match.group(1).lower()
        seen[kind] = seen.get(kind, 0) + 1
        suffix = kind if seen[kind] == 1 else f"{kind}{seen[kind]}"
        dat = HERE / f"_{deck.stem}_{suffix}.dat"
        control = CONTROL.format(command=f"{kind}{match.group(2)}", out=dat.name)
        temp = HERE / f"_{deck.stem}_{suffix}.cir"
        temp.write_text("\n".join(body[:end] + [control] + body[end:]) + "\n")
        done = subprocess.run(["ngspice", "-b", temp.name], cwd=HERE, capture_output=True, text=True)
        if done.returncode or not dat.exists():
            sys.exit(f"ngspice failed on {deck.name} ({kind}):\n{done.stdout}\n{done.stderr}")
        convert(dat, HERE / f"{deck.stem}_{suffix}.csv", scale=kind != "op")
        dat.unlink()
        temp.unlink()
        print(f"{deck.name}: {kind} -> {deck.stem}_{suffix}.csv")


if __name__ == "__main__":
    version = subprocess.run(["ngspice", "-v"], capture_output=True, text=True).stdout
    if "ngspice-39" not in version:
        sys.exit(f"these references are ngspice-39's; found: {version.strip()}")
    decks = [HERE / name for name in sys.argv[1:]] or sorted(HERE.glob("*.cir"))
    for deck in decks:
        if not deck.name.startswith("_"):
            run(deck)
