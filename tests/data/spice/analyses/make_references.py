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
* A ``.temp`` card with several temperatures (ngspice-39 warns and runs at 27 °C): each
  ``.op`` and ``.dc`` card once per temperature, the card replaced by ``.temp t``, into
  ``<deck>_<kind>_temp<k>.csv`` (k counting the card's values from 0).
* A comment ``*DIFF name temp step`` or ``*DIFF name model param step`` in a deck with
  ``.sens`` cards: the central difference of each .sens output over ±step of the circuit
  temperature (``.temp``, from 27 °C) or of a .model parameter, from two ``op`` runs, into
  ``<deck>_sens_diff.csv`` (name, output, derivative): where ngspice-39's own .sens is off
  (it lists 0 for a diode's RS, and a diode's ``_temp`` sensitivity 8 times the derivative).

Needs ngspice-39 on the PATH; the tests never run it.
"""
import csv
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reader"))
import make_references as references  # noqa: E402

CARD = re.compile(r"^\s*\.(op|dc|tf|sens|tran|four(?:ier)?)\b(.*)$", re.I)
TEMPS = re.compile(r"^\s*\.temp\s+(\S+(?:\s+\S+)+)\s*$", re.I)
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


DIFF = re.compile(r"^\*DIFF\s+(\S+)\s+(temp\s+(\S+)|(\S+)\s+(\S+)\s+(\S+))\s*$", re.I)
SENS = re.compile(r"^\s*\.sens\s+(.+?)\s*$", re.I)


def differences(deck: pathlib.Path, body: list[str], lines: list[str]):
    """The central differences the deck's *DIFF comments ask for (see the module's text)."""
    outputs = [m.group(1).replace(" ", "").lower() for line in lines if (m := SENS.match(line))]
    rows = []
    for line in lines:
        if not (match := DIFF.match(line)):
            continue
        name, values = match.group(1), []
        for sign in (1, -1):
            if match.group(3):
                step = float(match.group(3))
                edited = body[:1] + [f".temp {27 + sign * step!r}"] + body[1:]
            else:
                model, param, step = match.group(4), match.group(5), float(match.group(6))
                pattern = re.compile(rf"(?i)(\b{param}\s*=\s*)([^\s)]+)")

                def shifted(text):
                    if not re.match(rf"(?i)\s*\.model\s+{model}\b", text):
                        return text
                    return pattern.sub(lambda m: m.group(1) + repr(float(m.group(2)) + sign * step),
                                       text)
                edited = [shifted(text) for text in body]
            stdout = references.ngspice(deck, edited, f"diff{sign}",
                                        ["op", *(f"print {o}" for o in outputs)])
            values.append(references.printed(stdout))
        for output in outputs:
            rows.append([name, output,
                         repr((values[0][output] - values[1][output]) / (2 * step))])
    if rows:
        with open(HERE / f"{deck.stem}_sens_diff.csv", "w", newline="") as handle:
            csv.writer(handle).writerows([["name", "output", "derivative"]] + rows)
        print(f"{deck.name}: differences -> {deck.stem}_sens_diff.csv")


def run(deck: pathlib.Path):
    lines = deck.read_text().splitlines()
    temps = [(k, m) for k, line in enumerate(lines) if (m := TEMPS.match(line))]
    if temps:
        line, values = temps[0][0], temps[0][1].group(1).split()
        for k, value in enumerate(values):
            single = lines[:line] + [f".temp {value}"] + lines[line + 1:]
            for _, match in [(j, m) for j, text in enumerate(single) if (m := CARD.match(text))]:
                kind = match.group(1).lower()
                body = [text for text in single if not CARD.match(text)]
                references.analysis(deck, body, kind, match.group(2), f"{kind}_temp{k}")
        return
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
    differences(deck, body, lines)


if __name__ == "__main__":
    references.main.__globals__["HERE"] = HERE      # the reader's helpers write here
    references.HERE = HERE
    for path in [HERE / name for name in sys.argv[1:]] or sorted(HERE.glob("*.cir")):
        if not path.name.startswith("_"):
            run(path)
