"""The compiler's passes, in the order :func:`physlib.assembly.compile.compile_model` runs them.

Each module holds one pass: a function that takes intermediate forms (:mod:`physlib.assembly.ir`)
and returns a new one, never changing what it was given.

1. flatten (:mod:`physlib.assembly.flatten`): Model -> FlatSystem
2. :mod:`.aliases`: FlatSystem -> AliasMap (x = ±y collapse onto one position)
3. :mod:`.incidence`: -> Equations (sparse incidence of every equation over positions)
4. :mod:`.index_reduction`: -> Reduced (Pantelides, dummy derivatives; unknowns settled)
5. :mod:`.blt`: -> BlockOrder (matching, block-lower-triangular order)
6. :mod:`.hidden`: -> combinations of numerically dependent equations; when there are some,
   passes 3–6 run again with them (a fixed point with a bounded number of rounds)
7. :mod:`.tear`: -> Torn (explicit equations, tearing of nonlinear loops)
8. :mod:`.instantiate`: -> Symbolic (one mapped CasADi call per class; symbols for the positions
   the explicit solutions do not define)
9. :mod:`.explicit`: -> Solved (explicit solutions and small linear loops solved symbolically)
10. :mod:`.emit`: -> DaeSystem (the CasADi functions of the semi-explicit DAE)
"""
