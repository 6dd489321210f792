"""Export a compiled model as an FMI 2.0 Model Exchange FMU.

The FMU (a zip archive) holds:

- ``modelDescription.xml``: every variable by its physlib path (``C1.v``, ``R1.p.i``,
  ``der(C1.v)``) with unit and description, each unit defined by its base units
  (:mod:`~physlib.analysis.export.fmu_units`); the states and their derivatives; the parameters
  (``causality="parameter"``, fixed, with their compiled-in values); the parameters chosen as
  inputs (``causality="input"``); the outputs; the modes and discrete variables of hybrid
  components (discrete-time locals); the model structure, with each output's and
  derivative's dependencies on states and inputs from the sparsity of the Jacobian;
- ``sources/``: the model's equations as C from CasADi's code generator (no dependency
  beyond the C library and libm) and physlib's FMI wrapper, ``fmi2_physlib.c``, which is the
  only file to compile (it includes the others);
- ``binaries/<platform>/``: the shared library built with the system C compiler (left out
  with ``binary=False``: a source FMU, which importers such as FMPy compile themselves).

The FMU computes the start values from its parameters as physlib does, solves algebraic
loops with a code-generated Newton method warm-started from the last solution, gives
directional derivatives by CasADi's forward mode, and saves, restores and serializes its
state (FMI's FMU state).
"""
from __future__ import annotations

import hashlib
import os
import platform
import re
import tempfile
import uuid
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np

from ...core.errors import ExportError, UnknownNameError
from ...core.units import rate_unit
from . import codegen
from .fmu_units import display_units_of, unit_definitions
from .model_functions import dependencies, model_functions

KINDS = {"state": 0, "derivative": 1, "parameter": 2, "input": 3, "value": 4, "discrete": 5}
"""Variable kinds as the C wrapper numbers them (its KIND_* enumeration)."""

WRAPPER = "fmi2_physlib.c"
FMI_HEADERS = ("fmi2Functions.h", "fmi2FunctionTypes.h", "fmi2TypesPlatform.h")


@dataclass
class FmuVariable:
    """One ScalarVariable: its name, where its value lives (kind and index in the C
    wrapper's arrays; sign for values read from the model's outputs) and its XML attributes."""

    name: str
    kind: str
    index: int
    sign: float = 1.0
    unit: str = ""
    description: str = ""
    start: float | None = None
    state_index: int | None = None     # a derivative: 1-based ScalarVariable index of its state
    output: bool = False               # causality="output"
    rule: str = ""                     # a parameter's sign rule: "> 0", ">= 0", "!= 0" or ""


