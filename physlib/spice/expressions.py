"""``.param`` expressions: ``{2*rload}``, ``'sqrt(a)+1k'``, ``a > 1 ? 1u : 2u``, ``.func``.

An expression is parsed once into a tree of tuples and evaluated in a :class:`Scope` (the
``.param`` values visible at a place: a subcircuit instance's parameters, then its parent's,
then the deck's). Operators, by increasing precedence: ``? :``, ``||``, ``&&``, comparisons
(``== != < <= > >=``), ``+ -``, ``* / %``, unary ``+ - !``, ``^`` / ``**``. As in ngspice-39,
the power is left associative (``2^3^2`` is 64) and of the magnitude of its base
(``(-2)^3`` is 8, ``-2^2`` is -4). Numbers take SPICE suffixes (``1k``, ``2meg``). Functions as
ngspice's: sqrt exp log/ln (natural) log10 pow (x**y, a negative x only to a whole power) pwr
(abs(x)**y) abs sgn/sign min max limit floor ceil int nint (half to even) sin cos tan asin
acos atan atan2 sinh cosh tanh u (unit step) uramp; constants pi and e.
"""
from __future__ import annotations

import math
import re

from .errors import Location, SpiceError
from .numbers import parse_number

__all__ = ["parse", "evaluate", "Scope", "FUNCTIONS", "names_in"]


def _power(x, y):
    """ngspice's ``x^y`` and ``pwr(x, y)`` in expressions: of the magnitude of x."""
    return abs(x) ** y


FUNCTIONS = {
    "sqrt": math.sqrt, "exp": math.exp, "log": math.log, "ln": math.log, "log10": math.log10,
    "pow": math.pow, "pwr": _power, "abs": abs, "sgn": lambda x: float((x > 0) - (x < 0)),
    "sign": lambda x: float((x > 0) - (x < 0)), "min": min, "max": max,
    "limit": lambda x, a, b: min(max(x, min(a, b)), max(a, b)), "floor": math.floor,
    "ceil": math.ceil, "int": lambda x: float(math.trunc(x)), "nint": lambda x: float(round(x)),
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh,
    "tanh": math.tanh, "u": lambda x: float(x > 0), "uramp": lambda x: max(x, 0.0),
}
CONSTANTS = {"pi": math.pi, "e": math.e}

_LEX = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z_]*)"
                  r"|(?P<name>[A-Za-z_][\w.]*)"
                  r"|(?P<op>\*\*|==|!=|<=|>=|&&|\|\||[-+*/%^()<>?:,!]))")
_BINARY = [("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]


class _Parser:
    def __init__(self, text: str, where: Location, braces: bool):
        self.text, self.where, self.braces, self.tokens, pos = text, where, braces, [], 0
        while pos < len(text):
            match = _LEX.match(text, pos)
            if not match or match.end() == pos:
                if text[pos:].strip() == "":
                    break
                self.fail(f"cannot read {text[pos:].strip()!r}")
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind)))
            pos = match.end()
        self.pos = 0

    def fail(self, problem: str):
        raise SpiceError(f"expression {self.text!r}: {problem}", self.where)

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else (None, None)

    def take(self, op=None):
        kind, value = self.peek()
        if op is not None and value != op:
            self.fail(f"expected {op!r}" + (f" before {value!r}" if value else " at the end"))
        if kind is None:
            self.fail("it ends too early")
        self.pos += 1
        return kind, value

    def ternary(self):
        cond = self.binary(0)
        if self.peek()[1] == "?":
            self.take("?")
            yes = self.ternary()
            self.take(":")
            return ("?", cond, yes, self.ternary())
        return cond

    def binary(self, level):
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in _BINARY[level]:
            op = self.take()[1]
            left = (op, left, self.binary(level + 1))
        return left

    def unary(self):
        if self.peek()[1] in ("-", "+", "!"):
            op = self.take()[1]
            return ("neg" if op == "-" else "not" if op == "!" else "pos", self.unary())
        return self.power()

    def power(self):
        # left associative as ngspice's (2^3^2 is 64); binds tighter than a sign before it
        # (-x^2 is -(x^2)), and takes a sign after it (2^-1)
        base = self.atom()
        while self.peek()[1] in ("^", "**"):
            self.take()
            base = ("^", base, self.signed_atom())
        return base

    def signed_atom(self):
        if self.peek()[1] in ("-", "+"):
            sign = self.take()[1]
            operand = self.signed_atom()
            return ("neg", operand) if sign == "-" else operand
        return self.atom()

    def atom(self):
        kind, value = self.take()
        if kind == "num":
            number = parse_number(value, expression=self.braces)
            return ("num", number[0])
        if kind == "name":
            name = value.lower()
            if self.peek()[1] == "(":
                self.take("(")
                args = [] if self.peek()[1] == ")" else [self.ternary()]
                while self.peek()[1] == ",":
                    self.take(",")
                    args.append(self.ternary())
                self.take(")")
                return ("call", name, tuple(args))
            return ("name", name)
        if value == "(":
            inner = self.ternary()
            self.take(")")
            return inner
        self.fail(f"unexpected {value!r}")


