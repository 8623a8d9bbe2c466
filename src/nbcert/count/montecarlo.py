"""Monte-Carlo counting: the share of uniformly random worlds predicting each label.

beta_lj ~ Binomial(M_lj, 1/delta_j) is exactly the law of beta_lj in a uniform random
world (each of the M_lj missing cells takes t_j with probability 1/delta_j, independently),
so sampling the beta, not the cells, samples worlds.  With candidate repairs a cell takes
t_j with probability 1/|C| where t_j is among its candidates C, and beta's law is its ways
over their sum (``Point.ways``).  Each random cell's beta is drawn by
inverting its distribution function at a uniform draw (a guide table over the values
where the function is strictly between 0 and 1); a sample's log supports add up
looked-up log factors; near-ties are decided exactly.  The fractions come with Wilson
intervals, simultaneous over the labels and ties (Bonferroni) at the requested confidence.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernel import exact_support, log_factors, log_tolerance
from .points import Point, winner


def count_montecarlo(
    pt: Point, N, delta, alpha, n_worlds: int, rng, cells: int = 1 << 22
) -> np.ndarray:
    """Sample beta counts; per-label win counts and the tie count.

    beta_lj is drawn by inverting its distribution function at a uniform draw per random
    cell (M > 0, 1 < delta, t_j seen; the others are fixed) of each sample, in sample
    order; log supports add up looked-up log factors.  Samples are drawn ``cells // (m d)``
    at a time, so memory stays bounded on wide tables; the draws (and so the result for a
    seed) do not depend on the batch size.

    Parameters
    ----------
    pt, N, delta, alpha
        As for :func:`nbcert.count.exact.count_batch`.
    n_worlds : int
        Worlds to sample.
    rng : numpy Generator
    cells : int, default 2**22
        Random cells drawn at a time (memory only).

    Returns
    -------
    ndarray of shape (m + 1,)
        Samples with a tie (first), then samples each label wins.
    """
    m, d = pt.E.shape
    tab = _Tables(pt, N, delta, alpha)
    tol = log_tolerance(d, int(N.sum()), alpha)
    step = max(1, cells // (m * d))
    wins = np.zeros(m + 1, np.int64)
    for first in range(0, n_worlds, step):
        size = min(step, n_worlds - first)
        pos = tab.invert(rng.random((size, len(tab.cells))))
        wins += _sample_winners(
            tab.log_supports(pos), lambda rows: tab.counts(pos[rows]), N, delta, alpha, tol
        )
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
        if pt.ways is None:
            prob = np.broadcast_to(np.where(pt.seen, 1.0 / delta, 0.0), pt.M.shape)
            random = (pt.M > 0) & (prob > 0) & (prob < 1)
            self.fixed_C = (pt.E + np.where(prob >= 1, pt.M, 0)).ravel()
        else:  # candidate repairs: beta's law is given by its ways
            random = pt.M > 0
            self.fixed_C = pt.E.ravel()
        logs = log_factors(self.fixed_C.reshape(m, d), N[:, None], delta, alpha)
        self.fixed = np.log(N.astype(float)) + np.where(random, 0.0, logs).sum(axis=1)
        self.cells = np.flatnonzero(random.ravel())
        self.label_end = np.searchsorted(self.cells, (np.arange(m) + 1) * d)
        if pt.ways is None:
            blocks = [
                _binomial_block(int(pt.M.ravel()[c]), float(prob.ravel()[c])) for c in self.cells
            ]
        else:
            blocks = [_ways_block(pt.ways[c // d][c % d]) for c in self.cells.tolist()]
        self._blocks(blocks)
        cell = np.repeat(np.arange(len(self.cells)), self.size)
        b = self.lo[cell] + np.arange(self.size.sum()) - self.start[cell]
        lab = self.cells[cell] // d
        self.logf = log_factors(
            self.fixed_C[self.cells][cell] + b, N[lab], delta[self.cells[cell] % d], alpha
        )
        self.shifted = self.cdf + 4.0 * cell  # every block in one sorted array

    def _blocks(self, blocks: list):
        """The blocks laid end to end (lo, size, start, cdf) and their guide tables."""
        self.lo = np.array([lo for lo, _ in blocks], dtype=np.int64)
        self.size = np.array([len(b) for _, b in blocks], dtype=np.int64)
        self.start = np.concatenate(([0], np.cumsum(self.size)[:-1])).astype(np.int64)
        self.cdf = np.concatenate([b for _, b in blocks] or [[]])
        self.buckets = 2 * self.size
        self.gstart = np.concatenate(([0], np.cumsum(self.buckets)[:-1])).astype(np.int64)
        self.guide = np.concatenate(
            [
                np.searchsorted(self.cdf[s : s + n], np.arange(2 * n) / (2 * n), side="right")
                for s, n in zip(self.start.tolist(), self.size.tolist())
            ]
            or [[]]
        ).astype(np.int32)

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
    first = (
        math.lgamma(M + 1)
        - math.lgamma(a + 1)
        - math.lgamma(M - a + 1)
        + a * math.log(p)
        + (M - a) * math.log1p(-p)
    )
    steps = np.log(M - b[:-1]) - np.log(b[:-1] + 1) + math.log(p) - math.log1p(-p)
    pmf = np.exp(first + np.concatenate(([0.0], np.cumsum(steps))))
    low = np.cumsum(pmf)[:-1]
    above = np.cumsum(pmf[::-1])[::-1][1:]  # P(b < beta <= z)
    return np.clip(np.where(low <= 0.5, low, 1.0 - above), 0.0, 1.0)[: max(0, min(z, M) - a)]


def _binomial_block(M: int, p: float):
    """(lo, block) for _Tables: beta's distribution function over mean +- (12 sd + 40) (the
    mass beyond is below 1e-25 by Bernstein's inequality, far under the resolution of a
    uniform draw, 2^-53), trimmed by _live."""
    mean, sd = M * p, math.sqrt(M * p * (1 - p))
    a = max(0, math.floor(mean - 12 * sd - 40))
    lo, block = _live(_binomial_cdf(M, p, a, math.ceil(mean + 12 * sd + 40)))
    return a + lo, block


def _ways_block(ways: tuple):
    """(lo, block) for _Tables from beta's exact law: P(beta <= b) = (ways[0] + ... +
    ways[b]) / sum(ways), each a correctly rounded quotient of integers."""
    total, run, cdf = sum(ways), 0, []
    for w in ways[:-1]:
        run += w
        cdf.append(run / total)
    return _live(np.array(cdf, float))


def _sample_winners(ls, counts, N, delta, alpha, tol):
    """Per-label win counts and the tie count (first) of sampled log supports ls (S, m);
    ``counts(rows)`` gives those samples' counts (len(rows), m * d).  Near-ties are decided
    exactly, once per distinct count matrix."""
    n_worlds, m = ls.shape
    if m == 1:
        return np.array([0, n_worlds])
    order = np.argsort(-ls, axis=1)
    top, second = order[:, 0], order[:, 1]
    rows = np.arange(n_worlds)
    with np.errstate(invalid="ignore"):  # -inf - -inf: both supports zero, a tie
        gap = ls[rows, top] - ls[rows, second]
        win = np.where(gap > tol, top, -1)
    unsure = np.flatnonzero(np.isfinite(gap) & (gap <= tol))
    if unsure.size:
        distinct, inverse = np.unique(counts(unsure), axis=0, return_inverse=True)
        decided = [
            winner([exact_support(c[l], N[l], delta, alpha) for l in range(m)])
            for c in distinct.reshape(-1, m, len(delta))
        ]
        win[unsure] = np.array(decided)[inverse.ravel()]
    return np.bincount(win + 1, minlength=m + 1)


def wilson(k: int, n: int, z: float) -> tuple:
    """The Wilson score interval of k successes in n trials.

    Parameters
    ----------
    k, n : int
        Successes and trials.
    z : float
        The standard normal quantile of the interval.

    Returns
    -------
    (float, float)
        (low, high), exactly 0 (1) at the end when there are no (only) successes.
    """
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # with no (or only) successes the end is exactly 0 (or 1); rounding would leave 1e-20
    return (0.0 if k == 0 else max(0.0, centre - half)), (
        1.0 if k == n else min(1.0, centre + half)
    )
