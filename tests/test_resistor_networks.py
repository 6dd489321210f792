"""Random resistor networks must give the node voltages of an independent nodal analysis."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physlib import Model
from physlib.components.electrical import CurrentSource, Ground, Resistor, VoltageSource


@st.composite
def networks(draw):
    n = draw(st.integers(3, 12))                      # nodes, node 0 is ground
    resistance = st.floats(1.0, 1e4)
    edges = [(draw(st.integers(0, k - 1)), k) for k in range(1, n)]   # spanning tree
    edges += [tuple(sorted(draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))))
              for _ in range(draw(st.integers(0, n)))]
    resistors = [(a, b, draw(resistance)) for a, b in edges]
    # Voltage sources from ground: at most one per node, so they never form a loop.
    vnodes = draw(st.lists(st.integers(1, n - 1), unique=True, max_size=n // 2))
    vsources = [(k, draw(st.floats(-10, 10))) for k in vnodes]
    isources = [(*draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)),
                 draw(st.floats(-1, 1))) for _ in range(draw(st.integers(0, 3)))]
    return n, resistors, vsources, isources


def stamps(n, conductances):
    """The nodal matrix of conductances (a, b, g) between nodes a and b."""
    G = np.zeros((n, n))
    for a, b, g in conductances:
        for x, y in ((a, b), (b, a)):
            G[x, x] += g
            G[x, y] -= g
    return G


def nodal_solution(n, resistors, vsources, isources):
    """Node voltages by plain nodal analysis (numpy), independent of physlib."""
    G = stamps(n, [(a, b, 1 / r) for a, b, r in resistors])
    inj = np.zeros(n)
    for a, b, i in isources:        # current i flows from a through the source to b
        inj[a] -= i
        inj[b] += i
    known = {0: 0.0, **{k: v for k, v in vsources}}
    free = [k for k in range(n) if k not in known]
    kk = list(known)
    v = np.zeros(n)
    v[kk] = [known[k] for k in kk]
    v[free] = np.linalg.solve(G[np.ix_(free, free)], inj[free] - G[np.ix_(free, kk)] @ v[kk])
    return v


def nodal_sensitivity(n, resistors, vsources, isources, j):
    """d(node voltages)/d(resistance of resistor j), exactly from the nodal equations G·v = i:
    G_ff·dv_f = −(dG·v)_f, with dG the stamp of d(1/R)/dR = −1/R² (numpy, independent of
    physlib); 0 at the nodes a source fixes."""
    v = nodal_solution(n, resistors, vsources, isources)
    a, b, r = resistors[j]
    G, dG = stamps(n, [(p, q, 1 / rr) for p, q, rr in resistors]), stamps(n, [(a, b, -1 / r**2)])
    free = [k for k in range(n) if k != 0 and k not in dict(vsources)]
    dv = np.zeros(n)
    dv[free] = -np.linalg.solve(G[np.ix_(free, free)], (dG @ v)[free])
    return dv


def build(n, resistors, vsources, isources):
    m = Model("net")
    nodes = {k: [] for k in range(n)}
    nodes[0].append(m.add(Ground("gnd")).p)
    for j, (a, b, r) in enumerate(resistors):
        res = m.add(Resistor(f"R{j}", R=r))
        nodes[a].append(res.p)
        nodes[b].append(res.n)
    for j, (k, v) in enumerate(vsources):
        src = m.add(VoltageSource(f"V{j}", V=v))
        nodes[k].append(src.p)
        nodes[0].append(src.n)
    for j, (a, b, i) in enumerate(isources):
        src = m.add(CurrentSource(f"I{j}", I=i))
        nodes[a].append(src.p)
        nodes[b].append(src.n)
    for k, ports in nodes.items():
        if len(ports) == 1:                           # a dangling end: tie it to ground
            extra = m.add(Resistor(f"Rg{k}", R=1e3))
            ports.append(extra.p)
            nodes[0].append(extra.n)
            resistors.append((k, 0, 1e3))
    for ports in nodes.values():
        m.connect(*ports)
    return m, nodes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_random_resistor_network_matches_nodal_analysis(net):
    n, resistors, vsources, isources = net
    resistors = list(resistors)
    model, nodes = build(n, resistors, vsources, isources)     # may add resistors to ground
    res = model.compile().simulate(1.0, t_eval=[1.0])
    expected = nodal_solution(n, resistors, vsources, isources)
    got = np.array([res[f"{nodes[k][0].owner.name}.{nodes[k][0].name}.v"][0] for k in range(n)])
    # A direct linear solve: agreement to rounding, far below 1e-9 of the largest voltage.
    scale = max(np.abs(expected).max(), 1e-3)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * scale)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks(), st.data())
def test_random_resistor_network_sensitivities_match_nodal_analysis(net, data):
    # A network without states: its node voltages' derivatives by one resistance, at each output
    # time, against the derivative of the independent nodal solve (exact: a linear solve with
    # the resistor's stamp; central differences lost 5e-6 of a 290 Ω network's derivative to
    # rounding): to 1e-9 of the largest, rounding of two linear solves.
    n, resistors, vsources, isources = net
    resistors = list(resistors)
    model, nodes = build(n, resistors, vsources, isources)
    j = data.draw(st.integers(0, len(resistors) - 1))
    method = data.draw(st.sampled_from(["forward", "adjoint"]))
    paths = [f"{nodes[k][0].owner.name}.{nodes[k][0].name}.v" for k in range(1, n)]
    parameter = _resistor_path(model, j)
    sens = model.compile().sensitivity(1.0, params=[parameter], outputs=paths, t_eval=[0.5, 1.0], method=method)
    expected = nodal_sensitivity(n, resistors, vsources, isources, j)[1:]
    got = np.array([sens.derivative(path, parameter) for path in paths])
    # the derivatives' natural size, |v|/R (all of them may be 0 up to rounding)
    natural = np.abs(nodal_solution(n, resistors, vsources, isources)).max() / resistors[j][2]
    scale = max(np.abs(expected).max(), natural, 1e-12)
    assert got.shape == (n - 1, 2)
    np.testing.assert_allclose(got, np.column_stack([expected, expected]), rtol=0, atol=1e-9 * scale)


def _resistor_path(model, j: int) -> str:
    """The parameter path of the network's resistor j (R{j}, or a dangling end's Rg{k})."""
    names = [c for c in model.components if c.startswith("R")]
    return f"{names[j]}.R"
