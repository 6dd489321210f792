"""The Jacobian of a model affine in its unknowns, found from the DAE on colored seeds
(physlib.analysis.common.affine_jacobian), against CasADi's symbolic Jacobian of the same DAE,
in the three forms: the DAE's (operating point, linearization), IDA's and CVODE's."""
import casadi as cs
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from passive_networks import connect_nodes, draw_network, network_elements
from test_ladder_scale import ladder_model
from physlib.analysis.common.affine_jacobian import AffineJacobian
from physlib.analysis.simulation import stepping_functions
from physlib.analysis.simulation.sundials import Stepper
from physlib.components.electrical import CurrentSource, Resistor, VoltageSource
from physlib.components.signals import Sine


def driven_network(n, elements, volts: float, amps: float):
    """The passive network with a sine source of ``volts`` behind 50 Ohm into node 1 and a
    sine current source of ``amps`` into the last node, compiled."""
    m, nodes = network_elements(n, elements, "driven")
    source = m.add(VoltageSource("V", V=Sine(amplitude=volts, f=1e3)))
    series = m.add(Resistor("Rs", R=50.0))
    current = m.add(CurrentSource("I", I=Sine(amplitude=amps, f=3e3)))
    m.connect(source.p, series.p)
    nodes[1].append(series.n)
    nodes[n - 1].append(current.n)
    nodes[0] += [source.n, current.p]
    connect_nodes(m, nodes)
    return m.compile()


def symbolic_entries(system, form: str, pattern, p, t):
    """CasADi's symbolic Jacobian of the DAE in ``form`` (IDA's residual rows are x' − f, so
    −∂f), evaluated and read on ``pattern``; and the absolute row sums."""
    x, z, p_sym, t_sym = system.symbols()
    ode, alg = system.dae(x, z, p_sym, t_sym)
    if form == "cvode":
        J = cs.jacobian(ode, x)
    else:
        J = cs.jacobian(cs.vertcat(-ode if form == "ida" else ode, alg), cs.vertcat(x, z))
    J = J + cs.SX.zeros(pattern)                       # on the pattern, structural zeros kept
    value = cs.Function("J", [x, z, p_sym, t_sym], [J])(0, 0, p, t)
    return np.array(value.nonzeros()), np.array(cs.mtimes(cs.fabs(value), cs.DM.ones(value.size2()))).ravel()


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_colored_jacobian_is_the_symbolic_one_for_random_driven_networks(data):
    # Sources of up to 1 MV and 1 kA against conductances down to 1e-4 S and capacitances of
    # 1e-9 F: a source term leaking into an entry would be far above the rounding allowed,
    # which is 64 rounding units of the row's absolute sum (the DAE's and the symbolic
    # derivative's arithmetic each round a few dozen operations at most, in other orders).
    n, elements = draw_network(data.draw)
    volts = data.draw(st.floats(1.0, 1e6))
    amps = data.draw(st.floats(1e-3, 1e3))
    sim = driven_network(n, elements, volts, amps)
    system = sim.system
    assert system.affine
    p = sim.parameter_vector({})
    for form in ("dae", "ida", "cvode"):
        if form == "cvode" and len(system.z_pos):
            continue                            # CVODE runs models without algebraic variables
        jacobian = AffineJacobian(system.dae, form)
        t = data.draw(st.floats(0.0, 1e-3))
        found = jacobian.values(p, t)
        expected, row_sums = symbolic_entries(system, form, jacobian.pattern, p, t)
        allowed = 64 * np.finfo(float).eps * row_sums[jacobian.row]
        assert np.all(np.abs(found - expected) <= allowed)
        # J reads no time: another time gives the same entries (the sources' values differ)
        assert np.array_equal(jacobian.values(p, t + 2.5e-4), found)


def test_a_ladder_needs_three_colors_whatever_its_length():
    # A restart evaluates the DAE once per color (and once at zero): a chain's Jacobian is
    # tridiagonal, three colors at 10 and at 600 stages, so the cost grows with the model.
    for stages in (10, 600):
        system = ladder_model(stages).compile().system
        for form in ("dae", "ida", "cvode"):
            assert AffineJacobian(system.dae, form).colors == 3


