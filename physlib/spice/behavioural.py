"""SPICE's B element: ``Bname n+ n- V=expr`` or ``I=expr``, an arbitrary (behavioural) source.

The expression is read with the ``.param`` expression parser (:mod:`physlib.spice.expressions`)
and translated into the SymPy equation of a :class:`~physlib.components.electrical.
BehaviouralSource`: ``v(a)`` is the potential of node a (a sense pin of the source, drawing no
current), ``v(a,b)`` the difference, ``i(vname)`` the current of voltage source vname as
ngspice's ``vname#branch`` (its ``i_sense``), ``time`` the time [s], ``temper`` the circuit
temperature [°C], ``pi`` π; a ``.param`` name becomes a parameter of the source (so
``params=`` changes it without recompiling) and a ``.func`` is expanded in place. Functions as
in ngspice's B source (its INPptree functions): abs sqrt exp ln log (natural) log10 pow
(abs(x)**y) pwr (sign(x)*abs(x)**y) sgn min max floor ceil int nint (half to even) sin cos tan
asin acos atan atan2 sinh cosh tanh asinh acosh atanh u (1 for x > 0, 1/2 at 0, else 0) uramp
pwl(x, x0, y0, x1, y1, ...) (linear, its end segments extended, as ngspice-39);
operators + - * / % ^ ** (``x^y`` is abs(x)**y, left associative) comparisons && || ! and
``c ? a : b`` (a condition is true when nonzero); ``mil`` is 25.4e-6 as in values. ``V=`` gives v(n+) − v(n−); ``I=`` the current from n+
through the source to n−. A step in the expression (u(time − 1m)) is no time event: the
solver finds it by its error control, as ngspice does.

``Ename n+ n- TABLE {expr} = (x1, y1) (x2, y2) …`` (and ``Gname``, the current) is the table
of expr as ngspice-39 evaluates it, through its XSPICE ``pwl`` code model with
``input_domain=0.1 fraction=TRUE``: linear between the points, constant beyond the first and
the last, each corner rounded by a parabola over ±10 % of its shorter neighbouring segment
(the ends' over ±10 % of their one segment), so the source has a continuous slope. One pair is
the constant y1. The points may be numbers or ``{expressions}`` of ``.param`` names (parameters
of the source, as a POLY coefficient); the x values must increase (ngspice-39 reads a table
out of order as garbage).
"""
from __future__ import annotations

import re

from ..components import electrical as el
from ..core.lazy import lazy_module
from .errors import SpiceError
from .expressions import parse

sp = lazy_module("sympy")

__all__ = ["behavioural_source", "table_source", "value_source"]

_LINE = re.compile(r"\s*\S+\s+\S+\s+\S+\s+([vi])\s*=\s*(.+)$", re.I | re.S)
_VALUE = re.compile(r"\s*\S+\s+\S+\s+\S+\s+(?:value|vol|cur)\s*=\s*(.+)$", re.I | re.S)
_TABLE = re.compile(r"\s*\S+\s+\S+\s+\S+\s+table\s*=?\s*(.*)$", re.I | re.S)
_TABLE_TOKEN = re.compile(r"\{[^{}]*\}|'[^']*'|[^\s,()]+")
GROUND = ("0", "gnd")
TABLE_DOMAIN = 0.1       # ngspice-39's TABLE: its pwl model's input_domain (fraction=TRUE)


def _truncate(x):
    return sp.sign(x) * sp.floor(sp.Abs(x))


def _step(x):
    return sp.Piecewise((1, x > 0), (sp.Rational(1, 2), sp.Eq(x, 0)), (0, True))


def _power(x, y):
    """ngspice's ``x^y``, ``x**y`` and ``pow(x, y)`` in a B source: of the magnitude of x."""
    return sp.Abs(x) ** y


