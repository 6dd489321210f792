"""Hydraulics (incompressible-flow networks): pressure p [Pa], volume flow q [m³/s] into the component."""
from .base import Domain

hydraulic = Domain("hydraulic", "p", "Pa", "q", "m3/s")

FLOW_NOMINAL = 1e-3
"""The nominal size [m³/s] of a volume flow (:class:`~physlib.core.component.Variable`'s
``nominal``): a litre a second, so that the solvers' atol of 1e-8 holds flows to 1e-11 m³/s.
Hydraulic flows span a leak's 1e-8 to a pump's 1e-2 m³/s: under atol 1e-8 itself a 10 mL/s
flow through an inertance came out 8.3e-4 of its value off the closed form at the default
tolerances."""
