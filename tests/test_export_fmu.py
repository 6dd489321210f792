"""FMI 2.0 Model Exchange export, checked with FMPy (validation, simulation, the FMI calls).

Accuracy: FMPy integrates the FMU with CVODE at rtol 1e-10 and physlib simulates the same
equations at rtol 1e-10 / atol 1e-12; two runs of different BDF codes at that tolerance agree
to about 1e-8 of a signal's range, so 1e-6 of the range separates a wrong equation, start value
or parameter (errors of order 1e-2..1) from integration error with room to spare.
"""
import shutil
import sys
import zipfile
from pathlib import Path
from ctypes import POINTER, c_double

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")
from fmpy.fmi2 import FMU2Model  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

from physlib import ExportError, Model  # noqa: E402
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, VoltageSource  # noqa: E402
from fmu_runs import away_from_events, example, relative_error  # noqa: E402
from test_export_c import rc_ladder  # noqa: E402

RANGE_TOL = 1e-6


def rc() -> Model:
    m = Model("rc")
    src, r = m.add(VoltageSource("V1", V=1.0)), m.add(Resistor("R1", R=1e3))
    c = m.add(Capacitor("C1", C=1e-6, v0=0.25))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def diode_rc() -> Model:
    """A diode between a resistor and a capacitor: its current is an algebraic loop."""
    m = Model("diode_rc")
    src, r = m.add(VoltageSource("V1", V=1.0)), m.add(Resistor("R1", R=1e3))
    d, c, gnd = m.add(Diode("D1")), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def dc_motor() -> Model:
    """examples/dc_motor.py's motor on a constant 12 V source, whose value src.V is an input."""
    return example("dc_motor").build(supply=12.0)


