"""Whether a network is passive, as multiport noise needs it: the components that, besides the
dissipative elements, exchange power in the small-signal network.

Twiss's C_Z = 2kT·(Z + Zᴴ) is the thermal noise of dissipative elements (each a conductance
G ≥ 0 with its source 4kT·G) embedded in a lossless rest: every other component absorbs no
power, for any excitation. A component that can deliver power — a controlled source (VCVS,
VCCS, CCCS, CCVS), an op-amp, a source driven from a sensor, a transistor, a negative
resistance — amplifies the elements' noise along paths the port matrices need not show (a
buffer's output impedance is passive; its input resistor's noise times the gain squared is not
in it), so the correlation matrices would be silently wrong. Nothing in a component declares
this (VCVS and a lossless gyrator declare the same: no dissipation, no energy), so it is
measured, in the network, at every frequency.

**Screening.** Components that store energy by their own declaration (an ``energy()``, no
``dissipation()``, no signal input: capacitors, inductors, couplings, masses, springs) take as
power the rate of change of that energy, nothing on average: they are lossless. Every other
component with physical ports (not thermal: T·Q is no power) — a source, a sensor, a
transformer, a gyrator, a controlled source — is screened. All of the network's small-signal
excitations drive it at once: a current in parallel with each dissipative element (amplitude
√G_e, so that each delivers power of order one) and one into each port's node (amplitude
1/√|Z_tt|), with random complex amplitudes (a fixed seed). A component absorbs
P_c = Re Σ_ports conj(across)·through; |P_c| above :data:`EXCHANGE` of √(S_c·S), S_c its
apparent power Σ|across|·|through| and S the network's (the elements' dissipation plus every
screened component's S_c), is not rounding. Measured on lossless parts: gyrators and ideal
transformers among random R, C, L of 1 Ω–100 kΩ, 10 pF–100 µF, 1 µH–1 H, 1 Hz–1 GHz, below
2e-14; capacitors and inductors (if they were screened) of random R–L–C networks of that range,
below 2e-8, where their own P_c/S_c reaches 2e-5 at frequencies that barely excite them (which
is why neither scale alone will do). An active component's P_c is of the order of the power
it makes the elements dissipate, so it stands out by 1/√Q even in a network of quality Q.

**Deciding.** For those few, the power they absorb as a quadratic form over all the
excitations, M_c = (aᴴ·t + tᴴ·a)/2 (a, t: the transfers from every excitation to its ports'
across and through values), has rank at most twice its ports: its nonzero eigenvalues are those
of K·X·Xᴴ with X = [a; t] and K = ½·[[0, I], [I, 0]], a small Hermitian problem. Positive
semidefinite (to :data:`INDEFINITE` of its largest eigenvalue): the component only absorbs —
dissipation that no element declares, which multiport_noise counts through Z + Zᴴ from Z with a
warning. Otherwise it can deliver power: :class:`ActiveNetworkError` names it. A dissipative
element whose small-signal conductance is negative (a tunnel diode's valley) is active too.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sps

from ...core.component import Input
from ...core.errors import PhyslibError
from ..linear.frequency_response import frequency_response

EXCHANGE = 1e-6       # |P_c| above this of √(its apparent power × the network's): not lossless
INDEFINITE = 1e-6     # an eigenvalue below −this of the largest: the component delivers power


class ActiveNetworkError(PhyslibError):
    """A multiport noise analysis of a network that is not passive: ``components`` are the
    paths of the components that deliver power (empty where only the ports show it), ``f``
    the first frequency [Hz] where they do."""

    def __init__(self, message, components=(), f=None):
        super().__init__(message)
        self.components, self.f = list(components), f


def power_ports(model, elements) -> dict:
    """{component path: [(across path, through path) of each of its physical, non-thermal
    ports]} for every component that is not one of the dissipative ``elements``, not a
    reference (ground) and not a store of energy: a class that declares its stored energy and
    no dissipation, with no signal input (a capacitor, an inductor, a mass, a spring), takes
    as power the rate of change of that energy, nothing on average."""
    skip = {element.owner for element in elements}
    out = {}
    for group in model.component_groups:
        storage = group.template.energy is not None and group.template.dissipation is None
        for path, comp in zip(group.paths, group.components):
            ports = comp.ports()
            if path in skip or comp.is_reference or \
                    (storage and not any(isinstance(port, Input) for port in ports.values())):
                continue
            pairs = [(f"{path}.{name}.{port.domain.across}", f"{path}.{name}.{port.domain.through}")
                     for name, port in ports.items() if not port.domain.is_signal and port.domain.name != "thermal"]
            if pairs:
                out[path] = pairs
    return out


class PowerCheck:
    """The screening and the decision of the module for one linearized network.

    lin: the model with a source in parallel with each element and one into each port's node,
    inputs [node injections (``terminals`` of them), element sources], outputs [the
    ``terminals`` across values, each element's two port across values, then the candidates'
    (across, through) pairs in the order of ``candidates`` (:func:`power_ports`)];
    conductances: the elements' G."""

    def __init__(self, lin, terminals: int, conductances, candidates: dict):
        self.A, self.B, self.C, self.D = (lin.sparse(name) for name in "ABCD")
        self.E = lin.sparse("E")
        self.terminals, self.G = terminals, np.asarray(conductances, dtype=float)
        self.candidates = candidates
        first = terminals + 2 * len(self.G)
        self.rows, start = {}, first
        for path, ports in candidates.items():
            self.rows[path] = np.arange(start, start + 2 * len(ports))
            start += 2 * len(ports)

    def negative(self, names) -> list[str]:
        """The elements (by ``names``) whose conductance is negative: they deliver power."""
        return [name for name, G in zip(names, self.G) if G < 0]

    def exchanging(self, f, Z_nodes) -> list[str]:
        """The candidates that exchange power at some frequency, screened with one random
        excitation. Z_nodes: (len(f), terminals) driving-point impedances of the ports' nodes."""
        if not self.candidates:
            return []
        rng = np.random.default_rng(20250301)
        m, T = len(self.G), self.terminals
        phases = rng.standard_normal(m + T) + 1j * rng.standard_normal(m + T)
        weights = np.sqrt(np.maximum(self.G, 0)) * phases[T:]
        # the elements' complex excitation as two real columns (the matrices are real)
        columns = np.column_stack([weights.real, weights.imag])
        B = sps.hstack([self.B[:, :T], sps.csr_matrix(self.B[:, T:] @ columns)]).tocsr()
        D = np.hstack([self.D[:, :T].toarray(), self.D[:, T:].toarray() @ columns])
        rows = np.arange(T, self.C.shape[0])
        R = frequency_response(self.A, B, self.C[rows], D[rows], f, self.E)   # (outputs, T + 2, f)
        Y = R[:, T, :] + 1j * R[:, T + 1, :] + \
            np.einsum("otf,ft->of", R[:, :T, :], _node_weights(Z_nodes) * phases[:T])
        across = Y[:2 * m]
        dissipated = self.G @ np.abs(across[0::2] - across[1::2]) ** 2          # per frequency
        powers, apparent = [], []
        for rows_c in self.rows.values():
            a, t = Y[rows_c[0::2] - T], Y[rows_c[1::2] - T]
            powers.append(np.real(np.sum(np.conj(a) * t, axis=0)))
            apparent.append(np.sum(np.abs(a) * np.abs(t), axis=0))
        network = dissipated + np.sum(apparent, axis=0)
        return [path for path, power, own in zip(self.rows, powers, apparent)
                if np.any(np.abs(power) > EXCHANGE * np.sqrt(own * network))]

    def delivering(self, path, f, Z_nodes):
        """The first frequency index where the candidate ``path`` can deliver power, or None
        (it only absorbs)."""
        rows = self.rows[path]
        scale = np.concatenate([np.ones(self.terminals), np.sqrt(np.maximum(self.G, 0))])
        B = self.B @ sps.diags(scale)
        D = self.D[rows].toarray() * scale
        X = frequency_response(self.A, B, self.C[rows], D, f, self.E)           # (2p, inputs, f)
        X = X.transpose(2, 0, 1)
        X[:, :, :self.terminals] *= _node_weights(Z_nodes)[:, None, :]
        a, t = X[:, 0::2], X[:, 1::2]
        # a's unit is not t's: balance them (a·t, the power, is unchanged) before the Gram matrix
        balance = np.sqrt(np.linalg.norm(t, axis=(1, 2)) / np.maximum(np.linalg.norm(a, axis=(1, 2)), 1e-300))
        balance = np.where(np.isfinite(balance) & (balance > 0), balance, 1.0)
        X = np.concatenate([a * balance[:, None, None], t / balance[:, None, None]], axis=1)
        p = a.shape[1]
        K = 0.5 * np.block([[np.zeros((p, p)), np.eye(p)], [np.eye(p), np.zeros((p, p))]])
        s, V = np.linalg.eigh(X @ np.conj(np.swapaxes(X, 1, 2)))
        root = V * np.sqrt(np.maximum(s, 0))[:, None, :]
        values = np.linalg.eigvalsh(np.conj(np.swapaxes(root, 1, 2)) @ K @ root)
        lowest, highest = values[:, 0], values[:, -1]
        # (where the component is not excited, the eigenvalues are rounding of the Gram matrix)
        bad = np.flatnonzero(lowest < -INDEFINITE * np.maximum(highest, 1e-9 * s[:, -1]))
        return int(bad[0]) if len(bad) else None

    def refuse_active(self, model, f, Z_nodes, labels, elements) -> list[str]:
        """Raise :class:`ActiveNetworkError` naming the components that can deliver power
        (:mod:`~physlib.analysis.noise.passivity`); returns those that only absorb it."""
        active = {name: 0 for name in self.negative(elements)}
        absorbing = []
        for path in self.exchanging(f, Z_nodes):
            k = self.delivering(path, f, Z_nodes)
            if k is None:
                absorbing.append(path)
            else:
                active[path] = k
        if not active:
            return absorbing
        kinds = {path: type(comp).__name__ for group in model.component_groups
                 for path, comp in zip(group.paths, group.components)}
        negative = set(self.negative(elements))
        first = min(active.values())
        names = ", ".join(f"{path} ({kinds.get(path, '?')}{', conductance < 0' if path in negative else ''})"
                          for path in active)
        raise ActiveNetworkError(
            f"multiport_noise: the network at the ports {', '.join(labels)} is not passive at f = {f[first]:g} "
            f"Hz: {names} can deliver power (a controlled source, an amplifier, a negative resistance), so "
            "2kT·(Z + Zᴴ) is not its noise. Use sim.noise(output, f) for the noise at a port (output: its "
            "across variable, e.g. 'R1.p.v'), which sums every element's own source through the active "
            "network, or leave the active part out of the multiport", components=list(active), f=float(f[first]))


def _node_weights(Z_nodes):
    """1/√|Z_tt| per frequency and port node (0 where the node is shorted: no power enters)."""
    magnitude = np.abs(Z_nodes)
    return np.where(magnitude > 0, 1 / np.sqrt(np.where(magnitude > 0, magnitude, 1.0)), 0.0)
