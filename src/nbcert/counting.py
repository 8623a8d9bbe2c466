"""Counting the possible worlds that predict each label (paper section 4).

A world's support for label l depends only on beta_lj, how many of label l's missing
cells in feature j take the test value t_j; by Lemma 4.4 there are
C(M, beta) (delta - 1)^(M - beta) ways to fill those cells.  When t_j is not in the
domain no cell can take it (beta = 0, delta^M ways); when delta = 1 every cell must
(the formula gives weight 0 to every beta < M, as 0^k = 0).

* ``batch``: Algorithm 2, enumerating every beta matrix of all labels jointly.
* ``exact``: each label's support distribution is built on its own (features merged
  one at a time, equal supports merged) and the labels are combined by sorting:
  worlds where l wins = sum over l's supports s of weight(s) * prod_{l' != l} W_l'(< s).
* ``montecarlo``: beta_lj ~ Binomial(M_lj, 1/delta_j) is exactly the law of a uniform
  random world, so sampling counts estimates the fractions without filling cells.

Both exact methods work on arrays: a support's numerator prod_j (q c_j + p) (alpha =
p/q) is a product of small integers, so it is known exactly by the exponents of its
primes, packed into one int64 key (equal supports, equal keys; keys add as supports
multiply); floats of the keys order them, and keys closer than the floats' rounding
are ordered by their exact integers.  Ways are Python integers in object arrays.
``batch`` ranks every label's beta combinations, then every joint beta matrix (all of
them, as Algorithm 2) gets its winner from the ranks and its weight from the labels'
ways; ``exact`` merges equal keys feature by feature.  Where a factor is too large to
factorise (a huge alpha) both fall back to the same computations in Python integers.
* ``auto``: exact unless a label has more than ``max_states`` distinct supports, which
  is decided before any distribution is built: a cheap upper bound (interchangeable
  features) clears small problems, a lower bound (distinct residues of the supports
  modulo a prime, in numpy) proves large ones too large.  ``exact`` refuses with the
  same proof instead of building a distribution it would have to discard.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .decide import point_counts
from .reading.encoding import EncodedTable, InputError
from .stats import Stats, as_stats
from .stats.support import as_alpha, exact_support, log_factors, log_tolerance


@dataclass(frozen=True)
class WorldCounts:
    """Worlds per predicted label for one test point.

    Exact methods fill ``counts`` (label value -> int), ``ties`` and ``total``; they sum
    up.  ``montecarlo`` fills ``fractions``, ``tie_fraction`` and ``intervals`` (label ->
    (low, high), simultaneous over labels and ties at the requested confidence) and leaves
    ``counts``/``ties`` None.  ``total`` is the exact number of worlds, except that it is
    None when that number has more than MAX_TOTAL_DIGITS digits (a 10^6-row table can have
    10^(10^7) worlds); ``log10_total`` is always given.
    """

    method: str
    total: int | None
    log10_total: float
    counts: dict | None = None
    ties: int | None = None
    fractions: dict | None = None
    tie_fraction: float | None = None
    intervals: dict | None = None
    tie_interval: tuple | None = None
    samples: int | None = None


MAX_TOTAL_DIGITS = 100_000


class TooLarge(Exception):
    """Exact counting would need more states than allowed."""


@dataclass(frozen=True)
class _Point:
    """Per-point statistics: observed agreeing counts E and missing counts M (m, d)."""

    E: np.ndarray
    M: np.ndarray
    seen: np.ndarray  # (d,)


def _feature_options(E: int, M: int, dj: int, seen: bool) -> list:
    """(count c, number of ways) over the feasible beta of one label and feature."""
    if not seen:
        return [(E, dj ** M)]
    return [(E + b, math.comb(M, b) * (dj - 1) ** (M - b)) for b in range(M + 1) if dj > 1 or b == M]


def _options(pt: _Point, delta: np.ndarray, l: int) -> list:
    """Per feature: list of (count c_lj, number of ways) over the feasible beta."""
    return [_feature_options(int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j]), bool(pt.seen[j]))
            for j in range(len(delta))]


def _option_counts(pt: _Point, delta: np.ndarray) -> np.ndarray:
    """(m, d): how many values c_lj takes over all worlds (M_lj + 1 where it is free)."""
    return np.where(pt.seen & (delta > 1), pt.M + 1, 1)


_PRIME = 2_147_483_647  # 2^31 - 1: a product of two residues fits in an int64


def distinct_lower_bound(pt: _Point, delta: np.ndarray, l: int, alpha, limit: int) -> int:
    """A lower bound on the distinct support values of label l: the distinct residues of
    their numerators prod_j (q c_lj + p) modulo a prime (equal supports have equal
    residues), merged feature by feature in numpy without building the distribution;
    it stops once past ``limit``.  Residues of distinct supports rarely collide, so the
    bound is close to the true number.  A one-option feature multiplies every support by
    the same number: a bijection unless that number is 0, when every support is 0.
    """
    p, q = alpha.numerator, alpha.denominator
    k = _option_counts(pt, delta)[l]
    fixed = pt.E[l] + np.where(pt.seen & (delta == 1), pt.M[l], 0)  # c of the one-option features
    if not alpha and np.any((k == 1) & (fixed == 0)):
        return 1
    res = np.ones(1, np.int64)
    for j in np.flatnonzero(k > 1)[np.argsort(k[k > 1], kind="stable")].tolist():  # few options first
        E, M = int(pt.E[l, j]), int(pt.M[l, j])
        f = np.array([(q * c + p) % _PRIME for c in range(E, E + M + 1)], np.int64)
        res = np.sort(((res[:, None] * f) % _PRIME).ravel())  # sort-based: np.unique is slower
        res = res[np.concatenate(([True], res[1:] != res[:-1]))]
        if len(res) > limit:
            break
    return len(res)


def log_support_bound(pt: _Point, delta: np.ndarray, l: int) -> float:
    """log of an upper bound on the distinct support values of label l, from the counts alone.

    A support is a product of one factor per feature.  Features whose count ranges over
    the same values (same E and M) are interchangeable, so g of them with M + 1 values
    each contribute at most C(g + M, M) products (the multisets of their choices); the
    bound is the product over such groups.  Equal supports of different choices (2 * 3
    = 1 * 6) make it loose, by a factor of up to 10^7 on the real data sets.
    """
    free = _option_counts(pt, delta)[l] > 1
    groups, g = np.unique(np.stack([pt.E[l, free], pt.M[l, free]]), axis=1, return_counts=True)
    return sum(math.lgamma(gi + Mi + 1) - math.lgamma(gi + 1) - math.lgamma(Mi + 1)
               for gi, Mi in zip(g.tolist(), groups[1].tolist()))


def _denominators(N, delta, alpha):
    p, q = alpha.numerator, alpha.denominator
    return [math.prod(q * int(N[l]) + p * int(dj) for dj in delta) for l in range(len(N))]


def _scales(N, delta, alpha):
    """Per label a factor putting every label's numerator on one common denominator."""
    dens = _denominators(N, delta, alpha)
    full = math.prod(dens)
    return [int(N[l]) * (full // dens[l]) for l in range(len(N))]


def _winner(values):
    top = max(values)
    return values.index(top) if values.count(top) == 1 else -1


# ---------------------------------------------------------------- exact supports as prime exponents

FACTOR_LIMIT = 1 << 20  # factor values (q c + p, q N + p delta) up to this are factorised
ZERO = -1  # the key of a support that is 0


def _factorise(v: int) -> dict:
    """{prime: exponent} of a positive integer (trial division: v is small)."""
    out, p = {}, 2
    while p * p <= v:
        while v % p == 0:
            out[p] = out.get(p, 0) + 1
            v //= p
        p += 1
    if v > 1:
        out[v] = out.get(v, 0) + 1
    return out


class _Basis:
    """Exact keys for the point's support numerators: the exponents of their primes packed
    into one int64 (mixed radix, each digit wide enough for the largest exponent a support
    can reach), so equal supports have equal keys and keys add as supports multiply.

    ``build`` returns None when a factor value exceeds FACTOR_LIMIT (a huge alpha) or the
    digits need more than 62 bits; the counts are then kept as Python integers."""

    def __init__(self, primes: list, radix: list, fac: dict):
        self.fac, self.keys = fac, {}  # {factor value: {prime: exponent}}, {factor value: key}
        self.primes = np.array(primes, dtype=np.int64)
        self.radix = np.array(radix, dtype=np.int64)
        self.stride = np.concatenate(([1], np.cumprod(self.radix)[:-1])).astype(np.int64)
        self.logp = np.log(self.primes.astype(float))

    @classmethod
    def build(cls, pt, N, delta, alpha):
        p, q = alpha.numerator, alpha.denominator
        m, d = pt.E.shape
        scale = [[int(N[l])] + [q * int(N[k]) + p * int(dj) for k in range(m) if k != l for dj in delta]
                 for l in range(m)]  # the factors of _scales
        opts = [[[q * c + p for c, _ in _feature_options(int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j]),
                                                           bool(pt.seen[j]))] for j in range(d)] for l in range(m)]
        values = {v for row in scale for v in row} | {v for per in opts for o in per for v in o}
        if max(values) > FACTOR_LIMIT:
            return None
        fac = {v: _factorise(v) for v in values if v > 0}
        top = {}
        for l in range(m):
            need = {}
            for v in scale[l]:
                for pr, e in fac[v].items():
                    need[pr] = need.get(pr, 0) + e
            for o in opts[l]:
                for pr in {pr for v in o if v for pr in fac[v]}:
                    need[pr] = need.get(pr, 0) + max(fac[v].get(pr, 0) for v in o if v)
            for pr, e in need.items():
                top[pr] = max(top.get(pr, 0), e)
        primes = sorted(top)
        radix = [top[pr] + 1 for pr in primes]
        if sum(math.log2(r) for r in radix) > 62:
            return None
        return cls(primes, radix, fac)

    def key(self, v: int) -> int:
        """The key of a factor value (0 for 1, ZERO for 0)."""
        if v not in self.keys:
            where = {int(pr): i for i, pr in enumerate(self.primes)}
            self.keys[v] = ZERO if v == 0 else sum(e * int(self.stride[where[pr]]) for pr, e in self.fac[v].items())
        return self.keys[v]

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Keys of the products (broadcast), 0 absorbing."""
        return np.where((a == ZERO) | (b == ZERO), ZERO, a + b)

    def exponents(self, keys: np.ndarray) -> np.ndarray:
        return (keys[:, None] // self.stride) % self.radix

    def logs(self, keys: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.where(keys == ZERO, -np.inf, self.exponents(np.maximum(keys, 0)) @ self.logp)

    def value(self, key: int) -> int:
        if key == ZERO:
            return 0
        exps = self.exponents(np.array([key]))[0]
        return math.prod(int(pr) ** int(e) for pr, e in zip(self.primes, exps))


def _ranks(basis: _Basis, keys: np.ndarray) -> np.ndarray:
    """Exact order of the supports with these keys: equal supports get equal ranks.  Floats
    order the distinct keys; neighbours closer than their rounding bound are ordered by
    their exact integers."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    logs = basis.logs(uniq)
    order = np.argsort(logs, kind="stable")
    finite = logs[np.isfinite(logs)]
    tol = 64 * (len(basis.primes) + 1) * np.finfo(float).eps * (1 + (np.abs(finite).max() if finite.size else 0))
    close = np.flatnonzero(np.diff(logs[order]) <= tol)  # order[i] and order[i + 1] may be misordered
    for start, stop in _runs(close):
        run = order[start:stop + 1]
        order[start:stop + 1] = sorted(run, key=lambda u: basis.value(int(uniq[u])))
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inverse.ravel()]


