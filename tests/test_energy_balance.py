"""Energy bookkeeping from the components' stored-energy and dissipation declarations."""
import numpy as np
import pytest
from scipy.integrate import simpson

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor, VoltageSource
from physlib.components.signals import Sine


def test_source_energy_equals_stored_plus_dissipated():
    # Source → R1 → node a; L1 from a to ground; C1 + R2 from a to ground; C2 across R1.
    m = Model("rlc_net")
    src = m.add(VoltageSource("src", V=Sine(amplitude=3.0, f=120.0, offset=1.0)))
    r1, r2 = m.add(Resistor("R1", R=50.0)), m.add(Resistor("R2", R=20.0))
    l1 = m.add(Inductor("L1", L=0.2, i0=0.05))
    c1, c2 = m.add(Capacitor("C1", C=20e-6, v0=0.5)), m.add(Capacitor("C2", C=1e-6))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r1.p, c2.p)
    m.connect(r1.n, c2.n, l1.p, c1.p)
    m.connect(c1.n, r2.p)
    m.connect(l1.n, r2.n, src.n, gnd.p)
    t = np.linspace(0.0, 0.05, 20001)
    res = m.compile().simulate(0.05, t_eval=t, rtol=1e-11, atol=1e-13)

    delivered = -res["src.v"] * res["src.i"]      # i flows into the source's p pin
    source_energy = simpson(delivered, x=t)
    losses = simpson(res.dissipated_power(), x=t)
    stored = res.stored_energy()
    # Each side is O(0.1 J); Simpson on 20,001 points and rtol 1e-11 put the quadrature and
    # solver errors near 1e-10 relative, so 1e-6 checks the declarations, not the numerics.
    assert abs(source_energy - (stored[-1] - stored[0] + losses)) < 1e-6 * abs(source_energy)
    assert set(res.model.system.energy_owner) == {"L1", "C1", "C2"}
    assert set(res.model.system.dissipation_owner) == {"R1", "R2"}
    np.testing.assert_allclose(res.stored_energy("C1"), 0.5 * 20e-6 * res["C1.v"] ** 2, rtol=1e-12)
    np.testing.assert_allclose(res.dissipated_power("R1"), res["R1.v"] ** 2 / 50.0, rtol=1e-12)


# --- hybrid elements: energy books across mode changes ------------------------------------------
#
# Books: ΔE_stored(t) + ∫₀ᵗ dissipated_power() dt = ∫₀ᵗ (power delivered by the sources) dt.
# The integrals are composite Simpson on a grid split at the events, where the integrands are
# not smooth: on a segment [a, b] of step h whose integrand f is smooth, the error is at most
# (b − a)·h⁴/180·max|f⁗| (zero for polynomials of degree <= 3). Where the integrand jumps at a
# time event (a switch closing), a result on a given t_eval holds only the value after the event
# at its time stamp, so the segment ends SLIVER before it and [b − SLIVER, b] is booked with the value there:
# an error of at most ½·max|f′|·SLIVER².

SLIVER = 1e-9      # s


def split_grid(bounds, panels, jumps=()):
    """Output times [s] for :func:`books_integral`: 2·n + 1 equally spaced points on each
    interval between consecutive ``bounds`` (n = ``panels``, or its k-th entry on the k-th
    interval), ending SLIVER early at a bound in ``jumps``, the shared end points once.
    Returns (t_eval, segments), segments the (first, last) index of each interval's points."""
    times, segments = [], []
    panels = np.broadcast_to(panels, len(bounds) - 1)
    for a, b, n in zip(bounds[:-1], bounds[1:], panels):
        seg = np.linspace(a, b - SLIVER if b in jumps else b, 2 * n + 1)
        start = len(times) - 1 if times and times[-1] == a else len(times)
        times.extend(seg[1:] if start < len(times) else seg)
        segments.append((start, start + 2 * n))
    return np.array(times), segments


