"""Subsystems: a Model used inside a Model through exposed ports."""
import numpy as np

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import Step


def rc_section(name, R=1e3, C=1e-6):
    sec = Model(name)
    r = sec.add(Resistor("R1", R=R))
    c = sec.add(Capacitor("C1", C=C))
    sec.connect(r.n, c.p)
    sec.expose(r.p, "a")
    sec.expose(r.n, "b")
    sec.expose(c.n, "g")
    return sec


def source_and_ground(m):
    src = m.add(VoltageSource("src", V=Step(height=1.0)))
    gnd = m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    return src, gnd


def test_ladder_of_subsystems_equals_flat_ladder():
    hier = Model("hier")
    src, gnd = source_and_ground(hier)
    sections = [hier.add(rc_section(f"s{k}", R=1e3 * (k + 1))) for k in range(3)]
    hier.connect(src.p, sections[0].a)
    for left, right in zip(sections, sections[1:]):
        hier.connect(left.b, right.a)
    hier.connect(gnd.p, *[s.g for s in sections])

    flat = Model("flat")
    src, gnd = source_and_ground(flat)
    rs = [flat.add(Resistor(f"R{k}", R=1e3 * (k + 1))) for k in range(3)]
    cs_ = [flat.add(Capacitor(f"C{k}", C=1e-6)) for k in range(3)]
    flat.connect(src.p, rs[0].p)
    for k in range(3):              # node k joins R_k.n, C_k.p and R_{k+1}.p
        nxt = [rs[k + 1].p] if k < 2 else []
        flat.connect(rs[k].n, cs_[k].p, *nxt)
    flat.connect(gnd.p, *[c.n for c in cs_])

    t = np.linspace(0, 0.02, 401)
    a = hier.compile().simulate(0.02, t_eval=t, rtol=1e-12, atol=1e-14)
    b = flat.compile().simulate(0.02, t_eval=t, rtol=1e-12, atol=1e-14)
    for k in range(3):
        # Same equations in another order: only rounding separates the two runs.
        np.testing.assert_allclose(a[f"s{k}.C1.v"], b[f"C{k}.v"], rtol=0, atol=1e-10)
    assert "s1.R1.p.v" in a.names and "s1.R1.R" in hier.compile().parameters


def test_nested_subsystem_ports_resolve_through_two_levels():
    inner = rc_section("inner")
    outer = Model("outer")
    outer.add(inner)
    outer.expose(inner.a, "a")
    outer.expose(inner.g, "g")
    top = Model("top")
    src, gnd = source_and_ground(top)
    top.add(outer)
    top.connect(src.p, outer.a)
    top.connect(gnd.p, outer.g)
    res = top.compile().simulate(5e-3, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["outer.inner.C1.v"], 1 - np.exp(-res.t / 1e-3), atol=1e-7)
