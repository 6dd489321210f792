"""Export of compiled models: FMI 2.0 Model Exchange FMUs (:mod:`.fmu`) and standalone C
programs (:mod:`.standalone`)."""
from .standalone import export_c

