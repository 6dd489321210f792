"""Parameter sensitivities of simulations, through their events: ``sensitivity`` (the
derivatives of every variable over time) and ``gradient`` (of a scalar objective, by the
adjoint method)."""
from .result import SensitivityEvent, SensitivityResult
from .sensitivity import sensitivity

__all__ = ["sensitivity", "SensitivityResult", "SensitivityEvent"]