def test_a_run_s_restarts_keep_the_entries_of_recent_parameter_vectors(monkeypatch):
    # A switching circuit returns to the same modes: the entries of a parameter vector seen
    # before are taken from memory, not evaluated again, and are those of that vector.
    from test_sparse_stepper import ladder
    sim = ladder(True).compile()
    evaluated = []
    original = AffineJacobian.values_and_offset
    monkeypatch.setattr(AffineJacobian, "values_and_offset",
                        lambda self, p, t: evaluated.append(p.copy()) or original(self, p, t))
    stepper = Stepper(sim.system, "idas", 1e-6, 1e-8, None, sparse=True)
    try:
        assert stepper.linear is not None
        closed, opened = sim.parameter_vector({}), sim.parameter_vector({})
        closed[sim.mode_slot("S1.closed")], opened[sim.mode_slot("S1.closed")] = 1.0, 0.0
        stepper.linear.restart(closed, 0.0)
        first = stepper.linear.values.copy()
        stepper.linear.restart(opened, 1e-7)
        assert not np.array_equal(stepper.linear.values, first)
        stepper.linear.restart(closed, 2e-7)
        assert np.array_equal(stepper.linear.values, first)
        assert len(evaluated) == 2
    finally:
        stepper.close()
    assert stepping_functions.REMEMBERED_PARAMETERS >= 2


def test_an_operating_point_and_a_transient_find_the_pattern_and_its_colors_once(monkeypatch):
    # The DAE's form (operating point, linearization) and IDA's share the unknowns, the rows
    # and so the pattern and its coloring, which walk the whole DAE to find; IDA's entries
    # are the DAE's with the states' rows negated.
    from physlib.analysis.common import affine_jacobian as module
    found = []
    original = module.JacobianColoring.__init__
    monkeypatch.setattr(module.JacobianColoring, "__init__",
                        lambda self, dae, ida: found.append(ida) or original(self, dae, ida))
    sim = ladder_model(1200).compile()     # above the size solved by a compiled dense Newton
    sim.operating_point()
    sim.simulate(1e-6, t_eval=[0.0, 1e-6])
    system = sim.system
    dae, ida = (system.cache[("affine_jacobian", form)] for form in ("dae", "ida"))
    assert found == [True] and dae.pattern is ida.pattern
    p = sim.parameter_vector({})
    flip = np.where(dae.row < dae.nx, -1.0, 1.0)
    assert np.array_equal(ida.values(p, 0.0), flip * dae.values(p, 0.0))


def test_forms_sharing_a_coloring_evaluate_the_dae_once_per_parameter_vector_and_time(monkeypatch):
    # A deck's operating point and the transient from it ask for the entries at the same p
    # and t: the DAE is evaluated on its seeds once, and every form's entries and F(0, 0) are
    # those of a form evaluated on its own, to the bit. Without algebraic variables CVODE's
    # form shares the coloring too; another p or t is evaluated anew.
    from physlib.analysis.common import affine_jacobian as module
    evaluated = []
    original = module.AffineJacobian._evaluated
    monkeypatch.setattr(module.AffineJacobian, "_evaluated",
                        lambda self, p, t: evaluated.append(t) or original(self, p, t))
    sim = ladder_model(1200).compile()
    system = sim.system
    assert system.dae.size1_in(1) == 0
    op = sim.operating_point()
    sim.simulate(1e-6, t_eval=[0.0, 1e-6], x0={name: op[name] for name in sim.states})
    assert evaluated == [0.0]
    p = sim.parameter_vector({})
    for form in ("dae", "ida", "cvode"):
        shared = module.affine_jacobian(system, form)
        alone = AffineJacobian(system.dae, form)       # a coloring of its own: nothing shared
        for ours, theirs in zip(shared.values_and_offset(p, 0.0), alone.values_and_offset(p, 0.0)):
            assert np.array_equal(ours, theirs), form
    assert module.affine_jacobian(system, "cvode")._coloring is module.affine_jacobian(system, "dae")._coloring
    count = len(evaluated)
    p2 = p.copy()
    p2[sim.parameter_slot("R3.R")] = 2e3
    dae = module.affine_jacobian(system, "dae")
    assert not np.array_equal(dae.values(p2, 0.0), dae.values(p, 0.0))
    dae.values(p, 1e-7)
    assert len(evaluated) == count + 3
