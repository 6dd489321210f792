"""Write a physlib model as an ngspice netlist, to cross-check it in any SPICE.

:func:`write` knows the components SPICE has (one line each):

========================================== ==========================================
physlib                                     SPICE
========================================== ==========================================
Resistor, Capacitor, Inductor               ``R``, ``C``, ``L`` (``ic=`` from v0, i0 ≠ 0)
VoltageSource, SensingVoltageSource         ``V`` with DC, AC and a waveform
CurrentSource                               ``I`` likewise
CurrentSensor                               ``V ... DC 0`` (SPICE's ammeter)
Diode                                       ``D`` and its ``.model ... D(...)``
VCVS, VCCS                                  ``E``, ``G``
CCCS, CCVS (controlled by a                 ``F``, ``H`` naming that source
SensingVoltageSource or CurrentSensor)
Ground                                      node ``0``
a subsystem (a Model in the model)          flattened, or ``.subckt`` + ``X``
========================================== ==========================================

Source values: a number or ``Constant`` (``DC``), ``Trapezoid`` (``PULSE``), ``DampedSine``
and ``Sine`` (``SIN``), ``Exponentials`` (``EXP``), ``FrequencyModulatedSine`` (``SFFM``),
``AmplitudeModulatedSine`` (``AM``, where ngspice-39 reads it alike), ``Table`` and ``Ramp`` (``PWL``), a
``Step`` at t0 <= 0 (``DC``: its value for every t >= 0). Anything else — another component,
a source driven by a signal block, a Step at t0 > 0 or a rectangular ``Pulse`` (SPICE's edges
take time) — is a :class:`SpiceError` naming the component.

Values are written as Python's shortest exact decimal (``repr``), so reading the netlist back
gives the same floats. A physlib transient starts from the components' start values (C's
v0, L's i0, a charged Diode's vd0): the same as ngspice's ``.tran ... uic`` with the ``ic=``
written here.
"""
from __future__ import annotations

import math
import os

import numpy as np

from ..components import electrical as el
from ..components import signals as sg
from ..core.model_parameters import ParameterExpression, nominal_value
from ..domains import electrical
from .errors import SpiceError
from .topology import Nets

__all__ = ["write"]

DIODE = {"Is": "IS", "N": "N", "Rs": "RS", "CJO": "CJO", "VJ": "VJ", "M": "M", "FC": "FC",
         "TT": "TT", "BV": "BV", "IBV": "IBV", "EG": "EG", "XTI": "XTI", "KF": "KF", "AF": "AF",
         "ISR": "ISR", "NR": "NR", "IKF": "IKF", "IKR": "IKR", "NBV": "NBV", "TRS": "TRS"}
KELVIN = 273.15
# class -> (SPICE letter, pins in SPICE's node order)
ELEMENTS = {el.Resistor: ("R", "pn"), el.Capacitor: ("C", "pn"), el.Inductor: ("L", "pn"),
            el.VoltageSource: ("V", "pn"), el.SensingVoltageSource: ("V", "pn"),
            el.CurrentSource: ("I", "pn"), el.CurrentSensor: ("V", "pn"),
            el.Diode: ("D", "pn"), el.VCVS: ("E", ("p", "n", "pc", "nc")),
            el.VCCS: ("G", ("p", "n", "pc", "nc")), el.CCCS: ("F", "pn"), el.CCVS: ("H", "pn")}
SUPPORTED = ("Resistor, Capacitor, Inductor, VoltageSource, SensingVoltageSource, CurrentSource, "
             "CurrentSensor, Diode, VCVS, VCCS, CCCS, CCVS, Ground and subsystems of them")


