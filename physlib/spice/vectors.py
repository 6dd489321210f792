"""Vector expressions of ngspice's ``.control`` scripts (``let``, ``print``, ``if``), as
ngspice-39 evaluates them.

A vector is a NumPy array (complex for an ``.ac`` result); a number is a vector of length 1,
which combines with any other. Names are looked up by the script (:mod:`physlib.spice.control`):
``v(out)``, ``v(a,b)`` (the difference), ``i(v1)``, a bare node or vector name (``out``,
``time``, a ``let`` vector, ``v1#branch``), ``plot.name`` (a vector of another plot, ``tran1.out``).

Operators, by increasing precedence: ``or``/``|``, ``and``/``&``, comparisons (``eq ne gt
lt ge le``, ``= <> > < >= <=``, giving 1 or 0 per point), ``+ -``, ``* / %``, unary ``- not !``,
``^`` (power, right associative), then ``[k]`` (the k-th point, from 0) and ``[k,m]`` (points
k … m). Numbers take SPICE suffixes (``1k``, ``2meg``). Functions as ngspice-39's: ``mag``
(``abs``), ``ph`` (radians, ngspice-39's default), ``cph`` (continuous phase), ``db``
(20·log10 of the magnitude), ``real``/``re``, ``imag``/``im``, ``conj``, ``j``, ``sqrt``
(complex below 0), ``exp``, ``ln`` and ``log`` (natural, as ngspice-39), ``log10``, ``sin``,
``cos``, ``tan``, ``atan``, ``sinh``, ``cosh``, ``tanh``, ``floor``, ``ceil``, ``nint``,
``pos`` (1 where > 0), ``norm`` (divided by the largest magnitude), ``mean``, ``avg`` (running
mean), ``stddev`` (n − 1), ``length``, ``vecmax``, ``vecmin``, ``vector(n)`` (0 … n−1),
``unitvec(n)``; ``vm(…)``, ``vdb(…)``, ``vp(…)``, ``vr(…)``, ``vi(…)`` (and the ``i`` forms)
are ``mag``, ``db``, ``ph``, ``real``, ``imag`` of ``v(…)``. Other functions (``deriv``,
``integ``, ``fft``, …) are a :class:`SpiceError`.
"""
from __future__ import annotations

import re

import numpy as np

from .errors import SpiceError
from .numbers import parse_number

__all__ = ["parse_list", "evaluate_vector", "is_true"]


def _stddev(x):
    return np.array([np.std(x, ddof=1)]) if len(x) > 1 else np.zeros(1)


def _norm(x):
    top = np.max(np.abs(x))
    return x / top if top else x


FUNCTIONS = {
    "mag": np.abs, "magnitude": np.abs, "abs": np.abs, "ph": np.angle, "phase": np.angle,
    "cph": lambda x: np.unwrap(np.angle(x)), "cphase": lambda x: np.unwrap(np.angle(x)),
    "db": lambda x: 20 * np.log10(np.abs(x)), "real": np.real, "re": np.real,
    "imag": np.imag, "im": np.imag, "conj": np.conj, "j": lambda x: 1j * x,
    "sqrt": np.emath.sqrt, "exp": np.exp, "ln": np.emath.log, "log": np.emath.log,
    "log10": np.emath.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil,
    "nint": lambda x: np.floor(np.real(x) + 0.5), "pos": lambda x: (np.real(x) > 0) * 1.0,
    "norm": _norm, "mean": lambda x: np.array([np.mean(x)]),
    "avg": lambda x: np.cumsum(x) / np.arange(1, len(x) + 1), "stddev": _stddev,
    "length": lambda x: np.array([float(len(x))]),
    "vecmax": lambda x: np.array([np.max(np.abs(x) if np.iscomplexobj(x) else x)]),
    "vecmin": lambda x: np.array([np.min(np.abs(x) if np.iscomplexobj(x) else x)]),
    "vector": lambda x: np.arange(int(np.real(x[0])), dtype=float),
    "unitvec": lambda x: np.ones(int(np.real(x[0]))),
}
PARTS = {"m": "mag", "db": "db", "p": "ph", "r": "real", "i": "imag"}
_ACCESS = re.compile(r"([vi])(m|db|p|r|i)?$")
_COMPARE = {"eq": "eq", "=": "eq", "==": "eq", "ne": "ne", "<>": "ne", "!=": "ne",
            "gt": "gt", ">": "gt", "lt": "lt", "<": "lt", "ge": "ge", ">=": "ge",
            "le": "le", "<=": "le"}
