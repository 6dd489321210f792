"""Model assembly: connection graph, flattening, structural analysis, CasADi emission."""
from .compiled import CompiledModel
from .model import Model

__all__ = ["Model", "CompiledModel"]