def books_integral(f, t, segments):
    """∫ f dt [f's unit × s] from t[0] to each even-numbered node of each segment (composite
    Simpson), the gap between segments (a SLIVER before a jump) booked at the value before it.
    Returns (node indices, integrals)."""
    nodes, values, total = [segments[0][0]], [0.0], 0.0
    for first, last in segments:
        if first != nodes[-1]:          # a sliver before a jump: the left value times its width
            total += f[nodes[-1]] * (t[first] - t[nodes[-1]])
            nodes.append(first), values.append(total)
        for k in range(first, last, 2):
            h = (t[k + 2] - t[k]) / 2
            total += h / 3 * (f[k] + 4 * f[k + 1] + f[k + 2])
            nodes.append(k + 2), values.append(total)
    return np.array(nodes), np.array(values)


def _piecewise_integral(pieces, f, t):
    """∫ f dt from the first piece's start to each time in ``t``, where ``pieces`` is a list of
    (start, end, data) in order and ``f(data)`` a numpy Polynomial valid on that piece."""
    out = np.zeros(len(t))
    for a, b, data in pieces:
        antiderivative = f(data).integ(lbnd=a)
        out += np.where(t > a, antiderivative(np.clip(t, a, b)), 0.0)
    return out


def _piecewise_value(pieces, f, t):
    """f(data)(t) on the piece each time in ``t`` falls in (the later piece at a shared end)."""
    out = np.full(len(t), np.nan)
    for a, b, data in pieces:
        on = (t >= a) & (t <= b)
        out[on] = f(data)(t[on])
    return out