def parse(text: str, where: Location, braces: bool = True) -> tuple:
    """The tree of an expression (braces or quotes around it are removed). ``braces``: an
    expression as ngspice's parameter parser reads it (``.param``, ``{...}``), where ``mil``
    is milli; False for a B source's, where it is 25.4e-6 as in a value."""
    text = text.strip()
    if len(text) >= 2 and (text[0], text[-1]) in (("{", "}"), ("'", "'")):
        text = text[1:-1]
    parser = _Parser(text, where, braces)
    if not parser.tokens:
        parser.fail("it is empty")
    tree = parser.ternary()
    if parser.pos != len(parser.tokens):
        parser.fail(f"unexpected {parser.peek()[1]!r}")
    return tree


def names_in(tree) -> set[str]:
    """The parameter names an expression reads."""
    if tree[0] == "name":
        return {tree[1]}
    if tree[0] in ("num", "thunk"):
        return set()
    parts = tree[2] if tree[0] == "call" else tree[1:]
    return set().union(*(names_in(p) for p in parts)) if parts else set()


_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "/": lambda a, b: a / b, "%": math.fmod, "^": _power,
        "==": lambda a, b: float(a == b), "!=": lambda a, b: float(a != b),
        "<": lambda a, b: float(a < b), "<=": lambda a, b: float(a <= b),
        ">": lambda a, b: float(a > b), ">=": lambda a, b: float(a >= b),
        "&&": lambda a, b: float(bool(a) and bool(b)), "||": lambda a, b: float(bool(a) or bool(b))}


def evaluate(tree, scope: "Scope", where: Location, locals_: dict | None = None) -> float:
    """The value of ``tree`` in ``scope`` (``locals_``: a ``.func``'s arguments)."""
    kind = tree[0]
    try:
        if kind == "num":
            return tree[1]
        if kind == "thunk":             # a value computed elsewhere (an X line's override)
            return tree[1]()
        if kind == "name":
            if locals_ and tree[1] in locals_:
                return locals_[tree[1]]
            return scope.value(tree[1], where)
        if kind == "neg":
            return -evaluate(tree[1], scope, where, locals_)
        if kind == "pos":
            return evaluate(tree[1], scope, where, locals_)
        if kind == "not":
            return float(not evaluate(tree[1], scope, where, locals_))
        if kind == "?":
            cond = evaluate(tree[1], scope, where, locals_)
            return evaluate(tree[2] if cond else tree[3], scope, where, locals_)
        if kind == "call":
            args = [evaluate(a, scope, where, locals_) for a in tree[2]]
            return scope.call(tree[1], args, where)
        return float(_OPS[kind](evaluate(tree[1], scope, where, locals_),
                                evaluate(tree[2], scope, where, locals_)))
    except SpiceError:
        raise
    except (ValueError, ZeroDivisionError, OverflowError, TypeError) as err:
        raise SpiceError(f"cannot evaluate: {err}", where) from None


class Scope:
    """Parameter definitions visible at one place: ``define(name, tree)`` here, then the
    parent's. Values are computed when first asked for (so a ``.param`` may use one defined
    after it) and a definition that reaches itself is a :class:`SpiceError` naming the chain.
    ``overrides`` (top scope only) replace ``.param`` values without editing the deck."""

    def __init__(self, parent: "Scope | None" = None, label: str = ""):
        self.parent, self.label = parent, label
        self.trees: dict[str, tuple] = {}
        self.places: dict[str, Location] = {}
        self.functions: dict[str, tuple] = {}      # name -> (argument names, tree, location)
        self.overrides: dict[str, float] = {}
        self._values: dict[str, float] = {}
        self._busy: list[str] = []

    def define(self, name: str, tree: tuple, where: Location):
        self.trees[name] = tree
        self.places[name] = where
        self._values.pop(name, None)

    def top(self) -> "Scope":
        return self if self.parent is None else self.parent.top()

    def forget(self):
        """Drop cached values (after overrides change)."""
        self._values.clear()

    def value(self, name: str, where: Location) -> float:
        if name in self.overrides:
            return self.overrides[name]
        if name in self.trees:
            if name in self._values:
                return self._values[name]
            if name in self._busy:
                chain = " -> ".join(self._busy[self._busy.index(name):] + [name])
                raise SpiceError(f"parameter recursion: {chain}", self.places[name])
            self._busy.append(name)
            try:
                result = evaluate(self.trees[name], self, self.places[name])
            finally:
                self._busy.pop()
            self._values[name] = result
            return result
        if self.parent is not None:
            return self.parent.value(name, where)
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise SpiceError(f"unknown parameter {name!r} (define it with .param {name}=...)", where)

    def call(self, name: str, args: list, where: Location) -> float:
        scope = self
        while scope is not None:
            if name in scope.functions:
                params, tree, place = scope.functions[name]
                if len(args) != len(params):
                    raise SpiceError(f"function {name} takes {len(params)} arguments, "
                                     f"got {len(args)}", where)
                return evaluate(tree, scope, place, dict(zip(params, args)))
            scope = scope.parent
        if name in FUNCTIONS:
            return float(FUNCTIONS[name](*args))
        raise SpiceError(f"unknown function {name!r}; known: {', '.join(sorted(FUNCTIONS))} "
                         "and those defined with .func", where)
