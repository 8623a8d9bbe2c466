"""Proven intervals for the world counts, at any size (method ``bounds``).

Label l's support is ``S_l = N_l/n prod_j f_lj / den_lj`` with ``f = q c + p`` (alpha =
p/q); on the common scale ``n prod_l' prod_j den_l'j`` it is
``log T_l = C_l + sum_j log f_lj``, ``C_l = log N_l - sum_j log den_lj``.  The labels'
missing cells are disjoint, so their supports are independent and each label's weighted
distribution is built on its own, features merged one at a time as ``exact`` does.

Here the supports are not kept exactly but on a grid: feature j's option o moves a world
by ``s_o = round(log f_o / eps)`` buckets, so a world in bucket k of label l has
``log T_l = k eps + r`` where r, the sum of its options' rounding errors and of C_l, lies in
``[lo_l, hi_l]`` (exact fractions, from the floats of the logs and a bound on their error).
A bucket keeps the probability of its worlds (a float: the world weights of one label
normalised by their total, so each label's distribution sums to 1), and, while they are
few, the exact key (``keys``) of its support where all its worlds share one.

Bucket k of l is certainly above bucket k' of l' when ``k eps + lo_l > k' eps + hi_l'``, an
integer condition ``k - k' >= a``; it may be above only when ``k eps + hi_l > k' eps +
lo_l'``, ``k - k' >= b``.  Worlds where l wins are then bounded by

    low_l  = sum_k P_l[k] prod_{l' != l} (Z_l' + P_l'(k' <= k - a_ll'))
    high_l = sum_k P_l[k] prod_{l' != l} (Z_l' + P_l'(k' <= k - b_ll'))

(Z: the probability of support exactly 0, below every positive support), where two
buckets with exact keys between the two thresholds are compared exactly.  Floats are
summed and multiplied with round-to-nearest; every quantity is a sum of products of
non-negative numbers, so its relative error is at most gamma_D = D u / (1 - D u) for its
depth D of operations (u = 2^-53), plus an absolute error from underflow and the
probability mass left out (far tails).  ``docs/design.md`` ("Proven counting intervals")
gives the proof that the true count lies inside.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..kernel import factor_denominator, factor_numerator
from .keys import Basis, ranks
from .points import Point, option_counts, point_options

U = Fraction(1, 2**53)  # unit roundoff of float64
UNDERFLOW = Fraction(1, 2**1074)  # bound on the absolute error of one rounded product
LOG_ERROR = Fraction(1, 2**44)  # |float log(x) - log x| <= LOG_ERROR * (1 + |float log(x)|)
MIXED = -2  # key of a bucket whose worlds do not share one known support
KEYED_WORK = 1 << 21  # keys are followed while a merge forms at most this many products
KEYED_OPTIONS = 4096  # options over a point's labels and features past which no key basis is built
MAX_ENTRIES = 1 << 25  # buckets of one label (or products of one merge) past which eps is too fine
MIN_EPS = 2.0**-40  # the finest grid: shifts stay far below 2^53


class OutOfReach(Exception):
    """A grid this fine cannot be built here: too many buckets (past MAX_ENTRIES), float
    errors too deep to bound usefully, or past the deadline."""


def _log(x: int) -> tuple:
    """(float log x, lower bound, upper bound) of a positive integer, bounds exact fractions."""
    g = math.log(x)
    err = LOG_ERROR * (1 + abs(Fraction(g)))
    return g, Fraction(g) - err, Fraction(g) + err


@dataclass
class Spread:
    """One label's support distribution on the grid of width eps.

    Every world in bucket ``idx[i]`` has ``log T_l`` in ``[idx[i] eps + lo, idx[i] eps +
    hi]``; ``w[i]`` is the computed probability of the bucket's worlds, ``key[i]`` their
    common support's exact key (``MIXED`` when they differ or are not followed; ``key``
    None: not followed at all), ``zero`` the computed probability of support exactly 0.
    ``lost`` bounds the probability of the options never formed (binomial tails),
    ``dropped`` is the computed weight of the buckets pruned, ``depth`` the float
    operations any weight went through, ``products`` how many rounded products were formed
    (each may underflow), ``const_key`` the key of the one-option factors.
    """

    idx: np.ndarray
    w: np.ndarray
    key: np.ndarray | None
    zero: float
    lo: Fraction
    hi: Fraction
    lost: Fraction
    depth: int
    products: int
    const_key: int = 0
    dropped: float = 0.0


def _options(pt: Point, delta, l: int, j: int, alpha, tail: Fraction) -> tuple:
    """(factor numerators, probabilities, mass left out) of label l's free feature j.

    Every beta of Binomial(M, 1/delta) is an option, except, for large M, those further
    than t from the mean, whose total probability is at most 2 exp(-2 t^2 / M) <= tail
    (Hoeffding's inequality), counted as left out.  With candidate repairs beta is a sum
    of M independent cells taking t_j with probabilities 1/|C|: its law is ``Point.ways``
    over their sum, and Hoeffding's bound holds around its mean."""
    E, M, dj = int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j])
    given = None if pt.ways is None else pt.ways[l][j]
    if given is None:
        mean = Fraction(M, dj)
    else:  # candidate repairs: M cells take t_j with probabilities 1/|C|, independently
        mean = Fraction(sum(b * w for b, w in enumerate(given)), sum(given))
    t = math.sqrt(M * max(0.0, -math.log(float(tail) / 2)) / 2) if tail > 0 else math.inf
    first, last, lost = 0, M, Fraction(0)
    if t < M:
        first, last = max(0, math.ceil(mean - Fraction(t))), min(M, math.floor(mean + Fraction(t)))
    if first > 0 or last < M:  # the float exp is within 1e-6 of its value, or underflows
        lost = 2 * Fraction(math.exp(-2 * t * t / M)) * (1 + Fraction(1, 10**6)) + UNDERFLOW
    nums = [factor_numerator(E + b, alpha) for b in range(first, last + 1)]
    if given is not None:
        total = sum(given)
        return nums, [given[b] / total for b in range(first, last + 1)], lost
    ways = math.comb(M, first) * (dj - 1) ** (M - first)
    total = dj**M
    probs = []
    for b in range(first, last + 1):
        probs.append(ways / total)
        if b < M:
            ways = ways * (M - b) // ((b + 1) * (dj - 1))
    return nums, probs, lost


