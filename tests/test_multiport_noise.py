"""Multiport thermal noise (Twiss, Bosma, noise waves): the correlation matrices from the port
matrices against the per-element sum of every dissipative element's own thermal source, on
random passive networks, with a gyrator inside, and through the equivalent sources."""
import re
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import physlib
from physlib import Component, Model, Parameter, Port
from physlib.analysis.common.options import OptionError
from physlib.analysis.noise import ActiveNetworkError
from physlib.analysis.noise.sources import (BOLTZMANN, NoiseWarning, noise_elements, noise_source_model,
                                            transfer_operating_point)
from physlib.components.electrical import (CCCS, EMF, VCCS, VCVS, Capacitor, CurrentSource, Diode, Ground,
                                           HeatingResistor, IdealOpAmp, IdealTransformer, Inductor,
                                           MutualInductance, OpAmp, Resistor, SensingVoltageSource, Transformer,
                                           VoltageSensor, VoltageSource)
from physlib.components.signals.math import Gain
from physlib.components.rotational import Damper, Fixed, Inertia
from physlib.components.thermal import FixedTemperature
from physlib.core.errors import DomainMismatchError, PhyslibError, UnknownNameError
from physlib.domains import electrical

from passive_networks import build_network, draw_network

F = np.array([10.0, 1e3, 1e5])      # Hz


class Gyrator(Component):
    """Ideal gyrator: v1 = −r·i2, v2 = r·i1 (i into p1 and p2). Lossless (v1·i1 + v2·i2 = 0)
    and non-reciprocal: Z12 = −r, Z21 = r."""

    p1 = Port(electrical, "port 1 positive pin")
    n1 = Port(electrical, "port 1 negative pin")
    p2 = Port(electrical, "port 2 positive pin")
    n2 = Port(electrical, "port 2 negative pin")
    r = Parameter(100.0, unit="Ohm", description="gyration resistance", positive=True)

    def equations(self):
        return [sp.Eq(self.p1.i + self.n1.i, 0), sp.Eq(self.p2.i + self.n2.i, 0),
                sp.Eq(self.p1.v - self.n1.v, -self.r * self.p2.i),
                sp.Eq(self.p2.v - self.n2.v, self.r * self.p1.i)]


class NegativeResistor(Component):
    """v = −R·i: delivers power (an active element; declares no dissipation, so no noise)."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    R = Parameter(1e3, unit="Ohm", description="magnitude of the resistance", positive=True)

    def equations(self):
        return [sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.p.v - self.n.v, -self.R * self.p.i)]


# --- the per-element computation ----------------------------------------------------------------

def adjoint(X):
    return np.conj(np.swapaxes(X, -1, -2))


def relative(A, B):
    """max over frequencies of ‖A − B‖/‖B‖ (Frobenius)."""
    return float(np.max(np.linalg.norm(A - B, axis=(-2, -1)) / np.linalg.norm(B, axis=(-2, -1))))


def per_element(sim, ports, f, T=300.15):
    """(Z, C_Z) from the elements' own sources: one copy of the model with a through source in
    parallel with every dissipative element (density S_k = 4kT·G_k) and one into every port
    node, linearized at the steady state and evaluated with dense solves
    (LinearModel.frequency_response). h_k: transfer from element k's source to the open-circuit
    port voltages; C_Z = Σ_k S_k·h_k·h_kᴴ; Z from the port sources' columns."""
    pairs = [(p, None) if isinstance(p, str) else tuple(p) for p in ports]
    terminals = list(dict.fromkeys(t for pair in pairs for t in pair if t is not None))
    M = np.zeros((len(pairs), len(terminals)))
    for k, (a, b) in enumerate(pairs):
        M[k, terminals.index(a)] = 1.0
        if b is not None:
            M[k, terminals.index(b)] = -1.0
    op = sim.operating_point()
    elements = noise_elements(sim)
    noisy, inputs = noise_source_model(sim, elements, tuple(terminals))
    domains = {f"{path}.{name}": port.domain for group in sim.component_groups
               for path, comp in zip(group.paths, group.components) for name, port in comp.ports().items()}
    lin = noisy.linearize([inputs[e.path] for e in elements] + [inputs[f"external({t})"] for t in terminals],
                          [f"{t}.{domains[t].across}" for t in terminals], at=transfer_operating_point(sim, noisy, op))
    H = M @ np.moveaxis(lin.frequency_response(f), 2, 0)
    h, Z = H[:, :, :len(elements)], H[:, :, len(elements):] @ M.T
    density = np.array([e.density(sim, op, T) for e in elements])
    return Z, np.einsum("fik,k,fjk->fij", h, density, np.conj(h))


def wave_transform(Z, C_Z, z0):
    """Noise-wave correlation from open-circuit voltage noise: a = F(v + Z0·i), b = F(v − Z0·i),
    F = diag(1/(2√z0)), v = Z·i + v_n; eliminating i gives b = S·a + c with
    S = F(Z − Z0)(Z + Z0)⁻¹F⁻¹ and c = (I − S)·F·v_n, so C_S = (I − S)·F·C_Z·F·(I − S)ᴴ."""
    n = Z.shape[-1]
    Z0, Fm = np.diag(z0), np.diag(1 / (2 * np.sqrt(z0)))
    S = Fm @ (Z - Z0) @ np.linalg.inv(Z + Z0) @ np.linalg.inv(Fm)
    K = (np.eye(n) - S) @ Fm
    return S, K @ C_Z @ adjoint(K)


# --- (a) random reciprocal passive networks ---------------------------------------------------------