@pytest.mark.parametrize("kind", ["clutch", "brake"])
def test_books_balance_with_slipping_friction_under_a_ramped_normal_force(kind):
    """Torque source (T = 2 N·m) on J1 = 0.2 kg·m² spinning at 150 rad/s; a clutch to
    J2 = 1.35 kg·m² at rest, or a brake to the fixed housing (J2 → ∞). The normal force ramps
    from 0 to fn_max between 0.5 s and 1.5 s, so the slip torque is q(t) = mu·cgeo·fn_max·ramp(t),
    at most S = 10 N·m. Closed form: free until 0.5 s (J1 speeds up at T/J1), then J1·w1′ = T − q,
    J2·w2′ = q while slipping; it locks where w1 = w2 (clutch 4.375 s, brake 5 s) and stays
    locked, since the torque that takes (clutch J2·T/(J1 + J2) = 1.74 N·m, brake T = 2 N·m) is
    below S. The slip power q·(w1 − w2) [W] is the element's dissipation while slipping; stuck
    or free it dissipates nothing."""
    from numpy.polynomial import Polynomial as Poly

    from physlib.components.rotational import Brake, Clutch, Inertia, Torque
    from physlib.components.signals import Ramp

    T, J1, w10 = 2.0, 0.2, 150.0                         # N·m, kg·m², rad/s
    J2 = 1.35 if kind == "clutch" else np.inf           # kg·m²
    mu, cgeo, fn_max, ta, dur, t_end = 0.5, 0.1, 200.0, 0.5, 1.0, 6.0
    S, tb = mu * cgeo * fn_max, ta + dur

    m = Model(f"{kind}_ramp")
    drive, j1 = m.add(Torque("drive", tau=T)), m.add(Inertia("J1", J=J1, w0=w10))
    element = (Clutch if kind == "clutch" else Brake)(
        kind, mu=mu, cgeo=cgeo, fn_max=fn_max, f_normalized=Ramp(t0=ta, duration=dur))
    m.add(element)
    m.connect(drive.flange, j1.flange_a)
    m.connect(j1.flange_b, element.flange_a)
    if kind == "clutch":
        m.connect(element.flange_b, m.add(Inertia("J2", J=J2)).flange_a)
    sim = m.compile()

    # Closed form: (start, end, (w1, w2, q)) with polynomials of t [s] on each phase.
    pieces, w1, w2 = [], Poly([w10]), Poly([0.0])
    for a, b, q in ((0.0, ta, Poly([0.0])), (ta, tb, Poly([-S * ta / dur, S / dur])),
                    (tb, None, Poly([S]))):
        w1 = Poly([w1(a)]) + ((T - q) / J1).integ(lbnd=a)
        w2 = Poly([w2(a)]) + (q / J2).integ(lbnd=a)
        if b is None:                                    # slipping until w1 = w2
            b = (w1 - w2).roots()[0].real
        pieces.append((a, b, (w1, w2, q)))
    t_lock = pieces[-1][1]
    a_locked = T / (J1 + J2)                             # rad/s², 0 for the brake
    w_locked = Poly([w1(t_lock) - a_locked * t_lock, a_locked])
    pieces.append((t_lock, t_end, (w_locked, w_locked, Poly([0.0]))))
    assert t_lock == pytest.approx(4.375 if kind == "clutch" else 5.0, abs=1e-12)

    # Simpson is exact for these integrands (the slip power q·(w1 − w2) is a cubic during the
    # ramp, linear after it; the source power T·w1 at most a quadratic), so the books' error is
    # the solver's alone (rtol 1e-10). Splitting at the closed-form lock time is good to the
    # event's location (1e-10 s), and the slip power goes to zero there anyway.
    t_eval, segments = split_grid([0.0, ta, tb, t_lock, t_end], panels=200)
    res = sim.simulate(t_end, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(res.t, t_eval)
    slide = -1 if kind == "clutch" else 1     # the clutch's w_rel = w2 − w1 < 0, the brake's w1 > 0
    changes = [e for e in res.events if e.component == kind and e.cause != "initial"]
    assert [(e.before, e.after) for e in changes] == [({"mode": 2}, {"mode": slide}),
                                                      ({"mode": slide}, {"mode": 0})]
    # It engages one settling probe (100·event_tol) after the ramp starts, and locks on time.
    assert 0 <= changes[0].t - ta <= 1.1e-8
    assert changes[1].t == pytest.approx(t_lock, abs=1e-8)

    # The declaration, mode by mode: q·|w_rel| slipping, zero stuck or free.
    power, mode = res.dissipated_power(kind), res[f"{kind}.mode"]
    slipping = mode == slide
    np.testing.assert_allclose(power[slipping], S * res[f"{kind}.f_normalized"][slipping]
                               * np.abs(res[f"{kind}.w_rel"][slipping]), rtol=1e-12)
    assert np.all(power[slipping] >= 0)
    # Stuck: w_rel stays where the lock left it (~1e-9 rad/s), times the holding torque.
    assert np.max(np.abs(power[mode == 0])) < 1e-7
    assert np.max(np.abs(power[mode == 2])) < 1e-20        # free: tau = 0 up to rounding

    source_power = -res["drive.flange.tau"] * res["drive.flange.w"]      # W, into J1
    nodes, work = books_integral(source_power, t_eval, segments)
    _, lost = books_integral(res.dissipated_power(), t_eval, segments)
    stored = res.stored_energy()[nodes]
    t = t_eval[nodes]
    scale = stored[0] + work[-1]              # all the energy that enters the books, ~3 kJ
    error = stored - stored[0] + lost - work
    print(f"{kind} books: max |error| {np.max(np.abs(error)):.3g} J of {scale:.4g} J")
    assert np.max(np.abs(error)) < 1e-6 * scale                    # checked at 801 times
    assert np.count_nonzero(t > t_lock + 0.5) > 50 and lost[-1] > 0.5 * scale

    # Each term against the closed form. The exact speeds are polynomials, which the solver's
    # BDF formulas reproduce to rounding (1e-14 of the scale measured): 1e-10 is its rtol.
    closed_work = _piecewise_integral(pieces, lambda d: T * d[0], t)
    closed_lost = _piecewise_integral(pieces, lambda d: d[2] * (d[0] - d[1]), t)
    closed_stored = _piecewise_value(pieces, lambda d: J1 / 2 * d[0]**2 + (
        J2 / 2 * d[1]**2 if kind == "clutch" else 0 * d[1]), t)
    np.testing.assert_allclose(closed_stored - closed_stored[0] + closed_lost, closed_work,
                               rtol=0, atol=1e-12 * scale)
    for ours, exact in ((work, closed_work), (lost, closed_lost), (stored, closed_stored)):
        np.testing.assert_allclose(ours, exact, rtol=0, atol=1e-10 * scale)

    # The lock itself loses the plastic-impact energy ½·J1·J2/(J1 + J2)·w_rel² (½·J1·w_rel² for
    # the brake) of the slip speed just before it; located to 1e-10 s at a relative
    # deceleration of 40-47 rad/s², that is ~1e-18 J and the books need no entry for it. (A lock
    # seen late, as with a fixed step, loses exactly this: tests/test_events.py.) The default
    # output grid holds the rows just before and after the event.
    dense = sim.simulate(t_end, rtol=1e-10, atol=1e-12)
    t_locked = next(e.t for e in dense.events if e.component == kind and e.after == {"mode": 0})
    before, after = np.flatnonzero(dense.t == t_locked)
    w_rel = dense[f"{kind}.w_rel"][before]
    plastic = 0.5 * (J1 * J2 / (J1 + J2) if kind == "clutch" else J1) * w_rel**2
    assert abs(w_rel) < 2e-8 and plastic < 1e-15      # event_tol·47 rad/s² + the solver's error
    E = dense.stored_energy()
    assert E[before] - E[after] == pytest.approx(plastic, abs=1e-15 * scale)   # rounding of E


def test_books_balance_through_a_freewheel_lock_without_losses():
    """Torque source (T = 2 N·m) on J1 = 0.2 kg·m² from rest; a freewheel to J2 = 1.35 kg·m²
    overrunning at 30 rad/s. J1 catches up at t = 30·J1/T = 3 s (w_rel = w2 − w1 reaches zero
    from above) and the freewheel locks; then both speed up at T/(J1 + J2). Free it transmits
    nothing, locked its flanges turn together: tau·w_rel = 0 in both modes, and a lock where
    w_rel crosses zero is no impact. So it declares no dissipation, and the source's work is
    all in the stored energy."""
    from physlib.components.rotational import Inertia, OneWayClutch, Torque

    T, J1, J2, w20, t_end = 2.0, 0.2, 1.35, 30.0, 4.0
    m = Model("freewheel")
    drive, j1 = m.add(Torque("drive", tau=T)), m.add(Inertia("J1", J=J1))
    fw, j2 = m.add(OneWayClutch("fw")), m.add(Inertia("J2", J=J2, w0=w20))
    m.connect(drive.flange, j1.flange_a)
    m.connect(j1.flange_b, fw.flange_a)
    m.connect(fw.flange_b, j2.flange_a)
    t_lock = w20 * J1 / T
    # The source power T·w1 is linear in t on either side of the lock: Simpson is exact.
    t_eval, segments = split_grid([0.0, t_lock, t_end], panels=100)
    res = m.compile().simulate(t_end, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    assert [(e.after, e.t) for e in res.events if e.component == "fw" and e.cause != "initial"] \
        == [({"mode": 1}, pytest.approx(t_lock, abs=1e-8))]
    assert res.model.system.dissipation_owner == []
    nodes, work = books_integral(-res["drive.flange.tau"] * res["drive.flange.w"], t_eval, segments)
    stored = res.stored_energy()[nodes]
    scale = stored[0] + work[-1]              # 607.5 J + 151 J
    assert np.max(np.abs(stored - stored[0] - work)) < 1e-6 * scale
    # Closed form: w1 = T·t/J1 up to the lock, then both at 30 + T/(J1 + J2)·(t − t_lock).
    t = t_eval[nodes]
    w = np.where(t < t_lock, T * t / J1, w20 + T / (J1 + J2) * (t - t_lock))
    exact_work = np.where(t < t_lock, T**2 * t**2 / (2 * J1),
                          T * w20 * t_lock / 2 + T * (w20 * (t - t_lock)
                                                      + T / (J1 + J2) * (t - t_lock)**2 / 2))
    np.testing.assert_allclose(work, exact_work, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(res["J1.w"][nodes], w, rtol=0, atol=1e-9)


def _first_order_phase(V, Rs, RL, C, v0, T):
    """The closed form of one phase of the switched RC circuit (source V [V] through Rs [Ohm]
    onto C [F] in parallel with RL [Ohm], from vC = v0 [V]) over a duration T [s] (scalar or
    array): vC = v∞ + (v0 − v∞)·e^(−s/τ) with v∞ = V·RL/(Rs + RL), τ = C·Rs·RL/(Rs + RL).
    Returns vC(T) [V], ∫i ds [C], ∫i² ds [A²·s] and ∫vC² ds [V²·s], i = (V − vC)/Rs [A]."""
    v_inf, tau = V * RL / (Rs + RL), C * Rs * RL / (Rs + RL)
    e1, e2 = -np.expm1(-T / tau), -np.expm1(-2 * T / tau)     # 1 − e^(−T/τ), 1 − e^(−2T/τ)

    def integrals(a, b):            # of y = a + b·e^(−s/τ): ∫y, ∫y²
        return a * T + b * tau * e1, a * a * T + 2 * a * b * tau * e1 + b * b * tau / 2 * e2

    int_i, int_i2 = integrals((V - v_inf) / Rs, -(v0 - v_inf) / Rs)
    _, int_v2 = integrals(v_inf, v0 - v_inf)
    return v_inf + (v0 - v_inf) * (1 - e1), int_i, int_i2, int_v2


def test_books_balance_with_an_rc_circuit_switched_by_a_switch_at_default_ron_goff():
    """10 V source → Switch (Ron = Goff = 1e-5, the defaults) → R = 0.1 Ohm → C = 1 F in
    parallel with RL = 1 Ohm; the switch is closed from 0.2 s to 1.2 s. Each phase is a
    first-order circuit with closed forms (:func:`_first_order_phase`): series resistance
    Rs = R + Ron closed, R + 1/Goff open. The switch dissipates v·i: Ron·i² closed (6.1 mJ
    here), Goff·v² open (its leakage with up to 10 V across it, 1.7 mJ): 3.5e-5 and 1e-5 of the
    174 J books, so without its share they would not balance to 1e-6."""
    from physlib.components.electrical import Switch
    from physlib.components.signals import Pulse

    V, R, C, RL, Ron, Goff, t_on, t_off, t_end = 10.0, 0.1, 1.0, 1.0, 1e-5, 1e-5, 0.2, 1.2, 4.0
    m = Model("switched_rc")
    src = m.add(VoltageSource("src", V=V))
    switch = m.add(Switch("S", control=Pulse(width=t_off - t_on, period=10.0, t0=t_on)))
    assert (switch.Ron, switch.Goff) == (Ron, Goff)
    r, c, rl = m.add(Resistor("R", R=R)), m.add(Capacitor("C", C=C)), m.add(Resistor("RL", R=RL))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, r.p)
    m.connect(r.n, c.p, rl.p)
    m.connect(c.n, rl.n, src.n, gnd.p)

    # The current (so every power) jumps where the switch closes and opens: the segments end a
    # SLIVER before. Within a phase each power is a + b·e^(−s/τ) + c·e^(−2s/τ), whose fourth
    # derivative is at most 16·P/τ⁴: closed, τ = 0.091 s, 500 panels on 1 s (h = 1e-3 s) and
    # P <= 1 kW bound Simpson's error by 1 s·h⁴/180·16·P/τ⁴ = 1.3e-6 J; open, τ = 1 s, 200
    # panels on 2.8 s and P <= 83 W by 5e-8 J (1e-8 of the books together); the slivers by
    # ½·max|P′|·SLIVER² = 1e-14 J.
    t_eval, segments = split_grid([0.0, t_on, t_off, t_end], panels=[50, 500, 200],
                                  jumps=(t_on, t_off))
    res = m.compile().simulate(t_end, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(res.t, t_eval)
    assert [(e.t, e.after) for e in res.events if e.component == "S" and e.cause != "initial"] \
        == [(t_on, {"closed": 1}), (t_off, {"closed": 0})]

    # The declaration, mode by mode: Ron·i² closed, Goff·v² open (to the 1e-10 or so to which
    # the algebraic loop through the switch is solved).
    power, closed = res.dissipated_power("S"), res["S.closed"] == 1
    np.testing.assert_allclose(power[closed], Ron * res["S.i"][closed] ** 2, rtol=1e-9)
    np.testing.assert_allclose(power[~closed], Goff * res["S.v"][~closed] ** 2, rtol=1e-9)

    nodes, work = books_integral(-res["src.v"] * res["src.i"], t_eval, segments)
    _, lost = books_integral(res.dissipated_power(), t_eval, segments)
    _, switch_lost = books_integral(power, t_eval, segments)
    stored = res.stored_energy()[nodes]
    scale = stored[0] + work[-1]                  # 174 J
    error = stored - stored[0] + lost - work
    print(f"switched RC books: max |error| {np.max(np.abs(error)):.3g} J of {scale:.4g} J; "
          f"switch {switch_lost[-1]:.3g} J")
    assert np.max(np.abs(error)) < 1e-6 * scale
    # The switch's share, closed and open alike, is far above the books' tolerance.
    t = t_eval[nodes]
    open_after = switch_lost[-1] - switch_lost[t < t_off][-1]
    assert switch_lost[-1] > 30e-6 * scale and open_after > 5e-6 * scale

    # Against the closed forms, phase by phase (the sum over the switch's three phases).
    exact = {k: np.zeros(len(t)) for k in ("work", "lost", "switch", "stored")}
    v0 = 0.0
    for a, b, r_switch in ((0.0, t_on, 1 / Goff), (t_on, t_off, Ron), (t_off, t_end, 1 / Goff)):
        vc, q, i2, v2 = _first_order_phase(V, R + r_switch, RL, C, v0, np.clip(t - a, 0, b - a))
        exact["work"] += V * q
        exact["switch"] += r_switch * i2
        exact["lost"] += (r_switch + R) * i2 + v2 / RL
        exact["stored"] = np.where(t >= a, C / 2 * vc**2, exact["stored"])
        v0 = _first_order_phase(V, R + r_switch, RL, C, v0, b - a)[0]
    np.testing.assert_allclose(exact["stored"] + exact["lost"], exact["work"], rtol=0,
                               atol=1e-12 * scale)
    # The solver's global error at rtol 1e-10 leaves vC up to 2e-7 V off after the closing
    # transient (measured; 2e-12 V at rtol 1e-12), which moves each term by up to 5e-8 of the
    # scale, far above the quadrature's 1.3e-6 J: compared to 2e-7 of the scale. (The same
    # global error is most of the books' 3e-8.)
    for name, ours in (("work", work), ("lost", lost), ("stored", stored)):
        np.testing.assert_allclose(ours, exact[name], rtol=0, atol=2e-7 * scale, err_msg=name)
    # The switch's own share to 1e-4 of itself (its 7.8 mJ are 4.5e-5 of the scale).
    np.testing.assert_allclose(switch_lost, exact["switch"], rtol=0, atol=1e-4 * switch_lost[-1])


@pytest.mark.parametrize("Vknee", [0.0, 0.7])
def test_books_balance_with_an_ideal_diode_half_wave_rectifier(Vknee):
    """Half-wave rectifier: 10 V, 50 Hz source → Rs = 10 Ohm → IdealDiode (Ron = Goff = 1e-5,
    the defaults, and the knee Vknee [V]) → C = 100 µF in parallel with RL = 100 Ohm, for three
    periods. The diode conducts for ~6 ms of each period while C recharges, and blocks up to
    14 V the rest. It dissipates v·i [W]: (Vknee + Ron·s)·(s + Goff·Vknee) conducting (s the
    curve parameter; Ron·i² without a knee, 7e-9 J here, below the books' tolerance), Goff·v²
    blocking (its leakage, 35 µJ, 1.4e-3 of the books); with the knee, the knee loss Vknee·i
    (2.1 mJ, 9 % of the books) comes on top.

    Tolerance: the same 1e-6 as with the clutch; nothing here calls for more. The events are
    state events (the diode turns on where its voltage crosses the knee, off where its current
    crosses zero) located to event_tol = 1e-10 s; every power is continuous there (s = 0:
    v = Vknee, i = Goff·Vknee on both sides), only its derivatives jump, so a 1e-10 s error in
    an event time moves the integrals by O(|ΔP′|·1e-20) J. (The located turn-on overshoots by
    |ds/dt|·1e-10 s ≈ 2e-7 V, which Rs turns into a 2e-8 A current step. Without Rs, the diode
    straight onto C, that overshoot would drive a 17 mA spike decaying with Ron·C = 1 ns, which
    no output grid resolves: 1e-10 J per event, missing from the quadrature.)

    The quadrature is split at the events of a first run (the second, on the split grid, finds
    them within ~1e-10 s of those). Within a segment the powers are smooth: sinusoids
    (Simpson's relative error (h·ω)⁴/180 ~ 1e-10) plus transients A·e^(−k·s) with
    k <= 2/((Rs ∥ RL)·C) = 2/0.9 ms, on which Simpson errs by at most (h·k)⁴/180·A/k: with
    200 panels on segments <= 15 ms (h <= 38 µs) and A <= 2.7 W (the peak source power),
    3e-10 J per event, 8e-8 of the books for all of them."""
    from physlib.components.electrical import IdealDiode
    from physlib.components.signals import Sine

    Rs, C, RL, t_end = 10.0, 100e-6, 100.0, 0.06
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=50.0)))
    rs, diode = m.add(Resistor("Rs", R=Rs)), m.add(IdealDiode("D", Vknee=Vknee))
    c, rl, gnd = m.add(Capacitor("C", C=C)), m.add(Resistor("RL", R=RL)), m.add(Ground("gnd"))
    m.connect(src.p, rs.p)
    m.connect(rs.n, diode.p)
    m.connect(diode.n, c.p, rl.p)
    m.connect(c.n, rl.n, src.n, gnd.p)
    sim = m.compile()

    first = sim.simulate(t_end, rtol=1e-10, atol=1e-12)
    # Without a knee the diode turns on one settling probe (1e-8 s) after the start, where the
    # source starts from 0 V: that kink lies inside the first panel, where every power is ~0.
    switching = [e.t for e in first.events if e.component == "D" and e.t > 1e-6]
    assert len(switching) == (5 if Vknee == 0 else 6)        # on and off once per period
    t_eval, segments = split_grid([0.0, *switching, t_end], panels=200)
    res = sim.simulate(t_end, t_eval=t_eval, rtol=1e-10, atol=1e-12)
    again = [e.t for e in res.events if e.component == "D" and e.t > 1e-6]
    np.testing.assert_allclose(again, switching, rtol=0, atol=1e-9)

    # The declaration, mode by mode, to the residual IDAS leaves in the algebraic equations
    # (measured 4e-11 V in v = Vknee + Ron·s, against a drop Ron·i of only 3e-6 V).
    power, on = res.dissipated_power("D"), res["D.on"] == 1
    v, i = res["D.v"], res["D.i"]
    np.testing.assert_allclose(power[~on], diode.Goff * v[~on] ** 2, rtol=1e-9, atol=1e-15)
    s = i[on] - diode.Goff * Vknee
    np.testing.assert_allclose(power[on], (Vknee + diode.Ron * s) * i[on], rtol=1e-9,
                               atol=1e-10 * np.max(i))
    assert np.all(power > -1e-15)

    nodes, work = books_integral(-res["src.v"] * res["src.i"], t_eval, segments)
    _, lost = books_integral(res.dissipated_power(), t_eval, segments)
    _, diode_lost = books_integral(power, t_eval, segments)
    stored = res.stored_energy()[nodes]
    scale = stored[0] + work[-1]
    error = stored - stored[0] + lost - work
    print(f"rectifier (Vknee {Vknee}) books: max |error| {np.max(np.abs(error)):.3g} J of "
          f"{scale:.4g} J; diode {diode_lost[-1]:.3g} J")
    assert np.max(np.abs(error)) < 1e-6 * scale
    assert diode_lost[-1] > 10e-6 * scale
