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

    Parameters
    ----------
    alpha : int, float, Fraction or str
        A number >= 0, or a string of one ("1/3").

    Returns
    -------
    Fraction

    Raises
    ------
    TypeError
        For a value that is not a number (or a string of one).
    ValueError
        For a negative one, or one that is not a finite float (nan, inf, 1e400).
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (Real, str, Fraction)):
        raise TypeError(f"alpha must be a number, got {alpha!r}")
    try:
        a = Fraction(str(alpha)) if isinstance(alpha, float) else Fraction(alpha)
        float(a)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"alpha must be a finite number, got {alpha!r}") from None
    if a < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return a


def _log_fraction(x: Fraction) -> float:
    """log of a positive fraction, without converting it to a float first (which can
    underflow to 0 or lose digits as a subnormal)."""
    return math.log(x.numerator) - math.log(x.denominator)


def log_factors(C: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha: Fraction) -> np.ndarray:
    """log((C + alpha) / (N + alpha * delta)) elementwise (C, N and delta broadcast), -inf
    where the factor is exactly 0.

    For alpha > 1 both logs are taken relative to alpha, log1p(C / alpha) -
    log1p(N / (alpha * delta)) - log(delta): nothing overflows however large alpha is,
    and as alpha grows each factor tends to 1 / delta, as it should.

    Parameters
    ----------
    C, N, delta : array_like
        Counts agreeing with the test value, rows of the label and domain sizes.
    alpha : Fraction
        The smoothing parameter (``as_alpha``).

    Returns
    -------
    ndarray of float
        The broadcast shape of C, N and delta.
    """
    a = float(alpha)
    C = np.asarray(C, dtype=float)
    N = np.asarray(N, dtype=float)
    delta = np.asarray(delta, dtype=float)
    if a > 1:
        return np.log1p(C / a) - (np.log1p(N / a / delta) + np.log(delta))
    with np.errstate(divide="ignore"):
        num = np.log(C + a)
        if alpha and a < np.finfo(float).tiny:  # subnormal (or 0.0): log(0 + alpha) from the exact value
            num = np.where(C == 0, _log_fraction(alpha), num)
        return num - np.log(N + a * delta)


def log_support(C: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha: Fraction) -> np.ndarray:
    """log S(l|t) up to the common term -log n; -inf where the support is exactly 0.

    Parameters
    ----------
    C : ndarray of shape (..., m, d)
        The count of label-l rows whose feature j equals t_j.
    N, delta, alpha
        Rows per label (m,), domain sizes (d,) and the smoothing parameter, as for
        :func:`log_factors`.

    Returns
    -------
    ndarray of float, shape (..., m)
    """
    return np.log(N.astype(float)) + log_factors(C, N[:, None], delta, alpha).sum(axis=-1)


def log_tolerance(d: int, n: int, alpha: Fraction) -> float:
    """A bound on the absolute rounding error of one log_support value.

    Each of the 3d+1 logs is within a few ulps of its true value (a rounded quotient
    C / alpha moves log1p by at most an ulp too) and their sum adds at most (3d+1) ulps
    of the largest partial sum; every term is at most ``biggest`` in size, and we take a
    generous multiple of that.

    Parameters
    ----------
    d, n : int
        Features and rows of the table.
    alpha : Fraction

    Returns
    -------
    float
        Two log supports further apart than this are ordered correctly by their floats.
    """
    log_a = abs(_log_fraction(alpha)) if alpha else 0.0
    biggest = math.log(n + 1) + math.log1p(float(alpha)) + log_a + 1.0
    terms = 3 * d + 2
    return 16.0 * terms * terms * biggest * _EPS


def exact_support(c: np.ndarray, N_l: int, delta: np.ndarray, alpha: Fraction) -> Fraction:
    """n * S(l|t) as an exact fraction, for one label.

    Parameters
    ----------
    c : ndarray of shape (d,)
        The label's counts agreeing with the test point.
    N_l : int
        Rows of the label.
    delta, alpha
        Domain sizes (d,) and the smoothing parameter.

    Returns
    -------
    Fraction
    """
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

    Parameters
    ----------
    la, lb : ndarray
        Log supports of the same shape.
    tol : float
        Their rounding bound (:func:`log_tolerance`).
    exact_pair : callable
        ``exact_pair(index)``: the exact ``la[index] > lb[index]``.

    Returns
    -------
    ndarray of bool
    """
    with np.errstate(invalid="ignore"):
        diff = la - lb
    out = diff > tol
    unsure = np.isfinite(diff) & (np.abs(diff) <= tol)
    for idx in zip(*np.nonzero(unsure)):
        out[idx] = exact_pair(idx)
    return out
