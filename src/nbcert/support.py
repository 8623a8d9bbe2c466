"""Naive Bayes support values (paper section 2), in floating point and exactly.

``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha * delta_j)``

Algorithms compare supports in log space for speed.  A comparison whose float margin
is within the rounding bound of the two logs is re-decided with integers:
with ``alpha = p/q`` every factor is ``(q c + p) / (q N + p delta)``, so
``S_l = N_l * prod_j (q c_lj + p) / (n * prod_j (q N_l + p delta_j))`` exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real

import numpy as np

_EPS = np.finfo(float).eps


def as_alpha(alpha) -> Fraction:
    """Validate the smoothing parameter and return it as an exact fraction.

    A float is read as the decimal it prints as (0.1 means 1/10), which is what a
    user typing it means.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (Real, str, Fraction)):
        raise ValueError(f"alpha must be a number, got {alpha!r}")
    try:
        a = Fraction(str(alpha)) if isinstance(alpha, float) else Fraction(alpha)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"alpha must be a finite number, got {alpha!r}") from None
    if a < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return a


def log_support(C: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha: Fraction) -> np.ndarray:
    """log S(l|t) up to the common term -log n; -inf where the support is exactly 0.

    C has shape (..., m, d): the count of label-l rows whose feature j equals t_j.
    """
    a = float(alpha)
    Nf = N.astype(float)
    den = np.log(Nf[:, None] + a * delta.astype(float))  # (m, d)
    with np.errstate(divide="ignore"):
        num = np.log(C + a) if a else np.log(C.astype(float))
    return np.log(Nf) + (num - den).sum(axis=-1)


def log_tolerance(d: int, n: int, alpha: Fraction) -> float:
    """A bound on the absolute rounding error of one log_support value.

    Each of the 2d+1 logs is within a few ulps of its true value and their sum adds at
    most (2d+1) ulps of the largest partial sum; we take a generous multiple of that.
    """
    a = float(alpha)
    biggest = math.log(n + 1 + a * (n + 1)) + (abs(math.log(a)) if a else 0.0) + 1.0
    terms = 2 * d + 2
    return 16.0 * terms * terms * biggest * _EPS


def exact_support(c: np.ndarray, N_l: int, delta: np.ndarray, alpha: Fraction) -> Fraction:
    """n * S(l|t) as an exact fraction, for one label and one vector of counts c (d,)."""
    p, q = alpha.numerator, alpha.denominator
    num, den = int(N_l), 1
    for cj, dj in zip(c.tolist(), delta.tolist()):
        num *= q * cj + p
        den *= q * int(N_l) + p * dj
    return Fraction(num, den)


def greater(la: np.ndarray, lb: np.ndarray, tol: float, exact_pair) -> np.ndarray:
    """Elementwise la > lb for log supports, exact.

    Zeros are exact (-inf), so only finite pairs closer than ``tol`` are uncertain; for
    those ``exact_pair(index_tuple)`` returns the exact comparison.
    """
    with np.errstate(invalid="ignore"):
        diff = la - lb
    out = diff > tol
    unsure = np.isfinite(diff) & (np.abs(diff) <= tol)
    for idx in zip(*np.nonzero(unsure)):
        out[idx] = exact_pair(idx)
    return out