def _nearest(x):
    """ngspice's ``nint``: x rounded to the nearest whole number, a half to the even one."""
    up = sp.floor(x + sp.Rational(1, 2))
    odd_tie = sp.And(sp.Eq(up - x, sp.Rational(1, 2)), sp.Eq(up - 2 * sp.floor(up / 2), 1))
    return sp.Piecewise((up - 1, odd_tie), (up, True))


BUILTINS = {
    "sqrt": sp.sqrt, "exp": sp.exp, "ln": sp.log, "log": sp.log,
    "log10": lambda x: sp.log(x) / sp.log(10), "pow": _power,
    "pwr": lambda x, y: sp.sign(x) * sp.Abs(x) ** y, "abs": sp.Abs, "sgn": sp.sign,
    "sign": sp.sign, "min": sp.Min, "max": sp.Max, "floor": sp.floor, "ceil": sp.ceiling, "int": _truncate,
    "nint": _nearest,
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos,
    "atan": sp.atan, "atan2": sp.atan2, "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh,
    "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh, "u": _step,
    "uramp": lambda x: x * _step(x),
}


def _pwl(args, where):
    """ngspice's B-source ``pwl(x, x0, y0, x1, y1, ...)``: linear between the points (x
    ascending), each end segment extended beyond its end (measured on ngspice-39: no
    smoothing, no flat ends)."""
    x, points = args[0], args[1:]
    if len(points) < 4 or len(points) % 2:
        raise SpiceError("pwl(x, x0, y0, x1, y1, ...) takes x and at least two (x, y) pairs",
                         where)
    xs, ys = points[0::2], points[1::2]
    lines = [ys[k] + (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]) * (x - xs[k])
             for k in range(len(xs) - 1)]
    pieces = [(line, x < end) for line, end in zip(lines[:-1], xs[1:-1])]
    return sp.Piecewise(*pieces, (lines[-1], True))


def _truth(x):
    return sp.Ne(x, 0)


def _flag(condition):
    return sp.Piecewise((1, condition), (0, True))


OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "^": _power,
    "%": lambda a, b: a - b * _truncate(a / b),          # C's fmod, as ngspice
    "==": lambda a, b: _flag(sp.Eq(a, b)), "!=": lambda a, b: _flag(sp.Ne(a, b)),
    "<": lambda a, b: _flag(a < b), "<=": lambda a, b: _flag(a <= b),
    ">": lambda a, b: _flag(a > b), ">=": lambda a, b: _flag(a >= b),
    "&&": lambda a, b: _flag(sp.And(_truth(a), _truth(b))),
    "||": lambda a, b: _flag(sp.Or(_truth(a), _truth(b))),
}