@st.composite
def networks_with_ports(draw):
    """A random network of passive_networks.py (3 to 6 nodes) with ports: 2 or 3 distinct
    nodes, each against ground or against the node of an earlier port (ports that form no
    loop, so Z is regular and Y exists)."""
    n, elements = draw_network(draw, min_nodes=3)
    nodes = draw(st.lists(st.integers(1, n - 1), min_size=2, max_size=min(3, n - 1), unique=True))
    ports = [(node, draw(st.sampled_from([0] + nodes[:j]))) for j, node in enumerate(nodes)]
    z0 = draw(st.lists(st.floats(10.0, 1e3), min_size=len(ports), max_size=len(ports)))
    return n, elements, ports, z0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks_with_ports(), st.floats(50.0, 1000.0))
def test_bosma_forms_equal_the_per_element_sum_on_random_passive_networks(network, temperature):
    n, elements, port_nodes, z0 = network
    sim, names = build_network(n, elements)
    ports = [names[a] if b == 0 else (names[a], names[b]) for a, b in port_nodes]
    result = sim.multiport_noise(ports, F, T=temperature, z0=z0)
    Z_ref, C_ref = per_element(sim, ports, F, temperature)
    kT = BOLTZMANN * temperature
    # Two compiled copies and two solvers (sparse LU against dense solves) measure the same Z:
    # rounding only, 1e-10 of ‖Z‖ (measured 1.3e-12 at most on 300 random cases; S likewise,
    # 2.8e-12; Zᵀ against Z, 4.3e-13) — except where a port is nearly shorted by an inductor,
    # Z = R − R²/(R + jωL) in state-space form: there rounding grows like ε·q² with
    # q = ‖Z‖/‖Z + Zᴴ‖ (allowed 1e-12·q²; measured 1e-14·q² at q = 100).
    q_Z = np.linalg.norm(Z_ref, axis=(1, 2)) / np.linalg.norm(Z_ref + adjoint(Z_ref), axis=(1, 2))
    assert np.all(np.linalg.norm(result.Z - Z_ref, axis=(1, 2)) / np.linalg.norm(Z_ref, axis=(1, 2))
                  < np.maximum(1e-10, 1e-12 * q_Z**2))
    # R, L, C are reciprocal: Z = Zᵀ, so here 2kT(Z + Zᴴ) is also 4kT·Re(Z); Z's own rounding
    # bar (measured 4.6e-16·q² at q = 562: two ports each shunted by 0.1 mH at 10 Hz).
    assert np.all(np.linalg.norm(np.swapaxes(result.Z, 1, 2) - result.Z, axis=(1, 2))
                  / np.linalg.norm(result.Z, axis=(1, 2)) < np.maximum(1e-10, 1e-12 * q_Z**2))
    # Fluctuation–dissipation at the ports against each element's 4kT·G_k pushed through its own
    # transfer functions (C_Z), and that transformed to short-circuit currents (Y·C_Z·Yᴴ) and to
    # noise waves: 1e-10 of ‖C‖ (rounding of two compiled copies and two solvers; on 300 random
    # cases measured 1e-13 for C_Z and 2e-11 for C_S, at any q below). Y = Z⁻¹ amplifies the
    # rounding of Z (ε·‖Z‖ in either copy) by cond(Z), up to 3e5 where a port is nearly shorted
    # by an inductor, and C_Y = Y·C_Z·Yᴴ by q_Y = ‖Y‖/‖Y + Yᴴ‖ once more: C_Y within
    # 1e-14·cond(Z)·q_Y (measured at most 1.2e-15·cond(Z)·q_Y on 200 cases), C_Z like Z itself
    # (1e-12·q_Z²: 1.02e-10 at 10 Hz beside 0.1 mH shunts), and where Y itself
    # nearly cancels in Y·C_Z·Yᴴ (C_Y ∝ Y + Yᴴ) by ε·q_Y² (allowed 1e-12·q_Y²; measured 1.8e-14·q_Y²
    # at q_Y = 11, 7e-16·q_Y² at q_Y = 398).
    Y_ref = np.linalg.inv(Z_ref)
    S_ref, C_S_ref = wave_transform(Z_ref, C_ref, np.array(z0))
    assert relative(result.S, S_ref) < 1e-10
    identity = np.broadcast_to(np.eye(len(ports)), Z_ref.shape)
    references = {"Z": C_ref, "Y": Y_ref @ C_ref @ adjoint(Y_ref), "S": C_S_ref}
    q_Y = np.linalg.norm(Y_ref, axis=(1, 2)) / np.linalg.norm(Y_ref + adjoint(Y_ref), axis=(1, 2))
    # Waves go through (Z + Z0)⁻¹, which amplifies the same rounding by its condition number
    # (hypothesis found 1.02e-10 at cond(Z) = 2.6e5: a port nearly shorted by an inductor, and
    # 8e-14·cond at cond = 1418: allowed 1e-13·cond, the reference's own transform rounds too),
    # and C_Z's own rounding (1.007e-10 beside 0.1 mH shunts at 10 Hz).
    cond_S = np.linalg.cond(Z_ref + np.diag(np.asarray(z0, dtype=float)))
    allowed = {"Z": np.maximum(1e-10, 1e-12 * q_Z**2), "Y": np.maximum.reduce([np.full_like(q_Y, 1e-10), 1e-14 * np.linalg.cond(Z_ref) * q_Y,
                                                    1e-12 * q_Y**2]),
               "S": np.maximum.reduce([np.full_like(q_Z, 1e-10), 1e-13 * cond_S, 1e-12 * q_Z**2])}
    for form, C in references.items():
        error = np.linalg.norm(result.correlation(form) - C, axis=(1, 2)) / np.linalg.norm(C, axis=(1, 2))
        assert np.all(error < allowed[form]), (form, error)
    # The same formulas written with the port matrices, 2kT(Z + Zᴴ), 2kT(Y + Yᴴ) and
    # kT(I − S·Sᴴ): equal to 1e-10 where the ports dissipate, but X + Xᴴ (X = Z, Y, or I − S·Sᴴ
    # for waves) is then a cancellation: with q = ‖X‖/‖X + Xᴴ‖ ≫ 1 (a port shunted by an
    # inductor far below its corner, Z = R − R²/(R + jωL) in state-space form) the rounding of X
    # grows like ε·q² — allowed 1e-11·q², measured at most 2e-13·q² on 450 random cases with q up
    # to 5e6 and 1.1e-12·q² at q = 398 (a port shunted by 0.1 mH at 10 Hz). Y = Z⁻¹ carries Z's rounding times cond(Z) into the cancellation: allowed
    # 1e-11·q·max(q, cond(Z)) (measured 5e-13·q·cond(Z) at q = 11, cond(Z) = 45). This is why the
    # library takes Z + Zᴴ from the elements' dissipation instead.
    formulas = {"Z": (result.Z, 2 * kT * (result.Z + adjoint(result.Z))),
                "Y": (result.Y, 2 * kT * (result.Y + adjoint(result.Y))),
                "S": (identity, kT * (identity - result.S @ adjoint(result.S)))}
    for form, (X, C_formula) in formulas.items():
        hermitian = references[form] / (kT if form == "S" else 2 * kT)
        q = np.linalg.norm(X, axis=(1, 2)) / np.linalg.norm(hermitian, axis=(1, 2))
        C = references[form]
        error = np.linalg.norm(C_formula - C, axis=(1, 2)) / np.linalg.norm(C, axis=(1, 2))
        spread = np.maximum(q, np.linalg.cond(Z_ref)) if form == "Y" else q
        assert np.all(error <= np.maximum(1e-10, 1e-11 * q * spread)), (form, error, q)
    # Cholesky factors: lower triangular, L·Lᴴ = C to rounding (1e-12 of ‖C‖).
    for form in ("Z", "Y", "S"):
        L, C = result.cholesky(form), result.correlation(form)
        assert np.all(np.triu(L, 1) == 0)
        assert relative(L @ adjoint(L), C) < 1e-12


