"""How many distinct supports (states) a label can have, bounded before any distribution is built.

Exact counting builds, per label, the distribution of its support over all worlds; its
cost is the number of distinct supports.  ``auto`` counts exactly unless some label has
more than ``max_states`` of them, and that is decided first: a cheap upper bound
(:func:`log_support_bound`, interchangeable features) clears small problems, and a lower
bound (:func:`distinct_lower_bound`, distinct residues of the supports modulo a prime,
in numpy) proves large ones too large.  ``exact`` refuses with the same proof instead of
building a distribution it would have to discard.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernel import factor_numerator
from .points import Point, fixed_counts, option_counts

_PRIME = 2_147_483_647  # 2^31 - 1: a product of two residues fits in an int64


RESIDUE_CELLS = 1 << 22  # residue products formed at a time (32 MB of int64)


def distinct_lower_bound(pt: Point, delta: np.ndarray, l: int, alpha, limit: int) -> int:
    """A lower bound on the distinct support values of label l.

    The distinct residues of the supports' numerators prod_j (q c_lj + p) (alpha = p/q)
    modulo a prime (equal supports have equal residues), merged feature by feature in
    numpy without building the distribution; it stops once past ``limit``.  Residues of
    distinct supports rarely collide, so the bound is close to the true number.  A
    one-option feature multiplies every support by the same number: a bijection unless
    that number is 0, when every support is 0.  The products of one more feature are
    formed ``RESIDUE_CELLS`` at a time and merged into the residues found so far, which
    only grow (a feature's options include a non-zero factor: multiplying by it maps
    distinct residues to distinct residues), so memory stays within about ``limit`` plus
    ``RESIDUE_CELLS`` residues, and the merge stops as soon as it passes ``limit``.

    Parameters
    ----------
    pt, delta, l, alpha
        The test point's counts (a Point), the domain sizes (d,), the label and the
        smoothing parameter (a Fraction).
    limit : int
        Stop merging once more residues than this are found.

    Returns
    -------
    int
        The number of distinct residues found (more than ``limit`` if it stopped early).
    """
    k = option_counts(pt, delta)[l]
    fixed = fixed_counts(pt, delta)[l]  # c of the one-option features
    if not alpha and np.any((k == 1) & (fixed == 0)):
        return 1
    res = np.ones(1, np.int64)
    for j in np.flatnonzero(k > 1)[
        np.argsort(k[k > 1], kind="stable")
    ].tolist():  # few options first
        E, M = int(pt.E[l, j]), int(pt.M[l, j])
        f = np.array([factor_numerator(c, alpha) % _PRIME for c in range(E, E + M + 1)], np.int64)
        res = _times(res, f, limit)
        if len(res) > limit:
            break
    return len(res)


def _distinct(sorted_: np.ndarray) -> np.ndarray:
    return sorted_[np.concatenate(([True], sorted_[1:] != sorted_[:-1]))]


def _times(res: np.ndarray, f: np.ndarray, limit: int) -> np.ndarray:
    """The distinct residues of every product of ``res`` and ``f``, formed a bounded
    number at a time (sorted; it stops past ``limit``)."""
    step = max(1, RESIDUE_CELLS // len(f))
    out = np.empty(0, np.int64)
    for a in range(0, len(res), step):
        part = np.sort(((res[a : a + step, None] * f) % _PRIME).ravel())
        out = np.concatenate([out, _distinct(part)])
        out.sort(kind="stable")  # two sorted runs: merged in linear time
        out = _distinct(out)
        if len(out) > limit:
            break
    return out


def support_counts(pt: Point, delta: np.ndarray, alpha, max_states: int, tight=False) -> list:
    """Per label, about how many distinct supports exact counting builds: the cheap upper
    bound where it is at most ``max_states`` (unless ``tight``), else the residues' lower
    bound (close to the true number; more than ``max_states`` when it stopped there, a
    proof that the label has more).

    Parameters
    ----------
    pt, delta, alpha, max_states
        As for :func:`too_large`.
    tight : bool, default False
        Count the residues of every label whose upper bound is above 1,000.

    Returns
    -------
    list of int
    """
    out = []
    for l in range(pt.E.shape[0]):
        bound = log_support_bound(pt, delta, l)
        if bound <= (math.log(1000) if tight else math.log(max_states)):
            out.append(min(int(math.exp(bound)) + 1, max_states))
        else:
            out.append(distinct_lower_bound(pt, delta, l, alpha, max_states))
    return out


def log_support_bound(pt: Point, delta: np.ndarray, l: int) -> float:
    """log of an upper bound on the distinct support values of label l, from the counts alone.

    A support is a product of one factor per feature.  Features whose count ranges over
    the same values (same E and M) are interchangeable, so g of them with M + 1 values
    each contribute at most C(g + M, M) products (the multisets of their choices); the
    bound is the product over such groups.  Equal supports of different choices (2 * 3
    = 1 * 6) make it loose, by a factor of up to 10^7 on the real data sets.

    Parameters
    ----------
    pt, delta, l
        As for :func:`distinct_lower_bound`.

    Returns
    -------
    float
        The natural log of the bound.
    """
    free = option_counts(pt, delta)[l] > 1
    groups, g = np.unique(np.stack([pt.E[l, free], pt.M[l, free]]), axis=1, return_counts=True)
    return sum(
        math.lgamma(gi + Mi + 1) - math.lgamma(gi + 1) - math.lgamma(Mi + 1)
        for gi, Mi in zip(g.tolist(), groups[1].tolist())
    )


def too_large(pt: Point, delta: np.ndarray, alpha, max_states: int, labels=None) -> bool:
    """Whether some label is proven to have more than ``max_states`` distinct supports.

    The cheap upper bound clears a label where it suffices; the residue lower bound
    decides the others, before any exact distribution is built.

    Parameters
    ----------
    pt, delta, alpha
        As for :func:`distinct_lower_bound`.
    max_states : int
        The most distinct supports per label allowed.
    labels : iterable of int, optional
        The labels to check (default: all).

    Returns
    -------
    bool
        True only with a proof (the lower bound exceeds ``max_states``).
    """
    limit = math.log(max_states)
    for l in range(pt.E.shape[0]) if labels is None else labels:
        if (
            log_support_bound(pt, delta, l) > limit
            and distinct_lower_bound(pt, delta, l, alpha, max_states) > max_states
        ):
            return True
    return False


def choose_method(pt: Point, delta: np.ndarray, alpha, method: str, max_states: int) -> str:
    """The method a point is counted with.

    ``auto`` is exact unless some label is proven to have more than max_states distinct
    supports; where the upper bound exceeds even max_states squared (far beyond what
    collisions of equal supports have made up on real data) it goes to Monte-Carlo
    without computing the lower bound.  Any other method is kept.

    Parameters
    ----------
    pt, delta, alpha, max_states
        As for :func:`too_large`.
    method : {"auto", "exact", "batch", "montecarlo"}
        The method asked for.

    Returns
    -------
    str
        "exact", "batch" or "montecarlo".
    """
    if method != "auto":
        return method
    bounds = [log_support_bound(pt, delta, l) for l in range(pt.E.shape[0])]
    limit = math.log(max_states)
    if any(b > 2 * limit for b in bounds):
        return "montecarlo"
    over = [l for l, b in enumerate(bounds) if b > limit]
    return "montecarlo" if over and too_large(pt, delta, alpha, max_states, over) else "exact"
