"""Analyses on a compiled model: simulation, results, operating points, linearization."""
from .linear_model import LinearModel
from .analysis_points import AnalysisPoint, inject_across, inject_through, with_analysis_points
from .operating_point import OperatingPoint, trim
from .results import SimulationResult
from .simulate import simulate

__all__ = ["simulate", "SimulationResult", "OperatingPoint", "LinearModel", "trim", "inject_through",
           "inject_across", "AnalysisPoint", "with_analysis_points"]