# --- (b) a non-reciprocal network -------------------------------------------------------------------

def gyrator_network(r=100.0, R1=1e3, R2=2e3, C2=1e-8):
    """R1 at port 1, R2 ∥ C2 at port 2, an ideal gyrator between them (both sides grounded)."""
    m = Model("gyrated")
    g, r1, r2, c2, gnd = (Gyrator("G", r=r), Resistor("R1", R=R1), Resistor("R2", R=R2),
                          Capacitor("C2", C=C2), Ground("gnd"))
    for part in (g, r1, r2, c2, gnd):
        m.add(part)
    m.connect(g.p1, r1.p)
    m.connect(g.p2, r2.p, c2.p)
    m.connect(g.n1, g.n2, r1.n, r2.n, c2.n, gnd.p)
    return m


def test_a_gyrator_needs_z_plus_z_adjoint_not_four_kt_re_z():
    sim = gyrator_network().compile()
    ports = ["R1.p", "R2.p"]
    result = sim.multiport_noise(ports, F)
    kT = BOLTZMANN * 300.15
    # Closed form: Y = [[G1, 1/r], [−1/r, G2 + jωC2]], so Y + Yᴴ = 2·diag(G1, G2): the
    # short-circuit currents are the two resistors' own Johnson currents, uncorrelated, at every
    # frequency, and the Norton sources are √(4kT·G) at each port alone.
    w = 2 * np.pi * F
    Y = np.array([[[1e-3, 1e-2], [-1e-2, 5e-4 + 1j * wk * 1e-8]] for wk in w])
    assert relative(result.Y, Y) < 1e-12
    C_Y = 4 * kT * np.diag([1e-3, 5e-4])
    assert relative(result.correlation("Y"), np.broadcast_to(C_Y, Y.shape)) < 1e-12
    np.testing.assert_allclose(result.cholesky("Y"), np.broadcast_to(np.sqrt(C_Y), Y.shape),
                               rtol=1e-12, atol=1e-12 * np.sqrt(C_Y).max())

    Z_ref, C_ref = per_element(sim, ports, F)
    C_Z = result.correlation("Z")
    assert relative(C_Z, C_ref) < 1e-10                     # measured 2e-14
    # 4kT·Re(Z) is not even Hermitian here: its off-diagonal ±4kT·Re(Z12) comes from the
    # lossless gyrator (Z12 = −Z21), and the true correlation has none. The difference is
    # larger than C itself (measured 12.6, 12.6 and 8.8 × ‖C‖ at the three frequencies): far
    # from rounding.
    wrong = 4 * kT * result.Z.real
    assert np.all(np.linalg.norm(wrong - C_ref, axis=(1, 2)) / np.linalg.norm(C_ref, axis=(1, 2)) > 1.0)
    S_ref, C_S_ref = wave_transform(Z_ref, C_ref, np.full(2, 50.0))
    assert relative(result.correlation("S"), C_S_ref) < 1e-10