def _fixed(pt: Point, N, delta, l: int, alpha) -> tuple:
    """(lower, upper bound of C_l + the logs of the one-option factors, their product is
    0, the one-option factors) of label l."""
    m, d = pt.E.shape
    free = option_counts(pt, delta)[l] > 1
    lo = hi = Fraction(0)
    _, a, b = _log(int(N[l]))
    lo, hi = lo + a, hi + b
    for j in range(d):
        _, a, b = _log(factor_denominator(N[l], delta[j], alpha))
        lo, hi = lo - b, hi - a
    fixed = []
    for j in np.flatnonzero(~free).tolist():
        [(c, _)] = point_options(pt, delta, l, j)
        f = factor_numerator(c, alpha)
        if f == 0:
            return lo, hi, True, fixed
        fixed.append(f)
        _, a, b = _log(f)
        lo, hi = lo + a, hi + b
    return lo, hi, False, fixed


@dataclass
class _Feature:
    """One free feature of a label on the grid: its positive options' shifts,
    probabilities and keys, the probability of a factor 0, and the range of the options'
    rounding errors log f - shift * eps (exact bounds)."""

    shifts: np.ndarray
    probs: np.ndarray
    keys: np.ndarray | None
    zero: float
    lo: Fraction
    hi: Fraction
    lost: Fraction