CASES = {
    # name: (model, export options, compared signals, stop time [s]); the models with events
    # are tests/test_export_fmu_differential.py's
    "rc": (rc, {}, ["C1.v", "R1.i"], 5e-3),
    "diode_rc": (diode_rc, {"outputs": ["C1.v"]}, ["C1.v", "D1.i"], 5e-3),
    "dc_motor": (dc_motor, {"inputs": ["src.V"], "outputs": ["rotor.w"]}, ["rotor.w", "L1.i"], 1.0),
    "ladder100": (lambda: rc_ladder(100), {"outputs": ["C99.v"]}, ["C0.v", "C50.v", "C99.v"], 20.0),
    "hydraulic_actuator": (lambda: example("hydraulic_actuator").build(), {},
                           ["L1.i", "rotor.w", "chamber.p", "load.v"], 1.0),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fmus")
    out = {}
    for name, (build, options, _, _) in CASES.items():
        sim = build().compile()
        out[name] = (sim, sim.export_fmu(folder / name, **options))
    return out


def fmpy_run(path, stop, signals, **options):
    return fmpy.simulate_fmu(str(path), stop_time=stop, relative_tolerance=1e-10, solver="CVode",
                             output=signals, output_interval=stop / 200, **options)


@pytest.mark.parametrize("name", list(CASES))
def test_validates_and_simulates_as_physlib(exported, name):
    sim, path = exported[name]
    assert validate_fmu(str(path)) == []
    _, _, signals, stop = CASES[name]
    res = fmpy_run(path, stop, signals)
    ref = sim.simulate(stop, t_eval=res["time"], rtol=1e-10, atol=1e-12)
    for signal in signals:
        assert relative_error(res[signal], ref[signal]) < RANGE_TOL, signal


def test_parameter_changed_as_start_value(exported):
    """A parameter set before initialization changes the run and the start values computed
    from it (the capacitor's v0)."""
    sim, path = exported["rc"]
    params = {"R1.R": 2e3, "C1.v0": -0.5}
    res = fmpy_run(path, 5e-3, ["C1.v"], start_values=params)
    ref = sim.simulate(5e-3, t_eval=res["time"], params=params, rtol=1e-10, atol=1e-12)
    assert res["C1.v"][0] == pytest.approx(-0.5, abs=1e-15)
    assert relative_error(res["C1.v"], ref["C1.v"]) < RANGE_TOL


@pytest.mark.parametrize("params, says", [
    ({"R1.R": -2e3}, "parameter R1.R must be > 0 Ohm, got -2000; it keeps 1000"),
    ({"C1.C": 0.0}, "parameter C1.C must be > 0 F, got 0; it keeps 1e-06"),
    ({"C1.v0": float("nan")}, "parameter C1.v0 must be finite, got nan"),
])
def test_parameter_out_of_its_declared_range_is_refused_by_name(exported, params, says):
    """fmi2SetReal took any number: a negative resistance, which params= refuses, ran as one
    (the RC charging away from its source). It checks each parameter as params= does (finite,
    and > 0, >= 0 or != 0 as declared), and modelDescription.xml gives the bound as min."""
    sim, path = exported["rc"]
    messages = []
    with pytest.raises(fmpy.fmi1.FMICallException, match="fmi2SetReal"):
        fmpy_run(path, 5e-3, ["C1.v"], start_values=params,
                 logger=lambda env, name, status, category, text: messages.append(text.decode()))
    assert any(says in text for text in messages), messages
    md = fmpy.read_model_description(str(path))
    bounds = {v.name: v.min for v in md.modelVariables if v.causality == "parameter"}
    assert bounds["R1.R"] == "0.0" and bounds["C1.C"] == "0.0" and bounds["C1.v0"] is None


def test_input_drives_the_model(exported):
    sim, path = exported["dc_motor"]
    signal = np.array([(0.0, 6.0), (1.0, 6.0)], dtype=[("time", float), ("src.V", float)])
    res = fmpy_run(path, 1.0, ["rotor.w"], input=signal)
    ref = sim.simulate(1.0, t_eval=res["time"], params={"src.V": 6.0}, rtol=1e-10, atol=1e-12)
    assert relative_error(res["rotor.w"], ref["rotor.w"]) < RANGE_TOL


def test_model_description_names_and_causalities(exported):
    sim, path = exported["dc_motor"]
    md = fmpy.read_model_description(str(path))
    by_name = {v.name: v for v in md.modelVariables}
    assert by_name["src.V"].causality == "input" and by_name["src.V"].start == "12.0"
    assert by_name["rotor.w"].causality == "output" and by_name["rotor.w"].unit == "rad/s"
    assert by_name["R1.R"].causality == "parameter" and by_name["R1.R"].variability == "fixed"
    states = {d.variable.derivative.name for d in md.derivatives}
    assert states == set(sim.states)
    # rotor.w moves with the states only; the input acts on it through the current
    (output,) = md.outputs
    assert {v.name for v in output.dependencies} <= set(sim.states)


def get_states(fmu, n):
    x = np.zeros(n)
    fmu.getContinuousStates(x.ctypes.data_as(POINTER(c_double)), n)
    return x


def set_states(fmu, x):
    x = np.ascontiguousarray(x, dtype=float)
    fmu.setContinuousStates(x.ctypes.data_as(POINTER(c_double)), x.size)


def get_derivatives(fmu, n):
    dx = np.zeros(n)
    fmu.getDerivatives(dx.ctypes.data_as(POINTER(c_double)), n)
    return dx


def instantiate(path, tmp_path, initialize=True):
    """(model description, FMU instance) in Continuous-Time Mode after initialization, or in
    Initialization Mode with ``initialize=False``."""
    md = fmpy.read_model_description(str(path))
    unzipped = fmpy.extract(str(path), str(tmp_path / "unzipped"))
    fmu = FMU2Model(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.modelExchange.modelIdentifier,
                    instanceName="test")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    if not initialize:
        return md, fmu
    fmu.exitInitializationMode()
    while fmu.newDiscreteStates()[0]:
        pass
    fmu.enterContinuousTimeMode()
    return md, fmu


@pytest.mark.parametrize("name", ["diode_rc", "dc_motor"])
def test_directional_derivatives_equal_finite_differences(exported, name, tmp_path):
    """d(derivatives, outputs)/d(states, inputs) along random directions, against central
    differences (step 1e-6 relative; error O(h²) ≈ 1e-12, rounding ≈ 1e-10 relative)."""
    sim, path = exported[name]
    md, fmu = instantiate(path, tmp_path)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    states = [refs[s] for s in sim.states]
    inputs = [refs[v.name] for v in md.modelVariables if v.causality == "input"]
    unknowns = [refs[f"der({s})"] for s in sim.states] + [refs[n] for n in CASES[name][2]]
    rng = np.random.default_rng(1)
    x = get_states(fmu, len(states)) + rng.normal(size=len(states)) * 0.1
    set_states(fmu, x)
    u = np.array(fmu.getReal(inputs)) if inputs else np.zeros(0)
    for _ in range(3):
        direction = rng.normal(size=len(states) + len(inputs))
        analytic = np.array(fmu.getDirectionalDerivative(unknowns, states + inputs, list(direction)))

        def at(eps):
            set_states(fmu, x + eps * direction[:len(x)])
            if inputs:
                fmu.setReal(inputs, list(u + eps * direction[len(x):]))
            return np.array(fmu.getReal(unknowns))
        h = 1e-6 * (1 + np.max(np.abs(np.concatenate([x, u]))))
        numeric = (at(h) - at(-h)) / (2 * h)
        at(0.0)
        assert np.allclose(analytic, numeric, rtol=1e-6, atol=1e-6 * np.max(np.abs(numeric))), (analytic, numeric)
    fmu.terminate()
    fmu.freeInstance()


def test_fmu_state_round_trip(exported, tmp_path):
    """A run saved mid-way (getFMUstate, serialized and read back) and restored finishes
    bit-for-bit as the run that went on."""
    _, path = exported["diode_rc"]
    md, fmu = instantiate(path, tmp_path)
    n = md.numberOfContinuousStates
    reference = {v.name: v.valueReference for v in md.modelVariables}["C1.v"]

    def euler(t, steps, h=1e-5):
        for _ in range(steps):
            x, dx = get_states(fmu, n), get_derivatives(fmu, n)
            t += h
            fmu.setTime(t)
            set_states(fmu, x + h * dx)
            fmu.completedIntegratorStep()
        return t, fmu.getReal([reference])[0]

    t, _ = euler(0.0, 100)
    saved = fmu.getFMUstate()
    restored = fmu.deSerializeFMUstate(fmu.serializeFMUstate(saved))
    _, finished = euler(t, 100)
    fmu.setFMUstate(restored)
    _, again = euler(t, 100)
    assert again == finished and finished > 0
    fmu.freeFMUstate(saved)
    fmu.freeFMUstate(restored)
    fmu.terminate()
    fmu.freeInstance()


@pytest.mark.skipif(shutil.which("cmake") is None, reason="FMPy builds source FMUs with CMake")
def test_source_fmu_rebuilds_with_fmpy(tmp_path):
    """binary=False writes sources only; FMPy compiles them and the result is the same."""
    sim = diode_rc().compile()
    path = sim.export_fmu(tmp_path / "source_only", binary=False)
    with zipfile.ZipFile(path) as archive:
        assert not any(name.startswith("binaries/") for name in archive.namelist())
    from fmpy.build import build_platform_binary
    unzipped = tmp_path / "unzipped"
    fmpy.extract(str(path), str(unzipped))
    build_platform_binary(unzipped)
    res = fmpy.simulate_fmu(str(unzipped), stop_time=5e-3, relative_tolerance=1e-10, output=["C1.v"],
                            output_interval=5e-3 / 200)
    ref = sim.simulate(5e-3, t_eval=res["time"], rtol=1e-10, atol=1e-12)
    assert relative_error(res["C1.v"], ref["C1.v"]) < RANGE_TOL


def test_no_compiler_is_an_export_error(tmp_path, monkeypatch):
    sim = rc().compile()
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(ExportError, match="no C compiler.*binary=False"):
        sim.export_fmu(tmp_path / "rc")
    assert sim.export_fmu(tmp_path / "rc", binary=False).exists()     # sources need no compiler


def test_bad_names_are_export_errors(tmp_path):
    sim = rc().compile()
    with pytest.raises(ExportError, match="input 'R1.Rx'.*R1.R"):
        sim.export_fmu(tmp_path / "rc", inputs=["R1.Rx"])
    with pytest.raises(ExportError, match="C1.vv"):
        sim.export_fmu(tmp_path / "rc", outputs=["C1.vv"])


def test_discrete_pid_loop_samples(tmp_path):
    """ZeroOrderHold-style sampling in C: the DiscretePID's updates at its time events give the
    samples of the exact discretization of the loop (the recursion of tests/test_discrete.py)."""
    from test_discrete import PID, at_instants, pid_loop, pid_recursion
    sim = pid_loop(**PID)
    path = sim.export_fmu(tmp_path / "pid", outputs=["C.v", "pid.y"])
    assert validate_fmu(str(path)) == []
    res = fmpy.simulate_fmu(str(path), stop_time=3.0, relative_tolerance=1e-10, output=["C.v", "pid.y"],
                            output_interval=0.01, record_events=True)
    x_exact, y_exact = pid_recursion(30)
    last_row = np.r_[np.diff(res["time"]) > 0, True]
    rows = [np.flatnonzero(last_row & np.isclose(res["time"], k * 0.1, rtol=0, atol=1e-9))[-1] for k in range(30)]
    assert np.max(np.abs(res["pid.y"][rows] - y_exact)) < 1e-8
    assert np.max(np.abs(res["C.v"][rows] - x_exact)) < 1e-8
    ref = sim.simulate(3.0, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(res["pid.y"][rows] - at_instants(ref, 30, "pid.y"))) < 1e-8


def test_fmpy_runs_in_a_process_where_physlib_stepped_sundials(tmp_path):
    """physlib's SUNDIALS (scikit-sundae's libraries, loaded for hybrid runs) stays out of the
    process's global symbols: loaded globally, it stood in for FMPy's CVODE of another version,
    which then crashed the process. In a fresh process so the load order is this one."""
    import subprocess
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1] / "examples")!r})
from coupled_clutches import build
import fmpy
sim = build().compile()
sim.simulate(0.5)                                  # steps scikit-sundae's IDA
path = sim.export_fmu({str(tmp_path / "cc")!r})
res = fmpy.simulate_fmu(str(path), stop_time=0.5)  # FMPy's own CVODE
print(res["time"][-1])
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert float(run.stdout.split()[-1]) == pytest.approx(0.5)