def test_ports_in_two_domains_of_a_dc_machine():
    # Armature resistance and an EMF driving an inertia with viscous friction; a zero current
    # source keeps the armature pin open (an electrical pin must be connected). Port 1: that pin
    # against ground [V, A]; port 2: the shaft [rad/s, N·m]. With speed an across variable the
    # EMF (v = k·w, τ = −k·i) is a transformer between the domains, so Z is symmetric:
    # Z11 = Ra + k²/(jωJ + d), Z12 = Z21 = k/(jωJ + d), Z22 = 1/(jωJ + d) (1e-12: rounding).
    # The Bosma form in Z and in waves (z0 = 10 Ω and 0.1 (rad/s)/(N·m)) agrees with the
    # resistor's and the damper's own sources, 4kT/R [A²/Hz] and 4kT·d [(N·m)²/Hz] (1e-10).
    m = Model("motor")
    ra, emf, J, d, fixed, gnd, open_ = (Resistor("Ra", R=2.0), EMF("emf", k=0.05), Inertia("J", J=1e-4),
                                        Damper("D", d=1e-3), Fixed("fx"), Ground("gnd"), CurrentSource("I0", I=0.0))
    for part in (ra, emf, J, d, fixed, gnd, open_):
        m.add(part)
    m.connect(ra.p, open_.p)
    m.connect(ra.n, emf.p)
    m.connect(emf.n, open_.n, gnd.p)
    m.connect(emf.flange, J.flange_a)
    m.connect(J.flange_b, d.flange_a)
    m.connect(d.flange_b, fixed.flange)
    sim = m.compile()
    ports, z0 = ["Ra.p", "J.flange_b"], np.array([10.0, 0.1])
    result = sim.multiport_noise(ports, F, z0=z0)
    mobility = 1 / (2j * np.pi * F * 1e-4 + 1e-3)
    Z = np.array([[[2.0 + 0.05**2 * y, 0.05 * y], [0.05 * y, y]] for y in mobility])
    assert relative(result.Z, Z) < 1e-12
    Z_ref, C_ref = per_element(sim, ports, F)
    assert relative(result.correlation("Z"), C_ref) < 1e-10
    assert relative(result.correlation("S"), wave_transform(Z_ref, C_ref, z0)[1]) < 1e-10


# --- (c) equivalent sources -------------------------------------------------------------------------

def two_port(load: bool):
    """N: R1 and C1 from node 1 to ground, R2 and L2 from node 2, R3 between them. With
    ``load``: a lossless load L_a (node 1 to x), L_b (node 2 to x), C_x (x to ground)."""
    m = Model("two_port")
    parts = {"R1": Resistor("R1", R=1e3), "C1": Capacitor("C1", C=1e-7), "R2": Resistor("R2", R=4.7e3),
             "L2": Inductor("L2", L=1e-2), "R3": Resistor("R3", R=330.0), "gnd": Ground("gnd")}
    if load:
        parts.update(La=Inductor("La", L=2e-3), Lb=Inductor("Lb", L=5e-3), Cx=Capacitor("Cx", C=2e-8))
    p = {name: m.add(part) for name, part in parts.items()}
    node1, node2 = [p["R1"].p, p["C1"].p, p["R3"].p], [p["R2"].p, p["L2"].p, p["R3"].n]
    ground = [p["R1"].n, p["C1"].n, p["R2"].n, p["L2"].n, p["gnd"].p]
    if load:
        node1.append(p["La"].p)
        node2.append(p["Lb"].p)
        ground.append(p["Cx"].n)
        m.connect(p["La"].n, p["Lb"].n, p["Cx"].p)
    for node in (node1, node2, ground):
        m.connect(*node)
    return m


def test_equivalent_sources_reproduce_the_noise_outside_the_ports():
    # The Norton equivalent of N (its columns of L_Y injected as uncorrelated currents into the
    # port nodes, N itself noiseless) drives a lossless load; the noise at the load's inner
    # node x is Σ_j |H_x·L_Y[:, j]|² with H_x the transfer from the port currents to C_x.v.
    # Against sim.noise on N + load (every resistor's own source). Tolerance as in the random
    # networks: 1e-10, or 1e-12·q² with q = ‖Y‖/‖Y + Yᴴ‖ where node 2 is nearly shorted by L2
    # (q = 118 at 10 Hz, measured 2e-10 there; 1e-15 at q ≈ 1).
    f = np.geomspace(10, 1e6, 25)
    result = two_port(load=False).compile().multiport_noise(["R1.p", "R2.p"], f)
    L_Y = result.cholesky("Y")
    loaded = two_port(load=True)
    H_x = physlib.linearize(loaded, inputs=[physlib.inject_through("R1.p"), physlib.inject_through("R2.p")],
                            outputs=["Cx.v"]).frequency_response(f)[0].T          # (f, ports)
    equivalent = np.sum(np.abs(np.einsum("fp,fpj->fj", H_x, L_Y)) ** 2, axis=1)
    expected = loaded.compile().noise("Cx.v", f).psd
    q = np.linalg.norm(result.Y, axis=(1, 2)) / np.linalg.norm(result.Y + adjoint(result.Y), axis=(1, 2))
    assert np.all(np.abs(equivalent / expected - 1) <= np.maximum(1e-10, 1e-12 * q**2))


def test_cholesky_of_a_singular_correlation_has_a_zero_column():
    # One resistor, two ports joined by an inductor: one noise source, so C_Z = S_R·h·hᴴ has
    # rank 1 and the second column of L vanishes; L·Lᴴ = C to rounding (1e-12 of ‖C‖).
    m = Model("one_source")
    r, l, c, gnd = Resistor("R", R=50.0), Inductor("L", L=1e-6), Capacitor("C", C=1e-9), Ground("gnd")
    for part in (r, l, c, gnd):
        m.add(part)
    m.connect(r.p, l.p)
    m.connect(l.n, c.p)
    m.connect(r.n, c.n, gnd.p)
    result = m.compile().multiport_noise(["R.p", "C.p"], F)
    L, C = result.cholesky("Z"), result.correlation("Z")
    assert np.all(L[:, 1, 1] == 0) and np.all(L[:, 0, 0] > 0)
    assert relative(L @ adjoint(L), C) < 1e-12
    # A lossless network makes no noise: C = 0 and no source at all.
    m = Model("lossless")
    l, c, gnd = Inductor("L", L=1e-6), Capacitor("C", C=1e-9), Ground("gnd")
    for part in (l, c, gnd):
        m.add(part)
    m.connect(l.p, c.p)
    m.connect(l.n, c.n, gnd.p)
    result = m.compile().multiport_noise(["C.p"], [1e5, 1e6])
    assert np.all(result.cholesky("Z") == 0)


