"""Random passive R–L–C networks for property tests (equipartition, multiport noise).

Every network is a resistor tree from ground (node 0) through every node, so every cut-set
holds a resistor; a capacitor, an inductor or both from each node to ground (one of each at
most, so no loop is capacitive only and none inductive only); and a few extra resistors.
"""
from hypothesis import strategies as st

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor

KINDS = {"R": (Resistor, "R"), "C": (Capacitor, "C"), "L": (Inductor, "L")}


def draw_network(draw, min_nodes: int = 2, max_nodes: int = 6):
    """(number of nodes, [(kind, node a, node b, value)]) drawn with hypothesis's ``draw``."""
    n = draw(st.integers(min_nodes, max_nodes))
    elements = [("R", draw(st.integers(0, k - 1)), k, draw(st.floats(10.0, 1e4))) for k in range(1, n)]
    for k in range(1, n):
        storage = draw(st.sampled_from(["C", "L", "CL"]))
        if "C" in storage:
            elements.append(("C", k, 0, draw(st.floats(1e-9, 1e-5))))
        if "L" in storage:
            elements.append(("L", k, 0, draw(st.floats(1e-4, 1e-1))))
    for _ in range(draw(st.integers(0, 3))):
        a, b = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        elements.append(("R", a, b, draw(st.floats(10.0, 1e4))))
    return n, elements


def network_elements(n, elements, name: str = "net"):
    """(model with ground and the elements added, {node: [the ports on it]}), nothing connected
    yet; element j is named f"{kind}{j}"."""
    m = Model(name)
    nodes = {k: [] for k in range(n)}
    nodes[0].append(m.add(Ground("gnd")).p)
    for j, (kind, a, b, value) in enumerate(elements):
        cls, param = KINDS[kind]
        element = m.add(cls(f"{kind}{j}", **{param: value}))
        nodes[a].append(element.p)
        nodes[b].append(element.n)
    return m, nodes


def connect_nodes(m, nodes) -> None:
    """Connect the ports of each node."""
    for members in nodes.values():
        if len(members) > 1:
            m.connect(*members)


def build_network(n, elements):
    """(compiled model, {node: path of a port on it}); element j is named f"{kind}{j}"."""
    m, nodes = network_elements(n, elements)
    connect_nodes(m, nodes)
    return m.compile(), {k: members[-1].path for k, members in nodes.items()}