def write(model, path=None, *, title: str | None = None, ac: dict | None = None,
          analyses=(), subcircuits: bool = False) -> str:
    """The ngspice netlist of ``model`` (a :class:`physlib.Model` or a deck read by
    :func:`physlib.spice.read`); also written to ``path`` when given.

    ``title``: the first line (default: the model's name). ``ac``: {source path: magnitude or
    (magnitude, phase [°])} for the sources' ``AC`` values. ``analyses``: card lines to add
    (``".tran 1u 1m uic"``). ``subcircuits``: each subsystem becomes a ``.subckt`` (identical
    ones share one) and an ``X`` line; by default subsystems are flattened, their elements
    named by path (``sec.R1`` → ``Rsec_R1``, SPICE names have no dots).

    Element names are the component names, with SPICE's letter put in front when the name does
    not start with it (``load`` → ``Rload``); nodes are named after the first pin connected to
    them (``R1.n`` → ``r1_n``), ground is ``0``. From a deck, its title, node names, DC and AC
    source values, options and analysis cards are kept (``.param`` expressions are written as
    their values). Raises :class:`SpiceError` naming any component SPICE has no element for.
    """
    deck = model if hasattr(model, "analyses") and hasattr(model, "model") else None
    writer = _Writer(ac or {}, deck, subcircuits)
    text = writer.netlist(deck.model if deck else model, title, list(analyses))
    if path is not None:
        with open(os.fspath(path), "w") as handle:
            handle.write(text)
    return text


def _number(x) -> str:
    return repr(float(x))


# ngspice-39 reads an EXP time of 0 as its default (TD1: the .tran step): the least time it
# takes as given stands for 0
_ZERO_TIME = 1e-30


