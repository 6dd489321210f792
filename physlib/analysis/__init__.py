"""Analyses on a compiled model, one subpackage per job:

* :mod:`.simulation` — transient simulation, events, fixed-step methods, results;
* :mod:`.linear` — operating points, trim, linearization, linear models, analysis points;
* :mod:`.noise` — thermal and shot noise: spectra, multiports, per portion, along a run;
* :mod:`.sweeps` — parameter sweeps and Monte Carlo studies over any of them;
* :mod:`.common` — what they share (compiled calls, Newton solves, projections, options).
"""
from .common.options import OptionError
from .common.start_values import StartValueWarning
from .linear.analysis_points import AnalysisPoint, inject_across, inject_through, with_analysis_points
from .linear.linear_model import LinearModel
from .linear.operating_point import OperatingPoint, trim
from .noise.transient import simulate_stochastic
from .simulation.results import SimulationResult
from .simulation.simulate import simulate

__all__ = ["simulate", "SimulationResult", "OperatingPoint", "LinearModel", "trim", "inject_through",
           "inject_across", "AnalysisPoint", "with_analysis_points", "OptionError", "StartValueWarning",
           "simulate_stochastic"]
