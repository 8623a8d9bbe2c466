"""The Naive Bayes kernel: support values (paper section 2), in floating point and exactly.

Every question (certification, approximate, count, poisoning, cleaning) and the estimator take
their supports from here: the log support and its rounding bound, the exact factor
``q c + p`` over ``q N + p delta`` (alpha = p/q), and the comparison in log space that
falls back to exact integers when two supports are too close to order by their floats.
Alpha arrives as a Fraction (``nbcert.params`` reads it once, at the edge; an int is a
Fraction here too), never as text.

``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha * delta_j)``

Algorithms compare supports in log space for speed.  A comparison whose float margin
is within the rounding bound of the two logs is re-decided with integers:
with ``alpha = p/q`` every factor is ``(q c + p) / (q N + p delta)``, so
``S_l = N_l * prod_j (q c_lj + p) / (n * prod_j (q N_l + p delta_j))`` exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

_EPS = np.finfo(float).eps


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
        The smoothing parameter (read by ``nbcert.params.as_alpha``).

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
        if (
            alpha and a < np.finfo(float).tiny
        ):  # subnormal (or 0.0): log(0 + alpha) from the exact value
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


def factor_numerator(c: int, alpha: Fraction) -> int:
    """q * (c + alpha) = q c + p: a factor's numerator for c agreeing cells, scaled by q."""
    return alpha.denominator * int(c) + alpha.numerator


def factor_denominator(N_l: int, delta_j: int, alpha: Fraction) -> int:
    """q * (N_l + alpha * delta_j) = q N_l + p delta_j: a factor's denominator, scaled by q."""
    return alpha.denominator * int(N_l) + alpha.numerator * int(delta_j)


def log_numerator(c, alpha: Fraction) -> np.ndarray:
    """log(q c + p) elementwise, c counts (an array, float or int): the log of a factor's
    numerator scaled by q, -inf where it is 0 (alpha = 0 and c = 0).  The float side of
    the cleaning searches, which weigh a product of numerators before confirming it with
    :func:`factor_numerator`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(float(alpha.denominator) * np.asarray(c, dtype=float) + alpha.numerator)


def count_of_numerator(v, alpha: Fraction):
    """The count c whose scaled numerator q c + p is ``v``: (v - p) / q, rounded down for
    exact integers ``v`` and a float for float ones (the inverse of :func:`log_numerator`
    after ``exp``)."""
    if isinstance(v, int):
        return (v - alpha.numerator) // alpha.denominator
    return (v - alpha.numerator) / alpha.denominator


def exact_support(
    c: np.ndarray, N_l: int, delta: np.ndarray, alpha: Fraction, observed: np.ndarray | None = None
) -> Fraction:
    """n * S(l|t) as an exact fraction, for one label.

    Parameters
    ----------
    c : ndarray of shape (d,)
        The label's counts agreeing with the test point.
    N_l : int
        Rows of the label.
    delta, alpha
        Domain sizes (d,) and the smoothing parameter.
    observed : ndarray of shape (d,), optional
        The label's observed cells per feature, in place of N_l in each denominator (the
        estimator's classifier, which leaves missing cells out); a feature with none gets
        the factor 1 / delta_j.

    Returns
    -------
    Fraction
    """
    num, den = int(N_l), 1
    obs = [int(N_l)] * len(delta) if observed is None else [int(o) for o in observed]
    for cj, oj, dj in zip(np.asarray(c).tolist(), obs, np.asarray(delta).tolist()):
        if oj == 0 and observed is not None:
            den *= dj
            continue
        num *= factor_numerator(cj, alpha)
        den *= factor_denominator(oj, dj, alpha)
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


def first_argmax(logs: np.ndarray, tol: float, exact_row) -> np.ndarray:
    """Per row the first label of largest support, exact.

    Rows whose top two log supports are closer than ``tol`` (a near-tie, or any row with
    a huge alpha) are decided by ``exact_row(r)``, the row's exact supports.

    Parameters
    ----------
    logs : ndarray of shape (k, m)
        Log supports.
    tol : float
        Their rounding bound (:func:`log_tolerance`).
    exact_row : callable
        ``exact_row(r)``: the list of row r's exact supports, one per label.

    Returns
    -------
    ndarray of int, shape (k,)
    """
    best = np.argmax(logs, axis=1)
    if logs.shape[1] == 1:
        return best
    top2 = -np.sort(-logs, axis=1)[:, :2]
    finite = np.isfinite(top2).all(axis=1)
    gap = np.full(len(logs), np.inf)
    gap[finite] = top2[finite, 0] - top2[finite, 1]
    for r in np.flatnonzero(gap <= tol):
        supports = exact_row(r)
        best[r] = supports.index(max(supports))
    return best


__all__ = [
    "log_numerator",
    "count_of_numerator",
    "factor_numerator",
    "factor_denominator",
    "log_factors",
    "log_support",
    "log_tolerance",
    "exact_support",
    "greater",
    "first_argmax",
]
