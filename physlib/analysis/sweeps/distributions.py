"""Distributions of parameter values for Monte Carlo studies, and the reproducible draws.

:func:`normal`, :func:`uniform` and :func:`lognormal` describe one parameter's spread, in the
parameter's unit or relative to its nominal value (the model's compiled-in value when none is
given). :func:`sample` draws the parameter set of one run from streams seeded by (seed, run
index, parameter name), so a study gives the same samples with any executor and any number
of workers.
"""
from __future__ import annotations

import math
import numbers
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .table import SweepError


@dataclass(frozen=True)
class Distribution:
    """A distribution of one parameter's value; make one with :func:`normal`, :func:`uniform` or
    :func:`lognormal`. ``nominal`` None means the model's compiled-in value of the parameter;
    with ``relative`` the spread is a fraction of the nominal value."""

    kind: str
    nominal: float | None
    spread: float
    relative: bool

    def resolve(self, name: str, model_value: float) -> tuple[float, float]:
        """(nominal value, absolute spread) for parameter ``name`` whose compiled-in value is
        ``model_value``."""
        nominal = model_value if self.nominal is None else self.nominal
        spread = self.spread * abs(nominal) if self.relative else self.spread
        if self.kind == "lognormal" and not nominal > 0:
            raise SweepError(f"monte_carlo: lognormal({nominal}, ...) for {name}: a lognormal "
                             "distribution has positive values only, so its mean must be > 0")
        return nominal, spread

    def draw(self, rng: np.random.Generator, nominal: float, spread: float) -> float:
        """One value from ``rng``; the mean is ``nominal`` and the standard deviation ``spread``
        (normal, lognormal) or the values lie in nominal ± spread (uniform)."""
        if self.kind == "normal":
            return float(rng.normal(nominal, spread))
        if self.kind == "uniform":
            return float(rng.uniform(nominal - spread, nominal + spread))
        sigma2 = math.log1p((spread / nominal) ** 2)
        return float(rng.lognormal(math.log(nominal) - sigma2 / 2, math.sqrt(sigma2)))


def normal(mean: float | None = None, sd: float = 0.0, *, relative: bool = False) -> Distribution:
    """Normal distribution with mean ``mean`` and standard deviation ``sd`` (in the parameter's
    unit, or with ``relative=True`` a fraction of the mean: ``normal(1e3, 0.01, relative=True)``
    is 1 kΩ ± 1 % (one sigma)). ``mean`` None: the model's compiled-in value. Values are not
    truncated: one the parameter's declaration refuses (a negative resistance) makes that run
    fail with a ParameterError in its row."""
    return _distribution("normal", mean, sd, relative)


def uniform(nominal: float | None = None, half_width: float = 0.0, *, relative: bool = False) -> Distribution:
    """Uniform distribution on ``nominal ± half_width`` (``relative=True``: half_width is a
    fraction of nominal, ``uniform(1e3, 0.05, relative=True)`` is a 5 % part: 950..1050 Ω).
    Its standard deviation is half_width/√3. ``nominal`` None: the model's compiled-in value."""
    return _distribution("uniform", nominal, half_width, relative)


def lognormal(mean: float | None = None, sd: float = 0.0, *, relative: bool = False) -> Distribution:
    """Lognormal distribution with mean ``mean`` (> 0) and standard deviation ``sd`` (or with
    ``relative=True`` a fraction of the mean), always positive: log(value) is normal with
    σ² = ln(1 + (sd/mean)²) and μ = ln(mean) − σ²/2. ``mean`` None: the model's compiled-in value."""
    return _distribution("lognormal", mean, sd, relative)


def _distribution(kind, nominal, spread, relative) -> Distribution:
    for label, value in (("the nominal value", nominal), ("the spread", spread)):
        if value is None and label == "the nominal value":
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise SweepError(f"{kind}(): {label} must be a finite number, got {value!r}")
    if spread < 0:
        raise SweepError(f"{kind}(): the spread must be >= 0, got {spread}")
    if not isinstance(relative, bool):
        raise SweepError(f"{kind}(): relative must be True or False, got {relative!r}")
    return Distribution(kind, None if nominal is None else float(nominal), float(spread), relative)


def sample(distributions: Mapping[str, Distribution], nominal: Mapping[str, tuple[float, float]],
           seed: int, index: int) -> dict[str, float]:
    """The parameter set of Monte Carlo run ``index``: each parameter's value comes from its own
    random stream, ``numpy.random.SeedSequence(seed, spawn_key=(index, crc32(name)))``, so it
    depends only on (seed, index, name): not on the executor, the number of workers or the
    other distributions. ``nominal``: (nominal value, absolute spread) per parameter."""
    out = {}
    for name, dist in distributions.items():
        stream = np.random.SeedSequence(seed, spawn_key=(index, zlib.crc32(name.encode())))
        out[name] = dist.draw(np.random.default_rng(stream), *nominal[name])
    return out
