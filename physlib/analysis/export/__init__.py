"""Export of compiled models: FMI 2.0 Model Exchange FMUs (:mod:`.fmu`) and standalone C
programs (:mod:`.standalone`)."""
from .fmu import export_fmu
from .standalone import export_c

__all__ = ["export_fmu", "export_c"]