class _Writer:
    def __init__(self, ac: dict, deck, subcircuits: bool):
        self.ac = {k.lower(): (v if isinstance(v, tuple) else (v, 0.0)) for k, v in ac.items()}
        self.dc: dict = {}
        self.node_names: dict = {}
        self.cards: list[str] = []
        self.options: dict = {}
        if deck is not None:
            self._from_deck(deck)
        self.subcircuits = subcircuits
        self.models: dict[str, str] = {}          # .model text -> name
        self.definitions: dict[str, str] = {}     # .subckt body -> name
        self.subckt_lines: list[str] = []
        self.diodes: list = []                    # (path, diode)
        self.names: dict[str, str] = {}           # lower-case SPICE name -> component path

    def _from_deck(self, deck):
        from .cards import OPTIONS
        self.title = deck.title
        for path, source in deck.sources.items():
            if source["ac"]:
                self.ac.setdefault(path, (source["ac"][0](), source["ac"][1]()))
            if source["waveform"]:
                self.dc[path] = source["dc"]()
        self.node_names = {pin: name for name, pin in deck.nodes.items() if pin}
        self.options = {k: v for k, v in deck.options.items()
                        if k not in ("temp", "tnom") and v != OPTIONS[k]}
        for kind, args in deck.analyses:
            words = [k if v is True else _word(v) for k, v in args.items()
                     if v is not None and v is not False]
            self.cards.append(" ".join([f".{kind}"] + words))

    # --- the netlist --------------------------------------------------------------------

    def netlist(self, model, title, analyses) -> str:
        body = self.level(model, "", [])
        head = [title or getattr(self, "title", None) or model.name]
        head += self.subckt_lines + sorted(f".model {name} {text}" for text, name in self.models.items())
        tail = self._temperature()
        if self.options:
            tail.append(".options " + " ".join(f"{k}={_number(v)}" for k, v in self.options.items()))
        return "\n".join(head + body + tail + self.cards + analyses + [".end"]) + "\n"

    def level(self, model, prefix: str, ports: list[str]) -> list[str]:
        """Element lines of one level (the whole model when flattening): ``prefix`` is the
        level's path in the model, ``ports`` its exposed ports (a .subckt's port nodes)."""
        nets = Nets(model, expand=not self.subcircuits)
        nodes = self._node_names(model, nets, prefix, ports)
        outer, self.names = self.names, {}          # element names are local to a .subckt
        lines = [self.element(path, comp, nets, nodes, prefix)
                 for path, comp in nets.components.items() if not isinstance(comp, el.Ground)]
        lines += [self.instance(path, block, nets, nodes, prefix)
                  for path, block in nets.blocks.items()]
        self.names = outer
        return lines

    def _node_names(self, model, nets, prefix, ports) -> dict[int, str]:
        names = {k: "0" for k in nets.grounded}
        for port in ports:
            terminal = _exposed_terminal(model, port)
            k = nets.net(terminal)
            if k in names:
                raise SpiceError(f"subsystem {prefix[:-1]}: its port {port} is "
                                 f"{'grounded' if names[k] == '0' else 'the same node as ' + names[k]}"
                                 " inside it; a .subckt port list names distinct nodes (write it "
                                 "flattened: subcircuits=False)")
            names[k] = port.lower()
        taken = set(names.values())
        for k in nets.nets():
            if k in names:
                continue
            terminals = nets.members(k)
            leaves = (prefix + nets.leaf(t) for t in terminals)
            given = [self.node_names[t] for t in leaves if t in self.node_names]
            given = [g[len(prefix):] if g.startswith(prefix) else g for g in given]
            name = given[0] if given else terminals[0].replace(".", "_").lower()
            while name in taken:
                name += "_"
            names[k] = name
            taken.add(name)
        return names

    # --- elements -----------------------------------------------------------------------

    def _name(self, letter: str, local: str, path: str) -> str:
        flat = local.replace(".", "_")
        name = flat if flat[:1].upper() == letter else letter + flat
        key = name.lower()
        if key in self.names and self.names[key] != path:
            raise SpiceError(f"{path} and {self.names[key]} would both be {name} in SPICE "
                             "(names are case-insensitive): rename one")
        self.names[key] = path
        return name

    def element(self, path, comp, nets, nodes, prefix) -> str:
        full = prefix + path
        kind = ELEMENTS.get(type(comp))
        if kind is None:
            raise SpiceError(f"{full}: SPICE has no element for a {type(comp).__name__}; the "
                             f"writer knows {SUPPORTED}")
        letter, pins = kind
        name = self._name(letter, path, full)
        words = [name] + [nodes[nets.net(f"{path}.{pin}")] for pin in pins]
        p = comp.parameters
        if letter in "RCL":
            words.append(_number(p[letter]))
            start = p.get({"C": "v0", "L": "i0"}.get(letter), 0.0)
            if start:
                words.append(f"ic={_number(start)}")
        elif type(comp) is el.CurrentSensor:
            words.append("DC 0")
        elif letter in "VI":
            words.append(self._source(full, comp, letter))
        elif letter == "D":
            words.append(self._diode_model(full, comp))
            if comp.has_charge() and p["vd0"]:
                words.append(f"ic={_number(p['vd0'])}")
        elif letter in "EG":
            words.append(_number(p["gain" if letter == "E" else "gm"]))
        else:
            words += [self._controlling(path, full, nets), _number(p["gain" if letter == "F" else "r"])]
        return " ".join(words)

    def _controlling(self, path, full, nets) -> str:
        for terminal in nets.members(nets.net(f"{path}.ic")):
            owner, _, port = terminal.rpartition(".")
            comp = nets.components.get(owner)
            if (type(comp) is el.SensingVoltageSource and port == "i_sense") or \
                    (type(comp) is el.CurrentSensor and port == "i"):
                return self._name("V", owner, self._path_of(owner, full, path))
        raise SpiceError(f"{full}: its control current ic must come from a SensingVoltageSource's "
                         "i_sense or a CurrentSensor's i at the same level (SPICE's F and H name "
                         "a voltage source)")

    @staticmethod
    def _path_of(local, full, path):
        return full[:len(full) - len(path)] + local

    def _diode_model(self, full, diode) -> str:
        p = diode.parameters
        kind = type(diode)              # its Parameter declarations, read on the class
        values = [f"{spice}={_number(p[name])}" for name, spice in DIODE.items()
                  if p[name] != getattr(kind, name).default]
        text = f"D({' '.join(values)})"
        self.diodes.append((full, diode))
        return self.models.setdefault(text, "dm_" + full.replace(".", "_").lower())

    def _temperature(self) -> list[str]:
        """``.temp``, ``.options tnom=`` and ``gmin=`` from the diodes, which must agree (SPICE
        has one circuit temperature)."""
        if not self.diodes:
            return []
        first_path, first = self.diodes[0]
        keys = ("T", "TNOM", "GMIN")
        for path, diode in self.diodes[1:]:
            for key in keys:
                if diode.parameters[key] != first.parameters[key]:
                    raise SpiceError(f"{path}: its {key} ({diode.parameters[key]}) differs from "
                                     f"{first_path}'s ({first.parameters[key]}); SPICE has one "
                                     "temperature and one GMIN per circuit")
        t, tnom, gmin = (first.parameters[k] for k in keys)
        lines = [f".temp {_number(t - KELVIN)}"] if t != 300.15 else []
        if tnom != 300.15:
            lines.append(f".options tnom={_number(tnom - KELVIN)}")
        if gmin:
            self.options["gmin"] = gmin
        return lines

    # --- sources --------------------------------------------------------------------------

    def _source(self, full, comp, letter) -> str:
        port = "V" if letter == "V" else "I"
        value = comp.input_values.get(port)
        if value is None:
            raise SpiceError(f"{full}: its {port} is driven by a signal; SPICE sources take a "
                             "number or a waveform (PULSE, SIN, EXP, PWL)")
        at0, wave = _waveform(full, value)
        if letter == "I" and " r=" in wave:
            raise SpiceError(f"{full}: a current source whose Table repeats has no SPICE form "
                             "(ngspice-39's I sources take no PWL r=)")
        words = [f"DC {_number(self.dc.get(full.lower(), at0))}"]
        if full.lower() in self.ac:
            mag, phase = self.ac[full.lower()]
            words.append(f"AC {_number(mag)} {_number(phase)}")
        return " ".join(words + ([wave] if wave else []))

    # --- subcircuits ------------------------------------------------------------------------

    def instance(self, path, block, nets, nodes, prefix) -> str:
        exposed = block.exposed_ports
        ports = list(exposed)
        for port in ports:
            if exposed[port].domain is not electrical:
                raise SpiceError(f"{prefix + path}: its port {port} is not electrical; a .subckt "
                                 "has electrical nodes only")
        body = self.level(block, prefix + path + ".", ports)
        text = "\n".join(body)
        name = self.definitions.get((tuple(ports), text))
        if name is None:
            name = block.name.lower()
            while name in self.definitions.values():
                name += "_"
            self.definitions[(tuple(ports), text)] = name
            self.subckt_lines += [f".subckt {name} {' '.join(p.lower() for p in ports)}", *body,
                                  f".ends {name}"]
        words = [self._name("X", path, prefix + path)]
        return " ".join(words + [nodes[nets.net(f"{path}.{p}")] for p in ports] + [name])


