"""Helpers shared by the benchmark scripts: machine description, timing, number formatting."""
import os
import platform
import time


def machine() -> str:
    """One line naming the CPU count and model, OS, and the Python/CasADi/NumPy versions."""
    import casadi as cs
    import numpy as np

    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"machine: {os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, CasADi {cs.__version__}, NumPy {np.__version__}")


def timed(fn, repeat: int = 1, budget: float = 0.0, max_runs: int = 20):
    """(best wall time over at least ``repeat`` calls, result of the last call); more calls, up
    to ``max_runs``, while all of them together took less than ``budget`` seconds."""
    best, result, total, runs = float("inf"), None, 0.0, 0
    while runs < repeat or (total < budget and runs < max_runs):
        result = None         # let the previous result go before making the next one
        started = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - started
        best, total, runs = min(best, elapsed), total + elapsed, runs + 1
    return best, result


def ms(seconds) -> str:
    """Seconds as milliseconds with three significant digits ("-" for None)."""
    if seconds is None:
        return "-"
    value = seconds * 1e3
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"