def _runs(idx: np.ndarray):
    """Maximal runs of consecutive integers in sorted idx, as (first, last + 1)."""
    if idx.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]])) + 1
    return list(zip(starts.tolist(), ends.tolist()))


def _merge(keys: np.ndarray, ways: np.ndarray):
    """Equal keys merged, their ways added (sorted by key)."""
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.add.reduceat(ways[order], starts)


def _combine(basis, keys, ways, opt, distinct: bool, chunk: int = 1 << 20):
    """Every (support, option) product of one more feature: keys add, ways multiply;
    merged by key when ``distinct`` (a bounded number of products at a time)."""
    okeys = np.array([basis.key(v) for v, _ in opt], dtype=np.int64)
    oways = np.array([w for _, w in opt], dtype=object)
    step = max(1, chunk // len(opt))
    parts = []
    for a in range(0, len(keys), step):
        k = basis.add(keys[a:a + step, None], okeys[None, :]).ravel()
        w = np.multiply.outer(ways[a:a + step], oways).ravel()
        parts.append(_merge(k, w) if distinct else (k, w))
    k, w = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return _merge(k, w) if distinct and len(parts) > 1 else (k, w)


def _label_arrays(pt: _Point, delta: np.ndarray, l: int, alpha, basis: _Basis, max_states, distinct=True):
    """Label l's supports (keys of their numerators) and ways, features merged one at a
    time, fewest options first: the distinct supports (TooLarge past max_states), or
    every beta combination in mixed-radix order of the features (``distinct`` False)."""
    p, q = alpha.numerator, alpha.denominator
    keys, ways = np.zeros(1, np.int64), np.array([1], dtype=object)
    order = np.argsort(_option_counts(pt, delta)[l], kind="stable").tolist() if distinct else range(len(delta))
    for j in order:
        opt = [(q * c + p, w) for c, w in _feature_options(int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j]),
                                                            bool(pt.seen[j]))]
        keys, ways = _combine(basis, keys, ways, opt, distinct)
        if distinct and len(keys) > max_states:
            raise TooLarge(f"more than {max_states} distinct supports for one label")
    return keys, ways


