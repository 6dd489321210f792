"""The :class:`SpiceDeck`: a deck read into a physlib model, with ngspice's analyses."""
from __future__ import annotations

import warnings as warnings_module


from .analyses import ac_frequencies, dc_values, parse_analysis
from .cards import OPTIONS
from .errors import SpiceError, SpiceWarning
from .results import SpiceResult

__all__ = ["SpiceDeck"]


class _Context:
    """What element values may depend on besides .param: the .tran step and stop time
    (PULSE/SIN/EXP defaults) and the temperatures; and the warnings."""

    def __init__(self, deck):
        self.deck = deck
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
    ``.param`` values); ``options`` (reltol, abstol, vntol, gmin, temp, tnom [°C]); ``nodes``
    (node name → a pin path of the model); ``warnings`` (messages with file and line).

    Analyses with ngspice's names: :meth:`op`, :meth:`dc`, :meth:`tran`, :meth:`ac`,
    :meth:`run` (the deck's own cards). Each takes ``params={".param name": value}``: the
    element values are recomputed from the ``.param`` expressions and passed to the compiled
    model, which is compiled once (``deck.compiles`` counts it).
    """

    def __init__(self, title, netlist, name, warnings):
        from .elements import Builder      # builds components: imported when a deck is read
        self.title = title
        self.warnings: list[str] = []
        self._netlist = netlist
        for where, message in warnings:
            self.warn(where, message)
        self.options = dict(OPTIONS)
        self._ctx = _Context(self)
        self._builder = None
        scope_value = self._read_options(netlist)
        self._builder = Builder(netlist, name, self._ctx)
        scope_value(self._builder.scope)
        self.model = self._builder.model
        self.nodes = dict(self._builder.nodes)
        self.analyses = [(kind, parse_analysis(kind, tokens, card, self._value(card)))
                         for kind, tokens, card in netlist.analyses]
        for kind, args in self.analyses:
            if kind == "tran":
                self._ctx.tran_values = (args["tstep"], args["tstop"])
        self.params = {n: self._builder.scope.value(n, None) for n in self._builder.scope.trees}
        self.compiles = 0
        self._sim = None

    def warn(self, where, message):
        text = f"{where}: {message}" if where else message
        self.warnings.append(text)
        warnings_module.warn(SpiceWarning(message, where), stacklevel=4)

    def _value(self, card):
        from .expressions import evaluate, parse
        from .numbers import parse_number

        def value(token):
            if token[:1] in "{'":
                return evaluate(parse(token, card.where), self._builder.scope, card.where)
            number = parse_number(token)
            if number is None:
                raise SpiceError(f"{token!r} is not a number", card.where)
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

    def parameter_values(self, params: dict | None = None) -> dict:
        """{physlib parameter path: value} of every element value, recomputed with the
        ``.param`` values ``params`` (name → value) in place of the deck's."""
        scope = self._builder.scope
        overrides = {k.lower(): float(v) for k, v in (params or {}).items()}
        unknown = sorted(set(overrides) - set(scope.trees))
        if unknown:
            raise SpiceError(f"no .param {', '.join(unknown)} in the deck (it has "
                             f"{', '.join(sorted(scope.trees)) or 'none'})")
        scope.overrides = overrides
        for s in self._builder.scopes:
            s.forget()
        try:
            return {path: function() for path, (function, _) in self._builder.bindings.items()}
        finally:
            scope.overrides = {}
            for s in self._builder.scopes:
                s.forget()

    def compile(self):
        """The compiled model (compiled on first use, then reused)."""
        if self._sim is None:
            self._sim = self.model.compile()
            self.compiles += 1
        return self._sim

    # --- analyses -----------------------------------------------------------------------------

    def _result(self, kind, scale, values, read, raw):
        currents = {path: path in self._builder.sources for path in self._builder.elements
                    if path.rsplit(".", 1)[-1][0] not in "x"}
        return SpiceResult(kind, scale, values, read, self.nodes, currents, raw)

    def _dc_inputs(self) -> dict:
        """Inputs that make the sources take their DC values (where those differ from t = 0)."""
        out = {}
        for source in self._builder.sources.values():
            if source["waveform"] and source["dc"]() != source["at0"]():
                out[source["input"]] = source["dc"]()
        return out

    def op(self, *, params: dict | None = None) -> SpiceResult:
        """``.op``: the DC operating point (sources at their DC values)."""
        from .runs import run_op
        return run_op(self, params)

    def dc(self, src: str, start: float, stop: float, step: float, *,
           params: dict | None = None) -> SpiceResult:
        """``.dc src start stop step``: operating points with source ``src`` (its name) at
        start, start + step, … stop [V or A]; scale ``v-sweep`` (``i-sweep`` for a current source)."""
        from .runs import run_dc
        return run_dc(self, src.lower(), dc_values(start, stop, step), params)

    def tran(self, tstep: float, tstop: float, tstart: float = 0.0, tmax: float | None = None,
             uic: bool = False, *, params: dict | None = None, t_eval=None) -> SpiceResult:
        """``.tran tstep tstop [tstart [tmax]] [uic]`` [s]: a transient from the operating
        point with the sources at their t = 0 values (``uic``: from the elements' ``ic=``
        values, other states 0). Output at tstart, tstart + tstep, … tstop unless ``t_eval``
        is given; the solver's step is at most tmax (default min(tstep, (tstop − tstart)/50),
        as ngspice). Tolerances: rtol = min(reltol, 1e-6), atol = min(vntol, 1e-8)."""
        from .runs import run_tran
        return run_tran(self, tstep, tstop, tstart, tmax, uic, params, t_eval)

    def ac(self, variation: str, n: int, fstart: float, fstop: float, *,
           params: dict | None = None) -> SpiceResult:
        """``.ac dec|oct|lin n fstart fstop`` [Hz]: the small-signal response at the DC operating
        point to every source's ``AC mag phase`` together; complex values, scale ``frequency``."""
        from .runs import run_ac
        return run_ac(self, ac_frequencies(variation.lower(), int(n), fstart, fstop), params)

    def run(self, *, params: dict | None = None) -> dict:
        """Every analysis card of the deck, in order: {kind: SpiceResult} (a second card of a
        kind is ``"tran2"``, …)."""
        out = {}
        for kind, args in self.analyses:
            key, k = kind, 2
            while key in out:
                key, k = f"{kind}{k}", k + 1
            out[key] = getattr(self, kind)(**args, params=params)
        return out

    def __repr__(self):
        return f"<SpiceDeck {self.title!r}: {len(self._builder.elements)} elements>"
