"""Hydraulics (incompressible-flow networks): pressure p [Pa], volume flow q [m³/s] into the component."""
from .base import Domain

hydraulic = Domain("hydraulic", "p", "Pa", "q", "m3/s")