# --- (d) bad input -----------------------------------------------------------------------------------

def test_bad_ports_and_options_are_named():
    sim = gyrator_network().compile()
    with pytest.raises(UnknownNameError, match=r"'R1\.q'.*did you mean R1\.p"):
        sim.multiport_noise(["R1.q", "R2.p"], F)
    with pytest.raises(PhyslibError, match="same port"):
        sim.multiport_noise(["R1.p", "G.p1"], F)
    with pytest.raises(PhyslibError, match="one node"):
        sim.multiport_noise([("R1.p", "G.p1")], F)
    with pytest.raises(PhyslibError, match="z0"):
        sim.multiport_noise(["R1.p"], F, z0=[50.0, 75.0])
    with pytest.raises(PhyslibError, match="temperature"):
        sim.multiport_noise(["R1.p"], F, T=0.0)
    with pytest.raises(PhyslibError, match="frequencies"):
        sim.multiport_noise(["R1.p"], [-1.0])
    with pytest.raises(OptionError, match="'z_0'.*'z0'"):
        sim.multiport_noise(["R1.p"], F, z_0=50.0)
    with pytest.raises(PhyslibError, match="'X'"):
        sim.multiport_noise(["R1.p"], F).correlation("X")

    m = Model("mixed")
    src, r, emf, J, gnd, hot, amb = (VoltageSource("src", V=1.0), Resistor("R", R=10.0), EMF("emf", k=0.1),
                                     Inertia("J", J=1e-3), Ground("gnd"),
                                     HeatingResistor("RH", R_ref=100.0), FixedTemperature("amb", T=350.0))
    for part in (src, r, emf, J, gnd, hot, amb):
        m.add(part)
    m.connect(src.p, r.p, hot.p)
    m.connect(r.n, emf.p)
    m.connect(emf.n, src.n, hot.n, gnd.p)
    m.connect(emf.flange, J.flange_a)
    m.connect(hot.heat_port, amb.port)
    sim = m.compile()
    with pytest.raises(PhyslibError, match="src.V is a signal port"):
        sim.multiport_noise(["src.V"], F)
    with pytest.raises(DomainMismatchError, match="electrical port and a rotational port"):
        sim.multiport_noise([("R.n", "J.flange_b")], F)
    with pytest.raises(PhyslibError, match="RH.heat_port is a thermal port"):
        sim.multiport_noise(["RH.heat_port"], F)
    # A port on the ideal source's node is shorted: Z = 0 there, and Y does not exist.
    with pytest.warns(NoiseWarning, match=r"RH \(at 350 K\)"):
        result = sim.multiport_noise(["R.p", "R.n"], F)
    with pytest.raises(PhyslibError, match="singular at f = 10 Hz"):
        result.Y


def test_active_networks_and_non_thermal_noise_are_refused_or_flagged():
    m = Model("active")
    r, neg, gnd = Resistor("R", R=2e3), NegativeResistor("N", R=1e3), Ground("gnd")
    for part in (r, neg, gnd):
        m.add(part)
    m.connect(r.p, neg.p)
    m.connect(r.n, neg.n, gnd.p)
    # 2 kΩ ∥ −1 kΩ = −2 kΩ: the port delivers power, and N is what delivers it.
    with pytest.raises(ActiveNetworkError, match=r"not passive at f = 10 Hz: N \(NegativeResistor\)") as info:
        m.compile().multiport_noise(["R.p"], F)
    assert info.value.components == ["N"]

    m = Model("diode")
    src, r, d, c, gnd = (VoltageSource("V", V=5.0), Resistor("R", R=1e4), Diode("D1"),
                         Capacitor("C", C=1e-8), Ground("g"))
    for part in (src, r, d, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, d.p, c.p)
    m.connect(d.n, c.n, src.n, gnd.p)
    with pytest.warns(NoiseWarning, match=r"D1 \(shot noise\) is not thermal noise"):
        m.compile().multiport_noise(["D1.p"], F)


# --- (d') active networks: refused, whatever their ports show ----------------------------------------

def vcvs_buffer(Rs=1e4, Ro=100.0, RL=1e6, gain=10.0):
    """A VCVS of gain 10 sensing a 10 kΩ resistor (its control pins draw no current) and driving
    RL = 1 MΩ through Ro = 100 Ω."""
    m = Model("buffer")
    e, rs, ro, rl, g = (VCVS("E", gain=gain), Resistor("Rs", R=Rs), Resistor("Ro", R=Ro), Resistor("RL", R=RL),
                        Ground("g"))
    for part in (e, rs, ro, rl, g):
        m.add(part)
    m.connect(e.pc, rs.p)
    m.connect(e.p, ro.p)
    m.connect(ro.n, rl.p)
    m.connect(e.nc, e.n, rs.n, rl.n, g.p)
    return m


