"""Run the decks of this folder in ngspice-39 (batch mode) and write their references.

    cd tests/data/spice/analyses && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments). Each analysis card runs alone, as a
``.control`` command of a copy of the deck without its analysis cards, in its own ngspice
process (ngspice-39 can return wrong DC-sweep points after another analysis in the same
run), with ``set numdgt=15``:

* ``.dc`` (one or two sources, or TEMP): ``<deck>_dc.csv`` (``_dc2``, … for later cards), the
  work of ``tests/data/spice/reader/make_references.py``, reused: the scale, then every node
  voltage and source current, one row per point (a nested sweep's inner sweeps one after the
  other);
* ``.tf`` and ``.sens``: ``<deck>_tf.csv`` (``_tf2``, …), ``<deck>_sens.csv``: a row of the
  vectors ``print all`` gives, under their names;
* ``.four freq vectors``: the deck's ``.tran`` card, then ``fourier freq vectors`` (the
  command ngspice runs for the card): ``<deck>_four.csv``, a row per vector and harmonic
  (vector, harmonic, frequency, magnitude, phase, norm_magnitude, norm_phase, thd [%]) as
  printed.

Needs ngspice-39 on the PATH; the tests never run it.
"""
import csv
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

CARD = re.compile(r"^\s*\.(dc|tf|sens|tran|four(?:ier)?)\b(.*)$", re.I)
FOURIER = re.compile(r"^Fourier analysis for (\S+):")
THD = re.compile(r"THD:\s*([-+0-9.eE]+)\s*%")
HARMONIC = re.compile(r"^\s*(\d+)\s+" + r"\s+".join([r"([-+0-9.eE]+)"] * 5) + r"\s*$")


def fourier_rows(stdout: str) -> list[list[str]]:
    """(vector, harmonic, frequency, magnitude, phase, norm. magnitude, norm. phase, THD) of
    each harmonic line of ngspice's fourier tables."""
    rows, vector, thd = [], None, None
    for line in stdout.splitlines():
        if match := FOURIER.match(line.strip()):
            vector = match.group(1).lower()
        elif (match := THD.search(line)) and vector:
            thd = match.group(1)
        elif (match := HARMONIC.match(line)) and vector:
            rows.append([vector, *match.groups(), thd])
    return rows


def check_points(path: pathlib.Path, card: str):
    """Stop when ngspice gave fewer points than the card asks for (it stops a sweep at a
    point where it does not converge, and writes the points before it)."""
    words = card.split()
    numbers = [float(w.lower().replace("u", "e-6").replace("m", "e-3")) for k, w in
               enumerate(words) if k % 4]          # the suffixes these decks use
    count = 1
    for start, stop, step in zip(numbers[0::3], numbers[1::3], numbers[2::3]):
        count *= int((stop - start) / step + 1e-9) + 1
    with open(path) as handle:
        rows = sum(1 for _ in handle) - 1
    if rows != count:
        sys.exit(f"{path.name}: ngspice gave {rows} of the {count} points of .dc{card}")


def run(deck: pathlib.Path):
    lines = deck.read_text().splitlines()
    cards = [(k, m) for k, line in enumerate(lines) if (m := CARD.match(line))]
    body = [line for k, line in enumerate(lines) if k not in {k for k, _ in cards}]
    tran = next((m.group(2) for _, m in cards if m.group(1).lower() == "tran"), None)
    seen = {}
    for _, match in cards:
        kind = match.group(1).lower()
        kind = "four" if kind.startswith("four") else kind
        seen[kind] = seen.get(kind, 0) + 1
        suffix = kind if seen[kind] == 1 else f"{kind}{seen[kind]}"
        if kind == "dc":
            references.analysis(deck, body, kind, match.group(2), suffix)
            check_points(HERE / f"{deck.stem}_{suffix}.csv", match.group(2))
        elif kind in ("tf", "sens"):
            stdout = references.ngspice(deck, body, suffix, [f"{kind}{match.group(2)}",
                                                            "print all"])
            references.write_table(HERE / f"{deck.stem}_{suffix}.csv",
                                   references.printed(stdout))
            print(f"{deck.name}: {kind} -> {deck.stem}_{suffix}.csv")
        elif kind == "four":
            stdout = references.ngspice(deck, body, suffix, [f"tran{tran}",
                                                            f"fourier{match.group(2)}"])
            rows = fourier_rows(stdout)
            if not rows:
                sys.exit(f"ngspice printed no fourier table for {deck.name}:\n{stdout}")
            with open(HERE / f"{deck.stem}_{suffix}.csv", "w", newline="") as handle:
                csv.writer(handle).writerows([["vector", "harmonic", "frequency", "magnitude",
                                               "phase", "norm_magnitude", "norm_phase",
                                               "thd"]] + rows)
            print(f"{deck.name}: four -> {deck.stem}_{suffix}.csv")


if __name__ == "__main__":
    references.main.__globals__["HERE"] = HERE      # the reader's helpers write here
    references.HERE = HERE
    for path in [HERE / name for name in sys.argv[1:]] or sorted(HERE.glob("*.cir")):
        if not path.name.startswith("_"):
            run(path)
