"""The :class:`SpiceDeck`: a deck read into a physlib model, with ngspice's analyses."""
from __future__ import annotations

import warnings as warnings_module
from contextlib import contextmanager
from functools import cached_property

from ..core.model_parameters import resolver
from .analyses import ac_frequencies, dc_values, parse_analysis
from .cards import OPTIONS
from .errors import SpiceError, SpiceWarning
from .results import CircuitVectors, SpiceResult

__all__ = ["SpiceDeck"]


class _Context:
    """What element values may depend on besides .param: the .tran step and stop time
    (PULSE/SIN/EXP defaults) and the temperatures; and the warnings."""

    def __init__(self, deck, constants):
        self.deck, self.constants = deck, constants     # the devices' k and q: read()'s constants
        self.tran_values = (1.0, 1.0)          # until a .tran card or deck.tran() says

    def tran(self):
        return self.tran_values

    def option(self, name):
        """An ``.options`` value (temp and tnom in °C, gmin in S, …)."""
        return self.deck.options[name]

    def warn(self, where, message):
        self.deck.warn(where, message)


class SpiceDeck:
    """A SPICE deck as a physlib model.

    ``title``; ``model`` (a :class:`physlib.Model`: components named like the elements in
    lower case, ``r1``; subcircuit instances as subsystems, ``x1.r1``); ``analyses`` (the
    analysis cards, parsed: a list of (kind, keyword arguments)); ``params`` (the deck's
    ``.param`` values; each is a model parameter of ``model``, :mod:`physlib.spice.parameters`);
    ``options`` (reltol, abstol, vntol, gmin, temp, tnom [°C]); ``nodes`` (node name → a pin
    path of the model); ``warnings`` (messages with file and line).

    Analyses with ngspice's names: :meth:`op`, :meth:`dc`, :meth:`tran`, :meth:`ac`,
    :meth:`noise`, :meth:`pz`, :meth:`meas` and :meth:`run` (the deck's own cards; its
    ``.meas`` cards are ``measures``). Each takes ``params={".param name": value}``: the
    compiled model, compiled once (``deck.compiles`` counts it), recomputes the element values
    from the ``.param`` expressions; ``deck.compile().simulate(params={"rload": 2e3})`` and
    ``physlib.sweep`` do the same.
    """

    def __init__(self, title, netlist, name, warnings, constants="ngspice"):
        from .elements import Builder      # builds components: imported when a deck is read
        self.title = title
        self.warnings: list[str] = []
        self._netlist = netlist
        for where, message in warnings:
            self.warn(where, message)
        self.options = dict(OPTIONS)
        self._ctx = _Context(self, constants)
        self._builder = None
        scope_value = self._read_options(netlist)
        self._builder = Builder(netlist, name, self._ctx)
        scope_value(self._builder.scope)
        self.model = self._builder.model
        self.nodes = self._builder.nodes          # (made once, read only: not copied)
        from .measure import parse_measure
        self.analyses = [(kind, parse_analysis(kind, tokens, card, self._value(card)))
                         for kind, tokens, card in netlist.analyses
                         if kind not in ("meas", "measure")]
        self.measures = [parse_measure(card.text, card.where, self._value(card))
                         for kind, _, card in netlist.analyses if kind in ("meas", "measure")]
        for kind, args in self.analyses:
            if kind == "tran":
                self._ctx.tran_values = (args["tstep"], args["tstop"])
        self.params = {n: self._builder.scope.value(n, None) for n in self._builder.scope.trees}
        temp_card = netlist.options.get("temp", (None, None))[1]
        self.temperatures = [self._value(temp_card)(t) for t in netlist.temperatures]
        if self.temperatures and netlist.control:
            self.warn(temp_card.where, "a .control script runs at the first .temp value")
        from .parameters import declare_parameters
        self._deck_values = declare_parameters(self.model, self._builder, self._ctx, netlist, name)
        netlist.top.compact()                    # the components are built
        self._builder.elements.compact(netlist.top)
        self._declared = self._state()           # what the element values were computed for
        self.compiles = 0
        self._sim = None
        self._altered: dict = {}      # a .control script's alter: parameter path -> value
        from .checks import check_dc_paths
        check_dc_paths(self, self._builder.dc_joins)
        self._builder.dc_joins = None

    def warn(self, where, message):
        text = f"{where}: {message}" if where else message
        self.warnings.append(text)
        warnings_module.warn(SpiceWarning(message, where), stacklevel=4)

    def _value(self, card):
        from .expressions import evaluate, parse
        from .numbers import parse_number

        where = card.where if card is not None else None

        def value(token):
            if token[:1] in "{'":
                return evaluate(parse(token, where), self._builder.scope, where)
            number = parse_number(token)
            if number is None:
                raise SpiceError(f"{token!r} is not a number", where)
            return number[0]
        return value

    def _read_options(self, netlist):
        """Numeric options now; those given as expressions once the .param scope exists."""
        pending = []
        for name, (token, card) in netlist.options.items():
            from .numbers import parse_number
            number = parse_number(token)
            if number is None:
                pending.append((name, token, card))
            else:
                self.options[name] = number[0]

        def finish(scope):
            from .expressions import evaluate, parse
            for name, token, card in pending:
                self.options[name] = evaluate(parse(token, card.where), scope, card.where)
        return finish

    # --- parameters -------------------------------------------------------------------------

    def parameter_values(self, params: dict | None = None, *,
                         tran: tuple[float, float] | None = None) -> dict:
        """``params`` ({.param name: value}, any case) as the compiled model's ``params=``
        takes them: the ``.param`` names in lower case (its model parameters). When ``tran``
        ((tstep, tstop) [s] of a ``.tran`` other than the deck's card) sets the sources'
        defaults (PULSE's rise time, …), also every element value by parameter path, with
        ngspice's defaults for that ``.tran``."""
        if tran is not None:
            saved = self._ctx.tran_values
            self._ctx.tran_values = tuple(tran)
            try:
                return self.parameter_values(params)
            finally:
                self._ctx.tran_values = saved
        names = self._deck_values.parameters
        given = {}
        for key, value in (params or {}).items():
            name = key.lower() if isinstance(key, str) else key
            if name not in names:
                raise SpiceError(f"no .param {key} in the deck (it has "
                                 f"{', '.join(sorted(names)) or 'none'})")
            given[name] = value
        if self._state() == self._declared:
            return {**given, **self._altered}
        return {**given, **self._deck_values.values(self._value_of(given)), **self._altered}

    def _state(self):
        """What element values depend on besides the .param values: the .tran step and stop
        time (the sources' defaults) and the circuit temperature."""
        return tuple(self._ctx.tran_values), self.options["temp"]

    @contextmanager
    def at_temperature(self, celsius: float):
        """The circuit at temperature ``celsius`` [°C] (``.options temp``) while the block
        runs: :meth:`parameter_values` then gives every element value at it."""
        saved = self.options["temp"]
        self.options["temp"] = float(celsius)
        try:
            yield
        finally:
            self.options["temp"] = saved

    def _value_of(self, given: dict):
        """The value of each .param model parameter with the .param values ``given``."""
        names = self._deck_values.parameters
        try:
            return resolver({names[n]: float(v) for n, v in given.items()})
        except (TypeError, ValueError):
            raise SpiceError(f"params: give numbers as .param values, got {given!r:.80}") from None

    @contextmanager
    def evaluating(self, params: dict | None = None):
        """The deck's value functions (a source's DC and AC values) with the ``.param`` values
        ``params`` while the block runs."""
        names = self._deck_values.parameters
        value_of = self._value_of({n: v for n, v in self.parameter_values(params).items()
                                   if n in names})
        with self._deck_values.overridden({n: value_of(p) for n, p in
                                           self._deck_values.parameters.items()}):
            yield

    def compile(self):
        """The compiled model (compiled on first use, then reused)."""
        if self._sim is None:
            self._sim = self.model.compile()
            self.compiles += 1
        return self._sim

    # --- what the analyses read -----------------------------------------------------------

    @property
    def sources(self) -> dict:
        """The independent V and I sources by name (``v1``, ``x1.v1`` inside subcircuit x1),
        each a dict: ``input`` (the compiled model's input that sets it, ``"v1.V"`` [V] or
        ``"i1.I"`` [A]), ``dc`` and ``at0`` (functions giving its DC value and its value at
        t = 0 [V or A] with the current ``.param`` values, :meth:`evaluating`), ``ac`` (None or
        functions giving its AC magnitude [V or A] and phase [°]), ``waveform`` (the waveform's
        keyword, ``"pulse"``, …, or None) and ``where`` (its card's location). Read only."""
        return self._builder.sources

    @property
    def elements(self) -> dict:
        """Every element's card (``where``: its file and line) by component path: ``r1``,
        ``x1.r1`` inside subcircuit instance ``x1``, and the instances (``x1``); not K cards,
        which only couple two inductors. Read only."""
        return self._builder.elements

    @cached_property
    def circuit_vectors(self) -> CircuitVectors:
        """The node voltages and element currents its results name (see :class:`CircuitVectors`)."""
        return CircuitVectors(self.nodes, self.elements, self.sources)

    def node_values(self, table: str, params: dict | None = None) -> dict:
        """{pin path of the node: value [V]} of the deck's ``.ic`` (``table="ic"``) or
        ``.nodeset`` (``"nodeset"``) entries with the ``.param`` values ``params``; a
        :class:`SpiceError` for an entry naming ground or no node of the deck."""
        entries = {"ic": self._netlist.ic, "nodeset": self._netlist.nodeset}[table]
        if not entries:
            return {}
        builder, out = self._builder, {}
        with self.evaluating(params):
            for node, (text, card) in entries.items():
                if node in ("0", "gnd") or not self.nodes.get(node):
                    raise SpiceError(f"{card.text.split()[0]} v({node}): no node {node!r} in the "
                                     f"deck (nodes: "
                                     f"{', '.join(sorted(n for n in self.nodes if self.nodes[n]))})",
                                     card.where)
                out[self.nodes[node]] = float(builder.value(text, builder.scope, card.where)())
        return out

    # --- analyses -----------------------------------------------------------------------------

    def op(self, *, params: dict | None = None) -> SpiceResult:
        """``.op``: the DC operating point (sources at their DC values), its Newton started, as
        ngspice's, with the ``.nodeset`` nodes held at their values, then released."""
        from .runs import run_op
        return run_op(self, params)

    def dc(self, src: str, start: float, stop: float, step: float, src2: str | None = None,
           start2: float | None = None, stop2: float | None = None, step2: float | None = None,
           *, params: dict | None = None) -> SpiceResult:
        """``.dc src start stop step [src2 start2 stop2 step2]``: operating points with source
        ``src`` (its name) at start, start + step, … stop [V or A], or with the circuit
        temperature there [°C] for ``src="temp"``; scale ``v-sweep`` (``i-sweep`` for a current
        source, ``temp-sweep``). A second source (or TEMP) is the outer loop: the vectors hold
        the whole inner sweep at each of its values in turn, as ngspice's
        (:mod:`physlib.spice.dcsweep`)."""
        from .dcsweep import run_dc
        sweeps = [(src.lower(), dc_values(start, stop, step))]
        if src2 is not None:
            sweeps.append((src2.lower(), dc_values(start2, stop2, step2)))
        return run_dc(self, sweeps, params)

    def tran(self, tstep: float, tstop: float, tstart: float = 0.0, tmax: float | None = None,
             uic: bool = False, *, params: dict | None = None, t_eval=None) -> SpiceResult:
        """``.tran tstep tstop [tstart [tmax]] [uic]`` [s]: a transient from the operating
        point with the sources at their t = 0 values and the ``.ic`` nodes held at their
        values (ngspice's t = 0 row; released after it), ``.nodeset`` nodes as its start
        (``uic``: from the elements' ``ic=`` values, other states 0). Output at tstart, tstart + tstep, … tstop unless ``t_eval``
        is given; the solver's step is at most tmax (default min(tstep, (tstop − tstart)/50),
        as ngspice). Tolerances: rtol = min(reltol, 1e-6), atol = min(vntol, 1e-8)."""
        from .runs import run_tran
        return run_tran(self, tstep, tstop, tstart, tmax, uic, params, t_eval)

    def ac(self, variation: str, n: int, fstart: float, fstop: float, *,
           params: dict | None = None) -> SpiceResult:
        """``.ac dec|oct|lin n fstart fstop`` [Hz]: the small-signal response at the DC operating
        point to every source's ``AC mag phase`` together; complex values, scale ``frequency``."""
        from .runs import run_ac
        return run_ac(self, ac_frequencies(variation.lower(), int(n), fstart, fstop,
                                           self.options["reltol"]), params)

    def noise(self, output: str, src: str, variation: str, n: int, fstart: float,
              fstop: float, pts_per_summary: int | None = None, *,
              params: dict | None = None) -> SpiceResult:
        """``.noise v(out[,ref]) src dec|oct|lin n fstart fstop [pts_per_summary]`` [Hz]: the
        noise of the output voltage at the DC operating point and the deck's temperature
        (``.temp``, 27 °C by default), with ngspice's vectors in its default units:
        ``onoise_spectrum`` [V/√Hz], ``inoise_spectrum`` (divided by the gain from ``src`` at
        AC 1 alone: [V/√Hz] for a V source, [A/√Hz] for an I source), each element's
        contribution ``onoise_r1`` [V/√Hz] and its sources ``onoise_r1_thermal``,
        ``onoise_r1_1overf``, ``onoise_d1_rs``, ``onoise_d1_id``, ``onoise_d1_1overf``
        (``onoise_d.x1.d1_id`` inside subcircuit x1), and the integrated noise over the band
        ``onoise_total``, ``inoise_total``, ``onoise_total_r1``, … [V or A]. ngspice prints
        contributions only when ``pts_per_summary`` is given; here they are always there (the
        argument is accepted and not needed). ``raw`` is physlib's NoiseResult (PSDs in
        V²/Hz)."""
        from .analyses import noise_frequencies
        from .runs import run_noise
        if pts_per_summary is not None and int(pts_per_summary) < 0:
            raise SpiceError(f".noise: pts_per_summary must be >= 0, got {pts_per_summary}")
        freqs = noise_frequencies(variation.lower(), int(n), fstart, fstop,
                                  self.options["reltol"])
        return run_noise(self, output, src.lower(), freqs, params)

    def pz(self, in_p: str, in_n: str, out_p: str, out_n: str, transfer: str = "vol",
           find: str = "pz", *, params: dict | None = None) -> SpiceResult:
        """``.pz in+ in- out+ out- vol|cur pol|zer|pz``: poles and zeros [rad/s, complex] of
        v(out+, out-) over the voltage across in+, in- (``vol``) or the current into in+
        (``cur``), at the DC operating point, from physlib's linearization, as ngspice's
        vectors ``pole(1)``, …, ``zero(1)``, … (ascending real part). Poles are every natural
        frequency of the circuit, also modes the output does not see, and zeros those of the
        transfer function's numerator over them, nothing cancelled, as ngspice; ngspice-39 may
        list such a hidden mode once more among the zeros (a branch driven straight by the
        input source), physlib does not. The deck needs its V or I source across in+, in-
        (the input); ``cur`` with a V source there opens it, as ngspice does."""
        from .runs import run_pz
        return run_pz(self, in_p, in_n, out_p, out_n, transfer.lower(), find.lower(), params)

    def tf(self, output: str, src: str, *, params: dict | None = None) -> SpiceResult:
        """``.tf output src``: the small-signal DC transfer function from independent source
        ``src`` to ``output`` (``v(out)``, ``v(out,ref)`` or ``i(vname)``) at the operating
        point, with the input and output impedances [Ω], as ngspice-39's vectors
        ``transfer_function``, ``src#input_impedance`` and ``output_impedance_at_v(out)``
        (``vname#output_impedance``) (:mod:`physlib.spice.transfer`)."""
        from .transfer import run_tf
        return run_tf(self, output.lower().replace(" ", ""), src.lower(), params)

    def sens(self, output: str, *, params: dict | None = None) -> SpiceResult:
        """``.sens output`` (DC): ∂output/∂p at the operating point for each resistance,
        source value, controlled-source gain and device .model parameter of the deck, under
        ngspice-39's names (``r1``, ``v1``, ``e1_gain``, ``d1:is``, ``d1_temp``), sorted as it
        prints them; ``result.relative`` holds p·∂output/∂p (the same as ngspice's for an R
        with m= or tc1=, whose absolute value here is per ohm of its effective resistance)
        (:mod:`physlib.spice.transfer`)."""
        from .transfer import run_sens
        return run_sens(self, output.lower().replace(" ", ""), params)

    def four(self, freq: float, vectors, tran: SpiceResult) -> SpiceResult:
        """``.four freq vectors``: the Fourier components of ``vectors`` (names or
        expressions: ``["v(out)", "i(v1)"]``) of the transient ``tran`` at fundamental
        ``freq`` [Hz] and its harmonics (``.options nfreqs``, 10 by default: up to the 9th)
        on ``.options fourgridsize`` points (200), as ngspice-39's
        (:mod:`physlib.spice.fourier`)."""
        from .fourier import four_settings, run_four
        return run_four(freq, [vectors] if isinstance(vectors, str) else list(vectors), tran,
                        *four_settings(self.options))

    def meas(self, card: str, result: SpiceResult) -> float:
        """One ``.meas`` card (its text, with or without ``.meas``: ``"tran t1 WHEN v(out)=0.5
        RISE=1"``) evaluated on ``result`` as ngspice-39 does (:mod:`physlib.spice.measure`):
        the value in the vector's unit, or the scale's ([s], [Hz], [V]) for WHEN and
        TRIG/TARG; NaN with a SpiceWarning where ngspice reports the measurement as failed."""
        from .measure import parse_measure
        measure = parse_measure(card, None, self._value(None))
        if measure.function == "param":
            raise SpiceError(f".meas {measure.name} param=...: an expression of other "
                             "measurements; deck.run() evaluates it after them")
        return self._measured(measure, result)

    def _measured(self, measure, result) -> float:
        value = measure.evaluate(result)
        if value != value:
            self.warn(measure.where, f".meas {measure.name} failed: out of the interval of "
                      f"the .{result.kind} result (ngspice reports it as failed too)")
        return value

    def run(self, *, params: dict | None = None) -> dict:
        """Every analysis card of the deck, in order: {kind: SpiceResult} (a second card of a
        kind is ``"tran2"``, …), and with ``.meas`` cards ``"meas"``: {name: value}, each
        measured on the first result of its analysis (tran, ac or dc). A ``.temp`` card with
        several temperatures runs every card at each (keys ``"op@0"``, ``"op@27"``, …; the
        measurements ``"name@27"``; each result's ``temperature`` [°C]), where ngspice-39
        warns and runs at 27 °C only. A deck with a
        ``.control`` block runs its script instead (:mod:`physlib.spice.control`: its analyses
        and ``run`` add results, ``let`` and ``meas`` vectors, ``"print"`` what it prints)."""
        if self._netlist.control:
            from .control import run_script
            return run_script(self, params)
        if self.temperatures:
            from .dcsweep import run_at_temperatures
            return run_at_temperatures(self, params)
        return self._run_cards({}, params)

    def _run_cards(self, out: dict, params) -> dict:
        """The analysis cards' results, then the .meas cards', added to ``out``."""
        first = {}
        # .four cards work on the transient, as ngspice runs them after every analysis
        for kind, args in sorted(self.analyses, key=lambda card: card[0] == "four"):
            key, k = kind, 2
            while key in out:
                key, k = f"{kind}{k}", k + 1
            if kind == "four" and "tran" not in first:
                raise SpiceError(".four: the deck has no .tran card to analyse")
            out[key] = self.four(**args, tran=first["tran"]) if kind == "four" else \
                getattr(self, kind)(**args, params=params)
            first.setdefault(kind, out[key])
        if self.measures:
            measured = out.setdefault("meas", {})
            for measure in self.measures:
                if measure.analysis not in first:
                    raise SpiceError(f".meas {measure.analysis} {measure.name}: the deck has no "
                                     f".{measure.analysis} card to measure on", measure.where)
                measured[measure.name] = measure.value(measured, self._builder.scope) \
                    if measure.function == "param" else self._measured(measure, first[measure.analysis])
        return out

    def __repr__(self):
        return f"<SpiceDeck {self.title!r}: {len(self.elements)} elements>"
