"""An independent event-driven solution of rotational stick-slip chains, to test physlib against.

It shares nothing with physlib but the physics: inertias on a line, joined by spring-dampers,
stick-slip clutches and ideal one-way clutches, with stick-slip brakes to ground, driven by
torques given as functions of time. Its equations are written out here by hand and integrated
piecewise, mode by mode, with SciPy's ``solve_ivp`` (DOP853 at tolerances far tighter than
the runs it checks), its events located by ``solve_ivp``'s own root finding.

Within a mode, the accelerations a and the constraint torques λ of the locked elements
solve one linear (KKT) system::

    J·a − C·λ = τ(t, φ, w)        (each inertia: its applied torques plus constraint torques)
        Cᵀ·a  = 0                 (each locked element: no relative acceleration)

Element torques use the Modelica Standard Library's sign conventions: a clutch's torque tau
acts as +tau on the inertia at flange_a and −tau on the one at flange_b, its slip speed is
w_rel = w_b − w_a; a brake's torque tau acts as −tau on its inertia, w_rel = w. The stick-slip
rules are the MSL's (Otter, Elmqvist, Mattsson 1999): sliding, tau = ±mu·cgeo·fn against the
slip; a slip speed reaching zero locks the element if the torque needed to hold it is within
peak·mu·cgeo·fn, else it slides on the other way; a locked element breaks away, in the
direction of its torque, when that torque reaches the limit; with fn <= 0 it is free. A
one-way clutch (w_b >= w_a) locks when its slip reaches zero with flange_b falling behind,
and unlocks when its locking torque would have to pull (tau rising through zero).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.integrate import solve_ivp

FREE, STUCK, FORWARD, BACKWARD = 2, 0, 1, -1
OWC_FREE, OWC_LOCKED = 0, 1
GRAZING = 1e-3     # of a guard's scale (speeds: the largest; torques: the limit)
SIMULTANEOUS = 1e-9   # of a guard's scale: a guard this close to zero at another's crossing fires with it


@dataclass(eq=False)
class Friction:
    """A stick-slip clutch between inertias a and b, or (b None) a brake on inertia a."""
    name: str
    a: int
    b: int | None
    mu: float
    peak: float
    cgeo: float
    fn_max: float
    f_normalized: Callable[[float], float]
    mode: int = FREE

    def limit(self, t):
        return self.peak * self.mu * self.cgeo * self.fn(t)

    def fn(self, t):
        return self.fn_max * self.f_normalized(t)

    def slide(self, t):
        return self.mu * self.cgeo * self.fn(t)

    def w_rel(self, w):
        return w[self.b] - w[self.a] if self.b is not None else w[self.a]

    def column(self, n):
        """How the element's torque tau enters the inertias' equations (C's column)."""
        c = np.zeros(n)
        if self.b is None:
            c[self.a] = -1.0
        else:
            c[self.a], c[self.b] = 1.0, -1.0
        return c


@dataclass(eq=False)
class OneWay:
    """An ideal freewheel between inertias a and b: w_b >= w_a."""
    name: str
    a: int
    b: int
    mode: int = OWC_FREE

    def w_rel(self, w):
        return w[self.b] - w[self.a]

    def column(self, n):
        c = np.zeros(n)
        c[self.a], c[self.b] = 1.0, -1.0
        return c


@dataclass
class SpringDamper:
    """tau = c·(phi_b − phi_a − phi_rel0) + d·(w_b − w_a): +tau on a, −tau on b."""
    a: int
    b: int
    c: float
    d: float


@dataclass
class Chain:
    J: list[float]
    torques: dict[int, Callable[[float], float]] = field(default_factory=dict)   # inertia -> τ(t)
    springs: list[SpringDamper] = field(default_factory=list)
    frictions: list[Friction] = field(default_factory=list)
    one_ways: list[OneWay] = field(default_factory=list)
    time_events: list[float] = field(default_factory=list)    # where τ(t) or fn(t) jump

    @property
    def n(self):
        return len(self.J)


@dataclass
class Solution:
    t: np.ndarray
    phi: np.ndarray        # (n, len(t))
    w: np.ndarray
    events: list           # (t, element name, mode before, mode after)
    pieces: list           # (t_a, t_b, dense output) of each integrated piece
    grazing: bool = False  # a guard came within GRAZING of zero without crossing, or crossed
                           # with a margin that small: another correct solver may decide otherwise

    def at(self, t):
        """(phi, w) at the times t (an event's time gives the values after it)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        out = np.empty((2 * self.phi.shape[0], len(t)))
        for j, tj in enumerate(t):
            for ta, tb, dense in reversed(self.pieces):
                if ta <= tj <= tb:
                    out[:, j] = dense(tj)
                    break
            else:
                raise ValueError(f"t = {tj} outside the solution")
        n = self.phi.shape[0]
        return out[:n], out[n:]


def _locked(chain: Chain):
    stuck = [f for f in chain.frictions if f.mode == STUCK]
    locked = [o for o in chain.one_ways if o.mode == OWC_LOCKED]
    return stuck + locked


def _applied(chain: Chain, t, phi, w):
    """Torques on each inertia but the locked elements' constraint torques."""
    tau = np.zeros(chain.n)
    for k, source in chain.torques.items():
        tau[k] += source(t)
    for s in chain.springs:
        spring = s.c * (phi[s.b] - phi[s.a]) + s.d * (w[s.b] - w[s.a])
        tau[s.a] += spring
        tau[s.b] -= spring
    for f in chain.frictions:
        if f.mode in (FORWARD, BACKWARD):
            tau += f.column(chain.n) * f.mode * f.slide(t)
    return tau


def accelerations(chain: Chain, t, phi, w):
    """(a, λ): the inertias' accelerations and the locked elements' torques, in ``_locked``'s order."""
    n = chain.n
    rhs = np.concatenate([_applied(chain, t, phi, w), np.zeros(len(_locked(chain)))])
    sol = _kkt_inverse(chain) @ rhs
    return sol[:n], sol[n:]


def _kkt_inverse(chain: Chain) -> np.ndarray:
    """The inverse of the KKT matrix of the chain's current modes (it depends on nothing else),
    kept until the modes change: the right-hand side is evaluated thousands of times a mode."""
    key = tuple(e.mode for e in chain.frictions + chain.one_ways)
    cached = chain.__dict__.get("_kkt")
    if cached is None or cached[0] != key:
        n, locked = chain.n, _locked(chain)
        C = np.array([e.column(n) for e in locked]).reshape(len(locked), n).T
        K = np.block([[np.diag(chain.J), -C], [C.T, np.zeros((len(locked), len(locked)))]])
        cached = chain.__dict__["_kkt"] = (key, np.linalg.inv(K))
    return cached[1]


def _guards(chain: Chain, speed_scale: float, torque_scale: float):
    """Event functions g(t, y) for the current modes, each with the element it belongs to and
    its scale. Each is positive while its mode holds and falls through zero when it ends."""
    n = chain.n
    out = []
    locked = _locked(chain)

    def torque(k):
        return lambda t, y: accelerations(chain, t, y[:n], y[n:])[1][k]
    for f in chain.frictions:
        if f.mode in (FORWARD, BACKWARD):        # the slip reaches zero
            out.append((f, lambda t, y, f=f: f.mode * f.w_rel(y[n:]), lambda t: speed_scale))
        elif f.mode == STUCK:                    # the torque reaches the static limit
            held = torque(locked.index(f))
            out.append((f, lambda t, y, f=f, held=held: f.limit(t) - abs(held(t, y)), f.limit))
    for o in chain.one_ways:
        if o.mode == OWC_FREE:                   # flange_b falls back to flange_a's speed
            out.append((o, lambda t, y, o=o: o.w_rel(y[n:]), lambda t: speed_scale))
        else:                                    # the locking torque would have to pull
            held = torque(locked.index(o))
            out.append((o, lambda t, y, held=held: -held(t, y), lambda t: torque_scale))
    return out


def _requests(chain: Chain, t, phi, w, fired, scales, pre) -> tuple[dict, bool]:
    """The mode each element asks for at t (those that differ from its mode), and whether a
    decision was a close call (within GRAZING of going the other way). ``pre``: each
    element's mode before the event, and under "fired" the elements whose guards fired;
    ``scales``: (speed, torque) scales of the chain."""
    speed_scale, torque_scale = scales
    _, lam = accelerations(chain, t, phi, w)
    locked = _locked(chain)
    changes, close = {}, False
    for f in chain.frictions:
        if f.fn(t) <= 0:
            new = FREE
        elif f.mode == FREE:
            w_rel = f.w_rel(w)
            new = FORWARD if w_rel > 0 else BACKWARD if w_rel < 0 else STUCK
            # Pressed on a slip of almost nothing (a shaft the torque has just brought to rest
            # when the brake presses): whether it slides first, and which way, follows the
            # speed's integration error (-7.9e-8 rad/s in a rtol 1e-8 run where this solver
            # had rounding), and a slide may break another element away before it sticks.
            close |= abs(w_rel) < GRAZING * speed_scale
        elif f.mode in (FORWARD, BACKWARD):
            # It sticks when its slip reached zero, or when a slip just begun accelerates
            # against its own direction (the torque that broke it away went with another
            # element's change in the same event; one broken away by its own guard starts
            # at zero relative acceleration when peak = 1, and rounding decides nothing). An
            # element whose slip guard fired (it stuck, broke away the other way as two
            # clutches held the shaft, and the other's break-away took the torque off it)
            # is no such case: sliding on, its friction would drive the slip the other way.
            at_zero = abs(f.w_rel(w)) <= SIMULTANEOUS * speed_scale
            a = accelerations(chain, t, phi, w)[0]
            a_scale = np.max(np.abs(a)) + 1.0
            against = f.mode * f.w_rel(a) < -SIMULTANEOUS * a_scale
            broke_away_itself = f in pre["fired"] and pre[f] == STUCK
            new = STUCK if f in fired or (at_zero and against and not broke_away_itself) else f.mode
        else:
            tau = lam[locked.index(f)]
            breaks = abs(tau) > f.limit(t) or f in fired
            new = (FORWARD if tau > 0 else BACKWARD) if breaks else STUCK
            close |= f not in fired and abs(abs(tau) - f.limit(t)) < GRAZING * f.limit(t)
        if new != f.mode:
            changes[f] = new
    for o in chain.one_ways:
        if o.mode == OWC_LOCKED:
            tau = lam[locked.index(o)]
            new = OWC_FREE if (o in fired or tau > 0) else OWC_LOCKED
            close |= o not in fired and abs(tau) < GRAZING * torque_scale
        else:
            # Lock when the slip crossed zero, or it stands at zero (or below: an impact at the
            # start) with flange_b falling behind, unless it unlocked in this very event (its
            # torque passed zero, so flange_b's lag is rounding).
            w_rel = o.w_rel(w)
            a = accelerations(chain, t, phi, w)[0]
            at_zero = abs(w_rel) <= SIMULTANEOUS * speed_scale      # rounding of an impact's speeds
            behind = at_zero and a[o.b] < a[o.a] and pre[o] == OWC_FREE
            overrun = w_rel < -SIMULTANEOUS * speed_scale
            new = OWC_LOCKED if (o in fired or overrun or behind) else OWC_FREE
        if new != o.mode:
            changes[o] = new
    return changes, close


def _iterate_modes(chain: Chain, t, phi, w, fired, events, scales):
    """The event iteration at t, until no mode changes. ``fired``: elements whose guard
    crossed zero (each counts once). Returns the speeds, with the slip that a located
    crossing leaves (the root finding's tolerance) removed from each element that locks, and
    whether a decision was a close call."""
    close = False
    pre = {e: e.mode for e in chain.frictions + chain.one_ways}
    pre["fired"] = fired          # the guards that fired, as they were at the start of the event
    for _ in range(4 * (len(chain.frictions) + len(chain.one_ways)) + 4):
        changes, close_now = _requests(chain, t, phi, w, fired, scales, pre)
        close |= close_now
        if not changes:
            return w, close
        # Impulses before forces: a round that locks something releases nothing (a release
        # is decided on torques of speeds that the lock's impact changes).
        locks = {e: m for e, m in changes.items() if m == _LOCKED[type(e)]}
        if locks:
            changes = {e: m for e, m in changes.items() if e.mode != _LOCKED[type(e)]}
        for element, new in changes.items():
            events.append((t, element.name, element.mode, new))
            element.mode = new
            fired = fired - {element}
            if new == _LOCKED[type(element)]:
                w = _lock(chain, w, element)
    raise RuntimeError(f"modes do not settle at t = {t}")


_LOCKED = {Friction: STUCK, OneWay: OWC_LOCKED}


def _lock(chain: Chain, w, element):
    """Speeds after ``element`` locks (with every other locked element kept locked): the
    nearest speeds in the metric of kinetic energy, w − J⁻¹C(CᵀJ⁻¹C)⁻¹Cᵀw, a plastic impact
    that conserves momentum. At a located zero crossing it only removes the root finding's
    tolerance; a freewheel started turning the wrong way is an impact at t = 0."""
    n = chain.n
    C = np.array([e.column(n) for e in _locked(chain)]).T
    J_inv = 1.0 / np.asarray(chain.J)
    return w - J_inv * (C @ np.linalg.solve(C.T @ (J_inv[:, None] * C), C.T @ w))


def solve(chain: Chain, t_end, phi0, w0, *, rtol=1e-11, atol=1e-12, max_step=None) -> Solution:
    """Integrate the chain from t = 0 to t_end, mode by mode; the elements' modes are set
    at t = 0 by the event iteration (a clutch pressed at the start slides in the direction of
    its slip). Normal forces may change only at ``chain.time_events``. Guards are seen at
    the steps' ends, at most ``max_step`` apart (default t_end/1000): a group held still by
    its brakes has constant states, and the solver would step over its torques' peaks."""
    max_step = t_end / 1000 if max_step is None else max_step
    n = chain.n
    y = np.concatenate([np.asarray(phi0, float), np.asarray(w0, float)])
    t = 0.0
    events: list = []
    samples = np.linspace(0.0, t_end, 1001)
    torque_scale = 1.0 + max(sum(abs(source(tt)) for source in chain.torques.values()) for tt in samples)
    speed_scale = 1.0 + np.max(np.abs(w0))
    scales = (speed_scale, torque_scale)
    y[n:], grazing = _iterate_modes(chain, t, y[:n], y[n:], frozenset(), events, scales)
    ts, ys, pieces = [t], [y.copy()], []
    stops = sorted(te for te in chain.time_events if 0 < te < t_end) + [t_end]
    instant = 0           # pieces in a row of zero length

    def rhs(tt, yy):
        return np.concatenate([yy[n:], accelerations(chain, tt, yy[:n], yy[n:])[0]])
    while t < t_end:
        stop = next(s for s in stops if s > t)
        guards = _guards(chain, speed_scale, torque_scale)
        functions = []
        for _, g, scale in guards:
            # A guard at zero at the start (a slip just begun, two shafts coasting together
            # at w_rel = 0) fires when it goes clearly below zero, not on staying there.
            offset = SIMULTANEOUS * scale(t) if abs(g(t, y)) <= SIMULTANEOUS * scale(t) else 0.0

            def event(tt, yy, g=g, offset=offset):
                return g(tt, yy) + offset
            event.terminal, event.direction = True, -1
            functions.append(event)
        sol = solve_ivp(rhs, (t, stop), y, method="DOP853", rtol=rtol, atol=atol, dense_output=True,
                        events=functions or None, max_step=max_step)
        if sol.status < 0:
            raise RuntimeError(sol.message)
        fired = frozenset()
        if sol.status == 1:
            te = min(tev[0] for tev in sol.t_events if len(tev))
            y_new = sol.sol(te)
            # Guards that reach zero at the same instant (two freewheels in a row unlocking as
            # the torque that locks both passes zero) fire together, up to rounding.
            fired = frozenset(element for i, (element, g, scale) in enumerate(guards)
                              if (len(sol.t_events[i]) and sol.t_events[i][0] == te)
                              or abs(g(te, y_new)) <= SIMULTANEOUS * scale(te))
            if te <= t:         # a guard at zero moving the wrong way at once (w_rel = 0 and a_rel = 0)
                grazing = True
        else:
            te, y_new = stop, sol.y[:, -1]
        grazing |= _near_miss(guards, fired, sol.sol, t, te, sol.t)
        pieces.append((t, te, sol.sol))
        inside = (sol.t > t) & (sol.t < te)
        ts.extend(sol.t[inside].tolist()), ys.extend(sol.y[:, inside].T)
        ts.append(te), ys.append(y_new.copy())
        t, y = te, y_new.copy()
        if t < t_end:
            count = len(events)
            y[n:], close = _iterate_modes(chain, t, y[:n], y[n:], fired, events, scales)
            instant = instant + 1 if te <= pieces[-1][0] else 0
            if instant > 4 or (instant and len(events) == count):
                raise RuntimeError(f"guards of {sorted(e.name for e in fired)} fire again and again at t = {t}")
            grazing |= close
            ts.append(t), ys.append(y.copy())
    Y = np.array(ys).T
    return Solution(np.array(ts), Y[:n], Y[n:], events, pieces, grazing)


def _near_miss(guards, fired, dense, ta, tb, steps) -> bool:
    """Whether a guard that did not fire came within GRAZING of its scale of zero on (ta, tb],
    or one that fired never got further than that from zero first (a creep and return), or
    any guard never did. A guard that starts near zero (a slip just begun) counts from where
    it first leaves.

    Looked at 8 times in each of the solver's ``steps`` (and 256 times over the piece): a
    slip speed that dips through zero and back within one step crosses twice, which the root
    finding of ``solve_ivp`` misses (a 0.5 ms dip in a 0.67 s piece looked at every 2.6 ms
    was a stick the reference left out)."""
    within = np.linspace(0.0, 1.0, 9)[1:]
    inner = (steps[:-1, None] + np.diff(steps)[:, None] * within).ravel()
    times = np.union1d(np.linspace(ta, tb, 257)[1:], inner[(inner > ta) & (inner <= tb)])
    y = dense(times)
    for element, g, scale in guards:
        values = np.array([g(tt, y[:, j]) for j, tt in enumerate(times)])
        bound = GRAZING * np.array([scale(tt) for tt in times])
        away = np.flatnonzero(values > bound)
        if not len(away):
            # Never away from zero: a freewheel between two shafts that coast together with
            # no torque between them is as right locked as free.
            return True
        near = away[0] + np.flatnonzero(values[away[0]:] < bound[away[0]:])
        # One that fired comes near zero at the end; coming near and leaving again before
        # (a dip through zero and back within a step) is a near miss as well.
        if len(near) and (element not in fired or np.any(values[near[0]:] > bound[near[0]:])):
            return True
        if element in fired and _shallow_crossing(g, dense, tb, bound[-1], steps):
            return True
    return False


def _shallow_crossing(g, dense, tb, bound, steps) -> bool:
    """Whether a guard crossing zero at tb curves back so soon that it would turn within
    ``bound`` of zero: a slip speed meeting zero with a slope that vanishes (a freewheel's
    shaft slowing to its neighbour's speed as its torque passes zero). Its depth from the
    guard's slope and curvature at the crossing, g'²/2g'', on the last step's scale."""
    h = 1e-3 * (steps[-1] - steps[-2]) if len(steps) > 1 else 1e-9
    g0, g1, g2 = (g(t, dense(t)) for t in (tb, tb - h, tb - 2 * h))
    slope, curvature = (g0 - g1) / h, (g0 - 2 * g1 + g2) / h**2
    return slope < 0 < curvature and slope**2 / (2 * curvature) < bound