def _scale_keys(basis: _Basis, N, delta, alpha) -> list:
    """Per label the key of _scales' factor: N_l times the other labels' denominators."""
    p, q = alpha.numerator, alpha.denominator
    return [basis.key(int(N[l])) + sum(basis.key(q * int(N[k]) + p * int(dj))
                                       for k in range(len(N)) if k != l for dj in delta) for l in range(len(N))]


def _count_batch(pt, N, delta, alpha, max_states):
    """Algorithm 2: every beta matrix of all labels at once, its winner decided by the exact
    ranks of the labels' supports, its weight the product of theirs."""
    size = math.prod(_option_counts(pt, delta).ravel().tolist())
    if size > max_states:
        raise TooLarge(f"{size} batches")
    basis = _Basis.build(pt, N, delta, alpha)
    if basis is None:
        return _count_batch_python(pt, N, delta, alpha)
    m = len(N)
    per = [_label_arrays(pt, delta, l, alpha, basis, max_states, distinct=False) for l in range(m)]
    scale = _scale_keys(basis, N, delta, alpha)
    keys = [basis.add(k, np.int64(s)) for (k, _), s in zip(per, scale)]
    ranks = np.split(_ranks(basis, np.concatenate(keys)), np.cumsum([len(k) for k in keys])[:-1])
    idx = np.indices([len(k) for k in keys]).reshape(m, -1)  # every joint state
    R = np.stack([r[i] for r, i in zip(ranks, idx)])
    top = R.max(axis=0)
    win = np.where((R == top).sum(axis=0) == 1, R.argmax(axis=0), -1)
    weight = per[0][1][idx[0]]
    for (_, w), i in zip(per[1:], idx[1:]):
        weight = weight * w[i]
    return [int(weight[win == l].sum()) for l in range(m)], int(weight[win < 0].sum())


