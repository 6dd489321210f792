"""Fitting a model's parameters to measured data (:func:`fit`, :class:`Experiment`,
:class:`FitResult`), with exact Jacobians from the forward sensitivities."""
from .experiment import Experiment
from .fit import fit
from .result import FitResult, Identifiability

__all__ = ["fit", "Experiment", "FitResult", "Identifiability"]
