"""Multiport thermal noise: the noise correlation matrices of a passive network at its ports.

**Ports.** A port is a component's port path (``"R1.p"``: the across value of that port's node
against the reference, e.g. a potential against ground) or a pair of them
(``("R2.p", "R2.n")``: the first node's across value minus the second's, a floating port; a
through value enters the first node and leaves the second). The port impedance matrix

    Z(jω)[k, l] = ∂v_k/∂i_l

is measured at the operating point with through sources injected at the ports' nodes
(the analysis points of :mod:`physlib.analysis.linear.analysis_points`) in a copy of the model compiled once
per compiled model and set of ports; v is in the ports' across unit, i in their through unit
(Ω for electrical ports, (m/s)/N for translational ones). From it:

* admittance Y = Z⁻¹;
* scattering matrix of power waves (Kurokawa 1965) with real reference impedances z0_k > 0,
  a_k = (v_k + z0_k·i_k)/(2√z0_k), b_k = (v_k − z0_k·i_k)/(2√z0_k), i into the port:
  b = S·a with S = F·(Z − Z0)·(Z + Z0)⁻¹·F⁻¹, Z0 = diag(z0), F = diag(1/(2√z0))
  (S = (Z − z0·I)·(Z + z0·I)⁻¹ for one z0).

**Noise.** For a passive linear network all at one temperature T, the fluctuation–dissipation
theorem in its multiport form (Twiss 1955; Bosma 1967) gives the one-sided correlation
matrices of the network's noise, in every form at once:

* C_Z = 2kT·(Z + Zᴴ) [across²/Hz]: open-circuit port voltages v_n (a Thévenin equivalent:
  the noiseless network with series sources v_n at its ports), ⟨v_n·v_nᴴ⟩ per Hz;
* C_Y = 2kT·(Y + Yᴴ) = Y·C_Z·Yᴴ [through²/Hz]: short-circuit port currents (a Norton
  equivalent: through sources injected into the ports' nodes);
* C_S = kT·(I − S·Sᴴ) [W/Hz]: the noise waves c emitted by the ports, b = S·a + c
  (Wedge & Rutledge 1991); from the open-circuit voltages c = (I − S)·F·v_n, so
  C_S = (I − S)·F·C_Z·F·(I − S)ᴴ.

These hold for non-reciprocal networks too (a gyrator inside): the Hermitian part (Z + Zᴴ)/2,
not Re(Z), is what dissipates; 4kT·Re(Z) is right only when Z is symmetric. They hold only
for dissipative elements in a lossless rest, and not for noise that is not thermal at T (shot
noise, an element at its own heat-port temperature: a
:class:`~physlib.analysis.noise.NoiseWarning` names the elements; :func:`~physlib.analysis.noise.noise`,
which sums each element's own source, then gives the noise of each output). Ports of the
thermal domain are refused: temperature × heat flow is not a power, and heat conduction's
noise is 4kT²G, not 4kTG.

**Active networks are an error.** A component that can deliver power — a controlled source, an
op-amp, a source driven from a sensor, a transistor, a negative resistance — breaks the theorem
even where the ports look passive: a VCVS buffer's output is its 100 Ω output resistance, yet
its 10 kΩ input resistor's noise reaches the output times the gain squared (10⁴ times the
2kT·(Z + Zᴴ) there); an inverting op-amp's output has Z = 0 and C_Z = 0, yet carries its
resistors' noise times the gain. Such components are found in the small-signal network itself
(:mod:`~physlib.analysis.noise.passivity`: the power each non-dissipative component absorbs,
under every excitation the network has, must vanish), and
:class:`~physlib.analysis.noise.passivity.ActiveNetworkError` names them; the noise of an active
network at a port is ``sim.noise(port's across variable, f)``, which sums every element's own
source through it. A component that only absorbs power without declaring it (no two-port
dissipation of its own) leaves the network passive: Z + Zᴴ is then taken from Z (below).

**Precision.** Z + Zᴴ is not formed from Z: where the ports are nearly lossless (a resistor
shunted by an inductor far below its corner frequency, Z = R·jωL/(R + jωL)) Re Z is a tiny
difference of large numbers and carries their rounding amplified by q² (q = ‖Z‖/‖Z + Zᴴ‖, 1e-5
relative error at q = 1e4). It is the power the elements dissipate instead: with through values
i at the ports, iᴴ·(Z + Zᴴ)·i/2 = Σ_e G_e·|v_e|² (Tellegen's theorem; inductors, capacitors,
masses, gyrators absorb nothing), so Z + Zᴴ = 2·Σ_e G_e·V_eᴴ·V_e with V_e the transfer from the
port through values to element e's across difference and G_e its conductance — a sum of
positive terms with full precision at any q. C_Y = Y·C_Z·Yᴴ and C_S = (I − S)·F·C_Z·F·(I − S)ᴴ
follow from C_Z the same way. Where some component dissipates without being a two-port element
(no conductance of its own: it only absorbs power, :mod:`~physlib.analysis.noise.passivity`),
Z + Zᴴ is taken from Z, its loss counted as thermal noise at T, with a warning naming it.

References: R. Q. Twiss, "Nyquist's and Thevenin's theorems generalized for nonreciprocal
linear networks", J. Appl. Phys. 26, 599 (1955); H. Bosma, "On the theory of linear noisy
systems", Philips Res. Rep. Suppl. 10 (1967); K. Kurokawa, "Power waves and the scattering
matrix", IEEE Trans. MTT 13, 194 (1965); S. W. Wedge and D. B. Rutledge, "Noise waves and passive
linear multiports", IEEE Microwave Guided Wave Lett. 1, 117 (1991).
"""
from __future__ import annotations

