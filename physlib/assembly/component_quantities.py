"""Per-component quantities -- the energy each component stores and the power it dissipates --
as CasADi functions of (x, z, p, t), built the first time an analysis asks for them.

Simulating never reads them; results (``stored_energy``, ``dissipated_power``) and the
energy-weighted projection at events do. Building them with every compiled model cost a
fifth of compiling a large network, so the compiled model keeps only what they need: the
classes that declare the quantity and their instances' variable and parameter numbers.
"""
from __future__ import annotations


import casadi as cs

from ..core.records import record
from .passes.instantiate import instance_locals, instance_params
from .passes.mapped_calls import mapped

_TEMPLATE_FUNCTION = {"energy": "energy_function", "dissipation": "power_dissipation_function"}


@record(frozen=True)
class ComponentQuantity:
    """Stored energy [J] (``kind="energy"``) or dissipated power [W] (``kind="dissipation"``)
    of every component whose class declares it, one output row per component of ``owners``."""

    kind: str
    groups: tuple        # the flat system's instance groups whose class declares the quantity
    owners: list[str]    # component path of each output row

    @classmethod
    def of(cls, flat, kind: str) -> ComponentQuantity:
        groups = tuple(g for g in flat.groups if getattr(g.template, _TEMPLATE_FUNCTION[kind]) is not None)
        return cls(kind, groups, [path for g in groups for path in g.paths])

    def function(self, system) -> cs.Function:
        """The quantity as a function of (x, z, p, t) of ``system`` (a DaeSystem): its classes'
        expressions on the values of every variable that ``system.outputs`` gives."""
        x, z, p, t = system.symbols()
        values = system.outputs(x, z, p, t) if self.groups else None
        parts = []
        for g in self.groups:
            function = getattr(g.template, _TEMPLATE_FUNCTION[self.kind])
            out = mapped(function, len(g.paths), instance_locals(g, system.var_col, system.var_sign, values),
                         instance_params(g, p), t)
            parts.append(out.T if self.kind == "energy" else (out[0, :] * out[1, :]).T)
        return cs.Function(self.kind, [x, z, p, t], [cs.vertcat(*parts) if parts else cs.SX(0, 1)])