def test_an_amplifier_is_refused_even_where_its_port_looks_passive():
    # The buffer's output is Ro ∥ RL, passive, and 2kT·(Z + Zᴴ) = 4kT·(Ro ∥ RL) = 1.66e-18 V²/Hz
    # at 300 K: that was returned. The output's noise is 10⁴ times more, Rs's 4kT·Rs times the
    # gain squared and the divider's: 1.66e-14 V²/Hz, which sim.noise gives (1e-12: rounding).
    sim = vcvs_buffer().compile()
    with pytest.raises(ActiveNetworkError, match=r"RL\.p is not passive at f = 1000 Hz: E \(VCVS\) can deliver "
                                                 r"power.*sim\.noise\(output, f\)") as info:
        sim.multiport_noise(["RL.p"], [1e3], T=300.0)
    assert isinstance(info.value, PhyslibError) and info.value.components == ["E"] and info.value.f == 1e3
    kT, divider = BOLTZMANN * 300.0, 1e6 / (100.0 + 1e6)
    expected = 4 * kT * (1e4 * (10.0 * divider) ** 2 + 100.0 * divider)
    assert sim.noise("RL.p.v", [1e3], T=300.0).psd[0] == pytest.approx(expected, rel=1e-12)
    assert expected > 1e4 * 4 * kT * 100.0 * divider


def inverting_amplifier():
    """An ideal op-amp with Rin = 1 kΩ from a grounded 0 V source and Rf = 10 kΩ: gain −10."""
    m = Model("inverting")
    v, rin, rf, u, g = VoltageSource("V", V=0.0), Resistor("Rin", R=1e3), Resistor("Rf", R=1e4), IdealOpAmp("U"), Ground("g")
    for part in (v, rin, rf, u, g):
        m.add(part)
    m.connect(v.p, rin.p)
    m.connect(rin.n, rf.p, u.in_n)
    m.connect(rf.n, u.out)
    m.connect(u.in_p, v.n, g.p)
    return m


def non_inverting_opamp():
    """An OpAmp (V0 = 1e5) amplifying its 10 kΩ source resistor's node by 1 + 9k/1k through a
    50 Ω output resistor into 10 kΩ."""
    m = Model("non_inverting")
    rs, u, rf, rg, ro, rl, g = (Resistor("Rs", R=1e4), OpAmp("U", V0=1e5), Resistor("Rf", R=9e3), Resistor("Rg", R=1e3),
                                Resistor("Ro", R=50.0), Resistor("RL", R=1e4), Ground("g"))
    for part in (rs, u, rf, rg, ro, rl, g):
        m.add(part)
    m.connect(rs.p, u.in_p)
    m.connect(u.out, ro.p)
    m.connect(ro.n, rf.p, rl.p)
    m.connect(rf.n, rg.p, u.in_n)
    m.connect(rs.n, rg.n, rl.n, g.p)
    return m


def transconductor(kind):
    """A VCCS (gm = 1 mS) sensing a 1 kΩ resistor into 10 kΩ; with kind "CCCS", a current
    mirror of gain 10 fed by a zero-volt sensing source's current through 1 kΩ; with kind
    "blocks", a voltage sensor, a Gain block of 5 and a voltage source driven by it, into
    100 Ω + 10 kΩ (a controlled source built from signal blocks)."""
    m = Model(kind)
    g = m.add(Ground("g"))
    if kind == "VCCS":
        gm, rs, rl = m.add(VCCS("G", gm=1e-3)), m.add(Resistor("Rs", R=1e3)), m.add(Resistor("RL", R=1e4))
        m.connect(gm.pc, rs.p)
        m.connect(gm.p, rl.p)
        m.connect(gm.nc, gm.n, rs.n, rl.n, g.p)
    elif kind == "CCCS":
        vs, r1, f, rl = (m.add(SensingVoltageSource("Vs", V=0.0)), m.add(Resistor("R1", R=1e3)),
                         m.add(CCCS("F", gain=10.0)), m.add(Resistor("RL", R=1e3)))
        m.connect(r1.p, vs.p)
        m.connect(f.p, rl.p)
        m.connect(r1.n, vs.n, f.n, rl.n, g.p)
        m.connect(vs.i_sense, f.ic)
    else:
        rs, sensor, k, src, ro, rl = (m.add(Resistor("Rs", R=1e3)), m.add(VoltageSensor("S")), m.add(Gain("K", k=5.0)),
                                      m.add(VoltageSource("E")), m.add(Resistor("Ro", R=100.0)), m.add(Resistor("RL", R=1e4)))
        m.connect(rs.p, sensor.p)
        m.connect(sensor.v, k.u)
        m.connect(k.y, src.V)
        m.connect(src.p, ro.p)
        m.connect(ro.n, rl.p)
        m.connect(rs.n, sensor.n, src.n, rl.n, g.p)
    return m


@pytest.mark.parametrize("build, port, active", [
    (inverting_amplifier, "Rf.n", "U (IdealOpAmp)"), (inverting_amplifier, "Rin.n", "U (IdealOpAmp)"),
    (non_inverting_opamp, "RL.p", "U (OpAmp)"), (lambda: transconductor("VCCS"), "RL.p", "G (VCCS)"),
    (lambda: transconductor("CCCS"), "RL.p", "F (CCCS)"), (lambda: transconductor("blocks"), "RL.p", "E (VoltageSource)")],
    ids=["ideal op-amp output", "ideal op-amp input", "op-amp", "VCCS", "CCCS", "sensor-gain-source"])
def test_controlled_sources_and_op_amps_are_active(build, port, active):
    # Each names its active component (and only it: the zero-volt sensing source and the
    # sensor deliver nothing) at the first frequency.
    with pytest.raises(ActiveNetworkError, match=rf"not passive at f = 10 Hz: {re.escape(active)} can deliver power") as info:
        build().compile().multiport_noise([port], F)
    assert info.value.components == [active.split()[0]]


def test_an_inverting_amplifiers_output_noise_is_its_resistors_times_the_gain():
    # Its output is held by the op-amp: Z = 0 and 2kT·(Z + Zᴴ) = 0, what multiport_noise said.
    # The output carries Rf's 4kT·Rf and Rin's 4kT·Rin·(Rf/Rin)² (1e-12: rounding).
    sim = inverting_amplifier().compile()
    expected = 4 * BOLTZMANN * 300.15 * 1e4 * (1 + 1e4 / 1e3)
    np.testing.assert_allclose(sim.noise("Rf.n.v", F).psd, expected, rtol=1e-12)