import difflib
import warnings
from functools import cached_property

import numpy as np

from ...assembly.netlist import ExposedPort
from ...core.errors import DomainMismatchError, PhyslibError, UnknownNameError
from .passivity import ActiveNetworkError, PowerCheck, power_ports
from .sources import BOLTZMANN, NoiseWarning, noise_elements, noise_source_model, transfer_operating_point
from ..linear.frequency_response import frequency_response
from ..linear.operating_point import OperatingPoint, operating_point

FORMS = ("Z", "Y", "S")


class MultiportNoise:
    """Port matrices and thermal-noise correlations of a multiport at frequencies ``f`` [Hz].

    ``ports``: the port labels (``"R1.p"``, ``"R2.p − R2.n"``); ``f`` [Hz]; ``T`` [K];
    ``z0``: the reference impedance of each port [across/through unit, Ω electrical];
    ``Z``, ``Y``, ``S``: arrays of shape (len(f), n, n), complex; ``dissipation``: Z + Zᴴ from
    the power the elements dissipate (see the module). ``correlation(form)`` and
    ``cholesky(form)`` give the noise, ``form`` one of "Z", "Y", "S" (see the module)."""

    def __init__(self, ports, f, T, z0, Z, dissipation):
        self.ports, self.f, self.T, self.z0, self.Z = ports, f, T, z0, Z
        self.dissipation = dissipation

    @cached_property
    def Y(self) -> np.ndarray:
        """Admittance matrices Y = Z⁻¹ [through/across], shape (len(f), n, n)."""
        n = len(self.ports)
        try:
            Y = np.linalg.solve(self.Z, np.broadcast_to(np.eye(n), self.Z.shape))
            residual = np.abs(Y @ self.Z - np.eye(n)).max(axis=(1, 2))
        except np.linalg.LinAlgError:           # exactly singular at some frequency
            Y, residual = None, np.full(len(self.f), np.inf)
        bad = np.flatnonzero(~(residual < 1e-6))
        if len(bad):
            raise PhyslibError(
                f"multiport_noise: Z at the ports {', '.join(self.ports)} is singular at "
                f"f = {self.f[bad[0]]:g} Hz, so Y = Z⁻¹ does not exist there: a port held at a "
                "fixed across value (shorted by the reference, an ideal source or, at 0 Hz, an "
                "inductor) or ports that are not independent; use the Z or S form")
        return Y

    @cached_property
    def S(self) -> np.ndarray:
        """Scattering matrices of power waves with reference impedances ``z0`` [1]:
        S = F·(Z − Z0)·(Z + Z0)⁻¹·F⁻¹, F = diag(1/(2√z0)), shape (len(f), n, n)."""
        Z0 = np.diag(self.z0)
        # X·(Z + Z0) = Z − Z0, solved as (Z + Z0)ᵀ·Xᵀ = (Z − Z0)ᵀ; Z + Z0 is regular for a passive Z.
        X = np.swapaxes(np.linalg.solve(np.swapaxes(self.Z + Z0, 1, 2), np.swapaxes(self.Z - Z0, 1, 2)), 1, 2)
        scale = np.sqrt(self.z0)            # F·X·F⁻¹ = X[k, l]·√z0_l/√z0_k
        return X * scale[None, None, :] / scale[None, :, None]

    def correlation(self, form: str = "Z") -> np.ndarray:
        """One-sided noise correlation matrices, shape (len(f), n, n), Hermitian, positive
        semidefinite: "Z" 2kT·(Z + Zᴴ) [across²/Hz] (open-circuit voltages), "Y"
        2kT·(Y + Yᴴ) [through²/Hz] (short-circuit currents), "S" kT·(I − S·Sᴴ) [W/Hz]
        (noise waves). Diagonal: each port's PSD; off-diagonal: cross-spectra ⟨x_k·x_l*⟩."""
        C_Z = 2 * BOLTZMANN * self.T * self.dissipation
        if form == "Z":
            return C_Z
        if form in ("Y", "S"):          # 2kT·(Y + Yᴴ) = Y·C_Z·Yᴴ; kT·(I − S·Sᴴ) = K·C_Z·Kᴴ
            K = self.Y if form == "Y" else \
                (np.eye(len(self.ports)) - self.S) / (2 * np.sqrt(self.z0))[None, None, :]
            C = K @ C_Z @ _adjoint(K)
            return 0.5 * (C + _adjoint(C))      # Hermitian to the last bit, as C_Z is
        raise PhyslibError(f"multiport_noise: form is one of {', '.join(map(repr, FORMS))}, got {form!r}")

    def cholesky(self, form: str = "Z") -> np.ndarray:
        """Lower-triangular L with ``correlation(form) = L·Lᴴ``, shape (len(f), n, n): the
        equivalent uncorrelated sources. Column j holds the complex amplitudes at the ports
        [unit/√Hz] of the j-th of n independent sources of unit one-sided PSD (x = L·w with
        ⟨w·wᴴ⟩ = I per Hz): series across sources for "Z", through sources injected into the
        ports' nodes for "Y", noise waves for "S". Source j reaches ports j, j+1, ... only;
        where C is singular (fewer independent sources than ports, e.g. a lossless part)
        the surplus columns are zero."""
        return _cholesky(self.correlation(form))

    def __repr__(self):
        return (f"<MultiportNoise {', '.join(self.ports)}: {len(self.f)} frequencies "
                f"{self.f.min():g}–{self.f.max():g} Hz, T = {self.T:g} K>")