def export_fmu(model, path, *, inputs=(), outputs=(), parameters="all", name=None, binary=True,
               display_units=None) -> Path:
    """Write ``model`` as an FMI 2.0 Model Exchange FMU at ``path`` (``.fmu`` is added if
    missing) and return the path.

    inputs: parameter paths (``"V1.V"``) that become ``causality="input"``, settable at any time
    during a simulation (a source's value driven by another tool). outputs: variable paths
    (``"J1.w"``) that become ``causality="output"``. parameters: ``"all"`` (every parameter
    settable before initialization) or a list of parameter paths (the others keep their
    compiled-in values inside the FMU). name: the model identifier (a C identifier; default:
    the model's name). binary: build the shared library for this platform with the system C
    compiler; ``False`` writes a source FMU only. display_units: the unit an importer shows a
    variable or parameter in, ``{"rotor.w": "rpm"}`` (same dimension as its unit).

    Every unit is defined with its base units, factor and offset
    (:mod:`physlib.analysis.export.fmu_units`), so importers convert between FMUs.

    Start values are computed from the parameters, as :meth:`simulate` does: set a capacitor's
    ``v0`` parameter to change where its voltage starts. A missing or failing compiler is an
    :class:`~physlib.core.errors.ExportError`.
    """
    path, inputs, outputs = _checked(path, inputs, outputs, name, binary)
    identifier = _identifier(name or model.name)
    table = _variables(model, inputs, outputs, parameters)
    display = display_units_of(table, display_units)
    functions = model_functions(model)
    input_slots = [v.index for v in table if v.kind == "input"]
    ode_deps, value_deps = dependencies(model, functions, input_slots)
    description = _model_description(model, identifier, table, ode_deps, value_deps, display)
    guid = "{%s}" % uuid.UUID(hashlib.md5(description.encode()).hexdigest())
    description = description.replace("@GUID@", guid)
    if path.suffix != ".fmu":
        path = path.with_name(path.name + ".fmu")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources = root / "sources"
        codegen.generate(functions, sources, "physlib_functions")
        (sources / "physlib_model.h").write_text(_model_header(model, table, guid))
        c_files = resources.files(__package__) / "c"
        for file in (WRAPPER, *FMI_HEADERS):
            (sources / file).write_text((c_files / file).read_text())
        (root / "modelDescription.xml").write_text(description)
        if binary:
            folder, suffix = _platform()
            (root / "binaries" / folder).mkdir(parents=True)
            codegen.build([sources / WRAPPER], root / "binaries" / folder / f"{identifier}{suffix}",
                          shared=True, include=(sources,), hidden=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(root.rglob("*")):
                if file.is_file():
                    archive.write(file, file.relative_to(root).as_posix())
    return path


def _checked(path, inputs, outputs, name, binary) -> tuple:
    """(path, inputs, outputs) checked: a path None was pathlib's TypeError, one path alone was
    iterated into its letters, binary="no" truthy, a name that is no C identifier changed."""
    if not isinstance(path, (str, os.PathLike)):
        raise ExportError(f"export_fmu: path must be a file name (a str or pathlib.Path), got {path!r:.60}")
    if not isinstance(binary, (bool, np.bool_)):
        raise ExportError(f"export_fmu: binary must be True (build the library) or False (sources only), got {binary!r}")
    if name is not None and not (isinstance(name, str) and name.isidentifier() and name.isascii()):
        raise ExportError(f"export_fmu: name {name!r} is the FMU's model identifier, a C identifier: use "
                          "letters, digits and '_', not starting with a digit")
    return Path(path), *([names] if isinstance(names, str) else list(names) for names in (inputs, outputs))


def _identifier(name: str) -> str:
    identifier = re.sub(r"\W", "_", str(name))
    if not identifier or identifier[0].isdigit():
        identifier = "m_" + identifier
    return identifier


def _variables(model, inputs, outputs, parameters) -> list[FmuVariable]:
    """The ScalarVariables in value-reference order: states, derivatives, every other variable
    path, the parameters (inputs among them), the modes and discrete variables."""
    inputs, outputs = list(inputs), list(outputs)
    for name in outputs:
        if not model.has_variable(name):
            try:
                model.variable(name)
            except UnknownNameError as err:     # the message suggests near names
                raise ExportError(f"output {name!r}: {err}") from None
    input_slots = {name: _parameter_slot(model, name, "input") for name in inputs}
    if parameters == "all":
        exposed = list(model.parameters)
    elif isinstance(parameters, str):
        raise ExportError(f"parameters={parameters!r}: give 'all' or a list of parameter paths")
    else:
        exposed = list(parameters)
        for name in exposed:
            _parameter_slot(model, name, "parameter")
    states = model.states
    table = [FmuVariable(s, "state", i, unit=model.unit(s), description="state")
             for i, s in enumerate(states)]
    table += [FmuVariable(f"der({s})", "derivative", i, unit=rate_unit(model.unit(s)),
                          description=f"time derivative of {s}", state_index=i + 1)
              for i, s in enumerate(states)]
    # An input variable set by a parameter of the same path (a source's value "V1.V") is listed
    # once, as the parameter: the value it gives the variable is what is set.
    taken = {v.name for v in table} | set(exposed) | set(input_slots)
    for name in model.variables:
        if name not in taken:
            position, sign = model.variable(name)
            table.append(FmuVariable(name, "value", position, sign, unit=model.unit(name)))
    p = model.parameter_vector(None)
    for name in exposed:
        if name not in input_slots:
            slot = model.parameter_slot(name)
            table.append(FmuVariable(name, "parameter", slot, unit=model.unit(name), start=float(p[slot]),
                                     rule=_sign_rule(model.parameter_declaration(name))))
    for name, slot in input_slots.items():
        table.append(FmuVariable(name, "input", slot, unit=model.unit(name), start=float(p[slot]),
                                 description="input"))
    for name in model.modes:
        table.append(FmuVariable(name, "discrete", model.mode_slot(name), description="mode or discrete variable"))
    known = {v.name for v in table}
    missing = [name for name in outputs if name not in known]
    if missing:
        raise ExportError(f"outputs {missing} are not variables of the exported model")
    for v in table:
        v.output = v.name in outputs
    return table


def _sign_rule(declaration) -> str:
    """The sign a parameter's values must have, as the C wrapper checks it when one is set."""
    for flag, rule in (("positive", "> 0"), ("nonnegative", ">= 0"), ("nonzero", "!= 0")):
        if getattr(declaration, flag, False):
            return rule
    return ""


def _parameter_slot(model, name, role):
    try:
        return model.parameter_slot(name)
    except UnknownNameError as err:
        raise ExportError(f"{role} {name!r}: {err}") from None


def _real_attributes(v: FmuVariable, display: dict, nominal) -> dict:
    """The attributes of a variable's Real element: start, unit, display unit, the state a
    derivative is of, and a state's declared nominal size (junction charges: 1e-8 C), by
    which an importer's solver scales its absolute tolerance as simulate does."""
    real = {}
    if v.start is not None:
        real["start"] = _xml_double(v.start)
    if v.unit:
        real["unit"] = v.unit
    if v.rule in ("> 0", ">= 0"):
        real["min"] = "0.0"
    if v.name in display:
        real["displayUnit"] = display[v.name][0]
    if v.state_index is not None:
        real["derivative"] = str(v.state_index)
    if v.kind == "state" and nominal is not None and nominal[v.index] != 1.0:
        real["nominal"] = _xml_double(nominal[v.index])
    return real


def _model_description(model, identifier, table, ode_deps, value_deps, display) -> str:
    """modelDescription.xml (FMI 2.0), with ``@GUID@`` for the GUID (a hash of the rest)."""
    root = ET.Element("fmiModelDescription", {
        "fmiVersion": "2.0", "modelName": model.name, "guid": "@GUID@",
        "description": f"{model.name}, exported by physlib", "generationTool": "physlib",
        "variableNamingConvention": "structured",
        "numberOfEventIndicators": str(model.system.guards.size1_out(0))})
    ET.SubElement(root, "ModelExchange", {
        "modelIdentifier": identifier, "providesDirectionalDerivative": "true",
        "canGetAndSetFMUstate": "true", "canSerializeFMUstate": "true",
        "canNotUseMemoryManagementFunctions": "false"}).append(_source_files())
    unit_definitions(root, table, display)
    ET.SubElement(root, "DefaultExperiment", {"startTime": "0", "stopTime": repr(_default_stop_time(model)),
                                              "tolerance": "1e-6"})
    variables = ET.SubElement(root, "ModelVariables")
    nominal = model.system.nominal      # the states' first: [x; z]
    for reference, v in enumerate(table):
        attributes = {"name": v.name, "valueReference": str(reference)}
        if v.description:
            attributes["description"] = v.description
        if v.kind == "parameter":
            attributes.update(causality="parameter", variability="fixed", initial="exact")
        elif v.kind == "input":
            attributes.update(causality="input", variability="continuous")
        elif v.kind == "discrete":
            attributes.update(causality="output" if v.output else "local", variability="discrete",
                              initial="calculated")
        else:
            attributes.update(causality="output" if v.output else "local", variability="continuous",
                              initial="calculated")
        ET.SubElement(ET.SubElement(variables, "ScalarVariable", attributes), "Real",
                      _real_attributes(v, display, nominal))
    structure = ET.SubElement(root, "ModelStructure")
    knowns = ([i + 1 for i, v in enumerate(table) if v.kind == "state"]
              + [i + 1 for i, v in enumerate(table) if v.kind == "input"])
    outputs = ET.SubElement(structure, "Outputs")
    for i, v in enumerate(table):
        if v.output:
            ET.SubElement(outputs, "Unknown", {"index": str(i + 1), **_depends(v, ode_deps, value_deps, knowns)})
    derivatives = ET.SubElement(structure, "Derivatives")
    for i, v in enumerate(table):
        if v.kind == "derivative":
            ET.SubElement(derivatives, "Unknown", {"index": str(i + 1), **_depends(v, ode_deps, value_deps, knowns)})
    initial = ET.SubElement(structure, "InitialUnknowns")
    for i, v in enumerate(table):
        if v.output or v.kind in ("state", "derivative"):
            ET.SubElement(initial, "Unknown", {"index": str(i + 1)})
    for empty in [element for element in structure if not len(element)]:
        structure.remove(empty)             # the schema wants each list present only when not empty
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _default_stop_time(model) -> float:
    """The DefaultExperiment's stop time [s]: ten periods of the fastest periodic input (a
    sine's period; else the repeat of the time events in the first second, a PWM's period: a
    buck at 50 kHz stops at 0.2 ms, where 1 s would be 50,000 periods), else 1 s."""
    p = model.parameter_vector(None)
    period = model.input_time_scale(p)
    if not period:
        events = model.time_events(p, 0.0, 1.0)
        period = events[2] - events[0] if len(events) >= 3 else None
    return float(f"{10 * period:.6g}") if period else 1.0


def _source_files():
    files = ET.Element("SourceFiles")
    ET.SubElement(files, "File", {"name": WRAPPER})
    return files


def _depends(v, ode_deps, value_deps, knowns) -> dict:
    """The ``dependencies`` attribute of an unknown: the states and inputs its value moves
    with (``dependenciesKind`` is omitted: FMI then reads them as possibly nonlinear)."""
    if v.kind == "derivative":
        row = ode_deps[v.index]
    elif v.kind == "value":
        row = value_deps[v.index]
    elif v.kind == "state":
        row = np.arange(len(knowns)) == v.index
    else:               # a mode or discrete variable: constant between events
        return {"dependencies": ""}
    return {"dependencies": " ".join(str(k) for k, on in zip(knowns, row) if on)}


def _model_header(model, table, guid) -> str:
    """physlib_model.h: sizes, the variable table and the compiled-in parameter values."""
    system = model.system
    p = model.parameter_vector(None)
    starts = _discrete_starts(model)
    nx, nz = len(model.states), len(model.algebraic)
    lines = [
        "/* Generated by physlib: the exported model's sizes and variables. */",
        f'#define MODEL_GUID "{guid}"',
        f"#define NX {nx}", f"#define NZ {nz}", f"#define NP {len(p)}",
        f"#define NV {system.outputs.size1_out(0)}", f"#define NG {system.guards.size1_out(0)}",
        f"#define NVARS {len(table)}", f"#define NMODES {len(model.modes)}",
        f"#define NDISCRETE_START {len(starts)}",
        _c_array("static const int VAR_KIND[]", [KINDS[v.kind] for v in table], int),
        _c_array("static const int VAR_INDEX[]", [v.index for v in table], int),
        _c_array("static const double VAR_SIGN[]", [v.sign for v in table], float),
        _c_array("static const double P_DEFAULT[]", p.tolist(), float),
        _c_array("static const double STATE_NOMINAL[]", [1.0] * nx, float),
        *_parameter_rules(table),
        "static const int DISCRETE_START[][2] = {"
        + (", ".join(f"{{{a}, {b}}}" for a, b in starts) or "{0, 0}") + "};",
    ]
    return "\n".join(lines) + "\n"


def _parameter_rules(table) -> list[str]:
    """C arrays of what fmi2SetReal checks in a parameter's value, as physlib's params= does:
    VAR_RULE (0, or 1 + the rule's index, per value reference), RULE_SIGN (0: finite only,
    1: > 0, 2: >= 0, 3: != 0) and RULE_TEXT (the parameter and what it must be)."""
    signs = {"": 0, "> 0": 1, ">= 0": 2, "!= 0": 3}
    ruled = [v for v in table if v.kind == "parameter"]
    numbers = {id(v): k + 1 for k, v in enumerate(ruled)}
    texts = [f"{v.name} must be {v.rule} {v.unit}".rstrip() if v.rule else f"{v.name} must be finite"
             for v in ruled]
    return [_c_array("static const int VAR_RULE[]", [numbers.get(id(v), 0) for v in table], int),
            _c_array("static const int RULE_SIGN[]", [signs[v.rule] for v in ruled], int),
            "static const char *const RULE_TEXT[] = {"
            + (", ".join('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"' for text in texts) or '""')
            + "};"]


def _discrete_starts(model) -> list[tuple[int, int]]:
    """(discrete variable slot, slot of the parameter it starts from) of every discrete
    variable declared with ``start="parameter"``."""
    from ..common.hybrid_components import hybrid_instances
    return [(slot, source) for inst in hybrid_instances(model) for slot, source in inst.start_slots.items()]


def _c_array(declaration: str, values, kind) -> str:
    if not len(values):
        values = [0]
    text = ", ".join(str(int(v)) if kind is int else _c_double(v) for v in values)
    return f"{declaration} = {{{text}}};"


def _xml_double(value) -> str:
    """A double as XML Schema writes it (INF, -INF, NaN for the non-finite)."""
    value = float(value)
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "INF" if value > 0 else "-INF"
    return repr(value)


def _c_double(value) -> str:
    """A double as an exact C99 literal (hexadecimal), infinities and NaN by math.h's names."""
    value = float(value)
    if value != value:
        return "NAN"
    if value in (float("inf"), float("-inf")):
        return "INFINITY" if value > 0 else "-INFINITY"
    return value.hex()


def _platform() -> tuple[str, str]:
    """The FMI platform folder and shared-library suffix of this machine."""
    system, bits = platform.system(), "64" if platform.architecture()[0] == "64bit" else "32"
    if system == "Linux":
        return f"linux{bits}", ".so"
    if system == "Darwin":
        return f"darwin{bits}", ".dylib"
    if system == "Windows":
        return f"win{bits}", ".dll"
    raise ExportError(f"no FMI 2.0 platform folder for {system}: export with binary=False")
