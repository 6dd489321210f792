"""``.meas``/``.measure`` as ngspice-39 evaluates them on a result (its ``com_measure2.c``).

Forms (case-insensitive; blanks around ``=`` allowed)::

    .meas tran|ac|dc name AVG|MIN|MAX|PP|RMS|INTEG|MIN_AT|MAX_AT vec [FROM=x] [TO=x]
    .meas tran|ac|dc name FIND vec AT=x
    .meas tran|ac|dc name FIND vec WHEN vec2=value|vec3 [RISE=k|FALL=k|CROSS=k|...=LAST] [TD=t]
    .meas tran|ac|dc name WHEN vec=value|vec2 [RISE=k|FALL=k|CROSS=k|...=LAST] [TD=t]
    .meas tran|ac|dc name TRIG vec VAL=v [RISE|FALL|CROSS=k] [TD=t] | TRIG AT=x
    +                     TARG vec VAL=v [RISE|FALL|CROSS=k] [TD=t]

``vec`` is a vector of the result (``v(out)``, ``v(a,b)``, ``i(v1)``); on ``ac`` results
``vm()``, ``vdb()``, ``vp()`` [rad, as ngspice-39; later versions use degrees], ``vr()``,
``vi()`` take magnitude, dB, phase, real and imaginary part, and a plain ``v()`` its real part,
as ngspice. The arithmetic is ngspice's:
AVG is the trapezoidal mean over the points from the first at or after FROM to the last at
or before TO (not interpolated at the window's ends); RMS and INTEG interpolate the window's
ends linearly and integrate with Simpson's 3/8 or 1/3 rule where three or two intervals are
equal (within 100 units in the last place), else the trapezoidal rule; MIN/MAX/PP take the
points in the window; FIND … AT interpolates linearly between the points around AT; a WHEN
crossing is counted from the second point on and interpolated linearly between the two
points around it, TD skips the points before it (tran). Values are in the unit of the
vector (or of the scale, [s] or [Hz], for WHEN and TRIG/TARG). A measurement ngspice reports
as failed (out of the result's interval) is NaN with a :class:`SpiceWarning`.
"""
from __future__ import annotations

import math
import re
import struct

import numpy as np

from .errors import SpiceError

__all__ = ["Measure", "parse_measure", "measure"]

FUNCTIONS = ("avg", "min", "max", "pp", "rms", "integ", "min_at", "max_at", "find", "when",
             "trig", "targ", "delay")
NOT_SUPPORTED = ("deriv", "derivative", "err", "err1", "err2", "err3", "param")
KEYS = ("val", "td", "from", "to", "at", "rise", "fall", "cross")
DEFAULT, LAST = -1, -2           # ngspice's MEASURE_DEFAULT and MEASURE_LAST_TRANSITION
_VECTOR = re.compile(r"^([vi])([mdpri]|db)?\((.+)\)$", re.I)


class _Clause:
    """One measured quantity: a vector, its parameters (ngspice's ``struct measure``)."""

    def __init__(self, analysis):
        self.vec = self.vec2 = None
        self.val, self.at = 1e99, 1e99
        self.rise = self.fall = self.cross = DEFAULT
        self.td = 0.0
        self.start, self.stop = (-1e99, 1e99) if analysis == "dc" else (0.0, 0.0)


class Measure:
    """A parsed ``.meas`` card: ``analysis`` (tran, ac, dc), ``name``, ``function`` and its
    clauses. :meth:`evaluate` applies it to a result of that analysis."""

    def __init__(self, analysis, name, function, clauses, where):
        self.analysis, self.name, self.function = analysis, name, function
        self.clauses, self.where = clauses, where

    def evaluate(self, result) -> float:
        """The measured value (NaN where ngspice reports the measurement as failed)."""
        if result.kind != self.analysis:
            raise SpiceError(f".meas {self.analysis} {self.name}: measured on a .{result.kind} "
                             "result", self.where)
        data = _Data(result, self)
        f, first = self.function, self.clauses[0]
        if f in ("trig", "delay"):
            trig, targ = self.clauses
            start = trig.at if trig.at != 1e99 else data.when(trig)
            return data.when(targ) - start if not math.isnan(start) else math.nan
        if f == "find":
            if first.at == 1e99:
                first.at = data.when(self.clauses[1])
                if math.isnan(first.at):
                    return math.nan
            return data.at(first)
        if f == "when":
            return data.when(first)
        if f in ("rms", "integ"):
            return data.integral(first, rms=f == "rms")
        if f == "pp":
            return data.extremum(first, "max")[0] - data.extremum(first, "min")[0]
        if f == "avg":
            return data.average(first)
        value, where = data.extremum(first, f[:3])
        return where if f.endswith("_at") else value

    def __repr__(self):
        return f"<Measure {self.analysis} {self.name} {self.function.upper()}>"