def multiport_noise(model, ports, f, *, T: float = 300.15, z0=50.0, at=None) -> MultiportNoise:
    """Port matrices Z, Y, S and the thermal-noise correlation matrices of ``model`` at ``ports``.

    model: a compiled model (from ``Model.compile()``: the ports are measured in a copy of its
    ``physlib.Model``). ports: a list of n port paths (``"C2.p"``: the node against the
    reference) and/or pairs of port paths of one domain (``("R2.p", "R2.n")``: a floating port).
    f: frequencies [Hz] (finite, >= 0). T: the network's temperature [K] (> 0). z0: the real
    reference impedance of the power waves [across/through unit, Ω electrical], one number or
    one per port (> 0). at: an operating point of ``model`` (default: its steady state).

    Everything in the model is inside the multiport; the ports are open in it. See the module
    for the formulas and when they hold; the network must be passive at every f: a component
    that can deliver power (a controlled source, an op-amp) raises
    :class:`~physlib.analysis.noise.passivity.ActiveNetworkError` naming it.
    """
    if not (isinstance(T, (int, float)) and np.isfinite(T) and T > 0):
        raise PhyslibError(f"multiport_noise: the temperature T must be a positive number of kelvins, got {T!r}")
    f = np.atleast_1d(np.asarray(f, dtype=float))
    if f.ndim != 1 or f.size == 0 or np.any(~np.isfinite(f)) or np.any(f < 0):
        raise PhyslibError(f"multiport_noise: f must be a list of finite frequencies >= 0 [Hz], got {f!r}")
    labels, terminals, M = _resolve_ports(model, ports)
    z0 = _reference_impedances(z0, len(labels))
    op = at if at is not None else operating_point(model)
    if not isinstance(op, OperatingPoint) or op.model is not model:
        raise PhyslibError("multiport_noise: at must be an operating point of this compiled model")
    _check_elements(model, op, T)
    elements = [e for e in noise_elements(model, op.p, parts=False)
                if e.component.ports()[e.ports[0]].domain.name != "thermal"]
    candidates = power_ports(model, elements)
    probed, inputs = noise_source_model(model, elements, tuple(terminals))
    across = [f"{t}.{name}" for t, name in terminals.items()]
    for element in elements:
        name = element.component.ports()[element.ports[0]].domain.across
        across += [f"{element.path}.{port}.{name}" for port in element.ports]
    probes = [name for ports in candidates.values() for pair in ports for name in pair]
    lin = probed.linearize([inputs[f"external({t})"] for t in terminals] + [inputs[e.path] for e in elements],
                           across + probes, at=transfer_operating_point(model, probed, op))
    conductances = np.array([e.conductance(model, op) for e in elements])
    nodes = _frequency_response(lin, f, labels, len(terminals), len(across))   # per node injection
    check = PowerCheck(lin, len(terminals), conductances, candidates)
    absorbing = check.refuse_active(model, f, np.diagonal(nodes[:, :len(terminals)], axis1=1, axis2=2),
                                    labels, [e.path for e in elements])
    H = nodes @ M.T                                                         # per port through value
    Z = M @ H[:, :len(terminals)]
    _check_passive(Z, f, labels)
    dissipation = _dissipation(H[:, len(terminals)::2] - H[:, len(terminals) + 1::2], conductances, Z, labels,
                               absorbing)
    return MultiportNoise(labels, f, float(T), z0, Z, dissipation)


