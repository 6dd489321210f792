"""simulate(..., progress=...): a line on stderr with the simulated time, the events and the
time left, redrawn in place; by itself only on a terminal for runs estimated to be long."""
import pytest

import physlib.analysis.common.progress as progress
from physlib.analysis.common.options import OptionError
from half_wave_rectifier import rectifier
from test_run_stats import rc


def rectifier_1uF():
    """10 V, 1 kHz through an ideal diode into 1 kOhm || 1 uF: 20 diode switchings in 10 ms."""
    return rectifier(10.0, 1e3, 1e3, 1e-6)


def lines(err: str) -> list[str]:
    return [line.strip() for line in err.split("\r") if line.strip()]


@pytest.mark.parametrize("options", [{}, {"solver": "backward_euler", "dt": 1e-5}])
def test_progress_true_reports_time_and_events_up_to_the_end(capsys, options):
    res = rectifier_1uF().simulate(0.01, progress=True, **options)
    shown = lines(capsys.readouterr().err)
    assert shown, "no progress line"
    events = sum(res.stats["events"].values())      # event instants, state and time
    assert shown[-1].startswith(f"simulate: t = 0.01 of 0.01 s (100 %), {events} events")


def test_a_run_without_modes_reports_each_segment(capsys):
    rc(t_step=1e-3).simulate(5e-3, progress=True)
    shown = lines(capsys.readouterr().err)
    assert shown[-1].startswith("simulate: t = 0.005 of 0.005 s (100 %), 1 events")


def test_by_default_nothing_is_shown_off_a_terminal(capsys):
    rectifier_1uF().simulate(0.01)
    assert capsys.readouterr().err == ""


def test_by_default_a_long_run_on_a_terminal_shows_the_line(capsys, monkeypatch):
    # "Long": estimated from the first ESTIMATE_AFTER seconds to exceed PROGRESS_AFTER; both
    # set to zero here so that a short run counts as long.
    monkeypatch.setattr(progress, "_on_terminal", lambda: True)
    monkeypatch.setattr(progress, "ESTIMATE_AFTER", 0.0)
    monkeypatch.setattr(progress, "PROGRESS_AFTER", 0.0)
    rectifier_1uF().simulate(0.01)
    assert lines(capsys.readouterr().err)[-1].startswith("simulate: t = 0.01 of 0.01 s (100 %)")


def test_progress_must_be_a_boolean_or_none():
    with pytest.raises(OptionError, match="progress must be True, False or None"):
        rectifier_1uF().simulate(0.01, progress="yes")
