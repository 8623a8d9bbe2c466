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

from .decision import point_counts
from .encoding import EncodedTable, InputError
from .stats import Stats, as_stats
from .support import as_alpha, exact_support, log_support, log_tolerance


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


def _count_batch(pt, N, delta, alpha, max_states):
    m, (p, q) = len(N), (alpha.numerator, alpha.denominator)
    size = math.prod(_option_counts(pt, delta).ravel().tolist())
    if size > max_states:
        raise TooLarge(f"{size} batches")
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


def _label_distribution(pt: _Point, delta: np.ndarray, l: int, alpha, max_states):
    """{numerator of the support: number of ways} for label l, features merged one at a
    time, fewest options first.  The number of distinct supports never shrinks as a
    feature is merged, so the merge stops as soon as it passes max_states, before the
    options of the remaining features are even built."""
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
    m = len(N)
    scale = _scales(N, delta, alpha)
    if too_large(pt, delta, alpha, max_states):
        raise TooLarge(f"more than {max_states} distinct supports for one label")
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


def _count_montecarlo(pt, N, delta, alpha, n_samples, rng, cells=1 << 22):
    """Sample beta counts; return per-label win counts and the tie count.

    Samples are drawn ``cells // (m d)`` at a time, so memory stays bounded on wide
    tables; the draws (and so the result for a seed) do not depend on the batch size.
    """
    m, d = pt.E.shape
    prob = np.where(pt.seen, 1.0 / delta, 0.0)
    tol = log_tolerance(d, int(N.sum()), alpha)
    step = max(1, cells // (m * d))
    wins = np.zeros(m + 1, np.int64)
    for start in range(0, n_samples, step):
        size = min(step, n_samples - start)
        beta = rng.binomial(np.broadcast_to(pt.M, (size, m, d)), np.broadcast_to(prob, (size, m, d)))
        wins += _sample_winners(pt.E + beta, N, delta, alpha, tol)
    return wins


def _sample_winners(C, N, delta, alpha, tol):
    """Per-label win counts and the tie count (first) of sampled counts C (S, m, d)."""
    n_samples, m, _ = C.shape
    ls = log_support(C, N, delta, alpha)  # (S, m)
    order = np.argsort(-ls, axis=1)
    top, second = order[:, 0], order[:, 1] if m > 1 else order[:, 0]
    rows = np.arange(n_samples)
    with np.errstate(invalid="ignore"):  # -inf - -inf: both supports zero, a tie
        gap = ls[rows, top] - (ls[rows, second] if m > 1 else -np.inf)
        win = np.where(gap > tol, top, -1)
    if m > 1:
        for s in np.flatnonzero(np.isfinite(gap) & (gap <= tol)):
            exact = [exact_support(C[s, l], N[l], delta, alpha) for l in range(m)]
            win[s] = _winner(exact)
    else:
        win[:] = 0
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
