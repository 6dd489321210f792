"""Run the .control decks of this folder in ngspice-39 (batch mode) and write their references.

    cd tests/data/spice/control && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments). Two kinds of reference per deck:

* ``<deck>_print.csv``: the deck run as it is (``ngspice -b deck.cir``, the whole script in one
  process: its loops carry state from one analysis to the next) and every line its
  ``print`` and ``echo`` commands wrote, in order: ``name,value`` (``value.im`` too for a
  complex value; ``echo`` rows have the text as the name and no value). The decks print
  one-point vectors only, with ``set numdgt=15``.
* ``<deck>_<kind>.csv``, for a deck whose script prints nothing, for each analysis command
  of the script outside its loops and conditions (``ac``, ``tran``, …): the deck without its ``.control`` block, that command
  alone in its own ngspice process (ngspice-39 can return wrong DC-sweep points after another
  analysis in the same run), every vector written by ``wrdata`` — the work of
  ``tests/data/spice/reader/make_references.py``, reused. A comment ``*OPTIONS kind
  name=value ...`` in the deck adds ``.options name=value ...`` to that analysis' run (tighter
  tolerances where ngspice's defaults leave its result further from its own converged one
  than the test's tolerance; the deck says why).

Needs ngspice-39 on the PATH; the tests never run it.
"""
import csv
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

COMMAND = re.compile(r"^\s*(op|dc|ac|tran|noise|pz)\b(.*)$", re.I)
BLOCKS = ("foreach", "if", "while", "repeat", "dowhile")
OPTIONS = re.compile(r"^\*OPTIONS\s+(\w+)\s+(.+)$")
PRINTED = re.compile(r"^(\S+) = ([-+0-9.eE]+|nan|-?inf)(?:,\s*([-+0-9.eE]+))?$")


def printed_rows(deck: pathlib.Path, script: list[str]) -> list[list[str]]:
    """(name, value[, imaginary part]) of each line the deck's print and echo wrote."""
    done = subprocess.run(["ngspice", "-b", deck.name], cwd=HERE, capture_output=True,
                          text=True)
    # ngspice -b fails on 'plot' (no graphics in batch mode), which changes no result
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if re.search(r"error|warning", line, re.I) and "PrinterOnly" not in line]
    if problems:
        sys.exit(f"ngspice failed on {deck.name}:\n{done.stdout}\n{done.stderr}")
    echoed = [line.split(None, 1)[1].replace('"', "").strip() for line in script
              if line.strip().lower().startswith("echo ")]
    rows = []
    for line in done.stdout.splitlines():
        line = line.strip()
        match = PRINTED.match(line)
        if match:
            rows.append([match.group(1)] + [g for g in match.groups()[1:] if g is not None])
        elif line in echoed:
            rows.append([line])
    return rows


def run(deck: pathlib.Path):
    lines = deck.read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.strip().lower() == ".control")
    end = next(k for k, line in enumerate(lines) if line.strip().lower() == ".endc")
    script, body = lines[start + 1:end], lines[:start] + lines[end + 1:]
    options = {m.group(1).lower(): m.group(2) for line in lines if (m := OPTIONS.match(line))}
    rows = printed_rows(deck, script)
    if rows:
        with open(HERE / f"{deck.stem}_print.csv", "w", newline="") as handle:
            csv.writer(handle).writerows([["name", "value", "value.im"]] + rows)
        print(f"{deck.name}: {len(rows)} printed lines -> {deck.stem}_print.csv")
    depth, seen = 0, {}
    for line in script:
        word = (line.split() or [""])[0].lower()
        depth += word in BLOCKS
        depth -= word == "end"
        match = COMMAND.match(line)
        if match and depth == 0 and not rows:
            kind = match.group(1).lower()
            seen[kind] = seen.get(kind, 0) + 1
            suffix = kind if seen[kind] == 1 else f"{kind}{seen[kind]}"
            extra = [f".options {options[kind]}"] if kind in options else []
            references.analysis(deck, body[:1] + extra + body[1:],
                                kind, match.group(2), suffix)


def main(names: list[str]):
    references.HERE = HERE           # the reader's helpers write into this folder
    version = subprocess.run(["ngspice", "-v"], capture_output=True, text=True).stdout
    if "ngspice-39" not in version:
        sys.exit(f"these references are ngspice-39's; found: {version.strip()}")
    for deck in [HERE / name for name in names] or sorted(HERE.glob("*.cir")):
        if not deck.name.startswith("_"):
            run(deck)


if __name__ == "__main__":
    main(sys.argv[1:])