class _Translation:
    """The SymPy form of one B expression: sense pins s1… for the nodes it reads, control
    inputs c1… for the source currents, parameters k1… for the .param names."""

    def __init__(self, b, scope, card):
        self.b, self.scope, self.where = b, scope, card.where
        self.nodes: dict[str, str] = {}          # node -> sense pin
        self.currents: dict[str, str] = {}       # V source -> control input
        self.params: dict[str, str] = {}         # .param name -> parameter

    def symbol(self, table, key, letter):
        if key not in table:
            table[key] = f"{letter}{len(table) + 1}"
        return sp.Symbol(table[key])

    def node(self, arg):
        if arg[0] == "name":
            node = arg[1]
        elif arg[0] == "num" and float(arg[1]).is_integer():
            node = str(int(arg[1]))
        else:
            raise SpiceError("v() takes node names: v(a) or v(a,b)", self.where)
        return sp.Integer(0) if node in GROUND else self.symbol(self.nodes, node, "s")

    def name(self, name, local):
        if name in local:
            return local[name]
        if name == "time":
            return sp.Symbol("t")
        if name == "pi":
            return sp.pi
        if name == "temper":
            return self.symbol(self.params, "temper", "k")
        if name in ("hertz",):
            raise SpiceError("hertz (the frequency of an .ac run) is not supported in B sources",
                             self.where)
        self.scope.value(name, self.where)       # an unknown name is an error naming it
        return self.symbol(self.params, name, "k")

    def call(self, name, args, local):
        if name == "v":
            if len(args) not in (1, 2):
                raise SpiceError("v() takes one or two nodes", self.where)
            value = self.node(args[0])
            return value - self.node(args[1]) if len(args) == 2 else value
        if name == "i":
            if len(args) != 1 or args[0][0] != "name":
                raise SpiceError("i() takes the name of a voltage source: i(vname)", self.where)
            return self.symbol(self.currents, args[0][1], "c")
        values = [self.convert(a, local) for a in args]
        scope = self.scope
        while scope is not None:                     # a .func, innermost definition first
            if name in scope.functions:
                params, tree, _ = scope.functions[name]
                if len(params) != len(values):
                    raise SpiceError(f"function {name} takes {len(params)} arguments, got "
                                     f"{len(values)}", self.where)
                return self.convert(tree, dict(zip(params, values)))
            scope = scope.parent
        if name == "limit":          # ngspice-39's B source returns 0 for it: refused, not copied
            raise SpiceError("limit() is not supported in B sources (ngspice-39 evaluates it to "
                             "0 there); write min(max(x, a), b)", self.where)
        if name == "pwl":
            return _pwl(values, self.where)
        if name not in BUILTINS:
            raise SpiceError(f"unknown function {name!r} in a B source; known: "
                             f"{', '.join(sorted(BUILTINS))}, pwl, v, i and .func", self.where)
        try:
            return BUILTINS[name](*values)
        except TypeError:
            raise SpiceError(f"{name}() got {len(values)} arguments", self.where) from None

    def convert(self, tree, local=None):
        local = local or {}
        kind = tree[0]
        if kind == "num":
            return sp.Float(tree[1])
        if kind == "name":
            return self.name(tree[1], local)
        if kind == "call":
            return self.call(tree[1], tree[2], local)
        if kind == "neg":
            return -self.convert(tree[1], local)
        if kind == "pos":
            return self.convert(tree[1], local)
        if kind == "not":
            return _flag(sp.Eq(self.convert(tree[1], local), 0))
        if kind == "?":
            return sp.Piecewise((self.convert(tree[2], local), _truth(self.convert(tree[1], local))),
                                (self.convert(tree[3], local), True))
        return OPERATORS[kind](self.convert(tree[1], local), self.convert(tree[2], local))


def behavioural_source(b, name, card, scope, prefix):
    """(BehaviouralSource, its pins p, n) for one B card; its sense pins go to ``b.senses``,
    its control inputs to ``b.controls`` and its parameters' values to ``b.bind``."""
    match = _LINE.match(card.text)
    if not match:
        raise SpiceError("B takes Bname n+ n- V=expression or I=expression", card.where)
    return _source(b, name, card, scope, prefix, match.group(1).upper(), match.group(2))


def value_source(b, letter, name, card, scope, prefix):
    """(BehaviouralSource, its pins p, n) for ``Ename n+ n- VALUE={expr}`` (also ``vol=``) and
    ``Gname n+ n- VALUE={expr}`` (also ``cur=``): ngspice-39 turns them into B sources, V= for
    E and I= for G (the current from n+ through the source to n−, as a G line's)."""
    match = _VALUE.match(card.text)
    if not match:
        raise SpiceError(f"{letter} takes {letter}name n+ n- VALUE={{expression}}", card.where)
    text = match.group(1).strip()
    if len(text) > 1 and (text[0], text[-1]) in (("{", "}"), ("'", "'"), ('"', '"')):
        text = text[1:-1]
    return _source(b, name, card, scope, prefix, "V" if letter == "E" else "I", text)


