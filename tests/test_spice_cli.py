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


def test_command_line_prints_poles_and_transfer_functions_as_ngspice(tmp_path, capsys):
    # ngspice-39's `print all` after `pz in 0 out 0 vol pz` on this Sallen-Key low-pass
    # (poles -1e4 ± 1e4j rad/s: R = 10k, C1 = 10n, C2 = 5n, unity gain) and after
    # `tf v(b,a) I1` on the resistor/VCVS deck (closed forms 1000, 4000 and -2000/3 ohm);
    # .pz printed nothing but an empty operating-point table, negative .tf/.sens values had
    # one digit more than ngspice's
    from physlib.spice.__main__ import main
    pz = tmp_path / "pz.cir"
    pz.write_text("pz sallen-key\nV1 in 0 DC 0 AC 1\nR1 in a 10k\nR2 a b 10k\nC1 a out 10n\n"
                  "C2 b 0 5n\nE1 out 0 b 0 1\nR9 out 0 1meg\n.pz in 0 out 0 vol pz\n.end\n")
    tf = tmp_path / "tf.cir"
    tf.write_text("tf probe\nI1 0 in DC 1m\nR1 in a 1k\nR2 a 0 3k\nE1 out 0 a 0 2\nR3 out b 500\n"
                  "R4 b 0 1k\n.tf v(b,a) I1\n.end\n")
    assert main([str(pz)]) == 0 and main([str(tf)]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if " = " in line]
    assert printed == ["pole(1) = -1.00000e+04,1.000000e+04", "pole(2) = -1.00000e+04,-1.00000e+04",
                       "transfer_function = 1.000000e+03", "i1#input_impedance = 4.000000e+03",
                       "output_impedance_at_v(b,a) = -6.66667e+02"]