def _feature(pt, delta, l, j, alpha, eps: float, basis, tail) -> _Feature:
    """Label l's free feature j on the grid: shift = the nearest integer to log f / eps.

    The rounding errors r = log f - shift eps are bounded from their floats: each float log
    is within LOG_ERROR (1 + |log|) of the true one, and the float r = g - shift * eps
    (shift * eps exact or rounded once, then one subtraction) within 4 u (|g| + 1) of
    g - shift eps."""
    nums, probs, lost = _options(pt, delta, l, j, alpha, tail)
    positive = [i for i, f in enumerate(nums) if f]
    zero = sum(probs[i] for i, f in enumerate(nums) if not f)
    g = np.array([math.log(nums[i]) for i in positive])
    shifts = np.rint(g / eps).astype(np.int64)
    keys = None if basis is None else np.array([basis.key(nums[i]) for i in positive], np.int64)
    if not positive:
        return _Feature(shifts, g, keys, zero, Fraction(0), Fraction(0), lost)
    r = g - shifts * eps
    big = Fraction(float(np.abs(g).max())) + 1
    margin = LOG_ERROR * big + 4 * U * (big + 1)
    return _Feature(
        shifts,
        np.array([probs[i] for i in positive], float),
        keys,
        zero,
        Fraction(float(r.min())) - margin,
        Fraction(float(r.max())) + margin,
        lost,
    )


def _merge_sparse(idx, w, key, feat: _Feature):
    """Every (bucket, option) product, equal buckets merged (sorted); a merged bucket keeps
    a key only where all its products share it."""
    n, o = len(idx), len(feat.shifts)
    if n * o > MAX_ENTRIES:
        raise OutOfReach(f"{n * o} products")
    k = (idx[:, None] + feat.shifts[None, :]).ravel()
    order = np.argsort(k, kind="stable")
    k = k[order]
    p = np.multiply.outer(w, feat.probs).ravel()[order]
    starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
    new_key = None
    if key is not None:
        kk = np.where(key[:, None] < 0, MIXED, key[:, None] + feat.keys[None, :]).ravel()[order]
        low, high = np.minimum.reduceat(kk, starts), np.maximum.reduceat(kk, starts)
        new_key = np.where(low == high, low, MIXED)
    return k[starts], np.add.reduceat(p, starts), new_key


def _merge_dense(idx, w, feat: _Feature):
    """The same products on a dense array over the buckets' span: one shifted, scaled
    copy per option (no keys)."""
    base, span = int(idx[0]), int(idx[-1] - idx[0]) + 1
    smin = int(feat.shifts.min())
    size = span + int(feat.shifts.max()) - smin
    if size > MAX_ENTRIES:
        raise OutOfReach(f"{size} buckets")
    dense = np.zeros(span)
    dense[idx - base] = w
    out = np.zeros(size)
    for s, p in zip((feat.shifts - smin).tolist(), feat.probs.tolist()):
        out[s : s + span] += p * dense
    nz = np.flatnonzero(out)
    return base + smin + nz, out[nz]


def _dense_pays(idx, feat: _Feature) -> bool:
    """Whether a dense merge forms fewer products than a sparse one sorts."""
    n, o = len(idx), len(feat.shifts)
    size = int(idx[-1] - idx[0]) + 1 + int(feat.shifts.max() - feat.shifts.min())
    return size * 2 <= n * (8 + math.log2(n * o + 1))


def _prune(idx, w, key, budget: float):
    """Drop the buckets of weight at most budget / len (their total is at most budget;
    with no budget, those of weight 0); returns the kept arrays and the dropped weight."""
    light = w <= budget / len(w)
    if not light.any():
        return idx, w, key, 0.0
    keep = ~light
    dropped = float(w[light].sum())
    return idx[keep], w[keep], None if key is None else key[keep], dropped


