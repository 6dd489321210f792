"""Export of compiled models: FMI 2.0 Model Exchange FMUs (:mod:`.fmu`) and standalone C."""