def test_an_active_linear_portion_is_refused_by_its_names_in_the_model():
    # The rectifier's filter node drives a VCVS buffer inside the linear portion.
    m = rectifier(floating=False)
    e, ro, rl = m.add(VCVS("E", gain=5.0)), m.add(Resistor("Ro", R=100.0)), m.add(Resistor("RL", R=1e4))
    m.connect(e.pc, m.components["C"].p)
    m.connect(e.p, ro.p)
    m.connect(ro.n, rl.p)
    m.connect(e.nc, e.n, rl.n, m.components["gnd"].p)
    with pytest.raises(ActiveNetworkError, match=r"portion_noise: the linear portion of rectifier at R\.n, C\.p is "
                                                 r"not passive at f = 10 Hz: E can deliver power") as info:
        m.compile().portion_noise(F)
    assert info.value.components == ["E"]


def test_transformers_and_couplings_stay_passive():
    # Lossless two-ports that are neither elements nor stores by declaration (an ideal
    # transformer) or that are (a Transformer, a MutualInductance with its inductors): no error,
    # no warning, and C_Z equals the per-element sum (1e-10, as for the random networks).
    m = Model("couplings")
    parts = {"T": IdealTransformer("T", ratio=3.0), "X": Transformer("X", L1=1e-3, L2=4e-3, M=1.5e-3),
             "L1": Inductor("L1", L=1e-3), "L2": Inductor("L2", L=2e-3), "K": MutualInductance("K", M=1e-3),
             "R1": Resistor("R1", R=50.0), "R2": Resistor("R2", R=1e3), "R3": Resistor("R3", R=200.0),
             "C3": Capacitor("C3", C=1e-8), "R4": Resistor("R4", R=10.0), "R5": Resistor("R5", R=100.0),
             "g": Ground("g")}
    p = {name: m.add(part) for name, part in parts.items()}
    m.connect(p["R1"].p, p["T"].p1)
    m.connect(p["T"].p2, p["R2"].p, p["X"].p1)
    m.connect(p["X"].p2, p["R3"].p, p["C3"].p, p["R5"].p)
    m.connect(p["R5"].n, p["L1"].p)
    m.connect(p["L1"].n, p["K"].p1)
    m.connect(p["R4"].p, p["L2"].p)
    m.connect(p["L2"].n, p["K"].p2)
    m.connect(p["R1"].n, p["T"].n1, p["T"].n2, p["R2"].n, p["X"].n1, p["X"].n2, p["R3"].n, p["C3"].n, p["K"].n1,
              p["K"].n2, p["R4"].n, p["g"].p)
    sim = m.compile()
    ports = ["R1.p", "R3.p", "R4.p"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = sim.multiport_noise(ports, F)
    Z_ref, C_ref = per_element(sim, ports, F)
    assert relative(result.Z, Z_ref) < 1e-10
    assert relative(result.correlation("Z"), C_ref) < 1e-10


def test_a_component_that_only_absorbs_power_is_named_not_refused():
    # A VCCS across its own output is a conductance gm: it absorbs power and delivers none, so
    # the network stays passive; its loss is no element's, so Z + Zᴴ comes from Z, and the
    # warning names it: C_Z = 4kT·Re Z of RL ∥ 1/gm (1e-12: rounding).
    m = Model("conductance")
    gm, rl, g = VCCS("G", gm=1e-3), Resistor("RL", R=1e4), Ground("g")
    for part in (gm, rl, g):
        m.add(part)
    m.connect(gm.pc, gm.p, rl.p)
    m.connect(gm.nc, gm.n, rl.n, g.p)
    with pytest.warns(NoiseWarning, match=r"not two-port elements \(G\)"):
        result = m.compile().multiport_noise(["RL.p"], F)
    expected = 4 * BOLTZMANN * 300.15 / (1e-3 + 1e-4)
    np.testing.assert_allclose(result.correlation("Z")[:, 0, 0].real, expected, rtol=1e-12)


# --- (e) the linear portions of a model --------------------------------------------------------------

def rectifier(floating: bool):
    """A source and resistor feeding a diode into R2 ∥ C (node c, grounded). With ``floating``,
    a second diode returns from R2 ∥ C (nodes c and d) to ground, so that portion has no ground."""
    m = Model("rectifier")
    parts = {"V": VoltageSource("V", V=1.0), "R": Resistor("R", R=1e3), "D": Diode("D"),
             "C": Capacitor("C", C=1e-9), "R2": Resistor("R2", R=1e4), "gnd": Ground("gnd")}
    if floating:
        parts["D2"] = Diode("D2")
    p = {name: m.add(part) for name, part in parts.items()}
    m.connect(p["V"].p, p["R"].p)
    m.connect(p["R"].n, p["D"].p)
    m.connect(p["D"].n, p["C"].p, p["R2"].p)
    if floating:
        m.connect(p["C"].n, p["R2"].n, p["D2"].p)
        m.connect(p["D2"].n, p["V"].n, p["gnd"].p)
    else:
        m.connect(p["C"].n, p["R2"].n, p["V"].n, p["gnd"].p)
    return m


def test_each_linear_portion_is_a_multiport_at_the_nodes_it_shares():
    # The rectifier's linear portion (V, R, R2 ∥ C, ground) meets the diode at R.n and C.p. Its
    # multiport equals the per-element computation on the same network built by hand with the
    # two ports held open by zero current sources (1e-10: rounding of two compiled models).
    sim = rectifier(floating=False).compile()
    linear, = sim.portion_noise(F, T=310.0)
    assert linear.partition.linear and linear.ports == ["R.n", "C.p"]
    m = Model("by_hand")
    V, R, C, R2, gnd, open1, open2 = (VoltageSource("V", V=1.0), Resistor("R", R=1e3), Capacitor("C", C=1e-9),
                                      Resistor("R2", R=1e4), Ground("gnd"), CurrentSource("I1", I=0.0),
                                      CurrentSource("I2", I=0.0))
    for part in (V, R, C, R2, gnd, open1, open2):
        m.add(part)
    m.connect(V.p, R.p)
    m.connect(R.n, open1.n)
    m.connect(C.p, R2.p, open2.n)
    m.connect(C.n, R2.n, V.n, gnd.p, open1.p, open2.p)
    Z_ref, C_ref = per_element(m.compile(), ["R.n", "C.p"], F, T=310.0)
    assert relative(linear.Z, Z_ref) < 1e-10
    for form, C in {"Z": C_ref, "S": wave_transform(Z_ref, C_ref, np.full(2, 50.0))[1]}.items():
        assert relative(linear.correlation(form), C) < 1e-10, form
    # The compiled model's parameter values count, not the components' own (changed after
    # compiling), and params= replaces them.
    model = rectifier(floating=False)
    sim = model.compile()
    model.components["R"].R = 2e3
    assert sim.portion_noise(F)[0].Z[0, 0, 0] == pytest.approx(1e3, rel=1e-12)
    assert sim.portion_noise(F, params={"R.R": 5e2})[0].Z[0, 0, 0] == pytest.approx(5e2, rel=1e-12)


def test_a_floating_portion_is_measured_between_its_shared_nodes():
    # R2 ∥ C sits between two diodes: no ground of its own, so its one port is the voltage
    # between its shared nodes, Z = R2/(1 + jωR2C), C_Z = 4kT·Re Z (1e-12: rounding).
    sim = rectifier(floating=True).compile()
    results = sim.portion_noise(F)
    floating, = [r for r in results if "R2" in r.partition.components]
    assert floating.ports in (["C.n − C.p"], ["R2.n − R2.p"])
    Z = 1e4 / (1 + 2j * np.pi * F * 1e4 * 1e-9)
    assert relative(floating.Z[:, 0, 0][:, None, None], Z[:, None, None]) < 1e-12
    assert relative(floating.correlation("Z")[:, 0, 0][:, None, None],
                    (4 * BOLTZMANN * 300.15 * Z.real)[:, None, None]) < 1e-12


class UndeclaredResistor(Component):
    """v = R·i without a dissipation declaration: physlib cannot attribute its loss to an element."""

    p = Port(electrical, "positive pin")
    n = Port(electrical, "negative pin")
    R = Parameter(1e3, unit="Ohm", description="resistance", positive=True)

    def equations(self):
        return [sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.p.v - self.n.v, self.R * self.p.i)]