def _count_batch_python(pt, N, delta, alpha):
    """Algorithm 2 with Python integers, one beta matrix at a time (factor values too large
    to factorise)."""
    m, (p, q) = len(N), (alpha.numerator, alpha.denominator)
    opts = [_options(pt, delta, l) for l in range(m)]
    scale = _scales(N, delta, alpha)
    counts, ties = [0] * m, 0
    flat = [o for per_label in opts for o in per_label]
    d = len(delta)
    for combo in itertools.product(*flat):
        vals, weight = [], 1
        for l in range(m):
            num = scale[l]
            for c, w in combo[l * d:(l + 1) * d]:
                num *= q * c + p
                weight *= w
            vals.append(num)
        win = _winner(vals)
        if win < 0:
            ties += weight
        else:
            counts[win] += weight
    return counts, ties


def _label_distribution(pt: _Point, delta: np.ndarray, l: int, alpha, max_states, basis: _Basis | None = None):
    """Label l's distinct supports and their numbers of ways: with a ``basis`` the arrays
    (keys, ways) of _label_arrays; without, {numerator: ways} in Python integers.

    Features are merged one at a time, fewest options first.  The number of distinct
    supports never shrinks as a feature is merged, so the merge stops as soon as it passes
    max_states, before the options of the remaining features are even built."""
    if basis is not None:
        return _label_arrays(pt, delta, l, alpha, basis, max_states)
    p, q = alpha.numerator, alpha.denominator
    const, scale = 1, 1  # one-option features (they come first) scale every support alike
    dist = {1: 1}
    order = np.argsort(_option_counts(pt, delta)[l], kind="stable").tolist()
    for i, j in enumerate(order):
        opt = _feature_options(int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j]), bool(pt.seen[j]))
        if len(opt) == 1:
            const, scale = const * (q * opt[0][0] + p), scale * opt[0][1]
            continue
        if const == 0:  # alpha = 0 and a count that is 0 in every world: every support is 0
            return {0: scale * math.prod(int(delta[r]) ** int(pt.M[l, r]) for r in order[i:])}
        new: dict = {}
        for P, w in dist.items():
            for c, ways in opt:
                key = P * (q * c + p)
                new[key] = new.get(key, 0) + w * ways
            if len(new) > max_states:
                raise TooLarge(f"more than {max_states} distinct supports for one label")
        dist = new
    return {P * const: w * scale for P, w in dist.items()}