def test_initial_unknowns_in_initialization_mode_follow_the_parameters_set(exported, tmp_path):
    """An importer reads the initial unknowns before leaving Initialization Mode: they are the
    start state for the parameters set so far (C1.v0 set there: C1.v starts at it)."""
    _, path = exported["rc"]
    md, fmu = instantiate(path, tmp_path, initialize=False)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    fmu.setReal([refs["C1.v0"]], [0.7])
    v, rate = fmu.getReal([refs["C1.v"], refs["der(C1.v)"]])
    assert v == 0.7 and rate == pytest.approx((1.0 - 0.7) / (1e3 * 1e-6), rel=1e-12)
    fmu.exitInitializationMode()
    assert fmu.getReal([refs["C1.v"]]) == [0.7]
    fmu.terminate()
    fmu.freeInstance()


def test_transistor_stage_from_zero_charges_runs_in_fmpy(tmp_path):
    """The common-emitter stage of tests/test_bjt.py from its start values (every capacitor and
    junction charge at zero): CVODE asks for derivatives at states where the FMU's undamped
    Newton overshoots the junctions' exponentials, and the damped Newton in C (weighted line
    search, as physlib's) takes over. 1e-4 of the output's range (measured 6.3e-6): FMPy's
    CVODE keeps every state to rtol·nominal, and the junction charges' nominal of 1e-8 C is in
    the model description (with nominal 1 they were held loosely: 1.3e-4)."""
    from test_bjt import deck
    sim = deck("ce_npn_tran.cir").compile()
    path = sim.export_fmu(tmp_path / "ce_npn", outputs=["rl.v"])
    assert validate_fmu(str(path)) == []
    res = fmpy.simulate_fmu(str(path), stop_time=2e-3, relative_tolerance=1e-8, output=["rl.v"],
                            output_interval=5e-6)
    ref = sim.simulate(2e-3, t_eval=res["time"], rtol=1e-8, atol=1e-10)
    assert relative_error(res["rl.v"], ref["rl.v"]) < 1e-4
    charges = [v for v in fmpy.read_model_description(str(path)).modelVariables
               if v.name in ("q1.qbe", "q1.qbc")]
    assert [float(v.nominal) for v in charges] == [1e-8, 1e-8]


