"""Run the ngspice-39 decks of this folder and write their tables as CSV.

Usage, from this folder: ``python3 run_ngspice.py`` (needs ``ngspice`` on PATH; Debian's
ngspice 39.3 made the committed files). Each deck's ``wrdata`` writes a whitespace-separated
``.dat`` table (one scale column, then the vectors, a header line of names, 15 digits); this
script runs each deck in batch mode, prints ngspice's log and rewrites every table as
``<name>.csv`` with commas (the values' text unchanged). The ``.dat`` files are removed.
"""
import csv
import pathlib
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
DECKS = ["diode_level1.cir", "diode_level1_tran.cir"]


def dat_to_csv(dat: pathlib.Path) -> pathlib.Path:
    lines = [line.split() for line in dat.read_text().splitlines() if line.strip()]
    out = dat.with_suffix(".csv")
    with open(out, "w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(lines)
    dat.unlink()
    return out


def main():
    version = subprocess.run(["ngspice", "--version"], capture_output=True, text=True).stdout
    print(version.strip().splitlines()[1] if version else "ngspice: version unknown")
    for deck in DECKS:
        before = set(HERE.glob("*.dat"))
        run = subprocess.run(["ngspice", "-b", deck], cwd=HERE, capture_output=True, text=True)
        print(run.stdout + run.stderr)
        if run.returncode != 0:
            raise SystemExit(f"{deck}: ngspice exited with {run.returncode}")
        for dat in sorted(set(HERE.glob("*.dat")) - before):
            print(f"{deck} -> {dat_to_csv(dat).name}")


if __name__ == "__main__":
    main()
