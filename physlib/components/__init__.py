"""The component catalog, one package per domain (electrical, signals, rotational,
translational, hydraulic, thermal), each grouped in modules as the Modelica Standard Library
groups its libraries; ``noise_variants`` serves the classes with noise sources inside them."""
