"""Analyses on a compiled model, one subpackage per job:

* :mod:`.simulation` — transient simulation, events, fixed-step methods, results;
* :mod:`.linear` — operating points, trim, linearization, linear models, analysis points;
* :mod:`.noise` — thermal and shot noise: spectra, multiports, per portion, along a run;
* :mod:`.sweeps` — parameter sweeps and Monte Carlo studies over any of them;
* :mod:`.common` — what they share (compiled calls, Newton solves, projections, options).

Each name below is imported from here; its module is loaded when the name is first asked for,
so that a run that only simulates does not load the linear, noise and export analyses.
"""
from ..core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".simulation.simulate": ("simulate",),
    ".simulation.results": ("SimulationResult",),
    ".linear.operating_point": ("OperatingPoint", "trim"),
    ".linear.linear_model": ("LinearModel",),
    ".linear.analysis_points": ("inject_through", "inject_across", "AnalysisPoint", "with_analysis_points"),
    ".common.options": ("OptionError",),
    ".common.start_values": ("StartValueWarning",),
    ".noise.transient": ("simulate_stochastic",),
})
