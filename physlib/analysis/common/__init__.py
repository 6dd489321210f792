"""What the analyses share: compiled-function calls (:mod:`.fast_call`), Newton solves of the
algebraic equations and consistent starts (:mod:`.initialization`, :mod:`.start_values`),
projections onto constraints (:mod:`.projection`), Hermite interpolation (:mod:`.interpolation`),
option checking (:mod:`.options`, with :class:`~.options.OptionError`) and the hybrid
components' transitions (:mod:`.hybrid_components`: the simulator's event iteration and the
operating point's mode settling ask them alike), and the parameters a derivative is taken
with respect to (:mod:`.sensitivity_parameters`: the transient sensitivities and the
linearization's share them).

Imports nothing from the job subpackages beside it (``linear``, ``noise``, ``simulation``,
``sweeps``), which all import from here.
"""