def table_source(b, letter, name, card, scope, prefix):
    """(BehaviouralSource, its pins p, n) for ``Ename n+ n- TABLE {expr} = (x1, y1) …`` and the
    G form (the module's notes); its points become parameters of the source."""
    form = f"{letter}name n+ n- TABLE {{expression}} = (x1, y1) (x2, y2) ..."
    text = _TABLE.match(card.text).group(1).strip()
    if not text.startswith("{") or (end := _closing_brace(text)) is None:
        raise SpiceError(f"{letter} TABLE takes its input in braces: {form}", card.where)
    points = text[end + 1:].strip().removeprefix("=").strip()
    if points.startswith("{") and points.endswith("}") and "(" in points:
        points = points[1:-1]            # ngspice-39 also reads TABLE {expr} = {(x1, y1) ...}
    tokens = _TABLE_TOKEN.findall(points)
    if not tokens or len(tokens) % 2:
        raise SpiceError(f"{letter} TABLE takes (x, y) pairs after its input: {form}; got "
                         f"{len(tokens)} number(s)", card.where)
    return _source(b, name, card, scope, prefix, "V" if letter == "E" else "I", text[1:end], tokens)


def _closing_brace(text: str) -> int | None:
    """The position of the brace closing the one ``text`` opens with (None: unclosed)."""
    depth = 0
    for k, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return k
    return None


def _smoothed_table(x, xs, ys):
    """ngspice-39's TABLE of x through the points (xs, ys): its XSPICE pwl model with a point
    added a segment beyond each end at the end's y (constant outside), lines between the
    points and, at each point, the parabola (cm_smooth_corner) joining the lines on either
    side over ±TABLE_DOMAIN of the shorter of its two segments."""
    X = [2 * xs[0] - xs[1], *xs, 2 * xs[-1] - xs[-2]]
    Y = [ys[0], *ys, ys[-1]]
    pieces = [(Y[0], x <= (X[0] + X[1]) / 2)]
    for i in range(1, len(X) - 1):
        lower, upper = X[i] - X[i - 1], X[i + 1] - X[i]
        d = TABLE_DOMAIN * sp.Min(lower, upper)
        below, above = (Y[i] - Y[i - 1]) / lower, (Y[i + 1] - Y[i]) / upper
        pieces += [(Y[i] + below * (x - X[i]), x < X[i] - d),
                   (Y[i] + below * (x - X[i]) + (above - below) * (x - X[i] + d) ** 2 / (4 * d), x < X[i] + d),
                   (Y[i] + above * (x - X[i]), x < (X[i] + X[i + 1]) / 2)]
    return sp.Piecewise(*pieces, (Y[-1], True))


def _source(b, name, card, scope, prefix, kind, text, table=None):
    """The source of expression ``text``, or of the TABLE of it through the points ``table``
    (their tokens x1, y1, x2, ...)."""
    translation = _Translation(b, scope, card)
    expr = translation.convert(parse(text, card.where, braces=False))
    values = {}
    for param, symbol in translation.params.items():
        if param == "temper":
            function = (lambda: b.ctx.option("temp"))
        else:
            function = (lambda param=param: scope.value(param, card.where))
        values[symbol] = b.bind(f"{prefix}{name}.{symbol}", function, card.where)
    if table is not None:
        first = len(values) + 1
        symbols = [sp.Symbol(f"k{first + k}") for k in range(len(table))]
        numbers = []
        for symbol, token in zip(symbols, table):
            function = b.value(token, scope, card.where)
            numbers.append(function())
            values[str(symbol)] = b.bind(f"{prefix}{name}.{symbol}", function, card.where)
        xs = numbers[0::2]
        if any(later <= earlier for earlier, later in zip(xs, xs[1:])):
            raise SpiceError(f"{name}: the TABLE's x values must increase, got "
                             f"{', '.join(f'{x:g}' for x in xs)}", card.where)
        expr = symbols[1] if len(symbols) == 2 else _smoothed_table(expr, symbols[0::2], symbols[1::2])
    used = {str(symbol) for symbol in expr.free_symbols}     # (one TABLE pair reads no input)
    b.senses += [(pin, node) for node, pin in translation.nodes.items() if pin in used]
    b.controls += [(pin, source) for source, pin in translation.currents.items() if pin in used]
    return el.BehaviouralSource(name, kind=kind, expr=expr, **values), ["p", "n"]
