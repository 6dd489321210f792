"""Run every deck of this folder in ngspice (batch mode) and write its reference CSVs.

    cd tests/data/spice/reader && python3 make_references.py [deck.cir ...]

(every deck of the folder without arguments).

For each analysis card of a deck (``.op``, ``.dc``, ``.tran``, ``.ac``, ``.noise``, ``.pz``) ngspice runs a copy
of the deck with only that card, as a ``.control`` command, in its own process (ngspice-39
can return wrong DC-sweep points after another analysis in the same run). ``wrdata`` writes
every vector with 15 significant digits; this script turns the table into
``<deck>_<kind>.csv`` (``_dc2`` for a deck's second .dc card): the scale column (none for
.op), then ``v(node)`` and ``i(vname)`` (ngspice's ``vname#branch``), complex vectors as
``v(node).re`` and ``v(node).im``. Needs ngspice-39 on the PATH; the tests never run it.

``.noise`` writes ``<deck>_noise.csv`` (frequency, ``onoise_spectrum``, ``inoise_spectrum`` and
every source's contribution, V/√Hz or A/√Hz) and ``<deck>_noise_total.csv`` (ngspice's
integrated noise, its ``noise2`` plot); ``.pz`` writes ``<deck>_pz.csv`` (``pole(k)`` and
``zero(k)`` as .re/.im, from the printed values); the deck's ``.meas`` cards run as ``meas``
commands after the first card of their analysis and go to ``<deck>_meas.csv`` (name, value;
``nan`` where ngspice reports the measurement as failed). A comment ``*SWEEP name v1 v2 ...``
also runs each .dc and .ac card once per value, after ``alterparam name=v`` and ``reset``,
into ``<deck>_<kind>_<name><k>.csv``.
"""
import csv
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ANALYSIS = re.compile(r"^\s*\.(op|dc|tran|ac|noise|pz)\b(.*)$", re.I)
MEAS = re.compile(r"^\s*\.meas(?:ure)?\s+(tran|ac|dc)\s+(\S+)(.*)$", re.I)
SWEEP = re.compile(r"^\*SWEEP\s+(\S+)\s+(.+)$")
PRINTED = re.compile(r"^(\S+)\s*=\s*([-+0-9.eE]+|nan)(?:,([-+0-9.eE]+))?\s*$")


def vector_name(name: str) -> str:
    if name.startswith(("onoise", "inoise")):
        return name
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


def ngspice(deck: pathlib.Path, body: list[str], name: str, commands: list[str]) -> str:
    """Run the deck's body with a .control block of ``commands``; ngspice's printed output."""
    end = next(k for k, line in enumerate(body) if line.strip().lower() == ".end")
    control = "\n".join([".control", "set wr_singlescale", "set wr_vecnames",
                          "set numdgt=15", "option numdgt=15", *commands, "quit 0", ".endc"])
    temp = HERE / f"_{deck.stem}_{name}.cir"
    temp.write_text("\n".join(body[:end] + [control] + body[end:]) + "\n")
    done = subprocess.run(["ngspice", "-b", temp.name], cwd=HERE, capture_output=True, text=True)
    temp.unlink()
    if done.returncode:
        sys.exit(f"ngspice failed on {deck.name} ({name}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def printed(text: str) -> dict:
    """{name: value (complex when printed as re,im)} of ngspice's 'print' lines."""
    out = {}
    for line in text.splitlines():
        match = PRINTED.match(line.strip())
        if match:
            re_, im = float(match.group(2)), match.group(3)
            out[match.group(1).lower()] = re_ if im is None else complex(re_, float(im))
    return out


def write_table(path: pathlib.Path, values: dict):
    columns = []
    for name, value in values.items():
        columns += [(name + ".re", value.real), (name + ".im", value.imag)] \
            if isinstance(value, complex) else [(name, value)]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([name for name, _ in columns])
        writer.writerow([repr(value) for _, value in columns])


def analysis(deck, body, kind, args, suffix, setup=(), measures=()):
    """One analysis card run alone: its CSV (and the noise totals, and the .meas values)."""
    dat = HERE / f"_{deck.stem}_{suffix}.dat"
    commands = [*setup, f"{kind}{args}"]
    if kind == "noise":
        total = HERE / f"_{deck.stem}_{suffix}_total.dat"
        commands += ["setplot noise1", f"wrdata {dat.name} all", "setplot noise2",
                     f"wrdata {total.name} all"]
    elif kind == "pz":
        commands += ["print all"]
    else:
        commands += [f"wrdata {dat.name} all"]
    for name, text in measures:
        commands += [f"meas {text}", f"print {name}"]
    stdout = ngspice(deck, body, suffix, commands)
    if kind == "pz":
        write_table(HERE / f"{deck.stem}_{suffix}.csv",
                    {k: v for k, v in printed(stdout).items() if k.startswith(("pole", "zero"))})
    else:
        if not dat.exists():
            sys.exit(f"ngspice wrote no table for {deck.name} ({suffix}):\n{stdout}")
        convert(dat, HERE / f"{deck.stem}_{suffix}.csv", scale=kind != "op")
        dat.unlink()
    if kind == "noise":
        convert(total, HERE / f"{deck.stem}_{suffix}_total.csv", scale=False)
        total.unlink()
    print(f"{deck.name}: {kind} -> {deck.stem}_{suffix}.csv")
    values = printed(stdout)
    return {name: values.get(name, float("nan")) for name, _ in measures}


def run(deck: pathlib.Path):
    lines = deck.read_text().splitlines()
    cards = [(k, m) for k, line in enumerate(lines) if (m := ANALYSIS.match(line))]
    meas = [(k, m) for k, line in enumerate(lines) if (m := MEAS.match(line))]
    sweeps = [m for line in lines if (m := SWEEP.match(line))]
    dropped = {k for k, _ in cards + meas}
    body = [line for k, line in enumerate(lines) if k not in dropped]
    seen, measured = {}, {}
    for _, match in cards:
        kind = match.group(1).lower()
        seen[kind] = seen.get(kind, 0) + 1
        suffix = kind if seen[kind] == 1 else f"{kind}{seen[kind]}"
        measures = [(m.group(2).lower(), f"{m.group(1)} {m.group(2)}{m.group(3)}")
                    for _, m in meas if m.group(1).lower() == kind] if seen[kind] == 1 else []
        measured.update(analysis(deck, body, kind, match.group(2), suffix, measures=measures))
        for sweep in sweeps if kind in ("dc", "ac") else []:
            for k, value in enumerate(sweep.group(2).split()):
                name = sweep.group(1).lower()
                analysis(deck, body, kind, match.group(2), f"{suffix}_{name}{k}",
                         setup=[f"alterparam {name}={value}", "reset"])
    if meas:
        write_table(HERE / f"{deck.stem}_meas.csv", measured)


def main(folder: pathlib.Path, names: list[str]) -> None:
    """Write the references of the decks ``names`` of ``folder`` (all its decks without names;
    ``_*`` files are this script's own temporaries). The device folders' scripts call this
    with their own folder."""
    global HERE
    HERE = folder
    version = subprocess.run(["ngspice", "-v"], capture_output=True, text=True).stdout
    if "ngspice-39" not in version:
        sys.exit(f"these references are ngspice-39's; found: {version.strip()}")
    decks = [HERE / name for name in names] or sorted(HERE.glob("*.cir"))
    for deck in decks:
        if not deck.name.startswith("_"):
            run(deck)


if __name__ == "__main__":
    main(HERE, sys.argv[1:])
