"""Fitting a model's parameters to measured data (:func:`fit`, :class:`Experiment`,
:class:`FitResult`), with exact Jacobians from the forward sensitivities, and to a measured
frequency response (:func:`fit_frequency`), with exact Jacobians from the linearization's."""
from .experiment import Experiment
from .fit import fit
from .frequency import fit_frequency
from .result import FitResult, Identifiability

__all__ = ["fit", "fit_frequency", "Experiment", "FitResult", "Identifiability"]
