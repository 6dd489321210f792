"""``python -m physlib.spice deck.cir [--csv DIR] [--plot]``: a committed deck run in a fresh
process; its printed operating point and its CSV files equal the ngspice-39 references of the
same deck (tests/data/spice/reader, 1e-9 relative: linear circuits, see test_spice_reader)."""
import pathlib
import subprocess
import sys

import numpy as np

from physlib.spice import read_csv as spice_csv

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "spice" / "reader"


def run(*args):
    return subprocess.run([sys.executable, "-m", "physlib.spice", *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_command_line_prints_and_writes_the_decks_results(tmp_path):
    done = run(DATA / "controlled.cir", "--csv", tmp_path, "--plot")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Circuit: Linear controlled sources E, F, G, H")
    assert "\tv1#branch" in out and "-3.000000e-03" in out and "\nac\nIndex" in out
    for kind in ("op", "ac"):
        ours, ref = spice_csv(tmp_path / f"controlled_{kind}.csv"), spice_csv(DATA / f"controlled_{kind}.csv")
        assert len(ours) >= 8 and set(ours) <= set(ref)   # ngspice also lists E, H branches
        for name, values in ours.items():
            assert np.allclose(values, ref[name], rtol=1e-9, atol=1e-15), name
    assert (tmp_path / "controlled_ac.png").stat().st_size > 1000
    assert not (tmp_path / "controlled_op.png").exists()


def test_command_line_names_the_bad_line_and_exits_1(tmp_path):
    deck = tmp_path / "bad.cir"
    deck.write_text("bad deck\nV1 a 0 1\nZ1 a b 0 zmod\n.op\n.end\n")
    done = run(deck)
    assert done.returncode == 1 and done.stdout == ""
    assert "bad.cir, line 3: 'Z1 a b 0 zmod'" in done.stderr and "MESFETs" in done.stderr


def test_control_print_writes_numbers_as_ngspice_does(tmp_path):
    # ngspice-39 prints 12 characters a number, one decimal fewer after a minus sign; its
    # output for this deck, line for line
    deck = tmp_path / "print_format.cir"
    deck.write_text("print format\nV1 1 0 1\nR1 1 0 1k\nI1 0 2 1m\nR2 2 0 2k\n.control\nop\n"
                    "print i(v1) v(1) v(2)\n.endc\n.end\n")
    done = run(deck)
    assert done.returncode == 0, done.stderr
    printed = [line for line in done.stdout.splitlines() if " = " in line]
    assert printed == ["i(v1) = -1.00000e-03", "v(1) = 1.000000e+00", "v(2) = 2.000000e+00"]