def label_spread(
    pt: Point, N, delta, alpha, l: int, eps: float, basis, neglect, deadline=None
) -> Spread:
    """Label l's support distribution on the grid of width eps (see :class:`Spread`).

    Free features are merged fewest options first; after each, buckets lighter than their
    share of ``neglect`` / (2 features) are dropped, and options further in a binomial
    tail than its share are never formed; both count as ``lost``.  OutOfReach past the
    ``deadline`` (a ``time.perf_counter()`` value), checked after each feature.
    """
    lo, hi, zero_all, fixed = _fixed(pt, N, delta, l, alpha)
    free = np.flatnonzero(option_counts(pt, delta)[l] > 1)
    free = free[np.argsort(option_counts(pt, delta)[l][free], kind="stable")].tolist()
    empty = np.zeros(0, np.int64)
    if zero_all:
        return Spread(empty, np.zeros(0), None, 1.0, lo, hi, Fraction(0), 1, 0)
    share = Fraction(neglect) / (2 * max(1, len(free)))
    idx, w, zero = np.zeros(1, np.int64), np.ones(1), 0.0
    key = None if basis is None else np.zeros(1, np.int64)
    lost, dropped, depth, products = Fraction(0), 0.0, 1, 0
    for j in free:
        feat = _feature(pt, delta, l, j, alpha, eps, basis, share)
        lo, hi, lost = lo + feat.lo, hi + feat.hi, lost + feat.lost
        if feat.zero:
            zero += feat.zero * float(w.sum())
            depth, products = depth + len(w) + 2, products + 1
        if len(feat.shifts) == 0:  # every option a factor 0
            idx, w, key = empty, np.zeros(0), None
            break
        if key is not None and len(w) * len(feat.shifts) > KEYED_WORK:
            key = None
        o = len(feat.shifts)  # each option's probability, then a product per bucket
        depth, products = depth + o + 2, products + o + 1 + len(w) * o
        if key is None and _dense_pays(idx, feat):
            idx, w = _merge_dense(idx, w, feat)
        else:
            idx, w, key = _merge_sparse(idx, w, key, feat)
        idx, w, key, out = _prune(idx, w, key, float(share))
        dropped += out
        if not len(w):
            break
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfReach("past the time limit")
    const = 0 if basis is None else sum(basis.key(f) for f in fixed)
    return Spread(idx, w, key, zero, lo, hi, lost, depth, products, const, dropped)


PAIR_LIMIT = 1 << 22  # bucket pairs between the two thresholds compared by their exact keys


