"""Waveforms and signal blocks against their closed forms."""
import numpy as np
import pytest

from physlib import Model, ParameterError
from physlib.components.signals import PID, Limiter, Pulse, Ramp, Sine, Table


def probe(source, block=None, t_end=1.0, **options):
    """Simulate ``source`` (optionally through ``block``); returns (t, output)."""
    m = Model("probe")
    src = m.add(source)
    out = src
    if block is not None:
        out = m.add(block)
        m.connect(src.y, out.u)
    res = m.compile().simulate(t_end, **options)
    return res, res[f"{out.name}.y"]


def test_pulse_waveform_takes_its_value_after_each_edge():
    res, y = probe(Pulse("pulse", amplitude=2.0, width=0.2, period=0.5, t0=0.1))
    phase = np.mod(res.t - 0.1 + 1e-12, 0.5)      # at an edge exactly, the value after it
    expected = np.where((res.t >= 0.1) & (phase < 0.2 - 1e-12), 2.0, 0.0)
    last = np.r_[np.diff(res.t) > 0, True]       # after each edge where a time has two rows
    np.testing.assert_array_equal(y[last], expected[last])


def test_table_interpolates_linearly_and_holds_its_ends():
    res, y = probe(Table("tab", points=[(0.2, 0.0), (0.4, 1.0), (0.8, -1.0)]))
    np.testing.assert_allclose(y, np.interp(res.t, [0.2, 0.4, 0.8], [0.0, 1.0, -1.0]), atol=1e-12)


def test_limiter_clips_a_sine():
    res, y = probe(Sine("s", amplitude=2.0, f=2.0), Limiter("lim", u_max=1.0, u_min=-0.5))
    np.testing.assert_allclose(y, np.clip(2.0 * np.sin(4 * np.pi * res.t), -0.5, 1.0), atol=1e-12)


def test_limiter_rejects_crossed_limits():
    with pytest.raises(ParameterError, match="lim"):
        Limiter("lim", u_max=0.0, u_min=1.0)


def test_pid_on_a_ramp_matches_its_closed_form():
    # u = t: y = kp·t + ki·t²/2 + kd·(1 − e^(−t/Tf)) (filtered derivative of a ramp).
    kp, ki, kd, tf = 2.0, 3.0, 0.5, 0.05
    res, y = probe(Ramp("r", height=1.0, duration=1.0), PID("pid", kp=kp, ki=ki, kd=kd, Tf=tf),
                   rtol=1e-10, atol=1e-12)
    expected = kp * res.t + ki * res.t**2 / 2 + kd * (1 - np.exp(-res.t / tf))
    np.testing.assert_allclose(y, expected, atol=1e-8)


def test_state_space_first_order_step_response():
    # dx/dt = −2x + 4u, y = 0.5x + 0.1u, u = 1 from t = 0: y = 0.1 + (1 − e^(−2t)).
    from physlib.components.signals import StateSpace, Step
    res, y = probe(Step("u"), StateSpace("ss", A=[[-2.0]], B=[4.0], C=[0.5], D=0.1),
                   t_end=3.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y, 0.1 + (1 - np.exp(-2 * res.t)), atol=1e-9)
    assert "ss.x0" in res.names


def test_transfer_function_second_order_step_response():
    # 1/(s² + 0.4s + 1): ζ = 0.2, ωn = 1.
    from physlib.components.signals import Step, TransferFunction
    res, y = probe(Step("u"), TransferFunction("G", num=[1.0], den=[1.0, 0.4, 1.0]),
                   t_end=10.0, rtol=1e-10, atol=1e-12)
    zeta, wd = 0.2, np.sqrt(1 - 0.04)
    expected = 1 - np.exp(-zeta * res.t) * (np.cos(wd * res.t) + zeta / wd * np.sin(wd * res.t))
    np.testing.assert_allclose(y, expected, atol=1e-8)


def test_improper_transfer_function_is_rejected():
    from physlib.components.signals import TransferFunction
    with pytest.raises(ParameterError, match="proper"):
        TransferFunction("G", num=[1.0, 0.0, 0.0], den=[1.0, 1.0])