_LEX = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*)"
                  r"|(?P<name>[A-Za-z_@#][\w#.:@]*)"
                  r"|(?P<op>>=|<=|<>|==|!=|[-+*/%^()<>=,!&|\[\]]))")


class _Parser:
    """A recursive-descent parser over the tokens of one command's arguments."""

    def __init__(self, text, where):
        self.text, self.where, self.tokens, pos = text, where, [], 0
        while pos < len(text):
            match = _LEX.match(text, pos)
            if not match or match.end() == pos:
                if not text[pos:].strip():
                    break
                self.fail(f"cannot read {text[pos:].strip()!r}")
            self.tokens.append((match.lastgroup, match.group(match.lastgroup), match.start(),
                                match.end()))
            pos = match.end()
        self.pos = 0

    def fail(self, problem):
        raise SpiceError(f"vector expression {self.text.strip()!r}: {problem}", self.where)

    def peek(self, ahead=0):
        k = self.pos + ahead
        return self.tokens[k][:2] if k < len(self.tokens) else (None, None)

    def take(self, expected=None):
        kind, value = self.peek()
        if kind is None or (expected is not None and value != expected):
            self.fail(f"expected {expected or 'more'}" + (f" before {value!r}" if value else
                                                          " at the end"))
        self.pos += 1
        return kind, value

    def word(self, *ops):
        """The next token if it is one of ``ops`` (symbols or ngspice's word operators)."""
        kind, value = self.peek()
        text = value.lower() if value else None
        return text if text in ops and kind in ("op", "name") else None

    def binary(self, level):
        levels = [("or", "|"), ("and", "&"), tuple(_COMPARE), ("+", "-"), ("*", "/", "%")]
        if level == len(levels):
            return self.unary()
        left = self.binary(level + 1)
        while (op := self.word(*levels[level])) is not None:
            self.pos += 1
            op = {"|": "or", "&": "and"}.get(op, _COMPARE.get(op, op))
            left = (op, left, self.binary(level + 1))
        return left

    def unary(self):
        op = self.word("-", "+", "not", "!")
        if op:
            self.pos += 1
            return ("neg" if op == "-" else "pos" if op == "+" else "not", self.unary())
        return self.power()

    def power(self):
        base = self.postfix()
        if self.word("^"):
            self.pos += 1
            return ("^", base, self.unary())
        return base

    def postfix(self):
        node = self.atom()
        while self.word("["):
            self.pos += 1
            first = self.binary(0)
            last = None
            if self.word(","):
                self.pos += 1
                last = self.binary(0)
            self.take("]")
            node = ("index", node, first, last)
        return node

    def atom(self):
        kind, value = self.take()
        if kind == "num":
            number = parse_number(value, expression=True)
            return ("num", np.array([number[0]]))
        if kind == "op" and value == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        if kind != "name":
            self.fail(f"unexpected {value!r}")
        name = value.lower()
        if self.word("("):
            plot, dot, base = name.rpartition(".")          # tran1.v(out): another plot's
            access = _ACCESS.match(base)
            if access:
                return self.access(access.group(1), access.group(2), plot + dot)
            if name not in FUNCTIONS:
                self.fail(f"unknown or unsupported function {name}(); supported: "
                          + " ".join(sorted(FUNCTIONS)))
            self.take("(")
            argument = self.binary(0)
            self.take(")")
            return ("call", name, argument)
        return ("name", name)

    def access(self, kind, part, plot=""):
        """``v(node[,node])``/``i(source)`` read as text (node names may be numbers)."""
        start = self.tokens[self.pos][3]
        close = self.text.find(")", start)
        if close < 0:
            self.fail("no ')'")
        nodes = [n.strip().lower() for n in self.text[start:close].split(",")]
        if not all(nodes) or len(nodes) > (2 if kind == "v" else 1):
            self.fail(f"{kind}() takes {'one or two nodes' if kind == 'v' else 'one source'}")
        while self.pos < len(self.tokens) and self.tokens[self.pos][2] < close:
            self.pos += 1
        self.take(")")
        node = ("vec", f"{plot}{kind}({','.join(nodes)})")
        return ("call", PARTS[part], node) if part else node

    def ends(self):
        return self.pos >= len(self.tokens)