def _ranks(spreads: list, basis, N, delta, alpha) -> list:
    """Per label the exact rank (over all labels) of each bucket's common support, -1 for
    a bucket without one (None for a label whose keys were not followed)."""
    if basis is None or all(s.key is None for s in spreads):
        return [None] * len(spreads)
    from .exact import _scale_keys

    scale = _scale_keys(basis, N, delta, alpha)
    pure = [None if s.key is None else np.flatnonzero(s.key >= 0) for s in spreads]
    keys = [
        s.key[p] + np.int64(s.const_key + c)
        for s, p, c in zip(spreads, pure, scale)
        if p is not None
    ]
    flat = ranks(basis, np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    parts = iter(np.split(flat, np.cumsum([len(k) for k in keys])[:-1]))
    out = []
    for s, p in zip(spreads, pure):
        if p is None:
            out.append(None)
            continue
        r = np.full(len(s.key), -1, np.int64)
        r[p] = next(parts)
        out.append(r)
    return out


def _thresholds(s: Spread, t: Spread, eps: float) -> tuple:
    """(a, b): bucket k of s is above every world of t's bucket k' when k - k' >= a, and
    may be above one only when k - k' >= b (exact: the bounds are fractions)."""
    e = Fraction(eps)
    return math.floor((t.hi - s.lo) / e) + 1, math.floor((t.lo - s.hi) / e) + 1


def _below(s: Spread, t: Spread, rs, rt, eps: float) -> tuple:
    """Per bucket of s: t's probability certainly below it and possibly below it (zero
    supports included), and the most bucket pairs compared between the thresholds."""
    a, b = _thresholds(s, t, eps)
    cum = np.concatenate(([0.0], np.cumsum(t.w)))
    pa = np.searchsorted(t.idx, s.idx - a, side="right")
    pb = np.searchsorted(t.idx, s.idx - b, side="right")
    lens = pb - pa
    band = int(lens.max()) if len(lens) else 0
    if rs is None or rt is None or int(lens.sum()) > PAIR_LIMIT:
        return cum[pa] + t.zero, cum[pb] + t.zero, band
    rows = np.repeat(np.arange(len(s.idx)), lens)
    cols = np.arange(len(rows)) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(pa, lens)
    r1, r2 = rs[rows], rt[cols]
    pure = (r1 >= 0) & (r2 >= 0)
    w = t.w[cols]
    certain = np.bincount(rows, np.where(pure & (r2 < r1), w, 0.0), len(s.idx))
    possible = np.bincount(rows, np.where(pure & (r2 >= r1), 0.0, w), len(s.idx))
    base = cum[pa] + t.zero
    return base + certain, base + possible, band


@dataclass(frozen=True)
class Shares:
    """Proven bounds on each label's share of the worlds it wins (exact fractions), on the
    grid of width ``eps``."""

    low: list
    high: list
    eps: float


def _gamma(depth: int) -> Fraction:
    """gamma_D = D u / (1 - D u): the relative error of a float sum of products of
    non-negative numbers through D rounded operations."""
    if depth * U >= Fraction(1, 1000):
        raise OutOfReach(f"{depth} operations deep")
    return depth * U / (1 - depth * U)


def grid_shares(spreads: list, eps: float, basis=None, N=None, delta=None, alpha=None) -> Shares:
    """Proven bounds on every label's share of wins from the labels' spreads (m >= 2).

    ``low_l = sum_k P_l[k] prod_l' below_l'(certainly)``, ``high_l`` the same with the
    possibly-below probabilities; then the float errors are bounded: a computed value of
    depth D lies within a factor 1 +- gamma_D of the exact one, up to ``absolute``
    (underflow), and ``high`` adds every probability left out.
    """
    m = len(spreads)
    rk = _ranks(spreads, basis, N, delta, alpha)
    low_hat, high_hat, depth, products = [], [], 0, sum(s.products for s in spreads)
    for l, s in enumerate(spreads):
        fl, fh, dl = np.ones(len(s.w)), np.ones(len(s.w)), 0
        for l2, t in enumerate(spreads):
            if l2 == l:
                continue
            below, maybe, band = _below(s, t, rk[l], rk[l2], eps)
            fl, fh = fl * below, fh * maybe
            dl = max(dl, t.depth + len(t.w) + band + 2)
        low_hat.append(float(np.dot(s.w, fl)))
        high_hat.append(float(np.dot(s.w, fh)))
        depth = max(depth, s.depth + dl + m + len(s.w) + 1)
        products += 2 * m * len(s.w)
    gamma = _gamma(depth)
    absolute = 2 * (products + 1) * UNDERFLOW
    lost = sum(s.lost + Fraction(s.dropped) * (1 + 3 * gamma) for s in spreads) + absolute
    low = [max(Fraction(0), (Fraction(x) - absolute) / (1 + gamma)) for x in low_hat]
    high = [min(Fraction(1), (Fraction(x) + absolute) / (1 - gamma) + lost) for x in high_hat]
    return Shares(low, high, eps)


def keyed_basis(pt: Point, N, delta, alpha):
    """The point's key basis where it is cheap to build (at most KEYED_OPTIONS options over
    all labels and features; building it factorises every option), else None."""
    if int(option_counts(pt, delta).sum()) > KEYED_OPTIONS:
        return None
    return Basis.build(pt, N, delta, alpha)


def shares_at(
    pt: Point, N, delta, alpha, eps: float, neglect=0.0, basis=False, deadline=None
) -> Shares:
    """Proven share bounds of one point on the grid of width eps (m >= 2 labels).

    ``neglect`` is the probability per label that may be left out (tails; it adds to
    every upper bound); ``basis`` False builds the point's key basis (exact keys while
    buckets are few), None follows no keys; OutOfReach past ``deadline``."""
    biggest = math.log(factor_denominator(int(np.max(N)), int(np.max(delta)), alpha) + 2)
    if not MIN_EPS <= eps <= 64 or (len(delta) + 2) * biggest / eps > 2.0**60:
        raise OutOfReach(f"grid width {eps:g}")  # bucket numbers would not fit in int64
    if basis is False:
        basis = keyed_basis(pt, N, delta, alpha)
    spreads = [
        label_spread(pt, N, delta, alpha, l, eps, basis, neglect, deadline) for l in range(len(N))
    ]
    return grid_shares(spreads, eps, basis, N, delta, alpha)