def _words(text: str) -> list[str]:
    """The card's words as ngspice's front end sees them: no blanks around '=' or inside
    parentheses."""
    text = re.sub(r"\s*=\s*", "=", text.strip())
    text = re.sub(r"\(\s*([^)]*?)\s*\)", lambda m: "(" + re.sub(r"\s+", "", m.group(1)) + ")",
                  text)
    return text.split()


_PARAM = re.compile(r"^\s*(?:\.meas(?:ure)?\s+)?(\w+)\s+(\S+)\s+param\s*=\s*(.+?)\s*$", re.I | re.S)


class ParamMeasure:
    """``.meas tran|ac|dc name param='expr'``: an expression of the measurements before it (by
    name) and the ``.param`` names, evaluated by :meth:`value`."""

    function = "param"

    def __init__(self, analysis, name, tree, where):
        self.analysis, self.name, self.tree, self.where = analysis, name, tree, where

    def value(self, measured: dict, scope) -> float:
        """The expression's value with ``measured`` ({name: value} of the earlier
        measurements) over the ``.param`` scope ``scope``."""
        from .expressions import Scope, evaluate
        local = Scope(parent=scope, label=f".meas {self.name}")
        for name, number in measured.items():
            local.define(name, ("num", number), self.where)
        return evaluate(self.tree, local, self.where)


def parse_measure(text: str, where=None, value=None) -> Measure:
    """A ``.meas`` card (with or without its ``.meas``/``.measure`` word). ``value(token)``
    evaluates a number or ``{expression}`` (default: SPICE numbers only). A ``param='expr'``
    card is a :class:`ParamMeasure`."""
    from .expressions import parse
    from .numbers import parse_number

    param = _PARAM.match(text)
    if param and param.group(1).lower() in ("tran", "ac", "dc"):
        return ParamMeasure(param.group(1).lower(), param.group(2).lower(),
                            parse(param.group(3), where), where)

    def number(token, key):
        if token.lower() == "last" and key in ("rise", "fall", "cross"):
            return LAST
        if value is not None:
            return value(token)
        parsed = parse_number(token)
        if parsed is None:
            raise SpiceError(f".meas: {key}={token} is not a number", where)
        return parsed[0]

    words = _words(text)
    if words and words[0].lower() in (".meas", ".measure"):
        words = words[1:]
    usage = (".meas takes tran|ac|dc name FUNCTION ...: AVG MIN MAX PP RMS INTEG MIN_AT "
             "MAX_AT vec [from= to=], FIND vec AT=x | WHEN ..., WHEN vec=val, TRIG ... TARG ...")
    if len(words) < 4:
        raise SpiceError(usage, where)
    analysis, name, function = words[0].lower(), words[1].lower(), words[2].lower()
    if analysis not in ("tran", "ac", "dc"):
        raise SpiceError(f".meas {words[0]}: measures apply to tran, ac or dc results; "
                         f"{usage}", where)
    if function in NOT_SUPPORTED:
        raise SpiceError(f".meas {name}: {words[2]} is not supported (nor evaluated by "
                         "ngspice-39); supported: " + " ".join(f.upper() for f in FUNCTIONS[:11]),
                         where)
    if function not in FUNCTIONS or function == "targ":
        raise SpiceError(f".meas {name}: unknown function {words[2]}; {usage}", where)
    rest = words[3:]
    lowered = [w.lower() for w in rest]

    def clause(tokens, vector_first=True):
        c = _Clause(analysis)
        for k, token in enumerate(tokens):
            key, _, text_value = token.partition("=")
            key = key.lower()
            if k == 0 and vector_first and not key.startswith("at"):
                if not _VECTOR.match(key):
                    raise SpiceError(f".meas {name}: {token} is not a vector (v(node), "
                                     "v(a,b), i(vname), or vdb/vm/vp/vr/vi on ac)", where)
                c.vec = key
                continue
            if token.lower() == "last":
                c.cross, c.rise, c.fall = LAST, DEFAULT, DEFAULT
                continue
            if not text_value or key not in KEYS:
                raise SpiceError(f".meas {name}: {token} is not one of "
                                 f"{', '.join(k.upper() + '=' for k in KEYS)}", where)
            x = number(text_value, key)
            if key in ("rise", "fall", "cross"):
                count = LAST if x == LAST else int(math.floor(x + 0.5))
                c.rise, c.fall, c.cross = DEFAULT, DEFAULT, DEFAULT
                setattr(c, key, count)
            else:
                setattr(c, {"from": "start", "to": "stop"}.get(key, key), x)
        if analysis == "dc" and c.stop < c.start:
            c.start, c.stop = c.stop, c.start
        if c.vec is None and vector_first and c.at == 1e99:
            raise SpiceError(f".meas {name}: no vector to measure", where)
        return c

    def condition(tokens):
        """``vec=value`` or ``vec=vec2`` followed by parameters (WHEN)."""
        if not tokens or "=" not in tokens[0]:
            raise SpiceError(f".meas {name}: WHEN needs vec=value (or vec=vec2)", where)
        left, right = tokens[0].split("=", 1)
        c = clause([left] + tokens[1:])
        if _VECTOR.match(right.lower()):
            c.vec2 = right.lower()
        else:
            c.val = number(right, "when")
        return c

    if function in ("trig", "delay"):
        if "targ" not in lowered:
            raise SpiceError(f".meas {name}: TRIG needs a TARG clause", where)
        split_at = lowered.index("targ")
        trig, targ = clause(rest[:split_at]), clause(rest[split_at + 1:])
        for label, c in (("TRIG", trig), ("TARG", targ)):
            if (c.rise, c.fall, c.cross) == (DEFAULT,) * 3 and c.at == 1e99:
                raise SpiceError(f".meas {name}: {label} needs AT=, RISE=, FALL= or CROSS=",
                                 where)
        return Measure(analysis, name, "trig", [trig, targ], where)
    if function == "find":
        if "when" in lowered:
            split_at = lowered.index("when")
            if split_at != 1:
                raise SpiceError(f".meas {name}: FIND takes one vector before WHEN", where)
            return Measure(analysis, name, "find", [clause(rest[:1]), condition(rest[2:])],
                           where)
        find = clause(rest)
        if find.at == 1e99:
            raise SpiceError(f".meas {name}: FIND needs AT=x or WHEN vec=value", where)
        return Measure(analysis, name, "find", [find], where)
    if function == "when":
        return Measure(analysis, name, "when", [condition(rest)], where)
    return Measure(analysis, name, function, [clause(rest)], where)


