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
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .decision import point_counts
from .encoding import EncodedTable
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


def _options(pt: _Point, delta: np.ndarray, l: int):
    """Per feature: list of (count c_lj, number of ways) over the feasible beta."""
    out = []
    for j in range(len(delta)):
        E, M, dj = int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j])
        if not pt.seen[j]:
            out.append([(E, dj ** M)])
        else:
            out.append([(E + b, math.comb(M, b) * (dj - 1) ** (M - b))
                        for b in range(M + 1) if dj > 1 or b == M])
    return out


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
    opts = [_options(pt, delta, l) for l in range(m)]
    size = math.prod(len(o) for per_label in opts for o in per_label)
    if size > max_states:
        raise TooLarge(f"{size} batches")
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


def _label_distribution(options, alpha, max_states):
    p, q = alpha.numerator, alpha.denominator
    dist = {1: 1}
    for opt in options:
        new: dict = {}
        for P, w in dist.items():
            for c, ways in opt:
                if ways:
                    key = P * (q * c + p)
                    new[key] = new.get(key, 0) + w * ways
        if len(new) > max_states:
            raise TooLarge(f"more than {max_states} distinct supports for one label")
        dist = new
    return dist


def _count_exact(pt, N, delta, alpha, max_states):
    m = len(N)
    scale = _scales(N, delta, alpha)
    per_label = []
    for l in range(m):
        dist = _label_distribution(_options(pt, delta, l), alpha, max_states)
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


def _count_montecarlo(pt, N, delta, alpha, n_samples, rng):
    """Sample beta counts; return per-label win counts and the tie count."""
    m, d = pt.E.shape
    prob = np.where(pt.seen, 1.0 / delta, 0.0)
    beta = rng.binomial(np.broadcast_to(pt.M, (n_samples, m, d)), np.broadcast_to(prob, (n_samples, m, d)))
    C = pt.E + beta
    ls = log_support(C, N, delta, alpha)  # (S, m)
    tol = log_tolerance(d, int(N.sum()), alpha)
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


def point_stats(stats: Stats, T: np.ndarray):
    """E, M, seen for each test point, from the table's statistics."""
    E, M = point_counts(stats, T)
    seen = T >= 0
    return [_Point(E[p], M, seen[p]) for p in range(len(T))]


def total_worlds(source: Stats | EncodedTable, log10: bool = False):
    """The number of worlds, prod_j delta_j^M_j (or its log10)."""
    stats = as_stats(source)
    missing = stats.missing_per_feature
    if log10:
        return float(np.dot(missing, np.log10(stats.delta)))
    return math.prod(int(dj) ** int(mj) for dj, mj in zip(stats.delta, missing))


def count_encoded(source: Stats | EncodedTable, T: np.ndarray, alpha=0, *, method="auto", n_samples=20_000,
                  confidence=0.95, seed=None, max_states=2_000_000) -> list[WorldCounts]:
    """World counts per test point from the table's statistics (built from an
    EncodedTable if given one); see the module docstring for the methods."""
    alpha = as_alpha(alpha)
    if method not in ("auto", "exact", "batch", "montecarlo"):
        raise ValueError(f"unknown counting method {method!r} (use auto, exact, batch or montecarlo)")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    stats = as_stats(source)
    N, delta = stats.label_sizes, stats.delta
    log10_total = total_worlds(stats, log10=True)
    total = total_worlds(stats) if log10_total < MAX_TOTAL_DIGITS else None
    rng = np.random.default_rng(seed)
    labels = stats.labels
    out = []
    for pt in point_stats(stats, T):
        used = method
        if method in ("auto", "exact", "batch"):
            try:
                if method == "batch":
                    counts, ties = _count_batch(pt, N, delta, alpha, max_states)
                else:
                    counts, ties, used = _count_exact(pt, N, delta, alpha, max_states), None, "exact"
                # only now: where exact counting is too large the total can take seconds
                total = total_worlds(stats) if total is None else total
                ties = total - sum(counts) if ties is None else ties
                out.append(WorldCounts(used, total, log10_total, dict(zip(labels, counts)), ties))
                continue
            except TooLarge as e:
                if method != "auto":
                    raise ValueError(f"exact counting is too large here ({e}); use method='montecarlo'") from None
                used = "montecarlo"
        wins = _count_montecarlo(pt, N, delta, alpha, n_samples, rng)
        z = NormalDist().inv_cdf(1 - (1 - confidence) / (2 * (len(labels) + 1)))
        fr = wins / n_samples
        out.append(WorldCounts(
            "montecarlo", total, log10_total, fractions=dict(zip(labels, fr[1:].tolist())), tie_fraction=float(fr[0]),
            intervals={lab: _wilson(int(w), n_samples, z) for lab, w in zip(labels, wins[1:])},
            tie_interval=_wilson(int(wins[0]), n_samples, z), samples=n_samples))
    return out