def _component_port(model, path: str) -> str:
    """The component port that the exposed port ``path`` of a subsystem stands for ('s1.b' ->
    's1.R1.n', through nested exposures), or ``path`` itself where it is none."""
    owner_path, _, name = path.rpartition(".")
    if model.source_model is None or not owner_path:
        return path
    try:
        exposed = model.source_model[owner_path].exposed_ports.get(name)
    except (PhyslibError, AttributeError):      # no such member, or a component's port
        return path
    if exposed is None:
        return path
    inner = f"{owner_path}.{exposed.target.path}"
    return _component_port(model, inner) if isinstance(exposed.target, ExposedPort) else inner


def _resolve_ports(model, ports):
    """(labels, {terminal port path: its across variable's name}, M) with port k's across
    value v_k = Σ_t M[k, t]·v_t and the terminals' injected through values i_t = Σ_k M[k, t]·i_k."""
    if isinstance(ports, str) or not isinstance(ports, (list, tuple)) or not ports:
        raise PhyslibError("multiport_noise: ports is a list of port paths and/or pairs of them, e.g. "
                           f"['R1.p', ('R2.p', 'R2.n')]; got {ports!r}")
    table = {f"{path}.{name}": port.domain for group in model.component_groups
             for path, comp in zip(group.paths, group.components) for name, port in comp.ports().items()}
    physical = [p for p, domain in table.items() if not domain.is_signal]
    labels, pairs, nodes = [], [], {}
    for entry in ports:
        pair = (entry, None) if isinstance(entry, str) else tuple(entry) if isinstance(entry, (list, tuple)) else ()
        if len(pair) != 2 or not isinstance(pair[0], str) or not (pair[1] is None or isinstance(pair[1], str)):
            raise PhyslibError(f"multiport_noise: a port is a port path ('R1.p') or a pair of them "
                               f"(('R2.p', 'R2.n')), got {entry!r}")
        named, pair = pair, tuple(q if q is None or q in table else _component_port(model, q) for q in pair)
        for path in filter(None, pair):
            domain = table.get(path)
            if domain is None:
                close = difflib.get_close_matches(path, physical, n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else f"; ports: {', '.join(physical[:12])}, ..."
                raise UnknownNameError(f"multiport_noise: unknown port {path!r}{hint}")
            if domain.is_signal:
                raise PhyslibError(f"multiport_noise: {path} is a signal port; multiport noise is measured "
                                   "at physical ports (across and through variables)")
            if domain.name == "thermal":
                raise PhyslibError(f"multiport_noise: {path} is a thermal port: temperature × heat flow is "
                                   "not a power, so the fluctuation–dissipation form 2kT·(Z + Zᴴ) does not "
                                   "apply (heat conduction's noise is 4kT²G); use sim.noise for thermal outputs")
            nodes[path] = model.variable(f"{path}.{domain.across}")[0]
        if pair[1] is not None:
            if table[pair[0]].name != table[pair[1]].name:
                raise DomainMismatchError(f"multiport_noise: the port pair {pair} joins a {table[pair[0]].name} "
                                          f"port and a {table[pair[1]].name} port; both must be of one domain")
            if nodes[pair[0]] == nodes[pair[1]]:
                raise PhyslibError(f"multiport_noise: {pair[0]} and {pair[1]} are one node (their across "
                                   "values are equal), so the port pair has no voltage across it")
        labels.append(named[0] if named[1] is None else f"{named[0]} − {named[1]}")
        pairs.append(pair)
    seen = {}
    for label, pair in zip(labels, pairs):
        key = (nodes[pair[0]], None if pair[1] is None else nodes[pair[1]])
        if key in seen:
            raise PhyslibError(f"multiport_noise: the ports {seen[key]} and {label} are the same port "
                               "(the same nodes): give each port once")
        seen[key] = label
    by_node = {}                                    # one injection per node
    for path, node in nodes.items():
        by_node.setdefault(node, path)
    terminals = {path: table[path].across for path in by_node.values()}
    columns = {node: k for k, node in enumerate(by_node)}
    M = np.zeros((len(labels), len(terminals)))
    for k, (a, b) in enumerate(pairs):
        M[k, columns[nodes[a]]] += 1.0
        if b is not None:
            M[k, columns[nodes[b]]] -= 1.0
    return labels, terminals, M


def _reference_impedances(z0, n):
    """z0 as n positive reference impedances (one number: the same at every port)."""
    try:
        values = np.asarray(z0, dtype=float)
    except (TypeError, ValueError):
        values = np.array([np.nan])
    values = np.full(n, float(values)) if values.ndim == 0 else values
    if values.shape != (n,) or np.any(~np.isfinite(values)) or np.any(values <= 0):
        raise PhyslibError(f"multiport_noise: z0 is one positive reference impedance or one per port "
                           f"({n}), got {z0!r}")
    return values


def _check_elements(model, op, T):
    """Warn about noise elements whose noise is not thermal noise at T: the
    fluctuation–dissipation form then differs from their actual noise."""
    others = []
    for element in noise_elements(model, op.p, parts=False):
        domain = element.component.ports()[element.ports[0]].domain
        if element.kind != "thermal":
            others.append(f"{element.path} ({element.kind} noise)")
        elif domain.name == "thermal":
            others.append(f"{element.path} (heat conduction)")
        elif element.heat_port:
            own = element.local_values(model, op)[f"{element.heat_port}.T"]
            if abs(own - T) > 1e-9 * T:
                others.append(f"{element.path} (at {own:.6g} K)")
    if others:
        warnings.warn(f"multiport_noise: {', '.join(others[:8])} {'is' if len(others) == 1 else 'are'} not "
                      f"thermal noise at T = {T:g} K, yet 2kT·(Z + Zᴴ) treats every dissipation as such: the "
                      "correlation matrices give them 4kT·G instead of their own noise (sim.noise sums their "
                      "own sources)", NoiseWarning, stacklevel=3)


def _frequency_response(lin, f, labels, terminals, outputs):
    """C·(jωI − A)⁻¹·B + D from the first ``terminals`` inputs (the node injections) to the
    first ``outputs`` outputs at each frequency, shape (len(f), outputs, terminals): one sparse
    LU per frequency for a large linear portion (thousands of states, few ports)."""
    B, C, D = lin.sparse("B")[:, :terminals], lin.sparse("C")[:outputs], lin.sparse("D")[:outputs, :terminals]
    try:
        return frequency_response(lin.sparse("A"), B, C, D, f, lin.sparse("E")).transpose(2, 0, 1)
    except PhyslibError as err:
        raise PhyslibError(f"multiport_noise: the network at the ports {', '.join(labels)}: {err} (e.g. "
                           "a node reached only through capacitors, at 0 Hz), so Z is infinite there; "
                           "leave that frequency out") from None


def _dissipation(V, G, Z, labels, absorbing=()):
    """Z + Zᴴ from the power the elements dissipate: with through values i at the ports the
    network absorbs iᴴ·(Z + Zᴴ)·i/2 = Σ_e G_e·|V_e·i|² (Tellegen: lossless elements — inductors,
    capacitors, masses, gyrators, transformers — absorb none), so Z + Zᴴ = 2·Σ_e G_e·V_eᴴ·V_e.
    V: (f, elements, ports) transfers from the port through values to each element's across
    difference; G: the elements' conductances. A sum of positive terms, so it keeps full
    precision where the ports are nearly lossless and Z + Zᴴ formed from Z cancels.

    Dissipation in a component that is not a two-port element (so without a conductance) is
    missing from the sum: then Z + Zᴴ from Z is used, with a warning."""
    from_elements = 2 * np.einsum("fek,e,fel->fkl", np.conj(V), G, V)
    from_ports = Z + _adjoint(Z)
    # Z's rounding reaches Z + Zᴴ as about ε·‖Z‖ times the cancellation inside Z (below 1e-9·‖Z‖
    # on random networks with q up to 5e6): 1e-6·‖Z‖ separates that from missing dissipation.
    gap = np.linalg.norm(from_elements - from_ports, axis=(1, 2))
    if not absorbing and np.all(gap <= 1e-6 * np.linalg.norm(Z, axis=(1, 2))):
        return from_elements
    which = f" ({', '.join(absorbing[:8])})" if absorbing else ""
    warnings.warn(f"multiport_noise: the network at the ports {', '.join(labels)} dissipates power in "
                  f"components that are not two-port elements{which} (no conductance of their own), so "
                  "Z + Zᴴ is taken from Z itself, their loss counted as thermal noise at T: less precise "
                  "where the ports are nearly lossless", NoiseWarning, stacklevel=3)
    return from_ports


def _check_passive(Z, f, labels):
    """Raise unless Z + Zᴴ is positive semidefinite (to rounding) at every frequency."""
    hermitian = Z + _adjoint(Z)
    lowest = np.linalg.eigvalsh(hermitian)[:, 0]
    scale = np.linalg.norm(Z, ord=2, axis=(1, 2))
    bad = np.flatnonzero(lowest < -1e-9 * scale)
    if len(bad):
        k = bad[0]
        raise ActiveNetworkError(
            f"multiport_noise: the network at the ports {', '.join(labels)} is not passive at "
            f"f = {f[k]:g} Hz (Z + Zᴴ has the eigenvalue {lowest[k]:.4g}): it can deliver power, so "
            "fluctuation–dissipation does not give its noise; analyse the noise of its elements with "
            "sim.noise instead", f=float(f[k]))


def _adjoint(X):
    return np.conj(np.swapaxes(X, -1, -2))


def _cholesky(C):
    """Lower-triangular L with C = L·Lᴴ for Hermitian positive semidefinite C (..., n, n).

    The Cholesky–Banachiewicz recursion, column by column; a pivot that is zero within rounding
    (at most 4·n·ε of its diagonal entry, or negative by rounding) gives a zero column: C is
    singular there and one source fewer is needed."""
    n = C.shape[-1]
    L = np.zeros(C.shape, dtype=complex)
    for j in range(n):
        diagonal = C[..., j, j].real
        pivot = diagonal - np.sum(np.abs(L[..., j, :j]) ** 2, axis=-1)
        kept = pivot > 4 * n * np.finfo(float).eps * diagonal
        root = np.sqrt(np.where(kept, pivot, 1.0))
        L[..., j, j] = np.where(kept, root, 0.0)
        below = C[..., j + 1:, j] - np.einsum("...ik,...k->...i", L[..., j + 1:, :j], np.conj(L[..., j, :j]))
        L[..., j + 1:, j] = np.where(kept[..., None], below / root[..., None], 0.0)
    return L