def _count_exact(pt, N, delta, alpha, max_states):
    """Per label the distinct supports; worlds where l wins = sum over l's supports s of
    ways(s) * prod over the other labels of their ways below s (exact ranks)."""
    if too_large(pt, delta, alpha, max_states):
        raise TooLarge(f"more than {max_states} distinct supports for one label")
    basis = _Basis.build(pt, N, delta, alpha)
    if basis is None:
        return _count_exact_python(pt, N, delta, alpha, max_states)
    m = len(N)
    per = [_label_distribution(pt, delta, l, alpha, max_states, basis) for l in range(m)]
    keys = [basis.add(k, np.int64(s)) for (k, _), s in zip(per, _scale_keys(basis, N, delta, alpha))]
    ranks = np.split(_ranks(basis, np.concatenate(keys)), np.cumsum([len(k) for k in keys])[:-1])
    below = []  # per label: sorted ranks and the ways of its supports ranked below each position
    for r, (_, w) in zip(ranks, per):
        order = np.argsort(r, kind="stable")
        below.append((r[order], np.concatenate(([0], np.cumsum(w[order]))).astype(object)))
    counts = []
    for l in range(m):
        total = per[l][1].copy()
        for l2 in range(m):
            if l2 != l:
                sr, cum = below[l2]
                total = total * cum[np.searchsorted(sr, ranks[l], side="left")]
        counts.append(int(total.sum()))
    return counts


def _count_exact_python(pt, N, delta, alpha, max_states):
    """_count_exact with Python integers and dictionaries (factor values too large to factorise)."""
    m = len(N)
    scale = _scales(N, delta, alpha)
    per_label = []
    for l in range(m):
        dist = _label_distribution(pt, delta, l, alpha, max_states)
        items = sorted((P * scale[l], w) for P, w in dist.items())
        vals = [v for v, _ in items]
        cum = list(itertools.accumulate((w for _, w in items), initial=0))
        per_label.append((items, vals, cum))
    counts = []
    for l in range(m):
        total = 0
        for v, w in per_label[l][0]:
            prod = w
            for l2 in range(m):
                if l2 != l:
                    _, vals2, cum2 = per_label[l2]
                    prod *= cum2[bisect_left(vals2, v)]
                    if not prod:
                        break
            total += prod
        counts.append(total)
    return counts


# ---------------------------------------------------------------- Monte-Carlo