def _exposed_terminal(model, port: str) -> str:
    """``"member.port"`` inside ``model`` of what its exposed port ``port`` stands for."""
    return model.exposed_ports[port].target.path


def _word(value) -> str:
    if isinstance(value, (list, tuple)):                # .four's vectors
        return " ".join(_word(v) for v in value)
    return value if isinstance(value, str) else _number(value) if isinstance(value, float) \
        else str(value)


def _waveform(full: str, value) -> tuple[float, str]:
    """(value at t = 0, SPICE waveform text or "") of a source value (a model-parameter
    expression: its value with the model parameters at their defaults)."""
    if isinstance(value, ParameterExpression):
        return nominal_value(value), ""
    if not isinstance(value, sg.Waveform):
        if isinstance(value, (int, float)):
            return float(value), ""
        raise SpiceError(f"{full}: SPICE has no source value like {value!r}")
    p = value.parameters
    kind = type(value)
    n = _number
    if kind is sg.Constant:
        return p["k"], ""
    if kind is sg.Step and p["t0"] <= 0:
        return p["offset"] + p["height"], ""
    if kind is sg.Trapezoid and p["t0"] >= 0:
        args = (p["offset"], p["offset"] + p["amplitude"], p["t0"], p["rising"], p["falling"],
                p["width"], p["period"]) + ((p["pulses"],) if p["pulses"] else ())
        return p["offset"], f"PULSE({' '.join(map(n, args))})"
    if kind in (sg.DampedSine, sg.Sine) and p["t0"] >= 0 and (kind is sg.DampedSine or
                                                              p["phase"] == 0 or p["t0"] == 0):
        args = (p["offset"], p["amplitude"], p["f"], p["t0"], p.get("damping", 0.0),
                math.degrees(p["phase"]))
        return p["offset"] + p["amplitude"] * math.sin(p["phase"]), f"SIN({' '.join(map(n, args))})"
    if kind is sg.Exponentials and p["t_rise"] >= 0:
        args = (p["offset"], p["offset"] + p["amplitude"], p["t_rise"] or _ZERO_TIME, p["tau_rise"],
                p["t_fall"] or _ZERO_TIME, p["tau_fall"])
        return p["offset"], f"EXP({' '.join(map(n, args))})"
    if kind is sg.FrequencyModulatedSine:
        args = (p["offset"], p["amplitude"], p["f_carrier"], p["modulation_index"], p["f_signal"],
                math.degrees(p["phase_carrier"]), math.degrees(p["phase_signal"]))
        at0 = p["offset"] + p["amplitude"] * math.sin(p["phase_carrier"] + p["modulation_index"]
                                                      * math.sin(p["phase_signal"]))
        return at0, f"SFFM({' '.join(map(n, args))})"
    if kind is sg.AmplitudeModulatedSine and _am_writable(p):
        # ngspice-39 gives both sines the seventh value's phase (the sixth is ignored)
        args = (p["amplitude"], p["offset"], p["f_modulation"], p["f_carrier"], p["t0"], 0.0,
                math.degrees(p["phase_carrier"]))
        return (0.0 if p["t0"] >= 0 else _am_at_zero(value)), f"AM({' '.join(map(n, args))})"
    if kind in (sg.Table, sg.Ramp):
        points = p["points"] if kind is sg.Table else \
            [(p["t0"], p["offset"]), (p["t0"] + p["duration"], p["offset"] + p["height"])]
        at0 = float(np.interp(0.0, [t for t, _ in points], [y for _, y in points]))
        repeat = p.get("repeat")
        return at0, (f"PWL({' '.join(n(x) for pair in points for x in pair)})" +
                     (f" r={n(repeat)}" if repeat is not None else ""))
    why = {sg.Step: "a step at t0 > 0 has no rise time in SPICE: use a Ramp or a Trapezoid",
           sg.Pulse: "SPICE's PULSE edges take time: use a Trapezoid",
           sg.Sine: "SPICE's SIN holds offset + amplitude·sin(phase) before its delay: use a "
                    "DampedSine, or phase 0",
           sg.AmplitudeModulatedSine: "ngspice-39's AM gives both sines one phase, reads an MF of 0 as "
                                      "1/tstop and is 0 at TD itself: equal phases, f_modulation > 0, and "
                                      "phase 0 or t0 != 0",
           }.get(kind, "SPICE sources take DC, PULSE (Trapezoid), SIN (DampedSine, Sine), EXP "
                       "(Exponentials), PWL (Table, Ramp)")
    raise SpiceError(f"{full}: its {kind.__name__} waveform has no SPICE form ({why})")


def _am_writable(p) -> bool:
    """Whether ngspice-39's AM reads as this AmplitudeModulatedSine: one phase for both sines,
    a modulating frequency it does not replace (0 is 1/tstop there), and the value at t0 (0 in
    ngspice, at TD itself) the same or at t0 = 0 no operating point to move (phase 0)."""
    return (p["phase_modulation"] == p["phase_carrier"] and p["f_modulation"] > 0
            and (p["t0"] != 0 or p["phase_carrier"] == 0))


def _am_at_zero(wave) -> float:
    """An AmplitudeModulatedSine's value at t = 0 (its t0 < 0: the waves are running)."""
    p = wave.parameters
    phase = -2 * math.pi * p["t0"]
    return p["amplitude"] * (p["offset"] + math.sin(phase * p["f_modulation"] + p["phase_modulation"])) \
        * math.sin(phase * p["f_carrier"] + p["phase_carrier"])