def parse_list(text: str, where) -> list[tuple[str, tuple]]:
    """(text, tree) of each expression of a ``print``/``let`` argument list: expressions
    follow one another where the next word cannot continue the one before (``v(out) t50``),
    as ngspice splits them."""
    parser = _Parser(text, where)
    out = []
    while not parser.ends():
        first = parser.pos
        tree = parser.binary(0)
        start, end = parser.tokens[first][2], parser.tokens[parser.pos - 1][3]
        out.append((re.sub(r"\s+", "", text[start:end]) if tree[0] != "name"
                    else text[start:end].strip(), tree))
        if parser.word(","):
            parser.pos += 1
    return out


def _pair(a, b, where, op):
    if len(a) != len(b) and 1 not in (len(a), len(b)):
        raise SpiceError(f"'{op}' of vectors of lengths {len(a)} and {len(b)}", where)
    return a, b


_BINARY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "%": np.fmod,
           "^": np.power, "eq": np.equal, "ne": np.not_equal, "gt": np.greater, "lt": np.less,
           "ge": np.greater_equal, "le": np.less_equal,
           "and": lambda a, b: np.logical_and(a != 0, b != 0),
           "or": lambda a, b: np.logical_or(a != 0, b != 0)}


def evaluate_vector(tree, lookup, where) -> np.ndarray:
    """The value of ``tree`` (from :func:`parse_list`); ``lookup(name)`` gives a named vector
    (``"v(out)"``, ``"i(v1)"``, ``"out"``, ``"tran1.out"``) or raises a SpiceError."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind in ("name", "vec"):
        return np.atleast_1d(np.asarray(lookup(tree[1])))
    if kind in ("neg", "pos", "not"):
        value = evaluate_vector(tree[1], lookup, where)
        return -value if kind == "neg" else value if kind == "pos" else (value == 0) * 1.0
    if kind == "call":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.atleast_1d(FUNCTIONS[tree[1]](evaluate_vector(tree[2], lookup, where)))
    if kind == "index":
        return _index(tree, lookup, where)
    a, b = _pair(evaluate_vector(tree[1], lookup, where), evaluate_vector(tree[2], lookup, where),
                 where, kind)
    if kind in ("eq", "ne", "gt", "lt", "ge", "le"):
        a, b = np.real(a), np.real(b)          # ngspice compares real parts
    with np.errstate(divide="ignore", invalid="ignore"):
        value = _BINARY[kind](a, b)
    return value * 1.0 if value.dtype == bool else value


def _index(tree, lookup, where):
    value = evaluate_vector(tree[1], lookup, where)
    bounds = [int(np.floor(np.real(evaluate_vector(t, lookup, where)[0]) + 0.5))
              for t in tree[2:] if t is not None]
    first, last = bounds[0], bounds[-1]
    if not (0 <= min(first, last) and max(first, last) < len(value)):
        raise SpiceError(f"index [{', '.join(map(str, bounds))}] out of the vector's "
                         f"{len(value)} points", where)
    return value[first:last + 1] if first <= last else value[last:first + 1][::-1]


def is_true(value: np.ndarray) -> bool:
    """A condition as ngspice's ``if``/``while`` read it: true if any point is not zero."""
    return bool(np.any(np.asarray(value) != 0))
