"""Semiconductor devices as ngspice-39 models them: the junction diode (level 1), the
Gummel–Poon BJT, the level-1 MOSFET and the level-1 JFET, on the pn-junction functions of
``junctions``; and the Modelica Standard Library's Zener diode (ZDiode) and thyristor
(Thyristor, with gate, holding current and control state). Each device's module is loaded when
its class is first asked for."""
from ....core.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".diode": ("Diode",),
    ".bjt": ("BJT",),
    ".mosfet": ("MOSFET",),
    ".jfet": ("JFET",),
    ".zdiode": ("ZDiode",),
    ".thyristor": ("Thyristor",),
})
