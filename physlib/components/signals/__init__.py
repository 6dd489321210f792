"""Causal signal blocks, grouped as the Modelica Standard Library's Blocks: ``sources``
(waveforms, usable as the value of any signal input), ``periodic`` (waveforms with edges),
``tables``, ``math`` (with the sampled Mean and RootMeanSquare), ``continuous`` (integrator,
PID, state space), ``elementary`` (lags, approximate derivative, limited integrator),
``filters`` (with their design in ``filter_design``), ``nonlinear`` (limiters, dead zone,
slew-rate limiter, the hybrid Relay and SignalPWM), ``logical`` (Hysteresis), ``delays``,
``discrete`` (sampled blocks), and ``edges``, where they all place their time events. Each
class is imported from here; its module is loaded when the class is first asked for, and
``t``, the SymPy symbol of time (for :class:`Expression`), when it is asked for.
"""
from ...core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "physlib.core.symbols": ("t",),
    ".sources": ("Waveform", "Constant", "Step", "Ramp", "Sine", "Expression", "DampedSine", "Exponentials",
                 "FrequencyModulatedSine", "AmplitudeModulatedSine"),
    ".periodic": ("Pulse", "PWM", "Sawtooth", "Triangle", "Trapezoid"),
    ".tables": ("Table", "Table1D", "Table2D"),
    ".math": ("Gain", "Add", "Product", "Mean", "RootMeanSquare"),
    ".continuous": ("Integrator", "PID", "StateSpace", "TransferFunction"),
    ".elementary": ("FirstOrder", "SecondOrder", "Derivative", "LimIntegrator"),
    ".filters": ("Filter",),
    ".nonlinear": ("Limiter", "VariableLimiter", "DeadZone", "SlewRateLimiter", "Relay", "SignalPWM"),
    ".logical": ("Hysteresis",),
    ".delays": ("PadeDelay", "FixedDelay"),
    ".discrete": ("Sampled", "Discrete", "ZeroOrderHold", "UnitDelay", "DiscretePID"),
    ".edges": ("EDGE_TOLERANCE", "MAX_PERIODS"),
})