def _count_montecarlo(pt, N, delta, alpha, n_samples, rng, cells=1 << 22):
    """Sample beta counts; return per-label win counts and the tie count.

    beta_lj ~ Binomial(M_lj, 1/delta_j) by inverting its distribution function at a
    uniform draw per random cell (M > 0, 1 < delta, t_j seen; the others are fixed) of
    each sample, in sample order; log supports add up looked-up log factors.  Samples are
    drawn ``cells // (m d)`` at a time, so memory stays bounded on wide tables; the draws
    (and so the result for a seed) do not depend on the batch size.
    """
    m, d = pt.E.shape
    tab = _Tables(pt, N, delta, alpha)
    tol = log_tolerance(d, int(N.sum()), alpha)
    step = max(1, cells // (m * d))
    wins = np.zeros(m + 1, np.int64)
    for first in range(0, n_samples, step):
        size = min(step, n_samples - first)
        pos = tab.invert(rng.random((size, len(tab.cells))))
        wins += _sample_winners(tab.log_supports(pos), lambda rows: tab.counts(pos[rows]), N, delta, alpha, tol)
    return wins


class _Tables:
    """Monte-Carlo's look-up tables.  Per random cell (label-major), a block over the b
    where beta's distribution function P(beta <= b) is strictly between 0 and 1 in
    floating point, [lo, hi) (beta >= lo always, <= hi always): those values, then a
    sentinel 2; the log factor of the count E + b for b = lo .. hi; and a guide of
    2 (hi - lo + 1) buckets: bucket i holds how many block entries are <= its left end.
    The fixed cells (beta 0, or M when delta is 1) give each label a constant log support."""

    def __init__(self, pt, N, delta, alpha):
        m, d = pt.E.shape
        prob = np.broadcast_to(np.where(pt.seen, 1.0 / delta, 0.0), pt.M.shape)
        random = (pt.M > 0) & (prob > 0) & (prob < 1)
        self.fixed_C = (pt.E + np.where(prob >= 1, pt.M, 0)).ravel()
        logs = log_factors(self.fixed_C.reshape(m, d), N[:, None], delta, alpha)
        self.fixed = np.log(N.astype(float)) + np.where(random, 0.0, logs).sum(axis=1)
        self.cells = np.flatnonzero(random.ravel())
        self.label_end = np.searchsorted(self.cells, (np.arange(m) + 1) * d)
        blocks = [_binomial_block(int(pt.M.ravel()[c]), float(prob.ravel()[c])) for c in self.cells]
        self.lo = np.array([lo for lo, _ in blocks], dtype=np.int64)
        self.size = np.array([len(b) for _, b in blocks], dtype=np.int64)
        self.start = np.concatenate(([0], np.cumsum(self.size)[:-1])).astype(np.int64)
        self.cdf = np.concatenate([b for _, b in blocks] or [[]])
        cell = np.repeat(np.arange(len(self.cells)), self.size)
        b = self.lo[cell] + np.arange(self.size.sum()) - self.start[cell]
        lab = self.cells[cell] // d
        self.logf = log_factors(self.fixed_C[self.cells][cell] + b, N[lab], delta[self.cells[cell] % d], alpha)
        self.shifted = self.cdf + 4.0 * cell  # every block in one sorted array
        self.buckets = 2 * self.size
        self.gstart = np.concatenate(([0], np.cumsum(self.buckets)[:-1])).astype(np.int64)
        self.guide = np.concatenate([np.searchsorted(self.cdf[s:s + n], np.arange(2 * n) / (2 * n), side="right")
                                     for s, n in zip(self.start.tolist(), self.size.tolist())] or [[]]).astype(np.int32)

    def invert(self, u: np.ndarray) -> np.ndarray:
        """Positions (in the blocks) of beta for uniform draws u (S, random cells): the
        first b with P(beta <= b) > u, from the bucket's guide and one step on, or (for
        the few draws still short, in crowded tails) a search."""
        pos = self.start + self.guide[self.gstart + (u * self.buckets).astype(np.int64)]
        pos += self.cdf[pos] <= u
        rest = np.flatnonzero(self.cdf[pos] <= u)
        if rest.size:
            cell = rest % u.shape[1]
            pos.flat[rest] = np.searchsorted(self.shifted, u.flat[rest] + 4.0 * cell, side="right")
        return pos

    def log_supports(self, pos: np.ndarray) -> np.ndarray:
        """(S, m) log supports of the sampled positions."""
        vals = self.logf[pos]
        ls = np.repeat(self.fixed[None, :], len(pos), axis=0)
        for l, (a, b) in enumerate(zip(np.r_[0, self.label_end[:-1]], self.label_end)):
            if b > a:
                ls[:, l] += vals[:, a:b].sum(axis=1)
        return ls

    def counts(self, pos: np.ndarray) -> np.ndarray:
        """(S, m * d) counts C = E + beta of the sampled positions."""
        C = np.repeat(self.fixed_C[None, :], len(pos), axis=0)
        C[:, self.cells] += pos - self.start + self.lo
        return C


def _live(cdf: np.ndarray):
    """(lo, block): the entries of a distribution function strictly between 0 and 1 (the
    others decide nothing: 0 <= u < 1 always), with the sentinel 2 appended."""
    lo = int(np.searchsorted(cdf, 0.0, side="right"))
    hi = int(np.searchsorted(cdf, 1.0, side="left"))
    return lo, np.append(cdf[lo:hi], 2.0)


def _binomial_cdf(M: int, p: float, a: int = 0, z: int | None = None) -> np.ndarray:
    """P(beta <= b) for b = a .. min(z, M) - 1, beta ~ Binomial(M, p), from log
    probabilities (no factorial overflows however large M is), taking the mass outside
    [a, z] as 0; in the upper half as 1 - P(beta > b), so that it reaches exactly 1 where
    the rest is below rounding."""
    z = M if z is None else min(z, M)
    if M == 0 or p <= 0.0 or p >= 1.0:
        return np.full(max(0, min(z, M) - a), 1.0 if p <= 0.0 else 0.0)
    b = np.arange(a, z + 1, dtype=float)
    first = math.lgamma(M + 1) - math.lgamma(a + 1) - math.lgamma(M - a + 1) + a * math.log(p) + (M - a) * math.log1p(-p)
    steps = np.log(M - b[:-1]) - np.log(b[:-1] + 1) + math.log(p) - math.log1p(-p)
    pmf = np.exp(first + np.concatenate(([0.0], np.cumsum(steps))))
    low = np.cumsum(pmf)[:-1]
    above = np.cumsum(pmf[::-1])[::-1][1:]  # P(b < beta <= z)
    return np.clip(np.where(low <= 0.5, low, 1.0 - above), 0.0, 1.0)[:max(0, min(z, M) - a)]


def _binomial_block(M: int, p: float):
    """(lo, block) for _Tables: beta's distribution function over mean +- (12 sd + 40) (the
    mass beyond is below 1e-25 by Bernstein's inequality, far under the resolution of a
    uniform draw, 2^-53), trimmed by _live."""
    mean, sd = M * p, math.sqrt(M * p * (1 - p))
    a = max(0, math.floor(mean - 12 * sd - 40))
    lo, block = _live(_binomial_cdf(M, p, a, math.ceil(mean + 12 * sd + 40)))
    return a + lo, block


def _sample_winners(ls, counts, N, delta, alpha, tol):
    """Per-label win counts and the tie count (first) of sampled log supports ls (S, m);
    ``counts(rows)`` gives those samples' counts (len(rows), m * d).  Near-ties are decided
    exactly, once per distinct count matrix."""
    n_samples, m = ls.shape
    if m == 1:
        return np.array([0, n_samples])
    order = np.argsort(-ls, axis=1)
    top, second = order[:, 0], order[:, 1]
    rows = np.arange(n_samples)
    with np.errstate(invalid="ignore"):  # -inf - -inf: both supports zero, a tie
        gap = ls[rows, top] - ls[rows, second]
        win = np.where(gap > tol, top, -1)
    unsure = np.flatnonzero(np.isfinite(gap) & (gap <= tol))
    if unsure.size:
        distinct, inverse = np.unique(counts(unsure), axis=0, return_inverse=True)
        decided = [_winner([exact_support(c[l], N[l], delta, alpha) for l in range(m)])
                   for c in distinct.reshape(-1, m, len(delta))]
        win[unsure] = np.array(decided)[inverse.ravel()]
    return np.bincount(win + 1, minlength=m + 1)


def _wilson(k, n, z):
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # with no (or only) successes the end is exactly 0 (or 1); rounding would leave 1e-20
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


def point_stats(source: Stats | EncodedTable, T: np.ndarray):
    """E, M, seen for each test point, from the table's statistics."""
    E, M = point_counts(as_stats(source), T)
    seen = T >= 0
    return [_Point(E[p], M, seen[p]) for p in range(len(T))]


def total_worlds(source: Stats | EncodedTable, log10: bool = False):
    """The number of worlds, prod_j delta_j^M_j (or its log10)."""
    stats = as_stats(source)
    missing = stats.missing_per_feature
    if log10:
        return float(np.dot(missing, np.log10(stats.delta)))
    return math.prod(int(dj) ** int(mj) for dj, mj in zip(stats.delta, missing))


def too_large(pt: _Point, delta: np.ndarray, alpha, max_states: int, labels=None) -> bool:
    """Proven: some label (of ``labels``, default all) has more than max_states distinct
    supports.  The cheap upper bound clears a label where it suffices; the residue lower
    bound decides the others, before any exact distribution is built."""
    limit = math.log(max_states)
    for l in range(pt.E.shape[0]) if labels is None else labels:
        if log_support_bound(pt, delta, l) > limit and distinct_lower_bound(pt, delta, l, alpha, max_states) > max_states:
            return True
    return False


def choose_method(pt: _Point, delta: np.ndarray, alpha, method: str, max_states: int) -> str:
    """The method a point is counted with.  ``auto`` is exact unless some label is proven
    to have more than max_states distinct supports; where the upper bound exceeds even
    max_states squared (far beyond what collisions of equal supports have made up on
    real data) it goes to Monte-Carlo without computing the lower bound."""
    if method != "auto":
        return method
    bounds = [log_support_bound(pt, delta, l) for l in range(pt.E.shape[0])]
    limit = math.log(max_states)
    if any(b > 2 * limit for b in bounds):
        return "montecarlo"
    over = [l for l, b in enumerate(bounds) if b > limit]
    return "montecarlo" if over and too_large(pt, delta, alpha, max_states, over) else "exact"


def _exact_counts(pt, enc, alpha, method, max_states, total, log10_total):
    """WorldCounts of one point by ``exact`` or ``batch``; TooLarge past max_states."""
    N, delta = enc.label_sizes, enc.delta
    if method == "batch":
        counts, ties = _count_batch(pt, N, delta, alpha, max_states)
    else:
        counts = _count_exact(pt, N, delta, alpha, max_states)
        ties = total - sum(counts)
    return WorldCounts(method, total, log10_total, dict(zip(enc.labels, counts)), ties)


def _montecarlo_counts(pt, enc, alpha, n_samples, confidence, rng, total, log10_total):
    """WorldCounts of one point by sampling, with simultaneous Wilson intervals."""
    wins = _count_montecarlo(pt, enc.label_sizes, enc.delta, alpha, n_samples, rng)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / (2 * (enc.m + 1)))
    fr = wins / n_samples
    labels = enc.labels
    return WorldCounts(
        "montecarlo", total, log10_total, fractions=dict(zip(labels, fr[1:].tolist())),
        tie_fraction=float(fr[0]), intervals={lab: _wilson(int(w), n_samples, z) for lab, w in zip(labels, wins[1:])},
        tie_interval=_wilson(int(wins[0]), n_samples, z), samples=n_samples)


