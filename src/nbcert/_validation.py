"""Checks of the API's numeric and seed parameters, done once at the boundary.

Each check raises a TypeError for a value of the wrong kind (``seed="abc"``) and a
ValueError for one out of range (``n_samples=0``, a NaN time limit), naming the
parameter, before any data is read; the algorithms below trust what they are given.
(alpha has its own exact reading: ``support.as_alpha``.)
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

_RNG_TYPES = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)


def check_int(value, name: str, minimum: int = 1) -> int:
    """An integer (not a bool) at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_real(value, name: str, low: float, high: float = math.inf, *, low_open: bool = True,
               high_open: bool = True) -> float:
    """A finite real number in the interval from ``low`` to ``high`` (open ends by default)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    x = float(value)
    above = x > low if low_open else x >= low
    below = x < high if high_open else x <= high
    if not (math.isfinite(x) and above and below):
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must be a finite number in {lo}{low:g}, {high:g}{hi}, got {value!r}")
    return x


def check_seed(value, name: str = "seed"):
    """None, a non-negative integer, or a numpy Generator, BitGenerator or SeedSequence."""
    if value is None or isinstance(value, _RNG_TYPES):
        return value
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be None, a non-negative integer or a numpy random Generator, "
                        f"got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def check_count_options(*, n_samples, confidence, seed, max_states) -> None:
    """The options of count_worlds (the API function and CertifiedNB's method)."""
    check_int(n_samples, "n_samples")
    check_real(confidence, "confidence", 0.0, 1.0)
    check_seed(seed)
    check_int(max_states, "max_states")
