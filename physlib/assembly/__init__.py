"""Model assembly: connection graph, flattening, structural analysis, CasADi emission."""
from .model import Model

__all__ = ["Model", "CompiledModel"]


def __getattr__(name):
    # The compiler is imported when a model is first compiled, not with the package.
    if name == "CompiledModel":
        from .compiled import CompiledModel
        return CompiledModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