def measure(result, text: str, where=None, value=None) -> float:
    """Evaluate one ``.meas`` card (text) on a result."""
    return parse_measure(text, where, value).evaluate(result)


def _almost_equal(a: float, b: float, ulps: int = 100) -> bool:
    """ngspice's AlmostEqualUlps: a and b within ``ulps`` representable doubles."""
    if a == b:
        return True

    def ordered(x):
        i = struct.unpack("<q", struct.pack("<d", x))[0]
        return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)
    return abs(ordered(a) - ordered(b)) <= ulps


class _Data:
    """A result's scale and vectors as .meas reads them."""

    def __init__(self, result, meas):
        self.result, self.meas = result, meas
        self.ac = result.kind == "ac"
        self.dc = result.kind == "dc"
        self.x = np.real(np.asarray(result[result.scale], dtype=complex)).tolist()

    def values(self, vec) -> list[float]:
        match = _VECTOR.match(vec)
        kind, part, inner = match.group(1), (match.group(2) or "").lower(), match.group(3)
        if part and not self.ac:
            raise SpiceError(f".meas {self.meas.name}: {vec} (magnitude, dB, phase, …) is for "
                             "ac results; use v(...)", self.meas.where)
        try:
            y = np.asarray(self.result[f"{kind}({inner})"])
        except (KeyError, ValueError) as err:
            raise SpiceError(f".meas {self.meas.name}: {err}", self.meas.where) from None
        if np.iscomplexobj(y) or self.ac:
            y = np.asarray(y, dtype=complex)
            y = {"m": np.abs(y), "db": 20 * np.log10(np.abs(y)), "d": 20 * np.log10(np.abs(y)),
                 "p": np.angle(y), "i": y.imag}.get(part, y.real)
        return np.broadcast_to(np.asarray(y, dtype=float), (len(self.x),)).tolist()

    def when(self, c) -> float:
        """The scale value where c.vec crosses c.val (or c.vec2) as c.rise/fall/cross say."""
        y = self.values(c.vec)
        y2 = self.values(c.vec2) if c.vec2 else None
        rise = fall = cross = 0
        section, first, pending, measured = None, 0, False, math.nan
        prev = prev2 = prev_x = 0.0
        td = c.td
        for i, (x, value) in enumerate(zip(self.x, y)):
            level = y2[i] if y2 else c.val
            if self.dc and i == 0:
                td = x
            if not self.ac and not self.dc and x < td:
                continue
            if self.ac and x < 0:
                continue
            if first > 1 and self.dc and td == x:
                first = 1
            if first == 1:
                cross = 0
                if value < level:
                    section = "below"
                else:
                    section = "above"
                    if prev <= level <= value:
                        rise = cross = 1
            if first > 1:
                if section == "below" and value >= level:
                    section, cross, rise = "above", cross + 1, rise + 1
                    pending = c.fall != LAST
                elif section == "above" and value <= level:
                    section, cross, fall = "below", cross + 1, fall + 1
                    pending = c.rise != LAST
                # linear interpolation between this point and the one before
                gap = (value - prev - level + prev2) if y2 else (value - prev)
                here = prev_x + ((prev2 if y2 else level) - prev) * (x - prev_x) / gap \
                    if gap else math.nan
                if cross == c.cross or rise == c.rise or fall == c.fall:
                    return here
                if pending:
                    if (c.cross, c.rise, c.fall) == (DEFAULT,) * 3:
                        return here
                    if LAST in (c.cross, c.rise, c.fall):
                        measured = here
                    pending = False
            first += 1
            prev, prev_x = value, x
            if y2:
                prev2 = level
        return measured

    def at(self, c) -> float:
        """c.vec linearly interpolated at the scale value c.at."""
        y = self.values(c.vec)
        for i in range(1, len(self.x)):
            x0, x1 = self.x[i - 1], self.x[i]
            if x0 <= c.at <= x1 or (self.dc and x0 >= c.at >= x1):
                return y[i - 1] + (c.at - x0) * (y[i] - y[i - 1]) / (x1 - x0)
        return math.nan

    def _window(self, c):
        """(x, y) of the points in [FROM, TO] (TO = 0: to the end), not interpolated."""
        y = self.values(c.vec)
        for x, value in zip(self.x, y):
            if self.dc:
                if c.start <= x <= c.stop:
                    yield x, value
                continue
            if x < c.start:
                continue
            if c.stop != 0.0 and x > c.stop:
                break
            yield x, value

    def extremum(self, c, which) -> tuple[float, float]:
        """(the min or max of c.vec in the window, where); the last of equal ones."""
        best, where = math.nan, math.nan
        for x, value in self._window(c):
            if math.isnan(best) or (value <= best if which == "min" else value >= best):
                best, where = value, x
        return best, where

    def average(self, c) -> float:
        points = list(self._window(c))
        if not points:
            return math.nan
        area = span = 0.0
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            area += 0.5 * (y0 + y1) * (x1 - x0)
            span += x1 - x0
        return area / span if span else math.nan

    def _interpolate(self, y, i, j, x):
        slope = (y[j] - y[i]) / (self.x[j] - self.x[i])
        return y[i] + slope * (x - self.x[i])

    def integral(self, c, rms: bool) -> float:
        """ngspice's INTEG (or RMS: the root of the mean of the square) over [FROM, TO]."""
        y = self.values(c.vec)
        xs, ys, to_value, start = [], [], None, None
        for i, (x, value) in enumerate(zip(self.x, y)):
            if x < c.start:
                continue
            if c.stop != 0.0 and x > c.stop:
                if not _almost_equal(x, c.stop):
                    value, x = self._interpolate(y, i - 1, i, c.stop), c.stop
                xs.append(x)
                ys.append(value * value if rms else value)
                to_value = x
                break
            if start is None:
                if c.start != 0.0 and i > 0 and not _almost_equal(x, c.start):
                    value, x = self._interpolate(y, i - 1, i, c.start), c.start
                start = x
            xs.append(x)
            ys.append(value * value if rms else value)
        if start is None:
            return math.nan
        # ngspice's arrays end in zero widths; a zero-width interval (TO on a time point) adds 0
        widths = [b - a for a, b in zip(xs, xs[1:])] + [0.0, 0.0]
        ys += [0.0, 0.0, 0.0]
        total, i = 0.0, 0
        while i < len(xs) - 1:
            if _almost_equal(widths[i], widths[i + 1]) and _almost_equal(widths[i], widths[i + 2]):
                total += 3 * widths[i] * (ys[i] + 3 * (ys[i + 1] + ys[i + 2]) + ys[i + 3]) / 8.0
                i += 3
            elif _almost_equal(widths[i], widths[i + 1]):
                total += widths[i] * (ys[i] + 4 * ys[i + 1] + ys[i + 2]) / 3.0
                i += 2
            else:
                total += widths[i] * (ys[i] + ys[i + 1]) / 2
                i += 1
        if to_value is None:
            to_value = self.x[-1]
        return math.sqrt(total / (to_value - start)) if rms else total
