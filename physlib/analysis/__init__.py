"""Analyses on a compiled model: simulation, results, operating points."""
from .operating_point import OperatingPoint
from .results import SimulationResult
from .simulate import simulate

__all__ = ["simulate", "SimulationResult", "OperatingPoint"]