def test_dissipation_no_element_declares_falls_back_to_the_port_matrices_with_a_warning():
    # R1 (declared) in parallel with an undeclared 2 kΩ: the elements' sum would see only R1, so
    # Z + Zᴴ is taken from Z itself, and C_Z = 4kT·Re Z of R1 ∥ R2 ∥ C (1e-12: rounding).
    m = Model("undeclared")
    r1, r2, c, gnd = Resistor("R1", R=1e3), UndeclaredResistor("R2", R=2e3), Capacitor("C", C=1e-8), Ground("gnd")
    for part in (r1, r2, c, gnd):
        m.add(part)
    m.connect(r1.p, r2.p, c.p)
    m.connect(r1.n, r2.n, c.n, gnd.p)
    with pytest.warns(NoiseWarning, match="not two-port elements"):
        result = m.compile().multiport_noise(["C.p"], F)
    Z = 1 / (1 / 1e3 + 1 / 2e3 + 2j * np.pi * F * 1e-8)
    expected = 4 * BOLTZMANN * 300.15 * Z.real
    np.testing.assert_allclose(result.correlation("Z")[:, 0, 0].real, expected, rtol=1e-12)


def test_a_subsystems_exposed_port_is_the_port_it_exposes():
    """Two RC sections as subsystems, s1 exposing its resistor's ends as a and b, s2 fed at a
    from s1.b: the one-port at s1.b (= s2.a = s1.R1.n) is 1/(1/R1 + jωC1 + 1/(R2 + 1/(jωC2)))
    (1e-12), under the name it was asked by; exposed ports were once 'unknown port'."""
    def section(name, R, C):
        sub = Model(name)
        r, c, g = sub.add(Resistor("R1", R=R)), sub.add(Capacitor("C1", C=C)), sub.add(Ground("g"))
        sub.connect(r.n, c.p)
        sub.connect(c.n, g.p)
        sub.expose(r.p, "a")
        sub.expose(r.n, "b")
        return sub
    top = Model("top")
    source, ground = top.add(VoltageSource("V", V=1.0)), top.add(Ground("g"))
    s1, s2 = top.add(section("s1", 1e3, 1e-6)), top.add(section("s2", 2e3, 1e-7))
    top.connect(source.p, s1.a)
    top.connect(s1.b, s2.a)
    top.connect(source.n, ground.p)
    sim = top.compile()
    f = np.array([10.0, 100.0, 1e3])
    s = 2j * np.pi * f
    expected = 1 / (1 / 1e3 + s * 1e-6 + 1 / (2e3 + 1 / (s * 1e-7)))
    for port in ("s1.b", "s2.a", "s1.R1.n"):
        result = sim.multiport_noise([port], f, T=300.0)
        assert result.ports == [port]
        np.testing.assert_allclose(result.Z[:, 0, 0], expected, rtol=1e-12)
