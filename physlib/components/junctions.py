"""The module's former place: ``physlib.components.junctions`` is
:mod:`physlib.components.electrical.semiconductors.junctions` itself (the same module object, so
every name it holds imports from here as before)."""
import sys

from .electrical.semiconductors import junctions

sys.modules[__name__] = junctions
