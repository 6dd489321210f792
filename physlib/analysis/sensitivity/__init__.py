"""Parameter sensitivities of simulations, through their events: ``sensitivity`` (the
derivatives of every variable over time) and ``gradient`` (of a scalar objective, by the
adjoint method)."""
from .objectives import AtEvent, Gradient, Integral, at_event, integral, sum_of_squares
from .result import SensitivityEvent, SensitivityResult
from .sensitivity import gradient, sensitivity

__all__ = ["sensitivity", "gradient", "sum_of_squares", "integral", "at_event", "Gradient", "Integral", "AtEvent", "SensitivityResult", "SensitivityEvent"]
