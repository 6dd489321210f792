"""A deck's ``.control`` script run as ngspice-39 runs it in batch mode (``ngspice -b``).

:meth:`SpiceDeck.run` of a deck with a ``.control`` block runs its lines in order: the
analyses ``op``, ``dc``, ``ac``, ``tran``, ``noise``, ``pz``, ``tf``, ``sens`` (arguments as
their cards') and
``run`` (the deck's analysis cards, then its ``.meas`` cards), each making a new plot, the
current one; ``let name = expr`` (:mod:`physlib.spice.vectors`) adds a vector to the current
plot (to ``const`` before any analysis); ``meas`` measures on the current plot (as ``.meas``)
and keeps the value as ngspice does, rounded to 7 significant digits; ``alter r1 = 2k`` (also
``alter r1 2k``, ``alter @r1[resistance] = 2k``; R, C, L values and the DC value of a V or I
source without a waveform) and ``altermod dmod is = 1e-13`` (any ``.model`` parameter; the
deck is built and compiled again) change the circuit until ``reset``, which restores it and
applies ``alterparam name = value``; ``foreach var v1 v2 …``, ``if``/``else``, ``while``,
``repeat n``, ``break``, ``continue`` … ``end``; ``set name = value`` (``$name`` and
``$&vector`` are replaced in the lines after it); ``setplot tran1``; ``print``, ``wrdata``,
``write`` and ``echo`` record what they would print or write (no file is written: a
:class:`SpiceWarning` says so for ``wrdata`` and ``write``; ``all``
lists the plot's vectors as ngspice's ``print all``);
``fourier freq vectors`` analyses the current (transient) plot as ``.four`` (its tables are a
``four`` result; ``set nfreqs``, ``set fourgridsize`` apply) and adds ngspice's vector
``fourier<call><k>`` (frequencies, magnitudes, phases) to the plot; ``quit`` ends the script.

Commands that do not change a result are accepted silently: ``plot`` (ngspice -b draws
nothing; ``python -m physlib.spice --plot`` does), ``save`` (every vector is kept),
``destroy``, ``display``, ``listing``, ``version``, ``rusage``, ``status``. Every other command
is a :class:`SpiceWarning` naming the line, and does nothing.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..constants import k_B_ngspice, q_ngspice
from .errors import SpiceError
from .lexer import Card
from .vectors import evaluate_vector, is_true, parse_list

__all__ = ["run_script", "Output"]

ANALYSES = ("op", "dc", "ac", "tran", "noise", "pz", "tf", "sens")
SILENT = ("plot", "save", "destroy", "display", "listing", "version", "rusage", "status")
BLOCKS = ("foreach", "if", "while", "repeat", "dowhile")
# set variables that change what ngspice computes or prints and that physlib does not follow
RESULT_VARIABLES = ("units", "sqrnoise", "ngbehavior", "dpolydegree", "polydegree")
# ngspice-39's predefined vectors (its cpitf.c, from const.h: CODATA 2014's e, k and h)
CONSTANTS = {"pi": math.pi, "e": math.e, "c": 299792458.0, "kelvin": -273.15,
             "echarge": float(q_ngspice), "boltz": float(k_B_ngspice), "planck": 6.626070040e-34,
             "yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}


class Output:
    """What one ``print``, ``wrdata``, ``write`` or ``echo`` line gives: ``command``,
    ``file`` (wrdata/write; not written), ``vectors`` ({expression text: value}: a float for a
    one-point vector, else an array), ``scale`` ((name, values) of the plot's scale when a
    vector runs along it, else None), ``text`` (echo's line) and ``where`` (the line)."""

    def __init__(self, command, where, vectors=None, scale=None, file=None, text=None):
        self.command, self.where, self.file, self.text = command, where, file, text
        self.vectors, self.scale = vectors or {}, scale

    def __repr__(self):
        return f"<Output {self.command}: {', '.join(self.vectors) or self.text!r}>"


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Quit(Exception):
    pass


def _blocks(cards, start=0, closing=()):
    """The script as a list of (card, words, body, else_body) from cards[start:], up to one of
    ``closing``; returns (statements, index after the closing line, the closing word)."""
    out, k = [], start
    while k < len(cards):
        card = cards[k]
        words = card.text.split()
        key = words[0].lower()
        if key in closing:
            return out, k + 1, key
        if key in BLOCKS:
            body, k, end = _blocks(cards, k + 1, ("end", "else") if key == "if" else ("end",))
            other = []
            if end == "else":
                other, k, end = _blocks(cards, k, ("end",))
            if end != "end":
                raise SpiceError(f"{key} without its 'end'", card.where)
            out.append((card, words, body, other))
            continue
        if key in ("end", "else"):
            raise SpiceError(f"'{key}' without if/foreach/while/repeat", card.where)
        out.append((card, words, None, None))
        k += 1
    return out, k, None


def run_script(deck, params=None) -> dict:
    """Run the deck's ``.control`` lines: ``{plot key: SpiceResult}`` (keys as
    :meth:`SpiceDeck.run`'s: ``"tran"``, ``"tran2"``, …, and ``"const"`` for vectors let
    before any analysis), ``"meas"`` ({name: value}, the last of each name) and ``"print"``
    (a list of :class:`Output`). The deck's analysis cards run where the script says ``run``,
    or after it when it never does."""
    script = _Script(deck, params)
    statements, _, _ = _blocks(deck._netlist.control)
    try:
        script.execute(statements)
    except _Quit:
        pass
    except (_Break, _Continue):
        raise SpiceError("break/continue outside a loop") from None
    finally:
        deck._altered = {}
    if not script.ran_cards and deck.analyses:
        deck._run_cards(script.out, script.params)
    if script.const.names:
        script.out["const"] = script.const
    return script.out


class _Script:
    """The state of a running script: the deck (another one after ``altermod``), the plots,
    the variables, the ``.param`` values."""

    def __init__(self, deck, params):
        from .results import NO_CIRCUIT, SpiceResult
        self.original, self.deck = deck, deck
        self.params = dict(params or {})
        self.pending: dict = {}                     # alterparam values until reset
        self.altered: dict = {}                     # alter: parameter path -> value
        self.variables: dict[str, str] = {}
        self.out: dict = {"print": []}
        self.const = SpiceResult("const", None, None, None, NO_CIRCUIT, None)
        self.current = None
        self.ran_cards = False
        self.plots = {"const": self.const}          # by ngspice's names: tran1, ac1, …

    # --- structure ----------------------------------------------------------------------

    def execute(self, statements):
        for card, words, body, other in statements:
            key = words[0].lower()
            if body is None:
                self.command(card)
            elif key == "foreach":
                self.foreach(card, body)
            elif key == "if":
                self.execute(body if self.condition(card) else other)
            elif key == "repeat":
                count = int(self.number(self.text(card).split()[1:], card)) \
                    if len(words) > 1 else None
                self.loop(body, lambda k: count is None or k < count)
            else:
                test = (lambda k: self.condition(card)) if key == "while" else \
                    (lambda k: k == 0 or self.condition(card))
                self.loop(body, test)

    def loop(self, body, going):
        k = 0
        while going(k):
            try:
                self.execute(body)
            except _Break:
                break
            except _Continue:
                pass
            k += 1

    def foreach(self, card, body):
        words = self.text(card).split()
        if len(words) < 2:
            raise SpiceError("foreach takes a variable and its values", card.where)
        for value in words[2:]:
            self.variables[words[1]] = value
            try:
                self.execute(body)
            except _Break:
                break
            except _Continue:
                pass

    def condition(self, card) -> bool:
        text = self.text(card).split(None, 1)
        if len(text) < 2:
            raise SpiceError(f"{text[0]} needs a condition", card.where)
        return is_true(self.vector(text[1], card))

    # --- text and vectors ---------------------------------------------------------------

    def text(self, card) -> str:
        """The line with ``$name``, ``${name}`` and ``$&vector`` replaced."""
        def replace(match):
            name = match.group(2) or match.group(3)
            if match.group(1):
                value = np.atleast_1d(self.lookup(name, card))
                return " ".join(f"{float(np.real(v)):g}" for v in value)
            if name not in self.variables:
                raise SpiceError(f"${name}: no variable {name} (set it with 'set {name} = "
                                 "...')", card.where)
            return self.variables[name]
        return re.sub(r"\$(&?)(?:\{(\w+)\}|([A-Za-z_][\w#.()]*\)|[A-Za-z_]\w*))", replace,
                      card.text)

    def lookup(self, name, card):
        """A vector of the current plot (or ``plot.name`` of another, or of ``const``)."""
        plot, _, rest = name.partition(".")
        plots = self.plots
        sources = ([plots[plot]], rest) if plot.lower() in plots and rest else \
            ([self.current] if self.current else [], name)
        results, name = sources
        for result in results + [self.const]:
            for candidate in (name, f"v({name})", f"i({name[:-7]})" if
                              name.endswith("#branch") else None):
                if candidate and candidate in result:
                    return result[candidate]
        if name.lower() in CONSTANTS:
            return CONSTANTS[name.lower()]
        elsewhere = [key for key, plot in self.plots.items() if name in plot]
        raise SpiceError(f"no vector {name!r} in the current plot "
                         f"({self.current.kind if self.current else 'none'})" +
                         (f"; plot {elsewhere[-1]} has it: 'setplot {elsewhere[-1]}' first, or "
                          f"'print {elsewhere[-1]}.{name}'" if elsewhere else ""), card.where)

    def vector(self, text, card):
        trees = parse_list(text, card.where)
        if len(trees) != 1:
            raise SpiceError(f"expected one expression, got {len(trees)}", card.where)
        return evaluate_vector(trees[0][1], lambda n: self.lookup(n, card), card.where)

    def number(self, words, card) -> float:
        return float(np.real(self.vector(" ".join(words), card)[0]))

    # --- commands -----------------------------------------------------------------------

    def command(self, card):
        text = self.text(card)
        words = text.split()
        key = words[0].lower()
        handler = getattr(self, f"do_{key}", None)
        if key in ANALYSES:
            self.analysis(card, key, text)
        elif handler is not None:
            handler(card, text[len(words[0]):].strip())
        elif key in SILENT:
            pass
        else:
            self.deck.warn(card.where, f"the .control command {key!r} is not supported by "
                           "physlib and does nothing here")

    def add_plot(self, kind, result):
        key, k = kind, 2
        while key in self.out:
            key, k = f"{kind}{k}", k + 1
        self.out[key] = result
        self.name_plot(result)

    def name_plot(self, result):
        """Make ``result`` the current plot, under ngspice's name (``tran1``, …). A noise
        analysis is ngspice's two plots: its spectra (``noise1``) and its integrated totals
        (``noise2``, the current one after it, as in ngspice-39)."""
        from .results import NO_CIRCUIT, SpiceResult
        count = sum(1 for name in self.plots if re.fullmatch(result.kind + r"\d+", name))
        self.plots[f"{result.kind}{count + 1}"] = self.current = result
        if result.kind == "noise":
            parts = [{}, {}]        # the spectra, the totals
            for name in result.names:
                if name != result.scale:
                    parts["noise_total" in name][name] = result[name]
            scale = result.scale, result[result.scale]
            self.plots[f"noise{count + 1}"] = SpiceResult("noise", *scale, None, NO_CIRCUIT,
                                                          result.raw, parts[0])
            self.current = SpiceResult("noise", None, None, None, NO_CIRCUIT, result.raw,
                                       parts[1])
            self.plots[f"noise{count + 2}"] = self.current

    def analysis(self, card, kind, text):
        from .analyses import parse_analysis
        from .lexer import split
        dot = Card(card.file, card.line, "." + text)      # located at the command's line
        args = parse_analysis(kind, split(text, card.where)[1:], dot, self.deck._value(dot))
        self.deck._altered = self.altered
        self.add_plot(kind, getattr(self.deck, kind)(**args, params=self.params))

    def do_run(self, card, rest):
        self.ran_cards = True
        self.deck._altered = self.altered
        before = set(self.out)
        self.deck._run_cards(self.out, self.params)
        for key in [key for key in self.out if key not in before and key != "meas"]:
            self.name_plot(self.out[key])

    def do_let(self, card, rest):
        name, equals, expression = rest.partition("=")
        name = name.strip()
        if not equals or not re.fullmatch(r"[A-Za-z_][\w#]*", name):
            raise SpiceError("let takes name = expression (a plain name; no [index] on the "
                             "left)", card.where)
        value = self.vector(expression, card)
        (self.current or self.const).let(name, value[0].item() if len(value) == 1 else value)

    def do_meas(self, card, rest):
        from .measure import parse_measure
        if self.current is None:
            raise SpiceError("meas before any analysis: no plot to measure on", card.where)
        measure = parse_measure(rest, card.where, self.deck._value(card))
        measured = self.out.setdefault("meas", {})
        value = measure.value(measured, self.deck._builder.scope) \
            if measure.function == "param" else self.deck._measured(measure, self.current)
        value = float(f"{value:e}")       # ngspice keeps the measurement as it prints it
        measured[measure.name] = value
        self.current.let(measure.name, value)

    do_measure = do_meas

    def do_print(self, card, rest, command="print", file=None):
        words = rest.split()
        if words and words[0].lower() in ("col", "line"):
            rest = rest.split(None, 1)[1] if len(words) > 1 else ""
        if rest.strip().lower() == "all" or (not rest.strip() and command != "print"):
            items = self.every_vector()
        else:
            items = [(label, evaluate_vector(tree, lambda n: self.lookup(n, card), card.where))
                     for label, tree in parse_list(rest, card.where)]
        if not items:
            raise SpiceError(f"{command} needs vectors", card.where)
        vectors = {label: (v[0].item() if len(v) == 1 else v) for label, v in items}
        scale = None
        if self.current is not None and self.current.scale:
            along = np.asarray(self.current[self.current.scale])
            if any(len(v) == len(along) > 1 for _, v in items):
                scale = (self.current.scale, along)
        self.out["print"].append(Output(command, card.where, vectors, scale, file))

    def every_vector(self) -> list:
        """(name, values) of each vector of the current plot but its scale, as ngspice's
        ``print all`` lists them: by name (digits as numbers), a node voltage as its node,
        a V source's current as ``v1#branch`` (an I source's is no vector there)."""
        plot, named = self.current, []
        if plot is None:
            return []
        sources = self.deck.sources
        for name in plot.names:
            inside = name[2:-1] if name[:2] in ("v(", "i(") and name.endswith(")") else None
            if name == plot.scale or (name[:2] == "i(" and inside in sources and
                                      sources[inside]["input"].endswith(".I")):
                continue
            label = inside if name[:2] == "v(" and "," not in name else \
                f"{inside}#branch" if name[:2] == "i(" else name
            named.append((label, np.atleast_1d(plot[name])))
        return sorted(named, key=lambda item: [int(part) if part.isdigit() else part
                                               for part in re.split(r"(\d+)", item[0])])

    def do_wrdata(self, card, rest, command="wrdata"):
        words = rest.split(None, 1)
        if not words:
            raise SpiceError(f"{command} takes a file name, then vectors", card.where)
        self.do_print(card, words[1] if len(words) > 1 else "", command, words[0])
        self.deck.warn(card.where, f"{command} {words[0]}: physlib writes no file here; the "
                       "vectors are in run()['print'] (python -m physlib.spice --csv DIR "
                       "writes them as CSV)")

    def do_write(self, card, rest):
        self.do_wrdata(card, rest, "write")

    def do_echo(self, card, rest):
        self.out["print"].append(Output("echo", card.where, text=rest.replace('"', "")))

    def do_set(self, card, rest):
        for name, value in re.findall(r"(\w+)\s*(?:=\s*(\([^)]*\)|\"[^\"]*\"|\S+))?", rest):
            self.variables[name] = value.strip('()"').strip() if value else ""
            if name.lower() in RESULT_VARIABLES:
                self.deck.warn(card.where, f"set {name}: physlib does not follow this "
                               "variable (it computes as ngspice-39 does without it)")

    def do_unset(self, card, rest):
        for name in rest.split():
            self.variables.pop(name, None)

    def do_setplot(self, card, rest):
        if rest.lower() not in self.plots:
            raise SpiceError(f"setplot {rest}: no such plot (plots: {', '.join(self.plots)})",
                             card.where)
        self.current = self.plots[rest.lower()]

    def do_fourier(self, card, rest):
        from .fourier import script_fourier
        script_fourier(self, card, rest)

    def do_quit(self, card, rest):
        raise _Quit

    do_exit = do_quit

    def do_break(self, card, rest):
        raise _Break

    def do_continue(self, card, rest):
        raise _Continue

    def do_alterparam(self, card, rest):
        name, equals, value = rest.partition("=")
        if not equals:
            raise SpiceError("alterparam takes name = value", card.where)
        self.pending[name.strip().lower()] = self.number([value], card)

    def do_reset(self, card, rest):
        self.deck, self.altered = self.original, {}
        self.params.update(self.pending)

    def do_alter(self, card, rest):
        from .alter import altered_path
        with self.deck.evaluating(self.params):       # the card's m=, tc1=, … may be .params
            path, value = altered_path(self.deck, rest, card, lambda w: self.number(w, card))
        self.altered[path] = value

    def do_altermod(self, card, rest):
        from .alter import altered_model
        self.deck = altered_model(self.deck, rest, card, lambda w: self.number(w, card))