def count_encoded(source: Stats | EncodedTable, T: np.ndarray, alpha=0, *, method="auto", n_samples=20_000,
                  confidence=0.95, seed=None, max_states=2_000_000, progress=None) -> list[WorldCounts]:
    """World counts per test point from the table's statistics (built from an
    EncodedTable if given one); see the module docstring for the methods.

    ``progress``, if given, is called as ``progress(done, total, method)`` before each
    point (with the method it is counted by) and once when all are done.  ``exact`` or
    ``batch`` past ``max_states`` is an InputError (its ``__context__`` the TooLarge).
    """
    alpha = as_alpha(alpha)
    if method not in ("auto", "exact", "batch", "montecarlo"):
        raise ValueError(f"unknown counting method {method!r} (use auto, exact, batch or montecarlo)")
    enc = as_stats(source)
    log10_total = total_worlds(enc, log10=True)
    total = total_worlds(enc) if log10_total < MAX_TOTAL_DIGITS else None
    rng = np.random.default_rng(seed)
    points, out, used = point_stats(enc, T), [], method
    for i, pt in enumerate(points):
        used = choose_method(pt, enc.delta, alpha, method, max_states)
        if progress is not None:
            progress(i, len(points), used)
        if used != "montecarlo":
            try:
                # exact counts need the total; only now, as where they are too large it can take seconds
                total = total_worlds(enc) if total is None else total
                out.append(_exact_counts(pt, enc, alpha, used, max_states, total, log10_total))
                continue
            except TooLarge as e:
                if method != "auto":
                    raise InputError(f"exact counting is too large here ({e}); use the montecarlo method") from None
                used = "montecarlo"  # the bound's float rounding let a too-large point through
        out.append(_montecarlo_counts(pt, enc, alpha, n_samples, confidence, rng, total, log10_total))
    if progress is not None:
        progress(len(points), len(points), used)
    return out
