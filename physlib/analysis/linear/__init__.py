"""Steady states and linear models: operating points and trim (:mod:`.operating_point`, solved
in :mod:`.steady_state` with inputs set through :mod:`.model_inputs`), linearization
(:mod:`.linearize`) into a :class:`~.linear_model.LinearModel`, and analysis points
(:mod:`.analysis_points`) that open a loop for it. Imports only :mod:`physlib.analysis.common`
from the analyses.
"""
