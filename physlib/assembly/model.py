"""The user-facing :class:`Model`: components, connections, exposed ports, subsystems.

What a model holds and the checks of ``add``/``connect``/``expose`` live in
:mod:`physlib.assembly.netlist`; this module adds compiling.
"""
from __future__ import annotations

from ..core.bulk import import_lasting
from ..core.errors import ModelError, ParameterError
from .netlist import ExposedPort, Netlist

__all__ = ["Model", "ExposedPort"]


class Model(Netlist):
    """A system of connected components, compiled with :meth:`compile`.

    >>> m = Model("rc")
    >>> r = m.add(Resistor("R1", R=1e3))            # doctest: +SKIP
    >>> m.connect(src.p, r.p)                        # doctest: +SKIP

    A model can be added to another one as a subsystem; its exposed ports are then connected
    like component ports, and its variables are addressed as ``"sub.R1.v"``.
    Compiling never changes the model, so it can be compiled again or edited further.
    """

    @property
    def compiled_class(self) -> type:
        """What :meth:`compile` returns: :class:`physlib.Model` sets the analysing subclass.
        (Imported here, when first compiling: building a model does not need the compiler.)"""
        from .compiled import CompiledModel
        return CompiledModel

    def compile(self, *, units: str = "warn", **options):
        """Flatten, analyze and reduce the equations; returns a reusable CompiledModel.

        ``units``: what to do where the equations of a component class mix units (checked once
        per class, where its equations are derived): ``"warn"`` (a
        :class:`~physlib.UnitWarning` naming the class, the equation and both units),
        ``"strict"`` (a :class:`~physlib.UnitCheckError`) or ``"off"``."""
        if options:
            raise ParameterError(f"Model.compile has no option {', '.join(options)}; its only option is "
                                 f"units ('warn', 'strict' or 'off')")
        from .unit_policy import check_policy
        check_policy(units)
        if not self._members:
            raise ModelError(f"model {self.name!r} has no components: add them with "
                             f"{self.name}.add(...) before compiling")
        compile_model = import_lasting(".compile", __package__).compile_model
        compiled = compile_model(self, self.compiled_class, units=units)
        # Analyses that add components (noise sources, analysis points) start from the model.
        compiled.source_model = self
        return compiled
