"""Subsystems: a Model used inside a Model through exposed ports."""
import numpy as np
import pytest

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


def nested_rc(R=1e3, C=1e-6):
    """A source driving an RC section two levels down: top -> outer -> inner (``rc_section``),
    each level exposing the ports its parent connects (the shape of a SPICE deck's nested
    subcircuits)."""
    inner = rc_section("inner", R=R, C=C)
    outer = Model("outer")
    outer.add(inner)
    outer.expose(inner.a, "a")
    outer.expose(inner.g, "g")
    top = Model("top")
    src = top.add(VoltageSource("src", V=0.0))
    gnd = top.add(Ground("gnd"))
    top.add(outer)
    top.connect(src.p, outer.a)
    top.connect(src.n, gnd.p, outer.g)
    return top


def test_noise_and_analysis_points_inside_subsystems_with_exposed_ports():
    """Copies of the model (noise sources, analysis points) keep the ports subsystems expose,
    so the parent's connections to them still resolve; the results are the RC section's
    closed forms. Each comparison is exact up to rounding in a 1-state model: 1e-12."""
    from physlib import inject_across, inject_through, linearize
    from physlib.analysis.noise.sources import BOLTZMANN

    R, C, T = 1e3, 1e-6, 300.15
    model = nested_rc(R, C)
    f = np.geomspace(1.0, 1e5, 30)
    s = 2j * np.pi * f
    lowpass = 1 / (1 + s * R * C)
    # Johnson noise of the resistor inside two subsystems: 4kTR·|1/(1 + sRC)|² [V²/Hz].
    result = model.compile().noise("outer.inner.C1.v", f, T=T)
    np.testing.assert_allclose(result.psd, 4 * BOLTZMANN * T * R * np.abs(lowpass) ** 2, rtol=1e-12)
    assert list(result.contributions) == ["outer.inner.R1"]
    # A current injected into the capacitor's node: C1.v/i = R/(1 + sRC) [Ω].
    lin = linearize(model, inputs=[inject_through("outer.inner.C1.p")], outputs=["outer.inner.C1.v"])
    np.testing.assert_allclose(lin.frequency_response(f)[0, 0], R * lowpass, rtol=1e-12)
    # A voltage in series at the resistor's pin, which both subsystems expose to the source:
    # the source sits between the pin and the outside, C1.v/u = 1/(1 + sRC).
    lin = linearize(model, inputs=[inject_across("outer.inner.R1.p")], outputs=["outer.inner.C1.v"])
    np.testing.assert_allclose(lin.frequency_response(f)[0, 0], lowpass, rtol=1e-12)
    # The same at the subsystem's exposed port seen from the top, and the model is unchanged.
    lin = linearize(model, inputs=[inject_across("outer.a")], outputs=["outer.inner.C1.v"])
    np.testing.assert_allclose(lin.frequency_response(f)[0, 0], lowpass, rtol=1e-12)
    assert list(model["outer.inner"].exposed_ports) == ["a", "b", "g"]
    gain = model.compile().linearize(["src.V"], ["outer.inner.C1.v"]).dcgain()[0, 0]
    assert gain == pytest.approx(1.0, rel=1e-12)


def test_a_model_lists_its_connections_components_and_exposed_ports():
    # The read-only views the SPICE writer and topology walk use: connections in the order
    # connect() was called, each port as (member name, port name), a subsystem's port by the
    # name it is exposed under.
    sec = Model("sec")
    r, c = sec.add(Resistor("R1", R=1e3)), sec.add(Capacitor("C1", C=1e-6))
    sec.connect(r.n, c.p)
    sec.expose(r.p, "a")
    sec.expose(c.n, "b")
    top = Model("top")
    src, gnd = top.add(VoltageSource("src", V=1.0)), top.add(Ground("gnd"))
    top.add(sec)
    top.connect(src.p, sec.a)
    top.connect(sec.b, src.n, gnd.p)
    assert sec.connections == [(("R1", "n"), ("C1", "p"))]
    assert top.connections == [(("src", "p"), ("sec", "a")), (("sec", "b"), ("src", "n"), ("gnd", "p"))]
    assert list(top.components) == ["src", "gnd", "sec"]
    assert set(sec.exposed_ports) == {"a", "b"}
    # Views, not the model's own containers: changing them changes nothing.
    top.components.clear()
    assert list(top.components) == ["src", "gnd", "sec"]