def test_only_the_parameters_asked_for_are_exposed(tmp_path):
    """parameters=[...]: the others keep their compiled-in values inside the FMU."""
    sim = rc().compile()
    path = sim.export_fmu(tmp_path / "rc", parameters=["R1.R"])
    md = fmpy.read_model_description(str(path))
    assert [v.name for v in md.modelVariables if v.causality == "parameter"] == ["R1.R"]
    res = fmpy_run(path, 5e-3, ["C1.v"], start_values={"R1.R": 500.0})
    ref = sim.simulate(5e-3, t_eval=res["time"], params={"R1.R": 500.0}, rtol=1e-10, atol=1e-12)
    assert relative_error(res["C1.v"], ref["C1.v"]) < RANGE_TOL
    with pytest.raises(ExportError, match="parameter 'R1.X'"):
        sim.export_fmu(tmp_path / "bad", parameters=["R1.X"])


def test_rectifier_whose_source_starts_at_zero(tmp_path):
    """The half-wave rectifier of the engine issue (IdealDiode, source 10·sin(2π·1 kHz·t) from
    0 V): the diode's guard sits at zero after the initial event iteration and then rises, which
    is no crossing; the FMU asks for an event when it leaves zero, and the transition turns the
    diode on, as physlib's settling does. Without it the diode stayed off in the first
    half-cycle and then switched in antiphase (C1.v at −9.9 V where it is +6.2 V)."""
    import importlib.util
    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_switching.py"
    spec = importlib.util.spec_from_file_location("bench_switching", bench)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(bench.parent))
    spec.loader.exec_module(module)
    sim = module.build_rectifier().compile()
    path = sim.export_fmu(tmp_path / "rectifier", outputs=["C1.v"])
    res = fmpy.simulate_fmu(str(path), stop_time=0.05, relative_tolerance=1e-10, output=["C1.v", "D1.on"],
                            output_interval=1e-5)
    rows = away_from_events(res["time"])
    ref = sim.simulate(0.05, t_eval=res["time"][rows], rtol=1e-10, atol=1e-12)
    assert relative_error(res["C1.v"][rows], ref["C1.v"]) < RANGE_TOL
    assert int(np.sum(np.diff(res["D1.on"]) != 0)) == 100          # twice per period


def test_default_experiment_spans_ten_periods_of_the_fastest_input(tmp_path):
    sim = example("buck_converter").build().compile()            # PWM at 50 kHz
    md = fmpy.read_model_description(str(sim.export_fmu(tmp_path / "buck", binary=False)))
    assert md.defaultExperiment.stopTime == "0.0002"
    md = fmpy.read_model_description(str(rc().compile().export_fmu(tmp_path / "rc", binary=False)))
    assert md.defaultExperiment.stopTime == "1.0"
